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

#include "cli.h"
#include "crossover.h"

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
	"Time of one collective per rank count, message size and algorithm, with\n"
	"algbw and busbw as nccl-tests defines them, the fastest algorithm, and the\n"
	"message sizes where one algorithm overtakes another.  The size is nccl-tests'\n"
	"size column for the collective.  On a system (--system) the table also says\n"
	"how many nodes a run spans and which tier bounds its time (intra: the link\n"
	"inside a node; inter: the node's NICs).\n";

/* Machine-readable rows: one per rank count, size and algorithm. */
static const struct column long_cols[] = {
	{ "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "size_B", "size", COL_NUM, H_SIZE, 0, NULL, 0, 0, COL_ALL },
	{ "algo", "algo", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "time_s", "time", COL_NUM, H_TIME, 0, NULL, 4, 0, COL_ALL },
	{ "algbw_Bps", "algbw", COL_NUM, H_RATE, 0, NULL, 4, 0, COL_ALL },
	{ "busbw_Bps", "busbw", COL_NUM, H_RATE, 0, NULL, 4, 0, COL_ALL },
	/* on a system only */
	{ "nodes", "nodes", COL_INT, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "bound", "bound", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
};
#define LONG_LINK 6
#define LONG_SYSTEM 8

struct run {
	const struct ctx *ctx;
	enum coll_op op;
	const struct coll_cmd *cmd;
	const enum coll_algo *algos;
	int nalgo;
};

/* Column name of an algorithm; NCCL's own choice (ALGO_AUTO) is "nccl". */
static const char *algo_col(enum coll_algo a)
{
	return a == ALGO_AUTO ? "nccl" : coll_algo_name(a);
}

/* "ring/LL": the algorithm and protocol NCCL's model chose, in buf. */
static const char *choice_text(char *buf, size_t len, const struct coll_cost *c)
{
	snprintf(buf, len, "%s/%s", coll_algo_name(c->algo), coll_proto_name(c->proto));
	return buf;
}

/* One collective's cost; a model error (a run that needs NICs the system has not) ends the run. */
static double coll(const struct run *r, enum coll_algo a, unsigned long n, double S,
		   struct coll_cost *c)
{
	struct group g = { .ranks = n };
	struct errbuf eb;

	if (cost_coll(&r->ctx->model, r->op, a, &g, S, c, &eb) < 0)
		die("%s on %lu ranks: %s", coll_algo_name(a), n, eb.msg);
	return c->time_s;
}

/* The human table: one row per rank count and size, one column per algorithm. */
static void write_wide(struct out *o, const struct run *r, const struct dlist *ranks,
		       const struct dlist *sizes, const struct time_unit *u)
{
	struct column cols[3 + ALGO_COUNT + 2];
	struct cell cells[3 + ALGO_COUNT + 2];
	char title[96];
	struct table t = { r->cmd->name, title, cols, 0, 0 };
	int sys = r->ctx->have_system;
	size_t i, j;
	int k, nc = 0, first;

	snprintf(title, sizeof(title), "%s time per rank count and message size", r->cmd->what);
	cols[nc++] = (struct column){ "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL };
	if (sys)
		cols[nc++] = (struct column){ "nodes", "nodes", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL };
	cols[nc++] = (struct column){ "size_B", "size", COL_NUM, H_SIZE, 0, NULL, 0, 9, COL_ALL };
	first = nc;
	for (k = 0; k < r->nalgo; k++)
		cols[nc++] = (struct column){ algo_col(r->algos[k]),
					      algo_col(r->algos[k]), COL_NUM, H_FIXED,
					      u->scale, u->suffix, u->prec, 12, COL_ALL };
	cols[nc++] = (struct column){ "faster", "faster", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL };
	if (sys)
		cols[nc++] = (struct column){ "bound", "bound", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL };
	t.ncols = (size_t)nc;

	out_table_begin(o, &t);
	for (i = 0; i < ranks->n && !out_failed(o); i++)
		for (j = 0; j < sizes->n; j++) {
			unsigned long n = (unsigned long)ranks->v[i];
			double best = INFINITY;
			int b = -1, tie = 0;
			enum tier_id bound = TIER_INTRA;
			struct coll_cost c, cb = { 0 };
			char chose[48];

			cells[0] = (struct cell){ NULL, ranks->v[i] };
			if (sys)
				cells[1] = (struct cell){ NULL, (double)system_nodes(&r->ctx->system, n) };
			cells[first - 1] = (struct cell){ NULL, sizes->v[j] };
			for (k = 0; k < r->nalgo; k++) {
				double tk = coll(r, r->algos[k], n, sizes->v[j], &c);

				cells[first + k] = (struct cell){ NULL, tk };
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
			cells[first + r->nalgo] = (struct cell){
				n <= 1 ? "none (1 rank)" :
				r->nalgo == 1 && r->algos[0] == ALGO_AUTO && cb.proto != PROTO_NONE ?
				choice_text(chose, sizeof(chose), &cb) :
				r->nalgo == 1 ? "-" : tie ? "tie" : algo_col(r->algos[b]), 0 };
			if (sys)
				cells[first + r->nalgo + 1] = (struct cell){
					n <= 1 ? "-" : tier_name(bound), 0 };
			out_row(o, cells);
		}
	out_table_end(o);
}

/* CSV and JSON: one row per rank count, size and algorithm, streamed. */
static void write_long(struct out *o, const struct run *r, const struct dlist *ranks,
		       const struct dlist *sizes)
{
	int sys = r->ctx->have_system;
	struct table t = { r->cmd->name, NULL, long_cols,
			   sys ? LONG_SYSTEM : LONG_LINK, 0 };
	struct cell cells[LONG_SYSTEM];
	size_t i, j;
	int k;

	out_table_begin(o, &t);
	/* After a write error the rows are lost: stop the sweep early. */
	for (i = 0; i < ranks->n && !out_failed(o); i++) {
		unsigned long n = (unsigned long)ranks->v[i];
		double factor = busbw_factor(r->op, n);

		cells[0] = (struct cell){ NULL, ranks->v[i] };
		for (j = 0; j < sizes->n; j++) {
			cells[1] = (struct cell){ NULL, sizes->v[j] };
			for (k = 0; k < r->nalgo; k++) {
				struct coll_cost c;
				double tk = coll(r, r->algos[k], n, sizes->v[j], &c);
				/* one rank moves nothing: no bandwidth to speak of */
				double algbw = tk > 0 ? sizes->v[j] / tk : NAN;

				char chose[48];

				cells[2] = (struct cell){ r->algos[k] == ALGO_AUTO && c.proto != PROTO_NONE ?
							  choice_text(chose, sizeof(chose), &c) :
							  algo_col(r->algos[k]), 0 };
				cells[3] = (struct cell){ NULL, tk };
				cells[4] = (struct cell){ NULL, algbw };
				cells[5] = (struct cell){ NULL, algbw * factor };
				cells[6] = (struct cell){ NULL, (double)c.nodes };
				cells[7] = (struct cell){ tier_name(c.bound), 0 };
				out_row(o, cells);
			}
		}
	}
	out_table_end(o);
}

/*
 * The figure on a link: time against message size for each algorithm and
 * rank count, on a dense grid over the sizes asked for (the models are
 * smooth, the list may be three sizes), with the crossovers marked and
 * n½ = αβ splitting the latency-bound sizes from the bandwidth-bound ones.
 */
#define FIG_RANKS 6
#define FIG_POINTS 160

/* Is index i among FIG_RANKS indices spread evenly over 0..n-1? */
static int shown(size_t i, size_t n)
{
	size_t k;

	for (k = 0; k < FIG_RANKS; k++)
		if (i == k * (n - 1) / (FIG_RANKS - 1))
			return 1;
	return 0;
}

/* The sizes a figure spans: those asked for, widened to three decades at least. */
static void fig_range(const struct dlist *sizes, double *lo, double *hi)
{
	size_t j;

	*lo = INFINITY;
	*hi = 0;
	for (j = 0; j < sizes->n; j++) {
		if (sizes->v[j] > 0 && sizes->v[j] < *lo)
			*lo = sizes->v[j];
		if (sizes->v[j] > *hi)
			*hi = sizes->v[j];
	}
	if (!(*lo <= *hi))
		*lo = 1, *hi = 1 << 30;
	if (*hi / *lo < 1024) {
		*lo = *lo / 32 < 1 ? 1 : *lo / 32;
		*hi *= 32;
	}
}

static void figure_link(const struct run *r, const struct dlist *ranks,
			const struct dlist *sizes)
{
	const struct ctx *ctx = r->ctx;
	struct figure f = { 0 };
	struct panel *p;
	double lo, hi, nhalf = ctx->model.link.alpha * ctx->model.link.beta;
	char title[256], link[128], text[160], sz[32], ylabel[64];
	size_t i, j;
	int a, b;

	fig_range(sizes, &lo, &hi);
	snprintf(title, sizeof(title), "%c%s time, %s", r->cmd->what[0] - 32, r->cmd->what + 1,
		 ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	snprintf(text, sizeof(text), "commtime %s: time of one %s against message size",
		 r->cmd->name, r->cmd->what);
	f.comment = xstrdup(text);
	snprintf(ylabel, sizeof(ylabel), "time of one %s", r->cmd->what);
	p = plot_add_panel(&f, title, r->op == OP_ALLREDUCE ? "message size per rank" :
			   "message size (nccl-tests' size)", ylabel);
	p->xaxis = AX_SIZE;
	p->yaxis = AX_TIME;
	p->logx = p->logy = 1;
	p->xmin = lo;
	p->xmax = hi;
	/*
	 * More than FIG_RANKS rank counts make a figure nobody can read: draw
	 * FIG_RANKS of them, spread evenly over the list, first and last kept.
	 */
	if (ranks->n > FIG_RANKS)
		warning("the figure shows %d of the %zu rank counts", FIG_RANKS, ranks->n);
	for (i = 0; i < ranks->n; i++) {
		unsigned long n = (unsigned long)ranks->v[i];

		if ((ranks->n > FIG_RANKS && !shown(i, ranks->n)) || n < 2)
			continue;
		for (a = 0; a < r->nalgo; a++) {
			struct plot_series *s;

			snprintf(text, sizeof(text), "%s, %lu ranks", coll_algo_name(r->algos[a]), n);
			s = plot_add_series(p, text, PS_LINES);
			s->color = (int)r->algos[a];
			s->dash = (int)(i % 5);
			for (j = 0; j <= FIG_POINTS; j++) {
				double S = lo * pow(hi / lo, j / (double)FIG_POINTS);

				plot_xy(s, S, cost_time(&ctx->model, r->op, r->algos[a], n, S));
			}
		}
		/*
		 * Mark only where the fastest algorithm changes: the crossings
		 * on the lower envelope, at most one fewer than the algorithms
		 * (every pair of five would pile ten labels on each other).
		 * Labels in the right third of the axis go left of their point,
		 * and a label near another on the same side to the other side.
		 */
		for (a = 0; a < r->nalgo; a++)
			for (b = a + 1; b < r->nalgo; b++) {
				struct group g = { .ranks = n };
				struct crossing c;
				struct errbuf eb;
				double t;
				size_t k;
				int lowest = 1, right;

				/* Solved over the bracket of the crossover table, so the
				 * figure marks the very sizes the table prints. */
				if (crossover_coll(&ctx->model, r->op, r->algos[a], r->algos[b], &g,
						   CROSS_LO, CROSS_HI, &c, &eb) < 0 ||
				    c.result != CROSS_FOUND || c.bytes < lo || c.bytes > hi)
					continue;
				t = cost_time(&ctx->model, r->op, r->algos[a], n, c.bytes);
				for (k = 0; k < (size_t)r->nalgo; k++)
					if ((int)k != a && (int)k != b &&
					    cost_time(&ctx->model, r->op, r->algos[k], n, c.bytes) <
					    t * (1 - 1e-9))
						lowest = 0;
				if (!lowest)
					continue;
				fig_size_text(sz, sizeof(sz), c.bytes);
				snprintf(text, sizeof(text), "%s/%s %lu: %s", coll_algo_name(r->algos[a]),
					 coll_algo_name(r->algos[b]), n, sz);
				right = log(c.bytes / lo) > log(hi / lo) * 2 / 3;
				for (k = 0; k < p->nlabels; k++)
					if (fabs(log(p->labels[k].x / c.bytes)) < log(16) &&
					    fabs(log(p->labels[k].y / t)) < log(2.5) &&
					    p->labels[k].point == (right ? 2 : 1))
						right = !right;
				plot_add_label(p, c.bytes, t, text, right ? 2 : 1);
			}
	}
	if (nhalf >= lo && nhalf <= hi) {
		fig_size_text(sz, sizeof(sz), nhalf);
		snprintf(text, sizeof(text), "n\xc2\xbd = \xce\xb1\xce\xb2 = %s", sz);
		plot_add_vline(p, nhalf, text, "latency-bound", "bandwidth-bound");
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
}

/* The tier that bounds algorithm a at size S on n ranks. */
static enum tier_id bound_at(const struct run *r, enum coll_algo a, unsigned long n, double S)
{
	struct coll_cost c;

	coll(r, a, n, S, &c);
	return c.bound;
}

/*
 * The figure on a system: bus bandwidth against message size, one curve
 * per rank count (so per node count) and algorithm; the line rates of
 * both tiers drawn; on each curve a point where the bound moves from the
 * intra-node link to the NICs (found on the grid, then by bisection in
 * log size).
 */
static void figure_system(const struct run *r, const struct dlist *ranks,
			  const struct dlist *sizes)
{
	const struct ctx *ctx = r->ctx;
	const struct system *sy = &ctx->system;
	struct figure f = { 0 };
	struct panel *p;
	double lo, hi;
	char title[256], text[200], sz[32], rate[32];
	size_t i, j;
	int a, it;

	fig_range(sizes, &lo, &hi);
	snprintf(title, sizeof(title), "%c%s bus bandwidth on %s (%s model)",
		 r->cmd->what[0] - 32, r->cmd->what + 1, sy->name, cost_kind_name(ctx->model.kind));
	f.title = xstrdup(title);
	snprintf(text, sizeof(text), "commtime --system %s %s: busbw against message size "
		 "per node count", sy->name, r->cmd->name);
	f.comment = xstrdup(text);
	p = plot_add_panel(&f, title, "message size (nccl-tests' size)", "bus bandwidth");
	p->xaxis = AX_SIZE;
	p->yaxis = AX_RATE;
	p->logx = 1;
	p->xmin = lo;
	p->xmax = hi;
	p->ymin = 0;
	p->key = xstrdup("top left");
	if (ranks->n > FIG_RANKS)
		warning("the figure shows %d of the %zu rank counts", FIG_RANKS, ranks->n);
	for (i = 0; i < ranks->n; i++) {
		unsigned long n = (unsigned long)ranks->v[i];
		unsigned long nodes = system_nodes(sy, n);
		double factor = busbw_factor(r->op, n);

		if ((ranks->n > FIG_RANKS && !shown(i, ranks->n)) || n < 2)
			continue;
		for (a = 0; a < r->nalgo; a++) {
			struct plot_series *s;
			double prevS = 0;
			enum tier_id prev = TIER_INTRA;

			snprintf(text, sizeof(text), "%s, %lu ranks (%lu node%s)",
				 coll_algo_name(r->algos[a]), n, nodes, nodes == 1 ? "" : "s");
			s = plot_add_series(p, text, PS_LINES);
			s->color = (int)i;
			s->dash = a;
			for (j = 0; j <= FIG_POINTS; j++) {
				double S = lo * pow(hi / lo, j / (double)FIG_POINTS);
				struct coll_cost c;
				double t = coll(r, r->algos[a], n, S, &c);

				plot_xy(s, S, t > 0 ? S / t * factor : NAN);
				if (j && c.bound != prev) {
					/* bisect in log S for the size where the bound moves */
					double x0 = prevS, x1 = S, xm;

					for (it = 0; it < 60; it++) {
						xm = sqrt(x0 * x1);
						if (bound_at(r, r->algos[a], n, xm) == prev)
							x0 = xm;
						else
							x1 = xm;
					}
					fig_size_text(sz, sizeof(sz), x1);
					snprintf(text, sizeof(text), "%lu ranks: %s-bound from %s",
						 n, tier_name(c.bound), sz);
					t = coll(r, r->algos[a], n, x1, &c);
					plot_add_label(p, x1, x1 / t * factor, text, 1);
				}
				prev = c.bound;
				prevS = S;
			}
		}
	}
	units_fmt_rate(rate, sizeof(rate), sy->intra.beta_line, 4);
	snprintf(text, sizeof(text), "intra line rate %s (%s)", rate, sy->intra.name);
	plot_add_hline(p, sy->intra.beta_line, text);
	if (sy->have_inter && sy->nics_per_node) {
		double node = sy->nics_per_node * sy->inter.beta_line;

		units_fmt_rate(rate, sizeof(rate), node, 4);
		snprintf(text, sizeof(text), "NICs' line rate %u x %s = %s per node",
			 sy->nics_per_node, sy->inter.name, rate);
		plot_add_hline(p, node, text);
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
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

static int run_coll(enum coll_op op, int argc, char **argv, struct ctx *ctx)
{
	struct dlist ranks = { 0 }, sizes = { 0 };
	const char *algo_arg = NULL;
	int explain = 0;
	struct opts_usage usage = { .cmd = colls[op].name, .lines = usage_lines[op],
				    .about = about };
	struct opt options[] = {
		OPT_RANKS_("ranks", &ranks, "rank counts (default 4,8,16,64); e.g. 2:1024:x2"),
		OPT_LIST_("sizes", "LIST", Q_SIZE, &sizes, "message sizes (default 4K,4M,1G); e.g. 8:8G:x2"),
		{ .type = OPT_STRING, .long_name = "algo", .argh = "LIST", .value = &algo_arg,
		  .complete = "ring tree dbtree rd rabenseifner hier pairwise p2p",
		  .help = "algorithms of the model: on a link ring, tree, dbtree, rd,\n"
			  "rabenseifner (all-reduce; default ring,tree), on a system ring,\n"
			  "hier (default both); pairwise for alltoall, p2p for sendrecv" },
		OPT_FLAG_("explain", &explain, "NCCL's model: per rank count and size, the chosen\n"
			  "algorithm and protocol, their terms with sources, the runners-up"),
		OPT_END_()
	};
	enum coll_algo algos[ALGO_COUNT];
	struct run r = { .ctx = ctx, .op = op, .cmd = &colls[op], .algos = algos };
	struct time_unit u;
	double tmin = INFINITY, tmax = 0, tk;
	struct errbuf eb;
	size_t i, j;
	int k;
	struct out *o;

	opt_ranks("--ranks", "4,8,16,64", &ranks, 1);
	opt_list("--sizes", Q_SIZE, "4K,4M,1G", &sizes);
	opts_parse(argc, argv, options, &usage, 0);
	if (algo_arg) {
		r.nalgo = cost_algo_parse_list(&ctx->model, op, algo_arg, algos, &eb);
		if (r.nalgo < 0)
			die_usage("--algo: %s", eb.msg);
	} else {
		r.nalgo = default_algos(&ctx->model, op, &ranks, algos);
		if (r.nalgo == 0)
			die("no algorithm of the %s model runs %s on every rank count asked for; "
			    "name one with --algo", cost_kind_name(ctx->model.kind), colls[op].what);
	}

	/*
	 * Every time once before any output: a run the machine cannot hold
	 * (more nodes than a system without NICs has) fails here, cleanly.
	 * The human table's unit comes from the same pass.  One link holds
	 * any run, and its every model grows with the rank count and the
	 * size: the extremes are at the fewest ranks that communicate with
	 * the smallest size and at the most ranks with the largest, so a
	 * huge table starts at once instead of after a pass over the sweep.
	 */
	if (!ctx->have_system) {
		double nmin = INFINITY, nmax = 0, smin = INFINITY, smax = 0;
		struct coll_cost c;

		for (i = 0; i < ranks.n; i++) {
			if (ranks.v[i] >= 2 && ranks.v[i] < nmin)
				nmin = ranks.v[i];
			if (ranks.v[i] > nmax)
				nmax = ranks.v[i];
		}
		for (j = 0; j < sizes.n; j++) {
			if (sizes.v[j] < smin)
				smin = sizes.v[j];
			if (sizes.v[j] > smax)
				smax = sizes.v[j];
		}
		for (k = 0; k < r.nalgo && ctx->format == FMT_TABLE && isfinite(nmin); k++) {
			tk = coll(&r, algos[k], (unsigned long)nmin, smin, &c);
			if (tk > 0 && tk < tmin)
				tmin = tk;
			tk = coll(&r, algos[k], (unsigned long)nmax, smax, &c);
			if (tk > tmax)
				tmax = tk;
		}
	} else {
		for (i = 0; i < ranks.n; i++)
			for (j = 0; j < (ctx->format == FMT_TABLE ? sizes.n : 1); j++)
				for (k = 0; k < r.nalgo; k++) {
					struct coll_cost c;

					tk = coll(&r, algos[k], (unsigned long)ranks.v[i],
						  ctx->format == FMT_TABLE ? sizes.v[j] : 0, &c);
					if (tk > 0 && tk < tmin)
						tmin = tk;
					if (tk > tmax)
						tmax = tk;
				}
	}
	ctx_time_unit(ctx, tmin, tmax, UNIT_BY_SMALLEST, &u);

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	if (op != OP_ALLREDUCE)
		out_input_str(o, "size", "size", colls[op].size);
	if (!ctx->have_system)
		out_input(o, "n_half_B", "half-bandwidth size n\xc2\xbd = alpha*beta",
			  cost_n_half(1, ctx->model.link.alpha, ctx->model.link.beta, 1), H_SIZE, 4,
			  "below it one link is latency-bound");
	if (ctx->format == FMT_TABLE)
		write_wide(o, &r, &ranks, &sizes, &u);
	else
		write_long(o, &r, &ranks, &sizes);
	if (r.nalgo >= 2)
		write_crossovers(o, ctx, op, &ranks, algos, r.nalgo, 1);
	if (explain)
		for (i = 0; i < ranks.n; i++)
			for (j = 0; j < sizes.n; j++)
				ctx_explain(ctx, o, op, (unsigned long)ranks.v[i], sizes.v[j]);
	if (ctx_wants_figure(ctx)) {
		if (ctx->have_system)
			figure_system(&r, &ranks, &sizes);
		else
			figure_link(&r, &ranks, &sizes);
	}
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	dlist_release(&sizes);
	return 0;
}

int cmd_allreduce(int argc, char **argv, struct ctx *ctx)
{
	return run_coll(OP_ALLREDUCE, argc, argv, ctx);
}

int cmd_allgather(int argc, char **argv, struct ctx *ctx)
{
	return run_coll(OP_ALLGATHER, argc, argv, ctx);
}

int cmd_reducescatter(int argc, char **argv, struct ctx *ctx)
{
	return run_coll(OP_REDUCESCATTER, argc, argv, ctx);
}

int cmd_alltoall(int argc, char **argv, struct ctx *ctx)
{
	return run_coll(OP_ALLTOALL, argc, argv, ctx);
}

int cmd_broadcast(int argc, char **argv, struct ctx *ctx)
{
	return run_coll(OP_BROADCAST, argc, argv, ctx);
}

int cmd_reduce(int argc, char **argv, struct ctx *ctx)
{
	return run_coll(OP_REDUCE, argc, argv, ctx);
}

int cmd_sendrecv(int argc, char **argv, struct ctx *ctx)
{
	return run_coll(OP_SENDRECV, argc, argv, ctx);
}
