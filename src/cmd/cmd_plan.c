/*
 * commtime plan: the results the first runs of a rental should show,
 * written before the rental as one CSV that `compare --expected` reads
 * back next to the logs.  The sheet, the training checks and the figure
 * live in plan_sheet.c, plan_train.c and plan_fig.c; the
 * nccl-tests command lines in plan_runs.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errband.h"
#include "plan.h"
#include "workload.h"

static const char *const usage_lines[] = {
	"commtime plan [options]",
	"commtime --system S plan [options]",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "plan",
	.lines = usage_lines,
	.about = "Writes the expected results of the runs a GPU rental starts with: the\n"
		 "nccl-tests busbw curves of all-reduce (NCCL_ALGO=Ring and Tree),\n"
		 "all-gather and reduce-scatter, and the Ring/Tree crossover size; with a\n"
		 "workload, the DDP step on 2, 4, 8... ranks and the ZeRO stages.  One row\n"
		 "per check saying what to run and what to expect.  Save it with -o and\n"
		 "compare the logs with it afterwards: commtime compare LOG --expected FILE.\n",
	.footer = "With -o FILE.csv and no --format the plan is written as CSV.\n"
		  "On a link the all-reduce pair is ring and dbtree (the seed's names; the\n"
		  "seed's tree is --algo tree); on a system (--system) the model predicts:\n"
		  "NCCL's own choice, NCCL_ALGO=Ring and NCCL_ALGO=Tree (NCCL's tree) by\n"
		  "default, restricted by --algo and the global --proto; with NCCL's model an\n"
		  "all-reduce curve also gives busbw low and high, its stated error\n"
		  "(CSV: expected_busbw_lo_Bps, expected_busbw_hi_Bps).\n",
};

static const struct column cols[] = {
	{ .key = "check", .label = "check", .type = COL_STR, .human = H_PLAIN },
	{ .key = "run", .label = "run", .type = COL_STR, .human = H_PLAIN },
	{ .key = "op", .label = "op", .type = COL_STR, .human = H_PLAIN },
	{ .key = "ranks", .label = "ranks", .type = COL_INT, .human = H_PLAIN },
	{ .key = "algo", .label = "algo", .type = COL_STR, .human = H_PLAIN },
	{ .key = "size_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .prec = 3, .width = 8 },
	{ .key = "expected_time_s", .label = "time", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 9 },
	{ .key = "expected_algbw_Bps", .label = "algbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "expected_busbw_Bps", .label = "busbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "expected_step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 9 },
	{ .key = "expected_memory_B", .label = "memory", .type = COL_NUM, .human = H_SIZE,
	  .prec = 4, .width = 9 },
	{ .key = "note", .label = "note", .type = COL_STR, .human = H_PLAIN },
	/* busbw rows with a stated error (errband.h): the band's busbw */
	{ .key = "expected_busbw_lo_Bps", .label = "busbw low", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "expected_busbw_hi_Bps", .label = "busbw high", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	/* on NCCL's model: the NCCL version priced (compare --expected reads it back) */
	{ .key = "nccl_version", .label = "NCCL", .type = COL_STR, .human = H_PLAIN },
};
/* The plan table; the band's two columns only when a curve states its error
 * or on NCCL's model, the version only on NCCL's model. */
#define PLAN_COLS (sizeof(cols) / sizeof(cols[0]))
static const struct table table = {
	.name = "plan", .title = "expected results (busbw rows: one per size of the nccl-tests run)",
	.cols = cols, .ncols = PLAN_COLS - 3
};

/* ---- the plan table (CSV, JSON) ---- */

/* A busbw row per size of one nccl-tests run. */
static void curve(struct out *o, const struct planner *pl, enum coll_op op, enum coll_algo algo,
		  unsigned long ranks, const struct dlist *sizes)
{
	int system = pl->ctx->machine.have_system;
	enum coll_algo a = algo != ALGO_AUTO || system ? algo : ALGO_RING;
	char run[1024], note[96];
	size_t i;

	plan_run_line(pl, run, sizeof(run), op, algo, ranks, sizes);
	for (i = 0; i < sizes->n; i++) {
		struct coll_cost cc = { .time_s = NAN };
		double S = sizes->v[i], t = plan_predict(pl, op, a, ranks, S, &cc);
		struct cell row[] = { { .s = "busbw" }, { .s = run }, { .s = coll_op_name(op) },
				      { .x = (double)ranks }, { .s = a < 0 ? "" : coll_algo_name(a) },
				      { .x = S }, { .x = t }, { .x = S / t },
				      { .x = S / t * busbw_factor(op, ranks) }, { .x = NAN },
				      { .x = NAN }, { .s = note }, { .x = NAN }, { .x = NAN },
				      { .s = ctx_nccl_priced(pl->ctx) } };

		note[0] = '\0';
		plan_busbw_band(pl, op, ranks, S, t, &row[12].x, &row[13].x);
		if (system)
			cost_choice_text(&cc, note, sizeof(note));
		out_row(o, row);
	}
}

static void crossover_row(struct out *o, const struct planner *pl, unsigned long ranks,
			  const struct dlist *sizes)
{
	struct crossing c;
	char run[2100], r1[1024], r2[1024], note[128], pair[64];
	double t;

	plan_run_line(pl, r1, sizeof(r1), OP_ALLREDUCE, pl->cross_a, ranks, sizes);
	plan_run_line(pl, r2, sizeof(r2), OP_ALLREDUCE, pl->cross_b, ranks, sizes);
	snprintf(run, sizeof(run), "%s; %s", r1, r2);
	snprintf(pair, sizeof(pair), "%s/%s", coll_algo_name(pl->cross_a),
		 coll_algo_name(pl->cross_b));
	plan_crossover(pl, ranks, &c, &t);
	plan_crossover_text(pl, &c, 1, note, sizeof(note));
	{
		double S = c.result == CROSS_FOUND ? c.bytes : NAN;
		struct cell row[] = { { .s = "crossover" }, { .s = run }, { .s = "all_reduce" },
				      { .x = (double)ranks }, { .s = pair },
				      { .x = S }, { .x = t }, { .x = S / t },
				      { .x = S / t * busbw_factor(OP_ALLREDUCE, ranks) },
				      { .x = NAN }, { .x = NAN }, { .s = note }, { .x = NAN },
				      { .x = NAN }, { .s = ctx_nccl_priced(pl->ctx) } };
		out_row(o, row);
	}
}

/* The collectives of --ops, each once. */
struct op_set {
	enum coll_op v[OP_COUNT];
	size_t n;
};

static void cb_ops(const struct opt *o, const char *arg)
{
	struct op_set *set = o->value;
	enum coll_op *ops = set->v;
	char *s = xstrdup(arg), *tok, *save = NULL;
	struct errbuf eb;
	size_t n = 0, i;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum coll_op op;

		if (coll_op_lookup(tok, &op, &eb) < 0)
			die_usage("--ops: %s", eb.msg);
		for (i = 0; i < n; i++)
			if (ops[i] == op)
				die_usage("--ops: '%s' given twice", tok);
		ops[n++] = op;
	}
	free(s);
	if (n == 0)
		die_usage("--ops: empty list '%s'", arg);
	set->n = n;
}

/* What one plan is made of, resolved from the options. */
struct plan_req {
	const enum coll_op *ops;
	size_t nops;
	const enum coll_algo *algos;
	int nalgos;
	struct dlist *ranks, *sizes;
	const char *workload, *params_arg;
	struct workload_args *wa;
	double params, compute;
	unsigned long maxranks;
};

/* The echo of the plan's inputs: the machine, the tree, the model trained. */
static void plan_echo(struct out *o, struct ctx *ctx, const struct planner *pl,
		      struct plan_req *q)
{
	ctx_echo_link(ctx, o);
	/* Which tree the crossover means (on a link, only when it is not the default pair). */
	if (pl->cross_a == ALGO_TREE || pl->cross_b == ALGO_TREE)
		out_input_str(o, "tree", "tree", ctx->machine.have_system ? pl->tree :
			      "the seed's binomial tree, 2 ceil(log2 n) (alpha + S/beta)");
	if (q->workload) {
		struct workload w;
		char note[160];

		q->params = workload_args_params(ctx, q->wa, &w);
		out_input_str(o, "workload", "workload", w.name);
		out_input(o, "params", "parameters", q->params, H_PLAIN, 4,
			  workload_describe(note, sizeof(note), &w));
	} else if (q->params_arg)
		out_input(o, "params", "parameters", q->params, H_PLAIN, 4, NULL);
	if (q->compute > 0)
		out_input(o, "compute_s", "compute", q->compute, H_TIME, 4, "one step on one rank");
}

/* The curves and crossovers of every rank count: sheet tables, or rows of t. */
static void plan_curves(struct out *o, const struct planner *pl, const struct plan_req *q,
			int sheet)
{
	size_t i, j, r;
	int nrun = 0;

	for (r = 0; r < q->ranks->n; r++) {
		unsigned long n = (unsigned long)q->ranks->v[r];

		for (i = 0; i < q->nops; i++) {
			if (q->ops[i] != OP_ALLREDUCE) {
				if (sheet)
					sheet_curve(o, pl, q->ops[i], ALGO_AUTO, n, q->sizes, &nrun);
				else
					curve(o, pl, q->ops[i], ALGO_AUTO, n, q->sizes);
				continue;
			}
			for (j = 0; j < (size_t)q->nalgos; j++)
				if (sheet)
					sheet_curve(o, pl, OP_ALLREDUCE, q->algos[j], n, q->sizes, &nrun);
				else
					curve(o, pl, OP_ALLREDUCE, q->algos[j], n, q->sizes);
			if (sheet)
				sheet_crossover(o, pl, n);
			else
				crossover_row(o, pl, n, q->sizes);
		}
	}
}

/*
 * One whole plan into o: the sheet when o is a human table, else the plan
 * table (CSV, JSON); *cells gathers the stated-error cells it used.
 */
static void plan_write(struct out *o, struct ctx *ctx, struct planner *pl, struct plan_req *q)
{
	struct table t = table;
	int sheet = out_get_format(o) == FMT_TABLE, unfit = 0;
	size_t i;

	plan_echo(o, ctx, pl, q);
	if (sheet) {
		out_text(o, "%s", "");
		out_text(o, "the nccl-tests runs and what they should print%s",
			 q->sizes->n <= SHEET_SIZES + 2 ? "" :
			 " (a few sizes; the CSV holds every size)");
		if (ctx->machine.model.kind == COST_NCCL && !pl->fm)
			out_text(o, "(with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING a run also logs "
				 "NCCL's own algorithm/protocol per size; 'commtime --system %s "
				 "compare LOG' sets it against the column below)",
				 global_args.system ? global_args.system : "SYSTEM");
	} else {
		for (i = 0; i < q->nops; i++)
			if (plan_has_errband(pl, q->ops[i]))
				t.ncols = PLAN_COLS - 1;
		if (ctx->machine.model.kind == COST_NCCL)
			t.ncols = PLAN_COLS;
		out_table_begin(o, &t);   /* the writer keeps t until out_table_end */
	}
	plan_curves(o, pl, q, sheet);
	if (q->params > 0) {
		unsigned long m = q->maxranks;

		unfit += plan_ddp_rows(o, ctx, q->params, q->compute, m < 2 ? 2 : m, sheet);
		unfit += plan_zero_rows(o, ctx, q->params, q->compute, m, sheet);
	}
	if (!sheet)
		out_table_end(o);
	plan_fit_note(o, ctx, q->workload, unfit);
	ctx_errband_table(ctx, o, *pl->cells);
}

/* The options together: one model, sizes that increase, the ranks on the system. */
static void plan_check(struct plan_req *q, struct ctx *ctx)
{
	struct dlist *ranks = q->ranks, *sizes = q->sizes;
	size_t i;

	if (q->workload && q->params_arg)
		die_usage("plan: give the model with one of --workload or --params");
	if (q->compute > 0 && !q->workload && !q->params_arg)
		die_usage("plan: --compute needs --workload or --params");
	if (ranks->n == 0)
		dlist_push(ranks, 8);
	for (i = 0; i < ranks->n; i++)
		if ((unsigned long)ranks->v[i] > q->maxranks)
			q->maxranks = (unsigned long)ranks->v[i];
	if (sizes->n == 0)
		opt_list("--sizes", Q_SIZE, "8:8G:x2", sizes);
	for (i = 1; i < sizes->n; i++)
		if (sizes->v[i] <= sizes->v[i - 1])
			die_usage("--sizes: sizes must increase");
	if (ctx->machine.have_system)
		ctx_check_ranks(ctx, ranks);
}

int cmd_plan(int argc, char **argv, struct ctx *ctx)
{
	struct op_set opset = { .v = { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER }, .n = 3 };
	struct algo_set algoset = { .v = { ALGO_RING, ALGO_DBTREE }, .n = 2 };
	struct workload_args wa = { 0 };
	double compute = 0;
	struct dlist ranks = { 0 }, sizes = { 0 };
	struct planner pl;
	unsigned cells = 0;   /* the stated-error cells of the rows */
	struct plan_req q;
	struct ctx csv;
	struct out *o;
	struct opt options[] = {
		OPT_GROUP_("the runs"),
		OPT_CALLBACK_("ranks", "LIST", &ranks, opt_cb_ranks2, "rank counts (default 8)"),
		OPT_LIST_("sizes", "LIST", Q_SIZE, &sizes,
			  "message sizes (default 8:8G:x2, as -b 8 -e 8G -f 2)"),
		{ .type = OPT_CALLBACK, .long_name = "ops", .argh = "LIST", .value = &opset,
		  .cb = cb_ops, .complete = "all_reduce all_gather reduce_scatter alltoall "
		  "broadcast reduce sendrecv",
		  .help = "collectives: all_reduce, all_gather, reduce_scatter, alltoall,\n"
			  "broadcast, reduce, sendrecv (default the first three)" },
		{ .type = OPT_CALLBACK, .long_name = "algo", .argh = "LIST", .value = &algoset,
		  .cb = opt_cb_algos, .arg = ctx_algo_model(ctx), .complete = "ring tree dbtree rd rabenseifner hier nvls "
		  "nvlstree collnet pat",
		  .help = "all-reduce algorithms of the curves (default ring,dbtree;\n"
			  "on a system the model's choice, then ring and its tree)" },
		OPT_GROUP_("the training checks"),
		OPTS_WORKLOAD(&wa),
		OPT_POSITIVE_("compute", "TIME", Q_TIME, &compute,
			      "forward + backward of one step on one rank, with --workload\n"
			      "or --params; without it the checks leave out the step"),
		OPT_END_()
	};

	opts_parse(argc, argv, options, &usage, 0);
	ctx_nccl_say_default(ctx);
	planner_init(&pl, ctx);
	pl.cells = &cells;
	if (ctx->machine.have_system && !opts_given(options, "algo")) {
		/* NCCL's own choice, then the pair whose crossover is given. */
		algoset = (struct algo_set){ .v = { ALGO_AUTO, pl.cross_a, pl.cross_b }, .n = 3 };
	} else if (algoset.n >= 2) {
		/* The crossover of the first two curves asked for, as crossover gives it. */
		pl.cross_a = algoset.v[0];
		pl.cross_b = algoset.v[1];
	}
	q = (struct plan_req){ .ops = opset.v, .nops = opset.n, .algos = algoset.v,
			       .nalgos = algoset.n, .ranks = &ranks, .sizes = &sizes,
			       .workload = wa.workload, .params_arg = wa.params_arg, .wa = &wa,
			       .params = wa.params, .compute = compute };
	plan_check(&q, ctx);

	/* The plan is meant to be kept as CSV: "-o expected.csv" writes CSV, and
	 * a plan written to a file in another format than the sheet also shows
	 * the sheet on the terminal. */
	csv = *ctx;
	if (ctx->format == FMT_TABLE && ctx->output && strlen(ctx->output) > 4 &&
	    !strcmp(ctx->output + strlen(ctx->output) - 4, ".csv"))
		csv.format = FMT_CSV;
	o = ctx_out_open(&csv);
	plan_write(o, ctx, &pl, &q);
	if (ctx->output && csv.format != FMT_TABLE) {
		struct ctx term = *ctx;
		struct out *so;

		term.format = FMT_TABLE;
		term.output = NULL;
		so = ctx_out_open(&term);
		plan_write(so, ctx, &pl, &q);
		out_text(so, "%s", "");
		out_text(so, "the plan, every size, written to '%s' (compare LOG --expected %s)",
			 ctx->output, ctx->output);
		ctx_out_close(&term, so);
	}
	plan_figure(&pl, q.ops, q.nops, q.algos, q.nalgos, &ranks, &sizes);
	ctx_out_close(&csv, o);
	dlist_release(&ranks);
	dlist_release(&sizes);
	return 0;
}
