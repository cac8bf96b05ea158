/*
 * commtime pipeline: the bubble of pipeline-parallel schedules, one row
 * per stage count × microbatch count × schedule, and with --timeline the
 * simulated schedule of one configuration.  Formulas and simulation live
 * in pipeline.c; models/pipeline.md explains them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pipeline.h"

static const char *const usage_lines[] = {
	"commtime pipeline --stages LIST --microbatches LIST [options]", NULL
};
static const struct opts_usage usage = {
	.cmd = "pipeline",
	.hide = OPT_TAG_LINK,
	.lines = usage_lines,
	.about = "Bubble of a pipeline-parallel step: the share of the step each stage\n"
		 "idles, (P-1)/(vM+P-1), and Megatron's bubble/ideal ratio (P-1)/(vM),\n"
		 "for P stages, M microbatches and v chunks per stage (interleaved).\n",
};

/* Everything the command line asked for. */
struct args {
	struct dlist stages, micro;
	enum pp_schedule scheds[PP_COUNT];
	int nsched;
	unsigned long virt;
	int virt_given;
	double tf, tb;      /* seconds, or 1 and 2 when in units of tf */
	int seconds;        /* --tf or --tb given */
	int tf_given, tb_given;
	int timeline;
};

/* The summary table; the time columns are chosen by units_of_tf(). */
static struct column summary_cols[] = {
	{ "stages", "stages", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "microbatches", "microbatches", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "schedule", "schedule", COL_STR, H_PLAIN, 0, NULL, 0, 11, 0 },
	{ "bubble_fraction", "bubble/step", COL_NUM, H_PERCENT, 0, NULL, 1, 0, 0 },
	{ "bubble_ratio", "bubble/ideal", COL_NUM, H_PLAIN, 0, NULL, 4, 0, 0 },
	{ "virtual", "v", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "ideal_s", "ideal", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "bubble_s", "bubble", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "step_s", "step", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "inflight", "in flight", COL_NUM, H_PLAIN, 0, NULL, 4, 0, 0 },
};
#define NSUMMARY (sizeof(summary_cols) / sizeof(summary_cols[0]))

static struct column stage_cols[] = {
	{ "stage", "stage", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "busy_s", "busy", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "idle_s", "idle", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "idle_fraction", "idle/step", COL_NUM, H_PERCENT, 0, NULL, 1, 0, 0 },
	{ "first_start_s", "first start", COL_NUM, H_TIME, 0, NULL, 4, 0, 0 },
	{ "last_end_s", "last end", COL_NUM, H_TIME, 0, NULL, 4, 0, 0 },
	{ "window_idle_s", "idle inside", COL_NUM, H_TIME, 0, NULL, 4, 0, 0 },
	{ "inflight", "in flight", COL_NUM, H_PLAIN, 0, NULL, 4, 0, 0 },
};
#define NSTAGE (sizeof(stage_cols) / sizeof(stage_cols[0]))

static struct column timeline_cols[] = {
	{ "stage", "stage", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "microbatch", "microbatch", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "pass", "pass", COL_STR, H_PLAIN, 0, NULL, 0, 8, 0 },
	{ "chunk", "chunk", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "start_s", "start", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "end_s", "end", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
};
#define NTIMELINE (sizeof(timeline_cols) / sizeof(timeline_cols[0]))

/*
 * Without --tf or --tb the times are multiples of tf: the columns say so
 * in their keys ("step_tf") and print as plain numbers.
 */
static void units_of_tf(struct column *cols, size_t n)
{
	static char keys[16][24], labels[16][24];
	static size_t used;
	size_t i, len;

	for (i = 0; i < n; i++) {
		if (cols[i].human != H_TIME || used == sizeof(keys) / sizeof(keys[0]))
			continue;
		len = strlen(cols[i].key);
		snprintf(keys[used], sizeof(keys[used]), "%.*s_tf", (int)(len - 2), cols[i].key);
		snprintf(labels[used], sizeof(labels[used]), "%s (tf)", cols[i].label);
		cols[i].key = keys[used];
		cols[i].label = labels[used++];
		cols[i].human = H_PLAIN;
		cols[i].prec = 6;
	}
}

/* A count list: integers from 1 to max; dies with exit 2 naming the option. */
static void count_list(const char *opt, const char *what, const char *arg,
		       struct dlist *l, unsigned long max)
{
	size_t i;

	opt_list(opt, Q_COUNT, arg, l);
	for (i = 0; i < l->n; i++) {
		char val[128];

		/* Name the element when the list has several. */
		if (l->n == 1)
			snprintf(val, sizeof(val), "'%.60s'", arg);
		else
			snprintf(val, sizeof(val), "%.17g in '%.60s'", l->v[i], arg);
		if (l->v[i] < 1)
			die_usage("%s: %s must be at least 1, got %s", opt, what, val);
		if (l->v[i] > (double)max)
			die_usage("%s: %s %s is above the limit %lu", opt, what, val, max);
	}
}

static void cb_stages(const struct opt *o, const char *arg)
{
	count_list("--stages", "stage count", arg, o->value, PP_STAGES_MAX);
}

static void cb_micro(const struct opt *o, const char *arg)
{
	count_list("--microbatches", "microbatch count", arg, o->value, PP_MICROBATCHES_MAX);
}

static void cb_schedule(const struct opt *o, const char *arg)
{
	struct args *a = o->value;
	struct errbuf eb;

	a->nsched = pp_schedule_parse_list(arg, a->scheds, &eb);
	if (a->nsched < 0)
		die_usage("--schedule: %s", eb.msg);
}

static void cb_virtual(const struct opt *o, const char *arg)
{
	double x = opt_quantity("--virtual", Q_COUNT, arg);

	if (x < 1 || x > (double)PP_VIRTUAL_MAX)
		die_usage("--virtual: chunks per stage must be from 1 to %lu, got '%s'",
			  PP_VIRTUAL_MAX, arg);
	*(unsigned long *)o->value = (unsigned long)x;
}

static void parse_args(int argc, char **argv, struct args *a)
{
	int have_stages, have_micro, have_sched, i;
	struct opt options[] = {
		OPT_CALLBACK_("stages", "LIST", &a->stages, cb_stages,
			      "pipeline stages P, e.g. 4,8 or 2:16:x2 (required)"),
		OPT_CALLBACK_("microbatches", "LIST", &a->micro, cb_micro,
			      "microbatches per step M, e.g. 8:64:x2 (required)"),
		{ .type = OPT_CALLBACK, .long_name = "schedule", .argh = "LIST", .value = a,
		  .cb = cb_schedule, .complete = "gpipe 1f1b interleaved",
		  .help = "gpipe, 1f1b (default) or interleaved, comma-separated" },
		OPT_CALLBACK_("virtual", "V", &a->virt, cb_virtual,
			      "model chunks per stage of the interleaved schedule\n"
			      "(default 2; alone, it selects interleaved)"),
		OPT_POSITIVE_("tf", "TIME", Q_TIME, &a->tf,
			      "forward time of one microbatch on one stage"),
		OPT_POSITIVE_("tb", "TIME", Q_TIME, &a->tb,
			      "backward time (default 2 tf); without either,\n"
			      "times are in units of tf"),
		OPT_FLAG_("timeline", &a->timeline,
			  "simulate the schedule and print when each forward\n"
			  "and backward starts and ends on each stage (one\n"
			  "stage count, microbatch count and schedule); in CSV\n"
			  "the timeline is the table"),
		OPT_END_()
	};

	memset(a, 0, sizeof(*a));
	a->scheds[0] = PP_1F1B;
	a->nsched = 1;
	a->virt = 2;
	opts_parse(argc, argv, options, &usage, 0);
	have_stages = opts_given(options, "stages") != NULL;
	have_micro = opts_given(options, "microbatches") != NULL;
	have_sched = opts_given(options, "schedule") != NULL;
	a->virt_given = opts_given(options, "virtual") != NULL;
	a->tf_given = opts_given(options, "tf") != NULL;
	a->tb_given = opts_given(options, "tb") != NULL;
	if (!have_stages || !have_micro)
		die_usage("pipeline needs --stages and --microbatches; see 'commtime pipeline --help'");

	/* --virtual only means something to the interleaved schedule. */
	if (a->virt_given && !have_sched) {
		a->scheds[0] = PP_INTERLEAVED;
	} else if (a->virt_given) {
		for (i = 0; i < a->nsched && a->scheds[i] != PP_INTERLEAVED; i++)
			;
		if (i == a->nsched)
			die_usage("--virtual: chunks per stage need the interleaved schedule; "
				  "add --schedule interleaved");
	}

	/* The papers' default proportion: a backward costs two forwards. */
	a->seconds = a->tf_given || a->tb_given;
	if (!a->tf_given)
		a->tf = a->tb_given ? a->tb / 2 : 1;
	if (!a->tb_given)
		a->tb = 2 * a->tf;

	if (a->timeline && (a->stages.n != 1 || a->micro.n != 1 || a->nsched != 1))
		die_usage("--timeline: simulates one schedule; give one value each to "
			  "--stages, --microbatches and --schedule");
}

static struct pp_config config_of(const struct args *a, size_t i, size_t j, int k)
{
	struct pp_config c;

	c.schedule = a->scheds[k];
	c.stages = (unsigned long)a->stages.v[i];
	c.microbatches = (unsigned long)a->micro.v[j];
	c.virt = c.schedule == PP_INTERLEAVED ? a->virt : 1;
	c.tf = a->tf;
	c.tb = a->tb;
	return c;
}

static void echo_inputs(const struct args *a, struct out *o)
{
	int i;

	if (a->seconds) {
		out_input(o, "tf_s", "tf", a->tf, H_TIME, 4, a->tf_given ? NULL :
			  "tb/2, the default proportion");
		out_input(o, "tb_s", "tb", a->tb, H_TIME, 4, a->tb_given ? NULL :
			  "2 tf, the default proportion");
	} else {
		out_input(o, "tb_per_tf", "tb/tf", a->tb / a->tf, H_PLAIN, 4,
			  "default; times are in units of tf, set --tf or --tb for seconds");
	}
	for (i = 0; i < a->nsched; i++)
		if (a->scheds[i] == PP_INTERLEAVED)
			out_input(o, "virtual", "chunks per stage", (double)a->virt, H_PLAIN, 4,
				  a->virt_given ? "interleaved schedule" :
				  "interleaved schedule; default, set with --virtual");
}

/* A time for a line of text: "12.00 ms", or "12 tf" in units of tf. */
static const char *fmt_time(char *buf, size_t len, double x, int seconds)
{
	if (seconds)
		return units_fmt_time(buf, len, x, 4);
	snprintf(buf, len, "%.6g tf", x);
	return buf;
}

/*
 * The simulated schedule of one configuration: a table of what each
 * stage did (the seed's experiment: its idle time against the formula),
 * then every operation.
 */
static void write_timeline(const struct pp_timeline *t, const struct pp_result *r,
			   const struct args *a, struct out *o)
{
	static const struct table stages_t = {
		"stages", "simulated, per stage", stage_cols, NSTAGE, 1
	};
	static const struct table timeline_t = {
		"timeline", "simulated schedule", timeline_cols, NTIMELINE, 0
	};
	char sim[40], formula[40];
	double lo = INFINITY, hi = -INFINITY;
	unsigned long s;
	size_t i;

	out_table_begin(o, &stages_t);
	for (s = 0; s < t->stages; s++) {
		struct pp_stage_stats st;
		struct cell row[NSTAGE];

		pp_stage_stats(t, s, &st);
		lo = fmin(lo, st.idle / t->makespan);
		hi = fmax(hi, st.idle / t->makespan);
		memset(row, 0, sizeof(row));
		row[0].x = (double)s;
		row[1].x = st.busy;
		row[2].x = st.idle;
		row[3].x = st.idle / t->makespan;
		row[4].x = st.first_start;
		row[5].x = st.last_end;
		row[6].x = st.window_idle;
		row[7].x = (double)st.peak_inflight / (double)t->virt;
		out_row(o, row);
	}
	out_table_end(o);
	out_text(o, "simulated step %s (formula %s)", fmt_time(sim, sizeof(sim), t->makespan, a->seconds),
		 fmt_time(formula, sizeof(formula), r->step, a->seconds));
	if (hi - lo <= 1e-9)
		out_text(o, "every stage idles %.1f %% of the step (formula %.1f %%)",
			 100 * hi, 100 * r->bubble_fraction);
	else
		out_text(o, "the stages idle %.1f to %.1f %% of the step (formula %.1f %%)",
			 100 * lo, 100 * hi, 100 * r->bubble_fraction);

	out_table_begin(o, &timeline_t);
	for (i = 0; i < t->nops; i++) {
		const struct pp_op *op = &t->ops[i];
		struct cell row[NTIMELINE];

		memset(row, 0, sizeof(row));
		row[0].x = (double)op->stage;
		row[1].x = (double)op->microbatch;
		row[2].s = op->pass == PP_FORWARD ? "forward" : "backward";
		row[3].x = (double)op->chunk;
		row[4].x = op->start;
		row[5].x = op->end;
		out_row(o, row);
	}
	out_table_end(o);
}

/*
 * Figures.  Without --timeline: the bubble's share of the step against
 * the microbatch count, one curve per stage count (and per schedule when
 * several are asked for).  With --timeline: the simulated schedule as a
 * Gantt chart, one row per stage.
 */

#define PLURAL(n, suffix) ((n) == 1 ? "" : (suffix))

/* Most operations drawn as boxes: beyond this they are thinner than a pixel. */
#define FIG_OPS_MAX 10000UL
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
static double bubble_percent(const struct args *a, enum pp_schedule sched,
			     unsigned long stages, double micro)
{
	struct pp_config c;
	struct pp_result r;
	struct errbuf eb;

	c.schedule = sched;
	c.stages = stages;
	c.microbatches = (unsigned long)micro;
	c.virt = sched == PP_INTERLEAVED ? a->virt : 1;
	c.tf = a->tf;
	c.tb = a->tb;
	if (pp_bubble(&c, &r, &eb) < 0)
		die("%s", eb.msg);
	return 100 * r.bubble_fraction;
}

static void figure_bubble(const struct ctx *ctx, const struct args *a)
{
	struct figure f = { 0 };
	struct panel *p;
	enum pp_schedule groups[PP_COUNT];
	char title[256], text[160], names[PP_COUNT][48];
	double lo = INFINITY, hi = 0, top = 0, step, grid[FIG_CURVE_POINTS];
	struct mark { double x, y; } marks[3];
	size_t i, j, n, nlabel;
	int k, g, ngroups = 0;

	/*
	 * GPipe and 1F1B have the same bubble: one curve for both, named for
	 * both, rather than two drawn on top of each other.
	 */
	for (k = 0; k < a->nsched; k++) {
		enum pp_schedule s = a->scheds[k];

		for (g = 0; g < ngroups; g++)
			if (s != PP_INTERLEAVED && groups[g] != PP_INTERLEAVED)
				break;
		if (g < ngroups) {
			size_t len = strlen(names[g]);

			snprintf(names[g] + len, sizeof(names[g]) - len, " and %s", pp_schedule_name(s));
			continue;
		}
		groups[ngroups] = s;
		if (s == PP_INTERLEAVED)
			snprintf(names[ngroups], sizeof(names[ngroups]), "interleaved, v = %lu", a->virt);
		else
			snprintf(names[ngroups], sizeof(names[ngroups]), "%s", pp_schedule_name(s));
		ngroups++;
	}

	/* A few counts close together say little: widen around them. */
	for (j = 0; j < a->micro.n; j++) {
		lo = fmin(lo, a->micro.v[j]);
		hi = fmax(hi, a->micro.v[j]);
	}
	if (hi / lo < 8) {
		lo = fmax(1, floor(lo / 4));
		hi = fmin((double)PP_MICROBATCHES_MAX, hi * 4);
	}

	if (ngroups == 1 && groups[0] == PP_INTERLEAVED)
		snprintf(title, sizeof(title), "Pipeline bubble of the interleaved schedule (v = %lu): "
			 "(P-1)/(vM+P-1) of each step idle", a->virt);
	else if (ngroups == 1)
		snprintf(title, sizeof(title), "Pipeline bubble of the %s schedule%s: "
			 "(P-1)/(M+P-1) of each step idle", names[0],
			 strchr(names[0], ' ') ? "s" : "");
	else
		snprintf(title, sizeof(title), "Pipeline bubble: (P-1)/(vM+P-1) of each step idle "
			 "(v = 1 for gpipe and 1f1b)");
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
			n = micro_grid(lo, hi, groups[g] == PP_INTERLEAVED ? (double)stages : 1,
				       FIG_CURVE_POINTS, grid);
			for (j = 0; j < n; j++) {
				double y = bubble_percent(a, groups[g], stages, grid[j]);

				plot_xy(s, grid[j], y);
				top = fmax(top, y);
			}
			/* the rows of the table, marked on the curve */
			s = plot_add_series(p, NULL, PS_POINTS);
			s->color = (int)(i % 8);
			for (j = 0; j < a->micro.n; j++) {
				double y;

				/* the rows the table left out */
				if (groups[g] == PP_INTERLEAVED &&
				    (unsigned long)a->micro.v[j] % stages)
					continue;
				y = bubble_percent(a, groups[g], stages, a->micro.v[j]);

				plot_xy(s, a->micro.v[j], y);
				top = fmax(top, y);
				if (a->micro.n * a->stages.n * (size_t)ngroups <= 3)
					marks[nlabel++] = (struct mark){ a->micro.v[j], y };
			}
		}
	}
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
 * The Gantt chart of a simulated schedule: time across, one row per
 * stage with stage 0 on top, forwards and backwards in two colours; for
 * the interleaved schedule odd chunks take a lighter shade of their
 * colour.  Microbatch numbers go inside the boxes when they fit.
 */
static void figure_timeline(const struct ctx *ctx, const struct args *a,
			    const struct pp_timeline *t)
{
	/* palette: blue and sky blue for forwards, vermillion and orange for backwards */
	static const int colors[2][2] = { { 0, 5 }, { 1, 4 } };
	static const char *const pass_name[2] = { "forward", "backward" };
	struct figure f = { 0 };
	struct panel *p;
	struct plot_series *series[2][2];
	char title[320], text[160], tf[32], tb[32], step[32], sched[48];
	double lo = INFINITY, hi = -INFINITY, plot_w, row_h, box_w;
	unsigned long s;
	int pass, shade, nshade = t->virt > 1 ? 2 : 1, label;
	size_t i;
	struct pp_config cfg = config_of(a, 0, 0, 0), *c = &cfg;

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
	fmt_time(step, sizeof(step), t->makespan, a->seconds);
	if (hi - lo <= 1e-9)
		snprintf(title, sizeof(title), "Pipeline timeline, %s: %lu stage%s, %lu microbatch%s, "
			 "%s; step %s, %.1f %% idle", sched, c->stages, PLURAL(c->stages, "s"),
			 c->microbatches, PLURAL(c->microbatches, "es"), text, step, 100 * hi);
	else
		snprintf(title, sizeof(title), "Pipeline timeline, %s: %lu stage%s, %lu microbatch%s, "
			 "%s; step %s, %.1f-%.1f %% idle", sched, c->stages, PLURAL(c->stages, "s"),
			 c->microbatches, PLURAL(c->microbatches, "es"), text, step, 100 * lo, 100 * hi);
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

int cmd_pipeline(int argc, char **argv, struct ctx *ctx)
{
	struct table summary = { "pipeline", NULL, summary_cols, NSUMMARY, 0 };
	struct args a;
	struct out *o;
	struct errbuf eb;
	struct pp_config c;
	struct pp_result r;
	struct pp_timeline t = { 0 };
	struct pp_config skipped;
	size_t i, j, nskipped = 0, nrows = 0;
	int k;

	parse_args(argc, argv, &a);
	if (!a.seconds) {
		units_of_tf(summary_cols, NSUMMARY);
		units_of_tf(stage_cols, NSTAGE);
		units_of_tf(timeline_cols, NTIMELINE);
	}

	/*
	 * Check every row before the first byte goes out.  In a sweep the
	 * interleaved schedule's rows with M not a multiple of P are left out
	 * with a note; they are an error only when nothing else is left.
	 */
	for (i = 0; i < a.stages.n; i++)
		for (j = 0; j < a.micro.n; j++)
			for (k = 0; k < a.nsched; k++) {
				c = config_of(&a, i, j, k);
				if (!pp_defined(&c) && a.stages.n * a.micro.n > 1) {
					if (!nskipped++)
						skipped = c;
					continue;
				}
				if (pp_check(&c, &eb) < 0)
					die_usage("%s", eb.msg);
				nrows++;
			}
	if (!nrows) {
		pp_check(&skipped, &eb);
		die_usage("%s", eb.msg);
	}
	if (a.timeline) {
		c = config_of(&a, 0, 0, 0);
		if (pp_sim_ops(&c) > PP_SIM_OPS_MAX)
			die_usage("--timeline: %zu operations (2PMv with P = %lu, M = %lu, "
				  "v = %lu) are more than the %lu that can be simulated",
				  pp_sim_ops(&c), c.stages, c.microbatches, c.virt,
				  PP_SIM_OPS_MAX);
		if ((ctx->plot || ctx->render) && pp_sim_ops(&c) > FIG_OPS_MAX)
			die_usage("--timeline: %zu operations are too many to draw (at most %lu); "
				  "give fewer stages or microbatches, or leave out --plot and --render",
				  pp_sim_ops(&c), FIG_OPS_MAX);
		if (pp_simulate(&c, &t, &eb) < 0)
			die("%s", eb.msg);
		summary.secondary = 1;
	}

	o = ctx_out_open(ctx);
	echo_inputs(&a, o);
	out_table_begin(o, &summary);
	for (i = 0; i < a.stages.n; i++) {
		for (j = 0; j < a.micro.n; j++) {
			for (k = 0; k < a.nsched; k++) {
				struct cell row[NSUMMARY];

				c = config_of(&a, i, j, k);
				if (!pp_defined(&c))
					continue;
				if (pp_bubble(&c, &r, &eb) < 0) {
					out_abort(o);
					die("%s", eb.msg);
				}
				memset(row, 0, sizeof(row));
				row[0].x = (double)c.stages;
				row[1].x = (double)c.microbatches;
				row[2].s = pp_schedule_name(c.schedule);
				row[3].x = r.bubble_fraction;
				row[4].x = r.bubble_ratio;
				row[5].x = (double)c.virt;
				row[6].x = r.ideal;
				row[7].x = r.bubble;
				row[8].x = r.step;
				row[9].x = r.inflight;
				out_row(o, row);
			}
		}
	}
	out_table_end(o);
	if (nskipped)
		out_text(o, "left out %zu row%s: the interleaved schedule needs microbatches "
			 "divisible by stages (first: M = %lu, P = %lu)", nskipped,
			 nskipped == 1 ? "" : "s", skipped.microbatches, skipped.stages);
	if (a.timeline) {
		write_timeline(&t, &r, &a, o);
		if (ctx_wants_figure(ctx))
			figure_timeline(ctx, &a, &t);
	} else if (ctx_wants_figure(ctx)) {
		figure_bubble(ctx, &a);
	}
	ctx_out_close(ctx, o);
	pp_timeline_release(&t);
	dlist_release(&a.stages);
	dlist_release(&a.micro);
	return EXIT_OK;
}
