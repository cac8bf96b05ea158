/*
 * Unit tests of the training step (src/step.c): Megatron's per-layer
 * volumes, Korthikanti's activation formula, the ZeRO rows, placement,
 * FLOPs and the step time, each against a value worked out by hand.
 */
#include <math.h>
#include <string.h>

#include <stdlib.h>

#include "harness.h"
#include "cost.h"
#include "nccl_cost.h"
#include "preset.h"
#include "step.h"
#include "system.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* A ring on one link of 300 GB/s and no latency, priced by the cost core. */
static struct link test_link = { 0, 300e9, 0 };
/* A link where latency dominates: 1 ms a step, infinite bandwidth. */
static struct link ms_link = { 1e-3, INFINITY, 0 };

static struct cost_model ring_model(void)
{
	struct cost_model m;

	cost_model_link(&m, &test_link);
	return m;
}

/* The A100 SXM of the kernel model (312 TFLOP/s, 108 SMs, 2.039 TB/s, 0.859 of
 * the peak for a large GEMM), and a step timed by kernel on it. */
static struct step_compute a100_kernels(struct kernel_gpu *g)
{
	kernel_gpu_init(g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	return (struct step_compute){ 312e12, 0.5, 0, g };
}

static struct cost_model ms_model(void)
{
	struct cost_model m;

	cost_model_link(&m, &ms_link);
	return m;
}

static struct workload gpt3(void)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.arch = WL_GPT;
	w.layers = 96;
	w.hidden = 12288;
	w.heads = w.kv_heads = 96;
	w.ffn = 4 * 12288;
	w.vocab = 50257;
	w.seq = 2048;
	w.tied = 1;
	w.experts = w.top_k = 1;
	return w;
}

static const struct step_row *find(const struct step_result *r, enum step_dim d,
				   enum step_phase ph, enum coll_op op)
{
	int i;

	for (i = 0; i < r->nrows; i++)
		if (r->rows[i].dim == d && r->rows[i].phase == ph && r->rows[i].op == op)
			return &r->rows[i];
	return NULL;
}

/*
 * GPT-3 175B, t = 8, p = 12, d = 16, b = 4, s = 2048, α = 0, β = 300 GB/s.
 * One all-reduce of b·s·h·2 = 4·2048·12288·2 = 201326592 B on 8 ranks:
 * 2·7/8 · 201326592 / 300e9 = 1.17440512 ms; 2 per layer, 96/12 = 8
 * layers: 16 per micro-batch forward, 18.79048192 ms.  llm-analysis's
 * Megatron example prints latency_fwd_tp_comm: 18.79 ms for this setting.
 */
void test_step_tp_gpt3(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;
	const struct step_row *row;

	step_config_init(&c);
	c.tp = 8; c.pp = 12; c.dp = 16; c.micro_batch = 4; c.seq = 2048;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_TP, PH_FORWARD, OP_ALLREDUCE);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->count, 16, 0);
	DBL_NEAR(row->bytes, 201326592.0, 0);
	DBL_NEAR(row->time_s, 0.01879048192, 1e-12);
	DBL_NEAR(find(&r, DIM_TP, PH_BACKWARD, OP_ALLREDUCE)->count, 16, 0);
	DBL_NEAR(r.layers, 8, 0);
	DBL_NEAR(r.microbatches, 1, 0);
	CHECK(isnan(r.step_s));   /* no compute: no step time */

	/* Sequence parallelism: all-gather + reduce-scatter of the same buffer. */
	c.sp = 1;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(find(&r, DIM_TP, PH_FORWARD, OP_ALLGATHER)->time_s
		 + find(&r, DIM_TP, PH_FORWARD, OP_REDUCESCATTER)->time_s, 0.01879048192, 1e-12);
	CHECK(find(&r, DIM_TP, PH_FORWARD, OP_ALLREDUCE) == NULL);

	/* Full recomputation repeats the forward all-reduces in backward. */
	c.sp = 0;
	c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(find(&r, DIM_TP, PH_BACKWARD, OP_ALLREDUCE)->count, 32, 0);
}

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
 * ZeRO-3 gathers one layer at a time: for l layers and m micro-batches,
 * 2lm all-gathers and lm reduce-scatters of 1/l of the model each.  On a
 * link of 1 ms per step and no bandwidth term, a ring all-gather or
 * reduce-scatter on 1024 ranks takes 1023 ms: 80 layers and 1
 * micro-batch give 240 x 1.023 s, where one whole-model collective of
 * each kind would count 3 x 1.023 s.
 */
void test_step_zero3_per_layer(void)
{
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;

	memset(&r, 0, sizeof(r));
	CHECK(step_dp_rows(70e9, 80, 1, 3, 1024, 8, 4, 2, &pr, &r, &eb) == 0);
	INT_EQ(r.nrows, 3);
	DBL_NEAR(r.rows[0].count, 80, 0);
	DBL_NEAR(r.rows[0].bytes, 70e9 * 2 / 80, 1e-15);
	DBL_NEAR(r.rows[2].bytes, 70e9 * 4 / 80, 1e-15);
	DBL_NEAR(r.dp_comm_s, 240 * 1.023, 1e-9);

	/* Stage 0: one all-reduce of the fp32 gradient. */
	memset(&r, 0, sizeof(r));
	CHECK(step_dp_rows(7e9, 32, 4, 0, 64, 8, 4, 2, &pr, &r, &eb) == 0);
	INT_EQ(r.nrows, 1);
	INT_EQ(r.rows[0].op, OP_ALLREDUCE);
	DBL_NEAR(r.rows[0].bytes, 28e9, 0);
	/* Stage 2 reduce-scatters every micro-batch, stage 1 once. */
	memset(&r, 0, sizeof(r));
	CHECK(step_dp_rows(7e9, 32, 4, 2, 64, 8, 4, 2, &pr, &r, &eb) == 0);
	DBL_NEAR(r.rows[0].count, 4, 0);
	memset(&r, 0, sizeof(r));
	CHECK(step_dp_rows(7e9, 32, 4, 1, 64, 8, 4, 2, &pr, &r, &eb) == 0);
	DBL_NEAR(r.rows[0].count, 1, 0);
	/* One rank: nothing to reduce. */
	memset(&r, 0, sizeof(r));
	CHECK(step_dp_rows(7e9, 32, 4, 0, 1, 1, 4, 2, &pr, &r, &eb) == 0);
	INT_EQ(r.nrows, 0);
}

/*
 * DeepSpeed ZeRO-3 under full recomputation, GPT-3 175B (h = 12288):
 * modules QKV 3h², output h², the MLP's 4h² and 4h².  Between a module's
 * recomputed forward and its backward run 2·(the modules after it):
 * 0 for the last (kept, 1 gather), 8h² = 1.21e9 for the MLP's first,
 * 10h², 18h²: all >= 10^9, gathered twice.  At h = 4096, 18h² = 3.0e8:
 * each once.  Backward gathers per layer 2+2+2+1 = 7, their mean size
 * (2·(3+1+4) + 4)h² / 7 parameters of 2 bytes.
 */
void test_step_ds_recompute_gathers(void)
{
	double h = 12288, g[4] = { 3 * h * h, h * h, 4 * h * h, 4 * h * h };
	double s[4] = { 3 * 4096.0 * 4096, 4096.0 * 4096, 4 * 4096.0 * 4096, 4 * 4096.0 * 4096 };
	struct workload w = gpt3();
	struct step_config c;
	struct step_compute cs = { 312e12, 0.5, 0, NULL };
	struct step_result r;
	struct errbuf eb;
	struct cost_model mm = ms_model();
	const struct step_row *row;
	double bwd_bytes;
	int j;

	INT_EQ(step_ds_backward_gathers(g, 4, 3, 1), 1);
	INT_EQ(step_ds_backward_gathers(g, 4, 2, 1), 2);
	INT_EQ(step_ds_backward_gathers(g, 4, 1, 1), 2);
	INT_EQ(step_ds_backward_gathers(g, 4, 0, 1), 2);
	for (j = 0; j < 4; j++) {
		INT_EQ(step_ds_backward_gathers(g, 4, j, 0), 1);
		INT_EQ(step_ds_backward_gathers(s, 4, j, 1), 1);
	}
	step_config_init(&c);
	c.seq = 2048;
	c.dp = 8;
	c.zero = 3;
	c.framework = FW_DEEPSPEED;
	c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, &cs, &mm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_DP, PH_BACKWARD, OP_ALLGATHER);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->count, 96 * 7, 0);
	bwd_bytes = row->bytes;
	/* Forward: the four modules once, a mean of one layer's share / 4. */
	row = find(&r, DIM_DP, PH_FORWARD, OP_ALLGATHER);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->count, 96 * 4, 0);
	DBL_NEAR(bwd_bytes, row->bytes * 4 * (20.0 / 12) / 7, 1e-12);
}

/* Megatron's order on 8-GPU nodes: tp inside, dp across when tp = 8. */
void test_step_placement(void)
{
	INT_EQ(step_per_node(8, 1, 8), 8);      /* tp 8: one node */
	INT_EQ(step_per_node(16, 1, 8), 8);     /* tp 16: two nodes */
	INT_EQ(step_per_node(64, 8, 8), 1);     /* dp after tp 8: one per node */
	INT_EQ(step_per_node(64, 2, 8), 4);     /* dp after tp 2: 4 per node */
	INT_EQ(step_per_node(2, 4, 8), 2);
	INT_EQ(step_per_node(5, 1, 0), 5);      /* no nodes: all together */
}

/*
 * FLOPs and step time.  GPT-3 175B, B = 1536, s = 2048, no recompute:
 * Narayanan et al. 2021, Eq. 3 without recomputation is
 * 72Bslh²(1 + s/(6h) + V/(12lh)); our count adds nothing for biases, so
 * it equals the same with the matrices 12h² per layer exactly.
 */
void test_step_flops(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_compute cs = { 312e12, 0.5, 0, NULL };
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;
	double B = 1536, s = 2048, l = 96, h = 12288, V = 50257, want;

	step_config_init(&c);
	c.tp = 8; c.pp = 12; c.dp = 16; c.micro_batch = 1; c.global_batch = B; c.seq = s;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	want = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
	DBL_NEAR(r.flops_model, want, 1e-12);
	DBL_NEAR(r.flops_hw, want, 1e-12);
	/* Full recomputation: Eq. 3 itself, 96Bslh²(1 + s/6h + V/16lh). */
	c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.flops_hw, 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h)), 1e-12);
	DBL_NEAR(r.flops_model, want, 1e-12);
	/* m = 1536/16 = 96; compute = FLOPs / (1536 GPUs · 156 TFLOP/s). */
	DBL_NEAR(r.microbatches, 96, 0);
	DBL_NEAR(r.compute_s, r.flops_hw / (1536 * 156e12), 1e-12);
	/* step = (m + p - 1)(compute/m + exposed per micro-batch) + dp. */
	DBL_NEAR(r.step_s, (96 + 11) * (r.compute_s / 96 + r.mb_exposed_s) + r.dp_exposed_s, 1e-12);
	DBL_NEAR(r.bubble_s, 11 * (r.compute_s / 96 + r.mb_exposed_s), 1e-12);
	DBL_NEAR(r.mfu, r.flops_model / (r.step_s * 1536 * 312e12), 1e-12);
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
	/* 1F1B: the first stage holds p = 12 micro-batches of 8 layers' inputs. */
	DBL_NEAR(r.mem.inflight, 12, 0);
	DBL_NEAR(r.mem.act_B, 12 * 8 * 2 * 2048 * h, 1e-12);
}

/* Bad configurations say what is wrong. */
void test_step_check(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;

	step_config_init(&c);
	c.seq = 2048;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.pp = 64;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "does not divide the 96 layers") != NULL);
	/* 96 over 5: 20 on the 3 middle stages, 18 on the first and the last. */
	c.pp = 5;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.pp = 2;
	c.zero = 3;
	CHECK(step_check(&w, &c, &eb) < 0);
	c.zero = 0;
	c.global_batch = 3;
	c.dp = 2;
	CHECK(step_check(&w, &c, &eb) < 0);
	c.global_batch = 0;
	c.ep = 2;
	CHECK(step_check(&w, &c, &eb) < 0);   /* no experts */
	/*
	 * Interleaved: 96 layers over pp 48 leave 2 a stage; v 2 is one layer
	 * a chunk, v 4 would be half a layer.  126 over 64 (uneven: 2 a middle
	 * stage, 1 on the first and last) refuses v 2 and takes v 1.
	 */
	c.ep = 1;
	c.dp = 1;
	c.pp = 48;
	c.global_batch = 96;
	c.schedule = PP_INTERLEAVED;
	c.virt = 2;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.virt = 4;
	CHECK(step_check(&w, &c, &eb) < 0);
	w.layers = 126;
	c.pp = 64;
	c.global_batch = 128;
	c.virt = 2;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "a stage of 1 layers (pp 64)") != NULL);
	c.virt = 1;
	CHECK(step_check(&w, &c, &eb) == 0);
}

/*
 * Mixtral-like MoE: 8 experts, top 2, e = 8 over d = 8: dispatch and
 * combine all-to-alls per layer, each of 2·b·s·h·2 bytes per rank; the
 * expert weights are reduced over d·c/e = 1 rank: no expert dp row.
 */
void test_step_moe(void)
{
	struct workload w;
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;
	const struct step_row *row;
	int i, dp_rows = 0;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 32000; w.seq = 4096; w.experts = 8; w.top_k = 2;
	step_config_init(&c);
	c.dp = 8; c.ep = 8; c.seq = 4096;
	CHECK(step_run(&w, &c, NULL, &mm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_EP, PH_FORWARD, OP_ALLTOALL);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->count, 64, 0);
	DBL_NEAR(row->bytes, 2 * 4096.0 * 4096 * 2, 1e-15);
	for (i = 0; i < r.nrows; i++)
		dp_rows += r.rows[i].dim == DIM_DP;
	INT_EQ(dp_rows, 1);
	/* Active matrices: attention 2h²+2h·h/4 and two of the eight experts. */
	DBL_NEAR(r.flops_model, 6 * r.tokens * (32 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024
		 + 2 * 3 * 4096.0 * 14336) + 32000 * 4096.0) + 12 * r.tokens * 32 * 4096.0 * 4096,
		 1e-12);
}

/*
 * The commands agree: pure data parallelism in step gives the same
 * gradient all-reduce as ddp for the same gradient, and zero's stage-3
 * time for a workload is the step ledger's ZeRO-3 rows.
 */
#include "train.h"

void test_step_agrees_with_ddp_and_zero(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model(), mm = ms_model();
	struct step_pricing pr = { &mm, ALGO_AUTO, STEP_BAND_NONE, 0, 0, NULL };

	(void)rm; (void)mm; (void)pr;
	struct ddp_params dp;
	struct ddp_step ds;
	struct zero_params zp;
	struct zero_cost zc;
	struct layer_params lp;
	double params;

	w.layers = 4;      /* small enough for one GPU's arithmetic */
	step_config_init(&c);
	c.dp = 64;
	c.seq = 2048;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	workload_layer_params(&w, &lp);
	/* every parameter: the layers, the embedding and the output layer */
	params = 4 * (lp.attn + lp.mlp + lp.other) + workload_embed_params(&w);
	DBL_NEAR(r.stage_params, params, 1e-15);

	ddp_params_init(&dp);
	dp.grad_bytes = 4 * params;
	dp.compute = 1;
	ddp_step(&dp, &test_link, 64, &ds);
	DBL_NEAR(r.dp_comm_s, ds.comm_s, 1e-15);

	zero_params_init(&zp);
	zp.params = params;
	zp.grad_bytes = 4;
	zp.layers = 4;
	zero_cost(&zp, &test_link, 64, 0, &zc);
	DBL_NEAR(zc.comm_s, ds.comm_s, 1e-15);
	zero_cost(&zp, &test_link, 64, 3, &zc);
	c.zero = 3;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.dp_comm_s, zc.comm_s, 1e-15);
}

/*
 * Llama 3 405B's 126 layers over 16 stages: 14 middle stages of
 * ceil(126/16) = 8, the first and last 7 each (Llama 3, section 3.3.2);
 * given ones are kept when they split the rest evenly.
 */
void test_step_uneven_stages(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct errbuf eb;
	double f, mid, l;

	w.layers = 126;
	step_config_init(&c);
	c.pp = 16;
	CHECK(step_stage_layers(&w, &c, &f, &mid, &l, &eb) == 0);
	DBL_NEAR(f, 7, 0);
	DBL_NEAR(mid, 8, 0);
	DBL_NEAR(l, 7, 0);
	c.layers_first = 5;
	c.layers_last = 9;
	CHECK(step_stage_layers(&w, &c, &f, &mid, &l, &eb) == 0);
	DBL_NEAR(mid, 8, 0);
	c.layers_last = 8;      /* 113 left for 14 stages */
	CHECK(step_stage_layers(&w, &c, &f, &mid, &l, &eb) < 0);
	CHECK(strstr(eb.msg, "not an even split") != NULL);
}

/*
 * One GEMM by hand (models/step.md, "A kernel worked by hand"): GPT-3
 * 175B's QKV at t = 8, 2048 tokens, on an A100 SXM (108 SMs, 0.859 of
 * 312 TFLOP/s, 2039 GB/s).  256x128 tiles: 8 x 36 = 288, 3 waves of 108,
 * 288/324 = 8/9, eff = 0.859 x 8/9; 2·2048·4608·12288 FLOPs at that
 * share, then the 2-byte output at 0.85 x 2039 GB/s.
 */
#include "kernel.h"

void test_kernel_gemm_by_hand(void)
{
	struct kernel_gpu g;
	double eff = 0.859 * 8.0 / 9.0, flops = 2.0 * 2048 * 4608 * 12288;
	double bw = 2039e9 * 0.85;

	kernel_gpu_init(&g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	DBL_NEAR(kernel_gemm_eff(&g, 2048, 4608, 1), eff, 1e-12);
	DBL_NEAR(kernel_gemm_s(&g, 2048, 4608, 12288, 1),
		 flops / (312e12 * eff) + 2.0 * 2048 * 4608 / bw, 1e-12);
	DBL_NEAR(kernel_gemm_s(&g, 2048, 4608, 12288, 1), 0.98444e-3, 1e-4);
	/* A full last wave and whole tiles: the benchmark's share itself. */
	DBL_NEAR(kernel_gemm_eff(&g, 256 * 12, 128 * 9, 1), 0.859, 1e-12);
	/* One tile on 108 SMs: 1/108 of the GPU works. */
	DBL_NEAR(kernel_gemm_eff(&g, 256, 128, 1), 0.859 / 108, 1e-12);
	/* A memory-bound GEMM (a thin one) runs at the bandwidth. */
	CHECK(kernel_gemm_s(&g, 8, 8, 1e8, 1) >= 2 * (8 * 1e8 + 1e8 * 8) / bw);
	/* --kernel-efficiency: every GEMM at the share given. */
	g.fixed_eff = 0.5;
	DBL_NEAR(kernel_gemm_eff(&g, 256, 128, 1), 0.5, 0);
}

/*
 * The output layer and Megatron's unfused cross-entropy: the logits GEMM
 * T x V/t x h and its two gradient GEMMs, then 52 bytes a logit through
 * HBM at 0.85 of its rate (forward cast 6, max 4, subtract 8, exp 8,
 * sum 4, divide 8; backward scale 8, cast back 6).  Llama 3 8B, 8192
 * tokens, t = 2, on an A100: 8192 x 64128 logits.
 */
void test_kernel_output_layer(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_shape sh = { 8192, 8192, 1, 2, 0, 1, 1, 1 };
	double T = 8192, V = 128256 / 2.0, h = 4096, ce;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 128256; w.seq = 8192; w.experts = w.top_k = 1;
	kernel_gpu_init(&g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	ce = (6 + 4 + 8 + 8 + 4 + 8 + 8 + 6) * T * V / (2039e9 * 0.85);
	DBL_NEAR(ce, 52 * T * V / (2039e9 * 0.85), 1e-15);
	DBL_NEAR(kernel_output_s(&g, &w, &sh), kernel_gemm_s(&g, T, V, h, 1) +
		 kernel_gemm_s(&g, T, h, V, 1) + kernel_gemm_s(&g, h, V, T, 1) + ce, 1e-12);
}

/*
 * Fused attention: 4·b·a/t·s·s·d/2 FLOPs forward for causal attention,
 * 2.5 times that backward, at FlashAttention-2's 60 % and 50 % of the
 * A100's peak.  Llama 3 8B, t = 1, 8192 tokens: a = 32, d = 128.
 */
void test_kernel_attention_fused(void)
{
	struct kernel_gpu g;
	struct workload w;
	struct kernel_layer k;
	struct kernel_shape sh = { 8192, 8192, 1, 1, 0, 1, 1, 1 };
	struct errbuf eb;
	double fl = 4.0 * 32 * 8192 * 8192 * 128 / 2;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 128256; w.seq = 8192; w.experts = w.top_k = 1;
	kernel_gpu_init(&g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	CHECK(kernel_layer(&g, &w, &sh, &k, &eb) == 0);
	DBL_NEAR(k.attn_fwd_s, fl / (312e12 * 0.60), 1e-12);
	DBL_NEAR(k.attn_bwd_s, 2.5 * fl / (312e12 * 0.50), 1e-12);
	DBL_NEAR(k.fwd_s, k.gemm_fwd_s + k.attn_fwd_s + k.mem_fwd_s, 1e-15);
	/* Unfused on the same GPU stores and streams the scores: slower. */
	sh.fused = 0;
	CHECK(kernel_layer(&g, &w, &sh, &k, &eb) == 0);
	CHECK(k.attn_fwd_s > fl / (312e12 * 0.60));
	/* Volta has no fused kernel. */
	kernel_gpu_init(&g, ARCH_SM70, 125e12, 80, 900e9, 0);
	INT_EQ(g.fused_ok, 0);
	DBL_NEAR(g.gemm_eff, KERNEL_GEMM_EFF, 0);
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
 * Overlap as Megatron does it: on one DGX-like link, the dp all-reduce of
 * a pure data-parallel step hides behind backward but for its last
 * bucket; DeepSpeed's ZeRO-0 leaves it exposed.  ZeRO-2 with a pipeline
 * is accepted (sharded gradients), ZeRO-3 with one is not.
 */
void test_step_overlap_frameworks(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct kernel_gpu g;
	struct step_compute cs;
	struct cost_model rm = ring_model();
	const struct step_row *row;

	cs = a100_kernels(&g);
	w.layers = 8;
	step_config_init(&c);
	c.dp = 8; c.global_batch = 64; c.seq = 2048;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	CHECK(r.kernels == 1);
	row = find(&r, DIM_DP, PH_OPTIMIZER, OP_ALLREDUCE);
	CHECK(row != NULL);
	if (!row)
		return;
	CHECK(row->exposed_s < row->time_s);
	DBL_NEAR(row->exposed_s + row->hidden_s, row->time_s, 1e-15);
	CHECK(row->overlap != NULL);
	c.framework = FW_DEEPSPEED;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_DP, PH_OPTIMIZER, OP_ALLREDUCE);
	DBL_NEAR(row->exposed_s, row->time_s, 0);
	/* the step adds exactly what is exposed */
	DBL_NEAR(r.step_s, r.microbatches * r.mb_compute_s + r.dp_exposed_s + r.optim_s, 1e-12);

	c.framework = FW_MEGATRON;
	c.pp = 2; c.dp = 4; c.zero = 2;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.zero = 3;
	CHECK(step_check(&w, &c, &eb) < 0);
}

/*
 * DeepSpeed's ZeRO-3 prefetch stops while 10^9 parameters or more are
 * gathered (stage3_max_live_parameters): with h = 32768 every GPT module
 * holds at least h² = 1.07·10^9 parameters, so every gather waits whole;
 * with h = 4096 each is prefetched behind the module before it.
 */
void test_step_deepspeed_max_live(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct kernel_gpu g;
	struct step_compute cs;
	struct cost_model rm = ring_model();
	const struct step_row *row;

	cs = a100_kernels(&g);
	step_config_init(&c);
	c.dp = 64; c.zero = 3; c.framework = FW_DEEPSPEED; c.seq = 2048;
	w.layers = 2; w.hidden = 32768; w.ffn = 4 * 32768; w.heads = w.kv_heads = 256;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_DP, PH_FORWARD, OP_ALLGATHER);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->count, 2 * 4, 0);
	DBL_NEAR(row->exposed_s, row->time_s, 1e-12);
	w.hidden = 4096; w.ffn = 4 * 4096; w.heads = w.kv_heads = 32;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_DP, PH_FORWARD, OP_ALLGATHER);
	CHECK(row->exposed_s < row->time_s);
}

/*
 * Megatron's TP overlap, row by row on one layer (models/step.md,
 * "Overlap"): with SP the backward all-gather (the input gathered again
 * for the weight gradient) hides behind the data-gradient GEMMs of QKV and
 * the MLP's first matrix, the backward reduce-scatter behind their weight-
 * gradient GEMMs, the forward ones stay exposed; --tp-comm-overlap puts
 * each forward collective behind its GEMM with one chunk of t exposed:
 * exposed = max(one - gemm, one / t).
 */
void test_step_tp_overlap(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct kernel_gpu g;
	struct step_compute cs;
	struct cost_model rm = ring_model();
	const struct step_row *ag, *rs, *bag, *brs;
	double one, t = 8, e;
	const double *f, *d;

	cs = a100_kernels(&g);
	w.layers = 1;
	step_config_init(&c);
	c.tp = 8; c.sp = 1; c.seq = 2048;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	ag = find(&r, DIM_TP, PH_FORWARD, OP_ALLGATHER);
	rs = find(&r, DIM_TP, PH_FORWARD, OP_REDUCESCATTER);
	bag = find(&r, DIM_TP, PH_BACKWARD, OP_ALLGATHER);
	brs = find(&r, DIM_TP, PH_BACKWARD, OP_REDUCESCATTER);
	CHECK(ag && rs && bag && brs);
	if (!ag || !rs || !bag || !brs)
		return;
	one = ag->one_s;
	f = r.layer.lin_fwd_s;
	d = r.layer.lin_dgrad_s;
	/* the four linears add up to the layer's GEMMs */
	DBL_NEAR(f[0] + f[1] + f[2] + f[3], r.layer.gemm_fwd_s, 1e-15);
	DBL_NEAR(ag->exposed_s, 2 * one, 1e-15);
	DBL_NEAR(rs->exposed_s, 2 * one, 1e-15);
	DBL_NEAR(bag->exposed_s, fmax(0, one - d[0]) + fmax(0, one - d[2]), 1e-15);
	DBL_NEAR(brs->exposed_s, 2 * fmax(0, one - r.layer.wgrad_in_s / 2), 1e-15);
	CHECK(bag->exposed_s < bag->time_s);

	c.tp_overlap = 1;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	ag = find(&r, DIM_TP, PH_FORWARD, OP_ALLGATHER);
	rs = find(&r, DIM_TP, PH_FORWARD, OP_REDUCESCATTER);
	e = fmax(one - f[0], one / t) + fmax(one - f[2], one / t);
	DBL_NEAR(ag->exposed_s, e, 1e-15);
	e = fmax(one - f[1], one / t) + fmax(one - f[3], one / t);
	DBL_NEAR(rs->exposed_s, e, 1e-15);
	CHECK(ag->exposed_s < 2 * one);

	/* full recomputation: the recomputed forward's pair as the forward's */
	c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	bag = find(&r, DIM_TP, PH_BACKWARD, OP_ALLGATHER);
	DBL_NEAR(bag->count, 4, 0);
	DBL_NEAR(bag->exposed_s, fmax(0, one - d[0]) + fmax(0, one - d[2]) +
		 fmax(one - f[0], one / t) + fmax(one - f[2], one / t), 1e-15);

	/* on a link slow enough that every gather outlasts its GEMM, the
	 * backward all-gathers pay QKV's and the MLP's own data-gradient GEMMs */
	{
		static struct link slow = { 0, 3e9, 0 };
		struct cost_model sm;

		cost_model_link(&sm, &slow);
		c.tp_overlap = 0; c.recompute = RC_NONE;
		CHECK(step_run(&w, &c, &cs, &sm, STEP_BAND_NONE, &r, &eb) == 0);
		bag = find(&r, DIM_TP, PH_BACKWARD, OP_ALLGATHER);
		one = bag->one_s;
		CHECK(one > d[0] && one > d[2] && d[0] != d[1]);
		DBL_NEAR(bag->exposed_s, 2 * one - d[0] - d[2], 1e-12);
		c.tp_overlap = 1;
	}

	/* it needs SP, tp > 1 and Megatron's layers */
	c.sp = 0;
	CHECK(step_check(&w, &c, &eb) < 0);
	c.sp = 1; c.framework = FW_FSDP;
	CHECK(step_check(&w, &c, &eb) < 0);
}

/*
 * A hidden collective holds its CTAs' SMs: NCCL's model says how many
 * (cost_coll's ctas, a link model none), and of a hidden row the step
 * still waits time x ctas / SMs at least (models/step.md, "Overlap").
 * 48 GPT-3 layers in plain data parallelism on 2 DGX H100 nodes: the
 * gradient all-reduce hides behind the backward but for that share, more
 * than its last bucket.
 */
void test_step_sm_share(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct kernel_gpu g;
	struct step_compute cs = { 989.4e12, 0.5, 0, &g };
	struct preset_dirs d;
	struct system sys;
	struct nccl_cost nc;
	struct cost_model cm, rm = ring_model();
	struct coll_cost cc;
	struct group grp = { 16, 8 };
	const struct step_row *row;
	int ok;

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, NULL, NULL);
	ok = system_load(&d, "presets/dgx-h100.preset", &sys, &eb) == 0 &&
	     nccl_cost_init(&nc, &cm, &sys, ~0u, ~0u, &eb) == 0;
	preset_dirs_release(&d);
	CHECK(ok);
	if (!ok)
		return;
	CHECK(cost_coll(&cm, OP_ALLREDUCE, ALGO_AUTO, &grp, 1e9, &cc, &eb) == 0);
	CHECK(cc.ctas >= 1 && cc.ctas <= 64);
	CHECK(cost_coll(&rm, OP_ALLREDUCE, ALGO_RING, &grp, 1e9, &cc, &eb) == 0);
	INT_EQ(cc.ctas, 0);

	kernel_gpu_init(&g, ARCH_SM90, 989.4e12, 132, 3.35e12, 0.801);
	w.layers = 48;
	step_config_init(&c);
	c.dp = 16; c.seq = 2048; c.gpus_per_node = 8; c.micro_batch = 4;
	CHECK(step_run(&w, &c, &cs, &cm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_DP, PH_OPTIMIZER, OP_ALLREDUCE);
	CHECK(row != NULL);
	if (!row)
		return;
	CHECK(row->ctas >= 1);
	CHECK(row->hidden_s > 0);
	/* the last bucket alone would be far less: the SMs' share binds */
	DBL_NEAR(row->exposed_s, row->time_s * row->ctas / 132, 1e-12);
	DBL_NEAR(row->hidden_s, row->time_s * (1 - row->ctas / 132.0), 1e-12);
	system_release(&sys);
}

/*
 * DeepSpeed's ZeRO-3 of 2021 against today's, the same gathers: each call
 * gains its N copies through PyTorch's list API (N x 5 us launched, or the
 * bytes read and written, the larger), exposed; the gradients are
 * reduce-scattered parameter by parameter (a GPT layer's 4 weights, 4
 * biases and 2 LayerNorms' 2 each: 12), all exposed.
 */
void test_step_deepspeed_2021(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result now, old;
	struct errbuf eb;
	struct kernel_gpu g;
	struct step_compute cs;
	struct cost_model rm = ring_model();
	const struct step_row *a, *b;
	double N = 64, extra, sum = 0;
	int i;

	cs = a100_kernels(&g);
	w.layers = 4;
	step_config_init(&c);
	c.dp = 64; c.zero = 3; c.seq = 2048; c.global_batch = 128; c.grad_bytes = 2;
	c.framework = FW_DEEPSPEED;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &now, &eb) == 0);
	c.framework = FW_DEEPSPEED_2021;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &old, &eb) == 0);
	a = find(&now, DIM_DP, PH_FORWARD, OP_ALLGATHER);
	b = find(&old, DIM_DP, PH_FORWARD, OP_ALLGATHER);
	CHECK(a && b);
	if (!a || !b)
		return;
	extra = fmax(N * 5e-6, 2 * a->bytes / (2039e9 * 0.85));
	DBL_NEAR(b->one_s, a->one_s + extra, 1e-12);
	DBL_NEAR(b->exposed_s, a->exposed_s + a->count * extra, 1e-12);
	b = find(&old, DIM_DP, PH_BACKWARD, OP_REDUCESCATTER);
	DBL_NEAR(b->count, 2 * 4 * 12, 0);
	DBL_NEAR(b->exposed_s, b->time_s, 0);
	/* by hand, parameter by parameter: the four weights, four biases and
	 * two LayerNorms' weight and bias, each at its own size */
	{
		double h = w.hidden, f = w.ffn, n[12], per = 0, one;
		struct coll_cost cc;
		struct group grp = { 64, 0 };

		n[0] = h * 3 * h; n[1] = h * h; n[2] = h * f; n[3] = f * h;
		n[4] = 3 * h; n[5] = h; n[6] = f; n[7] = h;
		n[8] = n[9] = n[10] = n[11] = h;
		for (i = 0; i < 12; i++) {
			CHECK(cost_coll(&rm, OP_REDUCESCATTER, cost_algo_preferred(&rm, OP_REDUCESCATTER),
					&grp, 2 * n[i], &cc, &eb) == 0);
			one = cc.time_s;
			per += one + fmax(N * 5e-6, 2 * 2 * n[i] / (2039e9 * 0.85));
		}
		DBL_NEAR(b->time_s, 2 * 4 * per, 1e-12);
	}
	for (i = 0; i < old.nrows; i++)
		if (old.rows[i].dim == DIM_DP)
			sum += old.rows[i].time_s;
	DBL_NEAR(old.dp_comm_s, sum, 1e-12);
	CHECK(old.step_s > now.step_s);
	/* not ZeRO-3: as today's DeepSpeed */
	c.zero = 1;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &old, &eb) == 0);
	c.framework = FW_DEEPSPEED;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &now, &eb) == 0);
	DBL_NEAR(old.step_s, now.step_s, 0);
}
