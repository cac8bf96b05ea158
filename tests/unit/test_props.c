/*
 * Properties of the cost models over random and extreme inputs, rather
 * than values at a few points (those are in test_model.c):
 *  - every all-reduce time is finite and positive, and non-decreasing in
 *    the message size;
 *  - a ring all-reduce costs a ring reduce-scatter plus a ring all-gather;
 *  - at a crossover size the two algorithms cost the same;
 *  - busbw of ring, dbtree and rabenseifner never exceeds the link's β;
 *  - the largest valid inputs (2^40 ranks, 1 PiB, 1 ns, 1 PB/s) lose no
 *    precision against the same formulas in long double.
 * Inputs are drawn from a fixed-seed generator, so a failure repeats.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "crossover.h"
#include "cost.h"

static uint64_t state = 0x853c49e6748fea9bu;

static uint64_t rnd(void)
{
	state ^= state << 13;
	state ^= state >> 7;
	state ^= state << 17;
	return state;
}

/* Uniform in [0, 1). */
static double unit(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* Log-uniform in [lo, hi]. */
static double logu(double lo, double hi)
{
	return lo * pow(hi / lo, unit());
}

/* A rank count from 2 to 2^40, mostly small, some powers of two. */
static unsigned long rnd_ranks(void)
{
	unsigned long n;

	switch (rnd() % 4) {
	case 0:
		return 2 + rnd() % 1023;
	case 1:
		return 1UL << (1 + rnd() % 40);
	default:
		n = (unsigned long)logu(2, (double)RANKS_MAX);
		return n < 2 ? 2 : n > RANKS_MAX ? RANKS_MAX : n;
	}
}

/* A link within the bounds of --alpha, --beta and --gamma. */
static struct link rnd_link(void)
{
	struct link l;

	l.alpha = rnd() % 8 ? logu(1e-9, 1) : 0;
	l.beta = logu(1e3, 1e18);
	l.gamma = rnd() % 2 ? 0 : logu(1e-15, 1e-9);
	return l;
}

#define TRIALS 4000

void test_props_time_finite_positive_monotone(void)
{
	int i, a, bad = 0;

	for (i = 0; i < TRIALS && bad < 10; i++) {
		struct link l = rnd_link();
		unsigned long n = rnd_ranks();
		double S1 = rnd() % 8 ? logu(1, 1125899906842624.0) : 0, S2;

		if (l.alpha == 0 && S1 == 0)
			S1 = 1;  /* nothing to send and no latency: 0 s is right */
		S2 = S1 * (1 + unit()) + (rnd() % 2 ? 1 : 0);
		for (a = 0; a < ALGO_LINK_AR_COUNT; a++) {
			double t1 = t_link(OP_ALLREDUCE, (enum coll_algo)a, &l, n, S1);
			double t2 = t_link(OP_ALLREDUCE, (enum coll_algo)a, &l, n, S2);

			if (!(isfinite(t1) && t1 > 0 && isfinite(t2) && t2 >= t1)) {
				fprintf(stderr, "  %s n=%lu S=%.17g,%.17g alpha=%g beta=%g: "
					"%.17g, %.17g\n", coll_algo_name((enum coll_algo)a), n, S1, S2,
					l.alpha, l.beta, t1, t2);
				bad++;
			}
		}
	}
	INT_EQ(bad, 0);
}

void test_props_ring_is_rs_plus_ag(void)
{
	int i;

	for (i = 0; i < TRIALS; i++) {
		struct link l = rnd_link();
		unsigned long n = rnd_ranks();
		double S = logu(1, 1125899906842624.0);

		DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &l, n, S), t_link(OP_REDUCESCATTER, ALGO_RING, &l, n, S) + t_link(OP_ALLGATHER, ALGO_RING, &l, n, S),
			 1e-14);
	}
}

/*
 * busbw = S/T × 2(n-1)/n.  Ring moves 2(n-1)/n of the buffer through each
 * link, dbtree 2, rabenseifner at least 2(n-1)/n: none beats β.
 */
void test_props_busbw_under_beta(void)
{
	static const enum coll_algo algos[] = { ALGO_RING, ALGO_DBTREE, ALGO_RABENSEIFNER };
	int i, bad = 0;
	size_t a;

	for (i = 0; i < TRIALS; i++) {
		struct link l = rnd_link();
		unsigned long n = rnd_ranks();
		double S = logu(1, 1125899906842624.0);

		l.alpha = rnd() % 2 ? 0 : l.alpha;  /* α = 0 is the tightest case */
		l.gamma = 0;
		for (a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
			double t = t_link(OP_ALLREDUCE, algos[a], &l, n, S);
			double busbw = S / t * busbw_factor(OP_ALLREDUCE, n);

			if (!(busbw <= l.beta * (1 + 1e-12))) {
				fprintf(stderr, "  %s n=%lu S=%.17g: busbw %.17g > beta %.17g\n",
					coll_algo_name(algos[a]), n, S, busbw, l.beta);
				bad++;
			}
		}
	}
	INT_EQ(bad, 0);
}

/* Where the solver finds a crossover, the two costs agree to 1e-9. */
void test_props_crossover_equal_cost(void)
{
	int i, a, b, found = 0, bad = 0;

	for (i = 0; i < 300; i++) {
		struct link l = rnd_link();
		unsigned long n = rnd_ranks();

		if (l.alpha == 0)
			l.alpha = 1e-6;
		for (a = 0; a < ALGO_LINK_AR_COUNT; a++)
			for (b = a + 1; b < ALGO_LINK_AR_COUNT; b++) {
				struct crossing c;
				struct errbuf eb;
				double ta, tb;

				if (crossover_allreduce((enum coll_algo)a, (enum coll_algo)b, &l, n,
							CROSS_LO, CROSS_HI, &c, &eb) < 0) {
					fprintf(stderr, "  %s\n", eb.msg);
					bad++;
					continue;
				}
				if (c.result != CROSS_FOUND)
					continue;
				found++;
				ta = t_link(OP_ALLREDUCE, (enum coll_algo)a, &l, n, c.bytes);
				tb = t_link(OP_ALLREDUCE, (enum coll_algo)b, &l, n, c.bytes);
				if (!(fabs(ta - tb) <= 1e-9 * fmax(ta, tb))) {
					fprintf(stderr, "  %s/%s n=%lu: S*=%.17g: %.17g vs %.17g\n",
						coll_algo_name((enum coll_algo)a), coll_algo_name((enum coll_algo)b),
						n, c.bytes, ta, tb);
					bad++;
				}
			}
	}
	INT_EQ(bad, 0);
	CHECK(found > 100);  /* the property was exercised */
}

/* The closed form for ring against the seed's tree, and the solver, agree. */
void test_props_crossover_ring_tree_closed_form(void)
{
	int i, checked = 0;

	for (i = 0; i < 1000; i++) {
		struct link l = rnd_link();
		unsigned long n = rnd_ranks();
		double s = crossover_ring_tree(&l, n);
		struct crossing c;
		struct errbuf eb;

		if (!(s >= CROSS_LO && s <= CROSS_HI) || l.gamma > 0)
			continue;
		checked++;
		DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &l, n, s), t_link(OP_ALLREDUCE, ALGO_TREE, &l, n, s), 1e-9);
		INT_EQ(crossover_allreduce(ALGO_RING, ALGO_TREE, &l, n, CROSS_LO, CROSS_HI, &c, &eb), 0);
		CHECK(c.result == CROSS_FOUND);
		DBL_NEAR(c.bytes, s, 1e-9);
	}
	CHECK(checked > 50);
}

/* ---- extreme inputs against long double ---- */

static unsigned long ref_ceil_log2(unsigned long n)
{
	unsigned long k = 0;
	long double p = 1;

	while (p < (long double)n) {
		p *= 2;
		k++;
	}
	return k;
}

static unsigned long ref_floor_log2(unsigned long n)
{
	unsigned long k = 0;
	long double p = 2;

	while (p <= (long double)n) {
		p *= 2;
		k++;
	}
	return k;
}

/* The formulas of models/allreduce.md, in long double. */
static long double ref_time(enum coll_algo a, const struct link *l, unsigned long ranks,
			    long double S)
{
	long double n = ranks, al = l->alpha, be = l->beta, ga = l->gamma;
	long double L = ref_ceil_log2(ranks), k = ref_floor_log2(ranks);
	long double p2 = powl(2, k), f = (p2 - 1) / p2;
	int extra = p2 != n;

	switch (a) {
	case ALGO_RING:
		return 2 * (n - 1) * (al + S / (n * be)) + (n - 1) / n * S * ga;
	case ALGO_TREE:
		return 2 * L * (al + S / be) + L * S * ga;
	case ALGO_DBTREE:
		return 2 * L * al + 2 * S / be + S * ga;
	case ALGO_RD:
		return (k + 2 * extra) * (al + S / be) + (k + extra) * S * ga;
	case ALGO_RABENSEIFNER:
		return (2 * k + 2 * extra) * al + (2 * f + 2 * extra) * S / be + (f + extra) * S * ga;
	default:
		return NAN;
	}
}

void test_props_extremes_keep_precision(void)
{
	static const unsigned long ranks[] = {
		2, 3, (1UL << 30) - 1, 1UL << 30, (1UL << 30) + 1, RANKS_MAX - 1, RANKS_MAX
	};
	static const double sizes[] = { 0, 1, 4096, 1125899906842624.0 };   /* up to 1 PiB */
	static const struct link links[] = {
		{ 1e-9, 1e18, 0 },       /* 1 ns, 1 PB/s... and faster */
		{ 1e-9, 1e15, 0 },       /* 1 ns, 1 PB/s */
		{ 3600, 1e3, 1 },        /* the slowest link the options allow */
		{ 0, 1e18, 1e-15 },
		{ 5e-6, 200e9, 1e-12 },
	};
	size_t r, s, k;
	int a, bad = 0;

	for (k = 0; k < sizeof(links) / sizeof(links[0]); k++)
		for (r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++)
			for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
				for (a = 0; a < ALGO_LINK_AR_COUNT; a++) {
					double t = t_link(OP_ALLREDUCE, (enum coll_algo)a, &links[k], ranks[r], sizes[s]);
					long double want = ref_time((enum coll_algo)a, &links[k],
								    ranks[r], sizes[s]);
					long double err = fabsl((long double)t - want);

					if (!isfinite(t) || err > 1e-14L * fabsl(want)) {
						fprintf(stderr, "  %s n=%lu S=%g link %zu: %.17g, "
							"long double %.20Lg\n", coll_algo_name((enum coll_algo)a),
							ranks[r], sizes[s], k, t, want);
						bad++;
					}
				}
	INT_EQ(bad, 0);
}
