/*
 * Unit tests of DeepSeek's DualPipe in the step (src/step_dualpipe.c):
 * a pair's time, the pairs, the bubble of the DeepSeek-V3 report's Table
 * 2 and the checks, against values worked by hand (models/step-teams.md,
 * "DualPipe").
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"
#include "step.h"
#include "step_int.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/*
 * A pair of compute k beside communication c on 132 SMs, 20 of them the
 * communication's while it runs: 100 ms of compute and 66 ms of
 * communication take 100 + 66 x 20/132 = 110 ms; DeepSeek-V3's middle
 * stage, 91 ms of compute and 143.5 ms of all-to-all and sends, waits for
 * the communication, 143.5 ms.  No SM count, no charge.
 */
void test_step_dualpipe_pair(void)
{
	DBL_NEAR(step_dualpipe_pair_s(100, 66, 132), 110, 1e-15);
	DBL_NEAR(step_dualpipe_pair_s(91, 143.5, 132), 143.5, 0);
	DBL_NEAR(step_dualpipe_pair_s(100, 66, 0), 100, 0);
}

/*
 * Pairs on the first rank (dualpipe.py, DualPipe.step with half_rank 0):
 * p = 8, m = 20: step 4 runs m/2 - p + 1 = 3 rounds of two pairs, step 5
 * p/2 - 1 = 3 pairs, 9 = 20 - 12 + 1; p = 16, m = 120: 97.  The bubble
 * (p/2 - 1)(F&B + B - 3W): p = 16, F&B 143.5, B 133.5, W 30.5:
 * 7 x 185.5 = 1298.5; none on two stages.  Activations: p + 1 micro-batches
 * on every rank.
 */
void test_step_dualpipe_counts(void)
{
	struct step_config c;

	DBL_NEAR(step_dualpipe_pairs(8, 20), 9, 0);
	DBL_NEAR(step_dualpipe_pairs(16, 120), 97, 0);
	DBL_NEAR(step_dualpipe_bubble_s(16, 143.5, 133.5, 30.5), 1298.5, 1e-15);
	DBL_NEAR(step_dualpipe_bubble_s(2, 143.5, 133.5, 30.5), 0, 0);
	step_config_init(&c);
	c.pp = 16;
	c.schedule = PP_DUALPIPE;
	DBL_NEAR(step_sched_inflight(&c, 0, 120), 17, 0);
	DBL_NEAR(step_sched_inflight(&c, 15, 120), 17, 0);
}

/*
 * The step with free communication and 8 s of compute over m = 8
 * micro-batches on p = 4 stages, 1 s a micro-batch (1/3 forward, 2/3
 * backward): every pair is its compute, the bubble (4/2 - 1)(1 + 2/3 -
 * 3 x 1/3) = 2/3 s, the step 8 + 2/3 s (1F1B: 11 s).  Refused: one stage,
 * an odd pp, an odd m, m under 2p.
 */
void test_step_dualpipe_step(void)
{
	struct workload w = gpt3();
	struct step_compute cs;
	struct step_config c;
	struct step_result r;
	struct cost_model m = free_model();
	struct errbuf eb;

	sched_fixture(&c, &cs, 4);
	c.schedule = PP_DUALPIPE;
	CHECK(step_run(&w, &c, &cs, &m, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(r.mb_exposed_s, 0, 0);
	DBL_NEAR(r.bubble_s, 2.0 / 3, 1e-14);
	DBL_NEAR(r.step_s, 8 + 2.0 / 3, 1e-14);
	c.global_batch = 6;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "at least 2 x pp = 8") != NULL);
	c.global_batch = 9;
	CHECK(step_check(&w, &c, &eb) < 0);
	c.pp = 3;
	c.global_batch = 12;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "even pp") != NULL);
	c.pp = 1;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "needs a pipeline") != NULL);
}

/*
 * The parameters a rank holds: rank r the stages r and p - 1 - r
 * (dualpipe's examples/example_dualpipe.py).  GPT-3 on 4 stages of 30,
 * 24, 24 and 18 layers, a layer 12h² + 13h = 1 812 099 072 parameters,
 * the embedding and the tied copy on the last stage 50257 x 12288 =
 * 617 558 016 each: rank 0 holds 30 + 18 layers and both, 48 x
 * 1 812 099 072 + 2 x 617 558 016 = 88 215 871 488 parameters, 2 bytes
 * each, 176 431 742 976 B (twice the first stage would be 219 922 120 704);
 * gradients 4 bytes, the optimizer 12.  Rank 1 holds 24 + 24 layers,
 * fewer, and keeps fewer activations: the first rank is the most loaded.
 */
void test_step_dualpipe_params(void)
{
	struct workload w = gpt3();
	struct step_compute cs;
	struct step_config c;
	struct step_result r;
	struct cost_model m = free_model();
	struct errbuf eb;
	double P = 48 * 1812099072.0 + 2 * 617558016.0;

	sched_fixture(&c, &cs, 4);
	c.schedule = PP_DUALPIPE;
	c.layers_first = 30;
	c.layers_last = 18;
	CHECK(step_run(&w, &c, &cs, &m, STEP_BAND_NONE, &r, &eb) == 0);
	DBL_NEAR(P, 88215871488.0, 0);
	DBL_NEAR(r.mem.weights_B, 176431742976.0, 1e-15);
	DBL_NEAR(r.mem.grads_B, 4 * P, 1e-15);
	DBL_NEAR(r.mem.optim_B, 12 * P, 1e-15);
	CHECK(r.mem.stage != NULL && strcmp(r.mem.stage, "first") == 0);
}
