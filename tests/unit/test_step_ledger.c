/*
 * Unit tests of the step's ledger (src/step_ledger.c): Megatron's per-layer
 * TP volumes, the ZeRO rows, placement of groups on nodes, the MoE rows,
 * each against a value worked out by hand.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

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
 * Megatron-Core's folded experts with expert tensor parallelism, by hand
 * (megatron/core/transformer/moe/token_dispatcher.py): Mixtral's shape,
 * tp 2 with SP, dp 8, ep 4, etp 2, one micro-batch of 4096 tokens, a ring
 * on 300 GB/s and no latency.  Each rank routes its 2048 tokens twice:
 * 2·2048·4096·2 = 32 MiB for the all-to-all over 4 ranks; the etp group of
 * 2 consecutive ranks all-gathers those of both, 64 MiB of output,
 * (2-1)/2·67108864/300e9 = 111.848 µs, once per layer forward, and
 * reduce-scatters the experts' output, as much; backward each again.  The
 * dense TP pair of an MoE layer is the attention's alone: 32 a phase.  The
 * experts' gradients are reduced over t·c·d/(ep·etp) = 2 ranks, the dense
 * ones over d·c = 8: an expert rank's 32·8·3·4096·14336/(2·4) parameters,
 * 4 bytes each, 22548578304 B all-reduced on 2 ranks.
 */
void test_step_moe_etp(void)
{
	struct workload w;
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model();
	const struct step_row *row;
	double ag = 0.5 * 67108864.0 / 300e9;
	int i, expert = 0, dense = 0;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 32000; w.seq = 4096; w.experts = 8; w.top_k = 2;
	step_config_init(&c);
	c.tp = 2; c.sp = 1; c.dp = 8; c.ep = 4; c.etp = 2; c.seq = 4096;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_EP, PH_FORWARD, OP_ALLTOALL);
	CHECK(row != NULL && row->bytes == 33554432.0 && row->ranks == 4 && row->count == 64);
	row = find(&r, DIM_EP, PH_FORWARD, OP_ALLGATHER);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->bytes, 67108864.0, 0);
	INT_EQ((long)row->ranks, 2);
	INT_EQ((long)row->per_node, 2);
	DBL_NEAR(row->count, 32, 0);
	DBL_NEAR(row->one_s, ag, 1e-12);
	DBL_NEAR(row->exposed_s, 32 * ag, 1e-12);
	DBL_NEAR(find(&r, DIM_EP, PH_FORWARD, OP_REDUCESCATTER)->time_s, 32 * ag, 1e-12);
	DBL_NEAR(find(&r, DIM_EP, PH_BACKWARD, OP_ALLGATHER)->count, 32, 0);
	DBL_NEAR(find(&r, DIM_EP, PH_BACKWARD, OP_REDUCESCATTER)->count, 32, 0);
	DBL_NEAR(find(&r, DIM_TP, PH_FORWARD, OP_ALLGATHER)->count, 32, 0);
	DBL_NEAR(find(&r, DIM_TP, PH_BACKWARD, OP_REDUCESCATTER)->count, 32, 0);
	for (i = 0; i < r.nrows; i++) {
		if (r.rows[i].dim != DIM_DP)
			continue;
		if (r.rows[i].ranks == 2) {
			expert++;
			DBL_NEAR(r.rows[i].bytes, 22548578304.0, 0);
		} else if (r.rows[i].ranks == 8)
			dense++;
	}
	INT_EQ(expert, 1);
	INT_EQ(dense, 1);

	/* Full recomputation gathers and scatters again in backward. */
	c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(find(&r, DIM_EP, PH_BACKWARD, OP_ALLGATHER)->count, 64, 0);

	/* etp 1: the experts whole on a rank, no expert-TP collective; the
	 * all-to-all's ranks stand 1 apart, 4 in a node of 8. */
	c.recompute = RC_NONE;
	c.etp = 1;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	CHECK(find(&r, DIM_EP, PH_FORWARD, OP_ALLGATHER) == NULL);
	CHECK(find(&r, DIM_EP, PH_FORWARD, OP_ALLTOALL) != NULL);

	/* tp with experts but no SP is refused, as Megatron-Core refuses it. */
	c.sp = 0;
	c.etp = 0;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) < 0);
	CHECK(strstr(eb.msg, "--sequence-parallel") != NULL);
}

/*
 * Megatron-Core's EP all-to-all overlap (combined_1f1b.py): with the
 * compute far longer than the all-to-all (a flat 1 TFLOP/s GPU), a paired
 * layer hides its all-to-alls whole, and only the passes outside the
 * steady state's pairs wait.  Mixtral's shape, dp 8, ep 8, m = 4 without a
 * pipeline: the first forward and the last backward alone, 1 of 4, so a
 * quarter of each row is exposed.  pp 2 with 2 chunks a stage and m = 4:
 * 2(2-1) + (2-1)·2 + 1 = 5 of the 8 chunk passes alone on the first stage,
 * 5/8 exposed.  Full recomputation, or 1F1B with a pipeline, is refused.
 */
void test_step_ep_overlap(void)
{
	struct workload w;
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model();
	struct step_compute cs = { 1e12, 0.5, 0, NULL, 0, 0 };
	const struct step_row *row;

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 32000; w.seq = 4096; w.experts = 8; w.top_k = 2;
	step_config_init(&c);
	c.dp = 8; c.ep = 8; c.seq = 4096; c.global_batch = 32; c.ep_overlap = 1;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_EP, PH_FORWARD, OP_ALLTOALL);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->exposed_s, row->time_s / 4, 1e-12);
	DBL_NEAR(find(&r, DIM_EP, PH_BACKWARD, OP_ALLTOALL)->exposed_s,
		 find(&r, DIM_EP, PH_BACKWARD, OP_ALLTOALL)->time_s / 4, 1e-12);

	c.pp = 2; c.dp = 4; c.ep = 4; c.global_batch = 16;
	c.schedule = PP_INTERLEAVED; c.virt = 2;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.microbatches, 4, 0);
	row = find(&r, DIM_EP, PH_FORWARD, OP_ALLTOALL);
	DBL_NEAR(row->exposed_s, row->time_s * 5 / 8, 1e-12);

	c.schedule = PP_1F1B; c.virt = 1;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) < 0);
	c.pp = 1; c.dp = 8; c.ep = 8; c.global_batch = 32; c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) < 0);
	CHECK(strstr(eb.msg, "full recomputation") != NULL);
}

/*
 * The attention's FLOPs follow the queries' width a·d, not h, when the
 * head_dim key sets d (Qwen3-30B-A3B: 32 heads of 128 on h = 2048): model
 * FLOPs 6·T·(l·matmul + V·h) + 12·T·l·s·4096, matmul = 56623104 a layer
 * (tests/unit/test_workload.c); the context-parallel K and V chunks carry
 * a_kv·d = 512 values a token: 2·b·(s/c)·512·2 bytes.
 */
void test_step_head_dim(void)
{
	struct workload w;
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model();

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 48; w.hidden = 2048; w.heads = 32; w.kv_heads = 4; w.head_dim = 128;
	w.ffn = 768; w.vocab = 151936; w.seq = 4096; w.experts = 128; w.top_k = 8;
	step_config_init(&c);
	c.dp = 4; c.cp = 2; c.ep = 8; c.seq = 4096;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.tokens, 4 * 4096.0, 0);
	DBL_NEAR(r.flops_model, 6 * r.tokens * (48 * 56623104.0 + 151936 * 2048.0) +
		 12 * r.tokens * 48 * 4096.0 * 4096, 1e-12);
	DBL_NEAR(find(&r, DIM_CP, PH_FORWARD, OP_SENDRECV)->bytes, 2 * 2048.0 * 512 * 2, 0);
}

/*
 * Prices kept for many steps: a step priced through the memo is the step
 * priced directly, row by row; the same step again asks the same
 * collectives and prices none of them anew.  GPT-3 175B at t = 8, p = 4,
 * d = 4 with ZeRO-1 and SP: 4 TP rows, 2 PP rows, 2 DP rows.
 */
void test_step_memo(void)
{
	struct workload w = gpt3();
	struct cost_model m = ring_model();
	struct step_memo memo;
	struct step_config c;
	struct step_result a, b;
	struct errbuf eb;
	size_t calls, evals;
	int i;

	memset(&memo, 0, sizeof(memo));
	step_config_init(&c);
	c.tp = 8;
	c.pp = 4;
	c.dp = 4;
	c.zero = 1;
	c.sp = 1;
	c.seq = 2048;
	c.global_batch = 64;
	CHECK(step_run(&w, &c, NULL, &m, STEP_BAND_NONE, &a, &eb) == 0);
	CHECK(step_run_memo(&w, &c, NULL, &m, &memo, &b, &eb) == 0);
	CHECK(a.nrows == 8 && b.nrows == a.nrows);
	for (i = 0; i < a.nrows && i < b.nrows; i++) {
		CHECK(a.rows[i].one_s == b.rows[i].one_s);
		CHECK(a.rows[i].exposed_s == b.rows[i].exposed_s);
	}
	CHECK(a.dp_comm_s == b.dp_comm_s && a.mb_comm_s == b.mb_comm_s);
	calls = memo.calls;
	evals = memo.evals;
	CHECK(calls >= 8 && evals <= calls && evals == memo.n);
	CHECK(step_run_memo(&w, &c, NULL, &m, &memo, &b, &eb) == 0);
	CHECK(memo.calls == 2 * calls);
	CHECK(memo.evals == evals);
	step_memo_release(&memo);
	CHECK(memo.t == NULL && memo.n == 0);
}

/*
 * The keys one fused attention call runs a query tile through: a ring
 * step of context parallelism sees the s/c keys of one chunk, the
 * all-gather form the whole sequence (models/step.md, "Attention").  Llama 3 8B on an A100, s = 8192, c = 4: the ring's
 * attention is the all-gather form's times (8192/8492)/(2048/2348), the
 * shares' ratio, forward and backward; nothing else of the layer moves.
 */
void test_step_cp_attention_length(void)
{
	struct workload w;
	struct kernel_gpu g;
	struct step_compute sc = a100_kernels(&g);
	struct step_config c;
	struct step_result ring, ag;
	struct errbuf eb;
	struct cost_model rm = ring_model();
	double k = (8192.0 / 8492) / (2048.0 / 2348);

	memset(&w, 0, sizeof(w));
	w.arch = WL_LLAMA;
	w.layers = 32; w.hidden = 4096; w.heads = 32; w.kv_heads = 8; w.ffn = 14336;
	w.vocab = 128256; w.seq = 8192; w.experts = w.top_k = 1;
	step_config_init(&c);
	c.dp = 2; c.cp = 4; c.seq = 8192; c.global_batch = 2;
	CHECK(step_run(&w, &c, &sc, &rm, STEP_BAND_NONE, &ring, &eb) == 0);
	c.cp_form = CP_ALLGATHER;
	CHECK(step_run(&w, &c, &sc, &rm, STEP_BAND_NONE, &ag, &eb) == 0);
	CHECK(ring.layer.attn_fwd_s > 0);
	DBL_NEAR(ring.layer.attn_fwd_s, ag.layer.attn_fwd_s * k, 1e-12);
	DBL_NEAR(ring.layer.attn_bwd_s, ag.layer.attn_bwd_s * k, 1e-12);
	DBL_NEAR(ring.layer.gemm_fwd_s, ag.layer.gemm_fwd_s, 0);
}
