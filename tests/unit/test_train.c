/*
 * Unit tests of the training models (src/train.c).  Expected values are
 * worked out by hand in the comments, or are published figures.
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "train.h"

/* The test functions are found by name (tests/unit/list.h), not declared. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* The seed's link: α = 5 µs, β = 200 GB/s. */
static const struct link seed_link = { 5e-6, 200e9, 0 };
/* The seed's gradient: 14 GiB = 15032385536 B. */
#define SEED_GRAD 15032385536.0

static struct ddp_params seed_ddp(void)
{
	struct ddp_params p;

	ddp_params_init(&p);
	p.grad_bytes = SEED_GRAD;
	p.compute = 0.3;
	return p;
}

/*
 * Ring all-reduce 2(n-1)(α + G/(nβ)) of 14 GiB, by hand:
 *   n = 8:   14 (5e-6 + 0.00939524096)   = 0.13160337344 s
 *   n = 16:  30 (5e-6 + 0.00469762048)   = 0.1410786144 s
 *   n = 64:  126 (5e-6 + 0.00117440512)  = 0.14860504512 s
 *   n = 256: 510 (5e-6 + 0.00029360128)  = 0.1522866528 s
 * The seed prints 131.6, 141.1, 148.6, 152.3 ms and 30.5, 32.0, 33.1, 33.7 %.
 */
void test_ddp_seed_table(void)
{
	static const struct { unsigned long n; double comm, ms, pct; } want[] = {
		{ 8, 0.13160337344, 131.6, 30.5 },
		{ 16, 0.1410786144, 141.1, 32.0 },
		{ 64, 0.14860504512, 148.6, 33.1 },
		{ 256, 0.1522866528, 152.3, 33.7 },
	};
	struct ddp_params p = seed_ddp();
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct ddp_step s;

		ddp_step(&p, &seed_link, want[i].n, &s);
		DBL_NEAR(s.comm_s, want[i].comm, 1e-12);
		DBL_NEAR(s.exposed_s, want[i].comm, 1e-12);
		DBL_NEAR(s.step_s, 0.3 + want[i].comm, 1e-12);
		DBL_NEAR(s.fraction, want[i].comm / (0.3 + want[i].comm), 1e-12);
		/* The seed's printed digits. */
		DBL_NEAR(round(s.comm_s * 1e4) / 10, want[i].ms, 1e-12);
		DBL_NEAR(round(s.fraction * 1e3) / 10, want[i].pct, 1e-12);
		DBL_NEAR(s.buckets, 1, 0);
	}
}

void test_ddp_one_rank_costs_nothing(void)
{
	struct ddp_params p = seed_ddp();
	struct ddp_step s;

	ddp_step(&p, &seed_link, 1, &s);
	DBL_NEAR(s.comm_s, 0, 0);
	DBL_NEAR(s.fraction, 0, 0);
	DBL_NEAR(s.step_s, 0.3, 1e-15);
}

/*
 * Buckets on 2 ranks, α = 5 µs, β = 1 GB/s: T(S) = 2(α + S/(2β)) = 1e-5 + S/1e9.
 * G = 110 MB in 25 MB buckets: 5 buckets, the last one 10 MB.
 *   T(25 MB) = 0.02501 s, T(10 MB) = 0.01001 s, comm = 4·0.02501 + 0.01001 = 0.11005 s.
 */
void test_ddp_buckets(void)
{
	struct link l = { 5e-6, 1e9, 0 };
	struct ddp_params p;
	struct ddp_step s;

	ddp_params_init(&p);
	p.grad_bytes = 110e6;
	p.compute = 1;
	p.bucket = 25e6;
	ddp_step(&p, &l, 2, &s);
	DBL_NEAR(s.buckets, 5, 0);
	DBL_NEAR(s.bucket_bytes, 25e6, 0);
	DBL_NEAR(s.bucket_s, 0.02501, 1e-12);
	DBL_NEAR(s.last_s, 0.01001, 1e-12);
	DBL_NEAR(s.comm_s, 0.11005, 1e-12);
	DBL_NEAR(s.exposed_s, 0.11005, 1e-12);

	/* 100 MB in 25 MB buckets: exactly 4 full buckets. */
	p.grad_bytes = 100e6;
	ddp_step(&p, &l, 2, &s);
	DBL_NEAR(s.buckets, 4, 0);
	DBL_NEAR(s.last_s, 0.02501, 1e-12);
	DBL_NEAR(s.comm_s, 0.10004, 1e-12);

	/* A bucket larger than the gradient is one all-reduce. */
	p.bucket = 1e9;
	ddp_step(&p, &l, 2, &s);
	DBL_NEAR(s.buckets, 1, 0);
	DBL_NEAR(s.comm_s, 0.10001, 1e-12);
}

/*
 * Overlap: backward is 2/3 of 0.3 s = 0.2 s.  F = 0.5 hides 0.1 s of the
 * seed's 8-rank all-reduce: exposed = 0.13160337344 - 0.1 = 0.03160337344 s.
 * F = 1 hides 0.2 s > comm: nothing exposed.
 */
void test_ddp_overlap(void)
{
	struct ddp_params p = seed_ddp();
	struct ddp_step s;

	p.overlap = 0.5;
	ddp_step(&p, &seed_link, 8, &s);
	DBL_NEAR(s.comm_s, 0.13160337344, 1e-12);
	DBL_NEAR(s.exposed_s, 0.03160337344, 1e-10);
	DBL_NEAR(s.fraction, 0.03160337344 / 0.33160337344, 1e-10);
	p.overlap = 1;
	ddp_step(&p, &seed_link, 8, &s);
	DBL_NEAR(s.exposed_s, 0, 0);
	DBL_NEAR(s.fraction, 0, 0);
	/* A smaller backward share hides less: 0.5 · 0.3 s = 0.15 s > comm still. */
	p.backward_share = 0.5;
	ddp_step(&p, &seed_link, 8, &s);
	DBL_NEAR(s.exposed_s, 0, 0);
	p.backward_share = 0.25;     /* hides 0.075 s */
	ddp_step(&p, &seed_link, 8, &s);
	DBL_NEAR(s.exposed_s, 0.13160337344 - 0.075, 1e-10);
}

/* With buckets the last one is never hidden (the 110 MB example above). */
void test_ddp_overlap_last_bucket_exposed(void)
{
	struct link l = { 5e-6, 1e9, 0 };
	struct ddp_params p;
	struct ddp_step s;

	ddp_params_init(&p);
	p.grad_bytes = 110e6;
	p.compute = 1;
	p.bucket = 25e6;
	p.overlap = 1;
	ddp_step(&p, &l, 2, &s);
	DBL_NEAR(s.exposed_s, 0.01001, 1e-12);
	/* Partial overlap: hides 0.1·(2/3) s = 0.0666… s of 0.11005 s. */
	p.overlap = 0.1;
	ddp_step(&p, &l, 2, &s);
	DBL_NEAR(s.exposed_s, 0.11005 - 0.1 * 2.0 / 3.0, 1e-12);
}

/*
 * Target without overlap: share = c/(C + c) = t gives c = C·t/(1-t), and
 * c = L + V/β with L = 2(n-1)α, V = 2(n-1)/n·G, so β = V/(c - L).
 * Seed, n = 8, t = 10 %: c = 1/30 s, L = 7e-5 s, V = 1.75·G = 26306674688 B.
 */
void test_ddp_target_closed_form(void)
{
	struct ddp_params p = seed_ddp();
	struct errbuf eb;
	enum target_result r;
	double beta = 0;

	CHECK(ddp_target_beta(&p, &seed_link, 8, 0.1, &r, &beta, &eb) == 0);
	INT_EQ(r, TARGET_FOUND);
	DBL_NEAR(beta, 26306674688.0 / (1.0 / 30 - 7e-5), 1e-9);
}

/* With overlap and buckets there is no closed form: check the share at the root. */
void test_ddp_target_overlap(void)
{
	struct ddp_params p = seed_ddp();
	struct link l = seed_link;
	struct ddp_step s;
	struct errbuf eb;
	enum target_result r;
	double beta = 0;

	p.bucket = 25.0 * 1024 * 1024;
	p.overlap = 0.5;
	CHECK(ddp_target_beta(&p, &seed_link, 16, 0.05, &r, &beta, &eb) == 0);
	INT_EQ(r, TARGET_FOUND);
	l.beta = beta;
	ddp_step(&p, &l, 16, &s);
	DBL_NEAR(s.fraction, 0.05, 1e-9);
}

/*
 * Latency alone: α = 10 ms, 256 ranks, ring: 510 · 10 ms = 5.1 s against
 * 0.3 s of compute, a share of 94 % whatever β is.  And a share met even
 * at 1 B/s: 1 mB of gradient on 2 ranks with α = 0 takes 1 ms of a 301 ms step.
 */
void test_ddp_target_limits(void)
{
	struct ddp_params p = seed_ddp();
	struct link slow = { 10e-3, 200e9, 0 }, free_lat = { 0, 200e9, 0 };
	struct errbuf eb;
	enum target_result r;
	double beta = -1;

	CHECK(ddp_target_beta(&p, &slow, 256, 0.1, &r, &beta, &eb) == 0);
	INT_EQ(r, TARGET_UNREACHABLE);
	p.grad_bytes = 1e-3;
	CHECK(ddp_target_beta(&p, &free_lat, 2, 0.5, &r, &beta, &eb) == 0);
	INT_EQ(r, TARGET_ANY);
	CHECK(ddp_target_beta(&p, &free_lat, 2, 1.5, &r, &beta, &eb) == -1);
}

void test_ddp_check_rejects(void)
{
	struct ddp_params p = seed_ddp();
	struct errbuf eb;

	CHECK(ddp_check(&p, &eb) == 0);
	p.overlap = 1.5;
	CHECK(ddp_check(&p, &eb) == -1);
	p = seed_ddp();
	p.grad_bytes = 0;
	CHECK(ddp_check(&p, &eb) == -1);
	p = seed_ddp();
	p.compute = -1;
	CHECK(ddp_check(&p, &eb) == -1);
	p = seed_ddp();
	p.backward_share = 0;
	CHECK(ddp_check(&p, &eb) == -1);
}

/*
 * Rajbhandari et al. 2020 (SC'20), Table 1: per-device memory of model
 * states for a 7.5B model, K = 12, in GB, with the printed digits:
 *   Nd     P_os   P_os+g  P_os+g+p
 *   1      120    120     120
 *   4      52.5   41.3    30
 *   16     35.6   21.6    7.5
 *   64     31.4   16.6    1.88
 *   256    30.4   15.4    0.47
 *   1024   30.1   15.1    0.12
 * Each value must round to the printed one: within half a unit of its
 * last digit.
 */
void test_zero_paper_table1(void)
{
	static const struct { unsigned long n; double gb[3], half[3]; } t1[] = {
		{ 1, { 120, 120, 120 }, { 0.5, 0.5, 0.5 } },
		{ 4, { 52.5, 41.3, 30 }, { 0.05, 0.05, 0.5 } },
		{ 16, { 35.6, 21.6, 7.5 }, { 0.05, 0.05, 0.05 } },
		{ 64, { 31.4, 16.6, 1.88 }, { 0.05, 0.05, 0.005 } },
		{ 256, { 30.4, 15.4, 0.47 }, { 0.05, 0.05, 0.005 } },
		{ 1024, { 30.1, 15.1, 0.12 }, { 0.05, 0.05, 0.005 } },
	};
	struct zero_params p;
	size_t i;
	int stage;

	zero_params_init(&p);
	p.params = 7.5e9;
	for (i = 0; i < sizeof(t1) / sizeof(t1[0]); i++) {
		struct zero_cost z;

		zero_cost(&p, &seed_link, t1[i].n, 0, &z);
		DBL_NEAR(z.memory_B, 120e9, 1e-12);
		for (stage = 1; stage <= 3; stage++) {
			zero_cost(&p, &seed_link, t1[i].n, stage, &z);
			CHECK(fabs(z.memory_B / 1e9 - t1[i].gb[stage - 1]) <= t1[i].half[stage - 1]);
		}
	}
}

/* The exact values behind the table at Nd = 64: 30 + 90/64, 15 + 105/64, 120/64. */
void test_zero_memory_exact(void)
{
	struct zero_params p;
	struct zero_cost z;

	zero_params_init(&p);
	p.params = 7.5e9;
	zero_cost(&p, &seed_link, 64, 1, &z);
	DBL_NEAR(z.memory_B, 31.40625e9, 1e-14);
	zero_cost(&p, &seed_link, 64, 2, &z);
	DBL_NEAR(z.memory_B, 16.640625e9, 1e-14);
	DBL_NEAR(z.param_B, 15e9, 1e-14);
	zero_cost(&p, &seed_link, 64, 3, &z);
	DBL_NEAR(z.memory_B, 1.875e9, 1e-14);
}

/*
 * The paper's headline: a trillion parameters on 1024 GPUs with all three
 * stages take 16 TB / 1024 = 15.625 GB of model states per GPU.
 */
void test_zero_trillion(void)
{
	struct zero_params p;
	struct zero_cost z;

	zero_params_init(&p);
	p.params = 1e12;
	zero_cost(&p, &seed_link, 1024, 3, &z);
	DBL_NEAR(z.memory_B, 15.625e9, 1e-14);
}

/*
 * The seed's exercise: 7B model, 14 GiB of bf16 parameters (Ψ = 7·2³⁰) on
 * 64 ranks.  Plain all-reduce 0.14860504512 s (as in the DDP table);
 * ZeRO-3 is two all-gathers and one reduce-scatter, 3·63·(α + G/(64β))
 * = 189 · 0.00117940512 = 0.22290756768 s: 1.5 times, "≈ 149 ms ... ≈ 223 ms".
 * Volumes: 2·63/64·G = 29595009024 B and 3·63/64·G = 44392513536 B.
 */
void test_zero_seed_exercise(void)
{
	struct zero_params p;
	struct zero_cost z0, z1, z3;

	zero_params_init(&p);
	p.params = 7.0 * 1073741824.0;
	zero_cost(&p, &seed_link, 64, 0, &z0);
	zero_cost(&p, &seed_link, 64, 1, &z1);
	zero_cost(&p, &seed_link, 64, 3, &z3);
	DBL_NEAR(z0.comm_s, 0.14860504512, 1e-12);
	DBL_NEAR(z1.comm_s, 0.14860504512, 1e-12);
	DBL_NEAR(z3.comm_s, 0.22290756768, 1e-12);
	DBL_NEAR(z3.comm_s / z0.comm_s, 1.5, 1e-12);
	DBL_NEAR(z0.comm_B, 29595009024.0, 1e-15);
	DBL_NEAR(z1.comm_B, 29595009024.0, 1e-15);
	DBL_NEAR(z3.comm_B, 44392513536.0, 1e-15);
	DBL_NEAR(round(z0.comm_s * 1e3), 149, 0);
	DBL_NEAR(round(z3.comm_s * 1e3), 223, 0);
}

/*
 * Another all-reduce algorithm: a link has no Rabenseifner reduce-scatter
 * or all-gather, so ZeRO's are the cost core's ring ones, not half the
 * all-reduce.
 */
void test_zero_other_algorithm(void)
{
	struct zero_params p;
	struct zero_cost z0, z3;

	zero_params_init(&p);
	p.params = 1e9;
	p.algo = ALGO_RABENSEIFNER;
	zero_cost(&p, &seed_link, 16, 0, &z0);
	zero_cost(&p, &seed_link, 16, 3, &z3);
	DBL_NEAR(z0.comm_s, t_link(OP_ALLREDUCE, ALGO_RABENSEIFNER, &seed_link, 16, 2e9), 1e-15);
	DBL_NEAR(z3.comm_s, t_link(OP_REDUCESCATTER, ALGO_RING, &seed_link, 16, 2e9) +
		 2 * t_link(OP_ALLGATHER, ALGO_RING, &seed_link, 16, 2e9), 1e-12);
}

void test_zero_check_rejects(void)
{
	struct zero_params p;
	struct errbuf eb;

	zero_params_init(&p);
	CHECK(zero_check(&p, &eb) == -1);      /* no parameters */
	p.params = 1e9;
	CHECK(zero_check(&p, &eb) == 0);
	p.param_bytes = 0;
	CHECK(zero_check(&p, &eb) == -1);
	/* 16 × 10³⁰⁰ bytes do not fit in a double. */
	p.param_bytes = 2;
	p.params = 1e308;
	CHECK(zero_check(&p, &eb) == -1);
}

/*
 * Seed 000: a ≈ 0.15 gives 2/1.15 = 1.7391… on 2 nodes.  Amdahl's law
 * with serial share s, 1/(s + (1-s)/N), is the same function: for s = 0.25
 * and N = 8, 1/(0.25 + 0.09375) = 2.9090…; 8/(1 + 0.25·7) = 8/2.75 too.
 */
void test_speedup_values(void)
{
	DBL_NEAR(speedup(0.15, 2), 2 / 1.15, 1e-15);
	DBL_NEAR(speedup(0.15, 1), 1, 0);
	DBL_NEAR(speedup(0, 64), 64, 0);
	DBL_NEAR(speedup(0.25, 8), 1 / (0.25 + 0.75 / 8), 1e-15);
	DBL_NEAR(speedup(0.25, 8), 32.0 / 11, 1e-15);
	CHECK(isnan(speedup(-0.5, 4)));
	/* The ceiling 1/a. */
	CHECK(speedup(0.1, 1e9) < 10 && speedup(0.1, 1e9) > 9.99);
}

/* 1:45,2:89 with X1 = 45 measured: 2·45/(1 + a) = 89, a = 90/89 - 1 = 1/89. */
void test_speedup_fit_exact(void)
{
	static const double r[] = { 1, 2 }, x[] = { 45, 89 };
	struct speedup_fit f;
	struct errbuf eb;
	double fit[2];

	CHECK(speedup_fit(r, x, 2, &f, fit, &eb) == 0);
	DBL_NEAR(f.a, 1.0 / 89, 1e-10);
	DBL_NEAR(f.x1, 45, 0);
	INT_EQ(f.x1_fitted, 0);
	INT_EQ(f.dof, 0);
	DBL_NEAR(fit[1], 89, 1e-10);
	CHECK(isnan(f.a_err));
}

/* Exact data from X1 = 100, a = 0.05 without an N = 1 point: both come back. */
void test_speedup_fit_recovers(void)
{
	static const double r[] = { 2, 4, 8, 16 };
	double x[4];
	struct speedup_fit f;
	struct errbuf eb;
	size_t i;

	/* 100·N/(1 + 0.05(N-1)): 190.476…, 347.826…, 592.592…, 914.285… */
	for (i = 0; i < 4; i++)
		x[i] = 100 * r[i] / (1 + 0.05 * (r[i] - 1));
	CHECK(speedup_fit(r, x, 4, &f, NULL, &eb) == 0);
	DBL_NEAR(f.a, 0.05, 1e-8);
	DBL_NEAR(f.x1, 100, 1e-8);
	INT_EQ(f.x1_fitted, 1);
	INT_EQ(f.dof, 2);
}

static double rss_at(const double *r, const double *x, size_t n, double a, double x1)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double m = x1 * r[i] / (1 + a * (r[i] - 1));

		s += (m - x[i]) * (m - x[i]);
	}
	return s;
}

/* Noisy data: the answer is a least-squares minimum, so every nearby point is worse. */
void test_speedup_fit_is_minimum(void)
{
	static const double r[] = { 2, 4, 8, 16, 32 }, x[] = { 89, 170, 300, 480, 690 };
	struct speedup_fit f;
	struct errbuf eb;
	double best;
	int da, dx;

	CHECK(speedup_fit(r, x, 5, &f, NULL, &eb) == 0);
	best = rss_at(r, x, 5, f.a, f.x1);
	DBL_NEAR(f.rss, best, 1e-9);
	for (da = -1; da <= 1; da++)
		for (dx = -1; dx <= 1; dx++)
			if (da || dx)
				CHECK(rss_at(r, x, 5, f.a * (1 + 1e-4 * da), f.x1 * (1 + 1e-4 * dx)) >= best);
	CHECK(f.a_err > 0 && f.x1_err > 0);
}

void test_speedup_fit_too_few(void)
{
	static const double r1[] = { 2 }, x1[] = { 89 };
	static const double r2[] = { 4, 4 }, x2[] = { 170, 171 };
	static const double r3[] = { 1, 1 }, x3[] = { 45, 46 };
	static const double r4[] = { 1, 2 }, x4[] = { 45, -3 };
	struct speedup_fit f;
	struct errbuf eb;

	CHECK(speedup_fit(r1, x1, 1, &f, NULL, &eb) == -1);
	CHECK(speedup_fit(r2, x2, 2, &f, NULL, &eb) == -1);
	CHECK(speedup_fit(r3, x3, 2, &f, NULL, &eb) == -1);
	CHECK(speedup_fit(r4, x4, 2, &f, NULL, &eb) == -1);
}

void test_speedup_parse_measured(void)
{
	static const char *bad[] = { "", "1:45,", "0:45", "1:-3", "a:b", "1.5:3", "145",
				     "1:45,,2:89", "1:0", "2:inf" };
	struct errbuf eb;
	double *r = NULL, *x = NULL;
	size_t n = 0, i;

	CHECK(speedup_parse_measured("1:45,2:89,8:300.5", &r, &x, &n, &eb) == 0);
	INT_EQ(n, 3);
	DBL_NEAR(r[2], 8, 0);
	DBL_NEAR(x[2], 300.5, 0);
	free(r);
	free(x);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = x = NULL;
		CHECK(speedup_parse_measured(bad[i], &r, &x, &n, &eb) == -1);
		CHECK(r == NULL && x == NULL);
	}
}
