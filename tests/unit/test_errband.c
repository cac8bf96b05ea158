/*
 * The stated error (src/errband.c): bands drawn by hand, the cells sizes
 * and node counts fall in, and the shipped table's own consistency.
 *
 * Hand values: GSL's quantile at p of n sorted ratios is x[i] + f (x[i+1] -
 * x[i]) with i + f = (n - 1) p.  Machine 0 measured 1 1, machine 1 2 2:
 * sorted 1 1 2 2, p10 = 1, median 1.5, p90 = 2.  Left out in turn: the band
 * of machine 1 alone (2 2, one machine: margin factor exp(w sqrt 2)) is
 * 2 / f .. 2 f, stretched down to 1, and holds machine 0's 1s at any w; the
 * band of machine 0 alone is 1 / f .. f and holds machine 1's 2s once
 * w sqrt 2 >= ln 2, w >= 0.4901: the first step, w = 0.50, puts all 4
 * sizes inside (80 % needs 3.2).  The band of both (two machines, factor
 * exp(0.5 sqrt 1.5) = 1.8448) is 1 / 1.8448 = 0.54207 .. 2 x 1.8448 = 3.6896.
 */
#include <math.h>

#include "harness.h"
#include "errband.h"

#define NODES_MID_(r, l) { .ratio = r, .log = l, .machine = l, .scope = ERRBAND_NODES, .size = ERRBAND_MID }

void test_errband_draw(void)
{
	const struct errband_sample s[] = {
		NODES_MID_(1.0, 0), NODES_MID_(1.0, 0),
		{ .ratio = 2.0, .log = 1, .machine = 1, .threaded = 1, .scope = ERRBAND_NODES,
		  .size = ERRBAND_MID },
		/* a second log of machine 1: left out with it */
		{ .ratio = 2.0, .log = 2, .machine = 1, .scope = ERRBAND_NODES, .size = ERRBAND_MID },
		/* other cells: not drawn into this one */
		{ .ratio = 9.0, .log = 1, .machine = 1, .scope = ERRBAND_ONE_NODE, .size = ERRBAND_MID },
		{ .ratio = 9.0, .log = 3, .machine = 3, .scope = ERRBAND_NODES, .size = ERRBAND_LARGE },
	};
	double f = exp(0.5 * sqrt(1.5));
	struct errband b;
	struct errbuf eb;

	INT_EQ(errband_draw(s, 6, ERRBAND_NODES, ERRBAND_MID, &b, &eb), 0);
	DBL_NEAR(f, 1.8448, 1e-4);
	DBL_NEAR(b.lo, 1 / f, 1e-9);
	DBL_NEAR(b.mid, 1.5, 1e-12);
	DBL_NEAR(b.hi, 2 * f, 1e-9);
	DBL_NEAR(b.widen, f, 1e-9);
	INT_EQ(b.sizes, 4);
	INT_EQ(b.logs, 3);
	INT_EQ(b.machines, 2);
	INT_EQ(b.threaded, 1);
	INT_EQ(b.loo_inside, 4);

	/* one machine alone: no band of the others to check against, its percentiles */
	INT_EQ(errband_draw(s, 6, ERRBAND_ONE_NODE, ERRBAND_MID, &b, &eb), 0);
	INT_EQ(b.sizes, 1);
	INT_EQ(b.logs, 1);
	INT_EQ(b.machines, 1);
	INT_EQ(b.loo_inside, 0);
	DBL_NEAR(b.lo, 9.0, 1e-12);
	DBL_NEAR(b.hi, 9.0, 1e-12);

	/* an empty cell is all zeros */
	INT_EQ(errband_draw(s, 6, ERRBAND_ONE_NODE, ERRBAND_SMALL, &b, &eb), 0);
	INT_EQ(b.sizes, 0);
	INT_EQ(b.logs, 0);
	CHECK(b.hi == 0);
}

/* Two machines that both measured twice the prediction: every left-out
 * size is inside with no margin (w = 0), and the band 2 .. 2 is stretched
 * to hold the prediction itself: 1 .. 2. */
void test_errband_holds_prediction(void)
{
	const struct errband_sample s[] = {
		NODES_MID_(2.0, 0), NODES_MID_(2.0, 0), NODES_MID_(2.0, 1), NODES_MID_(2.0, 1),
	};
	struct errband b;
	struct errbuf eb;

	INT_EQ(errband_draw(s, 4, ERRBAND_NODES, ERRBAND_MID, &b, &eb), 0);
	DBL_NEAR(b.lo, 1.0, 0);
	DBL_NEAR(b.hi, 2.0, 1e-12);
	DBL_NEAR(b.widen, 1.0, 0);
	INT_EQ(b.loo_inside, 4);
	CHECK(errband_inside(&b, 1.0, 1.0));
}

void test_errband_draw_bad(void)
{
	struct errband_sample s[] = { NODES_MID_(1.0, 0), NODES_MID_(0.0, 1) };
	struct errband b;
	struct errbuf eb;

	INT_EQ(errband_draw(s, 2, ERRBAND_NODES, ERRBAND_MID, &b, &eb), -1);
	CHECK(strstr(eb.msg, "sample 1") != NULL);
	s[1].ratio = NAN;
	INT_EQ(errband_draw(s, 2, ERRBAND_NODES, ERRBAND_MID, &b, &eb), -1);
}

void test_errband_cells(void)
{
	INT_EQ(errband_size_of(65535), ERRBAND_SMALL);
	INT_EQ(errband_size_of(65536), ERRBAND_MID);
	INT_EQ(errband_size_of(67108863), ERRBAND_MID);
	INT_EQ(errband_size_of(67108864), ERRBAND_LARGE);
	INT_EQ(errband_scope_of(1), ERRBAND_ONE_NODE);
	INT_EQ(errband_scope_of(2), ERRBAND_NODES);
	STR_EQ(errband_size_name(ERRBAND_MID), "64 KiB to 64 MiB");
	STR_EQ(errband_scope_name(ERRBAND_NODES), "several nodes");
	INT_EQ(errband_cell_bit(1, 8), 1);
	INT_EQ(errband_cell_bit(2, 1e9), 1 << (ERRBAND_NODES * ERRBAND_SIZE_COUNT + ERRBAND_LARGE));
	CHECK((errband_cell_bit(16, 1 << 20) & ~ERRBAND_ALL_CELLS) == 0);
	/* the lookup answers with the cell's counts, and its ratios at the
	 * middle of the cell (2 MiB = 2^21 for the middle cell) */
	{
		const struct errband *b = errband_get(2, 1 << 21);
		const struct errband *t = &errband_table[ERRBAND_NODES][ERRBAND_MID];
		CHECK(b != NULL);
		INT_EQ(b->sizes, t->sizes);
		INT_EQ(b->machines, t->machines);
		DBL_NEAR(b->lo, t->lo, 1e-12);
		DBL_NEAR(b->hi, t->hi, 1e-12);
	}
}

void test_errband_smooth_in_size(void)
{
	/* No step where the cells meet: at 64 MiB less a byte and at 64 MiB
	 * the band differs by no more than a quarter octave's move; by hand,
	 * halfway between the middles 2^21 and 2^29.5 (2^25.25) hi is the
	 * geometric mean of the two cells' hi. */
	const struct errband *a = errband_get(2, 67108863.0), *b = errband_get(2, 67108864.0);
	const struct errband *m = errband_get(2, pow(2, 25.25));
	const struct errband *mid = &errband_table[ERRBAND_NODES][ERRBAND_MID];
	const struct errband *big = &errband_table[ERRBAND_NODES][ERRBAND_LARGE];

	CHECK(a && b && m);
	CHECK(fabs(log(a->hi / b->hi)) < 0.25 * fabs(log(mid->hi / big->hi)) / 8.5 * 4 + 1e-12);
	CHECK(fabs(log(a->lo / b->lo)) < 0.25 * fabs(log(mid->lo / big->lo)) / 8.5 * 4 + 1e-12);
	DBL_NEAR(m->hi, sqrt(mid->hi * big->hi), 1e-12);
	DBL_NEAR(m->lo, sqrt(mid->lo * big->lo), 1e-12);
	/* beyond the last middle the band is the cell's */
	DBL_NEAR(errband_get(2, 1e12)->hi, big->hi, 1e-12);
}

void test_errband_inside(void)
{
	const struct errband b = { .lo = 0.9, .mid = 1.1, .hi = 1.5, .logs = 3 };

	/* times whose ratios are exact in binary: 0.9 / 1, 1.5 / 1 */
	CHECK(errband_inside(&b, 1.0, 1.0));
	CHECK(errband_inside(&b, 0.9, 1.0));
	CHECK(errband_inside(&b, 1.5, 1.0));
	CHECK(!errband_inside(&b, 0.875, 1.0));
	CHECK(!errband_inside(&b, 1.5078125, 1.0));
	CHECK(!errband_inside(&b, 1.0, 0));
}

/* t = 2 ms with the band 0.9..1.5: a run should measure 1.8 to 3 ms; no band: NaN. */
void test_errband_range(void)
{
	const struct errband b = { .lo = 0.9, .mid = 1.1, .hi = 1.5, .logs = 3 };
	double lo, hi;

	errband_range(&b, 2e-3, &lo, &hi);
	DBL_NEAR(lo, 1.8e-3, 1e-12);
	DBL_NEAR(hi, 3.0e-3, 1e-12);
	errband_range(NULL, 2e-3, &lo, &hi);
	CHECK(isnan(lo) && isnan(hi));
	INT_EQ(errband_bit(ERRBAND_NODES, ERRBAND_SMALL), 1 << ERRBAND_SIZE_COUNT);
}

/* The shipped table is a table of percentiles: ordered, counts that add up. */
void test_errband_table(void)
{
	int sc, sz;

	for (sc = 0; sc < ERRBAND_SCOPE_COUNT; sc++)
		for (sz = 0; sz < ERRBAND_SIZE_COUNT; sz++) {
			const struct errband *b = &errband_table[sc][sz];

			CHECK(b->lo <= b->mid && b->mid <= b->hi);
			CHECK(b->loo_inside <= b->sizes);
			CHECK(b->threaded <= b->logs && b->logs <= b->sizes);
			CHECK(b->logs == 0 || b->lo > 0);
			CHECK(b->machines <= b->logs);
			if (b->machines >= 2) {
				/* the prediction is inside its own band (the case:
				 * 8 ranks, 4 KiB on dgx-h100 was outside) */
				CHECK(b->lo <= 1 && b->hi >= 1);
				/* left-out machines inside 80 % pooled, unless the margin
				 * reached its end */
				CHECK(b->loo_inside >= ERRBAND_TARGET * b->sizes ||
				      b->widen >= exp(ERRBAND_WIDEN_MAX) * 0.999);
			}
		}
}

/* errband_at: the band of any table, as errband_get draws the shipped one.
 * By hand, several nodes: 64 KiB to 64 MiB 0.5 .. 2, 64 MiB and up 0.8 ..
 * 1.25, below 64 KiB not stated (one log).  At 2^21 B, the middle of its
 * cell, the cell's own band; at 2^25.25 B, halfway in log size to the next
 * middle (2^29.5), the geometric means: sqrt(0.5 x 0.8) = 0.63246 and
 * sqrt(2 x 1.25) = 1.58114. */
void test_errband_at(void)
{
	struct errband t[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT] = {
		[ERRBAND_NODES] = {
			[ERRBAND_SMALL] = { .lo = 0.7, .mid = 1, .hi = 1.4, .logs = 1, .machines = 1 },
			[ERRBAND_MID] = { .lo = 0.5, .mid = 1, .hi = 2, .logs = 3, .machines = 2 },
			[ERRBAND_LARGE] = { .lo = 0.8, .mid = 1, .hi = 1.25, .logs = 3, .machines = 2 },
		},
	};
	const double sizes[] = { 8, 65536, 1048576, 67108864, 1073741824 };
	struct errband b;
	size_t i;

	INT_EQ(errband_at((const struct errband(*)[ERRBAND_SIZE_COUNT])t, 2, pow(2, 21), &b), 0);
	DBL_NEAR(b.lo, 0.5, 1e-12);
	DBL_NEAR(b.hi, 2.0, 1e-12);
	INT_EQ(errband_at((const struct errband(*)[ERRBAND_SIZE_COUNT])t, 2, pow(2, 25.25), &b), 0);
	DBL_NEAR(b.lo, 0.63246, 1e-5);
	DBL_NEAR(b.hi, 1.58114, 1e-5);
	INT_EQ(b.logs, 3);
	/* not stated: the small cell (one log), and one node (no logs at all) */
	INT_EQ(errband_at((const struct errband(*)[ERRBAND_SIZE_COUNT])t, 2, 1024, &b), -1);
	INT_EQ(errband_at((const struct errband(*)[ERRBAND_SIZE_COUNT])t, 1, 1e9, &b), -1);
	/* on the shipped table it is errband_get */
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const struct errband *g = errband_get(2, sizes[i]);
		CHECK(g && errband_at(errband_table, 2, sizes[i], &b) == 0);
		DBL_NEAR(b.lo, g->lo, 1e-15);
		DBL_NEAR(b.hi, g->hi, 1e-15);
	}
}

/* The wider cell.  Drawn: machine 0 on one node measured 1 1, machine 1 on
 * several nodes 2 2, both 64 KiB to 64 MiB: each scope's cell has one
 * machine (not stated), the cell of any node count pools the four and is
 * the hand case of test_errband_draw, 1 / 1.8448 .. 2 x 1.8448.  Looked
 * up, by hand: one node's middle cell is not stated, so a size there takes
 * the wider cell's 0.5 .. 2; several nodes' is stated (0.8 .. 1.25) and is
 * its own; one node at 64 MiB and up (0.8 .. 1.25) is stated, so at
 * 2^25.25 B one node's band is halfway between the wider middle cell and
 * its own large one: sqrt(0.5 x 0.8) = 0.63246 .. sqrt(2 x 1.25) =
 * 1.58114; several nodes at 64 MiB and up and every size below 64 KiB
 * have neither: no band. */
void test_errband_wider_cell(void)
{
	const struct errband_sample s[] = {
		{ .ratio = 1, .log = 0, .machine = 0, .scope = ERRBAND_ONE_NODE, .size = ERRBAND_MID },
		{ .ratio = 1, .log = 0, .machine = 0, .scope = ERRBAND_ONE_NODE, .size = ERRBAND_MID },
		{ .ratio = 2, .log = 1, .machine = 1, .scope = ERRBAND_NODES, .size = ERRBAND_MID },
		{ .ratio = 2, .log = 2, .machine = 1, .scope = ERRBAND_NODES, .size = ERRBAND_MID },
	};
	struct errband t[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT] = {
		[ERRBAND_ONE_NODE] = {
			[ERRBAND_MID] = { .lo = 0.9, .mid = 1, .hi = 1.1, .logs = 2, .machines = 2 },
			[ERRBAND_LARGE] = { .lo = 0.8, .mid = 1, .hi = 1.25, .logs = 3, .machines = 2 },
		},
		[ERRBAND_NODES] = {
			[ERRBAND_MID] = { .lo = 0.8, .mid = 1, .hi = 1.25, .logs = 3, .machines = 2 },
		},
		[ERRBAND_ANY_NODES] = {
			[ERRBAND_MID] = { .lo = 0.5, .mid = 1, .hi = 2, .logs = 5, .machines = 4 },
		},
	};
	const struct errband(*tt)[ERRBAND_SIZE_COUNT] = (const struct errband(*)[ERRBAND_SIZE_COUNT])t;
	double f = exp(0.5 * sqrt(1.5));
	struct errband b;
	struct errbuf eb;

	INT_EQ(errband_draw(s, 4, ERRBAND_ONE_NODE, ERRBAND_MID, &b, &eb), 0);
	INT_EQ(b.machines, 1);
	INT_EQ(errband_draw(s, 4, ERRBAND_ANY_NODES, ERRBAND_MID, &b, &eb), 0);
	INT_EQ(b.sizes, 4);
	INT_EQ(b.logs, 3);
	INT_EQ(b.machines, 2);
	DBL_NEAR(b.lo, 1 / f, 1e-9);
	DBL_NEAR(b.hi, 2 * f, 1e-9);
	STR_EQ(errband_scope_name(ERRBAND_ANY_NODES), "any node count");

	INT_EQ(errband_at(tt, 1, pow(2, 21), &b), 0);
	DBL_NEAR(b.lo, 0.5, 1e-12);
	DBL_NEAR(b.hi, 2.0, 1e-12);
	INT_EQ(b.machines, 4);
	INT_EQ(errband_scope_at(tt, 1, pow(2, 21)), ERRBAND_ANY_NODES);
	INT_EQ(errband_at(tt, 2, pow(2, 21), &b), 0);
	DBL_NEAR(b.hi, 1.25, 1e-12);
	INT_EQ(errband_scope_at(tt, 2, pow(2, 21)), ERRBAND_NODES);
	INT_EQ(errband_at(tt, 1, pow(2, 25.25), &b), 0);
	DBL_NEAR(b.lo, 0.63246, 1e-5);
	DBL_NEAR(b.hi, 1.58114, 1e-5);
	INT_EQ(errband_scope_at(tt, 1, 1e9), ERRBAND_ONE_NODE);
	INT_EQ(errband_at(tt, 2, 1e9, &b), -1);
	INT_EQ(errband_scope_at(tt, 2, 1e9), -1);
	INT_EQ(errband_at(tt, 1, 1024, &b), -1);
	/* the shipped table: every size has a band, on one node and on several */
	CHECK(errband_get(1, 8) && errband_get(1, 1 << 20) && errband_get(1, 1e9));
	CHECK(errband_get(2, 8) && errband_get(2, 1 << 20) && errband_get(2, 1e9));
}
