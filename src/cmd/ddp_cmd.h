#ifndef COMMTIME_DDP_CMD_H
#define COMMTIME_DDP_CMD_H

/*
 * The parts of `commtime ddp` in files of their own: cmd_ddp.c parses the
 * options and writes the table, ddp_fig.c draws the figure.
 */
#include "cli.h"
#include "train.h"

/*
 * The figure (--plot, --render) over the rank counts of ranks.  With the
 * compute time: the step, its compute and all-reduce, and the exposed
 * share of the step with target (0: none) as a line; without it, the
 * gradient all-reduce alone.
 */
void ddp_figure(const struct ctx *ctx, const struct ddp_params *p, const struct dlist *ranks,
		double target, int have_compute);

#endif
