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

/*
 * The boxes of one row and kind, joined across gaps below eps: a step of
 * 200 ms holds hundreds of kernels of a few µs, narrower than a pixel.
 */
static void S_boxes(struct plot_series *s, const struct trace_fig *f, size_t row,
		    enum trace_iv what, double y0, double y1, double eps)
{
	double a = NAN, b = NAN;
	size_t i;

	for (i = 0; i < f->n; i++) {
		const struct trace_fig_iv *v = &f->iv[i];

		if (v->row != row || v->what != what)
			continue;
		if (!isnan(b) && v->t0 - b <= eps) {
			if (v->t1 > b)
				b = v->t1;
			continue;
		}
		if (!isnan(a))
			S_box(s, a, b, y0, y1);
		a = v->t0;
		b = v->t1;
	}
	if (!isnan(a))
		S_box(s, a, b, y0, y1);
}

static struct plot_series *S_series(struct panel *p, const char *title, int color)
{
	struct plot_series *s = plot_add_series(p, title, PS_BOXES);

	s->ncols = 4;
	s->color = color;
	s->opacity = 0.85;
	return s;
}

/*
 * The measured panel: the kernels of the step on each rank, from 0 to
 * span seconds, compute below the rank's line and communication above.
 */
static void S_measured_panel(struct figure *fig, const struct trace_fig *f, double span)
{
	struct panel *p;
	struct plot_series *sc, *sh, *se;
	double eps = span / 2000;
	size_t i;

	p = plot_add_panel(fig, "measured: GPU kernels launched in the step, per rank",
			   "time from the step's first kernel", "rank");
	p->xaxis = AX_TIME;
	p->yaxis = AX_INTEGER;
	p->key = xstrdup("outside bottom center horizontal");
	p->xmin = 0;
	p->xmax = span;
	p->ymin = -0.6;
	p->ymax = (double)f->nrows - 0.4;
	/* Compute below each rank's line, communication above it. */
	S_series(p, "compute", C_COMPUTE);
	S_series(p, "communication hidden by compute", C_HIDDEN);
	S_series(p, "communication exposed", C_EXPOSED);
	/* Adding a series may move the panel's array: take the pointers after. */
	sc = &p->series[0];
	sh = &p->series[1];
	se = &p->series[2];
	for (i = 0; i < f->nrows; i++) {
		double y = (double)i;
		S_boxes(sc, f, i, TRACE_IV_COMPUTE, y - 0.4, y, eps);
		S_boxes(sh, f, i, TRACE_IV_COMM_HIDDEN, y, y + 0.4, eps);
		S_boxes(se, f, i, TRACE_IV_COMM_EXPOSED, y, y + 0.4, eps);
	}
}

/*
 * The predicted panel: one stage of the step's model, the pipeline bubble
 * first, then each micro-batch's compute and exposed communication, then
 * the data-parallel communication left exposed.
 */
static void S_predicted_panel(struct figure *fig, const struct step_result *pred)
{
	struct panel *p;
	struct plot_series *pc, *pe, *pd;
	double x = 0, k, m = pred->microbatches;
	size_t first;

	p = plot_add_panel(fig, "predicted: one stage (step's model)", "time from the step's start",
			   "");
	p->xaxis = AX_TIME;
	p->yaxis = AX_INTEGER;
	p->xmin = 0;
	p->xmax = pred->step_s;
	p->ymin = -0.6;
	p->ymax = 0.6;
	p->key = xstrdup("outside bottom center horizontal");
	if (pred->bubble_s > 0) {
		S_box(S_series(p, "pipeline bubble", 3), 0, pred->bubble_s, -0.4, 0.4);
		x = pred->bubble_s;
	}
	first = p->nseries;
	S_series(p, "compute", C_COMPUTE);
	S_series(p, "communication exposed", C_EXPOSED);
	S_series(p, "data-parallel", 4);
	pc = &p->series[first];
	pe = &p->series[first + 1];
	pd = &p->series[first + 2];
	/* Many micro-batches draw as one band each way. */
	if (m > 64) {
		S_box(pc, x, x + m * pred->mb_compute_s, -0.4, 0);
		S_box(pe, x + m * pred->mb_compute_s, x + m * (pred->mb_compute_s + pred->mb_exposed_s),
		      0, 0.4);
		x += m * (pred->mb_compute_s + pred->mb_exposed_s);
	} else {
		for (k = 0; k < m; k++) {
			S_box(pc, x, x + pred->mb_compute_s, -0.4, 0);
			x += pred->mb_compute_s;
			S_box(pe, x, x + pred->mb_exposed_s, 0, 0.4);
			x += pred->mb_exposed_s;
		}
	}
	S_box(pd, x, x + pred->dp_exposed_s, 0, 0.4);
}

void trace_fig_write(const struct ctx *ctx, const struct trace_fig *f, const struct trace *t,
		     long number, const struct step_result *pred)
{
	struct figure fig;
	char title[160];
	double span = 0;
	size_t i;

	memset(&fig, 0, sizeof(fig));
	if (f->nrows == 0)
		die("compare --trace --plot: no kernels in a profiler step to draw%s",
		    number >= 0 ? " (is --step one of the trace's ProfilerStep numbers?)" : "");
	for (i = 0; i < f->n; i++)
		if (f->iv[i].t1 > span)
			span = f->iv[i].t1;
	snprintf(title, sizeof(title), "ProfilerStep#%ld: measured%s", number,
		 pred && !isnan(pred->step_s) ? " and predicted" : "");
	fig.title = xstrdup(title);
	fig.comment = xstrdup("commtime compare --trace: one step's timeline per rank");
	S_measured_panel(&fig, f, span);
	if (pred && !isnan(pred->step_s))
		S_predicted_panel(&fig, pred);
	(void)t;
	ctx_figure(ctx, &fig);
	plot_release(&fig);
}
