/*
 * commtime speedup: N/(1+a(N-1)) and efficiency, with a the ratio of
 * communication to computation, given or fitted to measured throughputs
 * (models/speedup.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "train.h"

static const char *const usage_lines[] = {
	"commtime speedup (--ratio LIST | --comm TIME --compute TIME | --measured PAIRS) [options]",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "speedup",
	.hide = OPT_TAG_LINK,
	.lines = usage_lines,
	.about = "Speedup N/(1+a(N-1)) and efficiency speedup/N on N ranks, where\n"
		 "a = communication time / computation time.\n",
};

enum { C_RANKS, C_SPEEDUP, C_EFFICIENCY, C_RATIO, C_FITTED, C_TPUT, C_RESIDUAL,
       C_MEASURED_SPEEDUP, C_COUNT };
static const struct column columns[C_COUNT] = {
	[C_RANKS]      = { .key = "ranks", .label = "ranks", .type = COL_INT, .width = 5 },
	[C_SPEEDUP]    = { .key = "speedup", .label = "speedup", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1, .suffix = "x", .prec = 2, .width = 9 },
	[C_EFFICIENCY] = { .key = "efficiency", .label = "efficiency", .type = COL_NUM,
		  .human = H_PERCENT, .prec = 1, .width = 10 },
	[C_RATIO]      = { .key = "ratio", .label = "a", .type = COL_NUM, .prec = 4, .width = 6 },
	[C_FITTED]     = { .key = "throughput_fit", .label = "fitted", .type = COL_NUM, .prec = 6, .width = 9 },
	[C_TPUT]       = { .key = "throughput", .label = "measured", .type = COL_NUM, .prec = 6, .width = 9 },
	[C_RESIDUAL]   = { .key = "residual", .label = "residual", .type = COL_NUM, .prec = 3, .width = 9 },
	[C_MEASURED_SPEEDUP] = { .key = "speedup_measured", .label = "measured speedup",
				 .type = COL_NUM, .human = H_FIXED, .scale = 1, .suffix = "x",
				 .prec = 2, .width = 16 },
};

static void S_default_ranks(struct dlist *l)
{
	double n;

	for (n = 1; n <= 64; n *= 2)
		dlist_push(l, n);
}

/* The curve for one ratio: rows ranks, speedup, efficiency, ratio. */
static void S_curve(struct out *o, const struct dlist *ranks, double a, double x1)
{
	size_t i;

	for (i = 0; i < ranks->n; i++) {
		struct cell row[C_COUNT];
		double s = speedup(a, ranks->v[i]);

		memset(row, 0, sizeof(row));
		row[C_RANKS].x = ranks->v[i];
		row[C_SPEEDUP].x = s;
		row[C_EFFICIENCY].x = s / ranks->v[i];
		row[C_RATIO].x = a;
		row[C_TPUT].x = NAN;
		row[C_FITTED].x = x1 * s;
		row[C_RESIDUAL].x = NAN;
		row[C_MEASURED_SPEEDUP].x = NAN;
		out_row(o, row);
	}
}

/* Where a curve is drawn: N from lo to hi, evenly on a log scale. */
#define S_GRID 120

/* Append the curve of ratio a over [lo, hi] to s, up to the height ymax. */
static void S_plot_curve(struct plot_series *s, double a, double lo, double hi, double ymax)
{
	int i;

	for (i = 0; i <= S_GRID && hi > lo; i++) {
		double n = lo * pow(hi / lo, (double)i / S_GRID), y = speedup(a, n);

		/* a < 0 has a pole: the curve stops where it leaves the figure */
		if (!(y > 0) || y > ymax)
			break;
		plot_xy(s, n, y);
	}
}

/* A series titled title (NULL: none) of the curve of a over [lo, hi]. */
static void S_add_curve(struct panel *p, const char *title, int color, int dash, double a,
			double lo, double hi, double ymax)
{
	struct plot_series *s = plot_add_series(p, title, PS_LINES);

	s->color = color;
	s->dash = dash;
	S_plot_curve(s, a, lo, hi, ymax);
}

/* The figure's one panel, log-log over ranks [lo, hi], with the ideal speedup N dashed. */
static struct panel *S_panel(struct figure *f, const char *title, double lo, double hi,
			     double ymax)
{
	struct panel *p = plot_add_panel(f, title, "ranks N", "speedup over one rank");
	struct plot_series *s;

	p->xaxis = p->yaxis = AX_PLAIN;
	p->logx = p->logy = 1;
	p->xmin = lo;
	p->xmax = hi;
	p->ymax = ymax;
	p->key = xstrdup("top left");

	s = plot_add_series(p, "ideal: N", PS_LINES);
	s->color = 6;
	s->dash = 1;
	plot_xy(s, lo, lo);
	plot_xy(s, hi, hi);
	return p;
}

/*
 * The figure: speedup against ranks on log-log axes, the ideal speedup N
 * as a dashed line, one curve per ratio a with the asked rank counts
 * marked and its limit 1/a as a dotted line.  With measurements (mr, ms:
 * ranks and measured speedup X/X1, nm of them) the points are drawn over
 * the fitted curve, solid where it was fitted and dashed where it
 * extrapolates.
 */
static void S_figure(const struct ctx *ctx, const char *title, const double *ratios,
		     size_t nratio, const struct dlist *ranks, const double *mr,
		     const double *ms, size_t nm)
{
	struct figure f = { 0 };
	struct panel *p;
	struct plot_series *s;
	char text[96];
	double lo = 1, hi = 8, ymax, mlo = INFINITY, mhi = 0;
	size_t i, j;

	for (i = 0; i < ranks->n; i++)
		hi = fmax(hi, ranks->v[i]);
	for (i = 0; i < nm; i++) {
		hi = fmax(hi, mr[i]);
		mlo = fmin(mlo, mr[i]);
		mhi = fmax(mhi, mr[i]);
	}
	ymax = hi;
	for (i = 0; i < nm; i++)
		ymax = fmax(ymax, ms[i]);
	ymax *= 1.5;

	f.title = xstrdup(title);
	f.comment = xstrdup("commtime speedup: N/(1+a(N-1)) against ranks");
	f.width = 800;
	f.height = 500;
	p = S_panel(&f, title, lo, hi, ymax);
	for (j = 0; j < nratio; j++) {
		double a = ratios[j];
		int color = (int)j % 6;

		if (nm) {
			snprintf(text, sizeof(text), "fit: a = %.4g", a);
			S_add_curve(p, text, color, 0, a, mlo, mhi, ymax);
			/* the extrapolation on either side, dashed */
			S_add_curve(p, NULL, color, 1, a, lo, mlo, ymax);
			S_add_curve(p, NULL, color, 1, a, mhi, hi, ymax);
			s = plot_add_series(p, "measured X/X1", PS_POINTS);
			s->color = 1;
			for (i = 0; i < nm; i++)
				plot_xy(s, mr[i], ms[i]);
		} else {
			snprintf(text, sizeof(text), "a = %.4g", a);
			S_add_curve(p, text, color, 0, a, lo, hi, ymax);
			s = plot_add_series(p, NULL, PS_POINTS);
			s->color = color;
			for (i = 0; i < ranks->n; i++)
				if (speedup(a, ranks->v[i]) > 0)
					plot_xy(s, ranks->v[i], speedup(a, ranks->v[i]));
		}
		/* a few limits say something; dozens would only be lines */
		if (nratio <= 4 && a > 0 && 1 / a < ymax / 1.5 && 1 / a > 1) {
			snprintf(text, sizeof(text), "1/a = %.3g", 1 / a);
			plot_add_hline(p, 1 / a, text);
		}
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
}

static double S_sumsq(const double *x, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += x[i] * x[i];
	return s;
}

/* The fit's inputs: the measurements, a and X1 with their errors, the residual. */
static void S_fit_inputs(struct out *o, const char *measured, const struct speedup_fit *f,
			 size_t n)
{
	char note[200];

	out_input_str(o, "measured", "measured", measured);
	if (f->dof > 0)
		snprintf(note, sizeof(note), "least squares over %zu points", n);
	else
		snprintf(note, sizeof(note), "exactly determined by %zu points", n);
	out_input(o, "ratio", "fitted a", f->a, H_PLAIN, 4, note);
	if (f->dof > 0)
		out_input(o, "ratio_err", "standard error of a", f->a_err, H_PLAIN, 3, NULL);
	out_input(o, "throughput_1", "single-rank throughput", f->x1, H_PLAIN, 6,
		  f->x1_fitted ? "fitted" : "measured at 1 rank");
	if (f->x1_fitted && f->dof > 0)
		out_input(o, "throughput_1_err", "standard error of it", f->x1_err, H_PLAIN, 3, NULL);
	out_input(o, "rms_residual", "rms residual", sqrt(f->rss / (double)n), H_PLAIN, 3,
		  "same unit as the throughputs");
}

/* The table of the n measurements (ranks r, throughputs x) against the fit. */
static void S_fit_rows(struct out *o, const struct speedup_fit *f, const double *r,
		       const double *x, const double *fit, size_t n)
{
	struct table t = { "speedup", NULL, columns, C_COUNT, 0 };
	size_t i;

	out_table_begin(o, &t);
	for (i = 0; i < n; i++) {
		struct cell row[C_COUNT];
		double s = speedup(f->a, r[i]);

		memset(row, 0, sizeof(row));
		row[C_RANKS].x = r[i];
		row[C_SPEEDUP].x = s;
		row[C_EFFICIENCY].x = s / r[i];
		row[C_RATIO].x = f->a;
		row[C_TPUT].x = x[i];
		row[C_FITTED].x = fit[i];
		row[C_RESIDUAL].x = x[i] - fit[i];
		row[C_MEASURED_SPEEDUP].x = x[i] / f->x1;
		out_row(o, row);
	}
	out_table_end(o);
}

/* The figure of the fitted curve over the n measured speedups X/X1. */
static void S_fit_figure(const struct ctx *ctx, const struct speedup_fit *f,
			 const struct dlist *ranks, const double *r, const double *x, size_t n)
{
	double *ms = xmalloc(n * sizeof(*ms));
	char title[200];
	size_t i;

	for (i = 0; i < n; i++)
		ms[i] = x[i] / f->x1;
	if (f->dof > 0)
		snprintf(title, sizeof(title), "Speedup fitted to measured throughputs: "
			 "a = %.4g \xc2\xb1 %.2g, X1 = %.6g", f->a, f->a_err, f->x1);
	else
		snprintf(title, sizeof(title), "Speedup fitted to measured throughputs: "
			 "a = %.4g, X1 = %.6g", f->a, f->x1);
	S_figure(ctx, title, &f->a, 1, ranks, r, ms, n);
	free(ms);
}

static int S_fit(struct ctx *ctx, const char *measured, const struct dlist *ranks)
{
	struct speedup_fit f;
	struct errbuf eb;
	struct table pred = { "prediction", "prediction with the fitted a", columns, C_FITTED + 1, 1 };
	struct out *o;
	double *r, *x, *fit;
	size_t n, i;

	if (speedup_parse_measured(measured, &r, &x, &n, &eb) < 0)
		die_usage("--measured: %s", eb.msg);
	fit = xmalloc(n * sizeof(*fit));
	if (speedup_fit(r, x, n, &f, fit, &eb) < 0) {
		free(r);
		free(x);
		free(fit);
		die("--measured: %s", eb.msg);
	}

	/* An exact fit leaves rounding noise, not residuals worth printing. */
	for (i = 0; i < n; i++)
		if (fabs(x[i] - fit[i]) <= 1e-9 * x[i])
			fit[i] = x[i];
	if (f.rss <= 1e-18 * S_sumsq(x, n))
		f.rss = 0;
	if (f.a < 0)
		warning("fitted a = %.4g is negative: the measurements scale faster than "
			"linearly, which N/(1+a(N-1)) does not describe", f.a);

	o = ctx_out_open(ctx);
	S_fit_inputs(o, measured, &f, n);
	S_fit_rows(o, &f, r, x, fit, n);
	if (ranks->n) {
		out_table_begin(o, &pred);
		S_curve(o, ranks, f.a, f.x1);
		out_table_end(o);
	}
	if (ctx->plot || ctx->render)
		S_fit_figure(ctx, &f, ranks, r, x, n);
	ctx_out_close(ctx, o);
	free(r);
	free(x);
	free(fit);
	return EXIT_OK;
}

/*
 * The inputs (comm and compute, or --ratio's text ratio_arg), one curve
 * per ratio on ranks, and each curve's limit 1/a.
 */
static void S_write_ratios(struct out *o, const char *ratio_arg, double comm, double compute,
			   const struct dlist *ratios, const struct dlist *ranks)
{
	struct table t = { "speedup", NULL, columns, C_RATIO + 1, 0 };
	size_t i;

	if (!ratio_arg) {
		out_input(o, "comm_s", "communication", comm, H_TIME, 4, NULL);
		out_input(o, "compute_s", "computation", compute, H_TIME, 4, NULL);
	}
	if (ratios->n == 1)
		out_input(o, "ratio", "a", ratios->v[0], H_PLAIN, 4,
			  ratio_arg ? "communication / computation" : "comm / compute");
	else
		out_input_str(o, "ratios", "a", ratio_arg);
	out_table_begin(o, &t);
	for (i = 0; i < ratios->n; i++)
		S_curve(o, ranks, ratios->v[i], NAN);
	out_table_end(o);
	for (i = 0; i < ratios->n; i++)
		if (ratios->v[i] > 0)
			out_text(o, "a = %.4g: the speedup approaches 1/a = %.2f x as N grows",
				 ratios->v[i], 1 / ratios->v[i]);
}

/* The figure of the given ratios, titled with comm / compute when they gave a. */
static void S_ratio_figure(const struct ctx *ctx, const char *ratio_arg, double comm,
			   double compute, const struct dlist *ratios, const struct dlist *ranks)
{
	char title[200], a1[32], a2[32];

	if (!ratio_arg)
		snprintf(title, sizeof(title), "Speedup N/(1+a(N-1)), a = %s / %s = %.4g",
			 units_fmt_time(a1, sizeof(a1), comm, 3),
			 units_fmt_time(a2, sizeof(a2), compute, 3), ratios->v[0]);
	else
		snprintf(title, sizeof(title),
			 "Speedup N/(1+a(N-1)), a = communication / computation");
	S_figure(ctx, title, ratios->v, ratios->n, ranks, NULL, NULL, 0);
}

int cmd_speedup(int argc, char **argv, struct ctx *ctx)
{
	struct dlist ranks = { 0 }, ratios = { 0 };
	struct out *o;
	const char *measured = NULL, *ratio_arg = NULL, *comm_arg = NULL, *compute_arg = NULL;
	double comm = 0, compute = 0;
	int status;
	size_t i;
	struct opt options[] = {
		OPT_LIST_("ratio", "LIST", Q_NUMBER, &ratios,
			  "a, one curve for each value (0.15 or 0.05,0.15,0.5)"),
		OPT_NUMBER_("comm", "TIME", Q_TIME, &comm,
			    "communication time of a step, with --compute: a = comm/compute"),
		OPT_POSITIVE_("compute", "TIME", Q_TIME, &compute,
			      "computation time of the same step"),
		OPT_STRING_("measured", "PAIRS", &measured,
			    "fit a to measured throughputs RANKS:THROUGHPUT (1:45,2:89);\n"
			    "without an N = 1 point the single-rank throughput is fitted too"),
		OPT_RANKS_("ranks", &ranks, "rank counts (default 1,2,4,8,16,32,64; with --measured\n"
			   "the measured ones, and LIST as a prediction)"),
		OPT_END_()
	};

	opts_parse(argc, argv, options, &usage, 0);
	ratio_arg = opts_given(options, "ratio");
	comm_arg = opts_given(options, "comm");
	compute_arg = opts_given(options, "compute");
	for (i = 0; i < ratios.n; i++)
		if (!(ratios.v[i] >= 0))
			die_usage("--ratio: ratio %g in '%s' is negative", ratios.v[i], ratio_arg);
	if (!!ratio_arg + !!(comm_arg || compute_arg) + !!measured != 1)
		die_usage("speedup: give exactly one of --ratio, --comm with --compute, or --measured");
	if (measured) {
		status = S_fit(ctx, measured, &ranks);
		dlist_release(&ranks);
		return status;
	}
	if (!ratio_arg) {
		if (!comm_arg || !compute_arg)
			die_usage("speedup: --comm and --compute go together");
		dlist_push(&ratios, comm / compute);
	}
	if (!ranks.n)
		S_default_ranks(&ranks);

	o = ctx_out_open(ctx);
	S_write_ratios(o, ratio_arg, comm, compute, &ratios, &ranks);
	if (ctx->plot || ctx->render)
		S_ratio_figure(ctx, ratio_arg, comm, compute, &ratios, &ranks);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	dlist_release(&ratios);
	return EXIT_OK;
}
