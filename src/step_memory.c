/*
 * Memory per GPU of a step: activations of one layer, by term, and the
 * weights, gradients, optimizer state and activations of each pipeline
 * stage.  models/step-memory.md.
 */
#include <math.h>
#include <string.h>

#include "step.h"
#include "step_int.h"

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
	struct step_act_opts o = { 0, 0 };

	return step_act_layer_x(w, s, b, t, sp, rc, fused, capacity, &o);
}

/*
 * The per-operator levels, bytes per token (models/step-teams.md,
 * "Recomputation by operator"): what the forward saves is the layer's input 2h, and
 *   matmul-outputs: every matmul's output (QKV 2h_q + 4h_kv, 6h without
 *     grouped-query attention;
 *     the attention output projection 2h; the MLP's first matrices,
 *     SwiGLU's gate and up 4f or GPT's 2f; the last 2h) and the attention
 *     kernel's output 2h with its log-sum-exp 4a (unfused: the scores'
 *     matmul output 2as);
 *   alternate-matmul-outputs: torchtitan's count of a layer's matmuls,
 *     every even one recomputed: Llama's q, v, gate and down kept (2h,
 *     2h_kv, 2f, 2h), k, o and up recomputed; GPT's QKV and first MLP
 *     matrix kept (2h_q + 4h_kv, 2f).
 * An MoE layer keeps its router's logits 4E and, for each routed copy
 * (k·load of them), the dispatched token 2h, its expert's first outputs and
 * last output 2h; an expert's matrices split over etp ranks, its tokens
 * over t/etp.
 */
static double S_act_per_op(const struct workload *w, double s, double t, double ts,
			   enum recompute rc, int fused, double load, double etp)
{
	double h = w->hidden, a = w->heads, hkv = workload_kv_width(w), f = w->ffn;
	double hq = workload_q_width(w);
	double E = w->experts > 1 ? w->experts : 1, k = w->experts > 1 ? w->top_k : 1;
	double repl = 2 * h, split, fm = w->arch == WL_GPT ? 2 * f : 4 * f, scores;
	int gpt = w->arch == WL_GPT, alt = rc == RC_ALT_MATMUL;

	if (alt)
		split = (gpt ? 2 * hq + 4 * hkv : 2 * hq + 2 * hkv) + 2 * hq;
	else {
		split = 2 * hq + 4 * hkv + 2 * hq;
		repl += 2 * h;
	}
	if (E > 1) {
		repl += 4 * E;
		scores = k * load * (2 * h * 2 * etp / t + fm / t);
	} else {
		split += alt ? fm / 2 : fm;
		repl += alt && gpt ? 0 : 2 * h;
		scores = 0;
	}
	scores += fused ? 4 * a / t : 2 * a * s / t;
	return repl / ts + split / t + scores;
}

/*
 * DeepSeek-V3's save list (DeepSeek-AI 2024, arXiv:2412.19437; models/
 * step.md, "Recomputation by operator"), bytes per token:
 *   §3.2.3: every RMSNorm and latent attention's up projections are
 *     recomputed in backward, so a layer keeps each norm's input (the
 *     layer's input 2h, the attention's output added to it 2h, MLA's
 *     latents 2(q_lora + kv_lora)) and none of their outputs, nor the
 *     queries, keys and values the up projections make; the rotary key
 *     2r (the down projection's, not recomputed).  Without latent
 *     attention Q, K and V stay (2h_q + 4h_kv).
 *   §3.3.3 (1): the attention's output, the input of the linear after it
 *     and kept for the attention's backward too, once, in E5M6 (12 bits,
 *     taken as 1.5 bytes a value: the report gives the format, not its
 *     packing) under FP8, 2 bytes in bf16; the fp32 log-sum-exp
 *     4a (fused) or the scores 2as (unfused).
 *   §3.3.3 (2): an MoE layer's SwiGLU keeps its inputs, gate and up, in
 *     FP8 under FP8 (2f), and recomputes its output; a dense layer's
 *     SwiGLU keeps them in bf16 (4f), as the report states FP8 for MoE's.
 *   §3.3.3, low-precision communication: each routed copy's expert input
 *     as dispatched, 1 byte (FP8) or 2; the router's fp32 logits 4E.
 */
static double S_act_norm_swiglu(const struct workload *w, double s, double t, double ts,
				int fused, double load, double etp, int fp8)
{
	double h = w->hidden, a = w->heads, f = w->ffn, in = fp8 ? 1 : 2;
	double E = w->experts > 1 ? w->experts : 1, k = w->experts > 1 ? w->top_k : 1;
	double repl = 4 * h, split, per_copy = 0, o_in = fp8 ? 1.5 : 2;

	if (workload_mla(w)) {
		double qr = w->q_lora > 0 ? w->q_lora : 0;

		repl += 2 * (qr + w->kv_lora) + 2 * w->rope;
		split = o_in * a * w->v_head;
	} else {
		split = 2 * workload_q_width(w) + 4 * workload_kv_width(w) +
			o_in * workload_q_width(w);
	}
	if (E > 1) {
		repl += 4 * E;
		per_copy = k * load * (in * h * etp / t + 2 * f * in / t);
		if (w->shared > 0)
			split += w->shared * 2 * f * in;
	} else {
		split += 4 * f;
	}
	per_copy += fused ? 4 * a / t : 2 * a * s / t;
	return repl / ts + split / t + per_copy;
}

/*
 * Bytes per token, 16-bit values (Korthikanti et al. 2022, §4.1, for
 * GPT): replicated across the tensor-parallel ranks unless sequence
 * parallel, or split by t.
 *   attention: QKV's input 2h (GPT: + the dropout mask h); Q 2h_q, K
 *     and V 4h_kv (GPT's 6h without grouped-query attention) and the
 *     output projection's input 2h_q, split
 *   the two norms' inputs 4h
 *   MLP: its input 2h (GPT: + the dropout mask h); GELU's 4h-wide
 *     output and activation 4f split; SwiGLU's gate, up and product 6f
 *   the scores without fused attention: softmax output 2as, GPT's
 *     dropout mask and output 3as more; fused, the kernel keeps only
 *     the softmax's fp32 log-sum-exp, 4a
 * FP8 (Transformer Engine): each linear keeps its input as the FP8
 * copy it cast for the GEMM, one byte a value: QKV's, the output
 * projection's, the MLP's first and last matrices' inputs (h, h, h,
 * and f of GELU's output or SwiGLU's product) each half.
 * A parallel block's two norms read the one input, kept once (2h, not
 * 4h); with one norm its output is QKV's input and the MLP's, kept
 * once too (models/step.md, "Parallel blocks").
 */
static double S_act_kept(const struct workload *w, double s, double t, double ts,
			 enum recompute rc, int fused, double capacity, double etp, int fp8)
{
	double h = w->hidden, a = w->heads, hkv = workload_kv_width(w), f = w->ffn;
	double hq = workload_q_width(w);
	double E = w->experts > 1 ? w->experts : 1, k = w->experts > 1 ? w->top_k : 1;
	double repl, split, scores = 0, F, in;
	int gpt = w->arch == WL_GPT;

	in = fp8 ? 1 : 2;
	repl = (gpt ? 1 + in : in) * h + (workload_parallel(w) ? 2 : 4) * h;
	if (w->block == WL_PARALLEL_ONE_NORM)
		repl -= in * h;
	split = 2 * hq + 4 * hkv + in * hq;
	F = gpt ? 2 * f + in * f : 4 * f + in * f;
	if (workload_mla(w)) {
		/* Latent attention: the output projection's input is a·v wide;
		 * the compressed q and kv (whole on every tensor-parallel rank)
		 * kept as their norms' inputs 2 bytes and as the up projections'
		 * inputs, and the shared rotary key 2r */
		double qr = w->q_lora > 0 ? w->q_lora : 0;

		split += in * (a * w->v_head - hq);
		repl += (2 + in) * (qr + w->kv_lora) + 2 * w->rope;
	}
	if (E > 1) {
		/* MoE: the router's fp32 logits 4E, each routed copy of a token
		 * (k·load of them) its expert's input and inner values, the
		 * inputs over t/etp ranks, the inner values over etp; the S
		 * shared experts' inner values as a dense MLP's, split by t */
		repl += 2 * h + 4 * E;
		scores += k * capacity * (in * h * etp / t + F / t);
		if (w->shared > 0)
			split += w->shared * F;
	} else {
		repl += (gpt ? 1 + in : in) * h;
		split += F;
	}
	if (!fused && rc == RC_NONE)
		scores += (gpt ? 5 : 2) * a * s / t;
	else if (fused)
		scores += 4 * a / t;
	return repl / ts + split / t + scores;
}

double step_act_layer_x(const struct workload *w, double s, double b, double t, int sp,
			enum recompute rc, int fused, double capacity,
			const struct step_act_opts *o)
{
	double h = w->hidden, ts = sp ? t : 1, etp = o->etp >= 1 ? o->etp : t;

	if (rc == RC_FULL)
		return 2 * s * b * h / ts;
	if (rc == RC_MATMUL || rc == RC_ALT_MATMUL)
		return s * b * S_act_per_op(w, s, t, ts, rc, fused, capacity, etp);
	if (rc == RC_NORM_SWIGLU)
		return s * b * S_act_norm_swiglu(w, s, t, ts, fused, capacity, etp, o->fp8);
	return s * b * S_act_kept(w, s, t, ts, rc, fused, capacity, etp, o->fp8);
}

/*
 * Bytes a logit holds at the top of backward, when the last stage's peak
 * comes (every layer's activations still held).  Fused cross-entropy
 * (Megatron's vocab-parallel kernel, torch.compile, flash-attn's kernel)
 * keeps the fp32 softmax, 4.  Eager PyTorch (torchtitan's train.py,
 * loss_fn: cross_entropy over the logits upcast with .float()) runs
 * log_softmax and nll_loss as operators: log_softmax keeps its fp32
 * output for backward (4), nll_loss's backward writes a dense fp32
 * gradient (4) and log_softmax's backward its own (4) while the two
 * are alive, 12.  The forward peaks lower: the bf16 logits 2, their fp32
 * copy 4 and log_softmax's output 4.
 */
double step_logit_bytes(const struct step_config *c)
{
	return c->eager ? 12 : 4;
}

/*
 * Parameters ZeRO-3 without a pipeline holds gathered beside its shards:
 * two layers (`layer` parameters each), the one computing and the one
 * prefetched, and under PyTorch's FSDP the root module's (the embedding,
 * the final norm and the output layer: what no wrapped block holds),
 * which it does not reshard after forward, so they stay gathered to the
 * end of backward (FSDP2: torch/distributed/_composable/fsdp/
 * _fsdp_state.py, _lazy_init; FSDP1: torch/distributed/fsdp/
 * _runtime_utils.py, _post_forward_reshard).  DeepSpeed of 2021
 * prefetched nothing and released each module after use (models/step.md,
 * "DeepSpeed as of 2021"): one module gathered at a time, the largest a
 * layer's widest linear, and in backward its full gradient beside it
 * until the reduce-scatter that waits for it.
 */
static double S_gathered(const struct workload *w, const struct step_config *c, double layer,
			 double t)
{
	double n = 2 * layer;

	if (c->framework == FW_DEEPSPEED_2021) {
		double wide = fmax(w->ffn, workload_q_width(w) + 2 * workload_kv_width(w));

		return 2 * wide * w->hidden / t;
	}
	if (c->framework == FW_FSDP)
		n += workload_embed_params(w) / t;
	return n;
}

/* A dense first layer's activations (act, the layer's, without them). */
static double S_dense_act(const struct run *u, const struct step_act_opts *ao, double act)
{
	const struct step_config *c = u->c;
	struct workload dw;

	if (!(u->w->dense_layers > 0))
		return act;
	workload_dense_layer(u->w, &dw);
	return step_act_layer_x(&dw, u->sr, u->b, u->t, c->sp && c->tp > 1, c->recompute,
				u->r->fused, step_moe_load(c), ao);
}

double step_memory_offload_B(const struct run *u, double n)
{
	const struct step_config *c = u->c;
	struct step_act_opts ao = { c->precision == PREC_FP8, (double)step_etp(c) };
	double act = step_act_layer_x(u->w, u->sr, u->b, u->t, c->sp && c->tp > 1, c->recompute,
				      u->r->fused, step_moe_load(c), &ao);
	double nd = fmin(n, u->Ldf);

	return nd * S_dense_act(u, &ao, act) + (n - nd) * act;
}

/*
 * The parameters' memory of stage si of the ledger's four (first, middle,
 * last, the last middle): its weights (FP8 copies among them), gradients
 * and optimizer state.  Each stage holds its layers (the first also the
 * input embedding, the last the output layer or the tied embedding's
 * copy; one stage both), split over the tensor-parallel ranks; ZeRO
 * shards over the data-parallel ranks (Rajbhandari et al. 2020), ZeRO-3
 * holding two gathered layers (the one computing and the one prefetched).
 */
static void S_stage_params(const struct run *u, int si, struct step_memory *mm)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	const struct layer_params lp = u->lp;
	double t = u->t, zd = u->zd, ze = u->ze;
	double layers_of[4] = { u->Lf, u->Lm, u->Ll, u->Lm };
	double dense_of[4] = { u->Ldf, u->Ldm, u->Ldl, u->Ldm2 };
	double Ls = layers_of[si], Lds = dense_of[si], dn, ex;
	double wd = c->param_bytes, gd = c->grad_bytes, od = c->optim_bytes;
	double layer_dense = lp.attn / t + lp.other + (u->moe ? lp.shared / t : lp.mlp / t);
	double layer_exp = u->moe ? u->E * lp.mlp / ((double)step_etp(c) * u->e) : 0;
	double lin_dense = lp.attn / t + (u->moe ? lp.shared / t : lp.mlp / t);
	/*
	 * ZeRO-3 with a pipeline, as FSDP2 runs it under PyTorch's
	 * schedules: a stage's parameters stay gathered and its gradients
	 * unsharded from the first forward to the last backward; only the
	 * optimizer's state stays sharded.
	 */
	int z3 = c->zero >= 3 && c->pp == 1, zg = c->zero >= 2 && !(c->zero >= 3 && c->pp > 1);
	/*
	 * FP8 (Transformer Engine) keeps an FP8 copy of each linear's weight
	 * and of its transpose, 2 bytes a parameter; Megatron's
	 * --fp8-param-gather and FSDP2's float8 all-gather hold them in
	 * place of the bf16 copy, DeepSpeed beside it.
	 */
	double fp8w = c->precision == PREC_FP8 && step_framework_deepspeed(c->framework) ? 2 : 0;

	dn = Lds > 0 ? step_stage_dense_params(u, Ls, Lds) : Ls * layer_dense;
	ex = (Ls - Lds) * layer_exp;
	if (c->pp == 1)
		dn += workload_embed_params(w) / t;
	else if (si == 0 || si == 2)
		dn += w->vocab * u->h / t;
	mm->weights_B = wd * (z3 ? dn / zd + ex / ze : dn + ex);
	if (z3)
		mm->weights_B += wd * S_gathered(w, c, layer_dense + layer_exp, t);
	mm->fp8_weights_B = Lds > 0 ? fp8w * (step_stage_dense_linears(u, Ls, Lds) + ex) :
		fp8w * Ls * (lin_dense + layer_exp);
	mm->weights_B += mm->fp8_weights_B;
	mm->grads_B = gd * (zg ? dn / zd + ex / ze : dn + ex);
	mm->optim_B = od * (c->zero >= 1 ? dn / zd + ex / ze : dn + ex);
}

/*
 * Full recomputation re-runs a layer's forward in its backward, and
 * everything that forward keeps lives until the layer's backward ends:
 * one layer of one micro-batch at no recomputation's count beside the
 * inputs every layer keeps (Chen et al. 2016, "Training Deep Nets with
 * Sublinear Memory Cost", §3: checkpoints plus one segment's memory).  On
 * the stage that computes the loss it comes after the logits are freed,
 * so the larger of the two counts there (step_memory_stages).
 */
static double S_segment(const struct run *u, const struct step_act_opts *ao)
{
	const struct step_config *c = u->c;

	if (c->recompute != RC_FULL)
		return 0;
	return step_act_layer_x(u->w, u->sr, u->b, u->t, c->sp && c->tp > 1, RC_NONE,
				u->r->fused, step_moe_load(c), ao);
}

/*
 * Memory of the most loaded stage: its parameters (S_stage_params), and
 * activations of one layer times its layers times the micro-batches the
 * stage holds in flight; the last stage adds one micro-batch's logits
 * (step_logit_bytes).  DualPipe puts two stages on a rank, i and p - 1 - i
 * (DeepSeek-V3 report, §3.2.1 and Table 2, parameters 2x; deepseek-ai/
 * DualPipe at 3da1bbe, examples/example_dualpipe.py: rank r's two modules
 * are the full model's r and pp_size - 1 - r): the first rank holds the
 * first stage and the last, a middle rank two middle stages, each with
 * its gradients and optimizer state.  The activations stay the stage's
 * own, p + 1 micro-batches (step_sched_inflight).  --offload-activations
 * N (one stage only, step_offload_check) takes the first N layers'
 * activations to host memory: Transformer Engine's offload keeps none of
 * them on the GPU beyond the other L - N layers' (transformer_engine/
 * pytorch/cpu_offload.py, DefaultOffloadSynchronizer: layer i is freed
 * before layer L - N + i's forward and comes back from layer L - 1 - N +
 * i's backward on, so that (L - N) layers' activations are held at once).
 */
void step_memory_stages(struct run *u)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	double Lf = u->Lf, Lm = u->Lm, Ll = u->Ll, p = u->p, sr = u->sr, b = u->b, t = u->t;
	double m = u->m;
	static const char *const names[3] = { "first", "middle", "last" };
	/* the ledger's stages, the rank of each and the stage DualPipe pairs it with */
	double layers_of[3] = { Lf, Lm, Ll }, rank_of[4] = { 0, 1, p - 1, p - 2 };
	static const int mirror[4] = { 2, 3, 0, 1 };
	struct step_act_opts ao = { c->precision == PREC_FP8, (double)step_etp(c) };
	double act = step_act_layer_x(w, sr, b, t, c->sp && c->tp > 1, c->recompute, r->fused,
				      step_moe_load(c), &ao);
	double dense_of[4] = { u->Ldf, u->Ldm, u->Ldl, u->Ldm2 };
	double actd = S_dense_act(u, &ao, act), seg = S_segment(u, &ao);
	int si;

	r->mem.total_B = -1;
	for (si = 0; si < (c->pp > 1 ? 4 : 1); si++) {
		struct step_memory mm, mo;
		double Ls = layers_of[si < 3 ? si : 1], Lds = dense_of[si], fl;

		if (c->pp == 2 && si == 1)
			continue;
		/* the last middle stage, when it holds fewer dense layers */
		if (si == 3 && (c->pp <= 2 || Lds == u->Ldm))
			continue;
		memset(&mm, 0, sizeof(mm));
		S_stage_params(u, si, &mm);
		if (c->schedule == PP_DUALPIPE && c->pp > 1) {
			S_stage_params(u, mirror[si], &mo);
			mm.weights_B += mo.weights_B, mm.fp8_weights_B += mo.fp8_weights_B;
			mm.grads_B += mo.grads_B, mm.optim_B += mo.optim_B;
		}
		mm.act_layer_B = act;
		mm.inflight = step_sched_inflight(c, rank_of[si], m);
		mm.act_B = Lds > 0 ? (act * (Ls - Lds) + actd * Lds) * mm.inflight :
			act * Ls * mm.inflight;
		if (c->offload) {
			mm.offload_B = step_memory_offload_B(u, (double)c->offload) * mm.inflight;
			mm.act_B -= mm.offload_B;
		}
		fl = c->pp == 1 || si == 2 ? step_logit_bytes(c) * b * sr * w->vocab / t : 0;
		mm.act_B += fmax(fl, seg);
		mm.reserve_B = STEP_RESERVE_B;
		mm.total_B = mm.weights_B + mm.grads_B + mm.optim_B + mm.act_B + mm.reserve_B;
		mm.stage = c->pp == 1 ? "only" : names[si < 3 ? si : 1];
		mm.stage_layers = Ls;
		if (mm.total_B > r->mem.total_B)
			r->mem = mm;
	}
}
