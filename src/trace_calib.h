#ifndef COMMTIME_TRACE_CALIB_H
#define COMMTIME_TRACE_CALIB_H

#include "preset.h"
#include "util.h"

/*
 * What a trace measured, as fit --trace saves it in a system preset
 * (models/trace.md, "Carrying a trace forward"): per cell of
 * cost_calib_cell() the ratio measured/predicted of the collectives' time,
 * its median and the lowest and highest kind's, and the step's kernel
 * efficiency.  The keys and their bounds, checked by the reader and by the
 * writer alike:
 *
 *   trace_coll_CELL[_lo|_hi]          a ratio, BOUND_RATIO (1e-6 to 1e6)
 *   trace_kernel_efficiency[_lo|_hi]  a share of the peak, above 0, at most 1
 *   trace_source                      text: which trace
 */
#define TRACE_CELLS 6   /* cost_calib_cell()'s cells (cost.h, COST_CALIB_CELLS) */
struct trace_calib {
	int have;                              /* any of the keys below */
	double mfu, mfu_lo, mfu_hi;            /* trace_kernel_efficiency[_lo,_hi]; NaN none */
	double coll[TRACE_CELLS][3];           /* measured/predicted: median, low, high; NaN none */
	char from[160];                        /* trace_source */
};

/*
 * Read the keys from p into c (missing _lo/_hi take the median).
 * Returns 0 (c->have 0 when p holds none), or -1 with "file:line: key:
 * 'value' is not ..." in eb.
 */
int trace_calib_read(const struct preset *p, struct trace_calib *c, struct errbuf *eb);

/*
 * The same check for one value about to be written: 0, or -1 with
 * "key: value is not ..." in eb (key: "trace_coll_intra_large_lo", ...).
 */
int trace_calib_check(const char *key, double x, struct errbuf *eb);

/* The ratios of one end (0 median, 1 low, 2 high), for cost_model_calib(). */
void trace_calib_ratios(const struct trace_calib *c, int end, double ratio[TRACE_CELLS]);

/* "intra_small", "intra_medium", ... "inter_large": cell i of cost_calib_cell(). */
const char *trace_calib_cell_name(int cell);

/* 1 when c holds at least one collective ratio. */
int trace_calib_has_coll(const struct trace_calib *c);

#endif
