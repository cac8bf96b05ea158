/*
 * The measured and predicted timelines of one step (compare_trace_fig.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_trace_fig.h"

/* Palette indices: compute, communication hidden, exposed. */
enum { C_COMPUTE = 0, C_HIDDEN = 2, C_EXPOSED = 1 };

void trace_fig_init(struct trace_fig *f)
{
	memset(f, 0, sizeof(*f));
}

void trace_fig_release(struct trace_fig *f)
{
	free(f->iv);
	free(f->rows);
	memset(f, 0, sizeof(*f));
}

void trace_fig_interval(void *arg, const struct trace_step *s, enum trace_iv what,
			double t0_s, double t1_s)
{
	struct trace_fig *f = arg;
	size_t r;

	for (r = 0; r < f->nrows; r++)
		if (f->rows[r].file == s->file && f->rows[r].dev == s->dev)
			break;
	if (r == f->nrows) {
		f->rows = xrealloc(f->rows, (f->nrows + 1) * sizeof(*f->rows));
		f->rows[r].file = s->file;
		f->rows[r].dev = s->dev;
		f->rows[r].rank = s->rank;
		f->nrows++;
	}
	if (f->n == f->alloc) {
		f->alloc = f->alloc ? 2 * f->alloc : 1024;
		f->iv = xrealloc(f->iv, f->alloc * sizeof(*f->iv));
	}
	f->iv[f->n].row = r;
	f->iv[f->n].what = what;
	f->iv[f->n].t0 = t0_s - s->gpu_t0_s;
	f->iv[f->n].t1 = t1_s - s->gpu_t0_s;
	f->n++;
}

static void S_box(struct plot_series *s, double x0, double x1, double y0, double y1)
{
	double row[4] = { x0, x1, y0, y1 };

	if (x1 > x0)
		plot_point(s, row);
}

void trace_fig_write(const struct ctx *ctx, const struct trace_fig *f, const struct trace *t,
		     long number, const struct step_result *pred)
{
	struct figure fig;
	struct panel *p;
	struct plot_series *sc, *sh, *se;
	char title[160];
	size_t i;

	memset(&fig, 0, sizeof(fig));
	if (f->nrows == 0)
		die("compare --trace --plot: no kernels in a profiler step to draw%s",
		    number >= 0 ? " (is --step one of the trace's ProfilerStep numbers?)" : "");
	snprintf(title, sizeof(title), "ProfilerStep#%ld: measured%s", number,
		 pred ? " and predicted" : "");
	fig.title = xstrdup(title);
	fig.comment = xstrdup("commtime compare --trace: one step's timeline per rank");
	p = plot_add_panel(&fig, "measured: GPU kernels of the step, per rank", "time from the step's first kernel",
			   "rank");
	p->xaxis = AX_TIME;
	p->yaxis = AX_INTEGER;
	p->key = xstrdup("outside bottom center horizontal");
	p->ymin = -0.6;
	p->ymax = (double)f->nrows - 0.4;
	sc = plot_add_series(p, "compute", PS_BOXES);
	sh = plot_add_series(p, "communication hidden by compute", PS_BOXES);
	se = plot_add_series(p, "communication exposed", PS_BOXES);
	sc->ncols = sh->ncols = se->ncols = 4;
	sc->color = C_COMPUTE;
	sh->color = C_HIDDEN;
	se->color = C_EXPOSED;
	sc->opacity = sh->opacity = se->opacity = 0.8;
	for (i = 0; i < f->n; i++) {
		const struct trace_fig_iv *v = &f->iv[i];
		double y = (double)v->row;

		/* Compute below the row's line, communication above it. */
		if (v->what == TRACE_IV_COMPUTE)
			S_box(sc, v->t0, v->t1, y - 0.4, y);
		else
			S_box(v->what == TRACE_IV_COMM_HIDDEN ? sh : se, v->t0, v->t1, y, y + 0.4);
	}
	for (i = 0; i < f->nrows; i++) {
		char lab[48];
		snprintf(lab, sizeof(lab), "rank %ld", f->rows[i].rank);
		(void)lab;
	}
	if (pred && !isnan(pred->step_s)) {
		struct plot_series *pc, *pe, *pb, *pd;
		double x = 0, m = pred->microbatches;
		double k;

		p = plot_add_panel(&fig, "predicted: one stage (step's model)", "time from the step's start",
				   "");
		p->xaxis = AX_TIME;
		p->yaxis = AX_INTEGER;
		p->ymin = -0.6;
		p->ymax = 0.6;
		p->key = xstrdup("outside bottom center horizontal");
		pb = plot_add_series(p, "pipeline bubble", PS_BOXES);
		pc = plot_add_series(p, "compute", PS_BOXES);
		pe = plot_add_series(p, "communication exposed", PS_BOXES);
		pd = plot_add_series(p, "data-parallel", PS_BOXES);
		pb->ncols = pc->ncols = pe->ncols = pd->ncols = 4;
		pb->color = 3;
		pc->color = C_COMPUTE;
		pe->color = C_EXPOSED;
		pd->color = 4;
		pb->opacity = pc->opacity = pe->opacity = pd->opacity = 0.8;
		S_box(pb, 0, pred->bubble_s, -0.4, 0.4);
		x = pred->bubble_s;
		for (k = 0; k < m && k < 4096; k++) {
			S_box(pc, x, x + pred->mb_compute_s, -0.4, 0);
			x += pred->mb_compute_s;
			S_box(pe, x, x + pred->mb_exposed_s, 0, 0.4);
			x += pred->mb_exposed_s;
		}
		S_box(pd, x, x + pred->dp_exposed_s, 0, 0.4);
	}
	(void)t;
	ctx_figure(ctx, &fig);
	plot_release(&fig);
}
