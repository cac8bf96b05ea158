/*
 * Unit tests of parallel blocks (attention and the MLP in parallel from
 * one input: GPT-J, GPT-NeoX, Falcon): the preset key, the parameters,
 * the tensor-parallel collectives a layer and their overlap, and the
 * activations (models/step.md, "Parallel blocks"), against values added
 * up by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "preset_fix.h"
#include "step_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/*
 * GPT-3 175B as in test_step_tp_gpt3, its block made parallel: t = 8,
 * p = 12, d = 16, b = 4, s = 2048, β = 300 GB/s.  One all-reduce of
 * 4·2048·12288·2 = 201326592 B on 8 ranks: 2·7/8 · 201326592 / 300e9 =
 * 1.17440512 ms, one a layer (not two), 8 layers: 8 a micro-batch each
 * way, 9.39524096 ms forward.  With SP the all-gather and reduce-scatter
 * add up to the same; full recomputation repeats the forward's 8 in
 * backward (16).  The parameters are the sequential block's.
 */
void test_parallel_block_tp(void)
{
	struct workload w = gpt3(), seq = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct cost_model rm = ring_model();
	const struct step_row *row;

	w.block = WL_PARALLEL;
	DBL_NEAR(workload_params(&w), workload_params(&seq), 0);
	DBL_NEAR(workload_matmul_params(&w), workload_matmul_params(&seq), 0);
	step_config_init(&c);
	c.tp = 8; c.pp = 12; c.dp = 16; c.micro_batch = 4; c.seq = 2048;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_TP, PH_FORWARD, OP_ALLREDUCE);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->count, 8, 0);
	DBL_NEAR(row->bytes, 201326592.0, 0);
	DBL_NEAR(row->time_s, 0.00939524096, 1e-12);
	DBL_NEAR(find(&r, DIM_TP, PH_BACKWARD, OP_ALLREDUCE)->count, 8, 0);

	c.sp = 1;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(find(&r, DIM_TP, PH_FORWARD, OP_ALLGATHER)->count, 8, 0);
	DBL_NEAR(find(&r, DIM_TP, PH_FORWARD, OP_ALLGATHER)->time_s
		 + find(&r, DIM_TP, PH_FORWARD, OP_REDUCESCATTER)->time_s, 0.00939524096, 1e-12);
	DBL_NEAR(find(&r, DIM_TP, PH_BACKWARD, OP_REDUCESCATTER)->count, 8, 0);

	c.sp = 0;
	c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, NULL, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(find(&r, DIM_TP, PH_BACKWARD, OP_ALLREDUCE)->count, 16, 0);
}

/*
 * Megatron's overlap rules on one parallel layer with SP: the forward
 * all-gather and reduce-scatter stay exposed (one each); the backward
 * all-gather hides behind the data-gradient GEMMs of QKV and the MLP's
 * first matrix together, the backward reduce-scatter (the two branches'
 * input gradients summed) behind both weight-gradient GEMMs;
 * --tp-comm-overlap puts the forward all-gather behind QKV's and the MLP's
 * first GEMMs, the reduce-scatter behind the output projection's and the
 * MLP's last, one chunk of t exposed.
 */
void test_parallel_block_overlap(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct kernel_gpu g;
	struct step_compute cs;
	struct cost_model rm = ring_model();
	const struct step_row *ag, *rs, *bag, *brs;
	double one, t = 8;
	const double *f, *d;

	cs = a100_kernels(&g);
	w.layers = 1;
	w.block = WL_PARALLEL;
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
	DBL_NEAR(ag->count, 1, 0);
	DBL_NEAR(ag->exposed_s, one, 1e-15);
	DBL_NEAR(rs->exposed_s, one, 1e-15);
	DBL_NEAR(bag->exposed_s, fmax(0, one - d[0] - d[2]), 1e-15);
	DBL_NEAR(brs->exposed_s, fmax(0, one - r.layer.wgrad_in_s), 1e-15);

	c.tp_overlap = 1;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	ag = find(&r, DIM_TP, PH_FORWARD, OP_ALLGATHER);
	rs = find(&r, DIM_TP, PH_FORWARD, OP_REDUCESCATTER);
	DBL_NEAR(ag->exposed_s, fmax(one - f[0] - f[2], one / t), 1e-15);
	DBL_NEAR(rs->exposed_s, fmax(one - f[1] - f[3], one / t), 1e-15);
}

/*
 * Activations (Korthikanti et al. 2022, §4.1, no recomputation): the two
 * norms read the one input, kept once, 2h bytes a token fewer; with one
 * norm its output (QKV's and the MLP's input) once too, 2h fewer again.
 * s = 2048, b = 1, h = 12288, t = 8 without SP: 2048·2·12288 =
 * 50,331,648 B and 100,663,296 B less a layer.  One norm: 2h fewer
 * parameters a layer, 96·2·12288 = 2,359,296.
 */
void test_parallel_block_activations(void)
{
	struct workload w = gpt3(), p = gpt3(), o = gpt3();
	double seq;

	p.block = WL_PARALLEL;
	o.block = WL_PARALLEL_ONE_NORM;
	seq = step_act_layer_w(&w, 2048, 1, 8, 0, RC_NONE, 1, 1);
	DBL_NEAR(seq - step_act_layer_w(&p, 2048, 1, 8, 0, RC_NONE, 1, 1), 50331648.0, 1e-3);
	DBL_NEAR(seq - step_act_layer_w(&o, 2048, 1, 8, 0, RC_NONE, 1, 1), 100663296.0, 1e-3);
	DBL_NEAR(workload_params(&w) - workload_params(&o), 2359296.0, 0);
}

/* The key: read, refused with a bad value or experts, and written back. */
void test_parallel_block_preset(void)
{
	struct preset_kv kv[] = {
		{ "arch", "gpt", 2 }, { "layers", "2", 3 }, { "hidden", "64", 4 },
		{ "heads", "4", 5 }, { "vocab", "100", 6 }, { "seq", "16", 7 },
		{ "parallel_block", "one-norm", 8 }, { "experts", "1", 9 },
	};
	struct preset p = { "x.preset", "x", "workload", "test", kv, 8 };
	struct workload w, b;
	struct errbuf eb;

	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	CHECK(w.block == WL_PARALLEL_ONE_NORM && workload_parallel(&w));
	kv[6].value = "yes";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:8: parallel_block: expected 'no', 'two-norms' or "
		       "'one-norm', got 'yes'");
	kv[6].value = "two-norms";
	kv[7].value = "4";
	CHECK(workload_from_preset(&p, &w, &eb) == -1);
	STR_EQ(eb.msg, "x.preset:8: parallel_block: a mixture-of-experts layer in "
		       "parallel with its attention is not modelled");
	kv[7].value = "1";
	CHECK(workload_from_preset(&p, &w, &eb) == 0);
	CHECK(w.block == WL_PARALLEL);
	CHECK(fix_workload_write_back(&w, &b) > 0);
	CHECK(b.block == WL_PARALLEL);
	DBL_NEAR(workload_params(&b), workload_params(&w), 0);
}
