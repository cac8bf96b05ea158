/*
 * The trace calibration keys of a system preset (trace_calib.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bound.h"
#include "trace_calib.h"
#include "units.h"

static const char *const S_names[TRACE_CELLS] = {
	"intra_small", "intra_medium", "intra_large", "inter_small", "inter_medium", "inter_large"
};

const char *trace_calib_cell_name(int cell)
{
	return cell >= 0 && cell < TRACE_CELLS ? S_names[cell] : "?";
}

int trace_calib_check(const char *key, double x, struct errbuf *eb)
{
	if (!strncmp(key, "trace_kernel_efficiency", 23)) {
		if (!(x > 0 && x <= 1))
			return errbuf_set(eb, "%s: %.6g is not a share of the peak above 0 and "
					  "at most 1", key, x);
		return 0;
	}
	if (bound_check(BOUND_RATIO, x) < 0)
		return errbuf_set(eb, "%s: %.6g is not %s (measured/predicted)", key, x,
				  bound_what(BOUND_RATIO));
	return 0;
}

/* One key: NaN when absent, else its value, checked. */
static int S_key(const struct preset *p, const char *key, double *x, struct errbuf *eb)
{
	const char *v = preset_get(p, key);
	struct errbuf e;

	*x = NAN;
	if (!v)
		return 0;
	if (units_decimal(v, 0, x) < 0)
		return errbuf_set(eb, "%s:%d: %s: '%s' is not a number", p->path,
				  preset_line(p, key), key, v);
	if (trace_calib_check(key, *x, &e) < 0)
		return errbuf_set(eb, "%s:%d: %s", p->path, preset_line(p, key), e.msg);
	return 0;
}

int trace_calib_read(const struct preset *p, struct trace_calib *c, struct errbuf *eb)
{
	static const char *const suf[3] = { "", "_lo", "_hi" };
	double *mfu[3];
	int i, j;

	memset(c, 0, sizeof(*c));
	mfu[0] = &c->mfu;
	mfu[1] = &c->mfu_lo;
	mfu[2] = &c->mfu_hi;
	for (j = 0; j < 3; j++) {
		char key[64];
		snprintf(key, sizeof(key), "trace_kernel_efficiency%s", suf[j]);
		if (S_key(p, key, mfu[j], eb) < 0)
			return -1;
	}
	for (j = 1; j < 3; j++)
		if (isnan(*mfu[j]))
			*mfu[j] = c->mfu;
	c->have = !isnan(c->mfu);
	for (i = 0; i < TRACE_CELLS; i++) {
		for (j = 0; j < 3; j++) {
			char key[64];
			snprintf(key, sizeof(key), "trace_coll_%s%s", trace_calib_cell_name(i), suf[j]);
			if (S_key(p, key, &c->coll[i][j], eb) < 0)
				return -1;
		}
		for (j = 1; j < 3; j++)
			if (isnan(c->coll[i][j]))
				c->coll[i][j] = c->coll[i][0];
		c->have |= !isnan(c->coll[i][0]);
	}
	snprintf(c->from, sizeof(c->from), "%s", preset_get(p, "trace_source") ?
		 preset_get(p, "trace_source") : "a trace");
	return 0;
}

void trace_calib_ratios(const struct trace_calib *c, int end, double ratio[TRACE_CELLS])
{
	int i;

	for (i = 0; i < TRACE_CELLS; i++)
		ratio[i] = c->coll[i][end];
}

int trace_calib_has_coll(const struct trace_calib *c)
{
	int i;

	for (i = 0; i < TRACE_CELLS; i++)
		if (!isnan(c->coll[i][0]))
			return 1;
	return 0;
}
