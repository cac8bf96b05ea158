/*
 * Unit tests of the tier calibration (calib.h, models/fit.md).
 */
#include <math.h>

#include "harness.h"
#include "calib.h"
#include "cost.h"

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

/* Two nodes of 8 GPUs, 8 NIC ports each; links as the hgx-h100-ndr spec. */
static struct system S_h100(void)
{
	struct system s = { .name = "test", .gpus_per_node = 8, .nics_per_node = 8,
			    .have_inter = 1 };

	s.intra = (struct tier){ .name = "nvlink", .link = { .alpha = 4e-6, .beta = 370e9 },
				 .beta_line = 450e9 };
	s.inter = (struct tier){ .name = "ndr", .link = { .alpha = 4e-6, .beta = 48e9 },
				 .beta_line = 50e9 };
	return s;
}

/*
 * Exact 16-rank ring all-reduce data of α_e = 10 µs, β_e = 45 GB/s per NIC
 * port with the spec's intra tier: by models/system.md's ring,
 * T = 2·(16−2)·4 µs + 2·(2−1)·10 µs + 2·15/16·S / min(370, 8·45 GB/s)
 *   = 132 µs + 1.875·S / 360 GB/s.
 * The fit finds α_e and β_e; the spec's intra tier stays.
 */
void test_calib_nic_fit(void)
{
	struct system s = S_h100(), cal;
	double S[14], T[14];
	struct calib_log log;
	struct calib_tier t;
	struct calib_nic nic;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 14; i++) {
		S[i] = ldexp(1, 20 + (int)i);
		T[i] = 132e-6 + 1.875 * S[i] / 360e9;
	}
	log = (struct calib_log){ S, T, 14, OP_ALLREDUCE, ALGO_RING, 16 };
	calib_tier_spec(&s.intra, &t);
	INT_EQ(t.beta.source, CALIB_SPEC);
	INT_EQ(calib_nic_fit(&log, 1, &s, &t, &nic, &eb), 0);
	DBL_NEAR(nic.alpha.value, 10e-6, 1e-6);
	DBL_NEAR(nic.beta.value, 45e9, 1e-6);
	INT_EQ(nic.alpha.source, CALIB_FIT);
	INT_EQ(nic.beta.source, CALIB_FIT);
	DBL_NEAR(t.beta.value, 370e9, 0);
	/* The calibrated system predicts 4 nodes: 2·28·4 + 2·3·10 µs + 1.9375·S/360 GB/s. */
	calib_apply(&cal, &s, &t, &nic);
	DBL_NEAR(calib_system_time(&cal, OP_ALLREDUCE, ALGO_RING, 32, 1e9),
		 284e-6 + 1.9375e9 / 360e9, 1e-9);
}

/*
 * The same data from a machine whose calibrated intra tier (300 GB/s) is
 * the slower: the logs cannot tell β_e, which is kept from the spec; a
 * β_e above the line rate is held there.
 */
void test_calib_nic_undetermined(void)
{
	struct system s = S_h100();
	double S[14], T[14];
	struct calib_log log;
	struct calib_tier t;
	struct calib_nic nic;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 14; i++) {
		S[i] = ldexp(1, 20 + (int)i);
		T[i] = 132e-6 + 1.875 * S[i] / 300e9;
	}
	log = (struct calib_log){ S, T, 14, OP_ALLREDUCE, ALGO_RING, 16 };
	calib_tier_spec(&s.intra, &t);
	t.beta = (struct calib_value){ .value = 300e9, .ci95 = NAN, .source = CALIB_FIT };
	INT_EQ(calib_nic_fit(&log, 1, &s, &t, &nic, &eb), 0);
	INT_EQ(nic.beta.source, CALIB_SPEC);
	DBL_NEAR(nic.beta.value, 48e9, 0);
	DBL_NEAR(nic.alpha.value, 10e-6, 1e-6);
	/* 8·55 GB/s of NICs, above their 50 GB/s line rate: held at it. */
	for (i = 0; i < 14; i++)
		T[i] = 132e-6 + 1.875 * S[i] / 440e9;
	calib_tier_spec(&s.intra, &t);
	INT_EQ(calib_nic_fit(&log, 1, &s, &t, &nic, &eb), 0);
	INT_EQ(nic.beta.source, CALIB_BOUND);
	DBL_NEAR(nic.beta.value, 50e9, 0);
	CHECK(nic.alpha.value >= 0);
	/* No NICs: an error. */
	s.have_inter = 0;
	INT_EQ(calib_nic_fit(&log, 1, &s, &t, &nic, &eb), -1);
}

/*
 * A calibrated tier's base latency in the tier model: paid once per call,
 * on one node (the single-link ring plus L0) and on several.
 */
void test_calib_tier_base(void)
{
	struct system s = S_h100();
	struct cost_model m;

	s.intra.base = 5e-6;
	cost_model_tiers(&m, &s);
	/* 8 ranks, one node: 5 µs + 2·7·(4 µs + 1e9/(8·370e9) s). */
	DBL_NEAR(cost_time(&m, OP_ALLREDUCE, ALGO_RING, 8, 1e9),
		 5e-6 + 14 * (4e-6 + 1e9 / 8 / 370e9), 1e-12);
	/* 16 ranks: 5 + 2·14·4 + 2·1·4 µs + 1.875·S/min(370, 384) GB/s. */
	DBL_NEAR(cost_time(&m, OP_ALLREDUCE, ALGO_RING, 16, 1e9),
		 5e-6 + 112e-6 + 8e-6 + 1.875e9 / 370e9, 1e-12);
	/* One rank: no call, no base. */
	DBL_NEAR(cost_time(&m, OP_ALLREDUCE, ALGO_RING, 1, 1e9), 0, 0);
}

/*
 * Both tiers from exact logs of one node (4 and 8 ranks) and of two (16
 * ranks): L0 = 6 µs, α_i = 3 µs, β_i = 300 GB/s; α_e = 8 µs, β_e = 30 GB/s
 * per port (8 ports: 240 GB/s, the slower).  One node, ring:
 * T = 6 + 2(n−1)·3 µs + 2(n−1)/n·S/300 GB/s; two nodes, models/system.md's
 * ring: T = 6 + 2·14·3 + 2·1·8 µs + 1.875·S/240 GB/s = 106 µs + ....
 */
void test_calib_both_tiers(void)
{
	struct system s = S_h100();
	double S[14], T4[14], T8[14], T16[14];
	struct calib_log one[2], two;
	struct calib_tier t;
	struct calib_nic nic;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 14; i++) {
		S[i] = ldexp(1, 10 + 2 * (int)i);
		T4[i] = 6e-6 + 6 * 3e-6 + 1.5 * S[i] / 300e9;
		T8[i] = 6e-6 + 14 * 3e-6 + 1.75 * S[i] / 300e9;
		T16[i] = 106e-6 + 1.875 * S[i] / 240e9;
	}
	one[0] = (struct calib_log){ S, T4, 14, OP_ALLREDUCE, ALGO_RING, 4 };
	one[1] = (struct calib_log){ S, T8, 14, OP_ALLREDUCE, ALGO_RING, 8 };
	two = (struct calib_log){ S, T16, 14, OP_ALLREDUCE, ALGO_RING, 16 };
	INT_EQ(calib_tier_fit(one, 2, s.intra.beta_line, 0, &t, &eb), 0);
	DBL_NEAR(t.base.value, 6e-6, 1e-6);
	DBL_NEAR(t.alpha.value, 3e-6, 1e-6);
	DBL_NEAR(t.beta.value, 300e9, 1e-6);
	INT_EQ(calib_nic_fit(&two, 1, &s, &t, &nic, &eb), 0);
	DBL_NEAR(nic.alpha.value, 8e-6, 1e-6);
	DBL_NEAR(nic.beta.value, 30e9, 1e-6);
	INT_EQ(nic.beta.source, CALIB_FIT);
	DBL_NEAR(t.beta.value, 300e9, 1e-6);   /* a calibrated intra tier stays */
}
