#ifndef COMMTIME_STEP_FIG_H
#define COMMTIME_STEP_FIG_H

#include "cli.h"
#include "search.h"

/*
 * The step's breakdown as stacked horizontal bars, one per configuration:
 * compute, the exposed communication of each dimension (tp, cp, ep, pp,
 * dp), the pipeline bubble and whatever else the step holds, left to
 * right, adding up to the step time.
 */
struct step_fig_bar {
	const char *label;          /* above the bar */
	struct search_terms t;
};

/* Add the bars to panel p (rows 0..n-1 from the top, time across from 0). */
void step_fig_bars(struct panel *p, const struct step_fig_bar *bars, size_t n);

/* commtime step --plot/--render: the figure of one configuration's step. */
void step_figure(const struct ctx *ctx, const struct workload *w, const struct step_config *c,
		 const struct step_result *r);

#endif
