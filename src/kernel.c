/*
 * The compute of a transformer layer by kernel (kernel.h).  Formulas and
 * sources: models/step.md, "Compute by kernel".
 */
#include <math.h>
#include <string.h>

#include "kernel.h"

static const char *const attn_names[ATTN_COUNT] = { "auto", "fused", "unfused", "flash2" };

int attention_lookup(const char *name, enum attention_kind *a, struct errbuf *eb)
{
	int i;

	for (i = 0; i < ATTN_COUNT; i++)
		if (!strcmp(name, attn_names[i])) {
			*a = (enum attention_kind)i;
			return 0;
		}
	return errbuf_set(eb, "unknown attention '%s' (auto, fused, unfused, flash2)", name);
}

void kernel_gpu_init(struct kernel_gpu *g, enum gpu_arch arch, double peak, double sms,
		     double hbm_Bps, double gemm_eff)
{
	memset(g, 0, sizeof(*g));
	g->peak = peak;
	g->sms = sms > 0 ? sms : 0;
	g->hbm_Bps = hbm_Bps > 0 ? hbm_Bps : 0;
	g->gemm_eff = gemm_eff > 0 && gemm_eff <= 1 ? gemm_eff : KERNEL_GEMM_EFF;
	g->hbm_eff = KERNEL_HBM_EFF;
	/*
	 * Fused attention, causal, head dimension 128, its share of the peak
	 * on long sequences; S_flash takes L/(L + KERNEL_ATTN_L0) of it for
	 * L keys.  On Hopper and later the kernel is cuDNN's: Transformer
	 * Engine prefers its FusedAttention there whenever FlashAttention
	 * is also available (transformer_engine/pytorch/attention/
	 * dot_product_attention/utils.py, "give FusedAttention preference
	 * on Hopper+ for performance reasons").  cuDNN on the H100 (Shah et
	 * al. 2024, Figure 5, causal forward, and Figure 6, backward, head
	 * dimension 128, 512 to 16k tokens): 315, 410, 484, 518, 529, 539
	 * TFLOP/s forward, 305, 408, 465, 499, 518, 516 backward without
	 * the causal mask, which the forward's curve puts at 0.9 of them:
	 * 0.554 and 0.488 of the 989.4 TFLOP/s peak on long sequences (529
	 * and 466 at 8k).  FlashAttention-2 on the A100 (Dao 2023, Figures
	 * 4-5): about 60 % and 50 % at 8k, 0.62 and 0.52 on long sequences.
	 * Older GPUs have no fused kernel.
	 */
	g->fused_ok = arch >= ARCH_SM80 || arch == ARCH_UNKNOWN;
	g->fused_cudnn = arch >= ARCH_SM90;
	if (arch >= ARCH_SM90) {
		g->attn_fwd_eff = 0.554;
		g->attn_bwd_eff = 0.488;
	} else {
		g->attn_fwd_eff = 0.62;
		g->attn_bwd_eff = 0.52;
	}
	/*
	 * FlashAttention-2 is written for sm80: on the H100 it reaches 191,
	 * 260, 298, 319, 333, 335 TFLOP/s forward (causal, head dimension
	 * 128, 512 to 16k tokens) and 214 to 322 backward without the mask
	 * (Shah et al. 2024, Figures 5-6): 0.35 and 0.30 of the 989.4
	 * TFLOP/s peak on long sequences (the backward causal at 0.9 of its
	 * unmasked rate, as the forward is), 333 and 286 at 8k.  PyTorch's
	 * SDPA dispatches to these kernels.  Elsewhere FlashAttention-2 is
	 * the fused kernel above.
	 */
	if (arch == ARCH_SM90) {
		g->fa2_fwd_eff = 0.35;
		g->fa2_bwd_eff = 0.30;
	} else {
		g->fa2_fwd_eff = g->attn_fwd_eff;
		g->fa2_bwd_eff = g->attn_bwd_eff;
	}
}

void kernel_gpu_set_fp8(struct kernel_gpu *g, double fp8_peak)
{
	g->fp8_peak = fp8_peak > 0 ? fp8_peak : 0;
	g->fp8_gemm_eff = KERNEL_FP8_GEMM_EFF;
}

/* Useful share of one tile shape: tile quantisation x wave quantisation. */
static double S_quant(const struct kernel_gpu *g, double M, double N, double batch, double tm,
		      double tn)
{
	double tiles = ceil(M / tm) * ceil(N / tn) * batch;
	double useful = M * N * batch / (tiles * tm * tn);
	double waves = 1;

	if (g->sms > 0)
		waves = tiles / (ceil(tiles / g->sms) * g->sms);
	return useful * waves;
}

double kernel_gemm_eff(const struct kernel_gpu *g, double M, double N, double batch)
{
	double a, b;

	if (g->fixed_eff > 0)
		return g->fixed_eff;
	if (!(M >= 1) || !(N >= 1) || !(batch >= 1))
		return g->gemm_eff;
	a = S_quant(g, M, N, batch, KERNEL_TILE_M, KERNEL_TILE_N);
	b = S_quant(g, M, N, batch, KERNEL_TILE_N, KERNEL_TILE_M);
	return g->gemm_eff * fmax(a, b);
}

double kernel_mem_s(const struct kernel_gpu *g, double bytes)
{
	if (!(g->hbm_Bps > 0) || !(bytes > 0))
		return 0;
	return bytes / (g->hbm_Bps * g->hbm_eff);
}

/*
 * A GEMM's time: the main loop at its share of the peak or, when the
 * operands take longer to stream, at the bandwidth (a roofline), then the
 * epilogue that writes the output tile, c_bytes per output element
 * (CUTLASS's structure: the epilogue follows the main loop of each tile;
 * NVIDIA, cutlass/media/docs/efficient_gemm.md).
 */
static double S_gemm_at(const struct kernel_gpu *g, double M, double N, double K, double batch,
			double c_bytes, int fp8)
{
	double flops = 2 * M * N * K * batch, math, mem, share;

	if (!(flops > 0))
		return 0;
	share = kernel_gemm_eff(g, M, N, batch);
	/* FP8: the same tile and wave quantisation, its own large-GEMM share
	 * (the fixed share of --kernel-efficiency, when given, for both). */
	if (fp8)
		math = flops / (g->fp8_peak * (g->fixed_eff > 0 ? share :
					       share / g->gemm_eff * g->fp8_gemm_eff));
	else
		math = flops / (g->peak * share);
	mem = kernel_mem_s(g, (fp8 ? 1 : 2) * (M * K + K * N) * batch);
	return fmax(math, mem) + kernel_mem_s(g, c_bytes * M * N * batch);
}

static double S_gemm(const struct kernel_gpu *g, double M, double N, double K, double batch,
		     double c_bytes)
{
	return S_gemm_at(g, M, N, K, batch, c_bytes, 0);
}

double kernel_gemm_s(const struct kernel_gpu *g, double M, double N, double K, double batch)
{
	return S_gemm(g, M, N, K, batch, 2);
}

/* The linears of one layer: each one's shape, and how it runs. */
struct S_lin {
	int fp8;              /* its GEMMs in FP8, with the casts they need */
	double wshare;        /* 1/m: the share of the weight casts one micro-batch pays */
};

/*
 * Forward GEMM M x N x K and its backward: dgrad M x K x N, and wgrad
 * K x N x M accumulated into the fp32 gradient (Megatron's
 * gradient_accumulation_fusion, wgrad_gemm_accum_fp32: the K x N output
 * read and written in fp32, 8 bytes an element).  In FP8 the three run at
 * the FP8 peak on 1-byte operands, after a cast-transpose of the input
 * (M x K, forward), of the output gradient (M x N, backward) and, once a
 * step, of the weight (K x N).
 */
static void S_linear(const struct kernel_gpu *g, const struct S_lin *l, double M, double N,
		     double K, double batch, struct kernel_layer *k, int which, double *wgrad)
{
	double w = S_gemm_at(g, K, N, M, batch, 8, l->fp8);
	double fw = S_gemm_at(g, M, N, K, batch, 2, l->fp8);
	double dg = S_gemm_at(g, M, K, N, batch, 2, l->fp8);

	k->gemm_fwd_s += fw;
	k->gemm_bwd_s += dg + w;
	if (l->fp8) {
		double cf = kernel_mem_s(g, KERNEL_FP8_CAST_BYTES * batch *
					 (M * K + l->wshare * K * N));
		double cb = kernel_mem_s(g, KERNEL_FP8_CAST_BYTES * batch * M * N);

		k->mem_fwd_s += cf;
		k->mem_bwd_s += cb;
		k->cast_s += cf + cb;
	}
	if (which >= 0) {
		k->lin_fwd_s[which] += fw;
		k->lin_dgrad_s[which] += dg;
	}
	k->flops_fwd += 2 * M * N * K * batch;
	if (wgrad)
		*wgrad += w;
}

/*
 * The token copies of an MoE layer's all-to-all dispatcher, bytes each
 * way, bf16 rows of h (megatron/core/transformer/moe/token_dispatcher.py,
 * MoEAlltoAllTokenDispatcher; moe_utils.py's permute, unpermute and
 * sort_chunks_by_idxs, fused by Transformer Engine,
 * transformer_engine/pytorch/permutation.py):
 *   permutation 1 reads each of the T1 tokens this rank routes once and
 *   writes its R1 = k·capacity·T1 copies grouped by expert (T1 = T/t with
 *   sequence parallelism, each rank routing its slice); its inverse after
 *   the combining all-to-all reads the R1 copies and writes T1 sums (the
 *   routing probabilities are applied in the activation, not here),
 *   each 2 bytes an element read and 2 written: 4·(T1 + R1)·h the pair;
 *   permutation 2 sorts the R2 = k·capacity·T·etp/t copies this rank's
 *   experts receive, ordered by sending rank, by local expert, and its
 *   inverse puts them back before the combine, each reading and writing
 *   every row: 2·4·R2·h the pair; only with more than one local expert, after an
 *   all-to-all or an expert-tensor-parallel gather (dispatch_postprocess,
 *   combine_preprocess; padded to capacity the same copy is a transpose).
 * Backward moves the same: the gradient of each copy is its inverse
 * (moe_permute's backward unpermutes the gradient, moe_unpermute's
 * permutes it, a chunk sort's runs the inverse sort).
 */
static double S_moe_copy_bytes(const struct workload *w, const struct kernel_shape *sh,
			       double T, double t)
{
	double kk = w->top_k, cap = sh->capacity, h = w->hidden, t1 = sh->sp ? T / t : T;
	double etp = sh->etp >= 1 ? sh->etp : t, local = w->experts / (sh->ep >= 1 ? sh->ep : 1);
	double r1 = t1 * kk * cap, r2 = T * etp / t * kk * cap;
	double bytes = KERNEL_COPY_BYTES * (t1 + r1) * h;

	if (local > 1 && (sh->ep > 1 || etp > 1))
		bytes += 2 * KERNEL_COPY_BYTES * r2 * h;
	return bytes;
}

/*
 * Memory-bound work outside the attention core, bytes per token forward
 * (bf16; Megatron's fused kernels: bias+GELU, bias+dropout+residual add;
 * a norm reads and writes its row):
 *   GPT:   2 LayerNorms 2·4h, 2 bias-dropout-adds 2·(6h + h mask),
 *          bias+GELU 4f/t
 *   Llama: 2 RMSNorms 2·4h, 2 residual adds 2·6h, SwiGLU 6f/t (reads
 *          gate and up, writes their product), rotary embedding of q
 *          and k 4(h_q + h_kv)/t (h_q = a·d, h unless the workload
 *          gives a head_dim)
 * Llama as eager PyTorch runs it (FSDP without torch.compile; torchtitan,
 * torchtitan/models/llama/model.py and models/norms.py, 2024), an
 * operator a kernel, each reading and writing its whole tensor:
 *   RMSNorm x.float() 6h, pow(2) 8h, mean 4h, x·rsqrt 8h, type_as 6h,
 *   ·weight 4h: 36h each, two 72h; residual adds 12h; rotary of q:
 *   float() 6, the complex product 8, type_as 6: 20(h_q + h_kv)/t;
 *   repeat_kv's copies of k and v 4(h_q + h_kv)/t; the attention output
 *   made contiguous 4h_q/t; SwiGLU silu 4f/t and the product 6f/t.
 * With sequence parallelism the h-wide work runs on T/t tokens.  An MoE
 * layer's activation runs on the k routed copies of each token (its token
 * copies: S_moe_copy_bytes).  Backward moves about twice as much (the
 * gradient in and out and the saved input).
 */
/*
 * Latent attention's memory-bound work, bytes per token forward, beside a
 * Llama layer's norms 2·4h, residual adds 2·6h and SwiGLU 6f: the
 * RMSNorms of the compressed q and kv, 4(q_lora + kv_lora); the rotary
 * embedding of the queries' rotary parts and of the one shared rotary
 * key, 4(a·r/t + r); the queries and keys put together from their
 * rotary and non-rotary parts (torch.cat in Megatron-Core's
 * multi_latent_attention.py), each read and written, 2·4·a(d + r)/t.
 */
static double S_mla_elementwise_bytes(const struct workload *w, double T, double t, double et,
				      double fk)
{
	double h = w->hidden, a = w->heads, r = w->rope, dq = w->head_dim + w->rope;
	double qr = w->q_lora > 0 ? w->q_lora : 0;

	return T * (20 * h / et + 4 * (qr + w->kv_lora) + 4 * (a * r / t + r) + 8 * a * dq / t) +
	       T * 6 * fk;
}

static double S_elementwise_bytes(const struct workload *w, const struct kernel_shape *sh,
				  double T, double t)
{
	double h = w->hidden, hq = workload_q_width(w), hkv = workload_kv_width(w), f = w->ffn;
	double E = w->experts > 1 ? w->experts : 1, kk = w->experts > 1 ? w->top_k : 1;
	double et = sh->sp ? t : 1, fk = f / t * (E > 1 ? kk * sh->capacity : 1), mem;
	int llama = w->arch == WL_LLAMA;

	if (E > 1 && w->shared > 0)
		fk += w->shared * f / t;   /* the shared experts' activation, every token */
	if (workload_mla(w))
		return S_mla_elementwise_bytes(w, T, t, et, fk);
	if (llama && sh->eager)
		mem = T * (84 * h / et + (28 * hq + 24 * hkv) / t) + T * 10 * fk;
	else if (llama)
		mem = T * (20 * h / et + 4 * (hq + hkv) / t) + T * 6 * fk;
	else
		mem = T * 22 * h / et + T * 4 * fk;
	return mem;
}

/*
 * Mixture of experts: the router (T x E x h, bf16; T/t with sequence
 * parallelism, each rank routing its slice), then E/e experts on this
 * rank, each over the e·T·(etp/t)·k·capacity/E tokens routed to it (every
 * rank's k choices spread evenly over E experts; the busiest expert
 * `capacity` times the mean), its matrices split over the etp
 * expert-tensor-parallel ranks.  Megatron-Core folds the experts over
 * their own grid: with sequence parallelism each rank routes its T/t
 * tokens, and an expert-tensor-parallel group of etp ranks gathers etp of
 * those slices (megatron/core/transformer/moe/token_dispatcher.py);
 * etp = t is the layout before folding.
 */
static void S_experts(const struct kernel_gpu *g, const struct workload *w,
		      const struct kernel_shape *sh, const struct S_lin *lin, struct kernel_layer *k)
{
	double T = sh->tokens, t = sh->tp, h = w->hidden, f = w->ffn, E = w->experts;
	double local = E / sh->ep, etp = sh->etp >= 1 ? sh->etp : t;
	double te = sh->ep * T * (etp / t) * w->top_k * sh->capacity / E;
	struct S_lin bf = { 0, 0 };

	S_linear(g, &bf, sh->sp ? T / t : T, E, h, 1, k, -1, NULL);
	S_linear(g, lin, te, (w->arch == WL_LLAMA ? 2 : 1) * f / etp, h, local, k, 2, NULL);
	S_linear(g, lin, te, h, f / etp, local, k, 3, NULL);
	/* DeepSeekMoE's shared experts: one SwiGLU MLP S·f wide over every
	 * token, split over the tensor-parallel ranks as a dense MLP is
	 * (Megatron-Core's SharedExpertMLP, moe/shared_experts.py). */
	if (w->shared > 0) {
		S_linear(g, lin, T, 2 * w->shared * f / t, h, 1, k, -1, NULL);
		S_linear(g, lin, T, h, w->shared * f / t, 1, k, -1, NULL);
	}
}

/*
 * Latent attention's linears (DeepSeek-V2, arXiv:2405.04434, §2.1; the
 * matrices of workload_layer_params): the down projections of q
 * (h -> q_lora) and of kv (h -> kv_lora + r) whole on every
 * tensor-parallel rank (Megatron-Core's MLASelfAttention builds them
 * with parallel_mode 'duplicated', multi_latent_attention.py), the up
 * projections q_lora -> a(d+r)/t and kv_lora -> a(d+v)/t and the output
 * a·v/t -> h split by heads.  The down projections take the layer's
 * input (QKV's place), the output projection the attention's output.
 */
static void S_mla_linears(const struct kernel_gpu *g, const struct workload *w,
			  const struct kernel_shape *sh, const struct S_lin *lin,
			  struct kernel_layer *k)
{
	double T = sh->tokens, t = sh->tp, h = w->hidden, a = w->heads;
	double dq = w->head_dim + w->rope, v = w->v_head;

	double up;

	if (w->q_lora > 0) {
		S_linear(g, lin, T, w->q_lora, h, 1, k, 0, &k->wgrad_in_s);
		up = k->gemm_fwd_s;
		S_linear(g, lin, T, a * dq / t, w->q_lora, 1, k, -1, NULL);
		k->up_fwd_s += k->gemm_fwd_s - up;
	} else {
		S_linear(g, lin, T, a * dq / t, h, 1, k, 0, &k->wgrad_in_s);
	}
	S_linear(g, lin, T, w->kv_lora + w->rope, h, 1, k, 0, &k->wgrad_in_s);
	up = k->gemm_fwd_s;
	S_linear(g, lin, T, a * (w->head_dim + v) / t, w->kv_lora, 1, k, -1, NULL);
	k->up_fwd_s += k->gemm_fwd_s - up;
	S_linear(g, lin, T, h, a * v / t, 1, k, 1, NULL);
}

/*
 * A fused kernel's share at head dimension d against its share at 128, the
 * width kernel_gpu_init's rates are for (Shah et al. 2024, Figure 5, H100,
 * causal forward at 16k tokens): cuDNN 388 TFLOP/s at d = 64, 539 at 128,
 * 509 at 256, 0.72 and 0.94 of it; FlashAttention-2 299, 335, 298, 0.89
 * either side.  Between, linear in log2 d; beyond, the nearest end.
 */
double kernel_attn_head_share(int sdpa, double d)
{
	double x = log2(d > 0 ? d : 128) - 7, lo = sdpa ? 0.89 : 0.72, hi = sdpa ? 0.89 : 0.94;

	if (x <= -1)
		return lo;
	if (x >= 1)
		return hi;
	return x < 0 ? 1 + x * (1 - lo) : 1 - x * (1 - hi);
}

/*
 * The attention core.  Queries s/c of each sequence against s keys, half
 * of them masked away (causal): a fused kernel skips the masked blocks,
 * 4·b·a·sq·skv·d/2 FLOPs forward and 2.5 times that backward (it
 * recomputes the scores; Dao 2023, §3.1).  Unfused, the scores are two
 * batched GEMMs over every pair, then scale-mask-softmax and dropout each
 * read and write the b·a·sq·skv scores (Megatron's fused softmax kernel:
 * one read, one write; dropout: read, write, a 1-byte mask), and backward
 * the same again.  Fused through PyTorch's SDPA (sh->sdpa), the kernel is
 * FlashAttention-2's, at its own rates (kernel_gpu_init).
 */
/*
 * A fused (flash) attention kernel of fl FLOPs forward: 2.5 times that
 * backward (it recomputes the scores; Dao 2023, §3.1), at the shares of
 * the kernel that runs it: PyTorch's SDPA (sh->sdpa, FlashAttention-2's)
 * or the GPU's best (kernel_gpu_init), times the head width's share
 * (kernel_attn_head_share; latent attention's query and key width d + r),
 * and times L/(L + L0) for the L keys a query tile runs through (the
 * sequence; a ring step's s/c under context parallelism): a tile's loads
 * of Q and writes of O, and the causal mask's diagonal tiles, are paid
 * once a tile and amortised over L/128 key tiles.  L0 = 300 tokens fits the by-length curves of
 * kernel_gpu_init's sources from 2k to 16k within 3 % (at 1k it is
 * about 10 % fast, at 512 about 25 %).
 */
static void S_flash_len(const struct kernel_gpu *g, const struct kernel_shape *sh, double fl,
			double d, double L, double *fwd, double *bwd)
{
	double len = L / (L + KERNEL_ATTN_L0) *
		     kernel_attn_head_share(sh->sdpa || !g->fused_cudnn, d);
	double fe = (sh->sdpa ? g->fa2_fwd_eff : g->attn_fwd_eff) * len;
	double be = (sh->sdpa ? g->fa2_bwd_eff : g->attn_bwd_eff) * len;

	*fwd = fl / (g->peak * fe);
	*bwd = 2.5 * fl / (g->peak * be);
}

static void S_flash(const struct kernel_gpu *g, const struct kernel_shape *sh, double fl,
		    double d, struct kernel_layer *k)
{
	S_flash_len(g, sh, fl, d, sh->attn_len > 0 ? sh->attn_len : sh->seq, &k->attn_fwd_s,
		    &k->attn_bwd_s);
	k->flops_fwd += fl;
}

/*
 * Sliding-window layers (workload_windowed), window_layers of the l: each
 * query against the w = min(window, s) keys ending at itself, a causal
 * band of s·w − w²/2 pairs a sequence (s²/2 when s <= w, as a full
 * layer), through a kernel whose query tiles run over w keys (L = w in
 * S_flash's share).  The layer the model times is the mean of the two
 * kinds, weighted by their counts; without context parallelism (step
 * refuses it with a window), sq = skv = s.  bh = b·a/t·d.
 */
static void S_flash_window(const struct kernel_gpu *g, const struct workload *w,
			   const struct kernel_shape *sh, double bh, double d,
			   struct kernel_layer *k)
{
	double s = sh->seq, wl = fmin(w->window, s), f = w->window_layers / w->layers;
	double pairs = s <= wl ? s * s / 2 : s * wl - wl * wl / 2;
	double full = 4 * bh * s * s / 2, fl = 4 * bh * pairs, fwd, bwd;

	S_flash_len(g, sh, full, d, s, &k->attn_fwd_s, &k->attn_bwd_s);
	S_flash_len(g, sh, fl, d, wl, &fwd, &bwd);
	k->attn_fwd_s = (1 - f) * k->attn_fwd_s + f * fwd;
	k->attn_bwd_s = (1 - f) * k->attn_bwd_s + f * bwd;
	k->flops_fwd += (1 - f) * full + f * fl;
}

/*
 * Latent attention's core: the scores over the queries' and keys' d + r
 * (192 in DeepSeek-V3), their use on values v wide (128), per head.
 * Fused, 2·b·a·sq·skv·(d + r + v)/2 FLOPs forward, causal; unfused, the
 * two GEMMs forward and their four gradients backward, the scores'
 * softmax as for Llama.  The fused kernel runs at the shares of a head
 * dimension 128 kernel (kernel_gpu_init).
 */
static void S_attention_mla(const struct kernel_gpu *g, const struct workload *w,
			    const struct kernel_shape *sh, struct kernel_layer *k)
{
	double a = w->heads / sh->tp, dqk = w->head_dim + w->rope, dv = w->v_head;
	double skv = sh->seq, sq = sh->seq / sh->cp, b = sh->tokens / sq;

	if (sh->fused) {
		S_flash(g, sh, 2 * b * a * sq * skv * (dqk + dv) / 2, dqk, k);
	} else {
		double sc = b * a * sq * skv;

		k->attn_fwd_s = kernel_gemm_s(g, sq, skv, dqk, b * a) +
			kernel_gemm_s(g, sq, dv, skv, b * a) + kernel_mem_s(g, 4 * sc);
		k->attn_bwd_s = kernel_gemm_s(g, sq, dqk, skv, b * a) +
			kernel_gemm_s(g, sq, dv, skv, b * a) + kernel_gemm_s(g, sq, skv, dv, b * a) +
			kernel_gemm_s(g, sq, skv, dqk, b * a) + kernel_mem_s(g, 6 * sc);
		k->flops_fwd += 2 * b * a * sq * skv * (dqk + dv);
	}
}

static void S_attention(const struct kernel_gpu *g, const struct workload *w,
			const struct kernel_shape *sh, struct kernel_layer *k)
{
	double a = w->heads / sh->tp, d = workload_head_dim(w), skv = sh->seq;
	double sq = sh->seq / sh->cp, b = sh->tokens / sq;

	/* Latent attention: scores over d + r, values v wide (d the mean) */
	if (workload_mla(w)) {
		S_attention_mla(g, w, sh, k);
		return;
	}
	if (sh->fused && workload_windowed(w)) {
		S_flash_window(g, w, sh, b * a * d, d, k);
	} else if (sh->fused) {
		S_flash(g, sh, 4 * b * a * sq * skv * d / 2, d, k);
	} else {
		/* unfused, a window masks scores the GEMMs still compute */
		double sc = b * a * sq * skv, drop = w->arch == WL_LLAMA ? 0 : 5 * sc;

		k->attn_fwd_s = kernel_gemm_s(g, sq, skv, d, b * a) + kernel_gemm_s(g, sq, d, skv, b * a)
			+ kernel_mem_s(g, 4 * sc + drop);
		k->attn_bwd_s = 2 * kernel_gemm_s(g, sq, d, skv, b * a) +
			2 * kernel_gemm_s(g, sq, skv, d, b * a) + kernel_mem_s(g, 6 * sc + drop);
		k->flops_fwd += 4 * b * a * sq * skv * d;
	}
}

int kernel_layer(const struct kernel_gpu *g, const struct workload *w,
		 const struct kernel_shape *sh, struct kernel_layer *k, struct errbuf *eb)
{
	double T = sh->tokens, t = sh->tp, h = w->hidden, f = w->ffn, mem;
	double hkv = workload_kv_width(w), hq = workload_q_width(w);
	int llama = w->arch == WL_LLAMA, moe = w->experts > 1;
	struct S_lin lin = { 0, 0 };

	memset(k, 0, sizeof(*k));
	if (sh->fp8 && !(g->fp8_peak > 0))
		return errbuf_set(eb, "FP8 GEMMs on a GPU without an FP8 peak");
	lin.fp8 = sh->fp8;
	lin.wshare = sh->microbatches > 1 ? 1 / sh->microbatches : 1;
	if (!(g->peak > 0) || !(T > 0) || !(t >= 1) || !(sh->cp >= 1))
		return errbuf_set(eb, "cannot time the kernels of this shape");

	/* Attention's GEMMs: QKV (grouped-query: h_q + 2·h_kv columns, h_q =
	 * a·d the queries' width, h unless head_dim says), output. */
	if (workload_mla(w)) {
		S_mla_linears(g, w, sh, &lin, k);
	} else {
		S_linear(g, &lin, T, (hq + 2 * hkv) / t, h, 1, k, 0, &k->wgrad_in_s);
		S_linear(g, &lin, T, h, hq / t, 1, k, 1, NULL);
	}

	/* The MLP: GELU's two matrices, or SwiGLU's gate and up fused, then
	 * down; or the experts. */
	if (!moe) {
		S_linear(g, &lin, T, (llama ? 2 : 1) * f / t, h, 1, k, 2, &k->wgrad_in_s);
		S_linear(g, &lin, T, h, f / t, 1, k, 3, NULL);
	} else {
		S_experts(g, w, sh, &lin, k);
	}
	S_attention(g, w, sh, k);

	mem = S_elementwise_bytes(w, sh, T, t);
	k->mem_fwd_s += kernel_mem_s(g, mem);
	k->mem_bwd_s += 2 * kernel_mem_s(g, mem);
	if (moe) {
		double copies = kernel_mem_s(g, S_moe_copy_bytes(w, sh, T, t));

		k->mem_fwd_s += copies;
		k->mem_bwd_s += copies;
		k->copy_s = copies;
	}

	k->fwd_s = k->gemm_fwd_s + k->attn_fwd_s + k->mem_fwd_s;
	k->bwd_s = k->gemm_bwd_s + k->attn_bwd_s + k->mem_bwd_s;
	return 0;
}

double kernel_output_s(const struct kernel_gpu *g, const struct workload *w,
		       const struct kernel_shape *sh)
{
	double T = sh->tokens, V = w->vocab / sh->tp, h = w->hidden;

	/*
	 * Logits T x V/t x h and their two gradient GEMMs, then Megatron's
	 * vocab-parallel cross-entropy, unfused (its default,
	 * cross_entropy_loss_fusion = False), bytes per logit: forward the
	 * cast to fp32 (read 2, write 4), the max (read 4), subtracting it
	 * (read 4, write 4), exp (8), the sum (4), dividing by it for the
	 * softmax kept for backward (8); backward the gradient scaled in
	 * place (8) and cast back to bf16 (read 4, write 2): 52 bytes
	 * (megatron/core/tensor_parallel/cross_entropy.py).
	 */
	return kernel_gemm_s(g, T, V, h, 1) + kernel_gemm_s(g, T, h, V, 1) +
	       kernel_gemm_s(g, h, V, T, 1) + kernel_mem_s(g, KERNEL_CE_BYTES * T * V);
}

double kernel_adam_bytes(double moment)
{
	/* the fp32 master read and written 8, the two moments read and
	 * written 4·moment, the fp32 gradient read 4, the bf16 weights
	 * written 2 */
	return 14 + 4 * moment;
}

double kernel_adam_s(const struct kernel_gpu *g, double params, double moment)
{
	return kernel_mem_s(g, kernel_adam_bytes(moment) * params);
}
