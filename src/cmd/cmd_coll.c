/*
 * The collective commands, one per nccl-tests binary: allreduce (the
 * default command, and the seed's first table), allgather, reducescatter,
 * alltoall, broadcast, reduce and sendrecv.  One implementation,
 * parameterised by the collective: the time of one collective per rank
 * count, message size and algorithm, algbw and busbw as nccl-tests
 * defines them, the fastest algorithm, the crossover sizes, and on a
 * system the nodes spanned and the tier that bounds the time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coll_figure.h"
#include "errband.h"

/* What each command prints and what its size means (nccl-tests' size column). */
static const struct coll_cmd {
	const char *name;     /* command and JSON table name */
	const char *what;     /* "all-reduce" in titles */
	const char *size;     /* the meaning of size_B */
} colls[OP_COUNT] = {
	[OP_ALLREDUCE] = { "allreduce", "all-reduce", "the buffer each rank reduces" },
	[OP_ALLGATHER] = { "allgather", "all-gather", "the whole output buffer (n pieces)" },
	[OP_REDUCESCATTER] = { "reducescatter", "reduce-scatter",
			       "the whole input buffer (n pieces)" },
	[OP_ALLTOALL] = { "alltoall", "all-to-all", "one rank's send buffer (n pieces)" },
	[OP_BROADCAST] = { "broadcast", "broadcast", "the buffer the root sends" },
	[OP_REDUCE] = { "reduce", "reduce", "the buffer each rank contributes" },
	[OP_SENDRECV] = { "sendrecv", "send/recv", "the message each rank sends" },
};

static const char *const usage_lines[OP_COUNT][2] = {
	[OP_ALLREDUCE] = { "commtime [global options] [allreduce] [options]", NULL },
	[OP_ALLGATHER] = { "commtime [global options] allgather [options]", NULL },
	[OP_REDUCESCATTER] = { "commtime [global options] reducescatter [options]", NULL },
	[OP_ALLTOALL] = { "commtime [global options] alltoall [options]", NULL },
	[OP_BROADCAST] = { "commtime [global options] broadcast [options]", NULL },
	[OP_REDUCE] = { "commtime [global options] reduce [options]", NULL },
	[OP_SENDRECV] = { "commtime [global options] sendrecv [options]", NULL },
};

static const char about[] =
	"Time of one collective per rank count, message size and algorithm, the\n"
	"fastest algorithm, and the message sizes where one algorithm overtakes\n"
	"another; CSV and JSON add algbw and busbw as nccl-tests defines them.  The\n"
	"size is nccl-tests' size column for the collective.  On a system (--system)\n"
	"the table also says how many nodes a run spans, the busbw of the fastest\n"
	"time, and which tier bounds it (intra: the link inside a node; inter: the\n"
	"node's NICs), each time in its own unit.  An all-reduce of NCCL's model also\n"
	"gets its stated error: low and high, what a run should measure, from the\n"
	"public nccl-tests logs the model is judged on (models/nccl-accuracy.md).\n";

/* Machine-readable rows: one per rank count, size and algorithm. */
#define COL_(k, l, t, h, p) { .key = k, .label = l, .type = t, .human = h, .prec = p, \
			      .flags = COL_ALL }
static const struct column long_cols[] = {
	COL_("ranks", "ranks", COL_INT, H_PLAIN, 0),
	COL_("size_B", "size", COL_NUM, H_SIZE, 0),
	COL_("algo", "algo", COL_STR, H_PLAIN, 0),
	COL_("time_s", "time", COL_NUM, H_TIME, 4),
	COL_("algbw_Bps", "algbw", COL_NUM, H_RATE, 4),
	COL_("busbw_Bps", "busbw", COL_NUM, H_RATE, 4),
	/* on a system only */
	COL_("nodes", "nodes", COL_INT, H_PLAIN, 0),
	COL_("bound", "bound", COL_STR, H_PLAIN, 0),
	/* with a stated error (NCCL's model, all-reduce): what a run should measure */
	COL_("time_lo_s", "low", COL_NUM, H_TIME, 4),
	COL_("time_hi_s", "high", COL_NUM, H_TIME, 4),
};
#define LONG_LINK 6
#define LONG_SYSTEM 8
#define LONG_BAND 10


/* Column name of an algorithm; NCCL's own choice (ALGO_AUTO) is "nccl". */
static const char *algo_col(enum coll_algo a)
{
	return a == ALGO_AUTO ? "nccl" : coll_algo_name(a);
}

/* The column of algorithm a in run r: a serving kernel's name under --impl. */
static const char *run_col(const struct coll_run *r, enum coll_algo a)
{
	return r->impl != AR_NCCL ? ar_impl_name(r->impl) : algo_col(a);
}

/* What runs an all-reduce of --impl on n ranks at S bytes ("oneshot", "nccl ring/LL"). */
static const char *impl_text(const struct coll_run *r, unsigned long n, double S, char *buf,
			     size_t len)
{
	struct ar_cost a;
	struct errbuf eb;

	if (serve_ar(&r->ctx->machine.model, &r->ctx->machine.system, r->impl, n, S, &a, &eb) < 0)
		return "-";
	snprintf(buf, len, "%s", a.kernel);
	return buf;
}

/* "ring/LL": the algorithm and protocol NCCL's model chose, in buf. */
static const char *choice_text(char *buf, size_t len, const struct coll_cost *c)
{
	snprintf(buf, len, "%s/%s", coll_algo_name(c->algo), coll_proto_name(c->proto));
	return buf;
}

/*
 * How wide the "faster" column must be for what it may say: an algorithm's
 * name, NCCL's choice ("nvlstree/Simple"), "tie", "none (1 rank)".
 */
static int faster_width(const struct coll_run *r, const struct dlist *ranks)
{
	int w = (int)strlen("faster"), k, p;
	size_t i;

	for (k = 0; k < r->nalgo; k++) {
		int n = (int)strlen(algo_col(r->algos[k]));

		w = n > w ? n : w;
		if (r->algos[k] != ALGO_AUTO)
			continue;
		/* NCCL's model may choose any of its algorithms with any protocol */
		for (p = 0; p < ALGO_COUNT; p++)
			if (cost_algo_supported(&r->ctx->machine.model, r->op, (enum coll_algo)p)) {
				n = (int)(strlen(coll_algo_name((enum coll_algo)p)) + 1 +
					  strlen(coll_proto_name(PROTO_SIMPLE)));
				w = n > w ? n : w;
			}
	}
	/* a serving kernel's rule may fall back to NCCL: "nccl nvlstree/Simple" */
	if (r->impl != AR_NCCL && w < (int)strlen("nccl nvlstree/Simple"))
		w = (int)strlen("nccl nvlstree/Simple");
	for (i = 0; i < ranks->n; i++)
		if (ranks->v[i] <= 1 && w < (int)strlen("none (1 rank)"))
			w = (int)strlen("none (1 rank)");
	return w;
}

/*
 * A time column of the human table.  On one link all times share the
 * unit of the smallest (the seed's table); on a system, whose sizes and
 * node counts span microseconds to tens of milliseconds, each time reads
 * in its own unit with four digits ("15.10 µs", "31.61 ms"), unless
 * --time-unit fixes one.
 */
static void time_column(const struct coll_run *r, struct column *c, const struct time_unit *u)
{
	if (r->ctx->machine.have_system && !r->ctx->time_unit) {
		c->human = H_TIME;
		c->prec = 4;
		return;
	}
	column_time_unit(c, u);
}

/*
 * Where the human table's columns sit: a system adds nodes, busbw and
 * bound, a stated error its low and high.
 */
struct wide_layout {
	int sys;      /* on a system: the nodes, busbw and bound columns */
	int band;     /* the stated error of the one column NCCL's model fills */
	int nc;       /* the number of columns */
	int first;    /* the first algorithm's column */
	int lo;       /* the low column of the stated error, then high */
	int bw;       /* the busbw column, 0 when none */
};

/* The human table's columns into cols, their places into *w. */
static void wide_columns(const struct coll_run *r, const struct dlist *ranks,
			 const struct time_unit *u, struct column *cols, struct wide_layout *w)
{
	int k, nc = 0;

	w->sys = r->ctx->machine.have_system;
	/* the stated error of the one column NCCL's model fills (src/cmd/cli_errband.c) */
	w->band = r->nalgo == 1 && r->impl == AR_NCCL && ctx_has_errband(r->ctx, r->op);
	w->lo = 0;
	w->bw = 0;
	cols[nc++] = (struct column){ .key = "ranks", .label = "ranks", .type = COL_INT,
				      .human = H_PLAIN, .width = 5, .flags = COL_ALL };
	if (w->sys)
		cols[nc++] = (struct column){ .key = "nodes", .label = "nodes", .type = COL_INT,
					      .human = H_PLAIN, .width = 5, .flags = COL_ALL };
	cols[nc++] = (struct column){ .key = "size_B", .label = "size", .type = COL_NUM,
				      .human = H_SIZE, .width = 9, .flags = COL_ALL };
	w->first = nc;
	for (k = 0; k < r->nalgo; k++) {
		cols[nc++] = (struct column){ .key = run_col(r, r->algos[k]),
					      .label = run_col(r, r->algos[k]), .type = COL_NUM,
					      .width = 12, .flags = COL_ALL };
		time_column(r, &cols[nc - 1], u);
	}
	if (w->band) {
		w->lo = nc;
		cols[nc++] = (struct column){ .key = "time_lo_s", .label = "low", .type = COL_NUM,
					      .width = 12, .flags = COL_ALL };
		time_column(r, &cols[nc - 1], u);
		cols[nc++] = (struct column){ .key = "time_hi_s", .label = "high", .type = COL_NUM,
					      .width = 12, .flags = COL_ALL };
		time_column(r, &cols[nc - 1], u);
	}
	/* on a system, the busbw nccl-tests would print for the fastest time */
	if (w->sys) {
		w->bw = nc;
		cols[nc++] = (struct column){ .key = "busbw_Bps", .label = "busbw", .type = COL_NUM,
					      .human = H_RATE, .prec = 4, .width = 11,
					      .flags = COL_ALL };
	}
	cols[nc++] = (struct column){ .key = "faster", .label = "faster", .type = COL_STR,
				      .human = H_PLAIN, .width = faster_width(r, ranks),
				      .flags = COL_ALL };
	if (w->sys)
		cols[nc++] = (struct column){ .key = "bound", .label = "bound", .type = COL_STR,
					      .human = H_PLAIN, .flags = COL_ALL };
	w->nc = nc;
}

/* One row of the human table: ranks v ranks at S bytes, written to o. */
static void wide_row(struct out *o, const struct coll_run *r, const struct wide_layout *w,
		     double v, double S, struct cell *cells)
{
	unsigned long n = (unsigned long)v;
	double best = INFINITY;
	int b = -1, tie = 0, k;
	enum tier_id bound = TIER_INTRA;
	struct coll_cost c, cb = { 0 };
	char chose[48];

	cells[0] = (struct cell){ .x = v };
	if (w->sys)
		cells[1] = (struct cell){ .x = (double)system_nodes(&r->ctx->machine.system, n) };
	cells[w->first - 1] = (struct cell){ .x = S };
	for (k = 0; k < r->nalgo; k++) {
		double tk = coll_run_cost(r, r->algos[k], n, S, &c);

		cells[w->first + k] = (struct cell){ .x = tk };
		if (tk < best) {
			best = tk;
			b = k;
			tie = 0;
			bound = c.bound;
			cb = c;
		} else if (tk == best) {
			tie = 1;
		}
	}
	if (w->band) {
		double tl, th;

		errband_range(ctx_errband(r->ctx, r->op, n, S), best, &tl, &th);
		cells[w->lo] = (struct cell){ .x = tl };
		cells[w->lo + 1] = (struct cell){ .x = th };
	}
	if (w->bw)
		cells[w->bw] = (struct cell){ .x = n > 1 && best > 0 ? S / best *
					   busbw_factor(r->op, n) : NAN };
	cells[w->nc - 1 - w->sys] = (struct cell){ .s =
		n <= 1 ? "none (1 rank)" :
		r->impl != AR_NCCL ? impl_text(r, n, S, chose, sizeof(chose)) :
		r->nalgo == 1 && r->algos[0] == ALGO_AUTO && cb.proto != PROTO_NONE ?
		choice_text(chose, sizeof(chose), &cb) :
		r->nalgo == 1 ? "-" : tie ? "tie" : algo_col(r->algos[b]) };
	if (w->sys)
		cells[w->nc - 1] = (struct cell){
			.s = n <= 1 ? "-" : tier_name(bound) };
	out_row(o, cells);
}

/* The human table: one row per rank count and size, one column per algorithm. */
static void write_wide(struct out *o, const struct coll_run *r, const struct dlist *ranks,
		       const struct dlist *sizes, const struct time_unit *u)
{
	struct column cols[3 + ALGO_COUNT + 5];
	struct cell cells[3 + ALGO_COUNT + 5];
	char title[96];
	struct table t = { .name = r->name, .title = title, .cols = cols };
	struct wide_layout w;
	size_t i, j;

	snprintf(title, sizeof(title), "%s time per rank count and message size", r->what);
	wide_columns(r, ranks, u, cols, &w);
	t.ncols = (size_t)w.nc;

	out_table_begin(o, &t);
	for (i = 0; i < ranks->n && !out_failed(o); i++)
		for (j = 0; j < sizes->n; j++)
			wide_row(o, r, &w, ranks->v[i], sizes->v[j], cells);
	out_table_end(o);
}

/* CSV and JSON: one row per rank count, size and algorithm, streamed. */
static void write_long(struct out *o, const struct coll_run *r, const struct dlist *ranks,
		       const struct dlist *sizes)
{
	int sys = r->ctx->machine.have_system;
	int band = r->impl == AR_NCCL && ctx_has_errband(r->ctx, r->op);
	struct table t = { .name = r->name, .cols = long_cols,
			   .ncols = band ? LONG_BAND : sys ? LONG_SYSTEM : LONG_LINK };
	struct cell cells[LONG_BAND];
	size_t i, j;
	int k;

	out_table_begin(o, &t);
	/* After a write error the rows are lost: stop the sweep early. */
	for (i = 0; i < ranks->n && !out_failed(o); i++) {
		unsigned long n = (unsigned long)ranks->v[i];
		double factor = busbw_factor(r->op, n);

		cells[0] = (struct cell){ .x = ranks->v[i] };
		for (j = 0; j < sizes->n; j++) {
			cells[1] = (struct cell){ .x = sizes->v[j] };
			for (k = 0; k < r->nalgo; k++) {
				struct coll_cost c;
				double tk = coll_run_cost(r, r->algos[k], n, sizes->v[j], &c);
				/* one rank moves nothing: no bandwidth to speak of */
				double algbw = tk > 0 ? sizes->v[j] / tk : NAN;
				char chose[48];

				cells[2] = (struct cell){ .s = r->impl != AR_NCCL ?
							  impl_text(r, n, sizes->v[j], chose,
								    sizeof(chose)) :
							  r->algos[k] == ALGO_AUTO &&
							  c.proto != PROTO_NONE ?
							  choice_text(chose, sizeof(chose), &c) :
							  algo_col(r->algos[k]) };
				cells[3] = (struct cell){ .x = tk };
				cells[4] = (struct cell){ .x = algbw };
				cells[5] = (struct cell){ .x = algbw * factor };
				cells[6] = (struct cell){ .x = (double)c.nodes };
				cells[7] = (struct cell){ .s = tier_name(c.bound) };
				if (band) {
					double tl, th;

					errband_range(ctx_errband(r->ctx, r->op, n, sizes->v[j]), tk,
						      &tl, &th);
					cells[8] = (struct cell){ .x = tl };
					cells[9] = (struct cell){ .x = th };
				}
				out_row(o, cells);
			}
		}
	}
	out_table_end(o);
}

/*
 * The algorithms a command shows when --algo is not given: on a link the
 * seed's ring and tree for all-reduce, otherwise every algorithm the
 * model has for the collective and can run on every requested rank count
 * (NCCL's NVLSTree, for one, needs more than one node).
 */
static int default_algos(const struct cost_model *m, enum coll_op op,
			 const struct dlist *ranks, enum coll_algo *v)
{
	int n = 0, a;
	size_t i;

	if (m->kind == COST_LINK && op == OP_ALLREDUCE) {
		v[0] = ALGO_RING;
		v[1] = ALGO_TREE;
		return 2;
	}
	if (m->kind == COST_NCCL) {
		v[0] = ALGO_AUTO;   /* NCCL's own choice per size */
		return 1;
	}
	if (m->kind == COST_FIT) {
		v[0] = cost_algo_default(m, op);   /* the algorithm the regimes measured */
		return 1;
	}
	for (a = 0; a < ALGO_COUNT; a++) {
		if (!cost_algo_supported(m, op, (enum coll_algo)a))
			continue;
		for (i = 0; i < ranks->n; i++) {
			struct group g = { .ranks = (unsigned long)ranks->v[i] };
			struct coll_cost c;

			if (cost_coll(m, op, (enum coll_algo)a, &g, 1, &c, NULL) < 0)
				break;
		}
		if (i == ranks->n)
			v[n++] = (enum coll_algo)a;
	}
	return n;
}

/*
 * Every time once before any output: a run the machine cannot hold
 * (more nodes than a system without NICs has) fails here, cleanly.  The
 * human table's unit comes from the same pass.  One link holds any run,
 * and its every model grows with the rank count and the size: the
 * extremes are at the fewest ranks that communicate with the smallest
 * size and at the most ranks with the largest, so a huge table starts at
 * once instead of after a pass over the sweep.
 */
static void coll_time_unit(const struct coll_run *r, const struct dlist *ranks,
			   const struct dlist *sizes, struct time_unit *u)
{
	double tmin = INFINITY, tmax = 0, tk;
	size_t i, j;
	int k;

	if (!r->ctx->machine.have_system) {
		double nmin = INFINITY, nmax = 0, smin = INFINITY, smax = 0;
		struct coll_cost c;

		for (i = 0; i < ranks->n; i++) {
			if (ranks->v[i] >= 2 && ranks->v[i] < nmin)
				nmin = ranks->v[i];
			if (ranks->v[i] > nmax)
				nmax = ranks->v[i];
		}
		for (j = 0; j < sizes->n; j++) {
			if (sizes->v[j] < smin)
				smin = sizes->v[j];
			if (sizes->v[j] > smax)
				smax = sizes->v[j];
		}
		for (k = 0; k < r->nalgo && r->ctx->format == FMT_TABLE && isfinite(nmin); k++) {
			tk = coll_run_cost(r, r->algos[k], (unsigned long)nmin, smin, &c);
			if (tk > 0 && tk < tmin)
				tmin = tk;
			tk = coll_run_cost(r, r->algos[k], (unsigned long)nmax, smax, &c);
			if (tk > tmax)
				tmax = tk;
		}
	} else {
		for (i = 0; i < ranks->n; i++)
			for (j = 0; j < (r->ctx->format == FMT_TABLE ? sizes->n : 1); j++)
				for (k = 0; k < r->nalgo; k++) {
					struct coll_cost c;

					tk = coll_run_cost(r, r->algos[k], (unsigned long)ranks->v[i],
						  r->ctx->format == FMT_TABLE ? sizes->v[j] : 0, &c);
					if (tk > 0 && tk < tmin)
						tmin = tk;
					if (tk > tmax)
						tmax = tk;
				}
	}
	ctx_time_unit(r->ctx, tmin, tmax, UNIT_BY_SMALLEST, u);
}

/*
 * The all-reduce's implementation of --impl NAME (NULL: NCCL): a serving
 * kernel needs a system and excludes --algo and --explain.
 */
static enum ar_impl resolve_impl(const struct ctx *ctx, const char *impl_arg,
				 const char *algo_arg, int explain)
{
	enum ar_impl impl = AR_NCCL;
	struct errbuf eb;

	if (!impl_arg)
		return impl;
	if (ar_impl_lookup(impl_arg, &impl, &eb) < 0)
		die_usage("--impl: %s", eb.msg);
	if (impl != AR_NCCL && !ctx->machine.have_system)
		die_usage("--impl %s: the serving kernels run on a system's NVLink GPUs; "
			  "give --system", impl_arg);
	if (impl != AR_NCCL && (algo_arg || explain))
		die_usage("--impl %s: %s restricts NCCL's model; give one or the other",
			  impl_arg, algo_arg ? "--algo" : "--explain");
	return impl;
}

/*
 * The algorithms of the table into algos, their number returned: those of
 * --algo LIST, the kernel's one column under --impl, or the defaults.
 */
static int resolve_algos(const struct ctx *ctx, enum coll_op op, const char *algo_arg,
			 enum ar_impl impl, const struct dlist *ranks, enum coll_algo *algos)
{
	struct errbuf eb;
	int nalgo;

	if (algo_arg) {
		nalgo = cost_algo_parse_list(&ctx->machine.model, op, algo_arg, algos, &eb);
		if (nalgo < 0)
			die_usage("--algo: %s", eb.msg);
	} else if (impl != AR_NCCL) {
		nalgo = 1;   /* one column: the kernel, whatever the model's algorithms */
		algos[0] = ALGO_AUTO;
	} else {
		nalgo = default_algos(&ctx->machine.model, op, ranks, algos);
		if (nalgo == 0)
			die("no algorithm of the %s model runs %s on every rank count asked for; "
			    "name one with --algo", cost_kind_name(ctx->machine.model.kind), colls[op].what);
	}
	return nalgo;
}

/*
 * Everything a run writes but its figure: the link, the table, the
 * crossovers, --explain's terms and the stated error.
 */
static void write_coll(struct out *o, const struct coll_run *r, const struct dlist *ranks,
		       const struct dlist *sizes, const struct time_unit *u, int explain)
{
	const struct ctx *ctx = r->ctx;
	enum coll_op op = r->op;
	size_t i, j;
	int k;

	ctx_echo_link(ctx, o);
	if (op != OP_ALLREDUCE)
		out_input_str(o, "size", "size", colls[op].size);
	if (!ctx->machine.have_system)
		out_input(o, "n_half_B", "half-bandwidth size n\xc2\xbd = alpha*beta",
			  ctx_link_n_half(ctx), H_SIZE, 4,
			  "below it one link is latency-bound");
	if (ctx->format == FMT_TABLE)
		write_wide(o, r, ranks, sizes, u);
	else
		write_long(o, r, ranks, sizes);
	if (r->nalgo >= 2)
		write_crossovers(o, ctx, op, ranks, r->algos, r->nalgo, 1);
	if (explain)
		for (k = 0; k < r->nalgo; k++)
			for (i = 0; i < ranks->n; i++)
				for (j = 0; j < sizes->n; j++)
					ctx_explain(ctx, o, op, r->algos[k], (unsigned long)ranks->v[i],
						    sizes->v[j]);
	if (r->impl == AR_NCCL && ctx_has_errband(ctx, op)) {
		unsigned cells = 0;

		for (i = 0; i < ranks->n; i++)
			for (j = 0; j < sizes->n; j++)
				ctx_errband_cell(ctx, op, (unsigned long)ranks->v[i], sizes->v[j], &cells);
		ctx_errband_table(ctx, o, cells);
	}
}

static int run_coll(enum coll_op op, int argc, char **argv, struct ctx *ctx)
{
	struct dlist ranks = { 0 }, sizes = { 0 };
	const char *algo_arg = NULL, *impl_arg = NULL;
	int explain = 0;
	struct opts_usage usage = { .cmd = colls[op].name, .lines = usage_lines[op],
				    .about = about };
	struct opt options[] = {
		OPT_RANKS_("ranks", &ranks, "rank counts (default 4,8,16,64); e.g. 2:1024:x2"),
		OPT_LIST_("sizes", "LIST", Q_SIZE, &sizes, "message sizes (default 4K,4M,1G); e.g. 8:8G:x2"),
		{ .type = OPT_STRING, .long_name = "algo", .argh = "LIST", .value = &algo_arg,
		  .complete = "ring tree dbtree rd rabenseifner hier hierhd pairwise p2p",
		  .help = "algorithms of the model: on a link ring, tree, dbtree, rd,\n"
			  "rabenseifner (all-reduce; default ring,tree), on a system ring,\n"
			  "hier, hierhd (all-reduce; default all); pairwise for alltoall,\n"
			  "p2p for sendrecv" },
		OPT_FLAG_("explain", &explain, "NCCL's model: per rank count and size, the chosen\n"
			  "algorithm and protocol, their terms with sources, the runners-up"),
		{ .type = OPT_STRING, .long_name = "impl", .argh = "NAME", .value = &impl_arg,
		  .complete = "nccl oneshot twoshot symm vllm",
		  .help = "on a system, the all-reduce as NCCL (default) or as the\n"
			  "serving engines' kernels on one NVLink node: oneshot,\n"
			  "twoshot, symm (NCCL 2.27's symmetric kernels), vllm (its\n"
			  "choice by size) (models/serve.md)" },
		OPT_END_()
	};
	enum coll_algo algos[ALGO_COUNT];
	struct coll_run r = { .ctx = ctx, .op = op, .name = colls[op].name,
			      .what = colls[op].what, .algos = algos };
	struct time_unit u;
	struct out *o;

	opt_ranks("--ranks", "4,8,16,64", &ranks, 1);
	opt_list("--sizes", Q_SIZE, "4K,4M,1G", &sizes);
	/* the serving kernels are all-reduces: the other collectives have no --impl */
	if (op != OP_ALLREDUCE)
		options[sizeof(options) / sizeof(options[0]) - 2] = (struct opt)OPT_END_();
	opts_parse(argc, argv, options, &usage, 0);
	r.impl = resolve_impl(ctx, impl_arg, algo_arg, explain);
	/* a run the machine cannot hold, whatever the algorithm: file:line: key */
	ctx_check_ranks(ctx, &ranks);
	r.nalgo = resolve_algos(ctx, op, algo_arg, r.impl, &ranks, algos);

	coll_time_unit(&r, &ranks, &sizes, &u);

	o = ctx_out_open(ctx);
	write_coll(o, &r, &ranks, &sizes, &u, explain);
	if (ctx_wants_figure(ctx))
		coll_figure(&r, &ranks, &sizes);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	dlist_release(&sizes);
	return 0;
}

/* The seven commands: one run each, parameterised by the collective. */
#define COLL_COMMAND(name, op) \
	int cmd_##name(int argc, char **argv, struct ctx *ctx) \
	{ \
		return run_coll(op, argc, argv, ctx); \
	}

COLL_COMMAND(allreduce, OP_ALLREDUCE)
COLL_COMMAND(allgather, OP_ALLGATHER)
COLL_COMMAND(reducescatter, OP_REDUCESCATTER)
COLL_COMMAND(alltoall, OP_ALLTOALL)
COLL_COMMAND(broadcast, OP_BROADCAST)
COLL_COMMAND(reduce, OP_REDUCE)
COLL_COMMAND(sendrecv, OP_SENDRECV)
