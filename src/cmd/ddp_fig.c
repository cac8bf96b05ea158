/*
 * The figures of commtime ddp: the step and its communication share
 * against ranks, or without the compute time the gradient all-reduce
 * alone.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ddp_cmd.h"

/*
 * The rank counts the figure spans: those asked, widened when they are
 * few, and with room on the right for the label of the last one.
 */
static void S_rank_span(const struct dlist *ranks, double *lo, double *hi, int *logx)
{
	size_t i;

	*lo = INFINITY;
	*hi = 0;
	for (i = 0; i < ranks->n; i++) {
		*lo = ranks->v[i] < *lo ? ranks->v[i] : *lo;
		*hi = ranks->v[i] > *hi ? ranks->v[i] : *hi;
	}
	/* One or two close rank counts draw no curve: show the neighbourhood. */
	if (*hi < 4 * *lo) {
		*lo = *lo / 4 < 1 ? 1 : floor(*lo / 4);
		*hi = *hi * 4;
	}
	*logx = *hi >= 8 * *lo;
	if (*logx)
		*hi = ceil(*hi * fmax(1.5, pow(*hi / *lo, 0.15)));
	else
		*hi = ceil(*hi + 0.2 * (*hi - *lo));
}

/* A panel over the rank counts [lo, hi], its y axis of kind y from 0. */
static struct panel *S_rank_panel(struct figure *f, const char *title, const char *ylabel,
				  enum plot_axis y, double lo, double hi, int logx)
{
	struct panel *pn = plot_add_panel(f, title, "ranks", ylabel);

	pn->xaxis = AX_PLAIN;
	pn->yaxis = y;
	pn->logx = logx;
	pn->xmin = lo;
	pn->xmax = hi;
	pn->ymin = 0;
	return pn;
}

/* Without the compute time: the gradient all-reduce alone against ranks. */
static void figure_comm(const struct ctx *ctx, const struct ddp_params *p,
			const struct dlist *ranks)
{
	struct figure f = { 0 };
	struct panel *pt;
	struct plot_series *comm;
	char title[400], link[128], grad[32], text[64];
	double lo, hi, grid[200], tmax = 0;
	size_t i, n;
	int logx;

	S_rank_span(ranks, &lo, &hi, &logx);
	n = plot_rank_grid(lo, hi, sizeof(grid) / sizeof(grid[0]), grid);
	units_fmt_size(grad, sizeof(grad), p->grad_bytes);
	snprintf(title, sizeof(title), "DDP gradient all-reduce: %s, %s; %s", grad,
		 coll_algo_name(p->algo), ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime ddp: time of the gradient all-reduce against ranks");
	pt = S_rank_panel(&f, NULL, "time of the all-reduce", AX_TIME, lo, hi, logx);
	comm = plot_add_series(pt, "all-reduce", PS_LINES);
	comm->color = 0;
	for (i = 0; i < n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->machine.model, (unsigned long)grid[i], &s);
		plot_xy(comm, grid[i], s.comm_s);
		tmax = fmax(tmax, s.comm_s);
	}
	for (i = 0; i < ranks->n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->machine.model, (unsigned long)ranks->v[i], &s);
		units_fmt_time(text, sizeof(text), s.comm_s, 4);
		plot_add_label(pt, ranks->v[i], s.comm_s, ranks->n <= 8 ? text : "", 1);
	}
	pt->ymax = tmax * 1.3;
	ctx_figure(ctx, &f);
	plot_release(&f);
}

/* The step figure's title: the gradient, the compute, the all-reduce and the link. */
static void S_step_title(const struct ctx *ctx, const struct ddp_params *p, char *title,
			 size_t size)
{
	char link[128], grad[32], comp[32], bucket[32], text[160];

	units_fmt_size(grad, sizeof(grad), p->grad_bytes);
	units_fmt_time(comp, sizeof(comp), p->compute, 3);
	if (p->bucket > 0)
		snprintf(text, sizeof(text), " in %s buckets",
			 units_fmt_size(bucket, sizeof(bucket), p->bucket));
	else
		text[0] = '\0';
	if (p->overlap > 0)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 ", %.3g %% of backward overlapped", p->overlap * 100);
	snprintf(title, size, "DDP step: %s gradient, %s compute, %s all-reduce%s; %s",
		 grad, comp, coll_algo_name(p->algo), text, ctx_link_text(ctx, link, sizeof(link)));
}

/*
 * The left panel, its series empty: the step, its compute, the all-reduce
 * and, with overlap, the exposed part of it (pt->series[0] to [3]).
 */
static struct panel *S_time_panel(struct figure *f, const struct ddp_params *p, double lo,
				  double hi, int logx)
{
	struct panel *pt;
	struct plot_series *compute;

	pt = S_rank_panel(f, "time of one training step", "time per step", AX_TIME, lo, hi, logx);
	plot_add_series(pt, "step", PS_LINES)->color = 6;
	compute = plot_add_series(pt, "compute", PS_LINES);
	compute->color = 2;
	compute->dash = 1;
	plot_add_series(pt, p->overlap > 0 ? "all-reduce" : "all-reduce (all exposed)",
			PS_LINES)->color = 0;
	if (p->overlap > 0)
		plot_add_series(pt, "exposed all-reduce", PS_LINES)->color = 1;
	return pt;
}

/*
 * On the share panel ps: the asked rank counts, with the share the table
 * prints, and the --target share as a line.  Returns top, raised to the
 * target.
 */
static double S_share_marks(const struct ctx *ctx, const struct ddp_params *p,
			    struct panel *ps, const struct dlist *ranks, double target, double top)
{
	char text[160];
	size_t i;

	for (i = 0; i < ranks->n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->machine.model, (unsigned long)ranks->v[i], &s);
		snprintf(text, sizeof(text), "%.1f %%", 100 * s.fraction);
		plot_add_label(ps, ranks->v[i], 100 * s.fraction, ranks->n <= 8 ? text : "", 1);
	}
	if (target > 0) {
		snprintf(text, sizeof(text), "target %.3g %%", 100 * target);
		plot_add_hline(ps, 100 * target, text);
		top = 100 * target > top ? 100 * target : top;
	}
	return top;
}

/*
 * The figure, against rank count in two panels.  Left: the step's time,
 * its compute, the all-reduce and (with overlap) the exposed part of it.
 * Right: the exposed share of the step, the asked rank counts marked with
 * their value, the --target share as a line.  The models are drawn at
 * every whole rank count (or a few hundred of them), so the steps of
 * ⌈log₂ n⌉ in tree-like algorithms show.
 */
static void S_figure(const struct ctx *ctx, const struct ddp_params *p,
		     const struct dlist *ranks, double target)
{
	struct figure f = { 0 };
	struct panel *pt, *ps;
	struct plot_series *step, *compute, *comm, *exposed, *share;
	char title[400];
	double lo, hi, grid[200], top = 0, tmax = 0;
	size_t i, n;
	int logx;

	S_rank_span(ranks, &lo, &hi, &logx);
	n = plot_rank_grid(lo, hi, sizeof(grid) / sizeof(grid[0]), grid);
	S_step_title(ctx, p, title, sizeof(title));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime ddp: time and communication share of a data-parallel "
			    "step against ranks");
	f.width = 1000;
	f.height = 430;

	/* Series first, pointers after: adding a series may move the others. */
	pt = S_time_panel(&f, p, lo, hi, logx);
	step = &pt->series[0];
	compute = &pt->series[1];
	comm = &pt->series[2];
	exposed = p->overlap > 0 ? &pt->series[3] : NULL;

	/* the series arrays stay put when the panels move */
	ps = S_rank_panel(&f, "communication share of the step", "exposed all-reduce / step",
			  AX_PERCENT, lo, hi, logx);
	ps->key = xstrdup("bottom right");
	share = plot_add_series(ps, NULL, PS_LINES);
	share->color = 1;

	for (i = 0; i < n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->machine.model, (unsigned long)grid[i], &s);
		plot_xy(step, grid[i], s.step_s);
		plot_xy(compute, grid[i], p->compute);
		plot_xy(comm, grid[i], s.comm_s);
		if (exposed)
			plot_xy(exposed, grid[i], s.exposed_s);
		plot_xy(share, grid[i], 100 * s.fraction);
		top = 100 * s.fraction > top ? 100 * s.fraction : top;
		tmax = fmax(tmax, fmax(s.step_s, s.comm_s));
	}
	/* Headroom above the curves for the key. */
	f.panels[0].ymax = tmax * 1.3;
	top = S_share_marks(ctx, p, ps, ranks, target, top);
	/* Room above the highest value for its label; a share stays below 100 %. */
	ps->ymax = top * 1.25 > 100 ? 100 : top > 0 ? top * 1.25 : 1;
	ctx_figure(ctx, &f);
	plot_release(&f);
}

void ddp_figure(const struct ctx *ctx, const struct ddp_params *p, const struct dlist *ranks,
		double target, int have_compute)
{
	if (have_compute)
		S_figure(ctx, p, ranks, target);
	else
		figure_comm(ctx, p, ranks);
}
