#ifndef COMMTIME_COMPARE_TRACE_FIG_H
#define COMMTIME_COMPARE_TRACE_FIG_H

/*
 * The figure of compare --trace (--plot/--render): one step's measured
 * timeline per rank — compute kernels, NCCL kernels hidden behind
 * compute and exposed — beside the step the model predicts for the run's
 * configuration.
 */
#include "trace_cmd.h"

struct trace_fig_iv {
	size_t row;             /* index into rows */
	enum trace_iv what;
	double t0, t1;          /* s from the row's first kernel of the step */
};

struct trace_fig {
	struct trace_fig_iv *iv;
	size_t n, alloc;
	struct { long rank; unsigned dev; int file; } *rows;
	size_t nrows;
};

void trace_fig_init(struct trace_fig *f);
void trace_fig_release(struct trace_fig *f);
/* The trace_interval_fn that gathers the step's intervals. */
void trace_fig_interval(void *arg, const struct trace_step *s, enum trace_iv what,
			double t0_s, double t1_s);
/* Write the figure; run (may be NULL) adds the predicted step. */
void trace_fig_write(const struct ctx *ctx, const struct trace_fig *f, const struct trace *t,
		     long number, const struct step_result *pred);

#endif
