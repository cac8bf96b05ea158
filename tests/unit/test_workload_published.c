/*
 * Unit tests of the workload presets of published training runs' models
 * (the .preset files of presets/): each count added up by hand in the
 * comments from the shape its preset names, checked exactly, and its
 * distance from the published figure.  The formulas are models/workloads.md's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "preset_fix.h"
#include "workload.h"

/* The test functions are found by name (tests/unit/list.h), not declared. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* Load workload NAME from ./presets (first on the search path, so that
 * `like` finds its base there too). */
static int S_load(const char *name, struct workload *w)
{
	struct preset_dirs d;
	struct preset p;
	struct errbuf eb;
	int r;

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, "presets", NULL);
	r = preset_load(&d, name, &p, &eb);
	preset_dirs_release(&d);
	if (r < 0) {
		h_report(__FILE__, __LINE__, "%s", eb.msg);
		return -1;
	}
	return fix_workload_of(&p, w);
}

struct S_want {
	const char *name;
	double params;   /* added up by hand */
	double rel;      /* |params / published - 1| is at most this */
};

static void S_check(const struct S_want *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct workload w;

		if (S_load(t[i].name, &w) < 0)
			continue;
		DBL_NEAR(workload_params(&w), t[i].params, 0);
		CHECK(!isnan(w.published));
		if (fabs(workload_params(&w) / w.published - 1) > t[i].rel)
			h_report(__FILE__, __LINE__, "%s: %.15g against published %.15g",
				 t[i].name, workload_params(&w), w.published);
		else
			h_pass++;
	}
}

/*
 * Llama 3.1 is `like` Llama 3: the same shape (Llama 3.1's config.json
 * differs only in its rope scaling and context), so the counts of
 * test_llama3_8b and test_workload_llama3_large, and the same seq 8192.
 */
void test_workload_llama31(void)
{
	static const struct S_want t[] = {
		{ "llama3.1-8b", 8030261248.0, 0.001 },
		{ "llama3.1-70b", 70553706496.0, 0.001 },
		{ "llama3.1-405b", 405853388800.0, 0.003 },
	};
	struct workload w;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("llama3.1-70b", &w) == 0) {
		STR_EQ(w.name, "llama3.1-70b");
		DBL_NEAR(w.seq, 8192, 0);
		DBL_NEAR(w.kv_heads, 8, 0);
	}
}

/*
 * Qwen3, dense, heads of 128 (config.json), 8 key/value heads (h_kv 1024),
 * V = 151936, untied:
 *   8B: attention 2·4096·4096 + 2·4096·1024 = 41,943,040, SwiGLU
 *   3·4096·12288 = 150,994,944, norms 8,192: 192,946,176 a layer, × 36 =
 *   6,946,062,336 (the model card's 6.95B without embeddings); + 2·151936·4096
 *   = 1,244,659,712 + 4,096: 8,190,726,144, 0.11 % below 8.2B.
 *   14B: 2·5120·5120 + 2·5120·1024 = 62,914,560, 3·5120·17408 = 267,386,880,
 *   10,240: 330,311,680, × 40 = 13,212,467,200; + 2·151936·5120 =
 *   1,555,824,640 + 5,120: 14,768,296,960, 0.21 % below 14.8B.
 *   32B: 64 heads of 128 (h_q 8192): 2·5120·8192 + 2·5120·1024 = 94,371,840,
 *   3·5120·25600 = 393,216,000, 10,240: 487,598,080, × 64 = 31,206,277,120;
 *   + 1,555,829,760: 32,762,106,880, 0.12 % below 32.8B.
 * Qwen2.5, heads of h/a = 128, V = 152064, untied, QKV biases not counted:
 *   7B: 4 kv heads (512): 2·3584² + 2·3584·512 = 29,360,128, 3·3584·18944 =
 *   203,685,888, 7,168: 233,053,184, × 28 = 6,525,489,152; + 2·152064·3584
 *   = 1,089,994,752 + 3,584: 7,615,487,488, 0.07 % above 7.61B.
 *   14B: 62,914,560 + 3·5120·13824 = 212,336,640 + 10,240 = 275,261,440,
 *   × 48 = 13,212,549,120; + 2·152064·5120 = 1,557,135,360 + 5,120:
 *   14,769,689,600, 0.47 % above 14.7B.
 *   32B: 62,914,560 + 3·5120·27648 = 424,673,280 + 10,240 = 487,598,080,
 *   × 64 = 31,206,277,120; + 1,557,140,480: 32,763,417,600, 0.81 % above
 *   the model card's 32.5B.
 *   72B: 2·8192² + 2·8192·1024 = 150,994,944, 3·8192·29568 = 726,663,168,
 *   16,384: 877,674,496, × 80 = 70,213,959,680; + 2·152064·8192 =
 *   2,491,416,576 + 8,192: 72,705,384,448, 0.01 % above 72.7B.
 * Qwen2-72B is `like` Qwen2.5-72B (its config.json holds the same shape):
 *   72,705,384,448, 0.98 % above its model card's 72B.
 */
void test_workload_qwen_dense(void)
{
	static const struct S_want t[] = {
		{ "qwen3-8b", 8190726144.0, 0.002 },
		{ "qwen3-14b", 14768296960.0, 0.003 },
		{ "qwen3-32b", 32762106880.0, 0.002 },
		{ "qwen2.5-7b", 7615487488.0, 0.001 },
		{ "qwen2.5-14b", 14769689600.0, 0.005 },
		{ "qwen2.5-32b", 32763417600.0, 0.009 },
		{ "qwen2.5-72b", 72705384448.0, 0.0002 },
		{ "qwen2-72b", 72705384448.0, 0.0099 },
	};
	struct workload w;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("qwen2-72b", &w) == 0) {
		STR_EQ(w.name, "qwen2-72b");
		DBL_NEAR(w.seq, 4096, 0);
		DBL_NEAR(w.published, 72e9, 0);
	}
}

/*
 * GPT-3 as NeMo configures it (Eq. 2, V = 50257, s = 2048):
 *   5B: 12·24·4096² = 4,831,838,208 + 13·24·4096 = 1,277,952 +
 *   (50257 + 2048)·4096 = 214,241,280: 5,047,357,440, 0.95 % above 5B.
 *   20B: 12·44·6144² = 19,931,332,608 + 13·44·6144 = 3,514,368 +
 *   52305·6144 = 321,361,920: 20,256,208,896, 1.3 % above 20B.
 * MPT and BLOOM as arch gpt (biases and learned positions the models do
 * not have, the final LayerNorm left out):
 *   MPT-7B: 12·32·4096² = 6,442,450,944 + 13·32·4096 = 1,703,936 +
 *   (50432 + 2048)·4096 = 214,958,080: 6,659,112,960, 0.61 % below 6.7B.
 *   MPT-30B: 12·48·7168² = 29,595,009,024 + 13·48·7168 = 4,472,832 +
 *   (50432 + 8192)·7168 = 420,216,832: 30,019,698,688, 0.07 % above 30B.
 *   BLOOM: 12·70·14336² = 172,637,552,640 + 13·70·14336 = 13,045,760 +
 *   (250880 + 2048)·14336 = 3,625,975,808: 176,276,574,208, 0.017 % above
 *   its 176,247,271,424: the positions 2048·14336 = 29,360,128 less the
 *   embedding's and the final LayerNorm, 2·2·14336 = 57,344.
 */
void test_workload_gpt_family(void)
{
	static const struct S_want t[] = {
		{ "gpt3-5b", 5047357440.0, 0.01 },
		{ "gpt3-20b", 20256208896.0, 0.013 },
		{ "mpt-7b", 6659112960.0, 0.007 },
		{ "mpt-30b", 30019698688.0, 0.001 },
		{ "bloom-176b", 176276574208.0, 0.0002 },
	};
	struct workload w;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("bloom-176b", &w) == 0)
		DBL_NEAR(w.published + 2048 * 14336.0 - 4 * 14336.0, 176276574208.0, 0);
}

/*
 * Nemotron-4, arch gpt for its non-gated squared-ReLU MLP, GQA, untied:
 *   15B (h 6144, h_kv 1024, f 24576, V 256000, s 4096): attention
 *   2·6144² + 2·6144·1024 + 6144 + 6144 + 2·1024 = 88,094,720, MLP
 *   2·6144·24576 + 24576 + 6144 = 302,020,608, LayerNorms 24,576:
 *   390,139,904, × 32 = 12,484,476,928; embedding and output layer
 *   2·256000·6144 = 3,145,728,000, positions 4096·6144 = 25,165,824:
 *   15,655,370,752, 0.28 % below the report's 3.2B + 12.5B.
 *   340B (h 18432, h_kv 1536, f 73728): attention 2·18432² + 2·18432·1536
 *   + 39,936 = 736,140,288, MLP 2·18432·73728 + 92,160 = 2,718,001,152,
 *   LayerNorms 73,728: 3,454,215,168, × 96 = 331,604,656,128; +
 *   2·256000·18432 = 9,437,184,000 + 4096·18432 = 75,497,472:
 *   341,117,337,600, 0.33 % above the model card's 340B (0.03 % above the
 *   report's 9.4B + 331.6B).
 * Its matrices (FLOPs) are the model's: 4 attention and 2 MLP matrices.
 */
void test_workload_nemotron4(void)
{
	static const struct S_want t[] = {
		{ "nemotron-4-15b", 15655370752.0, 0.003 },
		{ "nemotron-4-340b", 341117337600.0, 0.004 },
	};
	struct workload w;
	struct layer_params lp;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("nemotron-4-15b", &w) < 0)
		return;
	workload_layer_params(&w, &lp);
	DBL_NEAR(lp.matmul, 2 * 6144.0 * 6144 + 2 * 6144.0 * 1024 + 2 * 6144.0 * 24576, 0);
	DBL_NEAR(workload_matmul_params(&w), 32 * 390070272.0, 0);
}

/*
 * Mixtral 8x22B (config.json, V = 32768): attention 2·6144² +
 * 2·6144·1024 = 88,080,384, 8 SwiGLU experts of 3·6144·16384 =
 * 301,989,888, router 6144·8 = 49,152, RMSNorms 12,288: 2,504,060,928 a
 * layer, × 56 = 140,227,411,968, + 2·32768·6144 + 6144 = 402,659,328:
 * 140,630,071,296, 0.26 % below 141B.  Active, 2 experts:
 * 88,080,384 + 603,979,776 + 61,440 = 692,121,600, × 56 + 402,659,328 =
 * 39,161,468,928 (39B).
 */
void test_workload_mixtral_8x22b(void)
{
	static const struct S_want t[] = { { "mixtral-8x22b", 140630071296.0, 0.003 } };
	struct workload w;

	S_check(t, 1);
	if (S_load("mixtral-8x22b", &w) == 0)
		DBL_NEAR(workload_active_params(&w), 39161468928.0, 0);
}

/*
 * DeepSeek-V2 (h 5120, a 128, d 128, r 64, v 128, c_q 1536, c_kv 512,
 * f 1536, E 160, k 6, S 2, N 1, F 12288, V 102400, l 60):
 *   MLA: q_a 5120·1536 = 7,864,320, q_b 1536·128·192 = 37,748,736, kv_a
 *   5120·576 = 2,949,120, kv_b 512·128·256 = 16,777,216, o 128·128·5120 =
 *   83,886,080: 149,225,472; an expert 3·5120·1536 = 23,592,960; norms and
 *   router 2·5120 + 1536 + 512 + 5120·160 = 831,488
 *   MoE layer 149,225,472 + 162·23,592,960 + 831,488 = 3,972,116,480
 *   dense layer 149,225,472 + 3·5120·12288 + 10,240 + 2,048 = 337,981,440
 *   embeddings 2·102400·5120 + 5120 = 1,048,581,120
 *   Ψ = 337,981,440 + 59·3,972,116,480 + 1,048,581,120 = 235,741,434,880
 *   (0.11 % below 236B); active, 6 + 2 experts: 59·338,800,640 +
 *   337,981,440 + 1,048,581,120 = 21,375,800,320 (21B).
 * DeepSeek-V2-Lite (h 2048, a 16, no c_q, c_kv 512, f 1408, E 64, k 6,
 * S 2, N 1, F 10944, l 27): q_proj 2048·16·192 = 6,291,456, kv_a
 * 2048·576 = 1,179,648, kv_b 512·16·256 = 2,097,152, o 16·128·2048 =
 * 4,194,304: 13,762,560; an expert 3·2048·1408 = 8,650,752; MoE layer
 * 13,762,560 + 66·8,650,752 + 4096 + 512 + 2048·64 = 584,847,872; dense
 * layer 13,762,560 + 3·2048·10944 + 4096 + 512 = 81,007,104; embeddings
 * 2·102400·2048 + 2048 = 419,432,448: Ψ = 15,706,484,224 (15.7B); active
 * 26·83,104,256 + 81,007,104 + 419,432,448 = 2,661,150,208 against the
 * report's 2.4B, which the embedding (209,715,200) nearly closes.
 */
void test_workload_deepseek_v2(void)
{
	static const struct S_want t[] = {
		{ "deepseek-v2", 235741434880.0, 0.0012 },
		{ "deepseek-v2-lite", 15706484224.0, 0.0005 },
	};
	struct workload w;
	struct layer_params lp;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("deepseek-v2", &w) == 0) {
		workload_layer_params(&w, &lp);
		DBL_NEAR(lp.attn, 149225472.0, 0);
		DBL_NEAR(lp.other, 831488.0, 0);
		DBL_NEAR(workload_active_params(&w), 21375800320.0, 0);
	}
	if (S_load("deepseek-v2-lite", &w) == 0) {
		workload_layer_params(&w, &lp);
		DBL_NEAR(lp.attn, 13762560.0, 0);
		DBL_NEAR(workload_active_params(&w), 2661150208.0, 0);
		DBL_NEAR(workload_active_params(&w) - 102400 * 2048.0, 2451435008.0, 0);
	}
}

/*
 * Kimi K2 (moonshotai/Kimi-K2-Instruct config.json): DeepSeek-V3's layer
 * with 64 heads and 384 routed experts, one dense layer first.  By hand:
 * latent attention 7168·1536 + 1536·64·192 + 7168·576 + 512·64·256 +
 * 8192·7168 = 101,122,048 a layer; with its norms 2·7168 and the latent
 * q and kv norms 1536 + 512, 61 layers 6,169,444,352; the dense MLP
 * 3·7168·18432 = 396,361,728; 60 MoE layers of 385 experts of
 * 3·7168·2048 = 44,040,192 and a router 7168·384: 1,017,493,585,920;
 * embedding and output layer 2·163840·7168 = 2,348,810,240, final norm
 * 7168: Ψ = 1,026,408,209,408 (the card's "1 trillion").
 */
void test_workload_kimi_k2(void)
{
	static const struct S_want t[] = {
		{ "kimi-k2", 1026408209408.0, 0.027 },
	};
	struct workload w;
	struct layer_params lp;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("kimi-k2", &w) == 0) {
		workload_layer_params(&w, &lp);
		DBL_NEAR(lp.attn, 101122048.0, 0);
		DBL_NEAR(workload_params(&w), 1026408209408.0, 0);
	}
}

/*
 * GPT-3's smaller sizes (Brown et al. 2020, Table 2.1; V = 50257, s = 2048,
 * tied), Eq. 2: 12lh² + 13lh + (V + s)h, (V + s) = 52305:
 *   125M: 12·12·768² = 84,934,656 + 119,808 + 40,170,240 = 125,224,704
 *   (0.18 % above 125M).
 *   350M: 12·24·1024² = 301,989,888 + 319,488 + 53,560,320 = 355,869,696
 *   (1.7 % above 350M).
 *   760M: 12·24·1536² = 679,477,248 + 479,232 + 80,340,480 = 760,296,960
 *   (0.04 % above 760M).
 *   1.3B: 12·24·2048² = 1,207,959,552 + 638,976 + 107,120,640 =
 *   1,315,719,168 (1.2 % above 1.3B).
 *   2.7B: 12·32·2560² = 2,516,582,400 + 1,064,960 + 133,900,800 =
 *   2,651,548,160 (1.8 % below 2.7B).
 *   6.7B: 12·32·4096² = 6,442,450,944 + 1,703,936 + 214,241,280 =
 *   6,658,396,160 (0.62 % below 6.7B).
 *   13B, h 5140 with 40 heads of 128 (h_q = h_kv = 5120, f = 20560):
 *   attention 4·5140·5120 = 105,267,200 + biases 5120 + 5140 + 10240 =
 *   105,287,700; MLP 2·5140·20560 = 211,356,800 + 20560 + 5140 =
 *   211,382,500; LayerNorms 20,560: 316,690,760 a layer, × 40 =
 *   12,667,630,400, + 52305·5140 = 268,847,700: 12,936,478,100 (0.49 %
 *   below 13.0B).
 */
void test_workload_gpt3_sizes(void)
{
	static const struct S_want t[] = {
		{ "gpt3-125m", 125224704.0, 0.002 },
		{ "gpt3-350m", 355869696.0, 0.017 },
		{ "gpt3-760m", 760296960.0, 0.0004 },
		{ "gpt3-1.3b", 1315719168.0, 0.013 },
		{ "gpt3-2.7b", 2651548160.0, 0.018 },
		{ "gpt3-6.7b", 6658396160.0, 0.0063 },
		{ "gpt3-13b", 12936478100.0, 0.005 },
	};
	struct workload w;
	struct layer_params lp;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("gpt3-6.7b", &w) == 0)
		DBL_NEAR(workload_params(&w), megatron_params(32, 4096, 50257, 2048), 1e-3);
	if (S_load("gpt3-13b", &w) < 0)
		return;
	workload_layer_params(&w, &lp);
	DBL_NEAR(lp.attn, 105287700.0, 0);
	DBL_NEAR(lp.mlp, 211382500.0, 0);
	DBL_NEAR(workload_q_width(&w), 5120, 0);
}

/*
 * OPT (Zhang et al. 2022, Table 1; config.json: V = 50272, s = 2048, f =
 * 4h, tied), Eq. 2 with (V + s) = 52320:
 *   1.3B: 1,207,959,552 + 638,976 + 52320·2048 = 107,151,360:
 *   1,315,749,888 (1.2 % above 1.3B).
 *   6.7B: 6,442,450,944 + 1,703,936 + 52320·4096 = 214,302,720:
 *   6,658,457,600 (0.62 % below 6.7B).
 *   13B: 12·40·5120² = 12,582,912,000 + 13·40·5120 = 2,662,400 +
 *   52320·5120 = 267,878,400: 12,853,452,800 (1.1 % below 13B).
 *   30B: 12·48·7168² = 29,595,009,024 + 4,472,832 + 52320·7168 =
 *   375,029,760: 29,974,511,616 (0.08 % below 30B).
 *   66B: 12·64·9216² = 65,229,815,808 + 13·64·9216 = 7,667,712 +
 *   52320·9216 = 482,181,120: 65,719,664,640 (0.43 % below 66B).
 *   175B: 12·96·12288² = 173,946,175,488 + 15,335,424 + 52320·12288 =
 *   642,908,160: 174,604,419,072 (0.23 % below 175B).
 * The checkpoints hold 4h more: the final LayerNorm and two position rows
 * of the offset (1,315,758,080 for 1.3B).
 */
void test_workload_opt(void)
{
	static const struct S_want t[] = {
		{ "opt-1.3b", 1315749888.0, 0.013 },
		{ "opt-6.7b", 6658457600.0, 0.0063 },
		{ "opt-13b", 12853452800.0, 0.012 },
		{ "opt-30b", 29974511616.0, 0.001 },
		{ "opt-66b", 65719664640.0, 0.0044 },
		{ "opt-175b", 174604419072.0, 0.0023 },
	};
	struct workload w;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("opt-1.3b", &w) == 0)
		DBL_NEAR(workload_params(&w) + 4 * 2048.0, 1315758080.0, 0);
}

/*
 * LLaMA (Touvron et al. 2023, Table 2; V = 32000, untied, no biases,
 * SwiGLU f from the released configuration):
 *   7B and 13B: the shapes of llama2-7b and llama2-13b, 6,738,415,616 and
 *   13,015,864,320 (0.57 % above 6.7B, 0.12 % above 13.0B).
 *   33B: 4·6656² = 177,209,344 + 3·6656·17920 = 357,826,560 + 13,312 =
 *   535,049,216 a layer, × 60 = 32,102,952,960, + 2·32000·6656 + 6656 =
 *   425,990,656: 32,528,943,616 (0.09 % above 32.5B).
 *   65B: 4·8192² = 268,435,456 + 3·8192·22016 = 541,065,216 + 16,384 =
 *   809,517,056, × 80 = 64,761,364,480, + 2·32000·8192 + 8192 =
 *   524,296,192: 65,285,660,672 (0.13 % above 65.2B).
 * llama-30b is `like = llama-33b`, the released name of the same model.
 */
void test_workload_llama1(void)
{
	static const struct S_want t[] = {
		{ "llama-7b", 6738415616.0, 0.006 },
		{ "llama-13b", 13015864320.0, 0.0013 },
		{ "llama-33b", 32528943616.0, 0.001 },
		{ "llama-30b", 32528943616.0, 0.001 },
		{ "llama-65b", 65285660672.0, 0.0014 },
	};
	struct workload w;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("llama-30b", &w) == 0) {
		STR_EQ(w.name, "llama-30b");
		DBL_NEAR(w.seq, 2048, 0);
		DBL_NEAR(w.ffn, 17920, 0);
	}
}

/*
 * Llama-block models from their config.json (untied unless said):
 *   Code Llama 34B (8 kv heads, h_kv 1024, V 32000): 2·8192² + 2·8192·1024 =
 *   150,994,944 + 3·8192·22016 = 541,065,216 + 16,384 = 692,076,544, × 48
 *   = 33,219,674,112, + 2·32000·8192 + 8192 = 524,296,192:
 *   33,743,970,304 (0.75 % below 34B).
 *   Yi-34B (56 heads of 128, 8 kv heads, V 64000): 2·7168² + 2·7168·1024 =
 *   117,440,512 + 3·7168·20480 = 440,401,920 + 14,336 = 557,856,768, × 60
 *   = 33,471,406,080, + 2·64000·7168 + 7168 = 917,511,168:
 *   34,388,917,248 (1.1 % above 34B).
 *   Gemma 7B (16 heads of 256, h_q = h_kv = 4096, tied, V 256000):
 *   4·3072·4096 = 50,331,648 + 3·3072·24576 = 226,492,416 + 6144 =
 *   276,830,208, × 28 = 7,751,245,824 (Table 2's non-embedding
 *   7,751,248,896 less the final norm, 3072), + 256000·3072 + 3072 =
 *   786,435,072: 8,537,680,896, 393,216 = 128·3072 below Table 2's
 *   8,538,074,112 (its vocabulary, 256,128).
 *   DBRX (16 experts, top 4, 8 kv heads, V 100352): attention 2·6144² +
 *   2·6144·1024 = 88,080,384, an expert 3·6144·10752 = 198,180,864,
 *   router 6144·16 = 98,304, norms 12,288: 88,080,384 + 16·198,180,864 +
 *   110,592 = 3,259,084,800, × 40 = 130,363,392,000, + 2·100352·6144 +
 *   6144 = 1,233,131,520: 131,596,523,520 (0.31 % below 132B); active
 *   (88,080,384 + 4·198,180,864 + 110,592) × 40 + 1,233,131,520 =
 *   36,469,708,800 (36B).
 *   Gemma 2 9B (16 heads of 256, h_q 4096, 8 kv heads, h_kv 2048, tied,
 *   V 256000): 2·3584·4096 + 2·3584·2048 = 44,040,192 + 3·3584·14336 =
 *   154,140,672 + 7168 = 198,188,032, × 42 = 8,323,897,344, +
 *   256000·3584 + 3584 = 917,507,584: 9,241,404,928 (its 9.24B; the two
 *   post-norms a layer, 42·2·3584 = 301,056, not counted).
 *   Gemma 2 27B (32 heads of 128, h_q 4096, 16 kv heads, h_kv 2048):
 *   2·4608·4096 + 2·4608·2048 = 56,623,104 + 3·4608·36864 = 509,607,936 +
 *   9216 = 566,240,256, × 46 = 26,047,051,776, + 256000·4608 + 4608 =
 *   1,179,652,608: 27,226,704,384 (0.10 % above 27.2B).
 */
void test_workload_llama_blocks(void)
{
	static const struct S_want t[] = {
		{ "codellama-34b", 33743970304.0, 0.0076 },
		{ "yi-34b", 34388917248.0, 0.012 },
		{ "gemma-7b", 8537680896.0, 0.00005 },
		{ "dbrx", 131596523520.0, 0.0031 },
		{ "gemma2-9b", 9241404928.0, 0.00016 },
		{ "gemma2-27b", 27226704384.0, 0.00099 },
	};
	struct workload w;
	struct layer_params lp;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("gemma-7b", &w) == 0) {
		DBL_NEAR(w.published - workload_params(&w), 128 * 3072.0, 0);
		workload_layer_params(&w, &lp);
		DBL_NEAR(lp.attn, 4 * 3072.0 * 4096, 0);
		CHECK(w.tied);
	}
	if (S_load("dbrx", &w) == 0)
		DBL_NEAR(workload_active_params(&w), 36469708800.0, 0);
	/* Gemma 2: every other layer windowed to 4096 of 8192 keys, a span of
	 * (21·8192 + 21·4096)/42 = 6144 */
	if (S_load("gemma2-9b", &w) == 0) {
		CHECK(w.tied);
		DBL_NEAR(workload_attn_span(&w, 8192), 6144, 0);
	}
}

/*
 * Parallel blocks, arch gpt (biases and learned positions added, the final
 * LayerNorm left out), untied (2Vh):
 *   GPT-NeoX-20B: 12·44·6144² = 19,931,332,608 + 13·44·6144 = 3,514,368 +
 *   2·50432·6144 = 619,708,416 + 2048·6144 = 12,582,912: 20,567,138,304,
 *   0.053 % above the model card's 20,556,201,984.
 *   Pythia 12B: 12·36·5120² = 11,324,620,800 + 13·36·5120 = 2,396,160 +
 *   2·50688·5120 = 519,045,120 + 2048·5120 = 10,485,760: 11,856,547,840,
 *   0.088 % above 11,846,072,320.
 *   GPT-J 6B, one LayerNorm (2h, not 4h): 12·28·4096² = 5,637,144,576 +
 *   11·28·4096 = 1,261,568 + 2·50400·4096 = 412,876,800 + 2048·4096 =
 *   8,388,608: 6,059,671,552, 0.10 % above 6,053,381,344.
 *   Falcon 40B (h_kv 512): attention 2·8192² + 2·8192·512 + 17,408 =
 *   142,623,744, MLP 8·8192² + 40,960 = 536,911,872, LayerNorms 32,768:
 *   679,568,384 × 60 = 40,774,103,040 + 2·65024·8192 = 1,065,353,216 +
 *   2048·8192 = 16,777,216: 41,856,233,472, 4.6 % above its name's 40B.
 *   Falcon 180B (h_kv 512): attention 2·14848² + 2·14848·512 + 30,720 =
 *   456,161,280, MLP 8·14848² + 74,240 = 1,763,779,072, LayerNorms 59,392:
 *   2,219,999,744 × 80 = 177,599,979,520 + 2·65024·14848 = 1,930,952,704 +
 *   2048·14848 = 30,408,704: 179,561,340,928, 0.24 % below 180B.
 */
void test_workload_parallel_blocks(void)
{
	static const struct S_want t[] = {
		{ "gpt-neox-20b", 20567138304.0, 0.0006 },
		{ "pythia-12b", 11856547840.0, 0.0009 },
		{ "gpt-j-6b", 6059671552.0, 0.0011 },
		{ "falcon-40b", 41856233472.0, 0.047 },
		{ "falcon-180b", 179561340928.0, 0.0025 },
	};
	struct workload w;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("gpt-j-6b", &w) == 0)
		CHECK(w.block == WL_PARALLEL_ONE_NORM);
	if (S_load("falcon-40b", &w) == 0)
		CHECK(w.block == WL_PARALLEL && w.kv_heads == 8 && !w.tied);
}

/*
 * Llama-block models of published runs, from their config.json, untied:
 *   Mistral 7B v0.3 (8 kv heads, h_kv 1024, V 32768): 2·4096² + 2·4096·1024
 *   = 41,943,040 + 3·4096·14336 = 176,160,768 + 8,192 = 218,112,000, × 32 =
 *   6,979,584,000, + 2·32768·4096 + 4096 = 268,439,552: 7,248,023,552
 *   (0.71 % below 7.3B).
 *   DeepSeek LLM 7B (32 kv heads, V 102400): 4·4096² = 67,108,864 +
 *   3·4096·11008 = 135,266,304 + 8,192 = 202,383,360, × 30 = 6,071,500,800,
 *   + 2·102400·4096 + 4096 = 838,864,896: 6,910,365,696 (1.3 % below 7B).
 *   DeepSeek LLM 67B (8 kv heads, h_kv 1024): 2·8192² + 2·8192·1024 =
 *   150,994,944 + 3·8192·22016 = 541,065,216 + 16,384 = 692,076,544, × 95
 *   = 65,747,271,680, + 2·102400·8192 + 8192 = 1,677,729,792:
 *   67,425,001,472 (0.63 % above 67B).
 *   OLMo 2 7B (V 100352): 202,383,360 a layer as DeepSeek LLM 7B, × 32 =
 *   6,476,267,520, + 2·100352·4096 + 4096 = 822,087,680: 7,298,355,200
 *   (4.3 % above the 7B of its name).
 *   OLMo 2 13B: 4·5120² = 104,857,600 + 3·5120·13824 = 212,336,640 +
 *   10,240 = 317,204,480, × 40 = 12,688,179,200, + 2·100352·5120 + 5120 =
 *   1,027,609,600: 13,715,788,800, 409,600 below the checkpoint's
 *   13,716,198,400: the QK-norm gains, (5120 + 5120) × 40.
 */
void test_workload_llama_shaped(void)
{
	static const struct S_want t[] = {
		{ "mistral-7b", 7248023552.0, 0.0072 },
		{ "deepseek-llm-7b", 6910365696.0, 0.013 },
		{ "deepseek-llm-67b", 67425001472.0, 0.0064 },
		{ "olmo2-7b", 7298355200.0, 0.043 },
		{ "olmo2-13b", 13715788800.0, 0.00005 },
	};
	struct workload w;
	struct layer_params lp;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("olmo2-13b", &w) == 0)
		DBL_NEAR(w.published - workload_params(&w), 2 * 5120.0 * 40, 0);
	if (S_load("deepseek-llm-67b", &w) < 0)
		return;
	workload_layer_params(&w, &lp);
	DBL_NEAR(lp.attn, 150994944.0, 0);
	DBL_NEAR(lp.mlp, 541065216.0, 0);
	CHECK(!w.tied && w.kv_heads == 8);
}

/*
 * Llama 3.2, tied (the output layer is the embedding, counted once: Vh + h),
 * V 128256, 8 kv heads:
 *   1B (32 heads of 64, h_kv 512): 2·2048² + 2·2048·512 = 10,485,760 +
 *   3·2048·8192 = 50,331,648 + 4,096 = 60,821,504, × 16 = 973,144,064, +
 *   128256·2048 + 2048 = 262,670,336: 1,235,814,400 (0.47 % above 1.23B).
 *   3B (24 heads of 128, h_kv 1024): 2·3072² + 2·3072·1024 = 25,165,824 +
 *   3·3072·8192 = 75,497,472 + 6,144 = 100,669,440, × 28 = 2,818,744,320,
 *   + 128256·3072 + 3072 = 394,005,504: 3,212,749,824 (0.09 % above
 *   3.21B).
 */
void test_workload_llama32(void)
{
	static const struct S_want t[] = {
		{ "llama3.2-1b", 1235814400.0, 0.0048 },
		{ "llama3.2-3b", 3212749824.0, 0.0009 },
	};
	struct workload w;

	S_check(t, sizeof(t) / sizeof(t[0]));
	if (S_load("llama3.2-1b", &w) < 0)
		return;
	CHECK(w.tied);
	DBL_NEAR(workload_embed_params(&w), 128256 * 2048.0 + 2048, 0);
}
