/*
 * Unit tests of memory per GPU (src/step_memory.c): Korthikanti's
 * activation formula, activations term by term, and a stage's memory.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/*
 * Korthikanti et al. 2022, Table 2, for GPT-3 175B: s = 2048, b = 1,
 * h = 12288, a = 96, t = 8; sbh = 25165824 and 5as/h = 80:
 *   none:            sbh(10 + 3 + 10)  = 23    sbh = 578813952
 *   none + SP:       sbh(34 + 80)/8    = 14.25 sbh = 358612992
 *   selective:       sbh(10 + 3)       = 13    sbh = 327155712
 *   selective + SP:  sbh·34/8          = 4.25  sbh = 106954752
 *   full:            2sbh = 50331648, with SP 2sbh/8 = 6291456
 */
void test_step_activations_korthikanti(void)
{
	DBL_NEAR(step_act_layer(2048, 1, 12288, 96, 8, 0, RC_NONE), 578813952.0, 1e-15);
	DBL_NEAR(step_act_layer(2048, 1, 12288, 96, 8, 1, RC_NONE), 358612992.0, 1e-15);
	DBL_NEAR(step_act_layer(2048, 1, 12288, 96, 8, 0, RC_SELECTIVE), 327155712.0, 1e-15);
	DBL_NEAR(step_act_layer(2048, 1, 12288, 96, 8, 1, RC_SELECTIVE), 106954752.0, 1e-15);
	DBL_NEAR(step_act_layer(2048, 1, 12288, 96, 8, 0, RC_FULL), 50331648.0, 1e-15);
	DBL_NEAR(step_act_layer(2048, 1, 12288, 96, 8, 1, RC_FULL), 6291456.0, 1e-15);
	/* t = 1: 34sbh + 5as²b, the paper's single-GPU count, either way. */
	DBL_NEAR(step_act_layer(2048, 1, 12288, 96, 1, 0, RC_NONE),
		 step_act_layer(2048, 1, 12288, 96, 1, 1, RC_NONE), 1e-15);
	DBL_NEAR(step_act_layer(2048, 1, 12288, 96, 1, 0, RC_NONE), 25165824.0 * 114, 1e-15);
}

/*
 * Activations term by term: for GPT with f = 4h and unfused attention
 * they are Korthikanti's Table 2 exactly; fused attention drops the
 * 5as/h scores and keeps a fp32 log-sum-exp, 4a/t per token.  Llama 3
 * 70B with SP, t = 8, 8192 tokens, fused: (12h + 4h_kv + 6f)/t + 4a/t =
 * 34336 B per token (models/step.md's worked example).
 */
void test_step_activations_by_term(void)
{
	struct workload w = gpt3();
	int t, sp;

	for (t = 1; t <= 8; t *= 2)
		for (sp = 0; sp <= 1; sp++) {
			DBL_NEAR(step_act_layer_w(&w, 2048, 1, t, sp, RC_NONE, 0, 1),
				 step_act_layer(2048, 1, 12288, 96, t, sp, RC_NONE), 1e-12);
			DBL_NEAR(step_act_layer_w(&w, 2048, 1, t, sp, RC_SELECTIVE, 0, 1),
				 step_act_layer(2048, 1, 12288, 96, t, sp, RC_SELECTIVE), 1e-12);
			DBL_NEAR(step_act_layer_w(&w, 2048, 1, t, sp, RC_NONE, 1, 1),
				 step_act_layer(2048, 1, 12288, 96, t, sp, RC_SELECTIVE) +
				 2048.0 * 4 * 96 / t, 1e-12);
			DBL_NEAR(step_act_layer_w(&w, 2048, 1, t, sp, RC_FULL, 1, 1),
				 step_act_layer(2048, 1, 12288, 96, t, sp, RC_FULL), 1e-12);
		}
	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 80; w.hidden = 8192; w.heads = 64; w.kv_heads = 8; w.ffn = 28672;
	w.experts = w.top_k = 1;
	DBL_NEAR(step_act_layer_w(&w, 8192, 1, 8, 1, RC_NONE, 1, 1), 8192.0 * 34336, 1e-12);
}

/*
 * GPT with grouped-query attention keeps K and V at their own width:
 * Nemotron-4 340B (h = 18432, a = 96, 8 key/value heads, h_kv = 1536,
 * f = 4h = 73728), SP with t = 8, fused attention, 4096 tokens: the
 * replicated 10h (QKV's input and mask 3h, the norms' inputs 4h, the
 * MLP's input and mask 3h) and split Q 2h, K and V 4h_kv, the output
 * projection's input 2h, the MLP's 4f, all over t, with the log-sum-exp
 * 4a/t: (14h + 4h_kv + 4·73728 + 4·96)/8 = (258048 + 6144 + 294912 +
 * 384)/8 = 69936 B a token, where K and V at h's width would be 78384.
 */
void test_step_activations_gpt_gqa(void)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.arch = WL_GPT;
	w.layers = 96; w.hidden = 18432; w.heads = 96; w.kv_heads = 8; w.ffn = 73728;
	w.experts = w.top_k = 1;
	DBL_NEAR(step_act_layer_w(&w, 4096, 1, 8, 1, RC_NONE, 1, 1), 4096.0 * 69936, 1e-12);
	/* with every head its own key and value, Korthikanti's 34h/t + 4a/t */
	w.kv_heads = 96;
	DBL_NEAR(step_act_layer_w(&w, 4096, 1, 8, 1, RC_NONE, 1, 1),
		 4096.0 * (34 * 18432 + 4 * 96) / 8, 1e-12);
}

/*
 * Memory of the first stage, GPT-3 175B, t = 8, p = 12, d = 16, ZeRO 1
 * (Megatron's distributed optimizer), full recompute, b = 1, B = 1536:
 * layers 8·(12h² + 13h)/8 = 1812381696 per GPU, embedding 50257·12288/8
 * = 77194752 (norms 4h·8 = 393216 are not split: 8 layers hold
 * 8·(12h²+9h)/8 + 8·4h in all) -> P = 1889576448 + ... worked below.
 */
void test_step_memory(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;
	double h = 12288, L = 8, t = 8, layer_split, P;

	step_config_init(&c);
	c.tp = 8; c.pp = 12; c.dp = 16; c.micro_batch = 1; c.global_batch = 1536; c.seq = 2048;
	c.zero = 1;
	c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	/* attention 4h² + 4h and MLP 8h² + 5h split by t; LayerNorms 4h whole. */
	layer_split = (4 * h * h + 4 * h + 8 * h * h + 5 * h) / t + 4 * h;
	P = L * layer_split + 50257 * h / t;
	DBL_NEAR(r.mem.weights_B, 2 * P, 1e-12);
	DBL_NEAR(r.mem.grads_B, 4 * P, 1e-12);
	DBL_NEAR(r.mem.optim_B, 12 * P / 16, 1e-12);
	/*
	 * 1F1B: the first stage holds p = 12 micro-batches of 8 layers' inputs,
	 * and the layer being recomputed holds what it keeps without
	 * recomputation: sbh(10 + 24/t) (Korthikanti et al. 2022, Table 2,
	 * fused attention) and the log-sum-exp, 4as/t.
	 */
	DBL_NEAR(r.mem.inflight, 12, 0);
	DBL_NEAR(r.mem.act_B, 12 * 8 * 2 * 2048 * h + 2048 * h * (10 + 24 / t) + 4 * 96 * 2048 / t,
		 1e-12);
}

/*
 * The logits and FSDP's root, Llama 3 8B on 8 GPUs under FSDP (ZeRO-3),
 * two sequences of 8192 tokens a micro-batch (torchtitan's run of
 * docs/performance.md, Table 1).  Eager, a logit holds 12 bytes at the
 * top of backward where a fused loss keeps 4: 8 more a logit, 8 · 2 ·
 * 8192 · 128256 = 16810770432 B.  FSDP keeps its root module gathered in
 * bf16: 2 · (2 · 128256 · 4096 + 4096) = 2101354496 B, which DeepSpeed's
 * ZeRO-3 is not charged.  torch.compile a block (--elementwise blocks)
 * keeps the fused time and the eager loss's 12 bytes a logit.
 */
void test_step_memory_logits_root(void)
{
	struct workload w;
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model();
	double act_eager, w_fsdp, w_ds, t_fused;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 128256; w.seq = 8192;
	w.experts = w.top_k = 1;
	step_config_init(&c);
	CHECK(step_logit_bytes(&c) == 4);
	c.eager = 1;
	CHECK(step_logit_bytes(&c) == 12);
	c.dp = 8; c.micro_batch = 2; c.global_batch = 16; c.seq = 8192; c.zero = 3;
	c.framework = FW_FSDP;
	c.recompute = RC_ALT_MATMUL;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	act_eager = r.mem.act_B;
	w_fsdp = r.mem.weights_B;
	c.eager = 0;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(act_eager - r.mem.act_B, 16810770432.0, 1e-12);
	c.framework = FW_DEEPSPEED;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(w_fsdp - r.mem.weights_B, 2101354496.0, 1e-12);
	/* --elementwise blocks: the blocks fused by torch.compile, time and
	 * activations as fused, the loss outside them eager, 12 bytes a logit */
	c.framework = FW_FSDP;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	act_eager = r.mem.act_B;
	t_fused = r.compute_s;
	c.eager = 2;
	CHECK(step_logit_bytes(&c) == 12);
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.mem.act_B - act_eager, 16810770432.0, 1e-12);
	DBL_NEAR(r.compute_s, t_fused, 0);
	/*
	 * DeepSpeed's ZeRO-3 holds two layers gathered, 2 · 218112000
	 * parameters (q and o 4096², k and v 1024 · 4096, the MLP 3 · 14336 ·
	 * 4096, two norms); DeepSpeed of 2021 one module, the widest linear
	 * (14336 · 4096), and its gradient: 2 · (436224000 - 117440512) B less.
	 */
	c.eager = 0;
	c.framework = FW_DEEPSPEED;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	w_ds = r.mem.weights_B;
	c.framework = FW_DEEPSPEED_2021;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(w_ds - r.mem.weights_B, 637566976.0, 1e-12);
}

/*
 * Llama 3 405B as Meta trained it on 8192 GPUs (t = 8 with SP, p = 16,
 * d = 64, 8192 tokens, micro-batch 1, 32 micro-batches; Llama Team 2024,
 * §3.3.2 and Table 4).  A layer keeps (12h + 4h_kv + 6f + 4a)/t =
 * (196608 + 4096 + 319488 + 512)/8 = 65088 B a token, 533200896 B for
 * 8192.  Megatron's interleaved warm-up, 2(p - r - 1) + (v - 1)p chunks
 * and one more: on the second stage (8 layers) at v = 2, 45 chunks of 4
 * layers, 22.5 micro-batches, 95976161280 B; at v = 8 (one layer a chunk,
 * the end stages' spare chunk the embedding or the loss), 141 chunks,
 * 17.625 micro-batches, 75181326336 B.
 */
void test_step_memory_llama3_405b(void)
{
	struct workload w;
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model();

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 126; w.hidden = 16384; w.heads = 128; w.kv_heads = 8; w.ffn = 53248;
	w.vocab = 128256; w.seq = 8192;
	w.experts = w.top_k = 1;
	step_config_init(&c);
	c.tp = 8; c.pp = 16; c.dp = 64; c.global_batch = 2048; c.seq = 8192; c.sp = 1;
	c.zero = 2;
	c.schedule = PP_INTERLEAVED;
	c.virt = 2;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.mem.act_layer_B, 533200896.0, 1e-12);
	DBL_NEAR(r.mem.inflight, 22.5, 0);
	DBL_NEAR(r.mem.act_B, 95976161280.0, 1e-12);
	CHECK(strcmp(r.mem.stage, "middle") == 0);
	c.virt = 8;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.mem.inflight, 17.625, 0);
	DBL_NEAR(r.mem.act_B, 75181326336.0, 1e-12);
	c.virt = 9;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) < 0);
}
