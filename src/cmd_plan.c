/*
 * commtime plan: the results the first runs of a rental should show,
 * written before the rental as one CSV that `compare --expected` reads
 * back next to the logs.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "crossover.h"
#include "fit.h"

static const char usage[] =
	"usage: commtime plan [options]\n"
	"\n"
	"Writes the expected results of the runs a GPU rental starts with: the\n"
	"nccl-tests busbw curves of all-reduce (NCCL_ALGO=Ring and Tree),\n"
	"all-gather and reduce-scatter, and the Ring/Tree crossover size, one row\n"
	"per check saying what to run and what to expect.  Save it with -o and\n"
	"compare the logs with it afterwards: commtime compare LOG --expected FILE.\n"
	"\n"
	"options:\n"
	"  --ranks LIST       rank counts (default 8)\n"
	"  --sizes LIST       message sizes (default 8:8G:x2, as -b 8 -e 8G -f 2)\n"
	"  --ops LIST         collectives (default all_reduce,all_gather,reduce_scatter)\n"
	"  --algo LIST        all-reduce algorithms of the curves (default ring,dbtree)\n"
	"  -h, --help         show this text\n"
	"\n"
	"With -o FILE.csv and no --format the plan is written as CSV.\n";

enum { O_RANKS = 256, O_SIZES, O_OPS, O_ALGO };
static const struct option options[] = {
	{ "ranks", required_argument, NULL, O_RANKS },
	{ "sizes", required_argument, NULL, O_SIZES },
	{ "ops", required_argument, NULL, O_OPS },
	{ "algo", required_argument, NULL, O_ALGO },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static const struct column cols[] = {
	{ "check", "check", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "run", "run", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "op", "op", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "algo", "algo", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "size_B", "size", COL_NUM, H_SIZE, 0, NULL, 3, 8, COL_ALL },
	{ "expected_time_s", "time", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "expected_algbw_Bps", "algbw", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "expected_busbw_Bps", "busbw", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "note", "note", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
};
static const struct table table = {
	"plan", "expected results (busbw rows: one per size of the nccl-tests run)",
	cols, sizeof(cols) / sizeof(cols[0]), 0
};

/* A size as nccl-tests takes it on its command line: 8, 64K, 8G. */
static void nccl_size(char *buf, size_t len, double bytes)
{
	static const char suffix[] = "KMGT";
	int k = -1;

	while (k < 3 && bytes >= 1024 && fmod(bytes, 1024) == 0) {
		bytes /= 1024;
		k++;
	}
	if (k < 0)
		snprintf(buf, len, "%.0f", bytes);
	else
		snprintf(buf, len, "%.0f%c", bytes, suffix[k]);
}

/* The nccl-tests command line of one curve. */
static void run_line(char *buf, size_t len, enum coll_op op, int algo,
		     unsigned long ranks, const struct dlist *sizes)
{
	char b[32], e[32], f[48] = "";
	const char *env = "";

	nccl_size(b, sizeof(b), sizes->v[0]);
	nccl_size(e, sizeof(e), sizes->v[sizes->n - 1]);
	if (sizes->n > 1 && sizes->v[0] > 0) {
		double r = sizes->v[1] / sizes->v[0];

		if (r == floor(r) && r >= 2)
			snprintf(f, sizeof(f), " -f %.0f", r);
	}
	if (op == OP_ALLREDUCE && algo >= 0)
		env = algo == AR_RING ? "NCCL_ALGO=Ring " :
			algo == AR_DBTREE || algo == AR_TREE ? "NCCL_ALGO=Tree " : "";
	/* One process with -g N on one node of up to 8 GPUs; MPI beyond. */
	if (ranks <= 8)
		snprintf(buf, len, "%s%s_perf -b %s -e %s%s -g %lu", env,
			 coll_op_name(op), b, e, f, ranks);
	else
		snprintf(buf, len, "%smpirun -np %lu %s_perf -b %s -e %s%s -g 1", env,
			 ranks, coll_op_name(op), b, e, f);
}

struct planner {
	const struct ctx *ctx;
	struct fit_model fm;
	int have_regimes;
};

/* Regimes fitted for this algorithm predict; otherwise the link does. */
static double predict(const struct planner *pl, enum coll_op op, enum ar_algo algo,
		      unsigned long ranks, double bytes)
{
	if (pl->have_regimes && (op != OP_ALLREDUCE || algo == pl->fm.algo))
		return fit_model_time(&pl->fm, op, ranks, bytes);
	return fit_link_time(op, algo, &pl->ctx->link, ranks, bytes);
}

static void curve(struct out *o, const struct planner *pl, enum coll_op op, int algo,
		  unsigned long ranks, const struct dlist *sizes)
{
	char run[256];
	size_t i;

	run_line(run, sizeof(run), op, algo, ranks, sizes);
	for (i = 0; i < sizes->n; i++) {
		enum ar_algo a = algo >= 0 ? (enum ar_algo)algo : AR_RING;
		double S = sizes->v[i], t = predict(pl, op, a, ranks, S);
		struct cell row[] = { { "busbw", 0 }, { run, 0 }, { coll_op_name(op), 0 },
				      { NULL, (double)ranks }, { ar_algo_name(a), 0 },
				      { NULL, S }, { NULL, t }, { NULL, S / t },
				      { NULL, S / t * busbw_factor(op, ranks) }, { "", 0 } };
		out_row(o, row);
	}
}

static void crossover_row(struct out *o, const struct planner *pl, unsigned long ranks,
			  const struct dlist *sizes)
{
	struct crossing c;
	struct errbuf eb;
	char run[512], r1[240], r2[240], note[128];
	double S = NAN, t = NAN;

	run_line(r1, sizeof(r1), OP_ALLREDUCE, AR_RING, ranks, sizes);
	run_line(r2, sizeof(r2), OP_ALLREDUCE, AR_DBTREE, ranks, sizes);
	snprintf(run, sizeof(run), "%s; %s", r1, r2);
	if (crossover_allreduce(AR_RING, AR_DBTREE, &pl->ctx->link, ranks, CROSS_LO,
				CROSS_HI, &c, &eb) < 0)
		die("crossover at %lu ranks: %s", ranks, eb.msg);
	switch (c.result) {
	case CROSS_FOUND:
		S = c.bytes;
		t = fit_link_time(OP_ALLREDUCE, AR_RING, &pl->ctx->link, ranks, S);
		snprintf(note, sizeof(note), "%s is faster below this size, %s above",
			 c.below ? "dbtree" : "ring", c.below ? "ring" : "dbtree");
		break;
	case CROSS_A_ALWAYS:
		snprintf(note, sizeof(note), "ring is faster at every size");
		break;
	case CROSS_B_ALWAYS:
		snprintf(note, sizeof(note), "dbtree is faster at every size");
		break;
	default:
		snprintf(note, sizeof(note), "ring and dbtree take the same time");
		break;
	}
	{
		struct cell row[] = { { "crossover", 0 }, { run, 0 }, { "all_reduce", 0 },
				      { NULL, (double)ranks }, { "ring/dbtree", 0 },
				      { NULL, S }, { NULL, t }, { NULL, S / t },
				      { NULL, S / t * busbw_factor(OP_ALLREDUCE, ranks) },
				      { note, 0 } };
		out_row(o, row);
	}
}

/* Parse a comma-separated list with lookup(); returns the count. */
static size_t parse_ops(const char *arg, int *ops)
{
	char *s = xstrdup(arg), *tok, *save = NULL;
	struct errbuf eb;
	size_t n = 0, i;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum coll_op op;

		if (coll_op_lookup(tok, &op, &eb) < 0)
			die_usage("--ops: %s", eb.msg);
		for (i = 0; i < n; i++)
			if (ops[i] == (int)op)
				die_usage("--ops: '%s' given twice", tok);
		ops[n++] = (int)op;
	}
	free(s);
	if (n == 0)
		die_usage("--ops: empty list '%s'", arg);
	return n;
}

int cmd_plan(int argc, char **argv, struct ctx *ctx)
{
	int ops[OP_COUNT] = { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER };
	enum ar_algo algos[AR_COUNT] = { AR_RING, AR_DBTREE };
	size_t nops = 3, i, j, r;
	int c, nalgos = 2;
	struct dlist ranks = { 0 }, sizes = { 0 };
	struct planner pl;
	struct errbuf eb;
	struct out *o;

	memset(&pl, 0, sizeof(pl));
	pl.ctx = ctx;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case O_RANKS:
			opt_ranks("--ranks", optarg, &ranks, 2);
			break;
		case O_SIZES:
			opt_list("--sizes", Q_SIZE, optarg, &sizes);
			break;
		case O_OPS:
			nops = parse_ops(optarg, ops);
			break;
		case O_ALGO:
			nalgos = ar_algo_parse_list(optarg, algos, &eb);
			if (nalgos < 0)
				die_usage("--algo: %s", eb.msg);
			break;
		case 'h':
			usage_exit(usage, 0);
		default:
			usage_exit(usage, EXIT_USAGE);
		}
	}
	no_more_args(argc, argv, optind, usage);
	if (ranks.n == 0)
		dlist_push(&ranks, 8);
	if (sizes.n == 0)
		opt_list("--sizes", Q_SIZE, "8:8G:x2", &sizes);
	for (i = 1; i < sizes.n; i++)
		if (sizes.v[i] <= sizes.v[i - 1])
			die_usage("--sizes: sizes must increase");
	if (ctx->have_preset &&
	    (pl.have_regimes = fit_model_from_preset(&ctx->preset, &pl.fm, &eb)) < 0)
		die("%s", eb.msg);

	/* The plan is meant to be kept as CSV: "-o expected.csv" writes CSV. */
	if (ctx->format == FMT_TABLE && ctx->output && strlen(ctx->output) > 4 &&
	    !strcmp(ctx->output + strlen(ctx->output) - 4, ".csv")) {
		struct ctx csv = *ctx;

		csv.format = FMT_CSV;
		o = ctx_out_open(&csv);
	} else
		o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	if (pl.have_regimes)
		out_input_str(o, "model", "model", "the preset's regimes");
	out_table_begin(o, &table);
	for (r = 0; r < ranks.n; r++) {
		unsigned long n = (unsigned long)ranks.v[r];

		for (i = 0; i < nops; i++) {
			if (ops[i] != OP_ALLREDUCE) {
				curve(o, &pl, (enum coll_op)ops[i], -1, n, &sizes);
				continue;
			}
			for (j = 0; j < (size_t)nalgos; j++)
				curve(o, &pl, OP_ALLREDUCE, (int)algos[j], n, &sizes);
			crossover_row(o, &pl, n, &sizes);
		}
	}
	out_table_end(o);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	dlist_release(&sizes);
	return 0;
}
