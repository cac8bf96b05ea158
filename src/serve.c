/*
 * The serving model (serve.h; models/serve.md): one prefill of the batch's
 * prompts and one decode step of the batch, each a ledger of collectives
 * and a compute time; the memory of weights and KV cache; the KV hand-off
 * between a prefill and a decode instance.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "serve.h"

void serve_params_init(struct serve_params *p)
{
	memset(p, 0, sizeof(*p));
	p->tp = p->ep = p->pp = 1;
	p->batch = 1;
	p->prompt = 1024;
	p->output = 256;
	p->precision = SERVE_BF16;
	p->kv_bytes = 2;
	p->impl = AR_VLLM;
	p->imbalance = 1;
	p->mem_util = SERVE_MEM_UTIL;
}

int serve_check(const struct workload *w, const struct serve_params *p, struct errbuf *eb)
{
	double tp = (double)p->tp, ep = (double)p->ep, pp = (double)p->pp;

	if (p->tp < 1 || p->ep < 1 || p->pp < 1)
		return errbuf_set(eb, "--tp, --ep and --pp must be at least 1");
	/* Inference keeps MLA's latent as its cache and weighs each layer as
	 * its own; neither is modelled here (models/serve.md). */
	if (workload_mla(w) || w->dense_layers > 0 || w->shared > 0)
		return errbuf_set(eb, "%s: serve does not model latent attention's cache, dense "
				  "first layers or shared experts (the step model does)", w->name);
	if (fmod(w->heads, tp) != 0)
		return errbuf_set(eb, "--tp %lu does not divide the %.0f attention heads of %s",
				  p->tp, w->heads, w->name);
	/* KV heads are split when tp divides them, copied when tp is a multiple */
	if (fmod(w->kv_heads, tp) != 0 && fmod(tp, w->kv_heads) != 0)
		return errbuf_set(eb, "--tp %lu neither divides nor is a multiple of the %.0f "
				  "key/value heads of %s", p->tp, w->kv_heads, w->name);
	if (p->ep > 1 && !(w->experts > 1))
		return errbuf_set(eb, "--ep %lu: %s has no experts (a dense model); expert "
				  "parallelism needs a mixture-of-experts workload", p->ep, w->name);
	if (p->ep > 1 && (fmod(tp, ep) != 0 || fmod(w->experts, ep) != 0))
		return errbuf_set(eb, "--ep %lu must divide --tp %lu (experts over the TP group) "
				  "and the %.0f experts of %s", p->ep, p->tp, w->experts, w->name);
	if (fmod(w->layers, pp) != 0)
		return errbuf_set(eb, "--pp %lu does not divide the %.0f layers of %s", p->pp,
				  w->layers, w->name);
	if (!(p->batch >= 1) || !(p->prompt >= 1) || !(p->output >= 1))
		return errbuf_set(eb, "batch, prompt and output must be at least 1");
	if (!(p->imbalance >= 1))
		return errbuf_set(eb, "--moe-imbalance must be at least 1, got %g", p->imbalance);
	return 0;
}

double serve_kv_per_token(const struct workload *w, double kv_bytes)
{
	return 2 * w->layers * w->kv_heads * workload_head_dim(w) * kv_bytes;
}

double serve_experts_touched(double E, double k, double tokens)
{
	if (!(E > 1))
		return 1;
	return E * (1 - pow(1 - k / E, tokens));
}

void serve_kv_handoff(const struct workload *w, double kv_bytes, double prompt, double rate,
		      const struct link *l, struct serve_kv *kv)
{
	kv->per_token_B = serve_kv_per_token(w, kv_bytes);
	/* a sliding-window layer caches the window's tokens alone */
	kv->request_B = kv->per_token_B * workload_attn_span(w, prompt);
	kv->time_s = l->alpha + kv->request_B / l->beta;
	kv->rate_Bps = kv->request_B * rate;
	kv->link_share = kv->rate_Bps / l->beta;
}

/* Shares of one GPU: KV heads it holds per layer (split, or one copy when tp > kv_heads). */
static double S_kv_heads_gpu(const struct workload *w, double tp)
{
	return w->kv_heads >= tp ? w->kv_heads / tp : 1;
}

/* The collective context: the machine and where a row goes. */
struct S_led {
	const struct cost_model *m;
	const struct system *s;
	const struct serve_params *p;
	struct serve_result *r;
	struct errbuf *eb;
};

static int S_add(struct S_led *l, enum serve_phase ph, const char *dim, const char *what,
		 enum coll_op op, double count, double bytes, double time_s, const char *impl,
		 enum tier_id tier)
{
	struct serve_coll *c;

	if (l->r->ncoll >= SERVE_COLLS_MAX)
		return errbuf_set(l->eb, "too many collectives in one step");
	c = &l->r->coll[l->r->ncoll++];
	c->phase = ph;
	c->dim = dim;
	c->what = what;
	c->op = op;
	c->count = count;
	c->bytes = bytes;
	c->time_s = time_s;
	snprintf(c->impl, sizeof(c->impl), "%s", impl);
	c->tier = tier;
	if (ph == SERVE_PREFILL)
		l->r->prefill_comm_s += count * time_s;
	else
		l->r->decode_comm_s += count * time_s;
	return 0;
}

static int S_allreduce(struct S_led *l, enum serve_phase ph, const char *what, double count,
		       double bytes)
{
	struct ar_cost a;

	if (l->p->tp < 2)
		return 0;
	if (serve_ar(l->m, l->s, l->p->impl, l->p->tp, bytes, &a, l->eb) < 0)
		return -1;
	return S_add(l, ph, "tp", what, OP_ALLREDUCE, count, bytes, a.time_s, a.kernel, a.bound);
}

/*
 * MoE dispatch and combine of `tokens` tokens over the ep ranks (each rank
 * sends its tokens/ep, k copies each, the busiest receiving imbalance × the
 * mean), as DeepEP's low-latency mode sends them: fp8 out with a 4-byte
 * scale per 128 values, bf16 back.  A decode step on one NVLink node runs
 * the low-latency kernels' form (a launch, one flag flight, the busiest
 * rank's bytes at the serving kernels' read rate); a prefill, or ranks
 * across nodes, NCCL's all-to-all.
 * Then an all-gather of the tokens' hidden states gives every rank of the
 * TP group all of them again.
 */
static int S_moe(struct S_led *l, enum serve_phase ph, double count, double tokens,
		 const struct workload *w)
{
	double ep = (double)l->p->ep, h = w->hidden, k = w->top_k;
	double send[2] = { tokens / ep * k * h * (1 + 4.0 / 128), tokens / ep * k * h * 2 };
	const char *what[2] = { "MoE dispatch", "MoE combine" };
	struct group g = { .ranks = l->p->ep };
	struct coll_cost c;
	int i;

	for (i = 0; i < 2; i++) {
		double busiest = send[i] * (ep - 1) / ep * l->p->imbalance, t;

		if (ph == SERVE_DECODE && serve_ar_kernels_ok(l->s, l->p->ep)) {
			t = SERVE_AR_LAUNCH_S + SERVE_AR_SYNC_S +
			    busiest / (SERVE_AR_READ_SHARE * l->s->gpu.nvlink_links *
				       l->s->gpu.nvlink_link_Bps);
			if (S_add(l, ph, "ep", what[i], OP_ALLTOALL, count, send[i], t,
				  "low-latency", TIER_INTRA) < 0)
				return -1;
			continue;
		}
		if (cost_coll(l->m, OP_ALLTOALL, ALGO_AUTO, &g, send[i] * l->p->imbalance, &c,
			      l->eb) < 0)
			return -1;
		if (S_add(l, ph, "ep", what[i], OP_ALLTOALL, count, send[i], c.time_s,
			  "nccl alltoall", c.bound) < 0)
			return -1;
	}
	if (cost_coll(l->m, OP_ALLGATHER, ALGO_AUTO, &g, tokens * h * 2, &c, l->eb) < 0)
		return -1;
	return S_add(l, ph, "ep", "MoE all-gather", OP_ALLGATHER, count, tokens * h * 2, c.time_s,
		     "nccl", c.bound);
}

/* The collectives of one step that runs `tokens` tokens through every layer. */
static int S_step_colls(struct S_led *l, enum serve_phase ph, const struct workload *w,
			double tokens)
{
	const struct serve_params *p = l->p;
	double act = tokens * w->hidden * 2;   /* bf16 activations, as engines reduce them */
	int moe = w->experts > 1 && p->ep > 1;

	if (S_allreduce(l, ph, "attention all-reduce", w->layers, act) < 0)
		return -1;
	if (!moe && S_allreduce(l, ph, "MLP all-reduce", w->layers, act) < 0)
		return -1;
	if (moe && S_moe(l, ph, w->layers, tokens, w) < 0)
		return -1;
	if (p->pp > 1) {
		struct group g = { .ranks = 2,
				   .per_node = p->tp * p->pp <= l->s->gpus_per_node ? 2 : 1 };
		struct coll_cost c;

		if (cost_coll(l->m, OP_SENDRECV, ALGO_AUTO, &g, act, &c, l->eb) < 0)
			return -1;
		if (S_add(l, ph, "pp", "stage send", OP_SENDRECV, (double)(p->pp - 1), act,
			  c.time_s, "nccl p2p", c.bound) < 0)
			return -1;
	}
	return 0;
}

/* Weights and KV cache of one GPU; the fit. */
static void S_memory(const struct system *s, const struct workload *w,
		     const struct serve_params *p, struct serve_result *r)
{
	struct layer_params lp;
	double wb = p->precision == SERVE_FP8 ? 1 : 2, tp = (double)p->tp, pp = (double)p->pp;
	double E = w->experts > 1 ? w->experts : 1, hd = workload_head_dim(w);

	workload_layer_params(w, &lp);
	/* the larger end stage holds the embedding or the output layer (both at pp = 1) */
	r->weights_B = wb * (w->layers / pp * ((lp.attn + E * lp.mlp) / tp + lp.other) +
			     workload_embed_params(w) / tp / (pp > 1 ? 2 : 1));
	/* a sliding-window layer keeps the window's tokens alone (workload_attn_span) */
	r->kv_B = p->batch * workload_attn_span(w, p->prompt + p->output) * w->layers / pp * 2 *
		  S_kv_heads_gpu(w, tp) * hd * p->kv_bytes;
	r->memory_B = r->weights_B + r->kv_B;
	r->gpu_memory_B = s->gpu.memory_B;
	r->fits = r->memory_B <= p->mem_util * r->gpu_memory_B;
}

/*
 * The decode step on one GPU: every layer reads its weights (the experts
 * the batch reaches) and the batch's KV cache at the mean context (a
 * sliding-window layer's at most its window: the layers' mean span), and
 * runs 2 FLOPs per weight per token plus attention's 4·ctx·h/t; the time
 * of each is the larger of the two (a roofline).  The output layer reads
 * V·h/t weights once.
 */
static void S_decode(const struct kernel_gpu *g, const struct workload *w,
		     const struct serve_params *p, struct serve_result *r)
{
	struct layer_params lp;
	double wb = p->precision == SERVE_FP8 ? 1 : 2, tp = (double)p->tp, b = p->batch;
	double E = w->experts > 1 ? w->experts : 1, k = w->experts > 1 ? w->top_k : 1;
	/* the mean context over the output: the KV cache grows by a token a step */
	double ctx = p->prompt + p->output / 2, hd = workload_head_dim(w);
	/* fp8 tensor cores run at twice bf16's dense rate (H100 datasheet: 1979
	 * against 989 TFLOPS; the same ratio on sm89 and sm100) */
	double peak = g->peak * (p->precision == SERVE_FP8 ? 2 : 1);
	double eff = g->fixed_eff > 0 ? g->fixed_eff : g->gemm_eff;
	double wlayer, kvlayer, flayer, out_w, out_f;

	workload_layer_params(w, &lp);
	r->experts_touched = serve_experts_touched(E, k, b);
	wlayer = wb * ((lp.attn + r->experts_touched * lp.mlp) / tp + lp.other);
	/* a sliding-window layer reads and attends over its window alone */
	ctx = workload_attn_span(w, ctx);
	kvlayer = b * ctx * 2 * S_kv_heads_gpu(w, tp) * hd * p->kv_bytes;
	flayer = 2 * b * lp.matmul / tp + 4 * b * ctx * workload_q_width(w) / tp;
	out_w = wb * w->vocab * w->hidden / tp;
	out_f = 2 * b * w->vocab * w->hidden / tp;
	r->decode_weights_B = w->layers * wlayer + out_w;
	r->decode_kv_read_B = w->layers * kvlayer;
	r->decode_mem_s = kernel_mem_s(g, r->decode_weights_B + r->decode_kv_read_B);
	r->decode_flops_s = (w->layers * flayer + out_f) / (peak * eff);
	r->decode_compute_s = w->layers * fmax(kernel_mem_s(g, wlayer + kvlayer),
					       flayer / (peak * eff)) +
			      fmax(kernel_mem_s(g, out_w), out_f / (peak * eff));
}

int serve_run(const struct cost_model *m, const struct system *s, const struct kernel_gpu *g,
	      const struct workload *w, const struct serve_params *p, struct serve_result *r,
	      struct errbuf *eb)
{
	struct S_led l = { m, s, p, r, eb };
	struct kernel_shape sh = { 0 };
	struct kernel_layer kl;

	memset(r, 0, sizeof(*r));
	if (serve_check(w, p, eb) < 0)
		return -1;
	r->gpus = (double)(p->tp * p->pp);
	if (p->tp > s->gpus_per_node && !s->have_inter)
		return errbuf_set(eb, "--tp %lu needs %lu nodes of %lu GPUs, and %s has no NICs",
				  p->tp, (p->tp + s->gpus_per_node - 1) / s->gpus_per_node,
				  s->gpus_per_node, s->name ? s->name : "the system");
	S_memory(s, w, p, r);
	/* prefill: the batch's prompts in one forward pass, the kernel model's layer */
	sh.tokens = p->batch * p->prompt;
	sh.seq = p->prompt;
	sh.cp = 1;
	sh.tp = (double)p->tp;
	sh.fused = g->fused_ok;
	sh.ep = (double)p->ep;
	sh.capacity = p->imbalance;
	if (kernel_layer(g, w, &sh, &kl, eb) < 0)
		return -1;
	r->prefill_compute_s = w->layers * kl.fwd_s;
	if (S_step_colls(&l, SERVE_PREFILL, w, p->batch * p->prompt) < 0)
		return -1;
	r->ttft_s = r->prefill_compute_s + r->prefill_comm_s;
	S_decode(g, w, p, r);
	if (S_step_colls(&l, SERVE_DECODE, w, p->batch) < 0)
		return -1;
	r->tpot_s = r->decode_compute_s + r->decode_comm_s;
	r->comm_share = r->tpot_s > 0 ? r->decode_comm_s / r->tpot_s : 0;
	r->tokens_per_s = p->batch / r->tpot_s;
	return 0;
}
