/*
 * One training step: the ledger of collectives, step time, memory per
 * GPU.  Formulas, their sources and worked examples: models/step.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "step.h"

static const char *const dim_names[DIM_COUNT] = { "tp", "cp", "ep", "pp", "dp" };
static const char *const phase_names[PH_COUNT] = { "forward", "backward", "optimizer" };
static const char *const rc_names[RC_COUNT] = { "none", "selective", "full" };

const char *step_dim_name(enum step_dim d)
{
	return d < DIM_COUNT ? dim_names[d] : "?";
}

const char *step_phase_name(enum step_phase p)
{
	return p < PH_COUNT ? phase_names[p] : "?";
}

const char *recompute_name(enum recompute r)
{
	return r < RC_COUNT ? rc_names[r] : "?";
}

int recompute_lookup(const char *name, enum recompute *r, struct errbuf *eb)
{
	int i;

	for (i = 0; i < RC_COUNT; i++)
		if (!strcmp(name, rc_names[i])) {
			*r = (enum recompute)i;
			return 0;
		}
	return errbuf_set(eb, "unknown recompute mode '%s' (none, selective, full)", name);
}

void step_config_init(struct step_config *c)
{
	memset(c, 0, sizeof(*c));
	c->tp = c->pp = c->dp = c->cp = c->ep = 1;
	c->micro_batch = 1;
	c->recompute = RC_NONE;
	c->schedule = PP_1F1B;
	c->virt = 1;
	c->grad_bytes = STEP_GRAD_BYTES;
	c->param_bytes = STEP_PARAM_BYTES;
	c->optim_bytes = STEP_OPTIM_BYTES;
	c->act_bytes = STEP_ACT_BYTES;
	c->capacity = STEP_CAPACITY;
}

/* B, or d·b when no global batch was given. */
static double S_global(const struct step_config *c)
{
	return c->global_batch > 0 ? c->global_batch : (double)c->dp * c->micro_batch;
}

int step_check(const struct workload *w, const struct step_config *c, struct errbuf *eb)
{
	double B = S_global(c), db = (double)c->dp * c->micro_batch, m;

	if (!c->tp || !c->pp || !c->dp || !c->cp || !c->ep)
		return errbuf_set(eb, "parallel sizes must be at least 1");
	if (fmod(w->layers, (double)c->pp) != 0)
		return errbuf_set(eb, "pipeline size %lu does not divide the %.15g layers",
				  c->pp, w->layers);
	if (fmod(w->heads, (double)c->tp) != 0 || fmod(w->kv_heads, (double)c->tp) != 0)
		return errbuf_set(eb, "tensor-parallel size %lu does not divide the %.15g heads "
				  "and %.15g key/value heads", c->tp, w->heads, w->kv_heads);
	if (!(c->seq >= 1) || c->seq != floor(c->seq))
		return errbuf_set(eb, "sequence length must be a whole number >= 1, got %g", c->seq);
	if (fmod(c->seq, (double)c->cp) != 0)
		return errbuf_set(eb, "context-parallel size %lu does not divide the sequence "
				  "length %.15g", c->cp, c->seq);
	if (c->ep > 1 && (w->experts < 2 || fmod(w->experts, (double)c->ep) != 0))
		return errbuf_set(eb, "expert-parallel size %lu does not divide the %.15g experts",
				  c->ep, w->experts);
	if (((double)c->dp * (double)c->cp / (double)c->ep) != floor((double)c->dp * (double)c->cp / (double)c->ep))
		return errbuf_set(eb, "expert-parallel size %lu does not divide dp x cp = %lu",
				  c->ep, c->dp * c->cp);
	if (c->zero < 0 || c->zero > 3)
		return errbuf_set(eb, "ZeRO stage must be 0, 1, 2 or 3, got %d", c->zero);
	if (c->zero >= 2 && c->pp > 1)
		return errbuf_set(eb, "ZeRO stage %d does not combine with pipeline parallelism "
				  "(DeepSpeed and Megatron-LM refuse it)", c->zero);
	if (!(c->micro_batch >= 1) || c->micro_batch != floor(c->micro_batch))
		return errbuf_set(eb, "micro-batch must be a whole number >= 1, got %g",
				  c->micro_batch);
	m = B / db;
	if (!(B >= 1) || m != floor(m) || m < 1)
		return errbuf_set(eb, "global batch %.15g is not a multiple of dp x micro-batch = %.15g",
				  B, db);
	if (c->schedule != PP_INTERLEAVED && c->virt != 1)
		return errbuf_set(eb, "virtual stages need the interleaved schedule");
	if (c->schedule == PP_INTERLEAVED) {
		if (c->virt < 1 || fmod(w->layers, (double)c->pp * (double)c->virt) != 0)
			return errbuf_set(eb, "pp x virtual stages = %lu x %lu does not divide the "
					  "%.15g layers", c->pp, c->virt, w->layers);
		if (fmod(m, (double)c->pp) != 0)
			return errbuf_set(eb, "the interleaved schedule needs micro-batches (%.15g) "
					  "in multiples of pp = %lu", m, c->pp);
	}
	if (!(c->grad_bytes > 0) || !(c->param_bytes > 0) || !(c->optim_bytes >= 0) ||
	    !(c->act_bytes > 0) || !(c->capacity > 0))
		return errbuf_set(eb, "bytes per value and the capacity factor must be positive");
	return 0;
}

unsigned long step_per_node(unsigned long n, unsigned long stride, unsigned long G)
{
	unsigned long k;

	if (G == 0)
		return n;
	if (stride >= G)
		return 1;
	k = G / stride;
	return k < n ? k : n;
}

double step_act_layer(double s, double b, double h, double a, double t, int sp,
		      enum recompute rc)
{
	double sbh = s * b * h;

	switch (rc) {
	case RC_FULL:
		return sp ? 2 * sbh / t : 2 * sbh;
	case RC_SELECTIVE:
		return sp ? sbh * 34 / t : sbh * (10 + 24 / t);
	default:
		return sp ? sbh * (34 + 5 * a * s / h) / t : sbh * (10 + 24 / t + 5 * a * s / (h * t));
	}
}

/* Append a row of `count` collectives; exposed is the whole time unless overlap. */
static int S_row(struct step_result *r, enum step_dim dim, enum step_phase ph, enum coll_op op,
		 double count, double bytes, unsigned long ranks, unsigned long per_node,
		 step_coll_fn coll, void *arg, struct errbuf *eb)
{
	struct step_row *row;
	struct step_coll one;

	if (count <= 0)
		return 0;
	if (r->nrows >= STEP_ROWS_MAX)
		return errbuf_set(eb, "too many rows in the ledger");
	if (coll(arg, op, ranks, per_node, bytes, &one, eb) < 0)
		return -1;
	row = &r->rows[r->nrows++];
	row->dim = dim;
	row->phase = ph;
	row->op = op;
	row->count = count;
	row->bytes = bytes;
	row->ranks = ranks;
	row->per_node = per_node;
	row->tier = one.tier;
	row->one_s = one.time_s;
	row->time_s = count * one.time_s;
	row->exposed_s = row->time_s;
	row->stage = NULL;
	return 0;
}

int step_dp_rows(double params, double layers, double m, int zero, unsigned long ranks,
		 unsigned long per_node, double grad_bytes, double param_bytes,
		 step_coll_fn coll, void *arg, struct step_result *r, struct errbuf *eb)
{
	double G = params * grad_bytes, P = params * param_bytes;
	int first = r->nrows, i, st = 0;

	if (ranks < 2 || params <= 0)
		return 0;
	switch (zero) {
	case 0:
		st = S_row(r, DIM_DP, PH_OPTIMIZER, OP_ALLREDUCE, 1, G, ranks, per_node, coll, arg, eb);
		break;
	case 1:
	case 2:
		/*
		 * Stage 1 reduces the accumulated gradient once; stage 2 keeps
		 * only a shard of the gradient, so every micro-batch's gradient
		 * is reduce-scattered as it is produced (DeepSpeed).
		 */
		st = S_row(r, DIM_DP, zero == 1 ? PH_OPTIMIZER : PH_BACKWARD, OP_REDUCESCATTER,
			   zero == 1 ? 1 : m, G, ranks, per_node, coll, arg, eb);
		if (!st)
			st = S_row(r, DIM_DP, PH_OPTIMIZER, OP_ALLGATHER, 1, P, ranks, per_node,
				   coll, arg, eb);
		break;
	default:
		/* One layer at a time, in every micro-batch (Rajbhandari et al. 2020, §5.3). */
		st = S_row(r, DIM_DP, PH_FORWARD, OP_ALLGATHER, layers * m, P / layers, ranks,
			   per_node, coll, arg, eb);
		if (!st)
			st = S_row(r, DIM_DP, PH_BACKWARD, OP_ALLGATHER, layers * m, P / layers,
				   ranks, per_node, coll, arg, eb);
		if (!st)
			st = S_row(r, DIM_DP, PH_BACKWARD, OP_REDUCESCATTER, layers * m, G / layers,
				   ranks, per_node, coll, arg, eb);
		break;
	}
	if (st < 0)
		return -1;
	for (i = first; i < r->nrows; i++)
		r->dp_comm_s += r->rows[i].time_s;
	return 0;
}

/*
 * The first and last stages' own traffic, apart from the middle stage's
 * ledger.  The vocabulary-parallel input embedding ends in an all-reduce
 * of A over the t ranks in forward (a reduce-scatter with SP); the output
 * layer's input gradient is all-reduced in backward (reduce-scatter with
 * SP), and its cross-entropy reduces three values per token (max, sum of
 * exponentials, target logit; fp32) across the vocabulary shards
 * (Shoeybi et al. 2019, §3).  A tied embedding's gradient is all-reduced
 * between the first and last stage once per step (Narayanan et al. 2021).
 */
static int S_edges(const struct workload *w, const struct step_config *c, double A,
		   step_coll_fn coll, void *arg, struct step_result *r, struct errbuf *eb)
{
	struct step_result e;
	unsigned long G = c->gpus_per_node, pn = step_per_node(c->tp, 1, G);
	enum coll_op op = c->sp ? OP_REDUCESCATTER : OP_ALLREDUCE;
	double tokens = c->micro_batch * c->seq / (double)c->cp;
	int i, first, n;

	memset(&e, 0, sizeof(e));
	if (c->tp > 1) {
		if (S_row(&e, DIM_TP, PH_FORWARD, op, 1, A, c->tp, pn, coll, arg, eb) < 0)
			return -1;
		e.rows[e.nrows - 1].stage = "first";
		first = e.nrows;
		if (S_row(&e, DIM_TP, PH_FORWARD, OP_ALLREDUCE, 3, tokens * 4, c->tp, pn, coll,
			  arg, eb) < 0 ||
		    S_row(&e, DIM_TP, PH_BACKWARD, op, 1, A, c->tp, pn, coll, arg, eb) < 0)
			return -1;
		for (i = first; i < e.nrows; i++)
			e.rows[i].stage = "last";
	}
	if (c->pp > 1 && w->tied) {
		double bytes = w->vocab * w->hidden / (double)c->tp * c->grad_bytes;

		n = (int)step_per_node(c->pp, c->tp * c->cp * c->dp, G) > 1 ? 2 : 1;
		if (S_row(&e, DIM_PP, PH_OPTIMIZER, OP_ALLREDUCE, 1, bytes, 2, (unsigned long)n, coll,
			  arg, eb) < 0)
			return -1;
		e.rows[e.nrows - 1].stage = "first+last";
	}
	memcpy(r->edges, e.rows, sizeof(e.rows));
	r->nedges = e.nrows;
	return 0;
}

int step_run(const struct workload *w, const struct step_config *c,
	     const struct step_compute *cs, step_coll_fn coll, void *arg,
	     struct step_result *r, struct errbuf *eb)
{
	struct layer_params lp;
	struct pp_config ppc;
	struct pp_result ppr;
	double t = (double)c->tp, p = (double)c->pp, d = (double)c->dp, cp = (double)c->cp;
	double e = (double)c->ep, v = (double)c->virt, b = c->micro_batch, s = c->seq;
	double h = w->hidden, l = w->layers, hkv = h * w->kv_heads / w->heads;
	double E = w->experts > 1 ? w->experts : 1, k = w->experts > 1 ? w->top_k : 1;
	double L, m, sr, A, tok, rate = NAN, blk, dense, expert, emb, zd, ze;
	unsigned long G = c->gpus_per_node, ranks, pn;
	int i, full = c->recompute == RC_FULL, moe = E > 1;

	if (step_check(w, c, eb) < 0)
		return -1;
	memset(r, 0, sizeof(*r));
	workload_layer_params(w, &lp);
	L = l / p;
	m = S_global(c) / (d * b);
	sr = s / cp;                        /* tokens of one rank's chunk of a sequence */
	A = b * sr * h * c->act_bytes;      /* one layer's input for one micro-batch */
	r->layers = L;
	r->microbatches = m;
	r->gpus = t * p * d * cp;
	r->tokens = m * d * b * s;

	/*
	 * FLOPs: 6 per parameter and token that multiplies (the layers'
	 * matrices, k experts of an MoE layer, the output layer), plus the
	 * attention scores and their use, 4sh per token and layer forward,
	 * times 3 for forward and backward (Narayanan et al. 2021, Eq. 3
	 * without recomputation).  Full recomputation runs the layers'
	 * forward again, selective only the attention core (Korthikanti et
	 * al. 2022, §5).
	 */
	tok = r->tokens;
	r->flops_model = 6 * tok * (l * lp.matmul + w->vocab * h) + 12 * tok * l * s * h;
	r->flops_hw = r->flops_model;
	if (full)
		r->flops_hw += 2 * tok * l * lp.matmul + 4 * tok * l * s * h;
	else if (c->recompute == RC_SELECTIVE)
		r->flops_hw += 4 * tok * l * s * h;

	r->compute_s = r->mb_compute_s = r->bubble_s = r->step_s = NAN;
	r->tokens_per_s = r->mfu = NAN;
	if (cs && cs->step_compute_s > 0)
		r->compute_s = cs->step_compute_s;
	else if (cs && cs->peak_flops > 0 && cs->mfu > 0)
		r->compute_s = r->flops_hw / (r->gpus * cs->peak_flops * cs->mfu);
	if (!isnan(r->compute_s)) {
		r->mb_compute_s = r->compute_s / m;
		rate = r->flops_hw / (r->gpus * r->compute_s);   /* FLOP/s of one GPU */
	}

	/*
	 * Tensor parallelism (Shoeybi et al. 2019): per layer two all-reduces
	 * of the layer's activations in forward (after attention and after
	 * the MLP) and two in backward; with sequence parallelism
	 * (Korthikanti et al. 2022) each all-reduce becomes an all-gather and
	 * a reduce-scatter of the same buffer.  Full recomputation repeats the
	 * forward ones during backward.
	 */
	if (c->tp > 1) {
		double fw = 2 * L, bw = 2 * L + (full ? 2 * L : 0);

		ranks = c->tp;
		pn = step_per_node(ranks, 1, G);
		if (!c->sp) {
			if (S_row(r, DIM_TP, PH_FORWARD, OP_ALLREDUCE, fw, A, ranks, pn, coll, arg, eb) ||
			    S_row(r, DIM_TP, PH_BACKWARD, OP_ALLREDUCE, bw, A, ranks, pn, coll, arg, eb))
				return -1;
		} else if (S_row(r, DIM_TP, PH_FORWARD, OP_ALLGATHER, fw, A, ranks, pn, coll, arg, eb) ||
			   S_row(r, DIM_TP, PH_FORWARD, OP_REDUCESCATTER, fw, A, ranks, pn, coll, arg, eb) ||
			   S_row(r, DIM_TP, PH_BACKWARD, OP_ALLGATHER, bw, A, ranks, pn, coll, arg, eb) ||
			   S_row(r, DIM_TP, PH_BACKWARD, OP_REDUCESCATTER, bw, A, ranks, pn, coll, arg, eb))
			return -1;
	}

	/*
	 * Context parallelism as ring attention (Liu et al. 2023; Megatron-
	 * Core's CP): per layer the K and V of each chunk travel the ring of
	 * c ranks in c-1 send/recv steps; backward passes K, V and their
	 * gradients, twice the forward.  Each step overlaps the attention of
	 * one block of s/c queries against s/c keys, 4b(s/c)²h/t FLOPs forward.
	 */
	if (c->cp > 1) {
		double kv = 2 * b * sr * (hkv / t) * c->act_bytes;
		int first = r->nrows;

		ranks = c->cp;
		pn = step_per_node(ranks, c->tp, G);
		if (S_row(r, DIM_CP, PH_FORWARD, OP_SENDRECV, L * (cp - 1), kv, ranks, pn, coll, arg, eb) ||
		    S_row(r, DIM_CP, PH_BACKWARD, OP_SENDRECV, (2 + full) * L * (cp - 1), kv, ranks, pn,
			  coll, arg, eb))
			return -1;
		blk = 4 * b * sr * sr * h / t;
		for (i = first; i < r->nrows; i++) {
			struct step_row *row = &r->rows[i];
			double work = row->phase == PH_FORWARD ? blk : 2 * blk;

			row->exposed_s = isnan(rate) ? NAN
				: row->count * fmax(0, row->one_s - work / rate);
		}
	}

	/*
	 * Expert parallelism (Lepikhin et al. 2021, GShard; Fedus et al. 2022):
	 * per MoE layer an all-to-all dispatches each token to its k experts
	 * and another combines the results, in forward and in backward; one
	 * rank sends k·capacity·tokens·h values.
	 */
	if (moe && c->ep > 1) {
		double tokens = b * sr / (c->sp ? t : 1);
		double S = k * c->capacity * tokens * h * c->act_bytes;

		ranks = c->ep;
		pn = step_per_node(ranks, c->tp * c->cp, G);
		if (S_row(r, DIM_EP, PH_FORWARD, OP_ALLTOALL, 2 * L, S, ranks, pn, coll, arg, eb) ||
		    S_row(r, DIM_EP, PH_BACKWARD, OP_ALLTOALL, (2 + 2 * full) * L, S, ranks, pn, coll,
			  arg, eb))
			return -1;
	}

	/*
	 * Pipeline: one send/recv of the activations per stage boundary and
	 * micro-batch forward, one of their gradients backward; v of each
	 * with v chunks.  Split across the tensor-parallel ranks (Narayanan
	 * et al. 2021, §4.1 scatter/gather; with SP they are split already).
	 */
	if (c->pp > 1) {
		unsigned long stride = c->tp * c->cp * c->dp;

		pn = step_per_node(c->pp, stride, G) > 1 ? 2 : 1;
		if (S_row(r, DIM_PP, PH_FORWARD, OP_SENDRECV, v, A / t, 2, pn, coll, arg, eb) ||
		    S_row(r, DIM_PP, PH_BACKWARD, OP_SENDRECV, v, A / t, 2, pn, coll, arg, eb))
			return -1;
	}

	for (i = 0; i < r->nrows; i++) {
		r->mb_comm_s += r->rows[i].time_s;
		r->mb_exposed_s += r->rows[i].exposed_s;
	}

	/*
	 * Data parallelism: the weights of one GPU, dense ones reduced over
	 * the d·c ranks that hold them (CP ranks hold the same weights), the
	 * experts' over the d·c/e ranks that hold the same experts.  Norms and
	 * the router are replicated across tensor-parallel ranks.
	 */
	dense = L * (lp.attn / t + lp.other + (moe ? 0 : lp.mlp / t));
	expert = moe ? L * E * lp.mlp / (t * e) : 0;
	r->stage_params = dense + expert;
	zd = d * cp;
	ze = d * cp / e;
	if (step_dp_rows(dense, L, m, c->zero, c->dp * c->cp, step_per_node(c->dp * c->cp, c->tp, G),
			 c->grad_bytes, c->param_bytes, coll, arg, r, eb) < 0 ||
	    step_dp_rows(expert, L, m, c->zero, (unsigned long)ze,
			 step_per_node((unsigned long)ze, c->tp * c->cp * c->ep, G),
			 c->grad_bytes, c->param_bytes, coll, arg, r, eb) < 0)
		return -1;
	r->dp_exposed_s = r->dp_comm_s;
	if (S_edges(w, c, A, coll, arg, r, eb) < 0)
		return -1;

	/*
	 * Step: m micro-batches of compute and exposed communication, the
	 * pipeline bubble of (p-1)/v of them (Narayanan et al. 2021, §2.2),
	 * then the data-parallel collectives, taken as not overlapped.
	 */
	ppc.schedule = c->pp > 1 ? c->schedule : PP_1F1B;
	ppc.stages = c->pp;
	ppc.microbatches = (unsigned long)m;
	ppc.virt = c->pp > 1 ? c->virt : 1;
	ppc.tf = 1;
	ppc.tb = 2;
	if (pp_bubble(&ppc, &ppr, eb) < 0)
		return -1;
	if (!isnan(r->compute_s) && !isnan(r->mb_exposed_s)) {
		double tmb = r->mb_compute_s + r->mb_exposed_s;

		r->bubble_s = (p - 1) / (c->pp > 1 ? v : 1) * tmb;
		r->step_s = m * tmb + r->bubble_s + r->dp_exposed_s;
		r->tokens_per_s = r->tokens / r->step_s;
		if (cs->peak_flops > 0)
			r->mfu = r->flops_model / (r->step_s * r->gpus * cs->peak_flops);
	}

	/*
	 * Memory of the most loaded stage, the first: its layers and the
	 * input embedding (and, with one stage, the output layer), each
	 * split over the tensor-parallel ranks; ZeRO shards over the
	 * data-parallel ranks (Rajbhandari et al. 2020).  Activations: one
	 * layer times the layers times the micro-batches in flight.
	 */
	emb = (c->pp > 1 ? w->vocab * h : workload_embed_params(w)) / t;
	{
		double zs = zd, dense_all = dense + emb;
		double wd = c->param_bytes, gd = c->grad_bytes, od = c->optim_bytes;
		struct step_memory *mm = &r->mem;

		mm->weights_B = wd * (c->zero >= 3 ? dense_all / zs + expert / ze : dense_all + expert);
		mm->grads_B = gd * (c->zero >= 2 ? dense_all / zs + expert / ze : dense_all + expert);
		mm->optim_B = od * (c->zero >= 1 ? dense_all / zs + expert / ze : dense_all + expert);
		mm->act_layer_B = step_act_layer(sr, b, h, w->heads, t, c->sp && c->tp > 1,
						 c->recompute);
		mm->inflight = c->pp > 1 ? ppr.inflight : 1;
		mm->act_B = mm->act_layer_B * L * mm->inflight;
		mm->total_B = mm->weights_B + mm->grads_B + mm->optim_B + mm->act_B;
	}
	return 0;
}
