/* The expected step's terms (src/step_expect.c) against hand values. */
#include "harness.h"
#include "step_expect.h"

/* Blom's approximation against tabulated expected maxima of standard
 * normals (Harter 1961: n = 2 0.5642, 8 1.4236, 64 2.4175, 1000 3.2414):
 * within 5 % at n = 2, 4 % at 64, 1 % at 8 and 1000. */
void test_expect_max_normal(void)
{
	DBL_NEAR(expect_max_normal(1), 0, 0);
	DBL_NEAR(expect_max_normal(0.5), 0, 0);
	DBL_NEAR(expect_max_normal(2), 0.5642, 0.05);
	DBL_NEAR(expect_max_normal(64), 2.4175, 0.04);
	DBL_NEAR(expect_max_normal(8), 1.4236, 0.01);
	DBL_NEAR(expect_max_normal(1000), 3.2414, 0.01);
	CHECK(expect_max_normal(16384) > expect_max_normal(8192));
}

/* (cap / TDP)^(1/3), at most 1: 500 W of 700 is 0.8939 of the clock. */
void test_expect_power_share(void)
{
	DBL_NEAR(expect_power_share(500, 700), 0.89390, 1e-4);
	DBL_NEAR(expect_power_share(700, 700), 1, 0);
	DBL_NEAR(expect_power_share(900, 700), 1, 0);
	DBL_NEAR(expect_power_share(0, 700), 1, 0);
	DBL_NEAR(expect_power_share(300, 0), 1, 0);
	DBL_NEAR(expect_power_share(87.5, 700), 0.5, 1e-12);
}

/* A layer's kernels as models/step.md counts them. */
void test_expect_layer_kernels(void)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.arch = WL_GPT;
	DBL_NEAR(expect_layer_kernels(&w, 1, RC_NONE), 30, 0);        /* 10 forward, 20 backward */
	DBL_NEAR(expect_layer_kernels(&w, 0, RC_NONE), 39, 0);        /* unfused: 13 forward */
	DBL_NEAR(expect_layer_kernels(&w, 0, RC_FULL), 52, 0);        /* the forward again */
	DBL_NEAR(expect_layer_kernels(&w, 0, RC_SELECTIVE), 43, 0);   /* the attention core again */
	w.arch = WL_LLAMA;
	DBL_NEAR(expect_layer_kernels(&w, 1, RC_NONE), 36, 0);
	w.experts = 8;
	DBL_NEAR(expect_layer_kernels(&w, 1, RC_NONE), 51, 0);
}

/*
 * The expected step by hand: a best step of 10 s = 4 slots x 2 s of
 * compute + 2 s else, 90 % of the compute in GEMMs, 1000 kernels a
 * micro-batch, 20 a step, 0.1 s lost beside hidden communication per
 * micro-batch and 0.2 s per step, 0.05 s of housekeeping, 64 GPUs, m = 3.
 * clock 0.8, gap 10 us:
 *   clock   2 x 0.9 x (1/0.8 - 1) = 0.45 s a micro-batch
 *   gaps    1000 x 10 us = 0.01 s a micro-batch, 20 x 10 us a step
 *   work    2 + 0.45 + 0.01 + 0.1 = 2.56 s; x (1 + 0.01 z(64)) for the
 *           slowest GPU, z(64) = Phi^-1(63.625/64.25)
 */
void test_expect_apply_by_hand(void)
{
	struct expect_terms t;
	struct expect_params p = { 0.8, 10e-6 };
	struct expect_out o;
	double z = expect_max_normal(64), mb = 2.56 * (1 + 0.01 * z);

	memset(&t, 0, sizeof(t));
	t.step_best_s = 10;
	t.mb_s = 2;
	t.bound_share = 0.9;
	t.kernels_mb = 1000;
	t.kernels_step = 20;
	t.interf_mb_s = 0.1;
	t.interf_dp_s = 0.2;
	t.slots = 4;
	t.m = 3;
	t.ranks = 64;
	t.power_share = 1;
	t.house_s = 0.05;
	t.kernels = 1;
	expect_apply(&t, &p, &o);
	DBL_NEAR(z, 2.3367, 1e-4);    /* Phi^-1(0.990272) */
	DBL_NEAR(o.clock_s, 4 * 0.45, 1e-12);
	DBL_NEAR(o.gaps_s, 4 * 0.01 + 20 * 10e-6, 1e-12);
	DBL_NEAR(o.interference_s, 4 * 0.1 + 0.2, 1e-12);
	DBL_NEAR(o.straggler_s, 4 * (mb - 2.56), 1e-12);
	DBL_NEAR(o.mb_s, mb, 1e-12);
	DBL_NEAR(o.compute_s, 3 * mb, 1e-12);
	DBL_NEAR(o.step_s, 10 + 4 * (mb - 2) + 20 * 10e-6 + 0.2 + 0.05, 1e-12);
	/* A power cap of half the clock doubles what the GEMMs take. */
	t.power_share = 0.5;
	expect_apply(&t, &p, &o);
	DBL_NEAR(o.clock_s, 4 * 2 * 0.9 * (1 / 0.4 - 1), 1e-12);
	/* A SKU that holds more of its clock than its family's reference:
	 * 0.8 x 1.1 = 0.88 of the rated clock; at 1.3 it would pass the
	 * rated clock, and stops there: nothing to add. */
	t.power_share = 1.1;
	expect_apply(&t, &p, &o);
	DBL_NEAR(o.clock_s, 4 * 2 * 0.9 * (1 / 0.88 - 1), 1e-12);
	t.power_share = 1.3;
	expect_apply(&t, &p, &o);
	DBL_NEAR(o.clock_s, 0, 0);
	/* Given compute: the best case stays. */
	t.kernels = 0;
	expect_apply(&t, &p, &o);
	DBL_NEAR(o.step_s, 10, 0);
}

/*
 * The kinds that lean (EXPECT_LEAN): FSDP with PyTorch's attention from
 * 16384 tokens, FSDP without recomputation, DeepSpeed's ZeRO-3 of 2021;
 * no other configuration, and each kind's figures ordered low <= median
 * <= high above zero (published / expected).
 */
void test_expect_leans(void)
{
	struct step_config c;
	int k;

	step_config_init(&c);
	c.seq = 16384;
	c.recompute = RC_FULL;
	CHECK(step_expect_leans(&c) == 0);                       /* megatron */
	c.framework = FW_FSDP;
	CHECK(step_expect_leans(&c) == 1u << LEAN_FSDP_LONG);
	c.seq = 16383;
	CHECK(step_expect_leans(&c) == 0);
	c.seq = 65536;
	c.attention = ATTN_FUSED;                               /* Transformer Engine's */
	CHECK(step_expect_leans(&c) == 0);
	c.attention = ATTN_FLASH2;
	c.recompute = RC_NONE;
	CHECK(step_expect_leans(&c) == (1u << LEAN_FSDP_LONG | 1u << LEAN_FSDP_NO_RECOMPUTE));
	c.seq = 2048;
	CHECK(step_expect_leans(&c) == 1u << LEAN_FSDP_NO_RECOMPUTE);
	c.framework = FW_DEEPSPEED_2021;
	CHECK(step_expect_leans(&c) == 0);
	c.zero = 3;
	CHECK(step_expect_leans(&c) == 1u << LEAN_DS2021_ZERO3);
	c.framework = FW_DEEPSPEED;
	CHECK(step_expect_leans(&c) == 0);
	for (k = 0; k < LEAN_COUNT; k++) {
		const struct expect_lean_kind *e = &EXPECT_LEAN[k];

		CHECK(e->runs > 0 && e->sources > 0 && e->sources <= e->runs);
		CHECK(e->lo > 0 && e->lo <= e->median && e->median <= e->hi);
		CHECK(e->kind && e->about);
	}
	/*
	 * DeepSpeed's from its six runs (models/step-checks.md, the ZeRO-3
	 * table): TFLOP/s a GPU expected over published, the step published
	 * over expected; the median the mean of the middle two.
	 */
	{
		double r[6] = { 146.6 / 144, 47.5 / 44, 99.6 / 88, 158.8 / 138, 119.6 / 98,
				66.7 / 48 };   /* in ascending order */
		const struct expect_lean_kind *e = &EXPECT_LEAN[LEAN_DS2021_ZERO3];

		DBL_NEAR(e->lo, r[0], 0.001);
		DBL_NEAR(e->median, (r[2] + r[3]) / 2, 0.001);
		DBL_NEAR(e->hi, r[5], 0.001);
		CHECK(e->runs == 6 && e->hi > EXPECT_BAND_HI);
	}
}
