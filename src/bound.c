/*
 * Bounds on numbers read from files (bound.h).
 */
#include <math.h>
#include <string.h>

#include "bound.h"
#include "model.h"

static const struct {
	double lo, hi;
	int whole, hi_open;
	const char *what;
} S_b[] = {
	[BOUND_COUNT] = { 0, 1e18, 1, 1, "a whole count from 0 to below 1e18" },
	[BOUND_SIZE] = { 0, 1e18, 0, 1, "a size from 0 to below 1e18 bytes" },
	[BOUND_TIME] = { 0, 1e6, 0, 0, "a time from 0 to 1e6 s" },
	[BOUND_RANKS] = { 1, (double)RANKS_MAX, 1, 0, "a whole rank count from 1 to 2^40" },
	[BOUND_RANK] = { 0, (double)RANKS_MAX, 1, 1, "a whole rank from 0 to below 2^40" },
	[BOUND_RATIO] = { 1e-6, 1e6, 0, 0, "a ratio from 1e-6 to 1e6" },
};

int bound_check(enum bound b, double x)
{
	if ((unsigned)b >= sizeof(S_b) / sizeof(S_b[0]) || !isfinite(x))
		return -1;
	if (x < S_b[b].lo || x > S_b[b].hi || (S_b[b].hi_open && x == S_b[b].hi))
		return -1;
	if (S_b[b].whole && x != floor(x))
		return -1;
	return 0;
}

const char *bound_what(enum bound b)
{
	if ((unsigned)b >= sizeof(S_b) / sizeof(S_b[0]))
		return "a number";
	return S_b[b].what;
}

size_t bound_bom(const char *buf, size_t len)
{
	return len >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3) ? 3 : 0;
}
