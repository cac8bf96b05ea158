/*
 * Unit tests of the step's pipeline schedule (src/step_sched.c): the
 * micro-batches a stage holds in flight and the bubble, against values
 * worked by hand from Megatron's schedules and Narayanan et al. 2021.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"
#include "step.h"
#include "step_int.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/*
 * Micro-batches in flight on pipeline rank r of p = 4, m = 8: 1F1B warms
 * up p - r of them (4 on the first stage, 1 on the last); GPipe holds all
 * m; the interleaved schedule with v = 2 warms up (p - r - 1)·2 + (v - 1)·p
 * chunks plus one, of half a stage each: (6 + 4 + 1)/2 = 5.5 on the first
 * stage, (0 + 4 + 1)/2 = 2.5 on the last.  Never more than m.
 */
void test_step_sched_inflight(void)
{
	struct step_config c;

	step_config_init(&c);
	DBL_NEAR(step_sched_inflight(&c, 0, 8), 1, 0);
	c.pp = 4;
	DBL_NEAR(step_sched_inflight(&c, 0, 8), 4, 0);
	DBL_NEAR(step_sched_inflight(&c, 3, 8), 1, 0);
	DBL_NEAR(step_sched_inflight(&c, 0, 2), 2, 0);
	c.schedule = PP_GPIPE;
	DBL_NEAR(step_sched_inflight(&c, 0, 8), 8, 0);
	DBL_NEAR(step_sched_inflight(&c, 3, 8), 8, 0);
	c.schedule = PP_INTERLEAVED;
	c.virt = 2;
	DBL_NEAR(step_sched_inflight(&c, 0, 8), 5.5, 0);
	DBL_NEAR(step_sched_inflight(&c, 3, 8), 2.5, 0);
	DBL_NEAR(step_sched_inflight(&c, 0, 4), 4, 0);
}

/*
 * The groups of micro-batches a virtual stage runs in a row: Megatron-Core's
 * (schedules.py, microbatch_group_size_per_vp_stage N in [p, m], the
 * remainder m mod N 0 or at least p): p = 8 takes N = 8 for m = 16 and
 * 24; m = 12 wants N = 12 (8 to 11 leave 4, 3, 2, 1); m = 20 takes
 * N = 10; p = 4, m = 13 takes N = 7 (13 mod 7 = 6); m < p has none.  With
 * v = 2 on the first of 8 stages, m = 12 warms up 2·7 + 12 chunks plus
 * one, (14 + 12 + 1)/2 = 13.5 micro-batches' worth, capped at 12.
 */
void test_step_sched_vp_group(void)
{
	struct step_config c;
	struct workload w = gpt3();
	struct errbuf eb;

	step_config_init(&c);
	c.pp = 8;
	c.schedule = PP_INTERLEAVED;
	c.virt = 2;
	DBL_NEAR(step_vp_group(&c, 16), 8, 0);
	DBL_NEAR(step_vp_group(&c, 24), 8, 0);
	DBL_NEAR(step_vp_group(&c, 12), 12, 0);
	DBL_NEAR(step_vp_group(&c, 20), 10, 0);
	DBL_NEAR(step_vp_group(&c, 7), 0, 0);
	DBL_NEAR(step_sched_inflight(&c, 0, 12), 12, 0);
	DBL_NEAR(step_sched_inflight(&c, 0, 20), (14 + 10 + 1) / 2.0, 0);
	c.pp = 4;
	DBL_NEAR(step_vp_group(&c, 13), 7, 0);

	/* step_check: any m >= pp under megatron */
	c.pp = 8;
	c.seq = 2048;
	c.global_batch = 12;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.global_batch = 21;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.global_batch = 7;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "needs at least pp = 8 micro-batches, got 7") != NULL);

	/* PyTorch's: max(1, m / pp) rounds dividing m.  On 8 stages m = 12 is
	 * one round of 12, m = 20 two of 10; m = 21 two rounds that do not
	 * divide it. */
	c.framework = FW_FSDP;
	DBL_NEAR(step_vp_group(&c, 12), 12, 0);
	DBL_NEAR(step_vp_group(&c, 20), 10, 0);
	DBL_NEAR(step_vp_group(&c, 16), 8, 0);
	DBL_NEAR(step_vp_group(&c, 21), 0, 0);
	c.global_batch = 12;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.global_batch = 21;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "runs the micro-batches in 2 rounds (m / pp), which do not divide "
			     "m = 21") != NULL);
}

/*
 * The bubble with free communication and a given compute: 8 s of compute
 * a step over m = 8 micro-batches is 1 s a micro-batch; on p = 4 stages
 * the bubble is (p - 1)/v micro-batches (Narayanan et al. 2021, §2.2):
 * 3 s with 1F1B or GPipe, so the step is 8 + 3 = 11 s; 1.5 s with the
 * interleaved schedule at v = 2, a step of 9.5 s.
 */
void test_step_sched_bubble(void)
{
	struct workload w = gpt3();
	struct step_compute cs;
	struct step_config c;
	struct step_result r;
	struct cost_model m = free_model();
	struct errbuf eb;

	sched_fixture(&c, &cs, 4);
	CHECK(step_run(&w, &c, &cs, &m, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.microbatches, 8, 0);
	DBL_NEAR(r.mb_compute_s, 1, 1e-15);
	DBL_NEAR(r.mb_exposed_s, 0, 0);
	DBL_NEAR(r.bubble_s, 3, 1e-15);
	DBL_NEAR(r.step_s, 11, 1e-15);
	DBL_NEAR(r.tokens_per_s, 8 * 2048 / 11.0, 1e-15);
	c.schedule = PP_GPIPE;
	CHECK(step_run(&w, &c, &cs, &m, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.step_s, 11, 1e-15);
	c.schedule = PP_INTERLEAVED;
	c.virt = 2;
	CHECK(step_run(&w, &c, &cs, &m, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.bubble_s, 1.5, 1e-15);
	DBL_NEAR(r.step_s, 9.5, 1e-15);
}
