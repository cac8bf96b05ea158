/*
 * Unit tests of the recompute level norm-and-swiglu-inputs (DeepSeek-V3's
 * save list, arXiv:2412.19437, §3.2.3 and §3.3.3) and of BF16 optimizer
 * moments: activation bytes by term, the FLOPs and time it recomputes,
 * against values worked by hand (models/step-teams.md, "Recomputation by
 * operator").
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"
#include "preset_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

static int dsv3(struct workload *w)
{
	return fix_workload_file("presets/deepseek-v3.preset", w);
}

/*
 * DeepSeek-V3 (h 7168, a 128, v 128, r 64, q_lora 1536, kv_lora 512,
 * expert f 2048, 256 experts top 8, 1 shared, dense f 18432), t = 1,
 * fused attention, load 1, etp 1, bytes a token:
 *   norms' inputs: the layer's input and the attention's sum 2 x 2h =
 *     28672, the latents 2·(1536 + 512) = 4096, the rotary key 2·64 = 128
 *   the attention's output a·v = 16384 wide, E5M6 under FP8: 24576
 *   MoE, FP8: the router's logits 4·256 = 1024; 8 routed copies of the
 *     dispatched input 7168 and SwiGLU's inputs 2·2048: 8·11264 = 90112;
 *     the shared expert's SwiGLU inputs 4096; the log-sum-exp 4·128 = 512
 *   33920 + 28672 + 90112 + 512 = 153216
 *   dense, FP8: SwiGLU's inputs in bf16 4·18432 = 73728: 32896 + 98304 +
 *     512 = 131712
 *   MoE, bf16: output 32768, shared 8192, copies 8·(14336 + 8192) =
 *     180224: 33920 + 40960 + 180224 + 512 = 255616
 */
void test_act_norm_swiglu_deepseek(void)
{
	struct workload w, d;
	struct step_act_opts f8 = { 1, 1 }, bf = { 0, 1 };
	double s = 4096;

	if (dsv3(&w) < 0)
		return;
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NORM_SWIGLU, 1, 1, &f8), s * 153216, 1e-15);
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NORM_SWIGLU, 1, 1, &bf), s * 255616, 1e-15);
	workload_dense_layer(&w, &d);
	DBL_NEAR(step_act_layer_x(&d, s, 1, 1, 0, RC_NORM_SWIGLU, 1, 1, &f8), s * 131712, 1e-15);
	/* today's none under FP8: 354944 a token (models/step.md) */
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NONE, 1, 1, &f8), s * 354944, 1e-15);
	/* a busiest expert twice the mean doubles the routed copies' 90112 */
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NORM_SWIGLU, 1, 2, &f8),
		 s * (153216 + 90112), 1e-15);
	/* term by term: unfused, the scores 2·128·4096 in place of 4·128 */
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NORM_SWIGLU, 0, 1, &f8),
		 s * (153216 - 512 + 2 * 128 * 4096.0), 1e-15);
	/* no shared expert: its SwiGLU inputs 4096 less */
	w.shared = 0;
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NORM_SWIGLU, 1, 1, &f8), s * (153216 - 4096),
		 1e-15);
	/* no q latent: its norm input 2·1536 less */
	w.q_lora = 0;
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NORM_SWIGLU, 1, 1, &f8),
		 s * (153216 - 4096 - 3072), 1e-15);
}

/*
 * Without latent attention (Llama 3 8B: h 4096, h_q 4096, h_kv 1024,
 * f 14336, 32 heads), bf16: the norms' inputs 4h = 16384; Q, K, V
 * 2·4096 + 4·1024 = 12288; the attention's output 8192; SwiGLU's inputs
 * 4f = 57344; 4a = 128: 94336 a token.  With sequence parallelism over
 * t = 4 every term is split: 94336/4 less the log-sum-exp's 128·3/4.
 */
void test_act_norm_swiglu_llama(void)
{
	struct workload w;
	struct step_act_opts bf = { 0, 0 };
	double s = 8192;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 128256; w.seq = 8192; w.experts = w.top_k = 1;
	DBL_NEAR(step_act_layer_x(&w, s, 1, 1, 0, RC_NORM_SWIGLU, 1, 1, &bf), s * 94336, 1e-15);
	DBL_NEAR(step_act_layer_x(&w, s, 1, 4, 1, RC_NORM_SWIGLU, 1, 1, &bf), s * 94336 / 4,
		 1e-15);
	/* between matmul-outputs (102528) and alternate-matmul-outputs (63616) */
	CHECK(step_act_layer_x(&w, s, 1, 1, 0, RC_NORM_SWIGLU, 1, 1, &bf) <
	      step_act_layer_x(&w, s, 1, 1, 0, RC_MATMUL, 1, 1, &bf));
}

/* GPT (LayerNorm, GELU, dropout) has another save list: refused. */
void test_norm_swiglu_refuses_gpt(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct errbuf eb;

	step_config_init(&c);
	c.seq = 2048;
	c.recompute = RC_NORM_SWIGLU;
	CHECK(step_check(&w, &c, &eb) == -1);
	STR_EQ(eb.msg, "--recompute norm-and-swiglu-inputs keeps RMSNorm's and SwiGLU's inputs; "
		       "the model is GPT (LayerNorm, GELU): choose another level");
	STR_EQ(recompute_name(RC_NORM_SWIGLU), "norm-and-swiglu-inputs");
}

/*
 * The recomputed FLOPs: the up projections, q_b 1536·128·192 =
 * 37,748,736 and kv_b 512·128·256 = 16,777,216, 54,525,952 parameters a
 * layer, 2 FLOPs a token each, on all 61 layers:
 * 2·61·54,525,952 = 6,652,166,144 a token.  The time: each layer's
 * backward runs its memory-bound forward again, less the dispatcher's
 * copies, and the two up projections' forward GEMMs: a stage of 4 MoE
 * layers (the slowest here) takes 4 times that more a micro-batch.
 */
void test_norm_swiglu_recompute_cost(void)
{
	struct workload w;
	struct step_config c;
	struct kernel_gpu g;
	struct step_compute cs;
	struct step_result r0, r1;
	struct kernel_layer k;
	struct errbuf eb;
	struct cost_model rm = ring_model();
	struct kernel_shape sh = { .tokens = 4096, .seq = 4096, .cp = 1, .tp = 1, .fused = 1,
				   .ep = 8, .capacity = 1, .microbatches = 8, .etp = 1 };

	if (dsv3(&w) < 0)
		return;
	cs = a100_kernels(&g);
	ds_stages(&c, 64);
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r0, &eb) == 0);
	c.recompute = RC_NORM_SWIGLU;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r1, &eb) == 0);
	DBL_NEAR((r1.flops_hw - r0.flops_hw) / r1.tokens, 6652166144.0, 1e-15);
	DBL_NEAR(r1.flops_model, r0.flops_model, 1e-15);
	CHECK(kernel_layer(&g, &w, &sh, &k, &eb) == 0);
	CHECK(k.up_fwd_s > 0 && k.copy_s > 0 && k.up_fwd_s < k.gemm_fwd_s);
	DBL_NEAR(r1.mb_compute_best_s - r0.mb_compute_best_s,
		 4 * (k.mem_fwd_s - k.copy_s + k.up_fwd_s), 1e-12);
	/* the middle stage's activations: 4 layers of 153216 (FP8) or 255616
	 * bytes a token (bf16 here) times the micro-batches in flight */
	DBL_NEAR(r1.mem.act_layer_B, 4096.0 * 255616, 1e-15);
}

/*
 * BF16 moments (DeepSeek-V3, §3.3.3): the optimizer's state is the fp32
 * master 4 + 2·2 = 8 bytes a parameter, 8/12 of fp32 moments'; Adam's
 * update moves 14 + 4·2 = 22 bytes a parameter in place of 30; the
 * housekeeping's gradient norm and clipping, 12 bytes, stays.
 */
void test_optimizer_moments_bf16(void)
{
	struct workload w;
	struct step_config c;
	struct kernel_gpu g;
	struct step_compute cs;
	struct step_result r0, r1;
	struct errbuf eb;
	struct cost_model rm = ring_model();

	if (dsv3(&w) < 0)
		return;
	cs = a100_kernels(&g);
	step_config_init(&c);
	c.pp = 16; c.dp = 8; c.ep = 8; c.micro_batch = 1; c.global_batch = 64; c.seq = 4096;
	c.layers_first = 4; c.layers_last = 1; c.zero = 1;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r0, &eb) == 0);
	step_config_moments(&c, 2);
	DBL_NEAR(c.optim_bytes, 8, 0);
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r1, &eb) == 0);
	DBL_NEAR(r1.mem.optim_B, r0.mem.optim_B * 8 / 12, 1e-15);
	DBL_NEAR(r1.mem.weights_B + r1.mem.grads_B + r1.mem.act_B,
		 r0.mem.weights_B + r0.mem.grads_B + r0.mem.act_B, 1e-15);
	DBL_NEAR(kernel_adam_bytes(2), 22, 0);
	DBL_NEAR(kernel_adam_bytes(4), 30, 0);
	DBL_NEAR(r1.optim_s, r0.optim_s * 22 / 30, 1e-12);
}

/*
 * DualPipe's bubble, (p/2 - 1)(F&B + B' - 3W), with free communication:
 * a pair is one micro-batch's compute K, B' its backward B.  The forward
 * a backward recomputes, R, is in B and K but not in W, the weight
 * gradients' half of the backward without it: from none to
 * norm-and-swiglu-inputs the bubble grows by (p/2 - 1)·2R, R = 4 layers'
 * recomputed forward on the slowest (middle) stage.
 */
void test_norm_swiglu_dualpipe_bubble(void)
{
	struct workload w;
	struct step_config c;
	struct kernel_gpu g;
	struct step_compute cs;
	struct step_result r0, r1;
	struct kernel_layer k;
	struct errbuf eb;
	struct cost_model fm = free_model();
	struct kernel_shape sh = { .tokens = 4096, .seq = 4096, .cp = 1, .tp = 1, .fused = 1,
				   .ep = 8, .capacity = 1, .microbatches = 32, .etp = 1 };

	if (dsv3(&w) < 0)
		return;
	cs = a100_kernels(&g);
	ds_stages(&c, 256);
	c.schedule = PP_DUALPIPE;
	CHECK(step_run(&w, &c, &cs, &fm, STEP_BAND_NONE, &r0, &eb) == 0);
	c.recompute = RC_NORM_SWIGLU;
	CHECK(step_run(&w, &c, &cs, &fm, STEP_BAND_NONE, &r1, &eb) == 0);
	CHECK(kernel_layer(&g, &w, &sh, &k, &eb) == 0);
	DBL_NEAR(r1.bubble_best_s - r0.bubble_best_s,
		 7 * 2 * 4 * (k.mem_fwd_s - k.copy_s + k.up_fwd_s), 1e-9);
}
