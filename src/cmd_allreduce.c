/*
 * commtime allreduce: the time of one all-reduce per rank count, message
 * size and algorithm; the fastest algorithm; the crossover sizes.
 * The default command, and the seed's first table.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "crossover.h"

static const char *const usage_lines[] = {
	"commtime [global options] [allreduce] [options]", NULL
};
static const struct opts_usage usage = {
	.cmd = "allreduce",
	.lines = usage_lines,
	.about = "Time of one all-reduce per rank count, message size and algorithm, with\n"
		 "algbw and busbw as nccl-tests defines them, the fastest algorithm, and the\n"
		 "message sizes where one algorithm overtakes another.\n",
};

/* Machine-readable rows: one per rank count, size and algorithm. */
static const struct column long_cols[] = {
	{ "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "size_B", "size", COL_NUM, H_SIZE, 0, NULL, 0, 0, COL_ALL },
	{ "algo", "algo", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "time_s", "time", COL_NUM, H_TIME, 0, NULL, 4, 0, COL_ALL },
	{ "algbw_Bps", "algbw", COL_NUM, H_RATE, 0, NULL, 4, 0, COL_ALL },
	{ "busbw_Bps", "busbw", COL_NUM, H_RATE, 0, NULL, 4, 0, COL_ALL },
};

/* The human table: one row per rank count and size, one column per algorithm. */
static void write_wide(struct out *o, const struct ctx *ctx, const struct dlist *ranks,
		       const struct dlist *sizes, const enum coll_algo *algos, int nalgo,
		       const struct time_unit *u)
{
	struct column cols[2 + ALGO_COUNT + 1];
	struct cell cells[2 + ALGO_COUNT + 1];
	struct table t = { "allreduce", "all-reduce time per rank count and message size",
			   cols, 0, 0 };
	size_t i, j;
	int k, nc = 0;

	cols[nc++] = (struct column){ "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL };
	cols[nc++] = (struct column){ "size_B", "size", COL_NUM, H_SIZE, 0, NULL, 0, 9, COL_ALL };
	for (k = 0; k < nalgo; k++)
		cols[nc++] = (struct column){ coll_algo_name(algos[k]), coll_algo_name(algos[k]),
					      COL_NUM, H_FIXED, u->scale, u->suffix, u->prec, 12,
					      COL_ALL };
	cols[nc++] = (struct column){ "faster", "faster", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL };
	t.ncols = (size_t)nc;

	out_table_begin(o, &t);
	for (i = 0; i < ranks->n && !out_failed(o); i++)
		for (j = 0; j < sizes->n; j++) {
			unsigned long n = (unsigned long)ranks->v[i];
			double best = INFINITY;
			int b = -1, tie = 0;

			cells[0] = (struct cell){ NULL, ranks->v[i] };
			cells[1] = (struct cell){ NULL, sizes->v[j] };
			for (k = 0; k < nalgo; k++) {
				double tk = ar_time(algos[k], &ctx->model.link, n, sizes->v[j]);

				cells[2 + k] = (struct cell){ NULL, tk };
				if (tk < best) {
					best = tk;
					b = k;
					tie = 0;
				} else if (tk == best) {
					tie = 1;
				}
			}
			cells[2 + nalgo] = (struct cell){
				n <= 1 ? "none (1 rank)" : tie ? "tie" : coll_algo_name(algos[b]), 0 };
			out_row(o, cells);
		}
	out_table_end(o);
}

/* CSV and JSON: one row per rank count, size and algorithm, streamed. */
static void write_long(struct out *o, const struct ctx *ctx, const struct dlist *ranks,
		       const struct dlist *sizes, const enum coll_algo *algos, int nalgo)
{
	struct table t = { "allreduce", NULL, long_cols,
			   sizeof(long_cols) / sizeof(long_cols[0]), 0 };
	struct cell cells[6];
	size_t i, j;
	int k;

	out_table_begin(o, &t);
	/* After a write error the rows are lost: stop the sweep early. */
	for (i = 0; i < ranks->n && !out_failed(o); i++) {
		unsigned long n = (unsigned long)ranks->v[i];
		double factor = busbw_factor(OP_ALLREDUCE, n);

		cells[0] = (struct cell){ NULL, ranks->v[i] };
		for (j = 0; j < sizes->n; j++) {
			cells[1] = (struct cell){ NULL, sizes->v[j] };
			for (k = 0; k < nalgo; k++) {
				double tk = ar_time(algos[k], &ctx->model.link, n, sizes->v[j]);
				/* one rank moves nothing: no bandwidth to speak of */
				double algbw = tk > 0 ? sizes->v[j] / tk : NAN;

				cells[2] = (struct cell){ coll_algo_name(algos[k]), 0 };
				cells[3] = (struct cell){ NULL, tk };
				cells[4] = (struct cell){ NULL, algbw };
				cells[5] = (struct cell){ NULL, algbw * factor };
				out_row(o, cells);
			}
		}
	}
	out_table_end(o);
}

/*
 * The figure: time against message size for each algorithm and rank
 * count, on a dense grid over the sizes asked for (the models are smooth,
 * the list may be three sizes), with the crossovers marked and n½ = αβ
 * splitting the latency-bound sizes from the bandwidth-bound ones.
 */
#define FIG_RANKS 6

/* Is index i among FIG_RANKS indices spread evenly over 0..n-1? */
static int shown(size_t i, size_t n)
{
	size_t k;

	for (k = 0; k < FIG_RANKS; k++)
		if (i == k * (n - 1) / (FIG_RANKS - 1))
			return 1;
	return 0;
}

static void figure_allreduce(const struct ctx *ctx, const struct dlist *ranks,
			     const struct dlist *sizes, const enum coll_algo *algos, int nalgo)
{
	struct figure f = { 0 };
	struct panel *p;
	double lo = INFINITY, hi = 0, nhalf = ctx->model.link.alpha * ctx->model.link.beta;
	char title[256], link[128], text[160], sz[32];
	size_t i, j;
	int a, b;

	for (j = 0; j < sizes->n; j++) {
		if (sizes->v[j] > 0 && sizes->v[j] < lo)
			lo = sizes->v[j];
		if (sizes->v[j] > hi)
			hi = sizes->v[j];
	}
	if (!(lo <= hi))
		lo = 1, hi = 1 << 30;
	/* Fewer than three decades says little: widen around the sizes. */
	if (hi / lo < 1024) {
		lo = lo / 32 < 1 ? 1 : lo / 32;
		hi *= 32;
	}
	snprintf(title, sizeof(title), "All-reduce time, %s", ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime allreduce: time of one all-reduce against message size");
	p = plot_add_panel(&f, title, "message size per rank", "time of one all-reduce");
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

		if (ranks->n > FIG_RANKS && !shown(i, ranks->n))
			continue;
		if (n < 2)
			continue;
		for (a = 0; a < nalgo; a++) {
			struct plot_series *s;

			snprintf(text, sizeof(text), "%s, %lu ranks", coll_algo_name(algos[a]), n);
			s = plot_add_series(p, text, PS_LINES);
			s->color = (int)algos[a];
			s->dash = (int)(i % 5);
			for (j = 0; j <= 160; j++) {
				double S = lo * pow(hi / lo, j / 160.0);

				plot_xy(s, S, ar_time(algos[a], &ctx->model.link, n, S));
			}
		}
		for (a = 0; a < nalgo; a++)
			for (b = a + 1; b < nalgo; b++) {
				struct crossing c;
				struct errbuf eb;

				/* Solved over the bracket of the crossover table, so the
				 * figure marks the very sizes the table prints. */
				if (crossover_allreduce(algos[a], algos[b], &ctx->model.link, n, CROSS_LO,
							CROSS_HI, &c, &eb) < 0 ||
				    c.result != CROSS_FOUND || c.bytes < lo || c.bytes > hi)
					continue;
				units_fmt_size(sz, sizeof(sz), c.bytes);
				snprintf(text, sizeof(text), "%s/%s %lu: %s", coll_algo_name(algos[a]),
					 coll_algo_name(algos[b]), n, sz);
				plot_add_label(p, c.bytes, ar_time(algos[a], &ctx->model.link, n, c.bytes),
					       text, 1);
			}
	}
	if (nhalf >= lo && nhalf <= hi) {
		units_fmt_size(sz, sizeof(sz), nhalf);
		snprintf(text, sizeof(text), "n\xc2\xbd = \xce\xb1\xce\xb2 = %s", sz);
		plot_add_vline(p, nhalf, text, "latency-bound", "bandwidth-bound");
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
}

int cmd_allreduce(int argc, char **argv, struct ctx *ctx)
{
	struct dlist ranks = { 0 }, sizes = { 0 };
	struct algo_set algos = { .v = { ALGO_RING, ALGO_TREE }, .n = 2 };
	struct opt options[] = {
		OPT_RANKS_("ranks", &ranks, "rank counts (default 4,8,16,64); e.g. 2:1024:x2"),
		OPT_LIST_("sizes", "LIST", Q_SIZE, &sizes, "message sizes (default 4K,4M,1G); e.g. 8:8G:x2"),
		{ .type = OPT_CALLBACK, .long_name = "algo", .argh = "LIST", .value = &algos,
		  .cb = opt_cb_algos, .complete = "ring tree dbtree rd rabenseifner",
		  .help = "ring, tree, dbtree, rd, rabenseifner (default ring,tree)" },
		OPT_END_()
	};
	enum coll_algo *al = algos.v;
	struct time_unit u;
	double tmin = INFINITY, tmax = 0, tk;
	size_t i, j;
	int k;
	struct out *o;

	opt_ranks("--ranks", "4,8,16,64", &ranks, 1);
	opt_list("--sizes", Q_SIZE, "4K,4M,1G", &sizes);
	opts_parse(argc, argv, options, &usage, 0);

	/* the human table's unit; CSV and JSON carry seconds */
	for (i = 0; i < ranks.n && ctx->format == FMT_TABLE; i++)
		for (j = 0; j < sizes.n; j++)
			for (k = 0; k < algos.n; k++) {
				tk = ar_time(al[k], &ctx->model.link, (unsigned long)ranks.v[i], sizes.v[j]);
				if (tk > 0 && tk < tmin)
					tmin = tk;
				if (tk > tmax)
					tmax = tk;
			}
	ctx_time_unit(ctx, tmin, tmax, UNIT_BY_SMALLEST, &u);

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	out_input(o, "n_half_B", "half-bandwidth size n\xc2\xbd = alpha*beta",
		  ctx->model.link.alpha * ctx->model.link.beta, H_SIZE, 4,
		  "below it one link is latency-bound");
	if (ctx->format == FMT_TABLE)
		write_wide(o, ctx, &ranks, &sizes, al, algos.n, &u);
	else
		write_long(o, ctx, &ranks, &sizes, al, algos.n);
	if (algos.n >= 2)
		write_crossovers(o, ctx, &ranks, al, algos.n, 1);
	if (ctx_wants_figure(ctx))
		figure_allreduce(ctx, &ranks, &sizes, al, algos.n);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	dlist_release(&sizes);
	return 0;
}
