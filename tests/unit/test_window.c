/*
 * Unit tests of sliding-window attention (the workload keys window and
 * window_layers, src/workload.c; the windowed layers' attention core,
 * src/kernel.c; their FLOPs, src/step_shape.c; the refusal of context
 * parallelism), against values worked by hand
 * (models/step.md, "Attention"; models/workloads.md).
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "kernel.h"
#include "preset_fix.h"
#include "step_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/*
 * gpt-oss-120b (presets/gpt-oss-120b.preset), h = 2880, 64 heads of 64,
 * 8 key/value heads, 128 experts of 3·2880·2880 = 24,883,200, top 4:
 * attention 2·2880·4096 + 2·2880·512 = 26,542,080, norms and router
 * 2·2880 + 2880·128 = 374,400, a layer 26,542,080 + 128·24,883,200 +
 * 374,400 = 3,211,966,080; 36 layers and 2·201,088·2880 + 2880 of
 * embedding, output layer and final norm: 116,789,048,640 (the card's
 * 116.8B).  Active, 4 experts: 36·(26,542,080 + 99,532,800 + 374,400)
 * + 1,158,269,760 = 5,710,443,840 with the embedding, 5.13B without it
 * (the card's 5.1B).  18 of the 36 layers windowed to 128 keys: at
 * 4096 tokens a query spans (18·4096 + 18·128)/36 = 2112 keys on the
 * mean.
 */
void test_window_gpt_oss(void)
{
	struct workload w;

	if (fix_workload_file("presets/gpt-oss-120b.preset", &w) < 0)
		return;
	CHECK(workload_windowed(&w));
	DBL_NEAR(w.window, 128, 0);
	DBL_NEAR(w.window_layers, 18, 0);
	DBL_NEAR(workload_params(&w), 116789048640.0, 0);
	DBL_NEAR(workload_active_params(&w), 5710443840.0, 0);
	DBL_NEAR(workload_active_params(&w) - 201088.0 * 2880, 5131310400.0, 0);
	DBL_NEAR(workload_attn_span(&w, 4096), 2112, 0);
	/* A window as long as the sequence is no window; a shorter sequence
	 * than the window spans itself. */
	DBL_NEAR(workload_attn_span(&w, 128), 128, 0);
	DBL_NEAR(workload_attn_span(&w, 100), 100, 0);
	if (fix_workload_file("presets/gpt-oss-20b.preset", &w) < 0)
		return;
	/* 24·(26,542,080 + 32·24,883,200 + 2·2880 + 2880·32) + 1,158,269,760 */
	DBL_NEAR(workload_params(&w), 20907927360.0, 0);
	DBL_NEAR(w.window_layers, 12, 0);
}

/* The keys read, their defaults, their refusals, and the pairs written
 * back read as the same workload. */
void test_window_keys(void)
{
	struct preset_kv kv[] = {
		{ "arch", "llama", 4 }, { "layers", "4", 5 }, { "hidden", "64", 6 },
		{ "heads", "4", 7 }, { "vocab", "1000", 8 }, { "seq", "512", 9 },
		{ "ffn", "128", 10 }, { "window", "64", 11 }, { "window_layers", "2", 12 },
	};
	struct preset p = { "x.preset", "x", "workload", "test", kv, 9 };
	struct workload w, b;
	struct errbuf eb;

	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	DBL_NEAR(w.window, 64, 0);
	DBL_NEAR(w.window_layers, 2, 0);
	/* (2·512 + 2·64)/4 = 288 */
	DBL_NEAR(workload_attn_span(&w, 512), 288, 0);
	p.nkv = 8;              /* window alone: every layer */
	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	DBL_NEAR(w.window_layers, 4, 0);
	DBL_NEAR(workload_attn_span(&w, 512), 64, 0);
	p.nkv = 7;              /* neither: no window */
	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	CHECK(!workload_windowed(&w));
	DBL_NEAR(workload_attn_span(&w, 512), 512, 0);
	p.nkv = 9;
	kv[8].value = "5";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:12: window_layers: 5 is more than the 4 layers");
	kv[8].value = "2";
	kv[7].value = "0";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:11: window: parameter count '0' must be positive");
	kv[7].value = "64.5";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:11: window: '64.5' is not a whole number");
	kv[7] = kv[8];          /* window_layers without window */
	p.nkv = 8;
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:12: window_layers: needs window (the keys a query spans in "
		       "those layers)");
	kv[7] = (struct preset_kv){ "window", "64", 11 };
	p.nkv = 9;
	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	CHECK(fix_workload_write_back(&w, &b) > 0);
	DBL_NEAR(b.window, 64, 0);
	DBL_NEAR(b.window_layers, 2, 0);
}

/* Latent attention with a window is refused. */
void test_window_mla_refused(void)
{
	struct preset_kv kv[] = {
		{ "arch", "llama", 4 }, { "layers", "2", 5 }, { "hidden", "64", 6 },
		{ "heads", "4", 7 }, { "vocab", "1000", 8 }, { "seq", "128", 9 },
		{ "ffn", "32", 10 }, { "head_dim", "16", 11 }, { "qk_rope_head_dim", "8", 12 },
		{ "v_head_dim", "16", 13 }, { "kv_lora_rank", "32", 14 }, { "window", "8", 15 },
	};
	struct preset p = { "x.preset", "x", "workload", "test", kv, 12 };
	struct workload w;
	struct errbuf eb;

	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:15: window: sliding-window latent attention is not modelled");
}

/* A small Llama with 4 heads of 64 (h = 256), 8 layers, on the A100 of
 * the kernel model (FlashAttention-2's 0.62 and 0.52 of 312 TFLOP/s on
 * long keys). */
static void S_small(struct workload *w, double window, double layers)
{
	memset(w, 0, sizeof(*w));
	w->arch = WL_LLAMA;
	w->layers = 8; w->hidden = 256; w->heads = 4; w->kv_heads = 4; w->ffn = 512;
	w->vocab = 1000; w->seq = 4096; w->experts = w->top_k = 1;
	w->window = window;
	w->window_layers = layers;
}

/*
 * The attention core of one sequence of 4096 tokens, b·a·d = 256: a full
 * layer 4·256·4096²/2 = 8.5899e9 FLOPs at 0.62·4096/4396 of the peak
 * forward (0.52 backward, 2.5 times the FLOPs); a layer windowed to 128
 * keys 4·256·(4096·128 − 128²/2) = 5.2848e8 FLOPs at 0.62·128/428.  Half
 * the layers windowed: the mean of the two.  A window as long as the
 * sequence changes nothing.
 */
void test_window_kernel_by_hand(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_layer full, half, all, same;
	struct kernel_shape sh = { .tokens = 4096, .seq = 4096, .cp = 1, .tp = 1, .fused = 1,
				   .ep = 1, .capacity = 1, .microbatches = 1, .etp = 1 };
	struct errbuf eb;
	double hd = kernel_attn_head_share(1, 64), P = 312e12;   /* FlashAttention-2's */
	double ff = 4.0 * 256 * 4096 * 4096 / 2, fw = 4.0 * 256 * (4096.0 * 128 - 128.0 * 128 / 2);
	double tf = ff / (P * 0.62 * hd * 4096 / 4396), tw = fw / (P * 0.62 * hd * 128 / 428);
	double bf = 2.5 * ff / (P * 0.52 * hd * 4096 / 4396);
	double bw = 2.5 * fw / (P * 0.52 * hd * 128 / 428);

	(void)a100_kernels(&g);
	S_small(&w, 0, 0);
	CHECK(kernel_layer(&g, &w, &sh, &full, &eb) == 0);
	DBL_NEAR(full.attn_fwd_s, tf, 1e-12);
	S_small(&w, 128, 4);
	CHECK(kernel_layer(&g, &w, &sh, &half, &eb) == 0);
	DBL_NEAR(half.attn_fwd_s, (tf + tw) / 2, 1e-12);
	DBL_NEAR(half.attn_bwd_s, (bf + bw) / 2, 1e-12);
	DBL_NEAR(half.flops_fwd - full.flops_fwd, (fw - ff) / 2, 1e-9);
	DBL_NEAR(half.gemm_fwd_s, full.gemm_fwd_s, 0);
	S_small(&w, 128, 8);
	CHECK(kernel_layer(&g, &w, &sh, &all, &eb) == 0);
	DBL_NEAR(all.attn_fwd_s, tw, 1e-12);
	S_small(&w, 4096, 8);
	CHECK(kernel_layer(&g, &w, &sh, &same, &eb) == 0);
	DBL_NEAR(same.attn_fwd_s, full.attn_fwd_s, 1e-15);
	DBL_NEAR(same.attn_bwd_s, full.attn_bwd_s, 1e-15);
	DBL_NEAR(same.flops_fwd, full.flops_fwd, 1e-15);
	/* Unfused, the scores of every pair are computed and masked: as full. */
	sh.fused = 0;
	CHECK(kernel_layer(&g, &w, &sh, &same, &eb) == 0);
	S_small(&w, 0, 0);
	CHECK(kernel_layer(&g, &w, &sh, &full, &eb) == 0);
	DBL_NEAR(same.attn_fwd_s, full.attn_fwd_s, 0);
}

/*
 * The step's FLOPs count a windowed layer's queries over its window: the
 * small Llama, 4 of 8 layers windowed to 128 keys, 8 sequences of 4096:
 * the attention term 12·T·l·h_q·span drops by 12·T·8·256·(4096 − 2112).
 * Context parallelism is refused with a window.
 */
void test_window_step(void)
{
	struct workload w, n;
	struct step_config c;
	struct step_compute cs = { 312e12, 0.5, 0, NULL, 0, 0 };
	struct step_result r, r0;
	struct errbuf eb;
	struct cost_model rm = ring_model();

	S_small(&w, 128, 4);
	S_small(&n, 0, 0);
	strcpy(w.name, "small");
	step_config_init(&c);
	c.dp = 8; c.global_batch = 8; c.seq = 4096;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	CHECK(step_run(&n, &c, &cs, &rm, STEP_BAND_NONE, &r0, &eb) == 0);
	DBL_NEAR(r0.flops_model - r.flops_model, 12.0 * r.tokens * 8 * 256 * (4096 - 2112), 1e-12);
	c.recompute = RC_SELECTIVE;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.flops_hw - r.flops_model, 4.0 * r.tokens * 8 * 256 * 2112, 1e-12);
	c.dp = 4; c.cp = 2; c.global_batch = 4;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == -1);
	STR_EQ(eb.msg, "context parallelism with sliding-window attention is not modelled "
		       "(small: 4 of 8 layers attend over 128 keys); use cp 1");
}
