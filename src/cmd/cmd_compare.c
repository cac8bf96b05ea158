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

/* The line rate of the link: the preset's beta_line, else β; NaN when no link was given. */
static double link_line_rate(const struct ctx *ctx)
{
	double line = ctx->machine.link_given ? ctx->machine.model.link.beta : NAN;
	struct errbuf eb;
	int r;

	if (!ctx->machine.have_preset)
		return line;
	r = preset_get_quantity(&ctx->machine.preset, "beta_line", Q_RATE, &line, &eb);
	if (r < 0)
		die("%s", eb.msg);
	return r == 0 ? ctx->machine.model.link.beta : line;
}

/* The algorithm of the prediction, checked against the log's collective. */
static enum coll_algo compare_algo(const struct ctx *ctx, const struct opt *options,
				   enum coll_algo asked, enum coll_op op, unsigned long ranks,
				   double bytes)
{
	if (!ctx->machine.have_system) {
		if (op != OP_ALLREDUCE && asked != ALGO_RING)
			die_usage("--algo: '%s' is modelled for all_reduce only; %s uses ring",
				  coll_algo_name(asked), coll_op_name(op));
		return asked;
	}
	if (!opts_given(options, "algo"))
		return ALGO_AUTO;
	if (!cost_algo_supported(&ctx->machine.model, op, asked))
		die_usage("--algo: the %s model has no '%s' for %s", cost_kind_name(ctx->machine.model.kind),
			  coll_algo_name(asked), coll_op_name(op));
	{
		/* An algorithm the machine cannot run (NVLS without NVLink SHARP). */
		struct group g = { .ranks = ranks };
		struct coll_cost c;
		struct errbuf eb;

		if (cost_coll(&ctx->machine.model, op, asked, &g, bytes, &c, &eb) < 0)
			die("--algo %s on %lu ranks of %s: %s", coll_algo_name(asked), ranks,
			    ctx->machine.system.name, eb.msg);
	}
	return asked;
}

/*
 * The NCCL version a plan priced (its nccl_version column) against the
 * one this comparison prices (the log's, else --nccl-version's, else the
 * model's default): a warning when they differ, since the plan's times
 * then belong to another NCCL's tuning.
 */
static void compare_plan_version(const struct ctx *ctx, const struct meas *log,
				 const struct meas *plan, char *buf, size_t len)
{
	const char *now = log->nccl_version[0] ? log->nccl_version : ctx_nccl_priced(ctx);

	snprintf(buf, len, "%s", plan->nccl_version);
	if (ctx->machine.model.kind == COST_NCCL && plan->nccl_version[0] &&
	    strcmp(plan->nccl_version, now))
		warning("compare: the plan '%s' priced NCCL %s, %s NCCL %s: plan again with "
			"--nccl-version %s for the same tuning", plan->path, plan->nccl_version,
			log->nccl_version[0] ? "the log ran" : "this comparison prices", now, now);
}

int cmd_compare(int argc, char **argv, struct ctx *ctx)
{
	const char *expected = NULL;
	double tol = 0.25, minbw = 0.70, large = 64.0 * 1048576;
	struct meas_args ma = MEAS_ARGS_INIT;
	int have_regimes = 0, range = 0, check = 0;
	size_t i;
	struct meas m, e;
	struct fit_model fm;
	struct comparison c;
	struct cmp_sum sum = { .worst = 0, .worst_size = NAN, .peak = NAN, .peak_ref = NAN };
	struct cmp_verdict v;
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
		OPT_FLAG_("check", &check,
			  "exit 1 when the verdict is that the fabric is NOT fine\n"
			  "(with --trace: when the step falls outside its band)"),
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
	if (ctx->machine.model.kind == COST_NCCL)
		ctx_nccl_from_log(ctx, &m, &ctx->machine.nccl);
	ctx_nccl_say_default(ctx);
	c = (struct comparison){ .ctx = ctx, .m = &m, .op = (enum coll_op)m.op,
				 .ranks = m.ranks, .in_place = ma.in_place,
				 .on_system = ctx->machine.have_system, .tol = tol, .minbw = minbw,
				 .large = large, .line_rate = NAN };
	if (ctx->machine.have_system && system_check_ranks(&ctx->machine.system, m.ranks, &eb) < 0)
		die("%s", eb.msg);
	c.algo = compare_algo(ctx, options, ma.algo, c.op, m.ranks, m.rows[m.n - 1].size);
	if (expected) {
		load_expected(expected, &m, (int)c.algo, &e);
		c.expected = &e;
		c.expected_path = expected;
	} else if (ctx->machine.have_fit) {
		have_regimes = 1;
		fm = ctx->machine.fit;
	}
	c.fm = have_regimes ? &fm : NULL;
	/* No fit measured this run: the band is the spec's spread around the
	 * link's α and β (fit_model_range of a model without intervals), or
	 * on a system around the model's own terms (fit_spec_band). */
	if (range && !have_regimes && !ctx->machine.have_system)
		fit_model_from_link(&fm, c.op, c.algo, m.ranks, &ctx->machine.model.link);
	if (!ctx->machine.have_system)
		c.line_rate = link_line_rate(ctx);
	if (expected)
		compare_plan_version(ctx, &m, &e, c.plan_nccl, sizeof(c.plan_nccl));

	if (compare_run(&c, range, &fm, &sum, &v) < 0)
		die("%s: no size of the log has an expected time in '%s'", m.path,
		    expected ? expected : "-");
	o = ctx_out_open(ctx);
	out_text(o, "%s", v.line);
	compare_inputs(&c, o, &ma);
	out_input(o, "tolerance", "tolerance", tol, H_PERCENT, 0, NULL);
	out_text(o, "%s", "");
	compare_rows_write(&c, o, range);
	compare_summary(&c, o, &sum, &v, range);
	compare_figure(&c);
	ctx_out_close(ctx, o);

	free(c.rows);
	free(sum.err);
	if (expected)
		meas_release(&e);
	meas_release(&m);
	return check && !strcmp(v.word, "not fine") ? EXIT_DATA : EXIT_OK;
}
