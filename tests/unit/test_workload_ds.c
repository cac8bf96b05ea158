/*
 * Unit tests of DeepSeek's workload keys (src/workload.c): dense first
 * layers, shared experts and multi-head latent attention, against
 * counts added up by hand from the matrices of DeepSeek-V3's
 * modeling_deepseek.py and its config.json (models/workloads.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "preset_fix.h"
#include "workload.h"

/* The test functions are found by name (tests/unit/list.h), not declared. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

static int S_load(const char *file, struct workload *w)
{
	return fix_workload_file(file, w);
}

/*
 * DeepSeek-V3, h = 7168, a = 128:
 *   latent attention: q_a 7168·1536 = 11,010,048, q_b 1536·128·192 =
 *   37,748,736, kv_a 7168·576 = 4,128,768, kv_b 512·128·256 = 16,777,216,
 *   o 128·128·7168 = 117,440,512: 187,105,280
 *   an expert 3·7168·2048 = 44,040,192
 *   an MoE layer's norms and router 2·7168 + 1536 + 512 + 7168·256 =
 *   1,851,392; with 256 routed and 1 shared expert 11,507,286,016
 *   a dense layer 187,105,280 + 3·7168·18432 + 2·7168 + 2048 = 583,483,392
 *   embedding, output layer, final norm 2·129280·7168 + 7168 = 1,853,365,248
 * 3 dense + 58 MoE layers: 671,026,404,352 (the 671B of the report);
 * active, 8 routed + 1 shared: 3·583,483,392 + 58·585,318,400 +
 * 1,853,365,248 = 37,552,282,624 (the report's 37B).
 */
void test_workload_deepseek_v3(void)
{
	struct workload w, d;
	struct layer_params lp;

	if (S_load("presets/deepseek-v3.preset", &w) < 0)
		return;
	CHECK(workload_mla(&w));
	workload_layer_params(&w, &lp);
	DBL_NEAR(lp.attn, 187105280.0, 0);
	DBL_NEAR(lp.mlp, 44040192.0, 0);
	DBL_NEAR(lp.shared, 44040192.0, 0);
	DBL_NEAR(lp.other, 1851392.0, 0);
	DBL_NEAR(lp.matmul, 187105280.0 + 9 * 44040192.0, 0);
	DBL_NEAR(workload_params(&w), 671026404352.0, 0);
	DBL_NEAR(workload_active_params(&w), 37552282624.0, 0);
	workload_dense_layer(&w, &d);
	workload_layer_params(&d, &lp);
	DBL_NEAR(lp.attn + lp.mlp + lp.other, 583483392.0, 0);
	DBL_NEAR(workload_matmul_params(&w),
		 3 * (187105280.0 + 396361728.0) + 58 * (187105280.0 + 9 * 44040192.0), 0);
	/* Q, K, V: 128·192 + 128·192 + 128·128 = 65,536 = h_q + 2·h_kv;
	 * the core 128·(192 + 128)/2 = 20,480 */
	DBL_NEAR(workload_q_width(&w) + 2 * workload_kv_width(&w), 65536, 0);
	DBL_NEAR(workload_core_width(&w), 20480, 0);
	DBL_NEAR(workload_dense_in(&w, 0, 4), 3, 0);
	DBL_NEAR(workload_dense_in(&w, 2, 4), 1, 0);
	DBL_NEAR(workload_dense_in(&w, 4, 4), 0, 0);
}

/*
 * A small Llama MoE, h = 64, 4 heads of 16, f = 32, V = 1000, 4 layers,
 * E = 4, k = 2: attention 4·64·64 = 16,384, an expert 3·64·32 = 6,144,
 * norms and router 128 + 256 = 384.  With 1 shared expert and the first
 * layer dense at f = 256 (49,152, norms 128): 3·(16,384 + 5·6,144 + 384)
 * + (16,384 + 49,152 + 128) + 2·64,000 + 64 = 142,464 + 65,664 + 128,064 =
 * 336,192 parameters.
 */
void test_workload_dense_shared(void)
{
	struct preset_kv kv[] = {
		{ "arch", "llama", 4 }, { "layers", "4", 5 }, { "hidden", "64", 6 },
		{ "heads", "4", 7 }, { "vocab", "1000", 8 }, { "seq", "128", 9 },
		{ "ffn", "32", 10 }, { "experts", "4", 11 }, { "top_k", "2", 12 },
		{ "shared_experts", "1", 13 }, { "dense_layers", "1", 14 },
		{ "dense_ffn", "256", 15 },
	};
	struct preset p = { "x.preset", "x", "workload", "test", kv, 12 };
	struct workload w;
	struct errbuf eb;

	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	DBL_NEAR(workload_params(&w), 336192, 0);
	/* active: 3·(16,384 + 3·6,144 + 384) + 65,664 + 128,064 */
	DBL_NEAR(workload_active_params(&w), 3 * (16384 + 3 * 6144 + 384) + 65664 + 128064, 0);
	kv[10].value = "4";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:14: dense_layers: 4 is not fewer than the 4 layers");
	kv[10].value = "1";
	p.nkv = 11;              /* dense_layers without dense_ffn */
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:14: dense_layers: dense_layers and dense_ffn go together "
		       "(the first N layers dense, their MLP F wide)");
	p.nkv = 10;
	kv[9].value = "1.5";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:13: shared_experts: '1.5' is not a whole number");
	kv[9].value = "1";
	kv[7].value = "1";
	kv[8].value = "1";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:13: shared_experts: 1 shared experts need routed ones "
		       "(experts >= 2)");
}

void test_workload_mla_errors(void)
{
	struct preset_kv kv[] = {
		{ "arch", "llama", 4 }, { "layers", "2", 5 }, { "hidden", "64", 6 },
		{ "heads", "4", 7 }, { "vocab", "1000", 8 }, { "seq", "128", 9 },
		{ "ffn", "32", 10 }, { "head_dim", "16", 11 }, { "qk_rope_head_dim", "8", 12 },
		{ "v_head_dim", "16", 13 }, { "kv_lora_rank", "32", 14 },
	};
	struct preset p = { "x.preset", "x", "workload", "test", kv, 11 };
	struct workload w;
	struct errbuf eb;

	/* No q_lora_rank: q_proj 64·4·24 = 6,144; kv_a 64·40 = 2,560; kv_b
	 * 32·4·32 = 4,096; o 4·16·64 = 4,096: 16,896. */
	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	{
		struct layer_params lp;

		workload_layer_params(&w, &lp);
		DBL_NEAR(lp.attn, 16896, 0);
		DBL_NEAR(lp.other, 128 + 32, 0);
	}
	p.nkv = 10;              /* no kv_lora_rank */
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:12: qk_rope_head_dim: latent attention needs kv_lora_rank");
	p.nkv = 11;
	kv[9].key = "kv_heads";
	kv[9].value = "2";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:14: kv_lora_rank: latent attention needs qk_rope_head_dim, "
		       "v_head_dim and head_dim (the non-rotary part of a query's head)");
	kv[0].value = "gpt";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:14: kv_lora_rank: latent attention is for arch = llama "
		       "(no biases, RMSNorm)");
}

/* The pairs workload_to_kv gives, written by preset_write and read back,
 * are the same workload. */
void test_workload_write_back(void)
{
	struct workload w, b;

	if (S_load("presets/deepseek-v3.preset", &w) < 0)
		return;
	CHECK(fix_workload_write_back(&w, &b) == 23);
	DBL_NEAR(workload_params(&b), workload_params(&w), 0);
	DBL_NEAR(b.shared, 1, 0);
	DBL_NEAR(b.dense_ffn, 18432, 0);
	DBL_NEAR(b.q_lora, 1536, 0);
	DBL_NEAR(b.v_head, 128, 0);
	DBL_NEAR(b.published, 671e9, 0);
}
