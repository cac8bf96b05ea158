/*
 * The stated error (src/errband.c): a band drawn by hand from five ratios
 * of three logs, the cells sizes and node counts fall in, and the shipped
 * table's own consistency.  Hand values: the ratios 1 2 | 3 | 4 5 sorted
 * are 1 2 3 4 5; GSL's quantile at p is x[i] + f (x[i+1] - x[i]) with
 * i + f = (n - 1) p, so p10 = 1 + 0.4 = 1.4, the median 3, p90 = 4 + 0.6 = 4.6.
 * Left out in turn: without log 0 the band of 3 4 5 is 3.2..4.8 and holds
 * neither 1 nor 2; without log 1 that of 1 2 4 5 is 1.3..4.7 and holds 3;
 * without log 2 that of 1 2 3 is 1.2..2.8 and holds neither 4 nor 5: 1 inside.
 */
#include <math.h>

#include "harness.h"
#include "errband.h"

#define NODES_MID_(r, l) { .ratio = r, .log = l, .scope = ERRBAND_NODES, .size = ERRBAND_MID }

void test_errband_draw(void)
{
	const struct errband_sample s[] = {
		NODES_MID_(1.0, 0), NODES_MID_(2.0, 0),
		{ .ratio = 3.0, .log = 1, .threaded = 1, .scope = ERRBAND_NODES, .size = ERRBAND_MID },
		NODES_MID_(4.0, 2), NODES_MID_(5.0, 2),
		/* other cells: not drawn into this one */
		{ .ratio = 9.0, .log = 1, .scope = ERRBAND_ONE_NODE, .size = ERRBAND_MID },
		{ .ratio = 9.0, .log = 3, .scope = ERRBAND_NODES, .size = ERRBAND_LARGE },
	};
	struct errband b;
	struct errbuf eb;

	INT_EQ(errband_draw(s, 7, ERRBAND_NODES, ERRBAND_MID, &b, &eb), 0);
	DBL_NEAR(b.lo, 1.4, 1e-12);
	DBL_NEAR(b.mid, 3.0, 1e-12);
	DBL_NEAR(b.hi, 4.6, 1e-12);
	INT_EQ(b.sizes, 5);
	INT_EQ(b.logs, 3);
	INT_EQ(b.threaded, 1);
	INT_EQ(b.loo_inside, 1);

	/* one log alone: no band of the others to check against */
	INT_EQ(errband_draw(s, 7, ERRBAND_ONE_NODE, ERRBAND_MID, &b, &eb), 0);
	INT_EQ(b.sizes, 1);
	INT_EQ(b.logs, 1);
	INT_EQ(b.loo_inside, 0);
	DBL_NEAR(b.lo, 9.0, 1e-12);
	DBL_NEAR(b.hi, 9.0, 1e-12);

	/* an empty cell is all zeros */
	INT_EQ(errband_draw(s, 7, ERRBAND_ONE_NODE, ERRBAND_SMALL, &b, &eb), 0);
	INT_EQ(b.sizes, 0);
	INT_EQ(b.logs, 0);
	CHECK(b.hi == 0);
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
	/* the lookup answers from the table's cell of the size and node count */
	CHECK(errband_get(2, 1 << 20) == NULL ||
	      errband_get(2, 1 << 20) == &errband_table[ERRBAND_NODES][ERRBAND_MID]);
	CHECK(errband_get(1, 1e9) == NULL ||
	      errband_get(1, 1e9) == &errband_table[ERRBAND_ONE_NODE][ERRBAND_LARGE]);
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
		}
}
