/*
 * The figure of a training step: where its time goes, as stacked bars
 * (models/step.md; search draws the same bars for the configurations it
 * compares, models/search.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "step_fig.h"

/* The segments left to right; the palette of plot.c (Okabe & Ito). */
enum { SEG_COMPUTE, SEG_TP, SEG_CP, SEG_EP, SEG_PP, SEG_DP, SEG_BUBBLE, SEG_OPTIM, SEG_OTHER,
       SEG_COUNT };
static const char *const seg_name[SEG_COUNT] = {
	"compute", "exposed tp", "exposed cp", "exposed ep", "exposed pp", "exposed dp",
	"pipeline bubble", "optimizer update", "other"
};
static const int seg_color[SEG_COUNT] = { 0, 1, 2, 3, 4, 5, 7, 6, 6 };

static double S_seg(const struct search_terms *t, int k)
{
	switch (k) {
	case SEG_COMPUTE: return t->compute_s;
	case SEG_TP: return t->exposed_s[DIM_TP];
	case SEG_CP: return t->exposed_s[DIM_CP];
	case SEG_EP: return t->exposed_s[DIM_EP];
	case SEG_PP: return t->exposed_s[DIM_PP];
	case SEG_DP: return t->exposed_s[DIM_DP];
	case SEG_BUBBLE: return t->bubble_s;
	case SEG_OPTIM: return t->optim_s;
	default: return t->other_s;
	}
}

/*
 * Bar i: its segments into the series of the used ones from first on,
 * their times where wide enough, and its label above it.
 */
static void S_bar(struct panel *p, const struct step_fig_bar *bar, size_t i, const int *used,
		  size_t first, double xmax)
{
	const struct search_terms *t = &bar->t;
	double x = 0, y = (double)i + 0.5;
	char text[300], v[32];
	size_t si = first;
	int k;

	for (k = 0; k < SEG_COUNT; k++) {
		double d = S_seg(t, k), row[4];

		if (!used[k])
			continue;
		if (d > 0) {
			row[0] = x;
			row[1] = x + d;
			row[2] = y - 0.3;
			row[3] = y + 0.3;
			plot_point(&p->series[si], row);
			/* The time inside a segment wide enough for it. */
			if (d >= 0.08 * xmax) {
				units_fmt_time(v, sizeof(v), d, 3);
				plot_add_label(p, x + d / 2, y, v, 0);
			}
			x += d;
		}
		si++;
	}
	units_fmt_time(v, sizeof(v), t->step_s, 4);
	snprintf(text, sizeof(text), "%s: %s, %.1f GB per GPU", bar->label, v,
		 t->memory_B / 1e9);
	plot_add_label(p, xmax / 2, y - 0.4, text, 0);
}

void step_fig_bars(struct panel *p, const struct step_fig_bar *bars, size_t n)
{
	struct plot_series *s;
	double xmax = 0;
	size_t i;
	int k, used[SEG_COUNT] = { 0 };
	size_t first = p->nseries;

	for (i = 0; i < n; i++) {
		for (k = 0; k < SEG_COUNT; k++)
			if (S_seg(&bars[i].t, k) > 0)
				used[k] = 1;
		xmax = fmax(xmax, bars[i].t.step_s);
	}
	/* One series per segment that some bar has, so the key lists only those. */
	for (k = 0; k < SEG_COUNT; k++)
		if (used[k]) {
			s = plot_add_series(p, seg_name[k], PS_BOXES);
			s->color = seg_color[k];
			s->opacity = k == SEG_OTHER ? 0.3 : k == SEG_OPTIM ? 0.6 : 0.9;
		}
	for (i = 0; i < n; i++)
		S_bar(p, &bars[i], i, used, first, xmax);
	p->xaxis = AX_TIME;
	p->yaxis = AX_INTEGER;
	p->xmin = 0;
	p->xmax = xmax * 1.02;
	/*
	 * Reversed: the first bar on top, room above each for its label; the
	 * rows sit between whole numbers, so one bar gets no tic beside it.
	 */
	p->ymin = (double)n - 0.02;
	p->ymax = 0.02;
	p->key = xstrdup("rmargin top vertical");
}

/* The best case's terms: the expected step's, with the best compute and bubble. */
static void S_best_terms(const struct step_result *r, struct search_terms *t)
{
	struct step_result b = *r;

	b.compute_s = r->compute_best_s;
	b.bubble_s = r->bubble_best_s;
	b.step_s = r->step_best_s;
	search_terms_of(&b, t);
}

/* The expected step's stated error as a line across its bar (row 0). */
static void S_band(struct panel *p, const struct step_result *r)
{
	struct plot_series *s;
	double a[2] = { r->step_lo_s, 0.5 }, b[2] = { r->step_hi_s, 0.5 };

	if (!(r->step_lo_s > 0) || !(r->step_hi_s > r->step_lo_s))
		return;
	size_t i;
	double old = p->xmax;

	char name[96], lo[32], hi[32];

	units_fmt_time(lo, sizeof(lo), r->step_lo_s, 3);
	units_fmt_time(hi, sizeof(hi), r->step_hi_s, 3);
	snprintf(name, sizeof(name), "expected: stated error, %s to %s", lo, hi);
	s = plot_add_series(p, name, PS_LINES);
	s->color = 6;
	plot_point(s, a);
	plot_point(s, b);
	if (p->xmax < r->step_hi_s * 1.02) {
		p->xmax = r->step_hi_s * 1.02;
		/* the bars' titles, centred on the wider axis */
		for (i = 0; i < p->nlabels; i++)
			if (p->labels[i].point == 0 && p->labels[i].x == old / 1.02 / 2)
				p->labels[i].x = p->xmax / 2;
	}
}

void step_figure(const struct ctx *ctx, const struct workload *w, const struct step_config *c,
		 const struct step_result *r)
{
	struct figure f = { 0 };
	struct panel *p;
	struct step_fig_bar bars[2];
	char title[400], where[160], label[2][700], v[32], chunks[32] = "";
	char terms[5][32];
	const struct expect_out *x = &r->expect;

	if (isnan(r->step_s))
		die_usage("step: the figure needs the step time: give --gpu, --peak or --compute");
	if (ctx->machine.have_system && ctx->machine.system.gpus_per_node > 0) {
		double nodes = ceil(r->gpus / (double)ctx->machine.system.gpus_per_node);

		snprintf(where, sizeof(where), "%.15g GPUs, %.15g node%s of %lu (%s)", r->gpus, nodes,
			 nodes == 1 ? "" : "s", ctx->machine.system.gpus_per_node, ctx->machine.system.name);
	} else
		snprintf(where, sizeof(where), "%.15g GPUs on one link", r->gpus);
	units_fmt_time(v, sizeof(v), r->step_s, 4);
	snprintf(title, sizeof(title), "%s, one training step on %s: %s expected, %.0f tokens/s",
		 w->name, where, v, r->tokens_per_s);
	if (c->schedule == PP_INTERLEAVED)
		snprintf(chunks, sizeof(chunks), " v %lu", c->virt);
	units_fmt_time(terms[0], sizeof(terms[0]), x->clock_s, 3);
	units_fmt_time(terms[1], sizeof(terms[1]), x->gaps_s, 3);
	units_fmt_time(terms[2], sizeof(terms[2]), x->interference_s, 3);
	units_fmt_time(terms[3], sizeof(terms[3]), x->straggler_s, 3);
	units_fmt_time(terms[4], sizeof(terms[4]), x->house_s, 3);
	snprintf(label[0], sizeof(label[0]), "expected: the best case + clock %s + gaps %s + "
		 "interference %s + stragglers %s + housekeeping %s", terms[0], terms[1], terms[2],
		 terms[3], terms[4]);
	snprintf(label[1], sizeof(label[1]), "best case, tp %lu pp %lu dp %lu cp %lu ep %lu, ZeRO %d, "
		 "%.15g micro-batches of %.15g, %s%s, recompute %s", c->tp, c->pp, c->dp, c->cp, c->ep,
		 c->zero, r->microbatches, c->micro_batch, pp_schedule_name(c->schedule), chunks,
		 recompute_name(c->recompute));
	bars[0].label = label[0];
	search_terms_of(r, &bars[0].t);
	bars[1].label = label[1];
	S_best_terms(r, &bars[1].t);
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime step: the expected step and the best case by term, exposed "
			    "communication by dimension, the expected step's stated error");
	f.width = 1400;
	f.height = 420;
	p = plot_add_panel(&f, title, "time per step (compute, exposed communication, bubble)", "");
	step_fig_bars(p, bars, 2);
	S_band(p, r);
	ctx_figure(ctx, &f);
	plot_release(&f);
}
