/*
 * What of a step's collectives hides behind compute, by framework:
 * Megatron's TP overlap (and --tp-comm-overlap), ring attention's
 * send/recv behind its blocks, the interleaved schedule's send/recv,
 * ZeRO-3's prefetched gathers (FSDP, DeepSpeed module by module,
 * DeepSpeed as of 2021), gradient buckets behind backward, and the SMs a
 * hidden collective still takes.  models/step.md, "Overlap as the
 * frameworks do it".
 */
#include <math.h>
#include <string.h>

#include "nccl_cost.h"
#include "step.h"
#include "step_int.h"

/*
 * A collective hidden behind compute still holds its CTAs' SMs while it
 * runs (NCCL: one CTA per channel, nccl_run_time's channels), so the
 * compute beside it runs on the rest: of a row of time C whose overlap
 * rules leave E exposed, the step still waits max(E, C × ctas/SMs)
 * (models/step.md, "Overlap").  Rows from `first` on; sms 0 (no kernel
 * model) leaves them.
 */
void step_overlap_sm_share(struct step_result *r, int first, double sms)
{
	int i;

	if (!(sms > 0))
		return;
	for (i = first; i < r->nrows; i++) {
		struct step_row *row = &r->rows[i];
		double least = row->time_s * fmin(1, row->ctas / sms);

		if (row->hidden_s > 0 && row->exposed_s < least) {
			row->exposed_s = least;
			row->hidden_s = row->time_s - least;
			row->sms = sms;
		}
	}
}

/* Set a row's exposed time (clamped to [0, time]) and what it hides behind. */
static void S_expose(struct step_row *row, double exposed, const char *behind)
{
	exposed = fmax(0, fmin(row->time_s, exposed));
	row->exposed_s = exposed;
	row->hidden_s = row->time_s - exposed;
	row->overlap = row->hidden_s > 0 ? behind : NULL;
}

/*
 * A TP collective paired with a GEMM under --tp-comm-overlap (Transformer
 * Engine's userbuffers: the GEMM split into t chunks, each chunk's
 * communication behind the next chunk's GEMM): one chunk of t stays
 * exposed, and whatever the GEMM cannot cover.
 */
static double S_tp_chunked(double one, double gemm, double t)
{
	return fmax(one - gemm, one / t);
}

/*
 * Megatron's overlap of the TP collectives of one layer (models/step.md,
 * "Overlap"), rows from `first` on; L layers, full recomputation or not.
 * Always: the column-parallel linears (QKV, the MLP's first) reduce their
 * input's gradient (a reduce-scatter with SP) behind their weight-gradient
 * GEMMs, and with SP gather their input again for that GEMM behind their
 * data-gradient GEMM (megatron/core/tensor_parallel/layers.py,
 * LinearWithGradAccumulationAndAsyncCommunication.backward).  With
 * --tp-comm-overlap also the forward all-gathers (before QKV and the MLP's
 * first) and reduce-scatters (after the attention output and the MLP's
 * last) behind the GEMM each feeds or follows, one chunk of t exposed; the
 * recomputed forward's the same.  A parallel block (par) has one of each a
 * layer: its all-gather feeds QKV and the MLP's first matrix, its
 * reduce-scatter follows the attention output and the MLP's last, and its
 * backward reduction of the input's gradient (the two branches' summed)
 * hides behind both weight-gradient GEMMs.
 */
static void S_tp_overlap(struct step_result *r, const struct step_config *c, int first,
			 double L, int full, int moe, int par)
{
	const struct kernel_layer *k = &r->layer;
	double t = (double)c->tp, mlp = moe || par ? 0 : 1;
	double g[4], dg0 = k->lin_dgrad_s[0], dg2 = k->lin_dgrad_s[2];
	int i;

	memcpy(g, k->lin_fwd_s, sizeof(g));
	if (par) {   /* one collective a layer, behind both branches' GEMMs */
		g[0] += g[2];
		g[1] += g[3];
		dg0 += dg2;
	}
	for (i = first; i < r->nrows; i++) {
		struct step_row *row = &r->rows[i];
		double one = row->one_s, fwd_ag, fwd_rs;

		fwd_ag = S_tp_chunked(one, g[0], t) + mlp * S_tp_chunked(one, g[2], t);
		fwd_rs = S_tp_chunked(one, g[1], t) + mlp * S_tp_chunked(one, g[3], t);
		if (row->phase == PH_FORWARD) {
			if (c->tp_overlap && c->sp)
				S_expose(row, L * (row->op == OP_ALLGATHER ? fwd_ag : fwd_rs),
					 "the GEMM it feeds or follows, in chunks (--tp-comm-overlap)");
			continue;
		}
		/* backward: 2L collectives of the backward itself (L in an MoE
		 * layer, the attention's, or a parallel block), as many more of
		 * the recomputed forward with full recomputation */
		if (row->op == OP_ALLGATHER && c->sp) {
			double re = !full ? 0 : c->tp_overlap ? L * fwd_ag : (1 + mlp) * L * one;

			S_expose(row, L * (fmax(0, one - dg0) + mlp * fmax(0, one - dg2)) + re,
				 moe ? "the data-gradient GEMM of QKV" :
				 "the data-gradient GEMMs of QKV and the MLP's first matrix");
		} else if (row->op != OP_ALLGATHER) {
			double wg = k->wgrad_in_s / (1 + mlp);
			double re = !full ? 0 : !(c->tp_overlap && c->sp) ? (1 + mlp) * L * one :
				    L * fwd_rs;

			S_expose(row, L * (1 + mlp) * fmax(0, one - wg) + re,
				 moe ? "the weight-gradient GEMM of QKV" :
				 "the weight-gradient GEMMs of QKV and the MLP's first matrix");
		}
	}
}

/*
 * PyTorch's async TP (--tp-comm-overlap under fsdp: torchtitan's
 * compile.enable_async_tensor_parallel turns on Inductor's micro-pipeline
 * TP pass, torch/_inductor/fx_passes/micro_pipeline_tp.py): every
 * all-gather that feeds a matmul and every reduce-scatter a matmul feeds
 * becomes one fused op over symmetric memory, the matmul split into t
 * chunks (torch/distributed/_symmetric_memory, fused_all_gather_matmul,
 * fused_matmul_reduce_scatter), in the compiled backward as in the
 * forward.  Forward as under megatron; backward, the gradient of the
 * attention output's and the MLP's last input gathered behind their
 * data-gradient GEMMs, QKV's and the MLP's first input gradient
 * reduce-scattered behind theirs; the recomputed forward's as the
 * forward's.  Without it DTensor's collectives wait in the stream: exposed.
 */
static void S_tp_async(struct step_result *r, const struct step_config *c, int first,
		       double L, int full, int moe, int par)
{
	const struct kernel_layer *k = &r->layer;
	const double *g = k->lin_fwd_s, *dg = k->lin_dgrad_s;
	double t = (double)c->tp, mlp = moe || par ? 0 : 1;
	int i;

	for (i = first; i < r->nrows; i++) {
		struct step_row *row = &r->rows[i];
		double one = row->one_s, ag = row->op == OP_ALLGATHER;
		double fwd = ag ? S_tp_chunked(one, g[0] + (par ? g[2] : 0), t) +
				  mlp * S_tp_chunked(one, g[2], t)
				: S_tp_chunked(one, g[1] + (par ? g[3] : 0), t) +
				  mlp * S_tp_chunked(one, g[3], t);
		double bwd = ag ? S_tp_chunked(one, dg[1] + (par ? dg[3] : 0), t) +
				  mlp * S_tp_chunked(one, dg[3], t)
				: S_tp_chunked(one, dg[0] + (par ? dg[2] : 0), t) +
				  mlp * S_tp_chunked(one, dg[2], t);

		S_expose(row, row->phase == PH_FORWARD ? L * fwd : L * bwd + (full ? L * fwd : 0),
			 "the GEMM it feeds or follows, in chunks (--tp-comm-overlap, async TP)");
	}
}

/*
 * Megatron's column-parallel linears (QKV, the MLP's first
 * matrix) launch the backward all-reduce of their input's
 * gradient (a reduce-scatter with SP) asynchronously and run
 * the weight-gradient GEMM meanwhile (megatron/core/
 * tensor_parallel/layers.py, LinearWithGradAccumulationAnd-
 * AsyncCommunication.backward): each of the 2L such
 * collectives hides behind its linear's wgrad GEMM.
 */
void step_overlap_tp(struct run *u)
{
	struct step_result *r = u->r;

	if (u->c->tp > 1 && r->kernels && u->megatron_layers)
		S_tp_overlap(r, u->c, u->first_tp, u->L, u->full, u->moe,
			     workload_parallel(u->w));
	else if (u->c->tp > 1 && r->kernels && u->c->tp_overlap && u->c->sp)
		S_tp_async(r, u->c, u->first_tp, u->L, u->full, u->moe,
			   workload_parallel(u->w));
}

/*
 * Ring attention: each send/recv step overlaps the attention of one block
 * of s/c queries against s/c keys.  The all-gather form stays exposed.
 */
void step_overlap_cp(struct run *u)
{
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	/* the core's width: h_q, or latent attention's a(d_qk + d_v)/2 */
	double b = u->b, sr = u->sr, h = workload_core_width(u->w), t = u->t, cp = u->cp;
	double rate = u->rate, blk;
	int i;

	if (c->cp > 1 && c->cp_form != CP_ALLGATHER) {
		blk = 4 * b * sr * sr * h / t;
		for (i = u->first_cp; i < r->nrows; i++) {
			struct step_row *row = &r->rows[i];
			double work;

			if (r->kernels)
				work = (row->phase == PH_FORWARD ? r->layer.attn_fwd_s :
					r->layer.attn_bwd_s / 2) / cp;
			else
				work = isnan(rate) ? NAN
					: (row->phase == PH_FORWARD ? blk : 2 * blk) / rate;
			if (!isnan(work))
				S_expose(row, row->count * fmax(0, row->one_s - work),
					 "the attention of the block it feeds");
		}
	}
}

/*
 * Megatron-Core's EP all-to-all overlap (--overlap-moe-expert-parallel-comm;
 * megatron/core/pipeline_parallel/combined_1f1b.py): in the steady state
 * of the schedule the forward of one micro-batch (a model chunk's, with
 * the interleaved schedule) runs layer by layer beside the backward of
 * another, the forward's dispatch and combine all-to-alls behind the
 * backward's compute and the backward's behind the forward's.  The passes
 * outside those pairs wait whole: the warm-up forwards and as many
 * cool-down backwards, 2(p - 1) + (v - 1)·p + 1 of the m·v chunk passes
 * on the first stage (schedules.py, get_pp_rank_microbatches: one more
 * forward before the steady state with the overlap), the first forward
 * and last backward of m without a pipeline.  A paired layer leaves
 * exposed what its two all-to-alls take beyond the other pass's layer.
 * The expert-tensor-parallel all-gather and reduce-scatter stay exposed.
 */
void step_overlap_ep(struct run *u)
{
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	/* the stage's MoE layers (its dense first layers have no all-to-all) */
	double m = u->m, v = u->v, p = u->p, L = u->L - u->Ld, alone, pairs;
	double T[2] = { 0, 0 }, P[2] = { 0, 0 };
	int i;

	if (!c->ep_overlap || isnan(u->fwd_l))
		return;
	alone = p > 1 ? 2 * (p - 1) + (v - 1) * p + 1 : 1;
	pairs = fmax(0, 1 - alone / (m * v));
	/* A phase's all-to-alls together (two rows of it under an FP8
	 * dispatch), their exposed time shared by their times. */
	for (i = u->first_ep; i < r->nrows; i++)
		if (r->rows[i].op == OP_ALLTOALL) {
			T[r->rows[i].phase == PH_FORWARD] += r->rows[i].time_s;
			P[r->rows[i].phase == PH_FORWARD] += r->rows[i].count / L * r->rows[i].one_s;
		}
	for (i = u->first_ep; i < r->nrows; i++) {
		struct step_row *row = &r->rows[i];
		int fw = row->phase == PH_FORWARD;
		double other = fw ? u->bwd_l : u->fwd_l;

		if (row->op != OP_ALLTOALL || !(T[fw] > 0))
			continue;
		S_expose(row, ((1 - pairs) * T[fw] + pairs * L * fmax(0, P[fw] - other)) *
			      (row->time_s / T[fw]),
			 "the other micro-batch's compute (--overlap-moe-expert-parallel-comm)");
	}
}

void step_overlap_pp(struct run *u)
{
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	double v = u->v, L = u->L, fwd_l = u->fwd_l, bwd_l = u->bwd_l;
	int i;

	if (c->pp > 1) {
		/*
		 * Megatron's interleaved schedule overlaps its sends and
		 * receives with the next chunk's compute (overlap_p2p_comm, on
		 * unless --no-overlap-p2p-communication: megatron/training/
		 * arguments.py, megatron/core/pipeline_parallel/schedules.py);
		 * 1F1B waits for them.
		 */
		if (c->framework == FW_MEGATRON && c->schedule == PP_INTERLEAVED && !isnan(fwd_l))
			for (i = u->first_pp; i < r->nrows; i++) {
				struct step_row *row = &r->rows[i];
				double chunk = L / v * (row->phase == PH_FORWARD ? fwd_l : bwd_l);

				S_expose(row, row->count * fmax(0, row->one_s - chunk),
					 "the next model chunk's compute (overlap_p2p_comm)");
			}
	}
}


/*
 * DeepSpeed's ZeRO-3 gathers of one phase, module by module.  The
 * coordinator prefetches the next module while the current one computes,
 * but only while the parameters gathered stay under
 * stage3_max_live_parameters = 10^9 (min(max_live - available,
 * prefetch_bucket_size) in deepspeed/runtime/zero/
 * partitioned_param_coordinator.py, fetch_sub_module): after a module of
 * 10^9 parameters or more nothing is prefetched and the next gather waits
 * whole.  Each module's gather is priced at its own size; its compute is
 * the layer's, shared by the modules' sizes.  The first gather of each
 * pass waits.
 *
 * DeepSpeed of 2021 (traced = 0): from v0.3.14 to v0.5.x the coordinator's
 * trace of the modules was one step off (stage3.py: the engine's
 * reset_step pre-hook on the model is registered after the model's own
 * fetch hook, so every module's step_id is its predecessor's place in the
 * trace), and both of its uses bail out: get_params_to_prefetch ("Tracing
 * failed. Prefetching is disabled") and get_reuse_distance_in_numel (no
 * module kept for later).  Every gather therefore waits whole, after the
 * compute before it (torch.cuda.synchronize() in _allgather_param), and
 * each use of a module gathers it again: under full recomputation twice a
 * module in backward.  DeepSpeed's own account: the hook registration
 * "created off-by-one tracing issue" (microsoft/DeepSpeed#1170, on the
 * ZeRO-3 slowdown of #1069).
 */
#define STEP_DS_MAX_LIVE 1e9
#define STEP_DS_MAX_REUSE 1e9   /* stage3_max_reuse_distance */

/*
 * One view made from Python: PyTorch's operator micro-benchmarks time a
 * view op (split, two parts) called from Python at 2.3 to 3.4 us
 * (pytorch/pytorch #32194, before and after that change; the middle
 * taken).  DeepSpeed of 2021 made one per rank for every gather and
 * reduce-scatter (narrow()); with PyTorch's copy of the piece (one launch,
 * NCCL_LAUNCH_S) the host's work per rank of a list call.
 */
#define STEP_DS_VIEW_S 2.85e-6
#define STEP_DS_LIST_S (STEP_DS_VIEW_S + NCCL_LAUNCH_S)

/*
 * Gathers of module j in one layer's backward under full recomputation:
 * the checkpointed forward runs the layer's modules again, and each
 * module's pre-forward hook gathers it (stage3.py,
 * pre_sub_module_forward_function -> fetch_sub_module); after that
 * forward a module is released unless it is used again within
 * stage3_max_reuse_distance = 10^9 parameters (release_sub_module,
 * _keep_for_later).  Between module j's recomputed forward and its
 * backward run the recomputed forward of the modules after it and their
 * backward: 2·sum_{k>j} mods[k] parameters.  So 2 gathers when that
 * reaches 10^9, else 1; 1 without full recomputation.
 */
int step_ds_backward_gathers(const double *mods, int nmod, int j, int full)
{
	double dist = 0;
	int k;

	if (!full)
		return 1;
	for (k = j + 1; k < nmod; k++)
		dist += 2 * mods[k];
	return dist >= STEP_DS_MAX_REUSE ? 2 : 1;
}

static int S_ds_gathers(struct step_pricing *pr, struct step_row *row, const double *mods,
			int nmod, double m, double L, double fwd_l, double bwd_l, int full,
			int traced, struct errbuf *eb)
{
	double ag[8], sum = 0, gl = 0, ex_l = 0, first = 0, n = 0, bytes = 0, each;
	const char *tier;
	int j, fw = row->phase == PH_FORWARD, again[8];

	for (j = 0; j < nmod; j++)
		sum += mods[j];
	for (j = 0; j < nmod; j++) {
		/* untraced: nothing kept for later, each use gathers again */
		again[j] = fw ? 1 : traced ? step_ds_backward_gathers(mods, nmod, j, full) : 1 + full;
		each = row->bytes * nmod * mods[j] / sum;
		if (step_price(pr, OP_ALLGATHER, row->ranks, row->per_node, each, &ag[j], &tier, NULL,
			    eb) < 0)
			return -1;
		ag[j] *= again[j];
		gl += ag[j];
		n += again[j];
		bytes += again[j] * each;
	}
	row->count = m * L * n;
	row->bytes = bytes / n;
	for (j = 0; j < nmod; j++) {
		int i = fw ? j : nmod - 1 - j;
		int prev = fw ? (j ? i - 1 : nmod - 1) : (j ? i + 1 : 0);
		double work = (fw ? fwd_l : bwd_l) * mods[prev] / sum;
		double e = traced && mods[prev] < STEP_DS_MAX_LIVE ? fmax(0, ag[i] - work) : ag[i];

		ex_l += e;
		if (!j)
			first = ag[i] - e;
	}
	row->time_s = m * L * gl;
	row->one_s = row->time_s / row->count;
	S_expose(row, m * (L * ex_l + first),
		 "the module before it (prefetch, under stage3_max_live_parameters)");
	return 0;
}

/*
 * DeepSpeed's ZeRO-3 as released in 2021 (v0.3.14 to v0.5.4; models/step.md,
 * "Overlap"), on the ZeRO-3 rows from `first` on, over and above today's
 * gathers (S_ds_gathers).  Every gather and every reduce-scatter went
 * through PyTorch's list API: DeepSpeed built the list in Python, one
 * narrow() view per rank (partition_parameters.py, _allgather_param and
 * _reduce_scatter_gradient), and PyTorch copied each of the N pieces
 * between a flat buffer and the list, one launch each (ProcessGroupNCCL
 * allgather / reduce_scatter, flatten_for_scatter_gather); all of it on
 * the host before the module's compute is queued.  A call therefore
 * waits the larger of N x (STEP_DS_VIEW_S + NCCL_LAUNCH_S) and the copies'
 * bytes read and written, exposed.  Each gather first zeroes its whole
 * buffer (torch.zeros) and waits for it (torch.cuda.synchronize(), v0.3.13
 * to v0.5.4): its bytes written, exposed.  Gradients were reduce-scattered
 * parameter by parameter, the small ones too (_reduce_scatter_gradients),
 * and each module's fetch ended in torch.cuda.synchronize(), which waits
 * for them: the reduce-scatters are exposed.  small[] are a layer's
 * parameters below the persistence threshold (biases, norms): never
 * gathered, but reduce-scattered.
 */
static int S_ds2021(struct step_pricing *pr, struct step_result *r, int first, const double *mods,
		    int nmod, const double *small, int nsmall, double m, double L,
		    double grad_bytes, const struct kernel_gpu *kg, struct errbuf *eb)
{
	int i, j;

	for (i = first; i < r->nrows; i++) {
		struct step_row *row = &r->rows[i];
		double host = (double)row->ranks * STEP_DS_LIST_S, per_layer = 0, bytes = 0, one;
		double before = row->time_s, extra;
		const char *tier;

		if (row->op == OP_ALLGATHER) {
			/* the list built and its N copies on the host, or their bytes
			 * read and written; the buffer zeroed first */
			extra = fmax(host, kg ? kernel_mem_s(kg, 2 * row->bytes) : 0) +
				(kg ? kernel_mem_s(kg, row->bytes) : 0);
			row->one_s += extra;
			row->time_s += row->count * extra;
			row->exposed_s += row->count * extra;
			row->hidden_s = row->time_s - row->exposed_s;
		} else if (row->op == OP_REDUCESCATTER) {
			for (j = 0; j < nmod + nsmall; j++) {
				double n = j < nmod ? mods[j] : small[j - nmod];

				if (step_price(pr, OP_REDUCESCATTER, row->ranks, row->per_node,
					    n * grad_bytes, &one, &tier, NULL, eb) < 0)
					return -1;
				extra = fmax(host, kg ? kernel_mem_s(kg, 2 * n * grad_bytes) : 0);
				per_layer += one + extra;
				bytes += n * grad_bytes;
			}
			row->count = m * L * (nmod + nsmall);
			row->bytes = bytes / (nmod + nsmall);
			row->time_s = m * L * per_layer;
			row->one_s = row->time_s / row->count;
			S_expose(row, row->time_s, NULL);
		}
		r->dp_comm_s += row->time_s - before;
	}
	return 0;
}

/*
 * ZeRO-3's rows: each layer's gather prefetched behind the one before,
 * DeepSpeed's module by module; backward, a layer's gather and
 * reduce-scatter together behind its backward.
 */
static int S_zero3_expose(struct run *u, struct step_row *row, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	double m = u->m, L = u->L, fwd_l = u->fwd_l, bwd_l = u->bwd_l;
	unsigned long ranks_dp = row->ranks;
	int first_dp = u->first_dp;

	/*
	 * Each layer's gather is prefetched behind the previous layer's
	 * compute (FSDP: one unit ahead, at most two gathers in flight,
	 * torch/distributed/fsdp; DeepSpeed: the next modules up to
	 * stage3_prefetch_bucket_size); the first layer's waits.
	 * Backward: the gather and the reduce-scatter share the network
	 * behind the layer's backward; the last reduce-scatter waits.
	 */
	double per_mb = row->count / m, n_l = per_mb / L, g1 = row->one_s * n_l;

	if (u->nmod && row->op == OP_ALLGATHER && row->ranks == c->dp * c->cp)
		return S_ds_gathers(u->prp, row, u->mods, u->nmod, m, L, fwd_l, bwd_l, u->full,
				    c->framework != FW_DEEPSPEED_2021, eb);
	if (row->phase == PH_FORWARD)
		S_expose(row, m * (g1 + (L - 1) * fmax(0, g1 - fwd_l)),
			 "the previous layer's forward (prefetch)");
	else {
		/* AG and RS of one layer together against its backward */
		double ag = 0, rs = 0, both, ex;
		int j;

		for (j = first_dp; j < r->nrows; j++) {
			if (r->rows[j].phase != PH_BACKWARD || r->rows[j].ranks != ranks_dp)
				continue;
			if (r->rows[j].op == OP_ALLGATHER)
				ag = r->rows[j].time_s / (m * L);
			else
				rs = r->rows[j].time_s / (m * L);
		}
		both = ag + rs;
		ex = m * L * fmax(0, both - bwd_l) * (both > 0 ? (row->op == OP_ALLGATHER ? ag : rs) / both : 0);
		if (row->op == OP_REDUCESCATTER)
			ex += m * rs;
		S_expose(row, ex, "the layer's backward");
	}
	return 0;
}

/*
 * Megatron's interleaved schedule reduces each model chunk's gradients
 * when that chunk's last backward is done (megatron/core/pipeline_parallel/
 * schedules.py, forward_backward_pipelining_with_interleaving: grad_sync_
 * func per chunk, "Launch any remaining grad reductions" at the end).  The
 * cooldown runs the v chunks' last backwards p micro-batches apart, chunk
 * v-1 first, so chunk j's reduction (red / v) is launched j·p·bwd/v before
 * the backward ends and queues behind the chunks launched before it on the
 * one data-parallel communicator.  What the queue runs past the end of the
 * backward is exposed.
 */
double step_grad_chunks(double red, double v, double p, double bwd)
{
	double done = -INFINITY, gap = p * bwd / v;
	int j;

	for (j = (int)v - 1; j >= 0; j--)
		done = fmax(-j * gap, done) + red / v;
	return fmax(0, done);
}

/*
 * Its parameter all-gather (--overlap-param-gather) chunk by chunk too:
 * chunks 0 and 1 at the start of the step, chunk k + 1 when chunk k's first
 * forward begins (schedules.py, param_sync_func); the warmup runs each
 * chunk's forward for p micro-batches before the next chunk's.  A chunk
 * whose gather is still running when its forward begins hides it behind
 * its first micro-batch's forward, bucket by bucket, its last bucket
 * exposed, as the whole step's gather does without chunks.
 */
double step_gather_chunks(double gat, double last, double v, double p, double fwd)
{
	double t = 0, q = 0, start_prev = 0, exposed = 0, f1 = fwd / v, wait;
	int k;

	for (k = 0; k < (int)v; k++) {
		q = fmax(q, start_prev) + gat / v;   /* chunk 1 beside chunk 0: both at 0 */
		wait = q > t ? fmax(last, q - t - f1) : 0;
		exposed += wait;
		start_prev = t;
		t += wait + p * f1;
	}
	return exposed;
}

/* ZeRO 0-2's rows: buckets behind backward, by framework. */
static int S_bucket_expose(struct run *u, struct step_row *row, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	double fwd_mb = u->fwd_mb, bwd_mb = u->bwd_mb, G_all, bucket, rest, last_s;
	unsigned long ranks_dp = row->ranks;
	const char *tier;
	int k0;

	/*
	 * Gradients reduced in buckets behind backward: Megatron's
	 * --overlap-grad-reduce, buckets of max(4e7, 1e6·d)
	 * parameters (megatron/core/distributed/distributed_data_
	 * parallel.py), launched in the last micro-batch's backward
	 * (gradient sync is off for the others); FSDP and DDP: 25 MiB
	 * buckets.  The last bucket waits for the end of backward.
	 * DeepSpeed ZeRO 0-2 leaves overlap_comm off by default:
	 * exposed.  Megatron's --overlap-param-gather hides the
	 * distributed optimizer's all-gather behind the next forward.
	 */
	if (step_framework_deepspeed(c->framework))
		return 0;
	if (c->framework == FW_MEGATRON)
		bucket = fmax(4e7, 1e6 * (double)ranks_dp) *
			 (row->op == OP_ALLGATHER ? c->param_bytes : c->grad_bytes);
	else
		bucket = 25.0 * 1024 * 1024;
	if (row->op == OP_ALLGATHER && c->framework != FW_MEGATRON)
		return 0;
	G_all = row->bytes;
	k0 = (int)fmax(1, ceil(G_all / bucket));
	rest = G_all - (k0 - 1) * bucket;
	if (step_price(u->prp, row->op, row->ranks, row->per_node, rest, &last_s, &tier, NULL, eb) < 0)
		return -1;
	if (c->framework == FW_MEGATRON && c->schedule == PP_INTERLEAVED && u->v > 1 &&
	    row->count == 1) {
		if (row->op == OP_ALLGATHER)
			S_expose(row, step_gather_chunks(row->one_s, last_s, u->v, u->p, fwd_mb),
				 "the first forward of the chunk before, chunk by chunk "
				 "(--overlap-param-gather, interleaved)");
		else
			S_expose(row, fmax(last_s, step_grad_chunks(row->one_s, u->v, u->p, bwd_mb)),
				 "the cooldown's backward, chunk by chunk (interleaved)");
		return 0;
	}
	if (row->op == OP_ALLGATHER)
		S_expose(row, fmax(last_s, row->one_s - fwd_mb),
			 "the next step's first forward (--overlap-param-gather)");
	else if (row->count > 1)
		/*
		 * ZeRO-2: a reduce-scatter in every micro-batch, each
		 * behind the rest of that micro-batch's backward and the
		 * next one's forward and backward (1F1B's steady state);
		 * the last one behind its backward alone.
		 */
		S_expose(row, (row->count - 1) * fmax(last_s, row->one_s - fwd_mb - bwd_mb) +
			 fmax(last_s, row->one_s - bwd_mb),
			 "backward and the next micro-batch, in buckets");
	else
		S_expose(row, row->count * fmax(last_s, row->one_s - bwd_mb),
			 "backward, in buckets");
	return 0;
}

/* What of the data-parallel rows hides, by framework. */
static int S_run_dp_expose(struct run *u, struct errbuf *eb)
{
	struct step_result *r = u->r;
	int i;

	if (isnan(r->compute_s))
		return 0;
	/* (forward dp rows: ZeRO-3's gathers, or FSDP's SHARD_GRAD_OP's, alike) */
	for (i = u->first_dp; i < r->nrows; i++)
		if ((u->c->zero >= 3 || r->rows[i].phase == PH_FORWARD ?
		     S_zero3_expose(u, &r->rows[i], eb) :
		     S_bucket_expose(u, &r->rows[i], eb)) < 0)
			return -1;
	return 0;
}

int step_overlap_dp(struct run *u, struct errbuf *eb)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	const struct kernel_gpu *kg = u->kg;
	double h = u->h, hkv = u->hkv, t = u->t, m = u->m, L = u->L;
	const double *mods = u->mods;
	int nmod = u->nmod, first_dp = u->first_dp, i;

	if (S_run_dp_expose(u, eb) < 0)
		return -1;
	if (c->framework == FW_DEEPSPEED_2021 && c->zero >= 3 && nmod && !isnan(r->compute_s)) {
		double f = w->ffn;
		double gs[8] = { (h + 2 * hkv) / t, h, f / t, h, h, h, h, h };   /* GPT: biases, 2 LayerNorms */
		double ls[2] = { h, h };                                          /* Llama: 2 RMSNorms */
		int llama = w->arch == WL_LLAMA;

		if (S_ds2021(prp, r, first_dp, mods, nmod, llama ? ls : gs, llama ? 2 : 8, m, L,
			     c->grad_bytes, kg, eb) < 0)
			return -1;
	}
	step_overlap_sm_share(r, first_dp, u->sms);
	for (i = first_dp; i < r->nrows; i++)
		r->dp_exposed_s += r->rows[i].exposed_s;
	return 0;
}
