/*
 * The figures of commtime pipeline: the bubble against the microbatch
 * count, and the Gantt chart of a simulated schedule.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_cmd.h"

/*
 * Figures.  Without --timeline: the bubble's share of the step against
 * the microbatch count, one curve per stage count (and per schedule when
 * several are asked for).  With --timeline: the simulated schedule as a
 * Gantt chart, one row per stage.
 */

#define PLURAL(n, suffix) ((n) == 1 ? "" : (suffix))
/* Points per bubble curve. */
#define FIG_CURVE_POINTS 200

/*
 * The microbatch counts a curve passes through: every multiple of unit
 * (1, or P for the interleaved schedule, which needs M divisible by P)
 * from lo to hi, or about max of them evenly spaced on a log scale when
 * there are more.  Returns how many were written to out.
 */
static size_t micro_grid(double lo, double hi, double unit, size_t max, double *out)
{
	double first = ceil(lo / unit) * unit, last = floor(hi / unit) * unit, v;
	size_t n = 0, i;

	if (last < first)
		return 0;
	if ((last - first) / unit + 1 <= (double)max) {
		for (v = first; v <= last; v += unit)
			out[n++] = v;
		return n;
	}
	for (i = 0; i < max; i++) {
		v = i + 1 == max ? last :
			unit * floor(first / unit * pow(last / first, (double)i / (double)(max - 1)) + 0.5);
		/* rounding repeats counts at the low end: keep each once */
		if (n == 0 || v > out[n - 1])
			out[n++] = v;
	}
	return n;
}

/* The bubble share of the step in percent; the configuration was checked. */
static double bubble_percent(const struct pipeline_args *a, enum pp_schedule sched,
			     unsigned long stages, double micro)
{
	struct pp_config c = pipeline_config(a, sched, stages, (unsigned long)micro);
	struct pp_result r;
	struct errbuf eb;

	if (pp_bubble(&c, &r, &eb) < 0)
		die("%s", eb.msg);
	return 100 * r.bubble_fraction;
}

/* The longest name of a curve: "gpipe and 1f1b", "interleaved, v = V". */
enum { NAME_LEN = 48 };

/*
 * GPipe and 1F1B have the same bubble: one curve for both, named for
 * both, rather than two drawn on top of each other. Returns the count of
 * curves per stage count.
 */
static int bubble_groups(const struct pipeline_args *a, enum pp_schedule *groups,
			 char (*names)[NAME_LEN])
{
	int k, g, ngroups = 0;

	for (k = 0; k < a->nsched; k++) {
		enum pp_schedule s = a->scheds[k];

		for (g = 0; g < ngroups; g++)
			if (s != PP_INTERLEAVED && groups[g] != PP_INTERLEAVED)
				break;
		if (g < ngroups) {
			size_t len = strlen(names[g]);

			snprintf(names[g] + len, NAME_LEN - len, " and %s", pp_schedule_name(s));
			continue;
		}
		groups[ngroups] = s;
		if (s == PP_INTERLEAVED)
			snprintf(names[ngroups], NAME_LEN, "interleaved, v = %lu", a->virt);
		else
			snprintf(names[ngroups], NAME_LEN, "%s", pp_schedule_name(s));
		ngroups++;
	}
	return ngroups;
}

/* The figure's title: the formula of the one schedule drawn, or of all. */
static void bubble_title(const struct pipeline_args *a, const enum pp_schedule *groups,
			 char (*names)[NAME_LEN], int ngroups, char *title, size_t size)
{
	if (ngroups == 1 && groups[0] == PP_INTERLEAVED)
		snprintf(title, size, "Pipeline bubble of the interleaved schedule (v = %lu): "
			 "(P-1)/(vM+P-1) of each step idle", a->virt);
	else if (ngroups == 1)
		snprintf(title, size, "Pipeline bubble of the %s schedule%s: "
			 "(P-1)/(M+P-1) of each step idle", names[0],
			 strchr(names[0], ' ') ? "s" : "");
	else
		snprintf(title, size, "Pipeline bubble: (P-1)/(vM+P-1) of each step idle "
			 "(v = 1 for gpipe and 1f1b)");
}

/* A point of the bubble figure whose values are written beside it. */
struct mark {
	double x, y;
};

/* Schedule sched's bubble on stages stages as series s, from lo to hi; *top rises to it. */
static void bubble_curve(struct plot_series *s, const struct pipeline_args *a,
			 enum pp_schedule sched, unsigned long stages, double lo, double hi,
			 double *top)
{
	double grid[FIG_CURVE_POINTS];
	size_t j, n;

	n = micro_grid(lo, hi, sched == PP_INTERLEAVED ? (double)stages : 1,
		       FIG_CURVE_POINTS, grid);
	for (j = 0; j < n; j++) {
		double y = bubble_percent(a, sched, stages, grid[j]);

		plot_xy(s, grid[j], y);
		*top = fmax(*top, y);
	}
}

/*
 * The rows of the table for sched on stages stages, as the points of s;
 * *top rises to them, and when labelled each goes into marks[(*nlabel)++].
 */
static void bubble_rows(struct plot_series *s, const struct pipeline_args *a,
			enum pp_schedule sched, unsigned long stages, int labelled,
			struct mark *marks, size_t *nlabel, double *top)
{
	size_t j;

	for (j = 0; j < a->micro.n; j++) {
		double y;

		/* the rows the table left out */
		if (sched == PP_INTERLEAVED && (unsigned long)a->micro.v[j] % stages)
			continue;
		y = bubble_percent(a, sched, stages, a->micro.v[j]);

		plot_xy(s, a->micro.v[j], y);
		*top = fmax(*top, y);
		if (labelled)
			marks[(*nlabel)++] = (struct mark){ a->micro.v[j], y };
	}
}

/*
 * One curve per stage count and group of schedules on p, from lo to hi,
 * the table's rows marked on it; with three rows at most, those go into
 * marks[(*nlabel)++] too.  Returns the highest point drawn, in percent.
 */
static double bubble_curves(struct panel *p, const struct pipeline_args *a,
			    const enum pp_schedule *groups, char (*names)[NAME_LEN], int ngroups,
			    double lo, double hi, struct mark *marks, size_t *nlabel)
{
	char text[160];
	double top = 0;
	size_t i;
	int g;

	for (i = 0; i < a->stages.n; i++) {
		unsigned long stages = (unsigned long)a->stages.v[i];

		for (g = 0; g < ngroups; g++) {
			struct plot_series *s;

			if (ngroups == 1)
				snprintf(text, sizeof(text), "%lu stage%s", stages, PLURAL(stages, "s"));
			else
				snprintf(text, sizeof(text), "%lu stage%s, %s", stages,
					 PLURAL(stages, "s"), names[g]);
			s = plot_add_series(p, text, PS_LINES);
			/* past eight stage counts the colours repeat: change the dashes */
			s->color = (int)(i % 8);
			s->dash = g + (int)(i / 8);
			bubble_curve(s, a, groups[g], stages, lo, hi, &top);
			/* the rows of the table, marked on the curve */
			s = plot_add_series(p, NULL, PS_POINTS);
			s->color = (int)(i % 8);
			bubble_rows(s, a, groups[g], stages,
				    a->micro.n * a->stages.n * (size_t)ngroups <= 3, marks, nlabel,
				    &top);
		}
	}
	return top;
}

void pipeline_figure_bubble(const struct ctx *ctx, const struct pipeline_args *a)
{
	struct figure f = { 0 };
	struct panel *p;
	enum pp_schedule groups[PP_COUNT];
	char title[256], text[160], names[PP_COUNT][NAME_LEN];
	double lo = INFINITY, hi = 0, top, step;
	struct mark marks[3];
	size_t j, nlabel;
	int ngroups;

	ngroups = bubble_groups(a, groups, names);

	/* A few counts close together say little: widen around them. */
	for (j = 0; j < a->micro.n; j++) {
		lo = fmin(lo, a->micro.v[j]);
		hi = fmax(hi, a->micro.v[j]);
	}
	if (hi / lo < 8) {
		lo = fmax(1, floor(lo / 4));
		hi = fmin((double)PP_MICROBATCHES_MAX, hi * 4);
	}

	bubble_title(a, groups, names, ngroups, title, sizeof(title));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime pipeline: the bubble's share of the step against microbatches");
	p = plot_add_panel(&f, title, "microbatches per step M", "bubble (share of the step)");
	p->xaxis = AX_PLAIN;
	p->yaxis = AX_PERCENT;
	p->logx = hi / lo >= 10;
	p->xmin = lo;
	p->xmax = hi;
	p->key = xstrdup("top right");

	nlabel = 0;
	top = bubble_curves(p, a, groups, names, ngroups, lo, hi, marks, &nlabel);
	/* Percent from zero to a round number above the highest curve. */
	step = top > 20 ? 10 : top > 5 ? 5 : 1;
	p->ymin = 0;
	p->ymax = fmin(100, fmax(step, ceil(top * 1.02 / step) * step));
	/*
	 * A few points get their values written above and to the right,
	 * where the falling curves leave room: the label is centred, so it
	 * moves right by about half its width (a tenth of the axis).
	 */
	for (j = 0; j < nlabel; j++) {
		double x = p->logx ? marks[j].x * pow(hi / lo, 0.1) : marks[j].x + 0.1 * (hi - lo);

		snprintf(text, sizeof(text), "M = %.0f: %.1f %%", marks[j].x, marks[j].y);
		plot_add_label(p, x, marks[j].y + 0.04 * p->ymax, text, 0);
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
}

/*
 * The timeline's title: the schedule, its shape, the times of a forward
 * and a backward, the step and the share of it each stage is idle.
 */
static void timeline_title(const struct pipeline_args *a, const struct pp_timeline *t,
			   const struct pp_config *c, char *title, size_t size)
{
	char text[160], tf[32], tb[32], step[32], sched[48];
	double lo = INFINITY, hi = -INFINITY;
	unsigned long s;

	for (s = 0; s < t->stages; s++) {
		struct pp_stage_stats st;

		pp_stage_stats(t, s, &st);
		lo = fmin(lo, st.idle / t->makespan);
		hi = fmax(hi, st.idle / t->makespan);
	}
	if (c->schedule == PP_INTERLEAVED)
		snprintf(sched, sizeof(sched), "interleaved (v = %lu)", t->virt);
	else
		snprintf(sched, sizeof(sched), "%s", pp_schedule_name(c->schedule));
	if (a->seconds)
		snprintf(text, sizeof(text), "tf = %s, tb = %s", units_fmt_time(tf, sizeof(tf), a->tf, 3),
			 units_fmt_time(tb, sizeof(tb), a->tb, 3));
	else
		snprintf(text, sizeof(text), "tb = %.4g tf", a->tb / a->tf);
	pipeline_fmt_time(step, sizeof(step), t->makespan, a->seconds);
	if (hi - lo <= 1e-9)
		snprintf(title, size, "Pipeline timeline, %s: %lu stage%s, %lu microbatch%s, "
			 "%s; step %s, %.1f %% idle", sched, c->stages, PLURAL(c->stages, "s"),
			 c->microbatches, PLURAL(c->microbatches, "es"), text, step, 100 * hi);
	else
		snprintf(title, size, "Pipeline timeline, %s: %lu stage%s, %lu microbatch%s, "
			 "%s; step %s, %.1f-%.1f %% idle", sched, c->stages, PLURAL(c->stages, "s"),
			 c->microbatches, PLURAL(c->microbatches, "es"), text, step, 100 * lo, 100 * hi);
}

/*
 * The timeline's series on p, a pass (forward, backward) by a shade
 * (even and odd chunks when interleaved, else one) into series.
 */
static void timeline_series(struct panel *p, const struct pp_timeline *t,
			    struct plot_series *series[2][2])
{
	/* palette: blue and sky blue for forwards, vermillion and orange for backwards */
	static const int colors[2][2] = { { 0, 5 }, { 1, 4 } };
	static const char *const pass_name[2] = { "forward", "backward" };
	char text[160];
	int pass, shade, nshade = t->virt > 1 ? 2 : 1;

	for (pass = 0; pass < 2; pass++)
		for (shade = 0; shade < nshade; shade++) {
			if (t->virt == 1)
				snprintf(text, sizeof(text), "%s", pass_name[pass]);
			else if (t->virt == 2)
				snprintf(text, sizeof(text), "%s, chunk %d", pass_name[pass], shade);
			else
				snprintf(text, sizeof(text), "%s, %s chunks", pass_name[pass],
					 shade ? "odd" : "even");
			series[pass][shade] = plot_add_series(p, text, PS_BOXES);
			series[pass][shade]->color = colors[pass][shade];
		}
	/* adding a series may move the others */
	for (pass = 0; pass < 2; pass++)
		for (shade = 0; shade < nshade; shade++)
			series[pass][shade] = &p->series[pass * nshade + shade];
}

/*
 * The Gantt chart of a simulated schedule: time across, one row per
 * stage with stage 0 on top, forwards and backwards in two colours; for
 * the interleaved schedule odd chunks take a lighter shade of their
 * colour.  Microbatch numbers go inside the boxes when they fit.
 */
void pipeline_figure_timeline(const struct ctx *ctx, const struct pipeline_args *a,
			    const struct pp_timeline *t)
{
	struct figure f = { 0 };
	struct panel *p;
	struct plot_series *series[2][2];
	char title[320], text[160];
	double plot_w, row_h, box_w;
	int nshade = t->virt > 1 ? 2 : 1, label;
	size_t i;
	struct pp_config cfg = pipeline_config_of(a, 0, 0, 0), *c = &cfg;

	timeline_title(a, t, c, title, sizeof(title));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime pipeline --timeline: the simulated schedule, one row per stage");
	/* Rows of about 40 pixels, within reason. */
	f.width = 1000;
	f.height = (int)fmin(900, fmax(300, 120 + 40 * (double)t->stages));
	p = plot_add_panel(&f, title, a->seconds ? "time" : "time (units of tf, one forward of one microbatch)",
			   "stage");
	p->xaxis = a->seconds ? AX_TIME : AX_PLAIN;
	p->yaxis = AX_INTEGER;
	p->xmin = 0;
	p->xmax = t->makespan;
	/* reversed: stage 0 on top, half a row free above and below */
	p->ymin = (double)t->stages - 0.5;
	p->ymax = -0.5;
	p->key = xstrdup("rmargin top vertical");
	timeline_series(p, t, series);

	/*
	 * Numbers inside the boxes when the narrowest box holds the widest
	 * number (about 7 pixels a digit) and the rows are tall enough.
	 */
	plot_w = f.width - 120;
	row_h = (f.height - 130) / (double)t->stages;
	box_w = plot_w * fmin(a->tf, a->tb) / (double)t->virt / t->makespan;
	snprintf(text, sizeof(text), "%lu", c->microbatches - 1);
	label = box_w >= 7 * (double)strlen(text) + 6 && row_h >= 16;

	for (i = 0; i < t->nops; i++) {
		const struct pp_op *op = &t->ops[i];
		double row[4];

		row[0] = op->start;
		row[1] = op->end;
		row[2] = (double)op->stage - 0.4;
		row[3] = (double)op->stage + 0.4;
		plot_point(series[op->pass == PP_BACKWARD][op->chunk % (unsigned long)nshade], row);
		if (label) {
			snprintf(text, sizeof(text), "%lu", op->microbatch);
			plot_add_label(p, (op->start + op->end) / 2, (double)op->stage, text, 0);
		}
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
}
