#include "harness.h"
#include "bisect.h"

static int below(double S, void *arg)
{
	return S < *(const double *)arg;
}

static int fails(double S, void *arg)
{
	(void)S;
	++*(int *)arg;
	return -1;
}

void test_bisect_log(void)
{
	/* The change at 1000 B between 1 B and 1 PiB: both ends close in
	 * on it, *lo below and *hi at or above, within the relative width. */
	double at = 1000, lo = 1, hi = 1125899906842624.0, lo2 = 8, hi2 = 64;
	int calls = 0;

	INT_EQ(bisect_log(&lo, &hi, 1e-12, below, &at), 0);
	CHECK(lo < 1000 && hi >= 1000);
	DBL_NEAR(hi, 1000, 1e-11);
	DBL_NEAR(lo, 1000, 1e-11);
	/* An interval already narrower than rel is left as it is. */
	lo = 999;
	hi = 1001;
	INT_EQ(bisect_log(&lo, &hi, 0.01, below, &at), 0);
	DBL_NEAR(lo, 999, 0);
	DBL_NEAR(hi, 1001, 0);
	/* An error of the property stops at once and is passed on. */
	INT_EQ(bisect_log(&lo2, &hi2, 1e-12, fails, &calls), -1);
	INT_EQ(calls, 1);
	DBL_NEAR(lo2, 8, 0);
	DBL_NEAR(hi2, 64, 0);
}
