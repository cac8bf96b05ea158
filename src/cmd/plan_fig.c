/*
 * The figure of commtime plan: the busbw curves the first nccl-tests runs
 * should show, and where the compared pair of all-reduce algorithms cross.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* An all-reduce algorithm of the plan as a cost_fn, for crossover_solve. */
struct curve_arg {
	const struct planner *pl;
	enum coll_algo algo;
	unsigned long ranks;
};

static double curve_time(double bytes, const void *arg)
{
	const struct curve_arg *c = arg;

	return plan_predict(c->pl, OP_ALLREDUCE, c->algo, c->ranks, bytes, NULL);
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
/* The figure's title: the ranks, and what predicts. */
static void fig_title(const struct planner *pl, const struct dlist *ranks, char *title,
		      size_t len)
{
	const struct ctx *ctx = pl->ctx;
	char link[160], who[200];

	fig_ranks_text(ctx, ranks, who, sizeof(who));
	if (pl->fm)
		snprintf(title, len, "Expected nccl-tests busbw on %s, regimes fitted in %s",
			 who, ctx->machine.preset.name);
	else if (ctx->machine.have_system)
		snprintf(title, len, "Expected nccl-tests busbw on %s, %s (%s model)",
			 who, ctx->machine.system.name, cost_kind_name(ctx->machine.model.kind));
	else
		snprintf(title, len, "Expected nccl-tests busbw on %s, %s", who,
			 ctx_link_text(ctx, link, sizeof(link)));
}

/* The curves asked for, and the sizes they are drawn at. */
struct fig_curves {
	const enum coll_op *ops;
	size_t nops;
	const enum coll_algo *algos;
	int nalgos;
	const struct dlist *ranks;
	const double *x;          /* CURVE_POINTS sizes, B */
};

/*
 * One curve of op with algo on n ranks (the r-th rank count; suffix names
 * it when there are several): merged into an equal curve drawn before it
 * (from index first), else drawn with, for the model's own choice, its
 * stated error as a band.  *k counts the colours used; *top the highest busbw.
 */
static void fig_curve(struct panel *p, const struct planner *pl, const struct fig_curves *q,
		      enum coll_op op, enum coll_algo algo, size_t r, size_t first,
		      const char *suffix, int *k, double *top)
{
	const struct ctx *ctx = pl->ctx;
	unsigned long n = (unsigned long)q->ranks->v[r];
	struct planner quiet = *pl;   /* the band's cells are the table's to count */
	double factor = busbw_factor(op, n), y[CURVE_POINTS];
	struct plot_series *s;
	char text[160];
	size_t j;

	quiet.cells = NULL;
	for (j = 0; j < CURVE_POINTS; j++) {
		y[j] = q->x[j] / plan_predict(pl, op, algo, n, q->x[j], NULL) * factor;
		if (y[j] > *top)
			*top = y[j];
	}
	if (op == OP_ALLREDUCE && algo == ALGO_AUTO)
		snprintf(text, sizeof(text), "%s (%s's choice)", coll_op_name(op),
			 cost_kind_name(ctx->machine.model.kind));
	else if (op == OP_ALLREDUCE)
		snprintf(text, sizeof(text), "%s %s", coll_op_name(op), coll_algo_name(algo));
	else
		snprintf(text, sizeof(text), "%s", coll_op_name(op));
	s = same_curve(p, first, y);
	if (s) {
		/* "all_reduce ring, 8 ranks" and all_gather make
		 * "all_reduce ring, all_gather, 8 ranks". */
		char both[320];
		size_t len = strlen(s->title), sl = strlen(suffix);
		size_t keep = len >= sl ? len - sl : len;

		snprintf(both, sizeof(both), "%.*s, %s%s", (int)keep, s->title, text, suffix);
		free(s->title);
		s->title = xstrdup(both);
		return;
	}
	strcat(text, suffix);
	/* the stated error of the model's own choice, as the sheet's busbw
	 * low and high columns give it */
	if (algo == ALGO_AUTO && plan_has_errband(pl, op)) {
		char bt[200];
		struct plot_series *band;

		snprintf(bt, sizeof(bt), "stated error of %s", text);
		band = plot_add_series(p, bt, PS_FILL);
		band->color = *k;
		for (j = 0; j < CURVE_POINTS; j++) {
			double t = plan_predict(pl, op, algo, n, q->x[j], NULL), row[3];

			row[0] = q->x[j];
			plan_busbw_band(&quiet, op, n, q->x[j], t, &row[1], &row[2]);
			if (row[2] > *top)
				*top = row[2];
			plot_point(band, row);
		}
	}
	s = plot_add_series(p, text, PS_LINES);
	s->color = (*k)++;
	s->dash = (int)r;
	for (j = 0; j < CURVE_POINTS; j++)
		plot_xy(s, q->x[j], y[j]);
}

/* Every curve: each rank count, each collective, each all-reduce algorithm. */
static void fig_all_curves(struct panel *p, const struct planner *pl, const struct fig_curves *q,
			   double *top)
{
	size_t i, r;
	int a, k;

	for (r = 0; r < q->ranks->n; r++) {
		size_t first = p->nseries;
		char suffix[48] = "";

		k = 0;
		if (q->ranks->n > 1)
			snprintf(suffix, sizeof(suffix), ", %lu ranks", (unsigned long)q->ranks->v[r]);
		for (i = 0; i < q->nops; i++) {
			enum coll_op op = q->ops[i];
			int na = op == OP_ALLREDUCE ? q->nalgos : 1;

			for (a = 0; a < na; a++)
				fig_curve(p, pl, q, op, op == OP_ALLREDUCE ? q->algos[a] :
					  pl->ctx->machine.have_system ? ALGO_AUTO : ALGO_RING, r, first,
					  suffix, &k, top);
		}
	}
}

/*
 * The line rates: the preset's beta_line on a link (returned, NaN when
 * none); on a system the line rates the sheet's inputs name, the link
 * inside the node and the node's NICs when a run leaves it.
 */
static double fig_line_rates(struct panel *p, const struct ctx *ctx, const struct dlist *ranks,
			     double *top)
{
	double line = NAN;
	char text[160], b[32];
	struct errbuf eb;
	size_t r;

	if (ctx->machine.have_preset) {
		int got = preset_get_quantity(&ctx->machine.preset, "beta_line", Q_RATE, &line, &eb);

		if (got < 0)
			die("%s", eb.msg);
		if (got == 0)
			line = NAN;
	}
	if (!isnan(line)) {
		snprintf(text, sizeof(text), "line rate %s (beta_line)", units_fmt_rate(b, sizeof(b), line, 4));
		plot_add_hline(p, line, text);
		if (line > *top)
			*top = line;
	}
	if (ctx->machine.have_system) {
		const struct system *sy = &ctx->machine.system;
		int nodes_max = 1;

		for (r = 0; r < ranks->n; r++)
			if (system_nodes(sy, (unsigned long)ranks->v[r]) > 1)
				nodes_max = 2;
		line = sy->intra.beta_line;
		snprintf(text, sizeof(text), "intra-node line rate %s (%s)",
			 units_fmt_rate(b, sizeof(b), line, 4), sy->intra.name);
		plot_add_hline(p, line, text);
		if (line > *top)
			*top = line;
		if (nodes_max > 1 && sy->have_inter && sy->nics_per_node) {
			double nics = sy->nics_per_node * sy->inter.beta_line;

			snprintf(text, sizeof(text), "NICs' line rate %u x %s = %s per node",
				 sy->nics_per_node, sy->inter.name, units_fmt_rate(b, sizeof(b), nics, 4));
			plot_add_hline(p, nics, text);
			if (nics > *top)
				*top = nics;
		}
	}
	return line;
}

/*
 * Where the curves of the pair drawn cross, for each rank count: the
 * plan's crossover row, unless a fitted preset's regimes bend the ring
 * curve.  Returns the series (NULL when none cross); *at (xmalloc'ed, the
 * caller frees) the rank count of each point.
 */
static struct plot_series *fig_crossings(struct panel *p, const struct planner *pl,
					 const struct fig_curves *q, double lo, double hi,
					 double **at)
{
	struct plot_series *cross = NULL;
	char text[160];
	struct errbuf eb;
	size_t i, r;

	*at = xmalloc(q->ranks->n * sizeof(**at));
	for (i = 0; i < q->nops && q->ops[i] != OP_ALLREDUCE; i++)
		;
	for (r = 0; i < q->nops && r < q->ranks->n; r++) {
		unsigned long n = (unsigned long)q->ranks->v[r];
		struct crossing c;
		struct curve_arg ring = { .pl = pl, .algo = pl->cross_a, .ranks = n };
		struct curve_arg tree = { .pl = pl, .algo = pl->cross_b, .ranks = n };

		if (crossover_solve(curve_time, &ring, curve_time, &tree, lo, hi, &c, &eb) < 0 ||
		    c.result != CROSS_FOUND)
			continue;
		if (!cross) {
			snprintf(text, sizeof(text), "%s = %s", coll_algo_name(pl->cross_a),
				 coll_algo_name(pl->cross_b));
			cross = plot_add_series(p, text, PS_POINTS);
			cross->color = 6;
		}
		(*at)[cross->n] = (double)n;
		plot_xy(cross, c.bytes, c.bytes / curve_time(c.bytes, &ring) *
			busbw_factor(OP_ALLREDUCE, n));
	}
	return cross;
}

/*
 * Each crossover's size beside it: right of the point and below it,
 * where a rising curve leaves room; near the right edge, where that text
 * would be cut, left of it and above, over the plateaus.  Widths are
 * estimated at 6.5 pixels a character.
 */
static void fig_cross_labels(const struct figure *f, struct panel *p,
			     const struct plot_series *cross, const double *at, size_t nranks,
			     double lo, double hi)
{
	char text[160], b[32];
	size_t j;

	for (j = 0; cross && j < cross->n; j++) {
		double cx = cross->data[2 * j], cy = cross->data[2 * j + 1];
		double px_per_octave = (f->width - 150) / log2(hi / lo), w;

		/* in the units of the sheet's crossover line */
		units_fmt_size(b, sizeof(b), cx);
		if (nranks > 1)
			snprintf(text, sizeof(text), "%s, %.0f ranks", b, at[j]);
		else
			snprintf(text, sizeof(text), "%s", b);
		w = 6.5 * (double)strlen(text) + 12;
		if (log2(hi / cx) * px_per_octave > w)
			plot_add_label(p, cx, cy, text, 1);
		else
			plot_add_label(p, cx / exp2((w / 2 + 6) / px_per_octave),
				       cy + 0.045 * p->ymax, text, 0);
	}
}

void plan_figure(const struct planner *pl, const enum coll_op *ops, size_t nops,
		 const enum coll_algo *algos, int nalgos, const struct dlist *ranks,
		 const struct dlist *sizes)
{
	const struct ctx *ctx = pl->ctx;
	struct figure f = { 0 };
	struct panel *p;
	double lo = 8, hi = 8.0 * 1073741824, top = 0, line, x[CURVE_POINTS];
	char title[480];
	struct fig_curves q = { .ops = ops, .nops = nops, .algos = algos, .nalgos = nalgos,
				.ranks = ranks, .x = x };
	struct plot_series *cross;
	double *at;
	size_t j;

	if (!ctx->plot && !ctx->render)
		return;
	if (sizes->v[0] < lo)
		lo = sizes->v[0];
	if (sizes->v[sizes->n - 1] > hi)
		hi = sizes->v[sizes->n - 1];
	if (!(lo > 0))
		lo = 1;
	for (j = 0; j < CURVE_POINTS; j++)
		x[j] = plot_log_point(lo, hi, j, CURVE_POINTS - 1);
	fig_title(pl, ranks, title, sizeof(title));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime plan: the busbw curves the first nccl-tests runs should show");
	f.width = 900;
	f.height = 540;
	p = plot_add_busbw_panel(&f, title, "message size", "busbw", lo, hi);
	fig_all_curves(p, pl, &q, &top);
	line = fig_line_rates(p, ctx, ranks, &top);
	cross = fig_crossings(p, pl, &q, lo, hi, &at);
	/*
	 * The key stands top left, over the small sizes where every curve is
	 * near zero; the line rate runs across the whole panel, so it and its
	 * label go below the key: about 3.5 % of the height a line.
	 */
	if (top > 0)
		p->ymax = isnan(line) ? 1.1 * top :
			  top / (1 - 0.035 * (double)(p->nseries + 2) - 0.03);
	fig_cross_labels(&f, p, cross, at, ranks->n, lo, hi);
	free(at);
	ctx_figure(ctx, &f);
	plot_release(&f);
}
