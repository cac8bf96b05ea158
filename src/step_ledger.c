/*
 * The ledger of a step: each collective priced on the cost model (kept in
 * a memo across steps), and the rows of each parallel dimension (tp, cp,
 * ep, pp per micro-batch, dp per step, the first and last stages' own).
 * Every row starts exposed; step_overlap.c says what hides.
 * models/step.md, "The ledger".
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errband.h"
#include "step.h"
#include "step_int.h"
#include "util.h"

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

/* ---- prices kept for many steps ---- */

struct step_memo_ent {
	double bytes, time_s;
	int ctas;
	unsigned long ranks, per_node;
	const char *tier;
	int op;                  /* -1: empty */
};

void step_memo_release(struct step_memo *m)
{
	free(m->t);
	free(m->k);
	memset(m, 0, sizeof(*m));
}

/* FNV-1a over the key's fields. */
static size_t S_hash(int op, unsigned long ranks, unsigned long per_node, double bytes)
{
	uint64_t b, h = UTIL_FNV_BASIS;

	memcpy(&b, &bytes, sizeof(b));
	h = UTIL_FNV(h, op);
	h = UTIL_FNV(h, ranks);
	h = UTIL_FNV(h, per_node);
	/* a double's low mantissa bits are mostly zero: its high ones folded down */
	h = UTIL_FNV(h, b ^ (b >> 29));
	return (size_t)(h ^ (h >> 29));
}

static void S_memo_grow(struct step_memo *m)
{
	struct step_memo_ent *old = m->t;
	size_t oc = m->cap, i, j;

	m->cap = oc ? 2 * oc : 1024;
	m->t = xmalloc(m->cap * sizeof(*m->t));
	for (i = 0; i < m->cap; i++)
		m->t[i].op = -1;
	for (i = 0; i < oc; i++) {
		if (old[i].op < 0)
			continue;
		j = S_hash(old[i].op, old[i].ranks, old[i].per_node, old[i].bytes) & (m->cap - 1);
		while (m->t[j].op >= 0)
			j = (j + 1) & (m->cap - 1);
		m->t[j] = old[i];
	}
	free(old);
}

/* The slot of a key: its entry, or the empty one it goes into. */
static struct step_memo_ent *S_memo_slot(struct step_memo *m, enum coll_op op,
					 unsigned long ranks, unsigned long per_node, double bytes)
{
	size_t j;

	if (2 * (m->n + 1) > m->cap)
		S_memo_grow(m);
	for (j = S_hash((int)op, ranks, per_node, bytes) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
		struct step_memo_ent *e = &m->t[j];

		if (e->op < 0 || (e->op == (int)op && e->ranks == ranks && e->per_node == per_node &&
				  e->bytes == bytes))
			return e;
	}
}

/* The cost model's time of one collective, and its band (no memo). */
static int S_price_model(struct step_pricing *pr, enum coll_op op, unsigned long ranks,
			 unsigned long per_node, double bytes, double *t, const char **tier,
			 int *ctas, struct errbuf *eb)
{
	struct group g = { ranks, per_node };
	struct coll_cost cc;
	enum coll_algo a = pr->algo;

	if (a == ALGO_AUTO || !cost_algo_supported(pr->m, op, a))
		a = cost_algo_preferred(pr->m, op);
	if (cost_coll(pr->m, op, a, &g, bytes, &cc, eb) < 0)
		return -1;
	*t = cc.time_s;
	*ctas = cc.ctas;
	*tier = pr->m->kind == COST_LINK || pr->m->kind == COST_FIT ? "link" : tier_name(cc.bound);
	if (pr->band != STEP_BAND_NONE && ranks >= 2) {
		const struct errband *b = NULL;
		unsigned long nodes = 1;

		if (pr->m->kind == COST_NCCL && op == OP_ALLREDUCE && pr->m->sys) {
			nodes = per_node ? (ranks + per_node - 1) / per_node :
				system_nodes(pr->m->sys, ranks);
			b = errband_get(nodes, bytes);
		}
		if (!b) {
			if (!pr->missing)
				pr->missing = 1 + (int)op;
		} else {
			*t *= pr->band == STEP_BAND_HI ? b->hi : b->lo;
			pr->cells |= errband_cell_bit(nodes, bytes);
		}
	}
	return 0;
}

/* One collective's time on the pricing's model, and its band. */
int step_price(struct step_pricing *pr, enum coll_op op, unsigned long ranks,
	       unsigned long per_node, double bytes, double *t, const char **tier,
	       int *ctas, struct errbuf *eb)
{
	struct step_memo_ent *e;
	int k = 0;

	if (!ctas)
		ctas = &k;
	if (!pr->memo || pr->band != STEP_BAND_NONE)
		return S_price_model(pr, op, ranks, per_node, bytes, t, tier, ctas, eb);
	pr->memo->calls++;
	e = S_memo_slot(pr->memo, op, ranks, per_node, bytes);
	if (e->op >= 0) {
		*t = e->time_s;
		*tier = e->tier;
		*ctas = e->ctas;
		return 0;
	}
	pr->memo->evals++;
	if (S_price_model(pr, op, ranks, per_node, bytes, t, tier, ctas, eb) < 0)
		return -1;
	e->op = (int)op;
	e->ranks = ranks;
	e->per_node = per_node;
	e->bytes = bytes;
	e->time_s = *t;
	e->tier = *tier;
	e->ctas = *ctas;
	pr->memo->n++;
	return 0;
}

/* Append a row of `count` collectives of one priced time, exposed until an
 * overlap rule says otherwise. */
static int S_row_priced(struct step_result *r, enum step_dim dim, enum step_phase ph,
			enum coll_op op, double count, double bytes, unsigned long ranks,
			unsigned long per_node, double one, const char *tier, int ctas,
			struct errbuf *eb)
{
	struct step_row *row;

	if (r->nrows >= STEP_ROWS_MAX)
		return errbuf_set(eb, "too many rows in the ledger");
	row = &r->rows[r->nrows++];
	memset(row, 0, sizeof(*row));
	row->dim = dim;
	row->phase = ph;
	row->op = op;
	row->count = count;
	row->bytes = bytes;
	row->ranks = ranks;
	row->per_node = per_node;
	row->tier = tier;
	row->one_s = one;
	row->ctas = ctas;
	row->time_s = count * one;
	row->exposed_s = row->time_s;
	return 0;
}

/* Append a row of `count` collectives priced on the pricing's model. */
static int S_row(struct step_result *r, struct step_pricing *pr, enum step_dim dim,
		 enum step_phase ph, enum coll_op op, double count, double bytes,
		 unsigned long ranks, unsigned long per_node, struct errbuf *eb)
{
	const char *tier;
	double one;
	int ctas = 0;

	if (count <= 0)
		return 0;
	if (step_price(pr, op, ranks, per_node, bytes, &one, &tier, &ctas, eb) < 0)
		return -1;
	return S_row_priced(r, dim, ph, op, count, bytes, ranks, per_node, one, tier, ctas, eb);
}

/*
 * `count` expert all-to-alls of `vals` values a rank (its routed copies),
 * `bpv` bytes a value: on the model as one all-to-all, or as the two legs
 * of node-limited routing (step_price_route).
 */
static int S_row_a2a(struct run *u, enum step_phase ph, double count, double vals,
		     double bpv, unsigned long ranks, unsigned long pn, struct errbuf *eb)
{
	const char *tier;
	double one;

	if (!u->c->route_nodes)
		return S_row(u->r, u->prp, DIM_EP, ph, OP_ALLTOALL, count, vals * bpv, ranks, pn, eb);
	if (count <= 0)
		return 0;
	if (step_price_route(u, vals * bpv, ranks, pn, &one, &tier, eb) < 0)
		return -1;
	return S_row_priced(u->r, DIM_EP, ph, OP_ALLTOALL, count, vals * bpv, ranks, pn, one,
			    tier, 0, eb);
}

/*
 * The data-parallel rows; ZeRO-3 gathers ag_per_layer times per layer
 * (1: one unit per layer, FSDP; 4: one per linear, DeepSpeed) and
 * reduce-scatters per layer, or in buckets of rs_bucket parameters.
 */
static int S_dp(double params, double layers, double m, int zero, unsigned long ranks,
		unsigned long per_node, double grad_bytes, double param_bytes, double ag_per_layer,
		double rs_bucket, struct step_pricing *pr, struct step_result *r, struct errbuf *eb)
{
	double G = params * grad_bytes, P = params * param_bytes, nrs;
	int first = r->nrows, i, st = 0;

	if (ranks < 2 || params <= 0)
		return 0;
	switch (zero) {
	case 0:
		st = S_row(r, pr, DIM_DP, PH_OPTIMIZER, OP_ALLREDUCE, 1, G, ranks, per_node, eb);
		break;
	case 1:
	case 2:
		/*
		 * Stage 1 reduces the accumulated gradient once; stage 2 keeps
		 * only a shard of the gradient, so every micro-batch's gradient
		 * is reduce-scattered as it is produced (DeepSpeed).
		 */
		st = S_row(r, pr, DIM_DP, zero == 1 ? PH_OPTIMIZER : PH_BACKWARD, OP_REDUCESCATTER,
			   zero == 1 ? 1 : m, G, ranks, per_node, eb);
		if (!st)
			st = S_row(r, pr, DIM_DP, PH_OPTIMIZER, OP_ALLGATHER, 1, P, ranks, per_node, eb);
		break;
	default:
		/* One layer at a time, in every micro-batch (Rajbhandari et al. 2020, §5.3). */
		nrs = rs_bucket > 0 ? fmax(1, ceil(params / rs_bucket)) : layers;
		st = S_row(r, pr, DIM_DP, PH_FORWARD, OP_ALLGATHER, layers * m * ag_per_layer,
			   P / (layers * ag_per_layer), ranks, per_node, eb);
		if (!st)
			st = S_row(r, pr, DIM_DP, PH_BACKWARD, OP_ALLGATHER, layers * m * ag_per_layer,
				   P / (layers * ag_per_layer), ranks, per_node, eb);
		if (!st)
			st = S_row(r, pr, DIM_DP, PH_BACKWARD, OP_REDUCESCATTER, nrs * m, G / nrs,
				   ranks, per_node, eb);
		break;
	}
	if (st < 0)
		return -1;
	for (i = first; i < r->nrows; i++)
		r->dp_comm_s += r->rows[i].time_s;
	return 0;
}

int step_dp_rows(double params, double layers, double m, int zero, unsigned long ranks,
		 unsigned long per_node, double grad_bytes, double param_bytes,
		 struct step_pricing *pr, struct step_result *r, struct errbuf *eb)
{
	return S_dp(params, layers, m, zero, ranks, per_node, grad_bytes, param_bytes, 1, 0, pr,
		    r, eb);
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
		   struct step_pricing *pr, struct step_result *r, struct errbuf *eb)
{
	struct step_result e;
	unsigned long G = c->gpus_per_node, pn = step_per_node(c->tp, 1, G);
	enum coll_op op = c->sp ? OP_REDUCESCATTER : OP_ALLREDUCE;
	double tokens = c->micro_batch * c->seq / (double)c->cp;
	int i, first, n;

	memset(&e, 0, sizeof(e));
	if (c->tp > 1) {
		if (S_row(&e, pr, DIM_TP, PH_FORWARD, op, 1, A, c->tp, pn, eb) < 0)
			return -1;
		e.rows[e.nrows - 1].stage = "first";
		first = e.nrows;
		if (S_row(&e, pr, DIM_TP, PH_FORWARD, OP_ALLREDUCE, 3, tokens * 4, c->tp, pn, eb) < 0 ||
		    S_row(&e, pr, DIM_TP, PH_BACKWARD, op, 1, A, c->tp, pn, eb) < 0)
			return -1;
		for (i = first; i < e.nrows; i++)
			e.rows[i].stage = "last";
	}
	if (c->pp > 1 && w->tied) {
		double bytes = w->vocab * w->hidden / (double)c->tp * c->grad_bytes;

		n = (int)step_per_node(c->pp, c->tp * c->cp * c->dp, G) > 1 ? 2 : 1;
		if (S_row(&e, pr, DIM_PP, PH_OPTIMIZER, OP_ALLREDUCE, 1, bytes, 2, (unsigned long)n,
			  eb) < 0)
			return -1;
		e.rows[e.nrows - 1].stage = "first+last";
	}
	memcpy(r->edges, e.rows, sizeof(e.rows));
	r->nedges = e.nrows;
	return 0;
}

int step_ledger_tp(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	double L = u->L, A = u->A;
	unsigned long G = u->G, ranks, pn;
	int full = u->full;

	/*
	 * Tensor parallelism (Shoeybi et al. 2019): per layer two all-reduces
	 * of the layer's activations in forward (after attention and after
	 * the MLP) and two in backward; with sequence parallelism
	 * (Korthikanti et al. 2022) each all-reduce becomes an all-gather and
	 * a reduce-scatter of the same buffer.  Full recomputation repeats the
	 * forward ones during backward.  An MoE layer keeps the attention's
	 * pair alone: its tokens reach the experts by the dispatcher, whose
	 * collectives run in the expert groups (step_ledger_ep).  (In a model
	 * without dense first layers, u->Ld is 0.)  A parallel block (GPT-J,
	 * GPT-NeoX, Falcon) adds the attention's and the MLP's partial outputs
	 * before reducing them, so it has one a layer each way: with SP one
	 * all-gather of the input both branches read and one reduce-scatter
	 * of their sum (models/step.md, "Parallel blocks").
	 */
	u->first_tp = r->nrows;
	if (c->tp > 1) {
		/* a dense layer of an MoE model (dense_layers) keeps both pairs */
		double per = u->moe || workload_parallel(u->w) ? 1 : 2;
		double fw = per * L + u->Ld, bw = fw + (full ? fw : 0);

		ranks = c->tp;
		pn = step_per_node(ranks, 1, G);
		if (!c->sp) {
			if (S_row(r, prp, DIM_TP, PH_FORWARD, OP_ALLREDUCE, fw, A, ranks, pn, eb) ||
			    S_row(r, prp, DIM_TP, PH_BACKWARD, OP_ALLREDUCE, bw, A, ranks, pn, eb))
				return -1;
		} else if (S_row(r, prp, DIM_TP, PH_FORWARD, OP_ALLGATHER, fw, A, ranks, pn, eb) ||
			   S_row(r, prp, DIM_TP, PH_FORWARD, OP_REDUCESCATTER, fw, A, ranks, pn, eb) ||
			   S_row(r, prp, DIM_TP, PH_BACKWARD, OP_ALLGATHER, bw, A, ranks, pn, eb) ||
			   S_row(r, prp, DIM_TP, PH_BACKWARD, OP_REDUCESCATTER, bw, A, ranks, pn, eb))
			return -1;
	}

	return 0;
}

int step_ledger_cp(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	double b = u->b, sr = u->sr, hkv = u->hkv, t = u->t, cp = u->cp, L = u->L;
	unsigned long G = u->G, ranks, pn;
	int full = u->full;

	/*
	 * Context parallelism.  Ring attention (Liu et al. 2023; Megatron-
	 * Core's CP): per layer the K and V of each chunk travel the ring of
	 * c ranks in c-1 send/recv steps; backward passes K, V and their
	 * gradients, twice the forward.  Each step overlaps the attention of
	 * one block of s/c queries against s/c keys.  The all-gather form
	 * (Llama 3, section 3.3.2): per layer the K and V of every chunk are
	 * all-gathered before attention and their gradients reduce-scattered
	 * after it, exposed (small with grouped-query attention).
	 */
	u->first_cp = r->nrows;
	if (c->cp > 1) {
		double kv = 2 * b * sr * (hkv / t) * c->act_bytes;

		ranks = c->cp;
		pn = step_per_node(ranks, c->tp, G);
		if (c->cp_form == CP_ALLGATHER) {
			if (S_row(r, prp, DIM_CP, PH_FORWARD, OP_ALLGATHER, L, kv * cp, ranks, pn, eb) ||
			    S_row(r, prp, DIM_CP, PH_BACKWARD, OP_ALLGATHER, full ? L : 0, kv * cp, ranks,
				  pn, eb) ||
			    S_row(r, prp, DIM_CP, PH_BACKWARD, OP_REDUCESCATTER, L, kv * cp, ranks, pn,
				  eb))
				return -1;
		} else {
			if (S_row(r, prp, DIM_CP, PH_FORWARD, OP_SENDRECV, L * (cp - 1), kv, ranks, pn, eb) ||
			    S_row(r, prp, DIM_CP, PH_BACKWARD, OP_SENDRECV, (2 + full) * L * (cp - 1), kv,
				  ranks, pn, eb))
				return -1;
		}
	}

	return 0;
}

/*
 * The expert layer's traffic as Megatron-Core's all-to-all dispatcher
 * runs it (megatron/core/transformer/moe/token_dispatcher.py,
 * MoEAlltoAllTokenDispatcher):
 *   ep:  the tokens' all-to-all in the expert-parallel group (token_dispatch,
 *        token_combine), forward and backward;
 *   etp: with etp > 1 the tokens a rank received are all-gathered in the
 *        expert-tensor-parallel group before the experts (dispatch_postprocess,
 *        gather_from_sequence_parallel_region) and the experts' outputs
 *        reduce-scattered after them (combine_preprocess,
 *        reduce_scatter_to_sequence_parallel_region); backward each turns
 *        into the other.  The experts' linears are split over those etp
 *        ranks but communicate nothing themselves (experts.py, TEGroupedMLP
 *        on the expt_tp group).
 * Both run on the compute stream between the router and the experts, so
 * both stay exposed (step_overlap.c hides neither); full recomputation
 * runs the forward's again in backward.  The routing probabilities travel
 * beside the tokens, one value per routed token (1/h of their bytes), and
 * are left out.
 */
int step_ledger_ep(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	/* the stage's MoE layers: its dense first layers have no experts */
	double b = u->b, sr = u->sr, t = u->t, h = u->h, k = u->k, L = u->L - u->Ld;
	double etp = (double)step_etp(c);
	unsigned long G = u->G, ranks, pn;
	int full = u->full, moe = u->moe;
	/* One rank's routed copies: its sequence-parallel slice of T/t tokens,
	 * k copies each; the busiest rank receives load times the mean
	 * (step_moe_load). */
	double V = moe ? k * step_moe_load(c) * b * sr / (c->sp ? t : 1) * h : 0;
	double S = V * c->act_bytes, bd = c->dispatch_fp8 ? STEP_DISPATCH_FP8_BYTES : c->act_bytes;

	u->first_ep = r->nrows;

	/*
	 * The folded grid (Megatron-Core, parallel_state.py: the expert
	 * ranks ordered etp, ep, edp over the t·c·d ranks of a stage): an
	 * expert-parallel group's ep ranks stand etp apart and do not
	 * cross cp; an expert-tensor-parallel group is etp consecutive ranks.
	 */
	if (moe && c->ep > 1) {
		ranks = c->ep;
		pn = step_per_node(ranks, step_etp(c), G);
		/* In one row a phase while both directions move the same bytes;
		 * under an FP8 dispatch the forward's dispatch and the
		 * backward's combine (the gradient toward the experts) in FP8,
		 * the forward's combine and the backward's dispatch in
		 * act_bytes (DeepSeek-V3, §3.3.3). */
		if (bd == c->act_bytes ?
		    S_row_a2a(u, PH_FORWARD, 2 * L, V, bd, ranks, pn, eb) ||
		    S_row_a2a(u, PH_BACKWARD, (2 + 2 * full) * L, V, bd, ranks, pn, eb) :
		    S_row_a2a(u, PH_FORWARD, L, V, bd, ranks, pn, eb) ||
		    S_row_a2a(u, PH_FORWARD, L, V, c->act_bytes, ranks, pn, eb) ||
		    S_row_a2a(u, PH_BACKWARD, (1 + full) * L, V, bd, ranks, pn, eb) ||
		    S_row_a2a(u, PH_BACKWARD, (1 + full) * L, V, c->act_bytes, ranks, pn, eb))
			return -1;
	}
	/* The all-gather's output and the reduce-scatter's input: the etp
	 * ranks' received tokens together, etp·S. */
	if (moe && etp > 1) {
		double bw = (1 + full) * L;

		ranks = step_etp(c);
		pn = step_per_node(ranks, 1, G);
		if (S_row(r, prp, DIM_EP, PH_FORWARD, OP_ALLGATHER, L, etp * S, ranks, pn, eb) ||
		    S_row(r, prp, DIM_EP, PH_FORWARD, OP_REDUCESCATTER, L, etp * S, ranks, pn, eb) ||
		    S_row(r, prp, DIM_EP, PH_BACKWARD, OP_ALLGATHER, bw, etp * S, ranks, pn, eb) ||
		    S_row(r, prp, DIM_EP, PH_BACKWARD, OP_REDUCESCATTER, bw, etp * S, ranks, pn, eb))
			return -1;
	}

	return 0;
}

int step_ledger_pp(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	double v = u->v, A = u->A, t = u->t;
	unsigned long G = u->G, pn;

	/*
	 * Pipeline: one send/recv of the activations per stage boundary and
	 * micro-batch forward, one of their gradients backward; v of each
	 * with v chunks.  Split across the tensor-parallel ranks (Narayanan
	 * et al. 2021, §4.1 scatter/gather; with SP they are split already).
	 */
	u->first_pp = r->nrows;
	if (c->pp > 1) {
		unsigned long stride = c->tp * c->cp * c->dp;

		pn = step_per_node(c->pp, stride, G) > 1 ? 2 : 1;
		if (S_row(r, prp, DIM_PP, PH_FORWARD, OP_SENDRECV, v, A / t, 2, pn, eb) ||
		    S_row(r, prp, DIM_PP, PH_BACKWARD, OP_SENDRECV, v, A / t, 2, pn, eb))
			return -1;
	}

	return 0;
}

/* The data-parallel rows of one GPU's weights (dense, and experts'). */
/*
 * The data-parallel rows of `params` parameters a GPU holds, sharded (or
 * reduced) over `ranks` ranks `stride` apart:
 *   ZeRO-3 with a pipeline (FSDP2 under PyTorch's pipeline schedules:
 *     torchtitan keeps a stage's parameters gathered from forward to
 *     backward, reshard_after_forward = False with pp, and the schedule
 *     reduces gradients only in the last micro-batch's backward,
 *     torch/distributed/pipelining/stage.py): per layer one all-gather
 *     and one reduce-scatter a step;
 *   hybrid sharding (--dp-replicate N): ZeRO-3 within the group, then
 *     per layer and micro-batch the gradient shard all-reduced across
 *     the N replicas (FSDP2's HSDP reduces right after its reduce-scatter);
 *   ZeRO-2 under FSDP without a pipeline (SHARD_GRAD_OP, FSDP2's
 *     reshard_after_forward = False): each unit, a layer, is gathered in
 *     every micro-batch's forward and kept through its backward, then
 *     freed when its gradient is reduce-scattered (FSDP1:
 *     _should_free_in_backward while gradients sync; FSDP2: post_backward
 *     reshards): per layer and micro-batch one all-gather, prefetched
 *     as ZeRO-3's forward gathers are; the reduce-scatters as ZeRO-2's;
 *   FP8 with Megatron or FSDP: parameters gathered as FP8, one byte
 *     (Megatron's --fp8-param-gather, torchao's FSDP2 float8 all-gather).
 */
static int S_dp_sharded(struct run *u, double params, double ranks, unsigned long stride,
			int replicated, double agl, double rsb, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	double L = u->L, m = u->m, gb = c->grad_bytes;
	double pb = c->precision == PREC_FP8 && !step_framework_deepspeed(c->framework) ? 1 :
		    c->param_bytes;
	unsigned long n = (unsigned long)ranks, pn = step_per_node(n, stride, u->G);
	int first = r->nrows, i;
	int unit_ag = c->framework == FW_FSDP && c->zero == 2 && c->pp == 1;

	if (c->zero >= 3 && c->pp > 1) {
		if (n < 2 || params <= 0)
			return 0;
		if (S_row(r, u->prp, DIM_DP, PH_FORWARD, OP_ALLGATHER, L, params * pb / L, n, pn, eb) ||
		    S_row(r, u->prp, DIM_DP, PH_BACKWARD, OP_REDUCESCATTER, L, params * gb / L, n, pn,
			  eb))
			return -1;
	} else if (unit_ag) {
		if (n < 2 || params <= 0)
			return 0;
		if (S_row(r, u->prp, DIM_DP, PH_FORWARD, OP_ALLGATHER, L * m, params * pb / L, n, pn,
			  eb) ||
		    S_row(r, u->prp, DIM_DP, PH_BACKWARD, OP_REDUCESCATTER, m, params * gb, n, pn, eb))
			return -1;
	} else if (S_dp(params, L, m, c->zero, n, pn, gb, pb, agl, rsb, u->prp, r, eb) < 0)
		return -1;
	if (c->zero >= 3 && c->dp_replicate > 1 && params > 0 && replicated) {
		unsigned long R = c->dp_replicate;

		if (S_row(r, u->prp, DIM_DP, PH_BACKWARD, OP_ALLREDUCE, L * (c->pp > 1 ? 1 : m),
			  params * gb / (L * ranks), R, step_per_node(R, stride * n, u->G), eb))
			return -1;
		for (i = r->nrows - 1; i < r->nrows; i++)
			r->dp_comm_s += r->rows[i].time_s;
	}
	if ((c->zero >= 3 && c->pp > 1) || unit_ag)
		for (i = first; i < r->nrows; i++)
			r->dp_comm_s += r->rows[i].time_s;
	return 0;
}

/*
 * DeepSpeed's ZeRO-3 gathers module by module: Megatron-DeepSpeed's
 * GPT layer has four linears (QKV, output, the MLP's two), a Llama
 * layer seven (q, k, v, o, gate, up, down); parameters of one GPU's
 * tensor-parallel share.
 * The modules' parameters into u->mods; their count, 0 but under
 * DeepSpeed's ZeRO-3 without experts.
 */
static int S_ds_modules(struct run *u)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	double t = u->t, h = u->h, hkv = u->hkv, hq = u->hq;
	double *mods = u->mods;
	int moe = u->moe, nmod = 0, i;

	if (step_framework_deepspeed(c->framework) && c->zero >= 3 && !moe) {
		if (w->arch == WL_LLAMA) {
			double lm[7] = { h * hq, h * hkv, h * hkv, hq * h, h * w->ffn, h * w->ffn,
					 w->ffn * h };

			nmod = 7;
			memcpy(mods, lm, sizeof(lm));
		} else {
			double gm[4] = { h * (hq + 2 * hkv), hq * h, h * w->ffn, w->ffn * h };

			nmod = 4;
			memcpy(mods, gm, sizeof(gm));
		}
		for (i = 0; i < nmod; i++)
			mods[i] /= t;
	}
	return nmod;
}

int step_ledger_dp(struct run *u, struct errbuf *eb)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	const struct layer_params lp = u->lp;
	double L = u->L, t = u->t, e = u->e, E = u->E, dense, expert, zd, ze;
	int moe = u->moe, nmod = 0, first_dp;

	/*
	 * Data parallelism: the weights of one GPU, dense ones reduced over
	 * the d·c ranks that hold them (CP ranks hold the same weights), the
	 * experts' over the d·c/e ranks that hold the same experts.  Norms and
	 * the router are replicated across tensor-parallel ranks.  Without a
	 * pipeline the one stage also holds the embedding and output layer,
	 * whose gradients are reduced with the rest.
	 */
	dense = step_stage_dense_params(u, L, u->Ld);
	if (c->pp == 1)
		dense += workload_embed_params(w) / t;
	expert = moe ? (L - u->Ld) * E * lp.mlp / ((double)step_etp(c) * e) : 0;
	r->stage_params = dense + expert;
	step_zero_ranks(c, &zd, &ze);
	first_dp = r->nrows;
	nmod = S_ds_modules(u);
	{
		/*
		 * ZeRO-3's gathers: FSDP (and Megatron's FSDP) one unit, a
		 * transformer layer, at a time; DeepSpeed one per linear module,
		 * four per layer, and its gradients reduce-scattered in buckets
		 * of reduce_bucket_size = 5e8 elements (deepspeed/runtime/zero/
		 * config.py).
		 */
		int ds = step_framework_deepspeed(c->framework);
		double agl = nmod ? nmod : ds && c->zero >= 3 ? 4 : 1, rsb = ds && c->zero >= 3 ? 5e8 : 0;

		if (S_dp_sharded(u, dense, zd, c->tp, 1, agl, rsb, eb) < 0 ||
		    S_dp_sharded(u, expert, ze, step_etp(c) * c->ep, 0, agl, rsb, eb) < 0)
			return -1;
	}
	u->dense = dense, u->expert = expert, u->zd = zd, u->ze = ze;
	u->nmod = nmod;
	u->first_dp = first_dp;
	return 0;
}

int step_ledger_edges(struct run *u, struct errbuf *eb)
{
	return S_edges(u->w, u->c, u->A, u->prp, u->r, eb);
}
