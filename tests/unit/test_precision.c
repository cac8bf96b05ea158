/*
 * FP8 GEMMs and their casts (kernel.h), by hand: a Llama-shaped layer of
 * h = 8192 (64 heads, no grouping: QKV 3h wide), f = 28672, 8192 tokens,
 * t = 1, on an H100 SXM (989.4 dense bf16 TFLOP/s at 0.801 of it, 1,979
 * FP8 TFLOP/s at 0.78, 3.35 TB/s at 0.85), no SM count (no wave
 * quantisation) and every dimension a multiple of the 256 x 128 tile.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "kernel.h"
#include "step.h"

static void S_llama_8192(struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->arch = WL_LLAMA;
	w->layers = 80; w->hidden = 8192; w->heads = 64; w->kv_heads = 64; w->ffn = 28672;
	w->vocab = 128256; w->seq = 8192; w->experts = w->top_k = 1;
}

/*
 * QKV forward, 8192 x 24576 x 8192: 2·8192·24576·8192 FLOPs at the FP8
 * peak's 0.78, then its bf16 output written (2 bytes an element).  Casts:
 * each linear's input (M x K) and output gradient (M x N) and, a quarter
 * of it with m = 4 micro-batches, its weight (K x N), 4 bytes an element:
 * with u = 8192², QKV u + 3u + 3u/4, the output projection u + u + u/4,
 * gate and up u + 7u + 7u/4, down 3.5u + u + 3.5u/4: 22.125u elements.
 */
void test_precision_fp8_linears(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_layer k8, k16;
	struct kernel_shape sh = { 8192, 8192, 1, 1, 0, 1, 1, 1, 1, 4, 0, 0, 0, 0 };
	struct errbuf eb;
	double hbm = 3.35e12 * 0.85, u = 8192.0 * 8192.0;
	double qkv = 2.0 * 8192 * 24576 * 8192;

	S_llama_8192(&w);
	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 0, 3.35e12, 0.801);
	kernel_gpu_set_fp8(&g, 1979e12);
	CHECK(kernel_layer(&g, &w, &sh, &k8, &eb) == 0);
	DBL_NEAR(k8.lin_fwd_s[0], qkv / (1979e12 * 0.78) + 2 * 8192.0 * 24576 / hbm, 1e-12);
	DBL_NEAR(k8.cast_s, 4 * 22.125 * u / hbm, 1e-12);
	/* the same layer in bf16: QKV at the bf16 peak, no casts */
	sh.fp8 = 0;
	CHECK(kernel_layer(&g, &w, &sh, &k16, &eb) == 0);
	DBL_NEAR(k16.lin_fwd_s[0], qkv / (989.4e12 * 0.801) + 2 * 8192.0 * 24576 / hbm, 1e-12);
	CHECK(k16.cast_s == 0);
	/* the attention core stays bf16: the same in both */
	DBL_NEAR(k8.attn_fwd_s, k16.attn_fwd_s, 1e-15);
	DBL_NEAR(k8.attn_bwd_s, k16.attn_bwd_s, 1e-15);
	/* FP8 on a GPU without it is refused */
	sh.fp8 = 1;
	kernel_gpu_set_fp8(&g, 0);
	CHECK(kernel_layer(&g, &w, &sh, &k8, &eb) < 0);
}

/*
 * Megatron's folded experts: 8 experts, top 2, tp 4 with etp 1 and ep 8
 * route T/t tokens a rank: each local expert (one a rank) computes
 * ep·(T/t)·k/E = 8·2048·2/8 = 4096 tokens over the whole f; with etp = t
 * it computes ep·T·k/E = 16384 tokens over f/4: the same FLOPs.  The
 * busiest expert at 1.5 times the mean computes 1.5 times as long.
 */
void test_precision_moe_fold_shape(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_layer k1, kt, ki;
	struct kernel_shape sh = { 8192, 8192, 1, 4, 1, 1, 8, 1, 0, 1, 1, 0, 0, 0 };
	struct errbuf eb;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 32000; w.seq = 8192; w.experts = 8; w.top_k = 2;
	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 0, 0, 0.801);
	CHECK(kernel_layer(&g, &w, &sh, &k1, &eb) == 0);
	/* down projection: 4096 tokens x 4096 x 14336, one local expert */
	DBL_NEAR(k1.lin_fwd_s[3], 2.0 * 4096 * 4096 * 14336 / (989.4e12 * 0.801), 1e-12);
	sh.etp = 4;
	CHECK(kernel_layer(&g, &w, &sh, &kt, &eb) == 0);
	DBL_NEAR(kt.lin_fwd_s[3], 2.0 * 16384 * 4096 * (14336 / 4.0) / (989.4e12 * 0.801), 1e-12);
	DBL_NEAR(k1.flops_fwd, kt.flops_fwd, 1e-12);
	sh.etp = 1;
	sh.capacity = 1.5;
	CHECK(kernel_layer(&g, &w, &sh, &ki, &eb) == 0);
	DBL_NEAR(ki.lin_fwd_s[3], 1.5 * k1.lin_fwd_s[3], 1e-12);
}

/*
 * Recomputation by operator, by hand, Llama 3 8B (h 4096, h_kv 1024,
 * f 14336, 32 heads), t = 1, fused attention, 8192 tokens, bytes a token:
 *   matmul-outputs: input, attention output projection, MLP down 3 x 2h;
 *     QKV 2h + 4h_kv, attention 2h, gate and up 4f; log-sum-exp 4a:
 *     24576 + 77824 + 128 = 102528
 *   alternate-matmul-outputs: input and down 2 x 2h; q 2h, v 2h_kv,
 *     attention 2h, gate 2f; 4a: 16384 + 47104 + 128 = 63616
 * and FP8 keeps the four linears' inputs in one byte: 3h + f less a token.
 */
void test_precision_recompute_levels(void)
{
	struct workload w;
	struct step_act_opts bf = { 0, 0 }, f8 = { 1, 0 };
	double s = 8192, h = 4096, f = 14336;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 128256; w.seq = 8192; w.experts = w.top_k = 1;
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_MATMUL, 1, 1, &bf), s * 102528, 1e-12);
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_ALT_MATMUL, 1, 1, &bf), s * 63616, 1e-12);
	/* the levels lie between selective and full */
	CHECK(step_act_layer_x(&w, s, 1, 1, 0, RC_MATMUL, 1, 1, &bf) <
	      step_act_layer_x(&w, s, 1, 1, 0, RC_SELECTIVE, 1, 1, &bf));
	CHECK(step_act_layer_x(&w, s, 1, 1, 0, RC_ALT_MATMUL, 1, 1, &bf) >
	      step_act_layer_x(&w, s, 1, 1, 0, RC_FULL, 1, 1, &bf));
	/* bf16 is step_act_layer_w's; FP8 keeps QKV's, the output projection's,
	 * the MLP's and down's inputs in one byte: h + h + h + f less a token */
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NONE, 1, 1, &bf),
		 step_act_layer_w(&w, s, 1, 1, 0, RC_NONE, 1, 1), 1e-15);
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NONE, 1, 1, &bf) -
		 step_act_layer_x(&w, s, 1, 1, 0, RC_NONE, 1, 1, &f8), s * (3 * h + f), 1e-12);
}

/*
 * The busiest expert: dropless, it runs the imbalance (1.5 the mean);
 * padded to a capacity of 1.25, every expert runs 1.25 and the busiest
 * drops 1 - 1.25/1.5 = 1/6 of its tokens.
 */
void test_precision_moe_load(void)
{
	struct step_config c;

	step_config_init(&c);
	c.moe_imbalance = 1.5;
	DBL_NEAR(step_moe_load(&c), 1.5, 1e-15);
	CHECK(step_moe_dropped(&c) == 0);
	c.capacity = 1.25;
	c.capacity_given = 1;
	DBL_NEAR(step_moe_load(&c), 1.25, 1e-15);
	DBL_NEAR(step_moe_dropped(&c), 1.0 / 6, 1e-12);
	c.tp = 4;
	CHECK(step_etp(&c) == 4);
	c.etp = 1;
	CHECK(step_etp(&c) == 1);
}
