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
void plan_figure(const struct planner *pl, const enum coll_op *ops, size_t nops,
		 const enum coll_algo *algos, int nalgos, const struct dlist *ranks,
		 const struct dlist *sizes)
{
	const struct ctx *ctx = pl->ctx;
	struct figure f = { 0 };
	struct panel *p;
	struct plot_series *s, *cross = NULL;
	double *crossing_ranks;
	double lo = 8, hi = 8.0 * 1073741824, top = 0, line = NAN, x[CURVE_POINTS], y[CURVE_POINTS];
	char title[480], link[160], text[160], b[32], suffix[48], who[200];
	struct planner quiet = *pl;   /* the band's cells are the table's to count */
	int nodes_max = 1;
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
		x[j] = plot_log_point(lo, hi, j, CURVE_POINTS - 1);
	quiet.cells = NULL;
	fig_ranks_text(ctx, ranks, who, sizeof(who));
	if (pl->fm)
		snprintf(title, sizeof(title), "Expected nccl-tests busbw on %s, regimes fitted in %s",
			 who, ctx->preset.name);
	else if (ctx->have_system)
		snprintf(title, sizeof(title), "Expected nccl-tests busbw on %s, %s (%s model)",
			 who, ctx->system.name, cost_kind_name(ctx->model.kind));
	else
		snprintf(title, sizeof(title), "Expected nccl-tests busbw on %s, %s", who,
			 ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime plan: the busbw curves the first nccl-tests runs should show");
	f.width = 900;
	f.height = 540;
	p = plot_add_busbw_panel(&f, title, "message size", "busbw", lo, hi);
	for (r = 0; r < ranks->n; r++) {
		unsigned long n = (unsigned long)ranks->v[r];

		first = p->nseries;
		k = 0;
		suffix[0] = '\0';
		if (ranks->n > 1)
			snprintf(suffix, sizeof(suffix), ", %lu ranks", n);
		for (i = 0; i < nops; i++) {
			enum coll_op op = ops[i];
			double factor = busbw_factor(op, n);
			int na = op == OP_ALLREDUCE ? nalgos : 1;

			for (a = 0; a < na; a++) {
				enum coll_algo algo = op == OP_ALLREDUCE ? algos[a] :
					ctx->have_system ? ALGO_AUTO : ALGO_RING;

				for (j = 0; j < CURVE_POINTS; j++) {
					y[j] = x[j] / plan_predict(pl, op, algo, n, x[j], NULL) * factor;
					if (y[j] > top)
						top = y[j];
				}
				if (op == OP_ALLREDUCE && algo == ALGO_AUTO)
					snprintf(text, sizeof(text), "%s (%s's choice)", coll_op_name(op),
						 cost_kind_name(ctx->model.kind));
				else if (op == OP_ALLREDUCE)
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
				/* the stated error of the model's own choice, as the
				 * sheet's busbw low and high columns give it */
				if (algo == ALGO_AUTO && plan_has_errband(pl, op)) {
					char bt[200];
					struct plot_series *band;

					snprintf(bt, sizeof(bt), "stated error of %s", text);
					band = plot_add_series(p, bt, PS_FILL);
					band->color = k;
					for (j = 0; j < CURVE_POINTS; j++) {
						double t = plan_predict(pl, op, algo, n, x[j], NULL), row[3];

						row[0] = x[j];
						plan_busbw_band(&quiet, op, n, x[j], t, &row[1], &row[2]);
						if (row[2] > top)
							top = row[2];
						plot_point(band, row);
					}
				}
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
	/* on a system the line rates the sheet's inputs name: the link
	 * inside the node, and the node's NICs when a run leaves it */
	if (ctx->have_system) {
		const struct system *sy = &ctx->system;

		for (r = 0; r < ranks->n; r++)
			if (system_nodes(sy, (unsigned long)ranks->v[r]) > 1)
				nodes_max = 2;
		line = sy->intra.beta_line;
		snprintf(text, sizeof(text), "intra-node line rate %s (%s)",
			 units_fmt_rate(b, sizeof(b), line, 4), sy->intra.name);
		plot_add_hline(p, line, text);
		if (line > top)
			top = line;
		if (nodes_max > 1 && sy->have_inter && sy->nics_per_node) {
			double nics = sy->nics_per_node * sy->inter.beta_line;

			snprintf(text, sizeof(text), "NICs' line rate %u x %s = %s per node",
				 sy->nics_per_node, sy->inter.name, units_fmt_rate(b, sizeof(b), nics, 4));
			plot_add_hline(p, nics, text);
			if (nics > top)
				top = nics;
		}
	}

	/*
	 * Where the curves of the pair drawn cross, for each rank count:
	 * the plan's crossover row, unless a fitted preset's regimes bend the
	 * ring curve (the row keeps the link's value).
	 */
	crossing_ranks = xmalloc(ranks->n * sizeof(*crossing_ranks));
	for (i = 0; i < nops && ops[i] != OP_ALLREDUCE; i++)
		;
	for (r = 0; i < nops && r < ranks->n; r++) {
		unsigned long n = (unsigned long)ranks->v[r];
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

		/* in the units of the sheet's crossover line */
		units_fmt_size(b, sizeof(b), cx);
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
