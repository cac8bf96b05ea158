/*
 * Unit tests of workload parameter counts (src/workload.c) against
 * published counts.  The exact counts were added up by hand from the
 * per-layer terms in the comments.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "workload.h"

/* The test functions are found by name (tests/unit/list.h), not declared. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

static struct workload shape(enum workload_arch arch, double l, double h, double heads,
			     double kv, double ffn, double V, double s, int tied)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.arch = arch;
	w.layers = l;
	w.hidden = h;
	w.heads = heads;
	w.kv_heads = kv;
	w.ffn = ffn;
	w.vocab = V;
	w.seq = s;
	w.tied = tied;
	w.published = NAN;
	return w;
}

/*
 * Narayanan et al. 2021, Table 1: the GPT models of the weak-scaling
 * study, V = 51200, s = 2048, with their printed parameter counts in
 * billions (one decimal): the formula must round to them.
 */
void test_megatron_table1(void)
{
	static const struct { double h, l, billions; } t1[] = {
		{ 2304, 24, 1.7 }, { 3072, 30, 3.6 }, { 4096, 36, 7.5 },
		{ 6144, 40, 18.4 }, { 8192, 48, 39.1 }, { 10240, 60, 76.1 },
		{ 12288, 80, 145.6 }, { 16384, 96, 310.1 }, { 20480, 105, 529.6 },
		{ 25600, 128, 1008.0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t1) / sizeof(t1[0]); i++)
		CHECK(fabs(megatron_params(t1[i].l, t1[i].h, 51200, 2048) / 1e9 - t1[i].billions) < 0.05);
	/* 145.6B by hand: 12·80·12288² + 13·80·12288 + (51200 + 2048)·12288. */
	DBL_NEAR(megatron_params(80, 12288, 51200, 2048),
		 144955146240.0 + 12779520.0 + 654311424.0, 1e-15);
}

/*
 * GPT-2 small: 12·12·768² + 13·12·768 + (50257 + 1024)·768
 * = 84934656 + 119808 + 39383808 = 124438272.  The released checkpoint
 * holds 124439808: the final LayerNorm (2·768 = 1536) that Eq. 2 leaves out.
 */
void test_gpt2_124m(void)
{
	struct workload w = shape(WL_GPT, 12, 768, 12, 12, 4 * 768, 50257, 1024, 1);

	DBL_NEAR(workload_params(&w), 124438272.0, 0);
	DBL_NEAR(workload_params(&w), megatron_params(12, 768, 50257, 1024), 1e-15);
	DBL_NEAR(124439808.0 - workload_params(&w), 2 * 768, 0);
}

/*
 * GPT-3 175B (Brown et al. 2020, Table 2.1: 175.0B): 12·96·12288²
 * + 13·96·12288 + (50257 + 2048)·12288 = 173946175488 + 15335424
 * + 642723840 = 174604234752, 0.23 % below the published figure.
 */
void test_gpt3_175b(void)
{
	struct workload w = shape(WL_GPT, 96, 12288, 96, 96, 4 * 12288, 50257, 2048, 1);

	DBL_NEAR(workload_params(&w), 174604234752.0, 0);
	DBL_NEAR(workload_params(&w), 175.0e9, 0.005);
}

/*
 * Llama 2 7B: per layer 4h² (Q, K, V, O) + 3·h·11008 (SwiGLU) + 2h (norms)
 * = 67108864 + 135266304 + 8192 = 202383360; 32 layers = 6476267520;
 * embeddings and output layer 2·32000·4096 = 262144000; final norm 4096:
 * 6738415616, the released checkpoint's count (6.74B).
 */
void test_llama2_7b(void)
{
	struct workload w = shape(WL_LLAMA, 32, 4096, 32, 32, 11008, 32000, 4096, 0);

	DBL_NEAR(workload_params(&w), 6738415616.0, 0);
	CHECK(fabs(workload_params(&w) / 1e9 - 6.74) < 0.005);
}

/*
 * Llama 2 13B: 4·5120² + 3·5120·13824 + 2·5120 = 104857600 + 212336640
 * + 10240 = 317204480 per layer, ×40 = 12688179200; + 2·32000·5120
 * = 327680000; + 5120: 13015864320 (13.0B).
 */
void test_llama2_13b(void)
{
	struct workload w = shape(WL_LLAMA, 40, 5120, 40, 40, 13824, 32000, 4096, 0);

	DBL_NEAR(workload_params(&w), 13015864320.0, 0);
	CHECK(fabs(workload_params(&w) / 1e9 - 13.0) < 0.05);
}

/*
 * Llama 2 70B, grouped-query attention with 8 of 64 heads for K and V
 * (h_kv = 1024): 2·8192² + 2·8192·1024 + 3·8192·28672 + 2·8192
 * = 134217728 + 16777216 + 704643072 + 16384 = 855654400 per layer,
 * ×80 = 68452352000; + 2·32000·8192 = 524288000; + 8192:
 * 68976648192 (69.0B).
 */
void test_llama2_70b(void)
{
	struct workload w = shape(WL_LLAMA, 80, 8192, 64, 8, 28672, 32000, 4096, 0);

	DBL_NEAR(workload_params(&w), 68976648192.0, 0);
	CHECK(fabs(workload_params(&w) / 1e9 - 69.0) < 0.05);
}

/*
 * Llama 3 8B: 2·4096² + 2·4096·1024 + 3·4096·14336 + 2·4096 = 218112000
 * per layer, ×32 = 6979584000; + 2·128256·4096 = 1050673152; + 4096:
 * 8030261248 (8.03B).
 */
void test_llama3_8b(void)
{
	struct workload w = shape(WL_LLAMA, 32, 4096, 32, 8, 14336, 128256, 8192, 0);

	DBL_NEAR(workload_params(&w), 8030261248.0, 0);
}

/* Tying the output layer saves V·h. */
void test_workload_tied(void)
{
	struct workload a = shape(WL_LLAMA, 2, 64, 4, 4, 256, 1000, 128, 0);
	struct workload b = a;

	b.tied = 1;
	DBL_NEAR(workload_params(&a) - workload_params(&b), 1000 * 64, 0);
}

/* The presets in presets/ hold the shapes above. */
void test_workload_presets(void)
{
	static const struct { const char *file; double params, published; } want[] = {
		{ "presets/gpt2-124m.preset", 124438272.0, 124439808.0 },
		{ "presets/gpt3-175b.preset", 174604234752.0, 175e9 },
		{ "presets/llama2-7b.preset", 6738415616.0, 6.74e9 },
		{ "presets/llama2-13b.preset", 13015864320.0, 13.0e9 },
		{ "presets/llama2-70b.preset", 68976648192.0, 69.0e9 },
		{ "presets/llama3-8b.preset", 8030261248.0, 8.03e9 },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct preset p;
		struct workload w;
		struct errbuf eb;

		if (preset_load_file(want[i].file, &p, &eb) < 0) {
			h_report(__FILE__, __LINE__, "%s", eb.msg);
			continue;
		}
		CHECK(workload_from_preset(&p, &w, &eb) == 0);
		DBL_NEAR(workload_params(&w), want[i].params, 0);
		DBL_NEAR(w.published, want[i].published, 1e-15);
		preset_release(&p);
	}
}

void test_workload_from_preset_errors(void)
{
	struct preset_kv kv[] = {
		{ "arch", "llama", 4 }, { "layers", "2", 5 }, { "hidden", "64", 6 },
		{ "heads", "4", 7 }, { "vocab", "1000", 8 }, { "seq", "128", 9 },
	};
	struct preset p = { "x.preset", "x", "workload", "test", kv, 6 };
	struct workload w;
	struct errbuf eb;

	/* Llama needs ffn. */
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	kv[0].value = "gpt";
	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	DBL_NEAR(w.ffn, 256, 0);
	DBL_NEAR(w.kv_heads, 4, 0);
	CHECK(w.tied == 1);
	kv[0].value = "bert";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	kv[0].value = "gpt";
	kv[1].value = "2.5";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:5: layers: '2.5' is not a whole number");
	kv[1].value = "2";
	kv[3].value = "5";       /* does not divide 64 */
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	kv[3].value = "4";
	p.kind = "link";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "preset 'x' is a link, not a workload");
}

void test_workload_parse_count(void)
{
	static const char *bad[] = { "", "7X", "-1", "0", "abc", "7BB", "1e400", "nan" };
	struct errbuf eb;
	double x = 0;
	size_t i;

	CHECK(workload_parse_count("7B", &x, &eb) == 0);
	DBL_NEAR(x, 7e9, 0);
	CHECK(workload_parse_count("6.74B", &x, &eb) == 0);
	DBL_NEAR(x, 6.74e9, 1e-15);
	CHECK(workload_parse_count("124M", &x, &eb) == 0);
	DBL_NEAR(x, 124e6, 0);
	CHECK(workload_parse_count("7.5e9", &x, &eb) == 0);
	DBL_NEAR(x, 7.5e9, 0);
	CHECK(workload_parse_count(" 1.5T ", &x, &eb) == 0);
	DBL_NEAR(x, 1.5e12, 0);
	CHECK(workload_parse_count("124439808", &x, &eb) == 0);
	DBL_NEAR(x, 124439808, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(workload_parse_count(bad[i], &x, &eb) == -1);
	CHECK(workload_parse_count("7X", &x, &eb) == -1);
	STR_EQ(eb.msg, "cannot parse parameter count '7X': unknown suffix 'X'");
}

void test_workload_fmt_count(void)
{
	char buf[48];

	STR_EQ(workload_fmt_count(buf, sizeof(buf), 6738415616.0), "6.738 billion");
	STR_EQ(workload_fmt_count(buf, sizeof(buf), 124439808.0), "124.4 million");
	STR_EQ(workload_fmt_count(buf, sizeof(buf), 1e12), "1 trillion");
}

/*
 * Mixtral 8x7B (Jiang et al. 2024, Table 1): per layer attention
 * 2·4096² + 2·4096·1024 = 41943040, 8 SwiGLU experts of 3·4096·14336 =
 * 176160768, router 4096·8 = 32768, two RMSNorms 8192: 1451229184;
 * × 32 = 46439333888, + 2·32000·4096 + 4096 = 46702792704, the released
 * checkpoint's 46.7B.
 */
void test_workload_mixtral(void)
{
	struct workload w = shape(WL_LLAMA, 32, 4096, 32, 8, 14336, 32000, 32768, 0);
	struct layer_params lp;

	w.experts = 8;
	w.top_k = 2;
	DBL_NEAR(workload_params(&w), 46702792704.0, 0);
	workload_layer_params(&w, &lp);
	DBL_NEAR(lp.matmul, 41943040.0 + 2 * 176160768.0, 0);
}

/* Llama 3 70B and 405B, by the same sums: 70553706496 and 405853388800. */
void test_workload_llama3_large(void)
{
	struct workload w = shape(WL_LLAMA, 80, 8192, 64, 8, 28672, 128256, 8192, 0);
	struct workload x = shape(WL_LLAMA, 126, 16384, 128, 8, 53248, 128256, 8192, 0);

	DBL_NEAR(workload_params(&w), 70553706496.0, 0);
	DBL_NEAR(workload_params(&x), 405853388800.0, 0);
}

/*
 * A head wider than h/a (the head_dim key; Qwen3, config.json): Qwen3-30B-A3B,
 * h 2048, 32 heads of 128 (queries 4096 wide), 4 key/value heads (512).
 * Per layer: q 2048·4096 and o 4096·2048, 8388608 each, k and v
 * 2·2048·512 = 2097152: 18874368; 128 SwiGLU experts of 3·2048·768:
 * 603979776; router 2048·128 = 262144; two RMSNorms 4096: 623120384.
 * × 48 = 29909778432, + 2·151936·2048 + 2048 = 30532110336 (published
 * 30.5B).  Active: 18874368 + 8·4718592 = 56623104 a layer.  Qwen3-235B-A22B
 * by the same sums (h 4096, 64 heads of 128, 4 kv heads, 94 layers, experts
 * of 1536): 235093610496 (published 235B).  Without head_dim nothing moves.
 */
void test_workload_head_dim(void)
{
	struct workload w = shape(WL_LLAMA, 48, 2048, 32, 4, 768, 151936, 40960, 0);
	struct workload x = shape(WL_LLAMA, 94, 4096, 64, 4, 1536, 151936, 40960, 0);
	struct workload m = shape(WL_LLAMA, 32, 4096, 32, 8, 14336, 32000, 32768, 0);
	struct layer_params lp;

	w.experts = x.experts = 128;
	w.top_k = x.top_k = 8;
	w.head_dim = x.head_dim = 128;
	DBL_NEAR(workload_head_dim(&w), 128, 0);
	DBL_NEAR(workload_q_width(&w), 4096, 0);
	DBL_NEAR(workload_kv_width(&w), 512, 0);
	DBL_NEAR(workload_params(&w), 30532110336.0, 0);
	workload_layer_params(&w, &lp);
	DBL_NEAR(lp.attn, 18874368.0, 0);
	DBL_NEAR(lp.matmul, 56623104.0, 0);
	DBL_NEAR(workload_params(&x), 235093610496.0, 0);
	/* absent: h/a, h and h·a_kv/a */
	DBL_NEAR(workload_head_dim(&m), 128, 0);
	DBL_NEAR(workload_q_width(&m), 4096, 0);
	DBL_NEAR(workload_kv_width(&m), 1024, 0);
}
