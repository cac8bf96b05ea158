/*
 * Fits: coefficients of the models, the α-β fit on exact and on real data,
 * the regime model, held-out accuracy on the real logs, presets.
 * Expected values are worked out by hand in the comments.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "fit.h"
#include "harness.h"
#include "measfile.h"
#include "preset.h"

#define DATA "tests/data/nccl/"

void test_fit_link_coeffs(void)
{
	struct link_coeffs c;
	struct errbuf eb;

	/* Ring all-reduce: 2(n-1)α + 2(n-1)/n·S/β; n = 8: 14 and 1.75. */
	INT_EQ(fit_link_coeffs(OP_ALLREDUCE, ALGO_RING, 8, &c, &eb), 0);
	DBL_NEAR(c.a, 14, 1e-15);
	DBL_NEAR(c.b, 1.75, 1e-15);
	/* NCCL's double binary tree, n = 8: 2·3 = 6 and 2. */
	INT_EQ(fit_link_coeffs(OP_ALLREDUCE, ALGO_DBTREE, 8, &c, &eb), 0);
	DBL_NEAR(c.a, 6, 1e-15);
	DBL_NEAR(c.b, 2, 1e-15);
	/* Ring all-gather, n = 4: 3 and 3/4. */
	INT_EQ(fit_link_coeffs(OP_ALLGATHER, ALGO_RING, 4, &c, &eb), 0);
	DBL_NEAR(c.a, 3, 1e-15);
	DBL_NEAR(c.b, 0.75, 1e-15);
	/* All-to-all, n = 8: 7 and 7/8; broadcast, n = 4: 3 and 1. */
	INT_EQ(fit_link_coeffs(OP_ALLTOALL, ALGO_RING, 8, &c, &eb), 0);
	DBL_NEAR(c.a, 7, 1e-15);
	DBL_NEAR(c.b, 0.875, 1e-15);
	INT_EQ(fit_link_coeffs(OP_BROADCAST, ALGO_RING, 4, &c, &eb), 0);
	DBL_NEAR(c.a, 3, 1e-15);
	DBL_NEAR(c.b, 1, 1e-15);
	INT_EQ(fit_link_coeffs(OP_SENDRECV, ALGO_RING, 2, &c, &eb), 0);
	DBL_NEAR(c.a, 1, 1e-15);
	DBL_NEAR(c.b, 1, 1e-15);

	INT_EQ(fit_link_coeffs(OP_ALLGATHER, ALGO_TREE, 4, &c, &eb), -1);
	STR_EQ(eb.msg, "algorithm 'tree' is modelled for all_reduce only; all_gather uses ring");
	INT_EQ(fit_link_coeffs(OP_ALLREDUCE, ALGO_RING, 1, &c, &eb), -1);
	STR_EQ(eb.msg, "1 rank moves no data; need at least 2 ranks");
}

/* Exact times of the ring on 8 ranks with α = 5 µs, β = 200 GB/s. */
void test_fit_ab_exact(void)
{
	double S[20], T[20];
	struct link_coeffs c = { 14, 1.75, 0 };
	struct ab_fit f;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 20; i++) {
		S[i] = ldexp(1, 3 + 2 * (int)i);
		T[i] = 14 * 5e-6 + 1.75 * S[i] / 200e9;
	}
	INT_EQ(fit_ab(S, T, 20, &c, 0, &f, &eb), 0);
	DBL_NEAR(f.alpha, 5e-6, 1e-9);
	DBL_NEAR(f.beta, 200e9, 1e-9);
	/* n½ = aαβ/b = 14·5e-6·2e11/1.75 = 8e6 B. */
	DBL_NEAR(f.n_half, 8e6, 1e-9);
	DBL_NEAR(f.rms, 0, 1e-9);
	CHECK(f.alpha_err < 1e-12);
	/* Robust regression agrees on exact data. */
	INT_EQ(fit_ab(S, T, 20, &c, 1, &f, &eb), 0);
	DBL_NEAR(f.alpha, 5e-6, 1e-6);
	DBL_NEAR(f.beta, 200e9, 1e-6);
}

/* Two points determine the line: T = 2α + S/β through (0, 10 µs), (1 MB, 20 µs). */
void test_fit_ab_two_points(void)
{
	double S[2] = { 0, 1e6 }, T[2] = { 10e-6, 20e-6 };
	struct link_coeffs c = { 2, 1, 0 };
	struct ab_fit f;
	struct errbuf eb;

	INT_EQ(fit_ab(S, T, 2, &c, 0, &f, &eb), 0);
	DBL_NEAR(f.alpha, 5e-6, 1e-12);
	DBL_NEAR(f.beta, 1e11, 1e-12);
	CHECK(isnan(f.alpha_err));
	CHECK(isnan(f.beta_err));
}

void test_fit_ab_too_few(void)
{
	double S[3] = { 1024, 1024, 1024 }, T[3] = { 1e-5, 1.1e-5, 0.9e-5 };
	struct link_coeffs c = { 2, 1, 0 };
	struct ab_fit f;
	struct errbuf eb;

	INT_EQ(fit_ab(S, T, 1, &c, 0, &f, &eb), -1);
	STR_EQ(eb.msg, "need at least two distinct sizes to fit alpha and beta, got 1");
	INT_EQ(fit_ab(S, T, 3, &c, 0, &f, &eb), -1);
	STR_EQ(eb.msg, "need at least two distinct sizes to fit alpha and beta, got 1");
	INT_EQ(fit_ab(S, T, 0, &c, 0, &f, &eb), -1);
	T[1] = 0;
	S[1] = 2048;
	INT_EQ(fit_ab(S, T, 3, &c, 0, &f, &eb), -1);
}

/*
 * Times that fall with size: the slope would be negative, so 1/β = 0 and
 * α alone is fitted: minimising Σ(aα/T_i - 1)² gives
 * α = Σ(1/T)/Σ(1/T²)/a; with T = 10, 8 µs and a = 2:
 * Σ1/T = 0.1 + 0.125 = 0.225 /µs, Σ1/T² = 0.01 + 0.015625 = 0.025625 /µs²,
 * α = 0.225/0.025625/2 = 4.390243902... µs.
 */
void test_fit_ab_negative_slope(void)
{
	double S[2] = { 1000, 2000 }, T[2] = { 10e-6, 8e-6 };
	struct link_coeffs c = { 2, 1, 0 };
	struct ab_fit f;
	struct errbuf eb;

	INT_EQ(fit_ab(S, T, 2, &c, 0, &f, &eb), 0);
	DBL_NEAR(f.alpha, 4.390243902439024e-6, 1e-12);
	DBL_NEAR(f.beta, FIT_BETA_MAX, 0);
}

/* One outlier (x3) among exact rows: the robust fit keeps α and β. */
void test_fit_ab_robust(void)
{
	double S[16], T[16];
	struct link_coeffs c = { 14, 1.75, 0 };
	struct ab_fit f, g;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 16; i++) {
		S[i] = ldexp(1, 10 + (int)i);
		T[i] = 14 * 5e-6 + 1.75 * S[i] / 200e9;
	}
	T[14] *= 3;
	INT_EQ(fit_ab(S, T, 16, &c, 1, &f, &eb), 0);
	INT_EQ(fit_ab(S, T, 16, &c, 0, &g, &eb), 0);
	DBL_NEAR(f.alpha, 5e-6, 1e-3);
	DBL_NEAR(f.beta, 200e9, 1e-3);
	CHECK(fabs(g.beta / 200e9 - 1) > 0.05);
}

/* The synthetic logs were printed from known α and β (make-synthetic.sh). */
static void fit_file(const char *path, enum coll_algo algo, double alpha, double beta,
		     double rel)
{
	struct meas m;
	struct errbuf eb;
	struct link_coeffs c;
	struct ab_fit f;
	double S[64], T[64];
	size_t i;

	meas_init(&m, path);
	INT_EQ(meas_load_file(path, &m, &eb), 0);
	INT_EQ(meas_select(&m, OP_COUNT, 0, &eb), 0);
	INT_EQ(fit_link_coeffs((enum coll_op)m.op, algo, m.ranks, &c, &eb), 0);
	for (i = 0; i < m.n && i < 64; i++) {
		S[i] = m.rows[i].size;
		T[i] = m.rows[i].time;
	}
	INT_EQ(fit_ab(S, T, m.n, &c, 0, &f, &eb), 0);
	DBL_NEAR(f.alpha, alpha, rel);
	DBL_NEAR(f.beta, beta, rel);
	meas_release(&m);
}

void test_fit_synthetic_logs(void)
{
	/* Times are rounded to 0.01 µs: 6.05 for 6.048 is 0.03 %. */
	fit_file(DATA "ag-x4-synthetic.txt", ALGO_RING, 2e-6, 16e9, 2e-3);
	fit_file(DATA "rs-x8-old-synthetic.txt", ALGO_RING, 5e-6, 100e9, 2e-3);
	fit_file(DATA "a2a-x8-extracol-synthetic.txt", ALGO_RING, 3e-6, 50e9, 2e-3);
	fit_file(DATA "bcast-x4-noheader-synthetic.txt", ALGO_RING, 4e-6, 20e9, 2e-3);
}

/*
 * Two regimes, ring on 2 ranks (a = 2, b = 1): α = 2 µs, β = 1 GB/s up to
 * 1 KiB, α = 10 µs, β = 100 GB/s from 2 KiB.  The search finds both.
 */
void test_fit_regimes_two(void)
{
	double S[21], T[21], x;
	/* No base-latency prior: the regimes as fitted. */
	struct fit_opts o = { .algo = ALGO_RING, .base_steps = -1 };
	struct fit_model m;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 21; i++) {
		S[i] = ldexp(1, (int)i);
		T[i] = S[i] <= 1024 ? 2 * 2e-6 + S[i] / 1e9 : 2 * 10e-6 + S[i] / 1e11;
	}
	INT_EQ(fit_model_fit(S, T, 21, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	INT_EQ(m.nreg, 2);
	DBL_NEAR(m.reg[0].alpha, 2e-6, 1e-9);
	DBL_NEAR(m.reg[0].beta, 1e9, 1e-9);
	DBL_NEAR(m.reg[0].hi, 1024, 0);
	DBL_NEAR(m.reg[1].lo, 2048, 0);
	DBL_NEAR(m.reg[1].alpha, 10e-6, 1e-9);
	DBL_NEAR(m.reg[1].beta, 1e11, 1e-9);
	/* Inside a regime: its line. */
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 2, 512), 4e-6 + 512e-9, 1e-9);
	/* Half way (in log S) between 1 KiB and 2 KiB: the mean of the two. */
	x = 1024 * sqrt(2);
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 2, x),
		 0.5 * ((4e-6 + x / 1e9) + (20e-6 + x / 1e11)), 1e-9);
	/* Beyond the last regime: the last one. */
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 2, 1e9), 20e-6 + 1e-2, 1e-9);
}

/*
 * The base-latency prior (models/fit.md): with κ = 2, a 2-rank ring fit
 * (a = 2) of latency 2·2 µs = 4 µs keeps its times, and splits the 4 µs
 * into α = 4/(2 + 2) = 1 µs per step and a base of 2 µs; on 4 ranks
 * (a = 6) the latency is (2 + 6)·1 µs = 8 µs, not 6·2 µs = 12 µs.
 */
void test_fit_base_prior(void)
{
	double S[16], T[16];
	struct fit_opts o = { .algo = ALGO_RING, .regimes = 1 };
	struct fit_model m;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 16; i++) {
		S[i] = ldexp(1, 3 + (int)i);
		T[i] = 2 * 2e-6 + S[i] / 1e10;
	}
	INT_EQ(fit_model_fit(S, T, 16, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	DBL_NEAR(m.base_steps, 2, 0);
	DBL_NEAR(m.reg[0].alpha, 1e-6, 1e-9);
	DBL_NEAR(m.reg[0].beta, 1e10, 1e-9);
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 2, 1024), 4e-6 + 1024 / 1e10, 1e-9);
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 4, 0), 8e-6, 1e-9);
	/* --base-steps 0 (a negative κ inside): the old transfer, 12 µs. */
	o.base_steps = -1;
	INT_EQ(fit_model_fit(S, T, 16, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 4, 0), 12e-6, 1e-9);
}

/*
 * β above the line rate: set to the line rate and α refitted alone.
 * Data of β = 20 GB/s bounded at 10 GB/s: the fit keeps β = 10 GB/s and
 * no latency turns negative.
 */
void test_fit_line_rate(void)
{
	double S[12], T[12];
	struct fit_opts o = { .algo = ALGO_RING, .regimes = 1, .base_steps = -1, .line_rate = 10e9 };
	struct fit_model m;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 12; i++) {
		S[i] = ldexp(1, 10 + (int)i);
		T[i] = 2 * 3e-6 + S[i] / 20e9;
	}
	INT_EQ(fit_model_fit(S, T, 12, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	DBL_NEAR(m.reg[0].beta, 10e9, 0);
	CHECK(m.reg[0].alpha >= 0);
	/* Below the bound nothing changes. */
	o.line_rate = 40e9;
	INT_EQ(fit_model_fit(S, T, 12, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	DBL_NEAR(m.reg[0].beta, 20e9, 1e-9);
	DBL_NEAR(m.reg[0].alpha, 3e-6, 1e-9);
}

/* Exact α-β data: one regime is enough (the noise floor buys no more). */
void test_fit_regimes_one(void)
{
	double S[20], T[20];
	struct fit_opts o = { .algo = ALGO_RING };
	struct fit_model m;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 20; i++) {
		S[i] = ldexp(1, 3 + (int)i);
		T[i] = 14 * 5e-6 + 1.75 * S[i] / 200e9;
	}
	INT_EQ(fit_model_fit(S, T, 20, OP_ALLREDUCE, 8, &o, &m, &eb), 0);
	INT_EQ(m.nreg, 1);
	o.regimes = 3;
	INT_EQ(fit_model_fit(S, T, 20, OP_ALLREDUCE, 8, &o, &m, &eb), 0);
	INT_EQ(m.nreg, 3);
	o.regimes = 4;
	INT_EQ(fit_model_fit(S, T, 7, OP_ALLREDUCE, 8, &o, &m, &eb), -1);
	STR_EQ(eb.msg, "4 regimes need at least 8 sizes (2 each), got 7");
}

/*
 * A model fitted for ring all-reduce predicts all-gather on 4 ranks with
 * the all-gather coefficients: 3α + 0.75·S/β; α = 1 µs, β = 10 GB/s,
 * S = 1 MB: 3e-6 + 0.75e6/1e10 = 7.8e-5 s.
 */
void test_fit_model_transfer(void)
{
	struct fit_model m;
	struct link l = { 1e-6, 1e10, 0 };

	fit_model_from_link(&m, OP_ALLREDUCE, ALGO_RING, 8, &l);
	DBL_NEAR(fit_model_time(&m, OP_ALLGATHER, 4, 1e6), 7.8e-5, 1e-12);
	/* And ring all-reduce on 8: 14e-6 + 1.75e6/1e10 = 1.89e-4 s. */
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 8, 1e6), 1.89e-4, 1e-12);
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 1, 1e6), 0, 0);
}

/*
 * The accuracy the regime model must reach on held-out sizes of the real
 * logs (models/fit.md): median <= 5 %, 90th percentile <= 15 %.
 */
static void holdout_file(const char *path, struct holdout *h)
{
	struct meas m;
	struct errbuf eb;
	struct fit_opts o = { .algo = ALGO_RING };
	double S[64], T[64];
	size_t i;

	meas_init(&m, path);
	INT_EQ(meas_load_file(path, &m, &eb), 0);
	INT_EQ(meas_select(&m, OP_COUNT, 0, &eb), 0);
	for (i = 0; i < m.n && i < 64; i++) {
		S[i] = m.rows[i].size;
		T[i] = m.rows[i].time;
	}
	INT_EQ(fit_holdout(S, T, m.n, (enum coll_op)m.op, m.ranks, &o, h, &eb), 0);
	INT_EQ(h->n, 25);
	meas_release(&m);
}

void test_fit_holdout_real_logs(void)
{
	struct holdout h;

	holdout_file(DATA "a100-x8-nvswitch.txt", &h);
	CHECK(h.median <= 0.05);
	CHECK(h.p90 <= 0.15);
	holdout_file(DATA "l40s-x4-pcie-ring.txt", &h);
	CHECK(h.median <= 0.05);
	CHECK(h.p90 <= 0.15);
}

void test_fit_holdout_too_few(void)
{
	double S[3] = { 1, 2, 3 }, T[3] = { 1, 2, 3 };
	struct fit_opts o = { .algo = ALGO_RING };
	struct holdout h;
	struct errbuf eb;

	INT_EQ(fit_holdout(S, T, 3, OP_ALLREDUCE, 8, &o, &h, &eb), -1);
	STR_EQ(eb.msg, "held-out check needs at least 4 sizes, got 3");
}

/* Save a two-regime model, read it back through the preset reader. */
void test_fit_preset_round_trip(void)
{
	const char *path = "tests/unit/rt.preset";
	struct fit_model m, back;
	struct ab_fit ab = { 4e-6, 150e9, NAN, NAN, 0, 0, 0 };
	struct preset p;
	struct link l;
	struct errbuf eb;

	memset(&m, 0, sizeof(m));
	m.op = OP_ALLREDUCE;
	m.algo = ALGO_RING;
	m.ranks = 8;
	m.nreg = 2;
	m.reg[0] = (struct regime){ 3.5e-6, 7.5e9, 8, 8192, 11, NAN, NAN };
	m.reg[1] = (struct regime){ 1.25e-5, 1.9e11, 16384, 134217728, 14, NAN, NAN };
	INT_EQ(fit_preset_write(path, "rt", "round trip", "line one\nline two",
				&ab, &m, &eb), 0);
	INT_EQ(preset_load_file(path, &p, &eb), 0);
	INT_EQ(preset_link(&p, &l, &eb), 0);
	DBL_NEAR(l.alpha, 4e-6, 1e-12);
	DBL_NEAR(l.beta, 150e9, 1e-12);
	INT_EQ(fit_model_from_preset(&p, &back, &eb), 1);
	INT_EQ(back.nreg, 2);
	INT_EQ(back.ranks, 8);
	INT_EQ(back.op, OP_ALLREDUCE);
	DBL_NEAR(back.reg[1].alpha, 1.25e-5, 1e-12);
	DBL_NEAR(back.reg[1].beta, 1.9e11, 1e-12);
	DBL_NEAR(back.reg[1].lo, 16384, 0);
	DBL_NEAR(back.reg[1].hi, 134217728, 0);
	DBL_NEAR(back.reg[0].hi, 8192, 0);
	preset_release(&p);
	remove(path);

	/* A plain preset has no regimes. */
	ab.alpha = 1e-6;
	m.nreg = 1;
	INT_EQ(fit_preset_write(path, "rt", "plain", NULL, &ab, &m, &eb), 0);
	INT_EQ(preset_load_file(path, &p, &eb), 0);
	INT_EQ(fit_model_from_preset(&p, &back, &eb), 0);
	preset_release(&p);
	remove(path);

	INT_EQ(fit_preset_write("no-such-dir/x.preset", "x", "x", NULL, &ab, &m, &eb), -1);
	CHECK(strstr(eb.msg, "cannot create 'no-such-dir/x.preset'") != NULL);

	/* Every digit survives: the values read back exactly. */
	ab.alpha = 4.01836024294597e-06;
	ab.beta = 153730764695.88605;
	INT_EQ(fit_preset_write(path, "rt", "digits", NULL, &ab, &m, &eb), 0);
	INT_EQ(preset_load_file(path, &p, &eb), 0);
	STR_EQ(preset_get(&p, "alpha"), "4.01836024294597e-06");
	STR_EQ(preset_get(&p, "beta"), "153730764695.88605");
	preset_release(&p);
	remove(path);

	/* A line break in the description (a log's path) adds no key. */
	INT_EQ(fit_preset_write(path, "rt", "fitted to a\ngamma = 0.001\rb\x1b[2J",
				"from a\ngamma = 0.001\\", &ab, &m, &eb), 0);
	INT_EQ(preset_load_file(path, &p, &eb), 0);
	CHECK(preset_get(&p, "gamma") == NULL);
	STR_EQ(preset_get(&p, "description"), "fitted to a gamma = 0.001 b [2J");
	preset_release(&p);
	remove(path);

	/* A name the reader refuses is not written at all. */
	INT_EQ(fit_preset_write("tests/unit/H100.preset", "H100", "x", NULL, &ab, &m, &eb), -1);
	CHECK(strstr(eb.msg, "invalid name 'H100'") != NULL);
	CHECK(access("tests/unit/H100.preset", F_OK) < 0);
	/* Nor a name that is not the file's: the loader would refuse it. */
	INT_EQ(fit_preset_write(path, "other", "x", NULL, &ab, &m, &eb), -1);
	STR_EQ(eb.msg, "'tests/unit/rt.preset': the name 'other' is not the file's ('rt')");
	CHECK(access(path, F_OK) < 0);
}

void test_fit_rel_err(void)
{
	/* 110 predicted for 100 measured is 10 % high; 90 is 10 % low */
	DBL_NEAR(fit_rel_err(110, 100), 0.1, 1e-12);
	DBL_NEAR(fit_rel_err(90, 100), -0.1, 1e-12);
	/* rounding noise is no error at all */
	DBL_NEAR(fit_rel_err(0.1 + 0.2, 0.3), 0, 0);
}

/*
 * The --range band: a one-regime model of α = 1 µs ± 0.1 µs, β = 10 GB/s
 * ± 1 GB/s fitted on 2 ranks with κ = 2.  At 2 ranks (a = 2) and S = 0 the
 * band is (2 + 2)·(1 ± 0.1) µs = 3.6 to 4.4 µs; at 4 ranks (a = 6) κ
 * spreads from 1.5 to 2.5, the latency c = 4 µs at 2 ranks splitting into
 * α = c/(κ + 2), so the 4-rank latency c·(κ + 6)/(κ + 2) falls with κ:
 * (2.5 + 6)·0.9·4/4.5 µs to (1.5 + 6)·1.1·4/3.5 µs, and there, carried
 * to a rank count no fit measured, the spec's spread of α (÷ and × 2.39)
 * widens it to 6.8/2.39 = 2.845 µs and 9.4286·2.39 = 22.53 µs.  A link
 * preset (no intervals) gets the spec's spread at any rank count: at 2
 * ranks and 1 GB, 4 µs/2.39 + 1e9/(10e9·1.212) to 4 µs·2.39 +
 * 1e9/(10e9·0.738).
 */
void test_fit_model_range(void)
{
	struct fit_model m;
	double lo, hi;

	memset(&m, 0, sizeof(m));
	m.op = OP_ALLREDUCE;
	m.algo = ALGO_RING;
	m.ranks = 2;
	m.base_steps = 2;
	m.nreg = 1;
	m.reg[0] = (struct regime){ 1e-6, 1e10, 8, 1e9, 10, 0.1e-6, 1e9 };
	fit_model_range(&m, OP_ALLREDUCE, 2, 0, &lo, &hi);
	DBL_NEAR(lo, 3.6e-6, 1e-12);
	DBL_NEAR(hi, 4.4e-6, 1e-12);
	fit_model_range(&m, OP_ALLREDUCE, 4, 0, &lo, &hi);
	DBL_NEAR(lo, 8.5 * 0.9e-6 * 4 / 4.5 / 2.39, 1e-12);
	DBL_NEAR(hi, 7.5 * 1.1e-6 * 4 / 3.5 * 2.39, 1e-12);
	/* Large S on 2 ranks: S/β with β from 9 to 11 GB/s. */
	fit_model_range(&m, OP_ALLREDUCE, 2, 1e9, &lo, &hi);
	DBL_NEAR(lo, 3.6e-6 + 1e9 / 11e9, 1e-12);
	DBL_NEAR(hi, 4.4e-6 + 1e9 / 9e9, 1e-12);
	/* A link preset: no intervals, κ = 0. */
	m.base_steps = 0;
	m.reg[0] = (struct regime){ 2e-6, 1e10, 0, 0, 0, NAN, NAN };
	fit_model_range(&m, OP_ALLREDUCE, 2, 1e9, &lo, &hi);
	DBL_NEAR(lo, 4e-6 / 2.39 + 1e9 / (10e9 * 1.212), 1e-12);
	DBL_NEAR(hi, 4e-6 * 2.39 + 1e9 / (10e9 * 0.738), 1e-12);
}

/* A stand-in for NCCL's model: LL below 100 000 B, Simple from there. */
static int S_two_protocols(const struct cost_model *m, enum coll_op op, enum coll_algo a,
			   const struct group *g, double bytes, struct coll_cost *out,
			   struct errbuf *eb)
{
	(void)m, (void)op, (void)a, (void)g, (void)eb;
	*out = (struct coll_cost){ .proto = bytes < 1e5 ? PROTO_LL : PROTO_SIMPLE };
	return 0;
}

/*
 * Protocol-aware regimes: exact data of two protocols, 2-rank ring
 * (a = 2, b = 1): LL α = 2 µs, β = 5 GB/s below 100 000 B, Simple
 * α = 20 µs, β = 20 GB/s from there.  The split is where the model
 * switches, to the byte, so a size between the measured 64 KiB and
 * 128 KiB takes its own protocol's regime: 98 304 B is LL, 2·2 µs +
 * 98304/5e9 s = 23.66 µs; 99 999 B too; 100 001 B is Simple.
 */
void test_fit_switches(void)
{
	double S[16], T[16];
	struct cost_model sw = { .kind = COST_NCCL, .coll = S_two_protocols };
	struct fit_opts o = { .algo = ALGO_RING, .base_steps = -1, .switches = &sw,
			      .switch_op = OP_ALLREDUCE, .switch_ranks = 2 };
	struct fit_model m;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 16; i++) {
		S[i] = ldexp(1, 8 + (int)i);
		T[i] = S[i] < 1e5 ? 4e-6 + S[i] / 5e9 : 40e-6 + S[i] / 20e9;
	}
	INT_EQ(fit_model_fit(S, T, 16, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	INT_EQ(m.nreg, 2);
	DBL_NEAR(m.reg[0].hi, 1e5, 1e-8);
	DBL_NEAR(m.reg[1].lo, 1e5, 1e-8);
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 2, 98304), 4e-6 + 98304 / 5e9, 1e-9);
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 2, 99999), 4e-6 + 99999 / 5e9, 1e-6);
	DBL_NEAR(fit_model_time(&m, OP_ALLREDUCE, 2, 100001), 40e-6 + 100001 / 20e9, 1e-6);
	/* Without the switches the search blends across (64 KiB, 128 KiB). */
	o.switches = NULL;
	INT_EQ(fit_model_fit(S, T, 16, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	CHECK(fabs(fit_model_time(&m, OP_ALLREDUCE, 2, 98304) / (4e-6 + 98304 / 5e9) - 1) > 0.2);
	/* A number of regimes asked for: no regime across the switch either. */
	o.switches = &sw;
	o.regimes = 2;
	INT_EQ(fit_model_fit(S, T, 16, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	o.regimes = 3;
	INT_EQ(fit_model_fit(S, T, 16, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	INT_EQ(m.nreg, 3);
}

/*
 * The spec's bandwidth as the prior of a last regime the log ends below
 * the n½ of: 2-rank ring (a = 2, κ = 2), 8 B to 4 KiB, 2α = 10 µs and
 * β = 10 GB/s: at 4 KiB the bandwidth term is 0.41 µs of 10.41 µs, so β is
 * not determined and the spec's 20 GB/s is taken; α is refitted, about
 * 10 µs/(κ + a) = 2.5 µs.  A log that reaches its n½ keeps its own β.
 */
void test_fit_spec_prior(void)
{
	double S[10], T[10];
	struct fit_opts o = { .algo = ALGO_RING, .regimes = 1, .spec_beta = 20e9 };
	struct fit_model m;
	struct errbuf eb;
	size_t i;

	for (i = 0; i < 10; i++) {
		S[i] = ldexp(1, 3 + (int)i);
		T[i] = 10e-6 + S[i] / 10e9;
	}
	INT_EQ(fit_model_fit(S, T, 10, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	INT_EQ(m.spec_last, 1);
	DBL_NEAR(m.reg[0].beta, 20e9, 0);
	DBL_NEAR(m.reg[0].alpha, 2.5e-6, 0.02);
	for (i = 0; i < 10; i++) {
		S[i] = ldexp(1, 12 + 2 * (int)i);
		T[i] = 10e-6 + S[i] / 10e9;
	}
	INT_EQ(fit_model_fit(S, T, 10, OP_ALLREDUCE, 2, &o, &m, &eb), 0);
	INT_EQ(m.spec_last, 0);
	DBL_NEAR(m.reg[0].beta, 10e9, 1e-9);
}
