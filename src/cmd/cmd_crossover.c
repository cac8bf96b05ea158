/*
 * commtime crossover: for each rank count, the message size where two
 * all-reduce algorithms take equal time (GSL's Brent solver on the
 * difference of their costs), or which one wins at every size.  Every
 * time comes from the one cost core, cost_coll(): on a link the seed's
 * algorithms, on a system the model's own (NCCL's ring and tree by
 * default; the tiers model's ring and hier), each named with what it
 * means in that model.
 */
#include <math.h>
#include <stdio.h>

#include "cli.h"
#include "crossover.h"

static const char *const usage_lines[] = { "commtime [global options] crossover [options]", NULL };
static const struct opts_usage usage = {
	.cmd = "crossover",
	.lines = usage_lines,
	.about = "For each rank count, the message size where two all-reduce algorithms take\n"
		 "equal time, searched over [1 B, 1 PiB]; where one algorithm is faster at\n"
		 "every size, says so instead of inventing a number.  On a system the\n"
		 "algorithms are the model's (NCCL's ring and tree, or the tiers model's\n"
		 "ring and hier) and the header says what each one is.\n",
};

/*
 * Shade rank count i's column either side of the crossing c of algorithms
 * a and b: below takes the sizes under it, above those over it.
 */
static void shade_column(struct plot_series *below, struct plot_series *above,
			 const struct dlist *ranks, size_t i, const struct crossing *c,
			 enum coll_algo a, enum coll_algo b)
{
	const double ylo = 1, yhi = CROSS_HI;
	unsigned long n = (unsigned long)ranks->v[i];
	double edge;

	/* where one always wins its region fills the column */
	if (c->result == CROSS_FOUND)
		edge = c->bytes;
	else
		edge = c->result == CROSS_A_ALWAYS ? ylo : yhi;
	if (c->result == CROSS_FOUND && c->below == 0) {
		/* a wins below: swap the shading's meaning */
		below->color = (int)a;
		above->color = (int)b;
	}
	/*
	 * Each rank count fills its own column, from halfway (on the log
	 * axis) to the previous count to halfway to the next: steps, not
	 * slopes between counts where the winner changes.
	 */
	{
		double x0 = i > 0 ? sqrt(ranks->v[i - 1] * n) : (double)n;
		double x1 = i + 1 < ranks->n ? sqrt(ranks->v[i + 1] * n) : (double)n;
		double low0[3] = { x0, ylo, edge }, low1[3] = { x1, ylo, edge };
		double high0[3] = { x0, edge, yhi }, high1[3] = { x1, edge, yhi };

		plot_point(below, low0);
		plot_point(below, low1);
		plot_point(above, high0);
		plot_point(above, high1);
	}
}

/*
 * The crossover sizes of algos[a] and algos[b] against rank count, the
 * npair-th curve on p; with two algorithms only, their sides shaded.
 */
static void pair_curve(const struct ctx *ctx, struct panel *p, const struct dlist *ranks,
		       const enum coll_algo *algos, int nalgo, int a, int b, int npair)
{
	struct plot_series *s, *below = NULL, *above = NULL;
	const char *na = coll_algo_name(algos[a]), *nb = coll_algo_name(algos[b]);
	char text[160];
	int shade = nalgo == 2;
	size_t i;

	if (shade) {
		/* the sides take the colours of their algorithms */
		snprintf(text, sizeof(text), "%s faster", nb);
		below = plot_add_series(p, text, PS_FILL);
		below->color = (int)algos[b];
		snprintf(text, sizeof(text), "%s faster", na);
		above = plot_add_series(p, text, PS_FILL);
		above->color = (int)algos[a];
	}
	snprintf(text, sizeof(text), "%s = %s", na, nb);
	s = plot_add_series(p, text, PS_LINESPOINTS);
	/* one pair: black between the two colours; several: one colour each */
	s->color = shade ? 6 : npair % 7;
	s->dash = shade ? 0 : npair / 7;
	/* adding a series may move the others */
	if (shade) {
		below = s - 2;
		above = s - 1;
	}
	for (i = 0; i < ranks->n; i++) {
		unsigned long n = (unsigned long)ranks->v[i];
		struct group g = { .ranks = n };
		struct crossing c;
		struct errbuf eb;

		if (crossover_coll(&ctx->machine.model, OP_ALLREDUCE, algos[a], algos[b], &g,
				   CROSS_LO, CROSS_HI, &c, &eb) < 0)
			die("%lu ranks: %s", n, eb.msg);
		if (c.result == CROSS_FOUND)
			plot_xy(s, (double)n, c.bytes);
		if (shade)
			shade_column(below, above, ranks, i, &c, algos[a], algos[b]);
	}
}

/* The y range follows the curves, not the shading's far edges. */
static void curves_y_range(struct panel *p)
{
	double lo = INFINITY, hi = 0;
	size_t i;

	for (i = 0; i < p->nseries; i++) {
		size_t k;

		if (p->series[i].style != PS_LINESPOINTS)
			continue;
		for (k = 0; k < p->series[i].n; k++) {
			double y = p->series[i].data[2 * k + 1];

			lo = y < lo ? y : lo;
			hi = y > hi ? y : hi;
		}
	}
	if (lo <= hi) {
		p->ymin = lo / 8 < 1 ? 1 : lo / 8;
		p->ymax = hi * 8;
	}
}

/*
 * The figure: crossover size against rank count for each pair.  For one
 * pair the two sides are shaded: below the curve the faster-below
 * algorithm wins, above it the other — the map NCCL's choice follows.
 */
static void figure_crossover(const struct ctx *ctx, const struct dlist *ranks,
			     const enum coll_algo *algos, int nalgo)
{
	struct figure f = { 0 };
	struct panel *p;
	char title[256], link[128];
	int a, b, npair = 0;

	snprintf(title, sizeof(title), "All-reduce crossover size, %s",
		 ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime crossover: the size where two all-reduce algorithms take equal time");
	p = plot_add_panel(&f, title, "ranks", "crossover message size");
	p->xaxis = AX_PLAIN;
	p->yaxis = AX_SIZE;
	p->logx = p->logy = 1;
	p->key = xstrdup("top left");
	for (a = 0; a < nalgo; a++)
		for (b = a + 1; b < nalgo; b++)
			pair_curve(ctx, p, ranks, algos, nalgo, a, b, npair++);
	curves_y_range(p);
	ctx_figure(ctx, &f);
	plot_release(&f);
}

/*
 * Ask the model once for every rank count and algorithm before anything
 * is printed: a pair the model cannot run there (NCCL's NVLSTree on one
 * node, a system without NICs asked for two nodes) fails cleanly, not
 * after half a table.
 */
static void check_runs(const struct ctx *ctx, const struct dlist *ranks,
		       const struct algo_set *algos)
{
	size_t i;
	int k;

	for (i = 0; i < ranks->n; i++)
		for (k = 0; k < algos->n; k++) {
			struct group g = { .ranks = (unsigned long)ranks->v[i] };
			struct coll_cost c;
			struct errbuf eb;

			if (cost_coll(&ctx->machine.model, OP_ALLREDUCE, algos->v[k], &g, 1, &c, &eb) < 0)
				die("%lu ranks, %s: %s", g.ranks, coll_algo_name(algos->v[k]),
				    eb.msg);
		}
}

int cmd_crossover(int argc, char **argv, struct ctx *ctx)
{
	struct dlist ranks = { 0 };
	struct algo_set algos = { .v = { ALGO_RING, ALGO_TREE }, .n = 2 };
	struct opt options[] = {
		OPT_RANKS_("ranks", &ranks, "rank counts (default 2:1024:x2)"),
		{ .type = OPT_CALLBACK, .long_name = "algo", .argh = "A,B", .value = &algos,
		  .cb = opt_cb_algos, .arg = ctx_algo_model(ctx), .complete = "ring tree dbtree rd rabenseifner hier hierhd nvls nvlstree",
		  .help = "the algorithms to compare (default ring,tree; the tiers\n"
			  "model: ring,hier); with more than two, every pair" },
		OPT_END_()
	};
	struct out *o;
	size_t i;

	opt_ranks("--ranks", "2:1024:x2", &ranks, 1);
	opts_parse(argc, argv, options, &usage, 0);
	if (!opts_given(options, "algo") && ctx->machine.model.kind == COST_TIERS)
		algos = (struct algo_set){ .v = { ALGO_RING, ALGO_HIER }, .n = 2 };
	if (algos.n < 2)
		die_usage("--algo: need two algorithms to compare, got '%s'",
			  opts_given(options, "algo"));
	ctx_check_ranks(ctx, &ranks);
	check_runs(ctx, &ranks, &algos);

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	if (ctx->machine.have_system) {
		/* which ring and which tree: the names belong to the model */
		for (i = 0; i < (size_t)algos.n; i++)
			out_input_str(o, coll_algo_name(algos.v[i]), coll_algo_name(algos.v[i]),
				      cost_algo_describe(&ctx->machine.model, algos.v[i]));
	} else {
		/* the link's n½: one transfer (a = b = 1), αβ */
		out_input(o, "n_half_B", "half-bandwidth size n\xc2\xbd = alpha*beta",
			  ctx_link_n_half(ctx), H_SIZE, 4,
			  "below it one link is latency-bound");
	}
	write_crossovers(o, ctx, OP_ALLREDUCE, &ranks, algos.v, algos.n, 0);
	if (ctx_wants_figure(ctx))
		figure_crossover(ctx, &ranks, algos.v, algos.n);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	return 0;
}
