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
#include "train.h"
#include "workload.h"

static const char usage[] =
	"usage: commtime plan [options]\n"
	"\n"
	"Writes the expected results of the runs a GPU rental starts with: the\n"
	"nccl-tests busbw curves of all-reduce (NCCL_ALGO=Ring and Tree),\n"
	"all-gather and reduce-scatter, and the Ring/Tree crossover size; with a\n"
	"workload, the DDP step on 2, 4, 8... ranks and the ZeRO stages.  One row\n"
	"per check saying what to run and what to expect.  Save it with -o and\n"
	"compare the logs with it afterwards: commtime compare LOG --expected FILE.\n"
	"\n"
	"options:\n"
	"  --ranks LIST       rank counts (default 8)\n"
	"  --sizes LIST       message sizes (default 8:8G:x2, as -b 8 -e 8G -f 2)\n"
	"  --ops LIST         collectives (default all_reduce,all_gather,reduce_scatter)\n"
	"  --algo LIST        all-reduce algorithms of the curves (default ring,dbtree)\n"
	"  --workload NAME    also the DDP scaling and ZeRO stages of this workload\n"
	"  --params N         the same from a parameter count (7B, 124M)\n"
	"  --compute TIME     forward + backward of one step on one rank (needed with\n"
	"                     --workload or --params)\n"
	"  -h, --help         show this text\n"
	"\n"
	"With -o FILE.csv and no --format the plan is written as CSV.\n";

enum { O_RANKS = 256, O_SIZES, O_OPS, O_ALGO, O_WORKLOAD, O_PARAMS, O_COMPUTE };
static const struct option options[] = {
	{ "workload", required_argument, NULL, O_WORKLOAD },
	{ "params", required_argument, NULL, O_PARAMS },
	{ "compute", required_argument, NULL, O_COMPUTE },
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
	{ "expected_step_s", "step", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "expected_memory_B", "memory", COL_NUM, H_SIZE, 0, NULL, 4, 9, COL_ALL },
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
				      { NULL, S / t * busbw_factor(op, ranks) }, { NULL, NAN },
				      { NULL, NAN }, { "", 0 } };
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
				      { NULL, NAN }, { NULL, NAN }, { note, 0 } };
		out_row(o, row);
	}
}

/*
 * DDP: the gradient all-reduce of one step on 2, 4, 8... ranks up to
 * maxranks (models/ddp.md, no overlap, no buckets: the seed's model).
 */
static void ddp_rows(struct out *o, const struct ctx *ctx, double params,
		     double compute, unsigned long maxranks)
{
	struct ddp_params p;
	unsigned long n;

	ddp_params_init(&p);
	p.grad_bytes = 2 * params;    /* bf16 gradients */
	p.compute = compute;
	for (n = 2; n <= maxranks; n *= 2) {
		struct ddp_step st;
		char run[160], note[160];

		ddp_step(&p, &ctx->link, n, &st);
		snprintf(run, sizeof(run), "DDP training on %lu ranks (torchrun), bf16 "
			 "gradients, time one step", n);
		snprintf(note, sizeof(note), "communication %.1f %% of the step, "
			 "speedup %.2f of %lu", 100 * st.fraction,
			 n * compute / st.step_s, n);
		{
			struct cell row[] = { { "ddp", 0 }, { run, 0 }, { "all_reduce", 0 },
					      { NULL, (double)n }, { ar_algo_name(p.algo), 0 },
					      { NULL, p.grad_bytes }, { NULL, st.comm_s },
					      { NULL, p.grad_bytes / st.comm_s },
					      { NULL, p.grad_bytes / st.comm_s *
						      busbw_factor(OP_ALLREDUCE, n) },
					      { NULL, st.step_s }, { NULL, NAN }, { note, 0 } };
			out_row(o, row);
		}
	}
}

/* ZeRO stages 0-3 on n ranks (models/zero.md): memory and communication. */
static void zero_rows(struct out *o, const struct ctx *ctx, double params,
		      double compute, unsigned long n)
{
	struct zero_params p;
	int stage;

	zero_params_init(&p);
	p.params = params;
	for (stage = 0; stage < ZERO_STAGES; stage++) {
		struct zero_cost z;
		char run[160], note[96];

		zero_cost(&p, &ctx->link, n, stage, &z);
		snprintf(run, sizeof(run), "DeepSpeed ZeRO stage %d on %lu ranks, time one "
			 "step, read the memory per rank", stage, n);
		snprintf(note, sizeof(note), "%s; step without overlap",
			 stage == 0 ? "plain data parallel (all-reduce)" :
			 stage == 3 ? "reduce-scatter + 2 all-gathers" :
			 "reduce-scatter + all-gather");
		{
			struct cell row[] = { { "zero", 0 }, { run, 0 },
					      { stage == 0 ? "all_reduce" : "reduce_scatter+all_gather", 0 },
					      { NULL, (double)n }, { ar_algo_name(p.algo), 0 },
					      { NULL, z.comm_B }, { NULL, z.comm_s },
					      { NULL, NAN }, { NULL, NAN },
					      { NULL, compute + z.comm_s }, { NULL, z.memory_B },
					      { note, 0 } };
			out_row(o, row);
		}
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
	const char *workload = NULL, *params_arg = NULL;
	double params = 0, compute = 0;
	unsigned long maxranks = 0;
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
		case O_WORKLOAD:
			workload = optarg;
			break;
		case O_PARAMS:
			params_arg = optarg;
			if (workload_parse_count(optarg, &params, &eb) < 0)
				die_usage("--params: %s", eb.msg);
			break;
		case O_COMPUTE:
			compute = opt_quantity("--compute", Q_TIME, optarg);
			if (!(compute > 0))
				die_usage("--compute: compute time must be positive, got '%s'", optarg);
			break;
		case 'h':
			usage_exit(usage, 0);
		default:
			usage_exit(usage, EXIT_USAGE);
		}
	}
	no_more_args(argc, argv, optind, usage);
	if (workload && params_arg)
		die_usage("plan: give the model with one of --workload or --params");
	if ((workload || params_arg) && !(compute > 0))
		die_usage("plan: the training checks need --compute (one step on one rank, e.g. 300ms)");
	if (compute > 0 && !workload && !params_arg)
		die_usage("plan: --compute needs --workload or --params");
	if (ranks.n == 0)
		dlist_push(&ranks, 8);
	for (r = 0; r < ranks.n; r++)
		if ((unsigned long)ranks.v[r] > maxranks)
			maxranks = (unsigned long)ranks.v[r];
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
	if (workload) {
		struct workload w;
		struct preset wp;
		char note[160];

		if (preset_load(&ctx->dirs, workload, &wp, &eb) < 0)
			die("--workload: %s", eb.msg);
		if (workload_from_preset(&wp, &w, &eb) < 0) {
			preset_release(&wp);
			die("--workload: %s", eb.msg);
		}
		preset_release(&wp);
		params = workload_params(&w);
		out_input_str(o, "workload", "workload", w.name);
		out_input(o, "params", "parameters", params, H_PLAIN, 4,
			  workload_describe(note, sizeof(note), &w));
	} else if (params_arg)
		out_input(o, "params", "parameters", params, H_PLAIN, 4, NULL);
	if (compute > 0)
		out_input(o, "compute_s", "compute", compute, H_TIME, 4, "one step on one rank");
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
	if (params > 0) {
		ddp_rows(o, ctx, params, compute, maxranks < 2 ? 2 : maxranks);
		zero_rows(o, ctx, params, compute, maxranks);
	}
	out_table_end(o);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	dlist_release(&sizes);
	return 0;
}
