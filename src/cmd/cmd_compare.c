/*
 * commtime compare: measured times against the prediction, size by size,
 * with the flags of the rental checklist (far from the model, large
 * messages short of the line rate or of what the system should give).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "compare.h"
#include "errband.h"
#include "trace_cmd.h"

static const char *const usage_lines[] = {
	"commtime compare [options] FILE",
	"commtime --system S compare [options] FILE",
	"commtime --system S compare --trace FILE... [options] (see compare --trace --help)",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "compare",
	.lines = usage_lines,
	.about = "Compares the times of an nccl-tests log (or CSV of size_B,time_s) with the\n"
		 "prediction of the link (--alpha/--beta/--preset; a preset saved by 'fit'\n"
		 "predicts with its regimes), of a system (--system: its model, NCCL's by\n"
		 "default, on the log's ranks) or of a CSV written by 'plan' (--expected).\n"
		 "Flags sizes where the model is off by more than the tolerance, and large\n"
		 "messages whose bus bandwidth is short of the line rate (the preset's\n"
		 "beta_line, else beta) or, on a system, of the predicted bus bandwidth:\n"
		 "the sign of a broken link, topology or fabric.\n",
	.footer = "On a system the model chooses the algorithm at each size unless --algo\n"
		  "(and the global --proto) restrict it, as NCCL_ALGO and NCCL_PROTO do.\n"
		  "A log run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING also holds NCCL's\n"
		  "own choice per size and its tuning table: on a system both are set against\n"
		  "the model's, with the one-key changes of the system file that bring the\n"
		  "tables closer (JSON: nccl_choice, nccl_tuning_table, nccl_system_changes).\n"
		  "A log that says which NCCL_ALGO or NCCL_PROTO NCCL read is compared\n"
		  "restricted the same way, unless --nccl-algo or --proto is given.\n"
		  "An all-reduce log on NCCL's model is also counted against the stated error\n"
		  "(JSON summary: stated_sizes, stated_inside).\n",
};

/* The columns design.md pins, then the band of --range or the model's choice. */
static const struct column base_cols[] = {
	{ .key = "size_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .prec = 3, .width = 8 },
	{ .key = "measured_s", .label = "measured", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 9 },
	{ .key = "predicted_s", .label = "predicted", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 9 },
	{ .key = "rel_error", .label = "error", .type = COL_NUM, .human = H_PERCENT, .prec = 1,
	  .width = 7 },
	{ .key = "measured_busbw_Bps", .label = "busbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "predicted_busbw_Bps", .label = "predicted", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "flag", .label = "flag", .type = COL_STR, .human = H_PLAIN },
};
enum { NBASE = sizeof(base_cols) / sizeof(base_cols[0]), COL_FLAG = NBASE - 1 };
static const struct column range_cols[] = {
	{ .key = "low_s", .label = "low", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "high_s", .label = "high", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "in_band", .label = "in band", .type = COL_STR, .human = H_PLAIN },
};
static const struct column algo_col = {
	.key = "algo", .label = "algo", .type = COL_STR, .human = H_PLAIN
};

/* Expected times of a plan CSV for the log's collective, ranks and algo. */
static void load_expected(const char *path, const struct meas *log, int algo,
			  struct meas *e)
{
	struct errbuf eb;
	size_t i, k = 0;
	int exact = 0, other = -1;

	meas_init(e, path);
	if (meas_load_file(path, e, &eb) < 0)
		die("%s", eb.msg);
	/* An algorithm the plan names for this collective and rank count,
	 * to suggest when none of its rows is the one compared. */
	for (i = 0; i < e->n && other < 0; i++)
		if (e->rows[i].algo >= 0 && e->rows[i].algo != algo &&
		    (e->rows[i].op < 0 || e->rows[i].op == log->op) &&
		    (!e->rows[i].ranks || e->rows[i].ranks == log->ranks))
			other = e->rows[i].algo;
	/* The rows of the algorithm when the plan has them; else those of
	 * every algorithm (the model's choice, and collectives without one). */
	for (i = 0; i < e->n && algo >= 0 && !exact; i++)
		exact = e->rows[i].algo == algo && (e->rows[i].op < 0 || e->rows[i].op == log->op) &&
			(!e->rows[i].ranks || e->rows[i].ranks == log->ranks);
	for (i = 0; i < e->n; i++)
		if (e->rows[i].algo == algo || (!exact && e->rows[i].algo < 0))
			e->rows[k++] = e->rows[i];
	e->n = k;
	if (k == 0 || meas_select(e, log->op < 0 ? OP_COUNT : (enum coll_op)log->op, log->ranks, &eb) < 0) {
		if (other >= 0)
			die("%s: no expected times for %s here; the plan has them for --algo %s",
			    path, algo >= 0 ? coll_algo_name((enum coll_algo)algo) :
			    "the model's own choice", coll_algo_name((enum coll_algo)other));
		if (k == 0)
			die("%s: no expected times for algorithm '%s'", path,
			    coll_algo_name((enum coll_algo)algo));
		die("%s", eb.msg);
	}
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
static int reaches_plateau(const struct comparison *c, double *rise, double *before)
{
	const struct cmp_row *last = &c->rows[c->m->n - 1], *prev = NULL;
	size_t i;

	for (i = 0; i < c->m->n; i++)
		if (c->rows[i].size <= last->size / 2)
			prev = &c->rows[i];
	if (!prev || !(last->busbw > 1.03 * prev->busbw))
		return 1;
	*rise = last->busbw / prev->busbw - 1;
	*before = prev->size;
	return 0;
}

double cmp_predict(const struct comparison *c, double size, struct coll_cost *cc)
{
	size_t i;

	if (!c->expected)
		return cost_predict(&c->ctx->model, c->op, c->fm ? ALGO_AUTO : c->algo, c->ranks,
				    size, cc);
	for (i = 0; i < c->expected->n; i++)
		if (c->expected->rows[i].size == size)
			return c->expected->rows[i].time;
	return NAN;
}

/* "tree/LL": what the model chose at one size ("-" for a plan's time). */
static const char *choice_text(const struct comparison *c, const struct coll_cost *cc,
			       char *buf, size_t len)
{
	if (c->expected || c->fm)
		return "-";
	return cost_choice_text(cc, buf, len);
}

/* Fill the rows of c (measured, predicted, flags), write them, and sum up. */
static void compare_rows(struct comparison *c, struct out *o, int range, int judge_bw,
			 const struct fit_model *fm, struct cmp_sum *sum)
{
	const struct meas *m = c->m;
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct cmp_row *r = &c->rows[i];
		double ref = c->on_system ? r->pbusbw : c->line_rate;
		double re = fit_rel_err(r->predicted, r->measured);
		char flag[32] = "", alg[64];
		struct cell row[NBASE + 4];   /* the band of --range, the choice on a system */
		struct coll_cost cc = { .time_s = NAN };
		int k = NBASE;

		cmp_predict(c, r->size, &cc);
		r->cc = cc;
		if (!c->expected) {
			const struct errband *b = ctx_errband(c->ctx, c->op, c->ranks, r->size);

			if (b && r->predicted > 0) {
				sum->nstated++;
				sum->nstated_inside += errband_inside(b, r->measured, r->predicted);
			}
		}
		if (!isnan(re)) {
			sum->err[sum->nerr++] = fabs(re);
			if (fabs(re) > fabs(sum->worst) || isnan(sum->worst_size)) {
				sum->worst = re;
				sum->worst_size = r->size;
			}
			if (fabs(re) > c->tol) {
				strcat(flag, "far");
				r->far = 1;
				sum->nfar++;
			}
		}
		if (judge_bw && r->size >= c->large && r->busbw < c->minbw * ref) {
			strcat(flag, *flag ? ",low-busbw" : "low-busbw");
			r->low = 1;
		}
		/* The best large message, or the largest when none is large. */
		if ((r->size >= c->large && (isnan(sum->peak) || r->busbw > sum->peak)) ||
		    (i == m->n - 1 && isnan(sum->peak))) {
			sum->peak = r->busbw;
			sum->peak_ref = ref;
		}
		row[0] = (struct cell){ .x = r->size };
		row[1] = (struct cell){ .x = r->measured };
		row[2] = (struct cell){ .x = r->predicted };
		row[3] = (struct cell){ .x = re };
		row[4] = (struct cell){ .x = r->busbw };
		row[5] = (struct cell){ .x = r->pbusbw };
		row[COL_FLAG] = (struct cell){ .s = flag };
		if (range) {
			double lo, hi;
			int in;

			if (c->on_system && !c->fm)
				fit_spec_band(cc.latency_s, cc.bandwidth_s, &lo, &hi);
			else
				fit_model_range(fm, c->op, c->ranks, r->size, &lo, &hi);
			in = r->measured >= lo && r->measured <= hi;
			sum->ninside += in;
			sum->nband++;
			row[k++] = (struct cell){ .x = lo };
			row[k++] = (struct cell){ .x = hi };
			row[k++] = (struct cell){ .s = in ? "inside" : r->measured < lo ? "below" :
						  "above" };
		}
		if (c->on_system)
			row[k++] = (struct cell){ .s = choice_text(c, &cc, alg, sizeof(alg)) };
		out_row(o, row);
	}
}

/* The line rate of the link: the preset's beta_line, else β; NaN when no link was given. */
static double link_line_rate(const struct ctx *ctx)
{
	double line = ctx->link_given ? ctx->model.link.beta : NAN;
	struct errbuf eb;
	int r;

	if (!ctx->have_preset)
		return line;
	r = preset_get_quantity(&ctx->preset, "beta_line", Q_RATE, &line, &eb);
	if (r < 0)
		die("%s", eb.msg);
	return r == 0 ? ctx->model.link.beta : line;
}

/* The algorithm of the prediction, checked against the log's collective. */
static enum coll_algo compare_algo(const struct ctx *ctx, const struct opt *options,
				   enum coll_algo asked, enum coll_op op, unsigned long ranks,
				   double bytes)
{
	if (!ctx->have_system) {
		if (op != OP_ALLREDUCE && asked != ALGO_RING)
			die_usage("--algo: '%s' is modelled for all_reduce only; %s uses ring",
				  coll_algo_name(asked), coll_op_name(op));
		return asked;
	}
	if (!opts_given(options, "algo"))
		return ALGO_AUTO;
	if (!cost_algo_supported(&ctx->model, op, asked))
		die_usage("--algo: the %s model has no '%s' for %s", cost_kind_name(ctx->model.kind),
			  coll_algo_name(asked), coll_op_name(op));
	{
		/* An algorithm the machine cannot run (NVLS without NVLink SHARP). */
		struct group g = { .ranks = ranks };
		struct coll_cost c;
		struct errbuf eb;

		if (cost_coll(&ctx->model, op, asked, &g, bytes, &c, &eb) < 0)
			die("--algo %s on %lu ranks of %s: %s", coll_algo_name(asked), ranks,
			    ctx->system.name, eb.msg);
	}
	return asked;
}

int cmd_compare(int argc, char **argv, struct ctx *ctx)
{
	const char *expected = NULL;
	double tol = 0.25, minbw = 0.70, large = 64.0 * 1048576;
	struct meas_args ma = MEAS_ARGS_INIT;
	int have_regimes = 0, plateau, range = 0;
	double rise = 0, before = 0, factor;
	size_t i;
	struct meas m, e;
	struct fit_model fm;
	struct comparison c;
	struct cmp_sum sum = { .worst = 0, .worst_size = NAN, .peak = NAN, .peak_ref = NAN };
	struct column cols[NBASE + 4];
	struct table t = { .name = "compare", .cols = cols, .ncols = NBASE };
	struct errbuf eb;
	struct out *o;
	struct opt options[] = {
		OPTS_MEASUREMENT(&ma, ctx_algo_model(ctx)),
		OPT_GROUP_("the comparison"),
		OPT_FILE_("expected", "FILE", &expected,
			  "predict with the expected times of a 'plan' CSV"),
		OPT_NUMBER_("tolerance", "FRAC", Q_FRACTION, &tol,
			    "flag errors larger than this (default 25%)"),
		OPT_SHARE_("min-busbw", "FRAC", &minbw,
			   "flag large messages below this share of the line rate\n"
			   "(on a system: of the predicted busbw; default 70%)"),
		OPT_NUMBER_("large", "SIZE", Q_SIZE, &large,
			    "smallest size that counts as large (default 64MiB)"),
		OPT_FLAG_("range", &range,
			  "a low-high band around each prediction and whether the\n"
			  "measurement is in it: a fitted preset's 95 % intervals (at\n"
			  "another rank count also the base-latency prior's spread),\n"
			  "else the documented spread of a spec (models/fit.md)"),
		OPT_END_()
	};

	for (i = 1; i < (size_t)argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--trace"))
			return cmd_compare_trace(argc, argv, ctx);   /* compare_trace.c */
	if (opts_parse(argc, argv, options, &usage, 1) < 1)
		die_usage("compare needs a measurement file; see 'commtime compare --help'");
	if (tol < 0)
		die_usage("--tolerance: '%s' is negative", opts_given(options, "tolerance"));
	if (range && expected)
		die_usage("--range: a plan's times have no band (compare with the system or preset)");
	meas_args_load(&ma, argv[0], &m);
	if (ctx->model.kind == COST_NCCL)
		ctx_nccl_from_log(ctx, &m, &ctx->nccl);
	c = (struct comparison){ .ctx = ctx, .m = &m, .op = (enum coll_op)m.op,
				 .ranks = m.ranks, .in_place = ma.in_place,
				 .on_system = ctx->have_system, .tol = tol, .minbw = minbw,
				 .large = large, .line_rate = NAN };
	if (ctx->have_system && system_check_ranks(&ctx->system, m.ranks, &eb) < 0)
		die("%s", eb.msg);
	c.algo = compare_algo(ctx, options, ma.algo, c.op, m.ranks, m.rows[m.n - 1].size);
	if (expected) {
		load_expected(expected, &m, (int)c.algo, &e);
		c.expected = &e;
		c.expected_path = expected;
	} else if (ctx->have_fit) {
		have_regimes = 1;
		fm = ctx->fit;
	}
	c.fm = have_regimes ? &fm : NULL;
	/* No fit measured this run: the band is the spec's spread around the
	 * link's α and β (fit_model_range of a model without intervals), or
	 * on a system around the model's own terms (fit_spec_band). */
	if (range && !have_regimes && !ctx->have_system)
		fit_model_from_link(&fm, c.op, c.algo, m.ranks, &ctx->model.link);
	if (!ctx->have_system)
		c.line_rate = link_line_rate(ctx);

	factor = busbw_factor(c.op, c.ranks);
	c.rows = xmalloc(m.n * sizeof(*c.rows));
	sum.err = xmalloc(m.n * sizeof(*sum.err));
	for (i = 0; i < m.n; i++) {
		const struct meas_row *r = &m.rows[i];
		double tm = ma.in_place ? r->time_ip : r->time, p;

		if (isnan(tm))
			die("%s:%d: no in-place time", m.path, r->line);
		p = cmp_predict(&c, r->size, NULL);
		c.rows[i] = (struct cmp_row){ .size = r->size, .measured = tm,
					      .busbw = r->size / tm * factor, .predicted = p,
					      .pbusbw = p > 0 ? r->size / p * factor : NAN };
	}
	plateau = reaches_plateau(&c, &rise, &before);

	o = ctx_out_open(ctx);
	compare_inputs(&c, o, &ma);
	out_input(o, "tolerance", "tolerance", tol, H_PERCENT, 0, NULL);
	memcpy(cols, base_cols, sizeof(base_cols));
	t.title = "measured against predicted (error = predicted/measured - 1)";
	if (range) {
		t.title = "measured against predicted (error = predicted/measured - 1), with the band";
		cols[COL_FLAG].width = 14;
		memcpy(cols + NBASE, range_cols, sizeof(range_cols));
		t.ncols += sizeof(range_cols) / sizeof(range_cols[0]);
	}
	if (c.on_system)
		cols[t.ncols++] = algo_col;
	out_table_begin(o, &t);
	compare_rows(&c, o, range, plateau && (c.on_system || !isnan(c.line_rate)), &fm, &sum);
	out_table_end(o);
	if (sum.nerr == 0)
		die("%s: no size of the log has an expected time in '%s'", m.path,
		    expected ? expected : "-");
	gsl_sort(sum.err, 1, sum.nerr);
	compare_summary(&c, o, &sum, range, plateau, rise, before);
	compare_figure(&c);
	ctx_out_close(ctx, o);

	free(c.rows);
	free(sum.err);
	if (expected)
		meas_release(&e);
	meas_release(&m);
	return 0;
}
