/*
 * Pipeline bubble: closed forms against hand-computed values, the
 * simulator against schedules traced by hand, and the simulator against
 * the closed forms over many P, M, v and tb/tf (the seed's exercise:
 * count the bubble and compare it with (P-1)/(M+P-1)).
 */
#include <stdio.h>

#include "harness.h"
#include "pipeline.h"

static struct pp_config cfg(enum pp_schedule s, unsigned long P, unsigned long M,
			    unsigned long v, double tf, double tb)
{
	struct pp_config c = { s, P, M, v, tf, tb };

	return c;
}

void test_pipeline_names(void)
{
	enum pp_schedule s[PP_COUNT];
	struct errbuf eb;

	STR_EQ(pp_schedule_name(PP_GPIPE), "gpipe");
	STR_EQ(pp_schedule_name(PP_1F1B), "1f1b");
	STR_EQ(pp_schedule_name(PP_INTERLEAVED), "interleaved");
	INT_EQ(pp_schedule_lookup("1f1b", &s[0], &eb), 0);
	INT_EQ(s[0], PP_1F1B);
	INT_EQ(pp_schedule_lookup("zb-h1", &s[0], &eb), -1);
	STR_EQ(eb.msg, "unknown schedule 'zb-h1'; choose gpipe, 1f1b or interleaved");
	INT_EQ(pp_schedule_parse_list("gpipe,interleaved", s, &eb), 2);
	INT_EQ(s[0], PP_GPIPE);
	INT_EQ(s[1], PP_INTERLEAVED);
	INT_EQ(pp_schedule_parse_list("1f1b,1f1b", s, &eb), -1);
	INT_EQ(pp_schedule_parse_list("1f1b,", s, &eb), -1);
	INT_EQ(pp_schedule_parse_list("", s, &eb), -1);
}

void test_pipeline_check(void)
{
	struct pp_config c;
	struct errbuf eb;

	c = cfg(PP_1F1B, 8, 24, 1, 1, 2);
	INT_EQ(pp_check(&c, &eb), 0);
	c.stages = 0;
	INT_EQ(pp_check(&c, &eb), -1);
	c = cfg(PP_1F1B, 8, 0, 1, 1, 2);
	INT_EQ(pp_check(&c, &eb), -1);
	c = cfg(PP_1F1B, 8, 24, 2, 1, 2);       /* chunks need the interleaved schedule */
	INT_EQ(pp_check(&c, &eb), -1);
	c = cfg(PP_INTERLEAVED, 8, 24, 0, 1, 2);
	INT_EQ(pp_check(&c, &eb), -1);
	c = cfg(PP_INTERLEAVED, 8, 24, 2, 1, 2);
	INT_EQ(pp_check(&c, &eb), 0);
	c = cfg(PP_INTERLEAVED, 8, 30, 2, 1, 2);
	INT_EQ(pp_check(&c, &eb), -1);
	STR_EQ(eb.msg, "the interleaved schedule needs microbatches divisible by stages: "
	       "'30' is not a multiple of 8");
	c = cfg(PP_GPIPE, 8, 24, 1, -1e-3, 2);
	INT_EQ(pp_check(&c, &eb), -1);
	c = cfg(PP_GPIPE, 8, 24, 1, 1, 0);
	INT_EQ(pp_check(&c, &eb), -1);
	c = cfg(PP_GPIPE, 8, 24, 1, 1, NAN);
	INT_EQ(pp_check(&c, &eb), -1);
	c = cfg(PP_GPIPE, 8, 24, 1, INFINITY, 1);
	INT_EQ(pp_check(&c, &eb), -1);
}

/*
 * P = 8, M = 24 (the brief's example): fraction 7/31 = 0.2258064516...,
 * ratio 7/24 = 0.2916666...; with tf = 10 ms, tb = 20 ms: ideal
 * 24 × 30 ms = 720 ms, bubble 7 × 30 ms = 210 ms, step 930 ms.
 */
void test_pipeline_bubble_1f1b(void)
{
	struct pp_config c = cfg(PP_1F1B, 8, 24, 1, 10e-3, 20e-3);
	struct pp_result r;
	struct errbuf eb;

	INT_EQ(pp_bubble(&c, &r, &eb), 0);
	DBL_NEAR(r.bubble_fraction, 0.22580645161290322, 1e-15);
	DBL_NEAR(r.bubble_ratio, 0.29166666666666667, 1e-15);
	DBL_NEAR(r.ideal, 0.720, 1e-15);
	DBL_NEAR(r.bubble, 0.210, 1e-15);
	DBL_NEAR(r.step, 0.930, 1e-15);
	DBL_NEAR(r.inflight, 8, 0);

	/* GPipe has the same bubble and keeps every microbatch. */
	c.schedule = PP_GPIPE;
	INT_EQ(pp_bubble(&c, &r, &eb), 0);
	DBL_NEAR(r.bubble_fraction, 0.22580645161290322, 1e-15);
	DBL_NEAR(r.inflight, 24, 0);

	/* One stage has no bubble; one microbatch idles (P-1)/P of the step. */
	c = cfg(PP_1F1B, 1, 5, 1, 1, 2);
	INT_EQ(pp_bubble(&c, &r, &eb), 0);
	DBL_NEAR(r.bubble_fraction, 0, 0);
	DBL_NEAR(r.bubble_ratio, 0, 0);
	DBL_NEAR(r.inflight, 1, 0);
	c = cfg(PP_1F1B, 4, 1, 1, 1, 2);
	INT_EQ(pp_bubble(&c, &r, &eb), 0);
	DBL_NEAR(r.bubble_fraction, 0.75, 1e-15);
	DBL_NEAR(r.bubble_ratio, 3, 1e-15);
	DBL_NEAR(r.inflight, 1, 0);    /* 1f1b never holds more than M */
}

/*
 * Interleaved, P = 4, M = 8, v = 2: ratio 3/16 = 0.1875, fraction
 * 3/(16+3) = 0.15789473684...; the first stage holds
 * P(1 + (P-1)/(Pv)) = 4 × (1 + 3/8) = 5.5 microbatches (Korthikanti et
 * al. 2022).  Megatron-LM paper, section 2.2.2: with v = 2 the bubble of
 * P = 8, M = 8 halves from 7/8 to 7/16 of the ideal time.
 */
void test_pipeline_bubble_interleaved(void)
{
	struct pp_config c = cfg(PP_INTERLEAVED, 4, 8, 2, 1, 2);
	struct pp_result r;
	struct errbuf eb;

	INT_EQ(pp_bubble(&c, &r, &eb), 0);
	DBL_NEAR(r.bubble_ratio, 0.1875, 1e-15);
	DBL_NEAR(r.bubble_fraction, 0.15789473684210526, 1e-15);
	DBL_NEAR(r.ideal, 24, 1e-15);
	DBL_NEAR(r.bubble, 4.5, 1e-15);
	DBL_NEAR(r.inflight, 5.5, 1e-15);

	c = cfg(PP_INTERLEAVED, 8, 8, 2, 1, 2);
	INT_EQ(pp_bubble(&c, &r, &eb), 0);
	DBL_NEAR(r.bubble_ratio, 0.4375, 1e-15);
	DBL_NEAR(r.inflight, 8, 0);      /* M = P: all forwards first */
	c.schedule = PP_1F1B;
	c.virt = 1;
	INT_EQ(pp_bubble(&c, &r, &eb), 0);
	DBL_NEAR(r.bubble_ratio, 0.875, 1e-15);
}

static int op_is(const struct pp_op *op, enum pp_pass pass, unsigned long mb,
		 unsigned long chunk, double start, double end)
{
	return op->pass == pass && op->microbatch == mb && op->chunk == chunk &&
	       fabs(op->start - start) < 1e-12 && fabs(op->end - end) < 1e-12;
}

/*
 * 1F1B, P = 2, M = 3, tf = 1, tb = 2, traced by hand.  Stage 0 runs
 * F0 | F1 B0 F2 B1 | B2 (one warm-up forward), stage 1 runs F0 B0 F1 B1
 * F2 B2.  S0 F0 [0,1]; S1 F0 [1,2], B0 [2,4]; S0 F1 [1,2], B0 waits for
 * S1 B0: [4,6]; S1 F1 [4,5], B1 [5,7]; S0 F2 [6,7], B1 [7,9]; S1 F2
 * [7,8], B2 [8,10]; S0 B2 [10,12].  Step 12 = (M+P-1)(tf+tb); each stage
 * works 9 and idles 3.
 */
void test_pipeline_sim_1f1b_by_hand(void)
{
	struct pp_config c = cfg(PP_1F1B, 2, 3, 1, 1, 2);
	struct pp_timeline t;
	struct pp_stage_stats st;
	struct errbuf eb;
	const struct pp_op *o;

	INT_EQ(pp_simulate(&c, &t, &eb), 0);
	INT_EQ(t.nops, 12);
	DBL_NEAR(t.makespan, 12, 1e-15);
	o = t.ops + t.first[0];
	CHECK(op_is(&o[0], PP_FORWARD, 0, 0, 0, 1));
	CHECK(op_is(&o[1], PP_FORWARD, 1, 0, 1, 2));
	CHECK(op_is(&o[2], PP_BACKWARD, 0, 0, 4, 6));
	CHECK(op_is(&o[3], PP_FORWARD, 2, 0, 6, 7));
	CHECK(op_is(&o[4], PP_BACKWARD, 1, 0, 7, 9));
	CHECK(op_is(&o[5], PP_BACKWARD, 2, 0, 10, 12));
	o = t.ops + t.first[1];
	CHECK(op_is(&o[0], PP_FORWARD, 0, 0, 1, 2));
	CHECK(op_is(&o[1], PP_BACKWARD, 0, 0, 2, 4));
	CHECK(op_is(&o[2], PP_FORWARD, 1, 0, 4, 5));
	CHECK(op_is(&o[3], PP_BACKWARD, 1, 0, 5, 7));
	CHECK(op_is(&o[4], PP_FORWARD, 2, 0, 7, 8));
	CHECK(op_is(&o[5], PP_BACKWARD, 2, 0, 8, 10));
	INT_EQ(o[0].stage, 1);

	pp_stage_stats(&t, 0, &st);
	DBL_NEAR(st.busy, 9, 1e-15);
	DBL_NEAR(st.idle, 3, 1e-15);
	DBL_NEAR(st.window_idle, 3, 1e-15);
	INT_EQ(st.peak_inflight, 2);
	pp_stage_stats(&t, 1, &st);
	DBL_NEAR(st.idle, 3, 1e-15);
	/* The last stage works without a gap from 1 to 10. */
	DBL_NEAR(st.first_start, 1, 0);
	DBL_NEAR(st.last_end, 10, 0);
	DBL_NEAR(st.window_idle, 0, 1e-15);
	INT_EQ(st.peak_inflight, 1);
	pp_timeline_release(&t);
}

/*
 * GPipe, P = 2, M = 2, tf = 1, tb = 2: S0 F0 [0,1] F1 [1,2]; S1 F0 [1,2]
 * F1 [2,3] B1 [3,5] B0 [5,7]; S0 B1 [5,7] B0 [7,9].  Step 9 = 3 × 3.
 */
void test_pipeline_sim_gpipe_by_hand(void)
{
	struct pp_config c = cfg(PP_GPIPE, 2, 2, 1, 1, 2);
	struct pp_timeline t;
	struct pp_stage_stats st;
	struct errbuf eb;
	const struct pp_op *o;

	INT_EQ(pp_simulate(&c, &t, &eb), 0);
	DBL_NEAR(t.makespan, 9, 1e-15);
	o = t.ops + t.first[0];
	CHECK(op_is(&o[0], PP_FORWARD, 0, 0, 0, 1));
	CHECK(op_is(&o[1], PP_FORWARD, 1, 0, 1, 2));
	CHECK(op_is(&o[2], PP_BACKWARD, 1, 0, 5, 7));
	CHECK(op_is(&o[3], PP_BACKWARD, 0, 0, 7, 9));
	o = t.ops + t.first[1];
	CHECK(op_is(&o[0], PP_FORWARD, 0, 0, 1, 2));
	CHECK(op_is(&o[1], PP_FORWARD, 1, 0, 2, 3));
	CHECK(op_is(&o[2], PP_BACKWARD, 1, 0, 3, 5));
	CHECK(op_is(&o[3], PP_BACKWARD, 0, 0, 5, 7));
	pp_stage_stats(&t, 0, &st);
	INT_EQ(st.peak_inflight, 2);
	DBL_NEAR(st.idle, 3, 1e-15);
	pp_timeline_release(&t);
}

/*
 * Interleaved, P = 2, M = 2, v = 2, tf = 1, tb = 2: chunks take 0.5 and
 * 1.  Virtual stages: q0 = S0 chunk 0, q1 = S1 chunk 0, q2 = S0 chunk 1,
 * q3 = S1 chunk 1.  M = P, so Megatron runs every forward first:
 * forwards (chunk, mb) 0.0 0.1 1.0 1.1, backwards 1.0 1.1 0.0 0.1.
 * S0: F q0 m0 [0,.5], m1 [.5,1]; S1: F q1 m0 [.5,1], m1 [1,1.5];
 * S0: F q2 m0 [1,1.5], m1 [1.5,2]; S1: F q3 m0 [1.5,2], m1 [2,2.5],
 * B q3 m0 [2.5,3.5], m1 [3.5,4.5]; S0: B q2 m0 [3.5,4.5], m1 [4.5,5.5];
 * S1: B q1 m0 [4.5,5.5], m1 [5.5,6.5]; S0: B q0 m0 [5.5,6.5], m1
 * [6.5,7.5].  Step 7.5 = M(tf+tb) + (P-1)(tf+tb)/v = 6 + 1.5.
 */
void test_pipeline_sim_interleaved_by_hand(void)
{
	struct pp_config c = cfg(PP_INTERLEAVED, 2, 2, 2, 1, 2);
	struct pp_timeline t;
	struct errbuf eb;
	const struct pp_op *o;

	INT_EQ(pp_simulate(&c, &t, &eb), 0);
	INT_EQ(t.nops, 16);
	DBL_NEAR(t.makespan, 7.5, 1e-15);
	o = t.ops + t.first[0];
	CHECK(op_is(&o[0], PP_FORWARD, 0, 0, 0, 0.5));
	CHECK(op_is(&o[1], PP_FORWARD, 1, 0, 0.5, 1));
	CHECK(op_is(&o[2], PP_FORWARD, 0, 1, 1, 1.5));
	CHECK(op_is(&o[3], PP_FORWARD, 1, 1, 1.5, 2));
	CHECK(op_is(&o[4], PP_BACKWARD, 0, 1, 3.5, 4.5));
	CHECK(op_is(&o[5], PP_BACKWARD, 1, 1, 4.5, 5.5));
	CHECK(op_is(&o[6], PP_BACKWARD, 0, 0, 5.5, 6.5));
	CHECK(op_is(&o[7], PP_BACKWARD, 1, 0, 6.5, 7.5));
	o = t.ops + t.first[1];
	CHECK(op_is(&o[0], PP_FORWARD, 0, 0, 0.5, 1));
	CHECK(op_is(&o[1], PP_FORWARD, 1, 0, 1, 1.5));
	CHECK(op_is(&o[2], PP_FORWARD, 0, 1, 1.5, 2));
	CHECK(op_is(&o[3], PP_FORWARD, 1, 1, 2, 2.5));
	CHECK(op_is(&o[4], PP_BACKWARD, 0, 1, 2.5, 3.5));
	CHECK(op_is(&o[5], PP_BACKWARD, 1, 1, 3.5, 4.5));
	CHECK(op_is(&o[6], PP_BACKWARD, 0, 0, 4.5, 5.5));
	CHECK(op_is(&o[7], PP_BACKWARD, 1, 0, 5.5, 6.5));
	pp_timeline_release(&t);
}

/*
 * The seed's exercise 3: simulate, count each stage's idle time, and
 * compare with the formula — for many P, M, v and tb/tf ratios.  Also
 * checks what the formula does not say: every stage idles the same
 * (P-1)(tf+tb)/v over the step, but inside its own window (first start
 * to last end) stage s idles only (P-1-s)(tf+tb)/v; and the first stage
 * holds as many activations as pp_bubble() says.  Each kind of mismatch
 * is counted and the first one printed.
 */
static void sweep(enum pp_schedule sched, unsigned long vmax)
{
	static const double ratios[] = { 1, 2, 0.5, 3.3, 0.01 };
	long runs = 0, bad_frac = 0, bad_step = 0, bad_window = 0, bad_inflight = 0;
	unsigned long P, M, v, s;
	size_t ri;

	for (ri = 0; ri < sizeof(ratios) / sizeof(ratios[0]); ri++)
	for (P = 1; P <= 12; P++)
	for (M = 1; M <= 36; M++)
	for (v = 1; v <= vmax; v++) {
		struct pp_config c = cfg(sched, P, M, v, 0.7, 0.7 * ratios[ri]);
		struct pp_result r;
		struct pp_timeline t;
		struct errbuf eb;

		if (sched == PP_INTERLEAVED && M % P)
			continue;
		if (pp_bubble(&c, &r, &eb) < 0 || pp_simulate(&c, &t, &eb) < 0) {
			h_report(__FILE__, __LINE__, "P=%lu M=%lu v=%lu: %s", P, M, v, eb.msg);
			continue;
		}
		runs++;
		if (!h_near(t.makespan, r.step, 1e-12) && !bad_step++)
			h_report(__FILE__, __LINE__, "%s P=%lu M=%lu v=%lu tb/tf=%g: step %.17g, "
				 "formula %.17g", pp_schedule_name(sched), P, M, v,
				 ratios[ri], t.makespan, r.step);
		for (s = 0; s < P; s++) {
			struct pp_stage_stats st;
			double win = (double)(P - 1 - s) * (c.tf + c.tb) / (double)v;

			pp_stage_stats(&t, s, &st);
			if (!h_near(st.idle / t.makespan, r.bubble_fraction, 1e-12) &&
			    !bad_frac++)
				h_report(__FILE__, __LINE__, "%s P=%lu M=%lu v=%lu tb/tf=%g "
					 "stage %lu: idle share %.17g, formula %.17g",
					 pp_schedule_name(sched), P, M, v, ratios[ri], s,
					 st.idle / t.makespan, r.bubble_fraction);
			if (fabs(st.window_idle - win) > 1e-9 * t.makespan && !bad_window++)
				h_report(__FILE__, __LINE__, "%s P=%lu M=%lu v=%lu stage %lu: "
					 "window idle %.17g, want %.17g", pp_schedule_name(sched),
					 P, M, v, s, st.window_idle, win);
			if (s == 0 && !h_near((double)st.peak_inflight / (double)v,
					      r.inflight, 1e-12) && !bad_inflight++)
				h_report(__FILE__, __LINE__, "%s P=%lu M=%lu v=%lu: peak %lu "
					 "chunks, formula %.17g microbatches",
					 pp_schedule_name(sched), P, M, v, st.peak_inflight,
					 r.inflight);
		}
		pp_timeline_release(&t);
	}
	CHECK(runs > 100);
	INT_EQ(bad_step, 0);
	INT_EQ(bad_frac, 0);
	INT_EQ(bad_window, 0);
	INT_EQ(bad_inflight, 0);
}

void test_pipeline_sim_matches_formula_gpipe(void)
{
	sweep(PP_GPIPE, 1);
}

void test_pipeline_sim_matches_formula_1f1b(void)
{
	sweep(PP_1F1B, 1);
}

void test_pipeline_sim_matches_formula_interleaved(void)
{
	sweep(PP_INTERLEAVED, 6);
}

/*
 * 1F1B keeps at most P - s microbatches on stage s (Narayanan et al.
 * 2021, section 2.2.1); GPipe keeps all M everywhere.
 */
void test_pipeline_sim_inflight_per_stage(void)
{
	struct pp_config c = cfg(PP_1F1B, 4, 10, 1, 1, 2);
	struct pp_timeline t;
	struct pp_stage_stats st;
	struct errbuf eb;
	unsigned long s;

	INT_EQ(pp_simulate(&c, &t, &eb), 0);
	for (s = 0; s < 4; s++) {
		pp_stage_stats(&t, s, &st);
		INT_EQ(st.peak_inflight, 4 - s);
	}
	pp_timeline_release(&t);
	c.schedule = PP_GPIPE;
	INT_EQ(pp_simulate(&c, &t, &eb), 0);
	for (s = 0; s < 4; s++) {
		pp_stage_stats(&t, s, &st);
		INT_EQ(st.peak_inflight, 10);
	}
	pp_timeline_release(&t);
}

void test_pipeline_sim_limits(void)
{
	struct pp_config c = cfg(PP_1F1B, 1024, 1024, 1, 1, 2);
	struct pp_timeline t;
	struct errbuf eb;

	INT_EQ(pp_sim_ops(&c), 2 * 1024 * 1024);
	INT_EQ(pp_simulate(&c, &t, &eb), -1);
	CHECK(t.ops == NULL);
	c = cfg(PP_INTERLEAVED, 8, 12, 2, 1, 2);
	INT_EQ(pp_simulate(&c, &t, &eb), -1);
	CHECK(strstr(eb.msg, "divisible") != NULL);
	c = cfg(PP_INTERLEAVED, PP_STAGES_MAX, PP_MICROBATCHES_MAX, PP_VIRTUAL_MAX, 1, 2);
	CHECK(pp_sim_ops(&c) > PP_SIM_OPS_MAX);
}

/* --virtual holds for the interleaved schedule only. */
void test_pp_config_make(void)
{
	struct pp_config c = pp_config_make(PP_INTERLEAVED, 4, 8, 2, 1, 2);

	INT_EQ((int)c.virt, 2);
	INT_EQ((int)c.stages, 4);
	INT_EQ((int)c.microbatches, 8);
	DBL_NEAR(c.tb, 2, 0);
	c = pp_config_make(PP_1F1B, 4, 8, 2, 1, 2);
	INT_EQ((int)c.virt, 1);
	INT_EQ(c.schedule, PP_1F1B);
}
