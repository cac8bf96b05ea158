/*
 * Unit tests of the step's shape (src/step_shape.c): the layers of each
 * pipeline stage and the FLOPs of a step, against values worked by hand.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

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
	struct step_compute cs = { 312e12, 0.5, 0, NULL, 0, 0 };
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
	/* An odd rest: DeepSeek-V3's 61 layers over 16 stages, 14 of
	 * ceil(61/16) = 4 and 5 left, 3 on the first and 2 on the last (which
	 * holds the loss); over 2 stages 31 and 30; 33 layers over 32 stages
	 * leave none for the ends and are refused. */
	c.layers_first = c.layers_last = 0;
	w.layers = 61;
	CHECK(step_stage_layers(&w, &c, &f, &mid, &l, &eb) == 0);
	DBL_NEAR(f, 3, 0);
	DBL_NEAR(mid, 4, 0);
	DBL_NEAR(l, 2, 0);
	c.pp = 2;
	CHECK(step_stage_layers(&w, &c, &f, &mid, &l, &eb) == 0);
	DBL_NEAR(f, 31, 0);
	DBL_NEAR(l, 30, 0);
	w.layers = 33;
	c.pp = 32;
	CHECK(step_stage_layers(&w, &c, &f, &mid, &l, &eb) < 0);
	CHECK(strstr(eb.msg, "does not divide the 33 layers") != NULL);
}
