/*
 * commtime compare: measured times against the prediction, size by size,
 * with the flags of the rental checklist (far from the model, large
 * messages short of the line rate).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "cli.h"
#include "fit.h"
#include "measure.h"

static const char *const usage_lines[] = {
	"commtime compare [options] FILE",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "compare",
	.lines = usage_lines,
	.about = "Compares the times of an nccl-tests log (or CSV of size_B,time_s) with the\n"
		 "prediction of the link (--alpha/--beta/--preset; a preset saved by 'fit'\n"
		 "predicts with its regimes) or of a CSV written by 'plan' (--expected).\n"
		 "Flags sizes where the model is off by more than the tolerance, and large\n"
		 "messages whose bus bandwidth is short of the line rate (the preset's\n"
		 "beta_line, else beta): the sign of a broken link or topology.\n",
};

static const struct column cols[] = {
	{ "size_B", "size", COL_NUM, H_SIZE, 0, NULL, 3, 8, COL_ALL },
	{ "measured_s", "measured", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "predicted_s", "predicted", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "rel_error", "error", COL_NUM, H_PERCENT, 0, NULL, 1, 7, COL_ALL },
	{ "measured_busbw_Bps", "busbw", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "predicted_busbw_Bps", "predicted", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "flag", "flag", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
};
static const struct table table = {
	"compare", "measured against predicted (error = predicted/measured - 1)",
	cols, sizeof(cols) / sizeof(cols[0]), 0
};

/* With --range: the same columns, then the band and the verdict. */
static const struct column range_cols[] = {
	{ "size_B", "size", COL_NUM, H_SIZE, 0, NULL, 3, 8, COL_ALL },
	{ "measured_s", "measured", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "predicted_s", "predicted", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "rel_error", "error", COL_NUM, H_PERCENT, 0, NULL, 1, 7, COL_ALL },
	{ "measured_busbw_Bps", "busbw", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "predicted_busbw_Bps", "predicted", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "flag", "flag", COL_STR, H_PLAIN, 0, NULL, 0, 14, COL_ALL },
	{ "low_s", "low", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "high_s", "high", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "in_band", "in band", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
};
static const struct table range_table = {
	"compare", "measured against predicted (error = predicted/measured - 1), with the band",
	range_cols, sizeof(range_cols) / sizeof(range_cols[0]), 0
};

static const struct column sum_cols[] = {
	{ "sizes", "sizes", COL_INT, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "median_abs_rel_error", "median |error|", COL_NUM, H_PERCENT, 0, NULL, 1, 14, COL_ALL },
	{ "worst_rel_error", "worst", COL_NUM, H_PERCENT, 0, NULL, 1, 7, COL_ALL },
	{ "worst_size_B", "at", COL_NUM, H_SIZE, 0, NULL, 3, 8, COL_ALL },
	{ "far", "far", COL_INT, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "peak_busbw_Bps", "large busbw", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "line_rate_Bps", "line rate", COL_NUM, H_RATE, 0, NULL, 4, 10, COL_ALL },
	{ "line_fraction", "share", COL_NUM, H_PERCENT, 0, NULL, 0, 5, COL_ALL },
};
static const struct table sum_table = {
	"summary", "summary", sum_cols, sizeof(sum_cols) / sizeof(sum_cols[0]), 1
};

/* Expected times of a plan CSV for the log's collective, ranks and algo. */
static void load_expected(const char *path, const struct meas *log, int algo,
			  struct meas *e)
{
	struct errbuf eb;
	size_t i, k = 0;

	meas_init(e, path);
	if (meas_load_file(path, e, &eb) < 0)
		die("%s", eb.msg);
	for (i = 0; i < e->n; i++)
		if (e->rows[i].algo < 0 || e->rows[i].algo == algo)
			e->rows[k++] = e->rows[i];
	e->n = k;
	if (k == 0)
		die("%s: no expected times for algorithm '%s'", path,
		    coll_algo_name((enum coll_algo)algo));
	if (meas_select(e, log->op, log->ranks, &eb) < 0)
		die("%s", eb.msg);
}

/*
 * 1 when the largest sizes of the log reach the bandwidth plateau: busbw
 * at the largest size is at most 3 % above busbw at half that size (or
 * the nearest size below).  Otherwise sets *rise to that growth and
 * *before to the smaller size: the curve still climbs (an A100 log that
 * stops at 128 MiB shows 167 GB/s and 4 % per doubling, where the same
 * machine plateaus at 232 GB/s from 1 GiB), and the log cannot tell a
 * slow link from a short sweep.
 */
static int reaches_plateau(const struct meas *m, int in_place, double factor,
			   double *rise, double *before)
{
	const struct meas_row *last = NULL, *prev = NULL;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!last || m->rows[i].size > last->size)
			last = &m->rows[i];
	if (!last)
		return 1;
	for (i = 0; i < m->n; i++)
		if (m->rows[i].size <= last->size / 2 && (!prev || m->rows[i].size > prev->size))
			prev = &m->rows[i];
	if (!prev)
		return 1;
	{
		double tl = in_place ? last->time_ip : last->time;
		double tp = in_place ? prev->time_ip : prev->time;
		double bl = last->size / tl * factor, bp = prev->size / tp * factor;

		if (!(bl > 1.03 * bp))
			return 1;
		*rise = bl / bp - 1;
		*before = prev->size;
		return 0;
	}
}

static double expected_time(const struct meas *e, double size)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		if (e->rows[i].size == size)
			return e->rows[i].time;
	return NAN;
}

/* Where the prediction comes from: a plan, a fitted preset, or the link. */
struct predictor {
	const struct meas *expected;   /* the plan's rows, or NULL */
	const struct fit_model *fm;    /* the preset's regimes, or NULL */
	const struct link *link;
	enum coll_op op;
	enum coll_algo algo;
	unsigned long ranks;
};

static double predict(const struct predictor *pr, double size)
{
	if (pr->expected)
		return expected_time(pr->expected, size);
	if (pr->fm)
		return fit_model_time(pr->fm, pr->op, pr->ranks, size);
	return fit_link_time(pr->op, pr->algo, pr->link, pr->ranks, size);
}

/* One compared size, as the figure draws it. */
struct cmp_row {
	double size, measured, busbw;   /* B, s, B/s */
	int far, low;                   /* its flags */
};

/* "dir/name.txt" -> "name.txt": the figure names files without their path. */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Palette entries (plot.c: Okabe & Ito) the figure gives its parts. */
enum { C_PRED = 0, C_FAR = 1, C_LOW = 3, C_MEAS = 6, C_LINE = 6 };

/*
 * The figure: two panels side by side over the measured sizes.  Left, the
 * time of one collective, log-log: the measured points over the predicted
 * curve.  Right, the bus bandwidth, log size against a linear rate from 0,
 * because what it is for is the plateau of large messages against the line
 * rate, and that is a difference of tens of percent that a log axis would
 * flatten; the small sizes are readable on the left.  Sizes off the
 * prediction by more than the tolerance are red on both sides; large sizes
 * under --min-busbw of the line rate are purple on the right, where the
 * threshold is drawn from --large up.
 */
static void figure_compare(const struct ctx *ctx, const struct meas *m,
			   const struct predictor *pr, const struct cmp_row *rows,
			   double tol, double minbw, double large, double line_rate,
			   int inplace, const char *expected)
{
	struct figure f = { 0 };
	struct panel *p;
	struct plot_series *s;
	double factor = busbw_factor(pr->op, pr->ranks);
	double lo = rows[0].size, hi = rows[m->n - 1].size, from;
	double top = isnan(line_rate) ? 0 : line_rate, widen;
	const char *op = coll_op_name(pr->op);
	char title[512], link[256], text[160], b[32], pred[160], meas[64], far[64];
	size_t i, j, nexp = 0;
	int nfar = 0, nlow = 0;

	if (!ctx->plot && !ctx->render)
		return;
	for (i = 0; i < m->n; i++) {
		nfar += rows[i].far;
		nlow += rows[i].low;
	}
	/* Room either side, so that no point sits on the border; a few
	 * octaves at least, so that the curve has a shape. */
	widen = hi / lo < 16 ? 8 : 1.5;
	lo /= widen;
	hi *= widen;
	if (expected)
		for (j = 0; j < pr->expected->n; j++)
			nexp += pr->expected->rows[j].size >= lo && pr->expected->rows[j].size <= hi;
	if (expected) {
		snprintf(link, sizeof(link), "the times expected in %s", base_name(expected));
		snprintf(pred, sizeof(pred), "expected (%s)", base_name(expected));
	} else if (pr->fm) {
		char l[128];
		struct ctx plain = *ctx;

		/* The preset's name once, then the single α-β it also holds. */
		plain.have_preset = 0;
		snprintf(link, sizeof(link), "the %zu regimes fitted in %s (single fit %s)",
			 pr->fm->nreg, ctx->preset.name, ctx_link_text(&plain, l, sizeof(l)));
		snprintf(pred, sizeof(pred), "predicted (%zu regimes)", pr->fm->nreg);
	} else {
		char l[128];
		const char *algo = pr->op == OP_ALLREDUCE ? coll_algo_name(pr->algo) : "ring";

		snprintf(link, sizeof(link), "%s with %s", algo, ctx_link_text(ctx, l, sizeof(l)));
		snprintf(pred, sizeof(pred), "predicted (%s)", algo);
	}
	snprintf(title, sizeof(title), "%s on %lu ranks: %s against %s", op, pr->ranks,
		 base_name(m->path), link);
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime compare: measured times and bus bandwidth against the prediction");
	f.width = 1280;
	f.height = 520;

	/* Left: time. */
	snprintf(text, sizeof(text), "time of one %s", op);
	p = plot_add_panel(&f, text, "message size", "time");
	p->xaxis = AX_SIZE;
	p->yaxis = AX_TIME;
	p->logx = p->logy = 1;
	p->xmin = lo;
	p->xmax = hi;
	if (!expected || nexp) {
		s = plot_add_series(p, pred, PS_LINES);
		s->color = C_PRED;
	}
	if (expected) {
		/* The plan holds the sizes it was written for: join them. */
		for (j = 0; nexp && j < pr->expected->n; j++) {
			double S = pr->expected->rows[j].size;

			if (S >= lo && S <= hi)
				plot_xy(s, S, pr->expected->rows[j].time);
		}
	} else {
		for (j = 0; j <= 160; j++) {
			double S = lo * pow(hi / lo, j / 160.0);

			plot_xy(s, S, predict(pr, S));
		}
	}
	snprintf(meas, sizeof(meas), "measured (%s)", inplace ? "in-place" : "out-of-place");
	s = plot_add_series(p, meas, PS_POINTS);
	s->color = C_MEAS;
	for (i = 0; i < m->n; i++)
		plot_xy(s, rows[i].size, rows[i].measured);
	snprintf(far, sizeof(far), "far off (> %g %%)", 100 * tol);
	if (nfar) {
		s = plot_add_series(p, far, PS_POINTS);
		s->color = C_FAR;
		for (i = 0; i < m->n; i++)
			if (rows[i].far)
				plot_xy(s, rows[i].size, rows[i].measured);
	}

	fig_whole_decades(p);

	/* Right: bus bandwidth. */
	p = plot_add_panel(&f, "bus bandwidth (nccl-tests busbw)", "message size", "busbw");
	p->xaxis = AX_SIZE;
	p->yaxis = AX_RATE;
	p->logx = 1;
	p->xmin = lo;
	p->xmax = hi;
	p->ymin = 0;
	if (!expected || nexp) {
		s = plot_add_series(p, pred, PS_LINES);
		s->color = C_PRED;
	}
	if (expected) {
		for (j = 0; nexp && j < pr->expected->n; j++) {
			double S = pr->expected->rows[j].size;

			if (S >= lo && S <= hi)
				plot_xy(s, S, S / pr->expected->rows[j].time * factor);
		}
	} else {
		for (j = 0; j <= 160; j++) {
			double S = lo * pow(hi / lo, j / 160.0);

			plot_xy(s, S, S / predict(pr, S) * factor);
		}
	}
	for (j = 0; p->nseries && j < p->series[0].n; j++)
		if (p->series[0].data[2 * j + 1] > top)
			top = p->series[0].data[2 * j + 1];
	s = plot_add_series(p, meas, PS_POINTS);
	s->color = C_MEAS;
	for (i = 0; i < m->n; i++) {
		plot_xy(s, rows[i].size, rows[i].busbw);
		if (rows[i].busbw > top)
			top = rows[i].busbw;
	}
	if (nfar) {
		s = plot_add_series(p, far, PS_POINTS);
		s->color = C_FAR;
		for (i = 0; i < m->n; i++)
			if (rows[i].far)
				plot_xy(s, rows[i].size, rows[i].busbw);
	}
	if (nlow) {
		snprintf(text, sizeof(text), "low busbw (< %g %% of the line rate)", 100 * minbw);
		s = plot_add_series(p, text, PS_POINTS);
		s->color = C_LOW;
		for (i = 0; i < m->n; i++)
			if (rows[i].low)
				plot_xy(s, rows[i].size, rows[i].busbw);
	}
	/* without a link there is no line rate to draw */
	if (!isnan(line_rate)) {
		snprintf(text, sizeof(text), "line rate %s%s", units_fmt_rate(b, sizeof(b), line_rate, 4),
			 ctx->have_preset && preset_get(&ctx->preset, "beta_line") ? " (beta_line)" : " (\xce\xb2)");
		plot_add_hline(p, line_rate, text);
		/* The busbw check starts at --large, or at the largest size when none
		 * reaches it (as the summary does). */
		from = large <= rows[m->n - 1].size ? large : rows[m->n - 1].size;
		snprintf(text, sizeof(text), "%g %% of the line rate, from %s", 100 * minbw,
			 units_fmt_size(b, sizeof(b), from));
		s = plot_add_series(p, text, PS_LINES);
		s->color = C_LINE;
		s->dash = 3;
		plot_xy(s, from / 1.2, minbw * line_rate);
		plot_xy(s, hi, minbw * line_rate);
	}
	/*
	 * The key stands top left, over the small sizes whose busbw is near
	 * zero, and above every point and the line rate with its label: a
	 * line of the key takes about 3.5 % of the height, the label one more.
	 */
	p->ymax = top / (1 - 0.035 * (double)(p->nseries + 2) - 0.03);

	ctx_figure(ctx, &f);
	plot_release(&f);
}

int cmd_compare(int argc, char **argv, struct ctx *ctx)
{
	const char *expected = NULL;
	double tol = 0.25, minbw = 0.70, large = 64.0 * 1048576, line_rate, factor;
	double *err, peak = NAN, worst = 0, worst_size = NAN, med = NAN;
	struct meas_args ma = MEAS_ARGS_INIT;
	enum coll_algo algo;
	int have_regimes = 0, nfar = 0, plateau, judge_bw, range = 0, ninside = 0, nband = 0;
	double rise = 0, before = 0;
	size_t i, nerr = 0, largest_i;
	struct meas m, e;
	struct fit_model fm;
	struct predictor pr;
	struct cmp_row *rows;
	struct errbuf eb;
	struct out *o;
	char note[160];

	struct opt options[] = {
		OPTS_MEASUREMENT(&ma),
		OPT_GROUP_("the comparison"),
		OPT_FILE_("expected", "FILE", &expected,
			  "predict with the expected times of a 'plan' CSV"),
		OPT_NUMBER_("tolerance", "FRAC", Q_FRACTION, &tol,
			    "flag errors larger than this (default 25%)"),
		OPT_SHARE_("min-busbw", "FRAC", &minbw,
			   "flag large messages below this share of the line rate\n"
			   "(default 70%)"),
		OPT_NUMBER_("large", "SIZE", Q_SIZE, &large,
			    "smallest size that counts as large (default 64MiB)"),
		OPT_FLAG_("range", &range,
			  "a low-high band around each prediction of a fitted preset\n"
			  "(its 95 % intervals; at another rank count also the base-\n"
			  "latency prior's spread) and whether the measurement is in it"),
		OPT_END_()
	};

	if (opts_parse(argc, argv, options, &usage, 1) < 1)
		die_usage("compare needs a measurement file; see 'commtime compare --help'");
	if (tol < 0)
		die_usage("--tolerance: '%s' is negative", opts_given(options, "tolerance"));
	meas_args_load(&ma, argv[0], &m);
	algo = ma.algo;
	if (m.op != OP_ALLREDUCE && algo != ALGO_RING)
		die_usage("--algo: '%s' is modelled for all_reduce only; %s uses ring",
			  coll_algo_name(algo), coll_op_name((enum coll_op)m.op));
	factor = busbw_factor((enum coll_op)m.op, m.ranks);

	if (expected)
		load_expected(expected, &m, (int)algo, &e);
	else if (ctx->have_preset &&
		 (have_regimes = fit_model_from_preset(&ctx->preset, &fm, &eb)) < 0)
		die("%s", eb.msg);

	line_rate = ctx->link_given ? ctx->model.link.beta : NAN;
	if (ctx->have_preset) {
		int r = preset_get_quantity(&ctx->preset, "beta_line", Q_RATE, &line_rate, &eb);

		if (r < 0)
			die("%s", eb.msg);
		if (r == 0)
			line_rate = ctx->model.link.beta;
	}
	pr = (struct predictor){ expected ? &e : NULL, have_regimes ? &fm : NULL,
				 &ctx->model.link, (enum coll_op)m.op, algo, m.ranks };

	o = ctx_out_open(ctx);
	out_input_str(o, "file", "file", m.path);
	{
		char fmt[64];

		snprintf(fmt, sizeof(fmt), "%s (detected)", meas_format_name(m.format));
		out_input_str(o, "format", "format", fmt);
	}
	out_input_str(o, "op", "collective", coll_op_name((enum coll_op)m.op));
	snprintf(note, sizeof(note), "%s", ma.ranks ? "from --ranks" :
		 m.format == MEAS_NCCL_TEXT ? "from the log's '# Rank' lines" : "from the file");
	out_input(o, "ranks", "ranks", (double)m.ranks, H_PLAIN, 10, note);
	if (expected) {
		out_input_str(o, "expected", "expected", expected);
	} else {
		ctx_echo_link(ctx, o);
		out_input_str(o, "algo", "algorithm", have_regimes ?
			      "the preset's regimes" : coll_algo_name(algo));
	}
	if (isnan(line_rate))
		out_input_str(o, "line_rate_Bps", "line rate",
			      "unknown: give --preset LINK or --beta RATE for the busbw check");
	else
		out_input(o, "line_rate_Bps", "line rate", line_rate, H_RATE, 4,
			  ctx->have_preset && preset_get(&ctx->preset, "beta_line") ?
			  "beta_line of the preset" : "beta");
	plateau = reaches_plateau(&m, ma.in_place, factor, &rise, &before);
	judge_bw = !isnan(line_rate) && plateau;
	out_input(o, "tolerance", "tolerance", tol, H_PERCENT, 0, NULL);

	err = xmalloc(m.n * sizeof(*err));
	rows = xmalloc(m.n * sizeof(*rows));
	largest_i = m.n - 1;
	if (range && !have_regimes)
		die_usage("--range: needs a preset saved by 'fit' (its intervals make the band)");
	out_table_begin(o, range ? &range_table : &table);
	for (i = 0; i < m.n; i++) {
		const struct meas_row *r = &m.rows[i];
		double t = ma.in_place ? r->time_ip : r->time;
		double bw = r->size / t * factor;
		double p, pbw, re;
		char flag[32] = "";

		if (isnan(t))
			die("%s:%d: no in-place time", m.path, r->line);
		p = predict(&pr, r->size);
		pbw = p > 0 ? r->size / p * factor : NAN;
		re = fit_rel_err(p, t);
		rows[i] = (struct cmp_row){ r->size, t, bw, 0, 0 };
		if (!isnan(re)) {
			err[nerr++] = fabs(re);
			if (fabs(re) > fabs(worst) || isnan(worst_size)) {
				worst = re;
				worst_size = r->size;
			}
			if (fabs(re) > tol) {
				strcat(flag, "far");
				rows[i].far = 1;
				nfar++;
			}
		}
		if (judge_bw && r->size >= large && bw < minbw * line_rate) {
			strcat(flag, *flag ? ",low-busbw" : "low-busbw");
			rows[i].low = 1;
		}
		if (r->size >= large && (isnan(peak) || bw > peak))
			peak = bw;
		if (range) {
			double lo, hi;
			int in;

			fit_model_range(&fm, (enum coll_op)m.op, m.ranks, r->size, &lo, &hi);
			in = t >= lo && t <= hi;
			ninside += in;
			nband++;
			{
				struct cell row[] = { { NULL, r->size }, { NULL, t }, { NULL, p },
						      { NULL, re }, { NULL, bw }, { NULL, pbw },
						      { flag, 0 }, { NULL, lo }, { NULL, hi },
						      { in ? "inside" : t < lo ? "below" : "above", 0 } };
				out_row(o, row);
			}
		} else {
			struct cell row[] = { { NULL, r->size }, { NULL, t }, { NULL, p },
					      { NULL, re }, { NULL, bw }, { NULL, pbw },
					      { flag, 0 } };
			out_row(o, row);
		}
	}
	out_table_end(o);
	if (nerr == 0)
		die("%s: no size of the log has an expected time in '%s'", m.path,
		    expected ? expected : "-");
	if (isnan(peak)) {
		/* No size reaches --large: judge the largest one measured. */
		const struct meas_row *r = &m.rows[largest_i];
		double t = ma.in_place ? r->time_ip : r->time;

		peak = r->size / t * factor;
	}
	gsl_sort(err, 1, nerr);
	med = gsl_stats_median_from_sorted_data(err, 1, nerr);

	out_table_begin(o, &sum_table);
	{
		struct cell row[] = { { NULL, (double)nerr }, { NULL, med }, { NULL, worst },
				      { NULL, worst_size }, { NULL, (double)nfar },
				      { NULL, peak }, { NULL, line_rate },
				      { NULL, peak / line_rate } };
		out_row(o, row);
	}
	out_table_end(o);
	if (nfar)
		out_text(o, "%d of %zu sizes are off the prediction by more than %.0f %%",
			 nfar, nerr, 100 * tol);
	if (range)
		out_text(o, "%d of %d sizes fall inside the band", ninside, nband);
	if (m.rows[largest_i].size < large) {
		char b[32];

		out_text(o, "no size reaches %s; the bandwidth check uses the largest",
			 units_fmt_size(b, sizeof(b), large));
	}
	if (!plateau) {
		char b[32], c[32];

		out_text(o, "the log ends at %s, before the bandwidth plateau: busbw still "
			 "rises %.0f %% from %s; busbw is not judged (measure to 1G or more, "
			 "-e 8G)", units_fmt_size(b, sizeof(b), m.rows[largest_i].size),
			 100 * rise, units_fmt_size(c, sizeof(c), before));
	} else if (isnan(line_rate))
		out_text(o, "no link given: busbw is not judged against a line rate "
			 "(--preset LINK or --beta RATE)");
	if (judge_bw && peak < minbw * line_rate)
		out_text(o, "large-message busbw is %.0f %% of the line rate, below %.0f %%: "
			 "check links and topology (nvidia-smi topo -m, NCCL_DEBUG=INFO)",
			 100 * peak / line_rate, 100 * minbw);
	figure_compare(ctx, &m, &pr, rows, tol, minbw, large, line_rate, ma.in_place, expected);
	ctx_out_close(ctx, o);

	free(rows);
	free(err);
	if (expected)
		meas_release(&e);
	meas_release(&m);
	return 0;
}
