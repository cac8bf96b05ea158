/*
 * Unit tests of the tier calibration (calib.h, models/fit.md).
 */
#include <math.h>

#include "harness.h"
#include "calib.h"

/*
 * Exact data of L0 = 5 µs, α = 2 µs, β = 15 GB/s on 2 and 4 ranks (ring
 * all-reduce: a = 2, 6; b = 1, 1.5): two rank counts tell L0 from α.
 */
void test_calib_two_rank_counts(void)
{
	double S[20], T2[20], T4[20];
	struct calib_log logs[2];
	struct calib_tier t;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 20; i++) {
		S[i] = ldexp(1, 3 + (int)i);
		T2[i] = 5e-6 + 2 * 2e-6 + 1.0 * S[i] / 15e9;
		T4[i] = 5e-6 + 6 * 2e-6 + 1.5 * S[i] / 15e9;
	}
	logs[0] = (struct calib_log){ S, T2, 20, OP_ALLREDUCE, ALGO_RING, 2 };
	logs[1] = (struct calib_log){ S, T4, 20, OP_ALLREDUCE, ALGO_RING, 4 };
	INT_EQ(calib_tier_fit(logs, 2, 31.5e9, 0, &t, &eb), 0);
	INT_EQ((long)t.rank_counts, 2);
	DBL_NEAR(t.base.value, 5e-6, 1e-6);
	DBL_NEAR(t.alpha.value, 2e-6, 1e-6);
	DBL_NEAR(t.beta.value, 15e9, 1e-6);
	INT_EQ(t.base.source, CALIB_FIT);
	/* Exact data: intervals of zero width. */
	CHECK(t.beta.ci95 < 1e-3 * t.beta.value);
	/* 8 ranks, 1 MB: 5 µs + 14·2 µs + 1.75·1e6/15e9 s. */
	DBL_NEAR(calib_tier_time(&t, OP_ALLREDUCE, ALGO_RING, 8, 1e6),
		 5e-6 + 28e-6 + 1.75e6 / 15e9, 1e-6);
}

/*
 * One rank count: L0 from the prior κ = 2 (L0 = 2α); the 2-rank latency
 * 9 µs splits into α = 9/(2 + 2) = 2.25 µs and L0 = 4.5 µs.  A line rate
 * below the data's β holds β there.
 */
void test_calib_prior_and_bound(void)
{
	double S[16], T[16];
	struct calib_log log;
	struct calib_tier t;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 16; i++) {
		S[i] = ldexp(1, 3 + (int)i);
		T[i] = 9e-6 + S[i] / 20e9;
	}
	log = (struct calib_log){ S, T, 16, OP_ALLREDUCE, ALGO_RING, 2 };
	INT_EQ(calib_tier_fit(&log, 1, 0, 0, &t, &eb), 0);
	INT_EQ(t.base.source, CALIB_PRIOR);
	DBL_NEAR(t.alpha.value, 2.25e-6, 1e-6);
	DBL_NEAR(t.base.value, 4.5e-6, 1e-6);
	DBL_NEAR(t.beta.value, 20e9, 1e-6);
	INT_EQ(calib_tier_fit(&log, 1, 10e9, 0, &t, &eb), 0);
	DBL_NEAR(t.beta.value, 10e9, 0);
	INT_EQ(t.beta.source, CALIB_BOUND);
	CHECK(t.alpha.value >= 0 && t.base.value >= 0);
	INT_EQ(calib_tier_fit(&log, 0, 0, 0, &t, &eb), -1);
	STR_EQ(eb.msg, "no measurements to calibrate with");
}
