/*
 * Unit tests of what hides in a step (src/step_overlap.c): by framework,
 * DeepSpeed's ZeRO-3 gathers (today's and 2021's), Megatron's TP overlap
 * and --tp-comm-overlap, the SMs a hidden collective holds, and FSDP's
 * SHARD_GRAD_OP gathers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nccl_cost.h"
#include "preset.h"
#include "step_fix.h"
#include "step_int.h"
#include "system.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

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
	struct step_compute cs = { 312e12, 0.5, 0, NULL, 0, 0 };
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
	/* the best case adds exactly what is exposed */
	DBL_NEAR(r.step_best_s, r.microbatches * r.mb_compute_best_s + r.dp_exposed_s + r.optim_s,
		 1e-12);

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

	/* it needs SP, tp > 1 and a framework that pipelines TP with its GEMMs */
	c.sp = 0;
	CHECK(step_check(&w, &c, &eb) < 0);
	c.sp = 1; c.framework = FW_DEEPSPEED_2021;
	CHECK(step_check(&w, &c, &eb) < 0);
	c.framework = FW_FSDP;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.tp = 1;
	CHECK(step_check(&w, &c, &eb) < 0);
}

/*
 * PyTorch's async TP (--tp-comm-overlap under fsdp): without it every TP
 * collective waits whole; with it each is one chunk of t behind the GEMM it
 * feeds or follows, max(one - gemm, one / t): forward as Megatron's, the
 * backward gather behind the attention output's and the MLP's last data-
 * gradient GEMMs, the backward reduce-scatter behind QKV's and the MLP's
 * first; under full recomputation the recomputed forward's pair as well.
 */
void test_step_tp_async(void)
{
	struct workload w = gpt3();
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	struct kernel_gpu g;
	struct step_compute cs = a100_kernels(&g);
	struct cost_model rm = ring_model(), sm;
	static struct link slow = { 0, 3e9, 0 };
	const struct step_row *t[4];
	double one, fa, fr, n = 8;
	const double *f = r.layer.lin_fwd_s, *d = r.layer.lin_dgrad_s;

	w.layers = 1;
	step_config_init(&c);
	c.tp = 8; c.sp = 1; c.seq = 2048; c.framework = FW_FSDP;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	if (!tp_rows(&r, t)) {
		CHECK(!"four TP rows");
		return;
	}
	DBL_NEAR(t[2]->exposed_s, t[2]->time_s, 0);
	DBL_NEAR(t[3]->exposed_s, t[3]->time_s, 0);

	c.tp_overlap = 1; c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	if (!tp_rows(&r, t)) {
		CHECK(!"four TP rows");
		return;
	}
	one = t[0]->one_s;
	fa = fmax(one - f[0], one / n) + fmax(one - f[2], one / n);
	fr = fmax(one - f[1], one / n) + fmax(one - f[3], one / n);
	DBL_NEAR(t[0]->exposed_s, fa, 1e-15);
	DBL_NEAR(t[1]->exposed_s, fr, 1e-15);
	DBL_NEAR(t[2]->exposed_s, fmax(one - d[1], one / n) + fmax(one - d[3], one / n) + fa, 1e-15);
	DBL_NEAR(t[3]->exposed_s, fmax(one - d[0], one / n) + fmax(one - d[2], one / n) + fr, 1e-15);
	CHECK(t[0]->exposed_s < t[0]->time_s && t[3]->exposed_s < t[3]->time_s);

	/* on a slow link every collective outlasts its GEMM: each pays its own */
	cost_model_link(&sm, &slow);
	c.recompute = RC_NONE;
	CHECK(step_run(&w, &c, &cs, &sm, STEP_BAND_NONE, &r, &eb) == 0);
	if (!tp_rows(&r, t)) {
		CHECK(!"four TP rows");
		return;
	}
	one = t[2]->one_s;
	CHECK(one > d[0] && one > d[1] && one > d[2] && one > d[3]);
	CHECK(one > f[0] && one > f[1] && one > f[2] && one > f[3]);
	CHECK(d[0] != d[1] && d[2] != d[3] && f[0] != f[1] && f[2] != f[3]);
	DBL_NEAR(t[0]->exposed_s, 2 * one - f[0] - f[2], 1e-12);
	DBL_NEAR(t[1]->exposed_s, 2 * one - f[1] - f[3], 1e-12);
	DBL_NEAR(t[2]->exposed_s, 2 * one - d[1] - d[3], 1e-12);
	DBL_NEAR(t[3]->exposed_s, 2 * one - d[0] - d[2], 1e-12);
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
	struct step_compute cs = { 989.4e12, 0.5, 0, &g, 0, 0 };
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
 * DeepSpeed's ZeRO-3 of 2021 against today's.  Its trace was one step off,
 * so nothing is prefetched or kept: each gather is today's collective,
 * all of it exposed, and backward under full recomputation gathers every
 * module twice (4 x 2 a GPT layer; without recomputation 4).  Each call
 * gains PyTorch's list API on the host, per rank one view made from Python
 * (2.85 us) and one copy launched (5 us), or the copies' bytes read and
 * written, the larger; a gather also zeroes its buffer first (its bytes
 * written at 0.85 of 2.039 TB/s); all exposed.  The gradients are
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
	extra = fmax(N * (2.85e-6 + 5e-6), 2 * a->bytes / (2039e9 * 0.85)) +
		a->bytes / (2039e9 * 0.85);
	DBL_NEAR(b->count, a->count, 0);
	DBL_NEAR(b->one_s, a->one_s + extra, 1e-12);
	DBL_NEAR(b->time_s, a->time_s + a->count * extra, 1e-12);
	DBL_NEAR(b->exposed_s, b->time_s, 0);   /* nothing prefetched */
	CHECK(a->exposed_s < a->time_s);         /* today's hides some */
	/* backward without recomputation: each module gathered once, exposed */
	b = find(&old, DIM_DP, PH_BACKWARD, OP_ALLGATHER);
	CHECK(b != NULL);
	if (b) {
		DBL_NEAR(b->count, 2 * 4 * 4, 0);   /* m = 2, 4 layers, 4 modules */
		DBL_NEAR(b->exposed_s, b->time_s, 0);
	}
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
			per += one + fmax(N * (2.85e-6 + 5e-6), 2 * 2 * n[i] / (2039e9 * 0.85));
		}
		DBL_NEAR(b->time_s, 2 * 4 * per, 1e-12);
	}
	for (i = 0; i < old.nrows; i++)
		if (old.rows[i].dim == DIM_DP)
			sum += old.rows[i].time_s;
	DBL_NEAR(old.dp_comm_s, sum, 1e-12);
	CHECK(old.step_s > now.step_s);
	/* full recomputation: every module twice in backward (today's keeps fc2: 7) */
	c.recompute = RC_FULL;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &old, &eb) == 0);
	b = find(&old, DIM_DP, PH_BACKWARD, OP_ALLGATHER);
	CHECK(b != NULL);
	if (b) {
		DBL_NEAR(b->count, 2 * 4 * 4 * 2, 0);
		DBL_NEAR(b->exposed_s, b->time_s, 0);
	}
	c.recompute = RC_NONE;
	/*
	 * Not ZeRO-3: as today's DeepSpeed, but for its bf16 optimizer (v0.6.2
	 * on), which adds each micro-batch's gradients into fp32: 18 bytes a
	 * parameter of the stage at 0.85 of the A100's 2.039 TB/s, m times.
	 */
	c.zero = 1;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &old, &eb) == 0);
	c.framework = FW_DEEPSPEED;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &now, &eb) == 0);
	DBL_NEAR(old.optim_acc_s, 0, 0);
	DBL_NEAR(now.optim_acc_s, now.microbatches * 18 * now.stage_params / (0.85 * 2039e9), 1e-12);
	CHECK(now.optim_acc_s > 0);
	DBL_NEAR(now.step_s, old.step_s + now.optim_acc_s, 1e-12);
	c.zero = 2;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &now, &eb) == 0);
	DBL_NEAR(now.optim_acc_s, 0, 0);
}

/*
 * Megatron's interleaved schedule, chunk by chunk (models/step.md,
 * "Megatron's interleaved schedule, chunk by chunk"), by hand.  Gradients:
 * Megatron-LM's 70B row, 345.8 ms of reduction, v = 7, p = 2, 117.4 ms a
 * micro-batch's backward: chunks of 49.4 ms launched 33.54 ms apart queue
 * from the first on, so the last ends 7 × 49.4 − 6 × 33.54 = 144.5 ms
 * past the backward; chunks shorter than the gap never queue and the last
 * alone is exposed; one chunk is the whole reduction at the end.
 * Parameters: two chunks of 35 ms, p = 1, 10 ms a chunk's forward: chunk 0
 * waits 35 − 10 = 25 ms, chunk 1 (launched beside it) 70 − 35 − 10 =
 * 25 ms; a gather far shorter than the forwards waits its last bucket once.
 */
void test_step_chunks(void)
{
	double gap = 2 * 0.1174 / 7;

	DBL_NEAR(step_grad_chunks(0.3458, 7, 2, 0.1174), 0.3458 - 6 * gap, 1e-12);
	DBL_NEAR(step_grad_chunks(0.3458, 7, 2, 0.1174), 0.14454, 1e-4);
	DBL_NEAR(step_grad_chunks(0.07, 7, 2, 0.1174), 0.01, 1e-12);
	DBL_NEAR(step_grad_chunks(0.07, 1, 2, 0.1174), 0.07, 1e-12);
	DBL_NEAR(step_gather_chunks(0.07, 0.001, 2, 1, 0.02), 0.05, 1e-12);
	DBL_NEAR(step_gather_chunks(0.002, 0.0005, 4, 2, 0.04), 0.0005, 1e-12);
	/* p = 2: chunk 0's forward runs two micro-batches (20 ms) after its
	 * 30 ms wait, chunk 1 then waits 80 − 50 − 10 = 20 ms */
	DBL_NEAR(step_gather_chunks(0.08, 0.001, 2, 2, 0.02), 0.05, 1e-12);
}

/*
 * FSDP's ZeRO-2 (SHARD_GRAD_OP) without a pipeline: every unit, a layer,
 * is gathered again in each micro-batch's forward (its parameters freed
 * once its gradient is reduce-scattered), prefetched as ZeRO-3's forward
 * gathers are; no gather after the update, as DeepSpeed's and Megatron's
 * ZeRO-2 have.  GPT-3 175B cut to 8 layers on 8 A100s, 8 micro-batches of
 * one: 64 gathers of a layer's share (2 bytes a parameter), each well
 * under a layer's forward, so each micro-batch exposes only its first
 * (8 x one); the reduce-scatters stay one a micro-batch of 4-byte values.
 */
void test_step_fsdp_shard_grad_op(void)
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
	c.dp = 8; c.global_batch = 64; c.seq = 2048; c.zero = 2; c.framework = FW_FSDP;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	CHECK(find(&r, DIM_DP, PH_OPTIMIZER, OP_ALLGATHER) == NULL);
	row = find(&r, DIM_DP, PH_FORWARD, OP_ALLGATHER);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->count, 8 * 8, 0);
	DBL_NEAR(row->bytes, r.stage_params * 2 / 8, 1e-12);
	DBL_NEAR(row->exposed_s, 8 * row->one_s, 1e-12);
	row = find(&r, DIM_DP, PH_BACKWARD, OP_REDUCESCATTER);
	CHECK(row != NULL);
	if (!row)
		return;
	DBL_NEAR(row->count, 8, 0);
	DBL_NEAR(row->bytes, r.stage_params * 4, 1e-12);
	/* Megatron's ZeRO-2 gathers once, after the update */
	c.framework = FW_MEGATRON;
	CHECK(step_run(&w, &c, &cs, &rm, STEP_BAND_NONE, &r, &eb) == 0);
	CHECK(find(&r, DIM_DP, PH_FORWARD, OP_ALLGATHER) == NULL);
	row = find(&r, DIM_DP, PH_OPTIMIZER, OP_ALLGATHER);
	CHECK(row != NULL && row->count == 1);
}
