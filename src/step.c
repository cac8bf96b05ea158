/*
 * One training step: the ledger of collectives, step time, memory per
 * GPU.  Formulas, their sources and worked examples: models/step.md.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errband.h"
#include "nccl_cost.h"
#include "step.h"

static const char *const dim_names[DIM_COUNT] = { "tp", "cp", "ep", "pp", "dp" };
static const char *const phase_names[PH_COUNT] = { "forward", "backward", "optimizer" };
static const char *const rc_names[RC_COUNT] = { "none", "selective", "full" };
static const char *const fw_names[FW_COUNT] = { "megatron", "deepspeed", "fsdp", "deepspeed-2021" };
static const char *const cpf_names[CP_FORM_COUNT] = { "ring", "allgather" };

const char *step_framework_name(enum step_framework f)
{
	return f < FW_COUNT ? fw_names[f] : "?";
}

int step_framework_lookup(const char *name, enum step_framework *f, struct errbuf *eb)
{
	int i;

	for (i = 0; i < FW_COUNT; i++)
		if (!strcmp(name, fw_names[i])) {
			*f = (enum step_framework)i;
			return 0;
		}
	return errbuf_set(eb, "unknown framework '%s' (megatron, deepspeed, fsdp, deepspeed-2021)",
			  name);
}

int step_framework_deepspeed(enum step_framework f)
{
	return f == FW_DEEPSPEED || f == FW_DEEPSPEED_2021;
}

int step_framework_megatron_layers(enum step_framework f)
{
	return f != FW_FSDP;
}

double step_framework_grad_bytes(enum step_framework f)
{
	return step_framework_deepspeed(f) ? 2 : STEP_GRAD_BYTES;
}

const char *step_cp_form_name(enum step_cp_form f)
{
	return f < CP_FORM_COUNT ? cpf_names[f] : "?";
}

int step_cp_form_lookup(const char *name, enum step_cp_form *f, struct errbuf *eb)
{
	int i;

	for (i = 0; i < CP_FORM_COUNT; i++)
		if (!strcmp(name, cpf_names[i])) {
			*f = (enum step_cp_form)i;
			return 0;
		}
	return errbuf_set(eb, "unknown context-parallel form '%s' (ring, allgather)", name);
}

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
	{
		double f, mid, l;

		if (step_stage_layers(w, c, &f, &mid, &l, eb) < 0)
			return -1;
	}
	if (c->tp_overlap && (c->tp < 2 || !c->sp || !step_framework_megatron_layers(c->framework)))
		return errbuf_set(eb, "--tp-comm-overlap overlaps Megatron's sequence-parallel "
				  "collectives: it needs tp above 1, --sequence-parallel and "
				  "--framework megatron or deepspeed");
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
	if (c->zero >= 3 && c->pp > 1)
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
		/*
		 * Even stages split into v equal chunks; uneven ones (Llama 3's
		 * 126 layers over 16) into v chunks as near equal as the layers
		 * allow, which the model takes as L/v layers each.
		 */
		if (c->virt < 1 ||
		    (fmod(w->layers, (double)c->pp) == 0 && !(c->layers_first > 0) &&
		     !(c->layers_last > 0) && fmod(w->layers, (double)c->pp * (double)c->virt) != 0))
			return errbuf_set(eb, "pp x virtual stages = %lu x %lu does not divide the "
					  "%.15g layers", c->pp, c->virt, w->layers);
		if (fmod(m, (double)c->pp) != 0)
			return errbuf_set(eb, "the interleaved schedule needs micro-batches (%.15g) "
					  "in multiples of pp = %lu", m, c->pp);
	}
	if (!(c->grad_bytes > 0) || !(c->param_bytes > 0) || !(c->optim_bytes >= 0) ||
	    !(c->act_bytes > 0) || !(c->capacity > 0))
		return errbuf_set(eb, "bytes per value and the capacity factor must be positive");
	/*
	 * The interleaved schedule splits each stage into v chunks of whole
	 * layers (Megatron-LM's --num-layers-per-virtual-pipeline-stage): no
	 * stage may hold fewer layers than chunks.
	 */
	if (c->schedule == PP_INTERLEAVED && c->pp > 1) {
		double first, middle, last, least;

		if (step_stage_layers(w, c, &first, &middle, &last, eb) < 0)
			return -1;
		least = fmin(first, fmin(middle, last));
		if (least < (double)c->virt)
			return errbuf_set(eb, "%lu chunks per stage on a stage of %.15g layers (pp %lu): "
					  "a chunk holds at least one layer", c->virt, least, c->pp);
	}
	return 0;
}

int step_stage_layers(const struct workload *w, const struct step_config *c, double *first,
		      double *middle, double *last, struct errbuf *eb)
{
	double l = w->layers, p = (double)c->pp, f = c->layers_first, e = c->layers_last, rest;

	if (p <= 1) {
		if (f > 0 || e > 0)
			return errbuf_set(eb, "layers on the first and last stage need pipeline parallelism");
		*first = *middle = *last = l;
		return 0;
	}
	if (f > 0 || e > 0) {
		/* Megatron's num_layers_in_first/last_pipeline_stage: the rest even. */
		if (!(f > 0))
			f = e;
		if (!(e > 0))
			e = f;
		rest = l - f - e;
		if (f != floor(f) || e != floor(e) || rest < 0 || (p == 2 && rest != 0) ||
		    (p > 2 && (fmod(rest, p - 2) != 0 || rest / (p - 2) < 1)))
			return errbuf_set(eb, "%.15g layers on the first and %.15g on the last stage "
					  "leave %.15g for %.15g middle stages: not an even split",
					  f, e, rest, p - 2);
		*first = f;
		*last = e;
		*middle = p > 2 ? rest / (p - 2) : f;
		return 0;
	}
	if (fmod(l, p) == 0) {
		*first = *middle = *last = l / p;
		return 0;
	}
	/*
	 * Uneven: the middle stages take ceil(l/p), the first and last the
	 * rest, half each (Llama 3: one layer fewer on the first and last of
	 * 16 stages for its 126 layers, section 3.3.2).
	 */
	*middle = ceil(l / p);
	rest = l - (p - 2) * *middle;
	if (p < 3 || rest < 2 || fmod(rest, 2) != 0)
		return errbuf_set(eb, "pipeline size %lu does not divide the %.15g layers (and "
				  "they do not split as ceil(l/p) per middle stage with the rest "
				  "halved on the first and last; give --layers-first)", c->pp, l);
	*first = *last = rest / 2;
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

double step_act_layer_w(const struct workload *w, double s, double b, double t, int sp,
			enum recompute rc, int fused, double capacity)
{
	double h = w->hidden, a = w->heads, hkv = h * w->kv_heads / w->heads, f = w->ffn;
	double E = w->experts > 1 ? w->experts : 1, k = w->experts > 1 ? w->top_k : 1;
	double ts = sp ? t : 1, repl, split, scores = 0, F;
	int gpt = w->arch == WL_GPT;

	if (rc == RC_FULL)
		return 2 * s * b * h / ts;
	/*
	 * Bytes per token, 16-bit values (Korthikanti et al. 2022, §4.1, for
	 * GPT): replicated across the tensor-parallel ranks unless sequence
	 * parallel, or split by t.
	 *   attention: QKV's input 2h (GPT: + the dropout mask h); GPT's Q, K,
	 *     V and the output projection's input 8h split, Llama's Q 2h, K
	 *     and V 4h_kv, output projection's input 2h split
	 *   the two norms' inputs 4h
	 *   MLP: its input 2h (GPT: + the dropout mask h); GELU's 4h-wide
	 *     output and activation 4f split; SwiGLU's gate, up and product 6f
	 *   the scores without fused attention: softmax output 2as, GPT's
	 *     dropout mask and output 3as more; fused, the kernel keeps only
	 *     the softmax's fp32 log-sum-exp, 4a
	 */
	repl = (gpt ? 3 : 2) * h + 4 * h;
	split = gpt ? 8 * h : 4 * h + 4 * hkv;
	F = gpt ? 4 * f : 6 * f;
	if (E > 1) {
		/* MoE: the router's fp32 logits 4E, each routed copy of a token
		 * (k·capacity of them) its expert's input 2h and inner values */
		repl += 2 * h + 4 * E;
		split += 0;
		scores += k * capacity * (2 * h + F / t);
	} else {
		repl += (gpt ? 3 : 2) * h;
		split += F;
	}
	if (!fused && rc == RC_NONE)
		scores += (gpt ? 5 : 2) * a * s / t;
	else if (fused)
		scores += 4 * a / t;
	return s * b * (repl / ts + split / t + scores);
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
	memset(m, 0, sizeof(*m));
}

/* FNV-1a over the key's fields. */
static size_t S_hash(int op, unsigned long ranks, unsigned long per_node, double bytes)
{
	uint64_t b, h = 1469598103934665603ULL;

	memcpy(&b, &bytes, sizeof(b));
	h = (h ^ (uint64_t)op) * 1099511628211ULL;
	h = (h ^ (uint64_t)ranks) * 1099511628211ULL;
	h = (h ^ (uint64_t)per_node) * 1099511628211ULL;
	h = (h ^ b) * 1099511628211ULL;
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

static int S_price_model(struct step_pricing *pr, enum coll_op op, unsigned long ranks,
			 unsigned long per_node, double bytes, double *t, const char **tier,
			 int *ctas, struct errbuf *eb);

/* One collective's time on the pricing's model, and its band. */
static int S_price(struct step_pricing *pr, enum coll_op op, unsigned long ranks,
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

/* Append a row of `count` collectives, exposed until an overlap rule says otherwise. */
static int S_row(struct step_result *r, struct step_pricing *pr, enum step_dim dim,
		 enum step_phase ph, enum coll_op op, double count, double bytes,
		 unsigned long ranks, unsigned long per_node, struct errbuf *eb)
{
	struct step_row *row;
	const char *tier;
	double one;
	int ctas = 0;

	if (count <= 0)
		return 0;
	if (r->nrows >= STEP_ROWS_MAX)
		return errbuf_set(eb, "too many rows in the ledger");
	if (S_price(pr, op, ranks, per_node, bytes, &one, &tier, &ctas, eb) < 0)
		return -1;
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

/*
 * A collective hidden behind compute still holds its CTAs' SMs while it
 * runs (NCCL: one CTA per channel, nccl_run_time's channels), so the
 * compute beside it runs on the rest: of a row of time C whose overlap
 * rules leave E exposed, the step still waits max(E, C × ctas/SMs)
 * (models/step.md, "Overlap").  Rows from `first` on; sms 0 (no kernel
 * model) leaves them.
 */
static void S_sm_share(struct step_result *r, int first, double sms)
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
 * recomputed forward's the same.
 */
static void S_tp_overlap(struct step_result *r, const struct step_config *c, int first,
			 double L, int full)
{
	const struct kernel_layer *k = &r->layer;
	double t = (double)c->tp;
	int i;

	for (i = first; i < r->nrows; i++) {
		struct step_row *row = &r->rows[i];
		double one = row->one_s, fwd_ag, fwd_rs;

		fwd_ag = S_tp_chunked(one, k->lin_fwd_s[0], t) + S_tp_chunked(one, k->lin_fwd_s[2], t);
		fwd_rs = S_tp_chunked(one, k->lin_fwd_s[1], t) + S_tp_chunked(one, k->lin_fwd_s[3], t);
		if (row->phase == PH_FORWARD) {
			if (c->tp_overlap && c->sp)
				S_expose(row, L * (row->op == OP_ALLGATHER ? fwd_ag : fwd_rs),
					 "the GEMM it feeds or follows, in chunks (--tp-comm-overlap)");
			continue;
		}
		/* backward: 2L collectives of the backward itself, 2L more
		 * of the recomputed forward with full recomputation */
		if (row->op == OP_ALLGATHER && c->sp) {
			double re = !full ? 0 : c->tp_overlap ? L * fwd_ag : 2 * L * one;

			S_expose(row, L * (fmax(0, one - k->lin_dgrad_s[0]) +
					   fmax(0, one - k->lin_dgrad_s[2])) + re,
				 "the data-gradient GEMMs of QKV and the MLP's first matrix");
		} else if (row->op != OP_ALLGATHER) {
			double wg = k->wgrad_in_s / 2;
			double re = !full ? 0 : !(c->tp_overlap && c->sp) ? 2 * L * one : L * fwd_rs;

			S_expose(row, L * 2 * fmax(0, one - wg) + re,
				 "the weight-gradient GEMMs of QKV and the MLP's first matrix");
		}
	}
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

/* Micro-batches whose activations a stage holds (Megatron's schedules.py). */
static double S_inflight(const struct step_config *c, double rank, double m)
{
	double p = (double)c->pp, v = (double)c->virt, x;

	if (c->pp <= 1)
		return 1;
	if (c->schedule == PP_GPIPE)
		return m;
	if (c->schedule == PP_INTERLEAVED) {
		/* warm-up (p - rank - 1)·2 + (v - 1)·p chunks, plus one, of L/v layers each */
		x = (2 * (p - rank - 1) + (v - 1) * p + 1) / v;
		return fmin(x, m);
	}
	return fmin(p - rank, m);
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
 */
#define STEP_DS_MAX_LIVE 1e9
#define STEP_DS_MAX_REUSE 1e9   /* stage3_max_reuse_distance */

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
			struct errbuf *eb)
{
	double ag[8], sum = 0, gl = 0, ex_l = 0, first = 0, n = 0, bytes = 0, each;
	const char *tier;
	int j, fw = row->phase == PH_FORWARD, again[8];

	for (j = 0; j < nmod; j++)
		sum += mods[j];
	for (j = 0; j < nmod; j++) {
		again[j] = fw ? 1 : step_ds_backward_gathers(mods, nmod, j, full);
		each = row->bytes * nmod * mods[j] / sum;
		if (S_price(pr, OP_ALLGATHER, row->ranks, row->per_node, each, &ag[j], &tier, NULL,
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
		double e = mods[prev] < STEP_DS_MAX_LIVE ? fmax(0, ag[i] - work) : ag[i];

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
 * DeepSpeed's ZeRO-3 as released in 2021 (v0.3.10 to v0.5.4; models/step.md,
 * "Overlap"), on the ZeRO-3 rows from `first` on, over and above today's
 * gathers (S_ds_gathers).  Every gather and every reduce-scatter went
 * through PyTorch's list API, which copies each of the N ranks' pieces
 * between a flat buffer and the list, one launch each, on the host before
 * the module's compute is queued (ProcessGroupNCCL allgather /
 * reduce_scatter, flatten_for_scatter_gather): a call waits the larger of
 * N x NCCL_LAUNCH_S and the copies' bytes read and written, exposed.  Gradients were reduce-scattered parameter by parameter, the
 * small ones too (partition_parameters.py _reduce_scatter_gradients), and
 * each module's fetch ended in torch.cuda.synchronize(), which waits for
 * them: the reduce-scatters are exposed.  small[] are a layer's
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
		double host = (double)row->ranks * NCCL_LAUNCH_S, per_layer = 0, bytes = 0, one;
		double before = row->time_s, extra;
		const char *tier;

		if (row->op == OP_ALLGATHER) {
			/* the N copies: launched by the host, or their bytes, read and written */
			extra = fmax(host, kg ? kernel_mem_s(kg, 2 * row->bytes) : 0);
			row->one_s += extra;
			row->time_s += row->count * extra;
			row->exposed_s += row->count * extra;
			row->hidden_s = row->time_s - row->exposed_s;
		} else if (row->op == OP_REDUCESCATTER) {
			for (j = 0; j < nmod + nsmall; j++) {
				double n = j < nmod ? mods[j] : small[j - nmod];

				if (S_price(pr, OP_REDUCESCATTER, row->ranks, row->per_node,
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

static int S_run(const struct workload *w, const struct step_config *c,
		 const struct step_compute *cs, struct step_pricing *prp, struct step_result *r,
		 struct errbuf *eb);

int step_run(const struct workload *w, const struct step_config *c,
	     const struct step_compute *cs, const struct cost_model *cm, enum step_band band,
	     struct step_result *r, struct errbuf *eb)
{
	struct step_pricing pr = { cm, ALGO_AUTO, band, 0, 0, NULL };

	return S_run(w, c, cs, &pr, r, eb);
}

int step_run_memo(const struct workload *w, const struct step_config *c,
		  const struct step_compute *cs, const struct cost_model *cm,
		  struct step_memo *memo, struct step_result *r, struct errbuf *eb)
{
	struct step_pricing pr = { cm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, memo };

	return S_run(w, c, cs, &pr, r, eb);
}

/*
 * One configuration's run through the step model, the values every phase
 * of S_run reads: the sizes as doubles, the stage, the micro-batches, the
 * per-layer and per-micro-batch compute the overlap rules hide behind.
 */
struct run {
	const struct workload *w;
	const struct step_config *c;
	const struct step_compute *cs;
	struct step_pricing *prp;
	struct step_result *r;
	const struct kernel_gpu *kg;
	struct layer_params lp;
	double t, p, d, cp, e, v, b, s, h, l, hkv, E, k;
	double L, Lf, Lm, Ll, m, sr, A, rate, sms;
	double fwd_l, bwd_l, fwd_mb, bwd_mb;
	double dense, expert, zd, ze;
	double mods[8];            /* DeepSpeed's ZeRO-3 modules of a layer, parameters */
	int nmod;
	unsigned long G;
	int full, moe, megatron_layers, first_dp;
};

/* The sizes, the stage and what the result says of them before any time. */
static int S_run_init(struct run *u, const struct workload *w, const struct step_config *c,
		      const struct step_compute *cs, struct step_pricing *prp,
		      struct step_result *r, struct errbuf *eb)
{
	memset(u, 0, sizeof(*u));
	u->w = w;
	u->c = c;
	u->cs = cs;
	u->prp = prp;
	u->r = r;
	u->kg = cs ? cs->kgpu : NULL;
	u->t = (double)c->tp, u->p = (double)c->pp, u->d = (double)c->dp, u->cp = (double)c->cp;
	u->e = (double)c->ep, u->v = (double)c->virt, u->b = c->micro_batch, u->s = c->seq;
	u->h = w->hidden, u->l = w->layers, u->hkv = u->h * w->kv_heads / w->heads;
	u->E = w->experts > 1 ? w->experts : 1, u->k = w->experts > 1 ? w->top_k : 1;
	u->rate = u->fwd_l = u->bwd_l = u->fwd_mb = u->bwd_mb = NAN;
	u->G = c->gpus_per_node;
	u->full = c->recompute == RC_FULL;
	u->moe = u->E > 1;
	u->megatron_layers = step_framework_megatron_layers(c->framework);
	u->sms = u->kg ? u->kg->sms : 0;

	if (step_check(w, c, eb) < 0)
		return -1;
	memset(r, 0, sizeof(*r));
	if (step_stage_layers(w, c, &u->Lf, &u->Lm, &u->Ll, eb) < 0)
		return -1;
	workload_layer_params(w, &u->lp);
	/* The ledger's stage: a middle one, or the larger edge without one. */
	u->L = c->pp > 2 ? u->Lm : fmax(u->Lf, u->Ll);
	u->m = S_global(c) / (u->d * u->b);
	u->sr = u->s / u->cp;                    /* tokens of one rank's chunk of a sequence */
	u->A = u->b * u->sr * u->h * c->act_bytes;  /* one layer's input for one micro-batch */
	r->layers = u->L;
	r->layers_first = u->Lf;
	r->layers_last = u->Ll;
	r->microbatches = u->m;
	r->gpus = u->t * u->p * u->d * u->cp;
	r->tokens = u->m * u->d * u->b * u->s;
	r->fused = c->attention == ATTN_FUSED ||
		   (c->attention == ATTN_AUTO && (!u->kg || u->kg->fused_ok));
	return 0;
}

static void S_run_flops(struct run *u)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	double l = u->l, s = u->s, h = u->h, tok;
	int full = u->full;
	const struct layer_params lp = u->lp;

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

}

/* The compute, by kernel, flat, or given; what the overlap rules hide behind. */
static int S_run_compute(struct run *u, struct errbuf *eb)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	const struct step_compute *cs = u->cs;
	const struct kernel_gpu *kg = u->kg;
	struct step_result *r = u->r;
	double b = u->b, sr = u->sr, s = u->s, cp = u->cp, t = u->t, e = u->e, l = u->l;
	double L = u->L, Lf = u->Lf, Lm = u->Lm, Ll = u->Ll, m = u->m;
	double rate = NAN, fwd_l = NAN, bwd_l = NAN, fwd_mb = NAN, bwd_mb = NAN, lay = NAN;
	int full = u->full;

	r->compute_s = r->mb_compute_s = r->bubble_s = r->step_s = NAN;
	r->tokens_per_s = r->mfu = r->kernel_eff = NAN;
	if (cs && cs->step_compute_s > 0) {
		r->compute_s = cs->step_compute_s;
	} else if (kg) {
		/*
		 * By kernel: one layer's kernels once for the shape, then the
		 * slowest stage's layers per micro-batch; the last stage adds
		 * the output layer and its loss.  Recomputation runs the
		 * forward again (full) or the attention core (selective).
		 */
		struct kernel_shape sh = { b * sr, s, cp, t, c->sp && c->tp > 1, r->fused, e,
					   c->capacity };
		double tf, tl, tm;

		if (kernel_layer(kg, w, &sh, &r->layer, eb) < 0)
			return -1;
		r->kernels = 1;
		r->output_s = kernel_output_s(kg, w, &sh);
		fwd_l = r->layer.fwd_s;
		bwd_l = r->layer.bwd_s + (full ? r->layer.fwd_s :
			c->recompute == RC_SELECTIVE ? r->layer.attn_fwd_s : 0);
		lay = fwd_l + bwd_l;
		tf = Lf * lay;
		tl = Ll * lay + r->output_s;
		tm = c->pp > 2 ? Lm * lay : 0;
		r->mb_compute_s = c->pp > 1 ? fmax(tf, fmax(tl, tm)) : l * lay + r->output_s;
		r->compute_s = r->mb_compute_s * m;
		fwd_mb = L * fwd_l;
		bwd_mb = L * bwd_l;
	} else if (cs && cs->peak_flops > 0 && cs->mfu > 0)
		r->compute_s = r->flops_hw / (r->gpus * cs->peak_flops * cs->mfu);
	if (!isnan(r->compute_s)) {
		if (!r->kernels) {
			r->mb_compute_s = r->compute_s / m;
			fwd_mb = r->mb_compute_s / 3;
			bwd_mb = 2 * r->mb_compute_s / 3;
			fwd_l = fwd_mb / L;
			bwd_l = bwd_mb / L;
		}
		rate = r->flops_hw / (r->gpus * r->compute_s);   /* FLOP/s of one GPU */
		if (cs && cs->peak_flops > 0)
			r->kernel_eff = rate / cs->peak_flops;
	}

	(void)lay;
	u->rate = rate;
	u->fwd_l = fwd_l, u->bwd_l = bwd_l, u->fwd_mb = fwd_mb, u->bwd_mb = bwd_mb;
	return 0;
}

static int S_run_tp(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	double L = u->L, A = u->A;
	unsigned long G = u->G, ranks, pn;
	int full = u->full, megatron_layers = u->megatron_layers, tp_rows;

	/*
	 * Tensor parallelism (Shoeybi et al. 2019): per layer two all-reduces
	 * of the layer's activations in forward (after attention and after
	 * the MLP) and two in backward; with sequence parallelism
	 * (Korthikanti et al. 2022) each all-reduce becomes an all-gather and
	 * a reduce-scatter of the same buffer.  Full recomputation repeats the
	 * forward ones during backward.
	 */
	tp_rows = r->nrows;
	if (c->tp > 1) {
		double fw = 2 * L, bw = 2 * L + (full ? 2 * L : 0);

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
		/*
		 * Megatron's column-parallel linears (QKV, the MLP's first
		 * matrix) launch the backward all-reduce of their input's
		 * gradient (a reduce-scatter with SP) asynchronously and run
		 * the weight-gradient GEMM meanwhile (megatron/core/
		 * tensor_parallel/layers.py, LinearWithGradAccumulationAnd-
		 * AsyncCommunication.backward): each of the 2L such
		 * collectives hides behind its linear's wgrad GEMM.
		 */
		if (r->kernels && megatron_layers)
			S_tp_overlap(r, c, tp_rows, L, full);
	}

	return 0;
}

static int S_run_cp(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	double b = u->b, sr = u->sr, hkv = u->hkv, h = u->h, t = u->t, cp = u->cp, L = u->L;
	double rate = u->rate, blk;
	unsigned long G = u->G, ranks, pn;
	int full = u->full, i;

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
	if (c->cp > 1) {
		double kv = 2 * b * sr * (hkv / t) * c->act_bytes;
		int first = r->nrows;

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
			blk = 4 * b * sr * sr * h / t;
			for (i = first; i < r->nrows; i++) {
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

	return 0;
}

static int S_run_ep(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	double b = u->b, sr = u->sr, t = u->t, h = u->h, k = u->k, L = u->L;
	unsigned long G = u->G, ranks, pn;
	int full = u->full, moe = u->moe;

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
		if (S_row(r, prp, DIM_EP, PH_FORWARD, OP_ALLTOALL, 2 * L, S, ranks, pn, eb) ||
		    S_row(r, prp, DIM_EP, PH_BACKWARD, OP_ALLTOALL, (2 + 2 * full) * L, S, ranks, pn, eb))
			return -1;
	}

	return 0;
}

static int S_run_pp(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	double v = u->v, A = u->A, t = u->t, L = u->L, fwd_l = u->fwd_l, bwd_l = u->bwd_l;
	unsigned long G = u->G, pn;
	int i;

	/*
	 * Pipeline: one send/recv of the activations per stage boundary and
	 * micro-batch forward, one of their gradients backward; v of each
	 * with v chunks.  Split across the tensor-parallel ranks (Narayanan
	 * et al. 2021, §4.1 scatter/gather; with SP they are split already).
	 */
	if (c->pp > 1) {
		unsigned long stride = c->tp * c->cp * c->dp;

		pn = step_per_node(c->pp, stride, G) > 1 ? 2 : 1;
		if (S_row(r, prp, DIM_PP, PH_FORWARD, OP_SENDRECV, v, A / t, 2, pn, eb) ||
		    S_row(r, prp, DIM_PP, PH_BACKWARD, OP_SENDRECV, v, A / t, 2, pn, eb))
			return -1;
		/*
		 * Megatron's interleaved schedule overlaps its sends and
		 * receives with the next chunk's compute (overlap_p2p_comm, on
		 * unless --no-overlap-p2p-communication: megatron/training/
		 * arguments.py, megatron/core/pipeline_parallel/schedules.py);
		 * 1F1B waits for them.
		 */
		if (c->framework == FW_MEGATRON && c->schedule == PP_INTERLEAVED && !isnan(fwd_l))
			for (i = r->nrows - 2; i < r->nrows; i++) {
				struct step_row *row = &r->rows[i];
				double chunk = L / v * (row->phase == PH_FORWARD ? fwd_l : bwd_l);

				S_expose(row, row->count * fmax(0, row->one_s - chunk),
					 "the next model chunk's compute (overlap_p2p_comm)");
			}
	}

	return 0;
}

/* The data-parallel rows of one GPU's weights (dense, and experts'). */
static int S_run_dp_rows(struct run *u, struct errbuf *eb)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	const struct layer_params lp = u->lp;
	double L = u->L, t = u->t, e = u->e, d = u->d, cp = u->cp, E = u->E, h = u->h;
	double hkv = u->hkv, m = u->m, dense, expert, zd, ze;
	double *mods = u->mods;
	unsigned long G = u->G;
	int moe = u->moe, nmod = 0, first_dp, i;

	/*
	 * Data parallelism: the weights of one GPU, dense ones reduced over
	 * the d·c ranks that hold them (CP ranks hold the same weights), the
	 * experts' over the d·c/e ranks that hold the same experts.  Norms and
	 * the router are replicated across tensor-parallel ranks.  Without a
	 * pipeline the one stage also holds the embedding and output layer,
	 * whose gradients are reduced with the rest.
	 */
	dense = L * (lp.attn / t + lp.other + (moe ? 0 : lp.mlp / t));
	if (c->pp == 1)
		dense += workload_embed_params(w) / t;
	expert = moe ? L * E * lp.mlp / (t * e) : 0;
	r->stage_params = dense + expert;
	zd = d * cp;
	ze = d * cp / e;
	first_dp = r->nrows;
	/*
	 * DeepSpeed's ZeRO-3 gathers module by module: Megatron-DeepSpeed's
	 * GPT layer has four linears (QKV, output, the MLP's two), a Llama
	 * layer seven (q, k, v, o, gate, up, down); parameters of one GPU's
	 * tensor-parallel share.
	 */
	if (step_framework_deepspeed(c->framework) && c->zero >= 3 && !moe) {
		if (w->arch == WL_LLAMA) {
			double lm[7] = { h * h, h * hkv, h * hkv, h * h, h * w->ffn, h * w->ffn,
					 w->ffn * h };

			nmod = 7;
			memcpy(mods, lm, sizeof(lm));
		} else {
			double gm[4] = { h * (h + 2 * hkv), h * h, h * w->ffn, w->ffn * h };

			nmod = 4;
			memcpy(mods, gm, sizeof(gm));
		}
		for (i = 0; i < nmod; i++)
			mods[i] /= t;
	}
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

		if (S_dp(dense, L, m, c->zero, c->dp * c->cp, step_per_node(c->dp * c->cp, c->tp, G),
			 c->grad_bytes, c->param_bytes, agl, rsb, prp, r, eb) < 0 ||
		    S_dp(expert, L, m, c->zero, (unsigned long)ze,
			 step_per_node((unsigned long)ze, c->tp * c->cp * c->ep, G), c->grad_bytes,
			 c->param_bytes, agl, rsb, prp, r, eb) < 0)
			return -1;
	}
	u->dense = dense, u->expert = expert, u->zd = zd, u->ze = ze;
	u->nmod = nmod;
	u->first_dp = first_dp;
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
		return S_ds_gathers(u->prp, row, u->mods, u->nmod, m, L, fwd_l, bwd_l, u->full, eb);
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
	if (S_price(u->prp, row->op, row->ranks, row->per_node, rest, &last_s, &tier, NULL, eb) < 0)
		return -1;
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
	for (i = u->first_dp; i < r->nrows; i++)
		if ((u->c->zero >= 3 ? S_zero3_expose(u, &r->rows[i], eb) :
		     S_bucket_expose(u, &r->rows[i], eb)) < 0)
			return -1;
	return 0;
}

static int S_run_dp(struct run *u, struct errbuf *eb)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	const struct kernel_gpu *kg = u->kg;
	double h = u->h, hkv = u->hkv, t = u->t, m = u->m, L = u->L;
	int i;

	if (S_run_dp_rows(u, eb) < 0 || S_run_dp_expose(u, eb) < 0)
		return -1;
	{
		const double *mods = u->mods;
		int nmod = u->nmod, first_dp = u->first_dp;

	if (c->framework == FW_DEEPSPEED_2021 && c->zero >= 3 && nmod && !isnan(r->compute_s)) {
		double f = w->ffn;
		double gs[8] = { (h + 2 * hkv) / t, h, f / t, h, h, h, h, h };   /* GPT: biases, 2 LayerNorms */
		double ls[2] = { h, h };                                          /* Llama: 2 RMSNorms */
		int llama = w->arch == WL_LLAMA;

		if (S_ds2021(prp, r, first_dp, mods, nmod, llama ? ls : gs, llama ? 2 : 8, m, L,
			     c->grad_bytes, kg, eb) < 0)
			return -1;
	}
		S_sm_share(r, first_dp, u->sms);
		for (i = first_dp; i < r->nrows; i++)
			r->dp_exposed_s += r->rows[i].exposed_s;
	}
	return S_edges(w, c, u->A, prp, r, eb);
}

/* The update, the bubble and the step. */
static int S_run_step(struct run *u, struct errbuf *eb)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	const struct step_compute *cs = u->cs;
	const struct kernel_gpu *kg = u->kg;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	struct pp_config ppc;
	struct pp_result ppr;
	double dense = u->dense, expert = u->expert, zd = u->zd, h = u->h, t = u->t;
	double p = u->p, v = u->v, m = u->m;

	/* The optimizer's update of this GPU's share of the weights. */
	if (r->kernels)
		r->optim_s = kernel_adam_s(kg, (dense + expert +
					      (c->pp > 1 ? w->vocab * h / t : 0)) /
					   (c->zero >= 1 ? zd : 1));

	/*
	 * Step: m micro-batches of compute and exposed communication, the
	 * pipeline bubble of (p-1)/v of them (Narayanan et al. 2021, §2.2),
	 * then the data-parallel collectives' exposed part and the update.
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
		r->step_s = m * tmb + r->bubble_s + r->dp_exposed_s + r->optim_s;
		r->tokens_per_s = r->tokens / r->step_s;
		if (cs->peak_flops > 0)
			r->mfu = r->flops_model / (r->step_s * r->gpus * cs->peak_flops);
	}
	r->band_missing = prp->missing;
	r->band_cells = prp->cells;

	return 0;
}

static void S_run_memory(struct run *u)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	const struct layer_params lp = u->lp;
	double Lf = u->Lf, Lm = u->Lm, Ll = u->Ll, p = u->p, sr = u->sr, b = u->b, t = u->t;
	double e = u->e, E = u->E, h = u->h, m = u->m, zd = u->zd, ze = u->ze;
	int moe = u->moe;

	/*
	 * Memory of the most loaded stage.  Each stage holds its layers (the
	 * first also the input embedding, the last the output layer or the
	 * tied embedding's copy; one stage both), split over the tensor-
	 * parallel ranks; ZeRO shards over the data-parallel ranks
	 * (Rajbhandari et al. 2020), ZeRO-3 holding two gathered layers (the
	 * one computing and the one prefetched).  Activations: one layer
	 * times its layers times the micro-batches the stage holds in flight;
	 * the last stage adds one micro-batch's fp32 logits.
	 */
	{
		static const char *const names[3] = { "first", "middle", "last" };
		double layers_of[3] = { Lf, Lm, Ll }, rank_of[3] = { 0, 1, p - 1 };
		double act = step_act_layer_w(w, sr, b, t, c->sp && c->tp > 1, c->recompute,
					      r->fused, c->capacity);
		double wd = c->param_bytes, gd = c->grad_bytes, od = c->optim_bytes;
		double layer_dense = lp.attn / t + lp.other + (moe ? 0 : lp.mlp / t);
		double layer_exp = moe ? E * lp.mlp / (t * e) : 0;
		int si, n = c->pp > 2 ? 3 : 1;

		r->mem.total_B = -1;
		for (si = 0; si < (c->pp > 1 ? 3 : 1); si++) {
			struct step_memory mm;
			double Ls = layers_of[si], dn, ex, fl;

			if (c->pp == 2 && si == 1)
				continue;
			(void)n;
			dn = Ls * layer_dense;
			ex = Ls * layer_exp;
			if (c->pp == 1)
				dn += workload_embed_params(w) / t;
			else if (si != 1)
				dn += w->vocab * h / t;
			memset(&mm, 0, sizeof(mm));
			mm.weights_B = wd * (c->zero >= 3 ? dn / zd + ex / ze : dn + ex);
			if (c->zero >= 3)
				mm.weights_B += wd * 2 * (layer_dense + layer_exp);
			mm.grads_B = gd * (c->zero >= 2 ? dn / zd + ex / ze : dn + ex);
			mm.optim_B = od * (c->zero >= 1 ? dn / zd + ex / ze : dn + ex);
			mm.act_layer_B = act;
			mm.inflight = S_inflight(c, rank_of[si], m);
			mm.act_B = act * Ls * mm.inflight;
			if (c->pp == 1 || si == 2) {
				fl = 4 * b * sr * w->vocab / t;
				mm.act_B += fl;
			}
			mm.reserve_B = STEP_RESERVE_B;
			mm.total_B = mm.weights_B + mm.grads_B + mm.optim_B + mm.act_B + mm.reserve_B;
			mm.stage = c->pp == 1 ? "only" : names[si];
			mm.stage_layers = Ls;
			if (mm.total_B > r->mem.total_B)
				r->mem = mm;
		}
	}
}

static int S_run(const struct workload *w, const struct step_config *c,
		 const struct step_compute *cs, struct step_pricing *prp, struct step_result *r,
		 struct errbuf *eb)
{
	struct run u;
	int i;

	if (S_run_init(&u, w, c, cs, prp, r, eb) < 0)
		return -1;
	S_run_flops(&u);
	if (S_run_compute(&u, eb) < 0 || S_run_tp(&u, eb) < 0 || S_run_cp(&u, eb) < 0 ||
	    S_run_ep(&u, eb) < 0 || S_run_pp(&u, eb) < 0)
		return -1;
	/* the per-micro-batch rows: what hiding them costs, then their sums */
	S_sm_share(r, 0, u.sms);
	for (i = 0; i < r->nrows; i++) {
		r->mb_comm_s += r->rows[i].time_s;
		r->mb_exposed_s += r->rows[i].exposed_s;
	}
	if (S_run_dp(&u, eb) < 0 || S_run_step(&u, eb) < 0)
		return -1;
	S_run_memory(&u);
	return 0;
}
