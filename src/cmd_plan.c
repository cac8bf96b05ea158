/*
 * commtime plan: the results the first runs of a rental should show,
 * written before the rental as one CSV that `compare --expected` reads
 * back next to the logs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "crossover.h"
#include "fit.h"
#include "step.h"
#include "train.h"
#include "workload.h"

static const char *const usage_lines[] = {
	"commtime plan [options]",
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
	.footer = "With -o FILE.csv and no --format the plan is written as CSV.\n",
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

/*
 * The -b -e -f (or -i) arguments of an nccl-tests sweep that runs every
 * size of the list: -f F when each size is the first times a power of F
 * (the largest such F, so the run does not measure more than it must),
 * -i STEP when the sizes are the first plus multiples of STEP, else the
 * sizes apart, one run each (-b S -e S).  Returns the number of runs
 * written into args[] (at most max).
 */
static size_t sweep_args(char args[][128], size_t max, const struct dlist *sizes)
{
	double b0 = sizes->v[0], e0 = sizes->v[sizes->n - 1], step = 0;
	char b[32], e[32], st[32];
	size_t i, n = 0;
	int k;

	nccl_size(b, sizeof(b), b0);
	nccl_size(e, sizeof(e), e0);
	if (sizes->n == 1) {
		snprintf(args[0], 128, "-b %s -e %s", b, e);
		return 1;
	}
	/* F is a root of the first ratio: try the largest first */
	for (k = 1; k <= 64 && b0 > 0; k++) {
		double f = nearbyint(pow(sizes->v[1] / b0, 1.0 / k));

		if (f < 2)
			break;
		if (fabs(pow(f, k) * b0 - sizes->v[1]) > 1e-6 * sizes->v[1])
			continue;
		for (i = 2; i < sizes->n; i++) {
			double x = log(sizes->v[i] / b0) / log(f);

			if (fabs(x - nearbyint(x)) > 1e-9 ||
			    fabs(b0 * pow(f, nearbyint(x)) - sizes->v[i]) > 1e-6 * sizes->v[i])
				break;
		}
		if (i == sizes->n) {
			snprintf(args[0], 128, "-b %s -e %s -f %.0f", b, e, f);
			return 1;
		}
	}
	/* arithmetic: the greatest common step of the differences */
	for (i = 1; i < sizes->n; i++) {
		double d = sizes->v[i] - b0, a = step, c = d;

		while (c > 0.5) {
			double t = fmod(a, c);

			a = c;
			c = t;
		}
		step = i == 1 ? d : a;
	}
	if (step >= 1 && (e0 - b0) / step <= 1024) {
		nccl_size(st, sizeof(st), step);
		snprintf(args[0], 128, "-b %s -e %s -i %s", b, e, st);
		return 1;
	}
	for (i = 0; i < sizes->n && n < max; i++) {
		nccl_size(b, sizeof(b), sizes->v[i]);
		snprintf(args[n++], 128, "-b %s -e %s", b, b);
	}
	return n;
}

/* The nccl-tests command line of one curve: "; " between runs. */
static void run_line(char *buf, size_t len, enum coll_op op, int algo,
		     unsigned long ranks, const struct dlist *sizes)
{
	char args[8][128];
	const char *env = "";
	size_t i, n = sweep_args(args, 8, sizes);

	if (op == OP_ALLREDUCE && algo >= 0)
		env = algo == ALGO_RING ? "NCCL_ALGO=Ring " :
			algo == ALGO_DBTREE || algo == ALGO_TREE ? "NCCL_ALGO=Tree " : "";
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		size_t l = strlen(buf);

		/* One process with -g N on one node of up to 8 GPUs; MPI beyond. */
		if (ranks <= 8)
			snprintf(buf + l, len - l, "%s%s%s_perf %s -g %lu", i ? "; " : "", env,
				 coll_op_name(op), args[i], ranks);
		else
			snprintf(buf + l, len - l, "%s%smpirun -np %lu %s_perf %s -g 1", i ? "; " : "",
				 env, ranks, coll_op_name(op), args[i]);
	}
	if (n == 8 && sizes->n > 8)
		snprintf(buf + strlen(buf), len - strlen(buf), "; ... (one run a size)");
}

struct planner {
	const struct ctx *ctx;
	struct fit_model fm;
	int have_regimes;
};

/* Regimes fitted for this algorithm predict; otherwise the link does. */
static double predict(const struct planner *pl, enum coll_op op, enum coll_algo algo,
		      unsigned long ranks, double bytes)
{
	if (pl->have_regimes && (op != OP_ALLREDUCE || algo == pl->fm.algo))
		return fit_model_time(&pl->fm, op, ranks, bytes);
	return fit_link_time(op, algo, &pl->ctx->model.link, ranks, bytes);
}

static void curve(struct out *o, const struct planner *pl, enum coll_op op, int algo,
		  unsigned long ranks, const struct dlist *sizes)
{
	char run[1024];
	size_t i;

	run_line(run, sizeof(run), op, algo, ranks, sizes);
	for (i = 0; i < sizes->n; i++) {
		enum coll_algo a = algo >= 0 ? (enum coll_algo)algo : ALGO_RING;
		double S = sizes->v[i], t = predict(pl, op, a, ranks, S);
		struct cell row[] = { { "busbw", 0 }, { run, 0 }, { coll_op_name(op), 0 },
				      { NULL, (double)ranks }, { coll_algo_name(a), 0 },
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
	char run[2100], r1[1024], r2[1024], note[128];
	double S = NAN, t = NAN;

	run_line(r1, sizeof(r1), OP_ALLREDUCE, ALGO_RING, ranks, sizes);
	run_line(r2, sizeof(r2), OP_ALLREDUCE, ALGO_DBTREE, ranks, sizes);
	snprintf(run, sizeof(run), "%s; %s", r1, r2);
	if (crossover_allreduce(ALGO_RING, ALGO_DBTREE, &pl->ctx->model.link, ranks, CROSS_LO,
				CROSS_HI, &c, &eb) < 0)
		die("crossover at %lu ranks: %s", ranks, eb.msg);
	switch (c.result) {
	case CROSS_FOUND:
		S = c.bytes;
		t = fit_link_time(OP_ALLREDUCE, ALGO_RING, &pl->ctx->model.link, ranks, S);
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

/* ---- the sheet: the human table, one heading a run ---- */

/* Rows of one run in the sheet; every size when there are this few. */
#define SHEET_SIZES 6

static const struct column sheet_cols[] = {
	{ .key = "size_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .prec = 3, .width = 9 },
	{ .key = "expected_time_s", .label = "time", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 10 },
	{ .key = "expected_algbw_Bps", .label = "algbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "expected_busbw_Bps", .label = "busbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
};

/*
 * The sizes a person checks in a run: all of them when there are few,
 * else SHEET_SIZES spread evenly over the sweep, its ends included (8 B,
 * 512 B, 32 KiB, 2 MiB, 128 MiB, 8 GiB for the default 8:8G:x2).
 */
static int sheet_size(const struct dlist *sizes, size_t i)
{
	size_t k;

	if (sizes->n <= SHEET_SIZES + 2)
		return 1;
	for (k = 0; k < SHEET_SIZES; k++)
		if (i == (k * (sizes->n - 1) + (SHEET_SIZES - 1) / 2) / (SHEET_SIZES - 1))
			return 1;
	return 0;
}

static void sheet_curve(struct out *o, const struct planner *pl, enum coll_op op, int algo,
			unsigned long ranks, const struct dlist *sizes, int *nrun)
{
	char run[1024], title[1100];
	enum coll_algo a = algo >= 0 ? (enum coll_algo)algo : ALGO_RING;
	struct table t = { .name = "run", .title = title, .cols = sheet_cols,
			   .ncols = sizeof(sheet_cols) / sizeof(sheet_cols[0]), .secondary = 1 };
	size_t i;

	run_line(run, sizeof(run), op, algo, ranks, sizes);
	snprintf(title, sizeof(title), "run %d: %s", ++*nrun, run);
	out_table_begin(o, &t);
	for (i = 0; i < sizes->n; i++) {
		double S = sizes->v[i], tm = predict(pl, op, a, ranks, S);
		struct cell row[] = { { NULL, S }, { NULL, tm }, { NULL, S / tm },
				      { NULL, S / tm * busbw_factor(op, ranks) } };

		if (sheet_size(sizes, i))
			out_row(o, row);
	}
	out_table_end(o);
}

static void sheet_crossover(struct out *o, const struct planner *pl, unsigned long ranks)
{
	struct crossing c;
	struct errbuf eb;
	char b[32], t[32];

	if (crossover_allreduce(ALGO_RING, ALGO_DBTREE, &pl->ctx->model.link, ranks, CROSS_LO,
				CROSS_HI, &c, &eb) < 0)
		die("crossover at %lu ranks: %s", ranks, eb.msg);
	if (c.result != CROSS_FOUND) {
		out_text(o, "%s", "");
		out_text(o, "all_reduce ring and dbtree on %lu ranks: %s", ranks,
			 c.result == CROSS_A_ALWAYS ? "ring is faster at every size" :
			 c.result == CROSS_B_ALWAYS ? "dbtree is faster at every size" :
			 "the same time at every size");
		return;
	}
	out_text(o, "%s", "");
	units_fmt_size(b, sizeof(b), c.bytes);
	units_fmt_time(t, sizeof(t), fit_link_time(OP_ALLREDUCE, ALGO_RING, &pl->ctx->model.link,
						     ranks, c.bytes), 4);
	out_text(o, "all_reduce ring and dbtree on %lu ranks take equal time at %s (%s): "
		 "%s faster below, %s above", ranks, b, t,
		 c.below ? "dbtree" : "ring", c.below ? "ring" : "dbtree");
}

static const struct column ddp_sheet_cols[] = {
	{ .key = "ranks", .label = "ranks", .type = COL_INT, .human = H_PLAIN, .width = 5 },
	{ .key = "comm_s", .label = "all-reduce", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 10 },
	{ .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 10 },
	{ .key = "fraction", .label = "comm share", .type = COL_NUM, .human = H_PERCENT, .prec = 1,
	  .width = 10 },
	{ .key = "speedup", .label = "speedup", .type = COL_NUM, .human = H_PLAIN, .prec = 3,
	  .width = 7 },
};

static const struct column zero_sheet_cols[] = {
	{ .key = "stage", .label = "stage", .type = COL_INT, .human = H_PLAIN, .width = 5 },
	{ .key = "memory_B", .label = "memory/rank", .type = COL_NUM, .human = H_SIZE, .prec = 4,
	  .width = 11 },
	{ .key = "comm_B", .label = "volume", .type = COL_NUM, .human = H_SIZE, .prec = 4, .width = 9 },
	{ .key = "comm_s", .label = "comm time", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 9 },
	{ .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "collectives", .label = "collectives", .type = COL_STR, .human = H_PLAIN },
};

/*
 * DDP: the gradient all-reduce of one step on 2, 4, 8... ranks up to
 * maxranks (models/ddp.md, no overlap, no buckets: the seed's model).
 * Without the compute time (0) the step is left out: the all-reduce alone.
 */
static void ddp_rows(struct out *o, const struct ctx *ctx, double params,
		     double compute, unsigned long maxranks, int sheet)
{
	struct table t = { .name = "ddp", .title = compute > 0 ?
			   "DDP training, bf16 gradients: time one step (torchrun)" :
			   "DDP training, bf16 gradients: the gradient all-reduce of one step",
			   .cols = ddp_sheet_cols, .ncols = compute > 0 ? 5 : 2, .secondary = 1 };
	struct ddp_params p;
	unsigned long n;

	ddp_params_init(&p);
	p.grad_bytes = STEP_GRAD_BYTES * params;    /* fp32 gradients (models/step.md) */
	p.compute = compute;
	if (sheet)
		out_table_begin(o, &t);
	for (n = 2; n <= maxranks; n *= 2) {
		struct ddp_step st;
		char run[160], note[160];

		ddp_step_cost(&p, &ctx->model, n, &st);
		if (sheet) {
			struct cell row[] = { { NULL, (double)n }, { NULL, st.comm_s },
					      { NULL, st.step_s }, { NULL, st.fraction },
					      { NULL, n * compute / st.step_s } };

			out_row(o, row);
			continue;
		}
		snprintf(run, sizeof(run), "DDP training on %lu ranks (torchrun), bf16 "
			 "gradients, time one step", n);
		if (compute > 0)
			snprintf(note, sizeof(note), "communication %.1f %% of the step, "
				 "speedup %.2f of %lu", 100 * st.fraction,
				 n * compute / st.step_s, n);
		else
			snprintf(note, sizeof(note), "the all-reduce alone; --compute for the step");
		{
			struct cell row[] = { { "ddp", 0 }, { run, 0 }, { "all_reduce", 0 },
					      { NULL, (double)n }, { coll_algo_name(p.algo), 0 },
					      { NULL, p.grad_bytes }, { NULL, st.comm_s },
					      { NULL, p.grad_bytes / st.comm_s },
					      { NULL, p.grad_bytes / st.comm_s *
						      busbw_factor(OP_ALLREDUCE, n) },
					      { NULL, st.step_s }, { NULL, NAN }, { note, 0 } };
			out_row(o, row);
		}
	}
	if (sheet)
		out_table_end(o);
}

/* ZeRO stages 0-3 on n ranks (models/zero.md): memory and communication. */
static void zero_rows(struct out *o, const struct ctx *ctx, double params,
		      double compute, unsigned long n, int sheet)
{
	char title[160];
	struct column zcols[6];
	struct table t = { .name = "zero", .title = title, .cols = zcols, .ncols = 6,
			   .secondary = 1 };
	struct zero_params p;
	int stage;

	zero_params_init(&p);
	p.params = params;
	snprintf(title, sizeof(title), "DeepSpeed ZeRO on %lu ranks: %sread the memory per rank",
		 n, compute > 0 ? "time one step, " : "");
	memcpy(zcols, zero_sheet_cols, sizeof(zcols));
	if (!(compute > 0))
		zcols[4].flags = COL_DATA_ONLY;
	if (sheet)
		out_table_begin(o, &t);
	for (stage = 0; stage < ZERO_STAGES; stage++) {
		struct zero_cost z;
		char run[160], note[96];
		const char *colls = stage == 0 ? "all-reduce" : stage == 3 ?
			"reduce-scatter + 2 all-gathers" : "reduce-scatter + all-gather";
		double step;

		zero_cost_model(&p, &ctx->model, n, stage, &z);
		step = compute > 0 ? compute + z.comm_s : NAN;
		if (sheet) {
			struct cell row[] = { { NULL, stage }, { NULL, z.memory_B }, { NULL, z.comm_B },
					      { NULL, z.comm_s }, { NULL, step }, { colls, 0 } };

			out_row(o, row);
			continue;
		}
		snprintf(run, sizeof(run), "DeepSpeed ZeRO stage %d on %lu ranks, %sread the "
			 "memory per rank", stage, n, compute > 0 ? "time one step, " : "");
		snprintf(note, sizeof(note), "%s; step without overlap",
			 stage == 0 ? "plain data parallel (all-reduce)" : colls);
		{
			struct cell row[] = { { "zero", 0 }, { run, 0 },
					      { stage == 0 ? "all_reduce" : "reduce_scatter+all_gather", 0 },
					      { NULL, (double)n }, { coll_algo_name(p.algo), 0 },
					      { NULL, z.comm_B }, { NULL, z.comm_s },
					      { NULL, NAN }, { NULL, NAN },
					      { NULL, step }, { NULL, z.memory_B },
					      { note, 0 } };
			out_row(o, row);
		}
	}
	if (sheet)
		out_table_end(o);
}

/* An all-reduce algorithm of the plan as a cost_fn, for crossover_solve. */
struct curve_arg {
	const struct planner *pl;
	enum coll_algo algo;
	unsigned long ranks;
};

static double curve_time(double bytes, const void *arg)
{
	const struct curve_arg *c = arg;

	return predict(c->pl, OP_ALLREDUCE, c->algo, c->ranks, bytes);
}

/* Points of a figure curve: a dense grid, smooth at any zoom. */
#define CURVE_POINTS 201

/*
 * The series of p among first.. whose points are y (to a part in 10⁹), or
 * NULL.  Busbw is normalised so that ring all-reduce, all-gather and
 * reduce-scatter come out the same: one curve, not three drawn over each
 * other with only the last one visible.
 */
static struct plot_series *same_curve(struct panel *p, size_t first, const double *y)
{
	size_t i, j;

	for (i = first; i < p->nseries; i++) {
		const struct plot_series *s = &p->series[i];

		for (j = 0; j < s->n; j++)
			if (!(fabs(s->data[2 * j + 1] - y[j]) <= 1e-9 * fabs(y[j])))
				break;
		if (s->n == CURVE_POINTS && j == s->n)
			return &p->series[i];
	}
	return NULL;
}

/*
 * The figure: the busbw curves nccl-tests should print, on a dense grid
 * over 8 B to 8 GiB (or wider, to cover --sizes), one per collective,
 * all-reduce algorithm and rank count, curves that coincide drawn once
 * with their names together; the size where Ring and Tree take equal time
 * marked, and the preset's line rate when it has one.  Sizes on a log
 * axis; busbw on a linear one from 0, as nccl-tests users read it: the
 * plateau and how soon it is reached.
 */
static void figure_plan(const struct planner *pl, const int *ops, size_t nops,
			const enum coll_algo *algos, int nalgos, const struct dlist *ranks,
			const struct dlist *sizes)
{
	const struct ctx *ctx = pl->ctx;
	struct figure f = { 0 };
	struct panel *p;
	struct plot_series *s, *cross = NULL;
	double *crossing_ranks;
	double lo = 8, hi = 8.0 * 1073741824, top = 0, line = NAN, x[CURVE_POINTS], y[CURVE_POINTS];
	char title[320], link[160], text[160], b[32], suffix[48];
	size_t i, j, r, first;
	int a, k;
	struct errbuf eb;

	if (!ctx->plot && !ctx->render)
		return;
	if (sizes->v[0] < lo)
		lo = sizes->v[0];
	if (sizes->v[sizes->n - 1] > hi)
		hi = sizes->v[sizes->n - 1];
	if (!(lo > 0))
		lo = 1;
	for (j = 0; j < CURVE_POINTS; j++)
		x[j] = lo * pow(hi / lo, j / (CURVE_POINTS - 1.0));
	if (pl->have_regimes)
		snprintf(title, sizeof(title), "Expected nccl-tests busbw, regimes fitted in %s",
			 ctx->preset.name);
	else
		snprintf(title, sizeof(title), "Expected nccl-tests busbw, %s",
			 ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime plan: the busbw curves the first nccl-tests runs should show");
	f.width = 900;
	f.height = 540;
	p = plot_add_panel(&f, title, "message size", "busbw");
	p->xaxis = AX_SIZE;
	p->yaxis = AX_RATE;
	p->logx = 1;
	p->xmin = lo;
	p->xmax = hi;
	p->ymin = 0;
	for (r = 0; r < ranks->n; r++) {
		unsigned long n = (unsigned long)ranks->v[r];

		first = p->nseries;
		k = 0;
		suffix[0] = '\0';
		if (ranks->n > 1)
			snprintf(suffix, sizeof(suffix), ", %lu ranks", n);
		for (i = 0; i < nops; i++) {
			enum coll_op op = (enum coll_op)ops[i];
			double factor = busbw_factor(op, n);
			int na = op == OP_ALLREDUCE ? nalgos : 1;

			for (a = 0; a < na; a++) {
				enum coll_algo algo = op == OP_ALLREDUCE ? algos[a] : ALGO_RING;

				for (j = 0; j < CURVE_POINTS; j++) {
					y[j] = x[j] / predict(pl, op, algo, n, x[j]) * factor;
					if (y[j] > top)
						top = y[j];
				}
				if (op == OP_ALLREDUCE)
					snprintf(text, sizeof(text), "%s %s", coll_op_name(op),
						 coll_algo_name(algo));
				else
					snprintf(text, sizeof(text), "%s", coll_op_name(op));
				s = same_curve(p, first, y);
				if (s) {
					/* "all_reduce ring, 8 ranks" and all_gather make
					 * "all_reduce ring, all_gather, 8 ranks". */
					char both[320];
					size_t len = strlen(s->title), sl = strlen(suffix);
					size_t keep = len >= sl ? len - sl : len;

					snprintf(both, sizeof(both), "%.*s, %s%s", (int)keep, s->title,
						 text, suffix);
					free(s->title);
					s->title = xstrdup(both);
					continue;
				}
				strcat(text, suffix);
				s = plot_add_series(p, text, PS_LINES);
				s->color = k++;
				s->dash = (int)r;
				for (j = 0; j < CURVE_POINTS; j++)
					plot_xy(s, x[j], y[j]);
			}
		}
	}
	if (ctx->have_preset) {
		int got = preset_get_quantity(&ctx->preset, "beta_line", Q_RATE, &line, &eb);

		if (got < 0)
			die("%s", eb.msg);
		if (got == 0)
			line = NAN;
	}
	if (!isnan(line)) {
		snprintf(text, sizeof(text), "line rate %s (beta_line)", units_fmt_rate(b, sizeof(b), line, 4));
		plot_add_hline(p, line, text);
		if (line > top)
			top = line;
	}

	/*
	 * Where the ring and dbtree curves drawn cross, for each rank count:
	 * the plan's crossover row, unless a fitted preset's regimes bend the
	 * ring curve (the row keeps the link's value).
	 */
	crossing_ranks = xmalloc(ranks->n * sizeof(*crossing_ranks));
	for (i = 0; i < nops && ops[i] != OP_ALLREDUCE; i++)
		;
	for (r = 0; i < nops && r < ranks->n; r++) {
		unsigned long n = (unsigned long)ranks->v[r];
		struct crossing c;

		struct curve_arg ring = { pl, ALGO_RING, n }, tree = { pl, ALGO_DBTREE, n };

		if (crossover_solve(curve_time, &ring, curve_time, &tree, lo, hi, &c, &eb) < 0 ||
		    c.result != CROSS_FOUND)
			continue;
		if (!cross) {
			cross = plot_add_series(p, "ring = dbtree", PS_POINTS);
			cross->color = 6;
		}
		crossing_ranks[cross->n] = (double)n;
		plot_xy(cross, c.bytes, c.bytes / curve_time(c.bytes, &ring) *
			busbw_factor(OP_ALLREDUCE, n));
	}
	/*
	 * The key stands top left, over the small sizes where every curve is
	 * near zero; the line rate runs across the whole panel, so it and its
	 * label go below the key: about 3.5 % of the height a line.
	 */
	if (top > 0)
		p->ymax = isnan(line) ? 1.1 * top :
			  top / (1 - 0.035 * (double)(p->nseries + 2) - 0.03);
	/*
	 * Each crossover's size beside it: right of the point and below it,
	 * where a rising curve leaves room; near the right edge, where that
	 * text would be cut, left of it and above, over the plateaus.  Widths
	 * are estimated at 6.5 pixels a character.
	 */
	for (j = 0; cross && j < cross->n; j++) {
		double cx = cross->data[2 * j], cy = cross->data[2 * j + 1];
		double px_per_octave = (f.width - 150) / log2(hi / lo), w;

		fig_size_text(b, sizeof(b), cx);
		if (ranks->n > 1)
			snprintf(text, sizeof(text), "%s, %.0f ranks", b, crossing_ranks[j]);
		else
			snprintf(text, sizeof(text), "%s", b);
		w = 6.5 * (double)strlen(text) + 12;
		if (log2(hi / cx) * px_per_octave > w)
			plot_add_label(p, cx, cy, text, 1);
		else
			plot_add_label(p, cx / exp2((w / 2 + 6) / px_per_octave),
				       cy + 0.045 * p->ymax, text, 0);
	}
	free(crossing_ranks);
	ctx_figure(ctx, &f);
	plot_release(&f);
}

/* Parse a comma-separated list with lookup(); returns the count. */
/* The collectives of --ops, each once. */
struct op_set {
	int v[OP_COUNT];
	size_t n;
};

static void cb_ops(const struct opt *o, const char *arg)
{
	struct op_set *set = o->value;
	int *ops = set->v;
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
	set->n = n;
}

int cmd_plan(int argc, char **argv, struct ctx *ctx)
{
	struct op_set opset = { .v = { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER }, .n = 3 };
	struct algo_set algoset = { .v = { ALGO_RING, ALGO_DBTREE }, .n = 2 };
	struct workload_args wa = { 0 };
	int *ops = opset.v;
	enum coll_algo *algos = algoset.v;
	size_t nops, i, j, r;
	int nalgos;
	const char *workload, *params_arg;
	double params, compute = 0;
	unsigned long maxranks = 0;
	struct dlist ranks = { 0 }, sizes = { 0 };
	struct planner pl;
	struct errbuf eb;
	struct out *o;
	int sheet, nrun = 0;
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
		  .cb = opt_cb_algos, .complete = "ring tree dbtree rd rabenseifner",
		  .help = "all-reduce algorithms of the curves (default ring,dbtree)" },
		OPT_GROUP_("the training checks"),
		OPTS_WORKLOAD(&wa),
		OPT_POSITIVE_("compute", "TIME", Q_TIME, &compute,
			      "forward + backward of one step on one rank, with --workload\n"
			      "or --params; without it the checks leave out the step"),
		OPT_END_()
	};

	memset(&pl, 0, sizeof(pl));
	pl.ctx = ctx;
	opts_parse(argc, argv, options, &usage, 0);
	nops = opset.n;
	nalgos = algoset.n;
	workload = wa.workload;
	params_arg = wa.params_arg;
	params = wa.params;
	if (workload && params_arg)
		die_usage("plan: give the model with one of --workload or --params");
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
		char note[160];

		params = workload_args_params(ctx, &wa, &w);
		out_input_str(o, "workload", "workload", w.name);
		out_input(o, "params", "parameters", params, H_PLAIN, 4,
			  workload_describe(note, sizeof(note), &w));
	} else if (params_arg)
		out_input(o, "params", "parameters", params, H_PLAIN, 4, NULL);
	if (compute > 0)
		out_input(o, "compute_s", "compute", compute, H_TIME, 4, "one step on one rank");
	sheet = out_get_format(o) == FMT_TABLE;
	if (sheet) {
		out_text(o, "%s", "");
		out_text(o, "the nccl-tests runs and what they should print%s",
			 sizes.n <= SHEET_SIZES + 2 ? "" :
			 " (a few sizes; the CSV holds every size)");
	} else
		out_table_begin(o, &table);
	for (r = 0; r < ranks.n; r++) {
		unsigned long n = (unsigned long)ranks.v[r];

		for (i = 0; i < nops; i++) {
			if (ops[i] != OP_ALLREDUCE) {
				if (sheet)
					sheet_curve(o, &pl, (enum coll_op)ops[i], -1, n, &sizes, &nrun);
				else
					curve(o, &pl, (enum coll_op)ops[i], -1, n, &sizes);
				continue;
			}
			for (j = 0; j < (size_t)nalgos; j++)
				if (sheet)
					sheet_curve(o, &pl, OP_ALLREDUCE, (int)algos[j], n, &sizes, &nrun);
				else
					curve(o, &pl, OP_ALLREDUCE, (int)algos[j], n, &sizes);
			if (sheet)
				sheet_crossover(o, &pl, n);
			else
				crossover_row(o, &pl, n, &sizes);
		}
	}
	if (params > 0) {
		ddp_rows(o, ctx, params, compute, maxranks < 2 ? 2 : maxranks, sheet);
		zero_rows(o, ctx, params, compute, maxranks, sheet);
	}
	if (!sheet)
		out_table_end(o);
	figure_plan(&pl, ops, nops, algos, nalgos, &ranks, &sizes);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	dlist_release(&sizes);
	return 0;
}
