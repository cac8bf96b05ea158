/*
 * Unit tests of the serving model (src/serve.c, src/serve_ar.c) against
 * values worked by hand from the formulas of models/serve.md.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "serve.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* Llama 3 70B (Llama Team 2024, Table 3). */
static struct workload llama70(void)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	snprintf(w.name, sizeof(w.name), "llama3-70b");
	w.arch = WL_LLAMA;
	w.layers = 80;
	w.hidden = 8192;
	w.heads = 64;
	w.kv_heads = 8;
	w.ffn = 28672;
	w.vocab = 128256;
	w.seq = 8192;
	w.experts = 1;
	w.top_k = 1;
	w.published = NAN;
	return w;
}

/* Eight H100 SXM on NVSwitch: 18 NVLinks of 25 GB/s each way, NVLink SHARP. */
static void h100_node(struct system *s)
{
	memset(s, 0, sizeof(*s));
	s->name = "hgx";
	s->gpus_per_node = 8;
	s->gpu.nvlink_links = 18;
	s->gpu.nvlink_link_Bps = 25e9;
	s->gpu.memory_B = 80e9;
	s->p2p = 1;
	s->nvls = 1;
	s->nvswitch = 1;
	s->intra.link.alpha = 4e-6;
	s->intra.link.beta = 370e9;
	s->intra.beta_line = 450e9;
}

/* The read rate of the kernels on H100: 0.1276 × 450 GB/s = 57.42 GB/s. */
#define B_H100 (0.1276 * 450e9)

void test_serve_kv_bytes(void)
{
	struct workload w = llama70();

	/* 2 · 80 layers · 8 kv heads · 128 head dim · 2 B = 327 680 B */
	DBL_NEAR(serve_kv_per_token(&w, 2), 327680, 1e-12);
	DBL_NEAR(serve_kv_per_token(&w, 1), 163840, 1e-12);
}

void test_serve_kv_handoff(void)
{
	struct workload w = llama70();
	struct link l = { 4e-6, 48e9, 0 };
	struct serve_kv kv;

	/* 1024 tokens: 335 544 320 B; 4 µs + 335544320 / 48e9 = 6.994507 ms */
	serve_kv_handoff(&w, 2, 1024, 2, &l, &kv);
	DBL_NEAR(kv.request_B, 335544320, 1e-12);
	DBL_NEAR(kv.time_s, 4e-6 + 335544320 / 48e9, 1e-12);
	DBL_NEAR(kv.time_s, 6.994507e-3, 1e-6);
	/* two requests a second: 671 088 640 B/s, 1.398 % of the link */
	DBL_NEAR(kv.rate_Bps, 671088640, 1e-12);
	DBL_NEAR(kv.link_share, 0.0139810133, 1e-8);
}

void test_serve_experts_touched(void)
{
	/* 8 experts, top 2: one token reaches 2, two reach 8·(1 − 0.75²) = 3.5 */
	DBL_NEAR(serve_experts_touched(8, 2, 1), 2, 1e-12);
	DBL_NEAR(serve_experts_touched(8, 2, 2), 3.5, 1e-12);
	/* a large batch reaches all of them */
	DBL_NEAR(serve_experts_touched(8, 2, 1000), 8, 1e-9);
	DBL_NEAR(serve_experts_touched(1, 1, 64), 1, 0);
}

void test_serve_ar_kernels(void)
{
	struct system s;
	struct cost_model m;
	struct ar_cost a;
	struct errbuf eb;

	h100_node(&s);
	cost_model_tiers(&m, &s);
	/* one-shot, 8 GPUs, 32 KiB: 5 + 2·2 µs + 7·32768 B / 57.42 GB/s = 12.995 µs */
	CHECK(serve_ar(&m, &s, AR_ONESHOT, 8, 32768, &a, &eb) == 0);
	DBL_NEAR(a.time_s, 9e-6 + 7 * 32768 / B_H100, 1e-12);
	DBL_NEAR(a.time_s, 12.9947e-6, 1e-4);
	/* two-shot, 8 GPUs, 1 MiB: 5 + 3·2 µs + 2·7/8·1048576 / 57.42 GB/s = 42.956 µs */
	CHECK(serve_ar(&m, &s, AR_TWOSHOT, 8, 1048576, &a, &eb) == 0);
	DBL_NEAR(a.time_s, 42.956e-6, 1e-4);
	/* NCCL's symmetric kernels at 4 KiB: the LL one-shot, 5 + 2 + 14·4096/B = 7.9987 µs */
	CHECK(serve_ar(&m, &s, AR_SYMM, 8, 4096, &a, &eb) == 0);
	DBL_NEAR(a.time_s, 7e-6 + 14 * 4096 / B_H100, 1e-12);
	CHECK(!strcmp(a.kernel, "symm-ll"));
	/* at 1 MiB the multimem two-shot: 9 µs + S / B = 27.26 µs */
	CHECK(serve_ar(&m, &s, AR_SYMM, 8, 1048576.0, &a, &eb) == 0);
	CHECK(!strcmp(a.kernel, "symm-mc"));
	DBL_NEAR(a.time_s, 9e-6 + 1048576.0 / B_H100, 1e-12);
	/* at 64 MiB the ring of the tier model, 2·7·(4 µs + 8 MiB / 370 GB/s) = 373.4 µs,
	 * beats the multimem kernel's 1.178 ms: NCCL keeps its regular algorithm */
	CHECK(serve_ar(&m, &s, AR_SYMM, 8, 64 * 1048576.0, &a, &eb) == 0);
	DBL_NEAR(a.time_s, 14 * (4e-6 + 8 * 1048576.0 / 370e9), 1e-9);
	/* one rank costs nothing; 16 ranks span two nodes: no kernel */
	CHECK(serve_ar(&m, &s, AR_ONESHOT, 1, 4096, &a, &eb) == 0);
	DBL_NEAR(a.time_s, 0, 0);
	CHECK(serve_ar(&m, &s, AR_ONESHOT, 16, 4096, &a, &eb) < 0);
}

/* vLLM's choice: one-shot below 256 KiB on 8 GPUs, below 512 KiB on 4, NCCL from 8 MiB. */
void test_serve_ar_vllm_pick(void)
{
	struct system s;
	struct cost_model m;
	struct ar_cost a;
	struct errbuf eb;

	h100_node(&s);
	cost_model_tiers(&m, &s);
	CHECK(serve_ar(&m, &s, AR_VLLM, 8, 128 * 1024.0, &a, &eb) == 0);
	CHECK(!strcmp(a.kernel, "oneshot"));
	CHECK(serve_ar(&m, &s, AR_VLLM, 8, 256 * 1024.0, &a, &eb) == 0);
	CHECK(!strcmp(a.kernel, "twoshot"));
	CHECK(serve_ar(&m, &s, AR_VLLM, 4, 256 * 1024.0, &a, &eb) == 0);
	CHECK(!strcmp(a.kernel, "oneshot"));
	CHECK(serve_ar(&m, &s, AR_VLLM, 2, 4 * 1048576.0, &a, &eb) == 0);
	CHECK(!strcmp(a.kernel, "oneshot"));
	CHECK(serve_ar(&m, &s, AR_VLLM, 8, 8 * 1048576.0, &a, &eb) == 0);
	CHECK(a.used == AR_NCCL);
	/* 3 GPUs: vLLM has no kernel for them */
	CHECK(serve_ar(&m, &s, AR_VLLM, 3, 4096, &a, &eb) == 0);
	CHECK(a.used == AR_NCCL);
}

void test_serve_check(void)
{
	struct workload w = llama70();
	struct serve_params p;
	struct errbuf eb;

	serve_params_init(&p);
	p.tp = 8;
	CHECK(serve_check(&w, &p, &eb) == 0);
	p.tp = 3;
	CHECK(serve_check(&w, &p, &eb) < 0);
	CHECK(strstr(eb.msg, "64 attention heads") != NULL);
	p.tp = 16;   /* 16 > 8 kv heads: each held twice */
	CHECK(serve_check(&w, &p, &eb) == 0);
	p.tp = 8;
	p.ep = 2;
	CHECK(serve_check(&w, &p, &eb) < 0);
	CHECK(strstr(eb.msg, "no experts") != NULL);
	p.ep = 1;
	p.pp = 3;
	CHECK(serve_check(&w, &p, &eb) < 0);
}

/*
 * The decode step of Llama 3 70B on one H100, batch 1: every weight once,
 * 69 503 025 152 parameters (80 layers of 855 654 400 and the untied
 * output layer of 1 050 673 152) in bf16, and the KV cache of 1152 tokens
 * (1024 of prompt, half of 256 of output), 1152 · 327 680 B, read at
 * 0.85 × 3.35 TB/s: 48.949 ms.
 */
void test_serve_decode_roofline(void)
{
	struct workload w = llama70();
	struct serve_params p;
	struct serve_result r;
	struct kernel_gpu g;
	struct system s;
	struct cost_model m;
	struct errbuf eb;

	h100_node(&s);
	cost_model_tiers(&m, &s);
	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 132, 3.35e12, 0.801);
	serve_params_init(&p);
	CHECK(serve_run(&m, &s, &g, &w, &p, &r, &eb) == 0);
	DBL_NEAR(r.decode_weights_B, 2 * 69503025152.0, 1e-12);
	DBL_NEAR(r.decode_kv_read_B, 1152 * 327680.0, 1e-12);
	DBL_NEAR(r.decode_mem_s, (2 * 69503025152.0 + 1152 * 327680.0) / (0.85 * 3.35e12), 1e-12);
	DBL_NEAR(r.decode_mem_s, 48.949e-3, 1e-4);
	/* one GPU: no collective, TPOT is the compute */
	INT_EQ(r.ncoll, 0);
	DBL_NEAR(r.tpot_s, r.decode_compute_s, 0);
	/* 139 GB of weights and 1280 tokens of KV cache do not fit in 80 GB */
	CHECK(!r.fits);
	DBL_NEAR(r.kv_B, 1280 * 327680.0, 1e-12);
}

/*
 * One GPU of eight: 80 layers of (150 994 944 attention + 704 643 072 MLP)/8
 * + 16 384 norms, and the embedding and output layer (2 · 128256 · 8192 +
 * 8192 for the final norm) over 8: 8 820 360 192 parameters, 2 bytes each;
 * the KV cache of 1280 tokens with one of the 8 KV heads: 1280 · 80 · 2 ·
 * 128 · 2 B.
 */
void test_serve_memory_tp8(void)
{
	struct workload w = llama70();
	struct serve_params p;
	struct serve_result r;
	struct kernel_gpu g;
	struct system s;
	struct cost_model m;
	struct errbuf eb;

	h100_node(&s);
	cost_model_tiers(&m, &s);
	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 132, 3.35e12, 0.801);
	serve_params_init(&p);
	p.tp = 8;
	CHECK(serve_run(&m, &s, &g, &w, &p, &r, &eb) == 0);
	DBL_NEAR(r.weights_B, 2 * 8820360192.0, 1e-12);
	DBL_NEAR(r.kv_B, 1280.0 * 80 * 2 * 128 * 2, 1e-12);
	CHECK(r.fits);
	/* two all-reduces a layer in prefill and in decode: four rows */
	INT_EQ(r.ncoll, 4);
	DBL_NEAR(r.coll[3].bytes, 8192 * 2, 0);
	DBL_NEAR(r.coll[3].count, 80, 0);
}

/* Mixtral 8x7B (Jiang et al. 2024, Table 1). */
static struct workload mixtral(void)
{
	struct workload w = llama70();

	snprintf(w.name, sizeof(w.name), "mixtral-8x7b");
	w.layers = 32;
	w.hidden = 4096;
	w.heads = 32;
	w.kv_heads = 8;
	w.ffn = 14336;
	w.vocab = 32000;
	w.experts = 8;
	w.top_k = 2;
	return w;
}

/*
 * Decode, batch 64 over ep 8: each rank dispatches 8 tokens to 2 experts,
 * 16 · 4096 · (1 + 4/128) = 67 584 B in fp8 with scales, and combines
 * 16 · 4096 · 2 = 131 072 B in bf16.  The busiest rank at imbalance 1.3
 * receives 7/8 · 1.3 of it: 5 + 2 µs + 76 876.8 B / 57.42 GB/s = 8.339 µs
 * and 7 µs + 149 094.4 B / 57.42 GB/s = 9.597 µs.
 */
void test_serve_moe_dispatch(void)
{
	struct workload w = mixtral();
	struct serve_params p;
	struct serve_result r;
	struct kernel_gpu g;
	struct system s;
	struct cost_model m;
	struct errbuf eb;
	int i, seen = 0;

	h100_node(&s);
	cost_model_tiers(&m, &s);
	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 132, 3.35e12, 0.801);
	serve_params_init(&p);
	p.tp = 8;
	p.ep = 8;
	p.batch = 64;
	p.imbalance = 1.3;
	CHECK(serve_run(&m, &s, &g, &w, &p, &r, &eb) == 0);
	for (i = 0; i < r.ncoll; i++) {
		const struct serve_coll *c = &r.coll[i];

		if (c->phase != SERVE_DECODE || strcmp(c->dim, "ep"))
			continue;
		if (!strcmp(c->what, "MoE dispatch")) {
			DBL_NEAR(c->bytes, 67584, 1e-12);
			DBL_NEAR(c->time_s, 7e-6 + 67584 * 0.875 * 1.3 / B_H100, 1e-12);
			DBL_NEAR(c->time_s, 8.339e-6, 1e-4);
			seen++;
		} else if (!strcmp(c->what, "MoE combine")) {
			DBL_NEAR(c->bytes, 131072, 1e-12);
			DBL_NEAR(c->time_s, 9.597e-6, 1e-4);
			seen++;
		}
	}
	INT_EQ(seen, 2);
	/* 64 tokens reach all 8 experts: 8 · (1 − 0.75^64) */
	DBL_NEAR(r.experts_touched, 8 * (1 - pow(0.75, 64)), 1e-12);
}

/*
 * Llama 3 70B's shape with half its layers (40) over a sliding window of
 * 512 keys: a windowed layer caches and reads the window's tokens alone.
 * The defaults' batch of 1, 1024 prompt and 256 output tokens: the cache
 * at full length holds (40 · 1280 + 40 · 512)/80 = 896 tokens a layer on
 * the mean, 896 · 327 680 B; decode reads it at the mean context 1152,
 * (40 · 1152 + 40 · 512)/80 = 832 tokens a layer; the hand-off of a
 * 1024-token prompt carries (40 · 1024 + 40 · 512)/80 = 768 tokens a layer.
 */
void test_serve_sliding_window(void)
{
	struct workload w = llama70();
	struct serve_params p;
	struct serve_result r;
	struct serve_kv kv;
	struct kernel_gpu g;
	struct system s;
	struct cost_model m;
	struct link l = { 4e-6, 48e9, 0 };
	struct errbuf eb;

	w.window = 512;
	w.window_layers = 40;
	h100_node(&s);
	cost_model_tiers(&m, &s);
	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 132, 3.35e12, 0.801);
	serve_params_init(&p);
	CHECK(serve_run(&m, &s, &g, &w, &p, &r, &eb) == 0);
	DBL_NEAR(r.kv_B, 896 * 327680.0, 1e-12);
	DBL_NEAR(r.decode_kv_read_B, 832 * 327680.0, 1e-12);
	serve_kv_handoff(&w, 2, 1024, 2, &l, &kv);
	DBL_NEAR(kv.per_token_B, 327680, 0);
	DBL_NEAR(kv.request_B, 768 * 327680.0, 1e-12);
}
