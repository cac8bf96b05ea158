/*
 * The figures of the collective commands (cmd_coll.c): time against
 * message size on a link, bus bandwidth against message size on a
 * system.  Every time comes from cost_coll(), on a dense grid over the
 * sizes asked for (the models are smooth, the list may be three sizes).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "coll_figure.h"
#include "crossover.h"

/* At most FIG_RANKS rank counts per figure, each curve FIG_POINTS + 1 points. */
#define FIG_RANKS 6
#define FIG_POINTS 160

double coll_run_cost(const struct coll_run *r, enum coll_algo a, unsigned long n, double S,
		     struct coll_cost *c)
{
	struct group g = { .ranks = n };
	struct errbuf eb;

	if (r->impl != AR_NCCL) {
		struct ar_cost ac;

		if (serve_ar(&r->ctx->machine.model, &r->ctx->machine.system, r->impl, n, S, &ac, &eb) < 0)
			die("--impl %s on %lu ranks: %s", ar_impl_name(r->impl), n, eb.msg);
		memset(c, 0, sizeof(*c));
		c->time_s = ac.time_s;
		c->algo = ALGO_AUTO;
		c->proto = PROTO_NONE;
		c->bound = TIER_INTRA;
		c->nodes = system_nodes(&r->ctx->machine.system, n);
		return c->time_s;
	}
	if (cost_coll(&r->ctx->machine.model, r->op, a, &g, S, c, &eb) < 0)
		die("%s on %lu ranks: %s", a == ALGO_AUTO ? "nccl" : coll_algo_name(a), n, eb.msg);
	return c->time_s;
}

/* Is index i among FIG_RANKS indices spread evenly over 0..n-1? */
static int shown(size_t i, size_t n)
{
	size_t k;

	for (k = 0; k < FIG_RANKS; k++)
		if (i == k * (n - 1) / (FIG_RANKS - 1))
			return 1;
	return 0;
}

/*
 * More than FIG_RANKS rank counts make a figure nobody can read: draw
 * FIG_RANKS of them, spread evenly over the list, first and last kept;
 * one rank draws nothing.
 */
static int drawn(const struct dlist *ranks, size_t i)
{
	return (ranks->n <= FIG_RANKS || shown(i, ranks->n)) && ranks->v[i] >= 2;
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

/* "All-reduce" from "all-reduce", for titles. */
static const char *capital(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "%c%s", what[0] >= 'a' && what[0] <= 'z' ? what[0] - 32 : what[0],
		 what + 1);
	return buf;
}

/* One algorithm's time on one rank count, as a plot_fn. */
struct curve {
	const struct cost_model *m;
	enum coll_op op;
	enum coll_algo algo;
	unsigned long ranks;
};

static double curve_time(double S, const void *arg)
{
	const struct curve *c = arg;

	return cost_time(c->m, c->op, c->algo, c->ranks, S);
}

/*
 * Mark on p only where the fastest algorithm changes on n ranks: the
 * crossings on the lower envelope, at most one fewer than the algorithms
 * (every pair of five would pile ten labels on each other).  Labels in
 * the right third of the axis go left of their point, and a label near
 * another on the same side to the other side.
 */
static void mark_crossings(struct panel *p, const struct coll_run *r, unsigned long n,
			   double lo, double hi)
{
	const struct cost_model *m = &r->ctx->machine.model;
	char text[160], sz[32];
	int a, b;

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
			if (crossover_coll(m, r->op, r->algos[a], r->algos[b], &g,
					   CROSS_LO, CROSS_HI, &c, &eb) < 0 ||
			    c.result != CROSS_FOUND || c.bytes < lo || c.bytes > hi)
				continue;
			t = cost_time(m, r->op, r->algos[a], n, c.bytes);
			for (k = 0; k < (size_t)r->nalgo; k++)
				if ((int)k != a && (int)k != b &&
				    cost_time(m, r->op, r->algos[k], n, c.bytes) < t * (1 - 1e-9))
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

/*
 * On a link: time against message size for each algorithm and rank
 * count, the crossovers marked and the link's n½ = αβ splitting the
 * latency-bound sizes from the bandwidth-bound ones.
 */
static void figure_link(const struct coll_run *r, const struct dlist *ranks,
			const struct dlist *sizes)
{
	const struct ctx *ctx = r->ctx;
	struct figure f = { 0 };
	struct panel *p;
	double lo, hi;
	double nhalf = ctx_link_n_half(ctx);
	char title[256], link[128], text[160], sz[32], ylabel[64], what[32];
	size_t i;
	int a;

	fig_range(sizes, &lo, &hi);
	snprintf(title, sizeof(title), "%s time, %s", capital(what, sizeof(what), r->what),
		 ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	snprintf(text, sizeof(text), "commtime %s: time of one %s against message size",
		 r->name, r->what);
	f.comment = xstrdup(text);
	snprintf(ylabel, sizeof(ylabel), "time of one %s", r->what);
	p = plot_add_panel(&f, title, r->op == OP_ALLREDUCE ? "message size per rank" :
			   "message size (nccl-tests' size)", ylabel);
	p->xaxis = AX_SIZE;
	p->yaxis = AX_TIME;
	p->logx = p->logy = 1;
	p->xmin = lo;
	p->xmax = hi;
	if (ranks->n > FIG_RANKS)
		warning("the figure shows %d of the %zu rank counts", FIG_RANKS, ranks->n);
	for (i = 0; i < ranks->n; i++) {
		unsigned long n = (unsigned long)ranks->v[i];

		if (!drawn(ranks, i))
			continue;
		for (a = 0; a < r->nalgo; a++) {
			struct curve c = { .m = &ctx->machine.model, .op = r->op, .algo = r->algos[a],
					   .ranks = n };
			struct plot_series *s;

			snprintf(text, sizeof(text), "%s, %lu ranks", coll_algo_name(r->algos[a]), n);
			s = plot_add_series(p, text, PS_LINES);
			s->color = (int)r->algos[a];
			s->dash = (int)(i % 5);
			plot_log_curve(s, lo, hi, FIG_POINTS, curve_time, &c);
		}
		mark_crossings(p, r, n, lo, hi);
	}
	if (nhalf >= lo && nhalf <= hi) {
		fig_size_text(sz, sizeof(sz), nhalf);
		snprintf(text, sizeof(text), "n\xc2\xbd = \xce\xb1\xce\xb2 = %s", sz);
		plot_add_vline(p, nhalf, text, "latency-bound", "bandwidth-bound");
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
}

/* Bus bandwidth of algorithm a on n ranks at S bytes (NaN where nothing moves). */
static double busbw_at(const struct coll_run *r, enum coll_algo a, unsigned long n, double S,
		       struct coll_cost *c)
{
	double t = coll_run_cost(r, a, n, S, c);

	return t > 0 ? S / t * busbw_factor(r->op, n) : NAN;
}

struct bound_probe {
	const struct coll_run *r;
	enum coll_algo algo;
	unsigned long ranks;
	enum tier_id tier;     /* the bound below the change */
	double rate;           /* B/s: the rate one node stays under */
};

static int same_bound(double S, void *arg)
{
	const struct bound_probe *b = arg;
	struct coll_cost c;

	coll_run_cost(b->r, b->algo, b->ranks, S, &c);
	return c.bound == b->tier;
}

static int under_rate(double S, void *arg)
{
	const struct bound_probe *b = arg;
	struct coll_cost c;

	return !(busbw_at(b->r, b->algo, b->ranks, S, &c) >= b->rate);
}

/*
 * The size where the NICs start to bound a run that spans nodes: the
 * smallest size at which one full node's bus bandwidth reaches the
 * node's NICs' line rate.  Below it even one node moves less than the
 * NICs carry (latency and the intra-node link decide); above it a run
 * that leaves the node is held by the NICs.  NaN when that does not
 * happen between lo and hi.
 */
static double nic_bound_size(const struct coll_run *r, enum coll_algo a, double rate,
			     double lo, double hi)
{
	struct bound_probe b = { .r = r, .algo = a, .rate = rate,
				 .ranks = r->ctx->machine.system.gpus_per_node };
	size_t j;

	if (b.ranks < 2 || !under_rate(lo, &b))
		return NAN;
	for (j = 1; j <= FIG_POINTS; j++) {
		double S = plot_log_point(lo, hi, j, FIG_POINTS);

		if (!under_rate(S, &b)) {
			double x0 = plot_log_point(lo, hi, j - 1, FIG_POINTS), x1 = S;

			bisect_log(&x0, &x1, 1e-12, under_rate, &b);
			return x1;
		}
	}
	return NAN;
}

/* Where the curves' bounds change tier: n pairs x, y. */
struct tier_moves {
	double *xy;
	size_t n;
};

/* The panel of a system figure, under its title and comment. */
static struct panel *system_panel(struct figure *f, const struct coll_run *r,
				  const struct dlist *ranks, double lo, double hi)
{
	const struct ctx *ctx = r->ctx;
	const struct system *sy = &ctx->machine.system;
	struct panel *p;
	char title[480], text[200], what[32], link[128], who[200];

	fig_ranks_text(ctx, ranks, who, sizeof(who));
	snprintf(title, sizeof(title), "%s bus bandwidth on %s, %s",
		 capital(what, sizeof(what), r->what), who, ctx_link_text(ctx, link, sizeof(link)));
	f->title = xstrdup(title);
	snprintf(text, sizeof(text), "commtime --system %s %s: busbw against message size "
		 "per node count", sy->name, r->name);
	f->comment = xstrdup(text);
	p = plot_add_busbw_panel(f, title, "message size (nccl-tests' size)", "bus bandwidth",
				 lo, hi);
	/*
	 * Small sizes move little: the curves start along the bottom, so the
	 * key sits left of the middle and the line rates are named at their
	 * left end, above the curves, with room above the highest of them.
	 */
	p->key = xstrdup("left center");
	p->hline_text_left = 1;
	return p;
}

/*
 * The bus bandwidth of algorithm a on n ranks as series s, from lo to hi;
 * where its bound changes tier goes into mv, and *ymax rises to its top.
 */
static void busbw_curve(struct plot_series *s, const struct coll_run *r, int a,
			unsigned long n, double lo, double hi, struct tier_moves *mv,
			double *ymax)
{
	struct bound_probe b = { .r = r, .algo = r->algos[a], .ranks = n };
	double prevS = 0;
	size_t j;

	for (j = 0; j <= FIG_POINTS; j++) {
		double S = plot_log_point(lo, hi, j, FIG_POINTS);
		struct coll_cost c;
		double y = busbw_at(r, r->algos[a], n, S, &c);

		plot_xy(s, S, y);
		*ymax = y > *ymax ? y : *ymax;
		if (j && c.bound != b.tier) {
			double x0 = prevS, x = S;

			bisect_log(&x0, &x, 1e-12, same_bound, &b);

			mv->xy = xrealloc(mv->xy, (mv->n + 1) * 2 * sizeof(*mv->xy));
			mv->xy[2 * mv->n] = x;
			mv->xy[2 * mv->n++ + 1] = busbw_at(r, r->algos[a], n, x, &c);
		}
		b.tier = c.bound;
		prevS = S;
	}
}

/*
 * One curve per rank count drawn and algorithm, told apart by colour and
 * dash; where their bounds change tier goes into mv, and *ymax rises to
 * the top of the highest.
 */
static void busbw_curves(struct panel *p, const struct coll_run *r,
			 const struct dlist *ranks, double lo, double hi,
			 struct tier_moves *mv, double *ymax)
{
	const struct system *sy = &r->ctx->machine.system;
	char text[200];
	size_t i, shown_i = (size_t)-1;
	int a, k = 0;

	for (i = 0; i < ranks->n; i++) {
		unsigned long n = (unsigned long)ranks->v[i];
		unsigned long nodes = system_nodes(sy, n);

		if (!drawn(ranks, i))
			continue;
		shown_i++;
		for (a = 0; a < r->nalgo; a++, k++) {
			struct plot_series *s;

			if (r->nalgo == 1 && r->algos[0] == ALGO_AUTO)
				snprintf(text, sizeof(text), "%lu ranks, %lu node%s", n, nodes,
					 nodes == 1 ? "" : "s");
			else
				snprintf(text, sizeof(text), "%s, %lu ranks, %lu node%s",
					 coll_algo_name(r->algos[a]), n, nodes, nodes == 1 ? "" : "s");
			s = plot_add_series(p, text, PS_LINES);
			/* one algorithm: each curve its own colour and dash; several:
			 * a colour per rank count, a dash per algorithm */
			s->color = r->nalgo == 1 ? k : (int)shown_i;
			s->dash = r->nalgo == 1 ? k : a;
			busbw_curve(s, r, a, n, lo, hi, mv, ymax);
		}
	}
}

/*
 * The line rates of both tiers, and, when no curve's bound changed tier
 * (moved is 0), the size from which the NICs bound a run across nodes;
 * *ymax rises to the NICs' rate.
 */
static void line_rates(struct panel *p, const struct coll_run *r, size_t moved,
		       double lo, double hi, double *ymax)
{
	const struct system *sy = &r->ctx->machine.system;
	enum coll_algo one = r->nalgo == 1 ? r->algos[0] : ALGO_AUTO;
	char text[200], sz[32], rate[32];

	units_fmt_rate(rate, sizeof(rate), sy->intra.beta_line, 4);
	snprintf(text, sizeof(text), "intra-node line rate %s (%s)", rate, sy->intra.name);
	plot_add_hline(p, sy->intra.beta_line, text);
	if (sy->have_inter && sy->nics_per_node) {
		double nics, x;

		nics = sy->nics_per_node * sy->inter.beta_line;
		units_fmt_rate(rate, sizeof(rate), nics, 4);
		snprintf(text, sizeof(text), "NICs' line rate %u x %s = %s per node",
			 sy->nics_per_node, sy->inter.name, rate);
		plot_add_hline(p, nics, text);
		*ymax = nics > *ymax ? nics : *ymax;
		x = moved ? NAN : nic_bound_size(r, one, nics, lo, hi);
		if (isfinite(x)) {
			fig_size_text(sz, sizeof(sz), x);
			snprintf(text, sizeof(text), "NICs bound from %s", sz);
			plot_add_vline(p, x, text, "intra-bound", "inter-bound across nodes");
		}
	}
}

/*
 * On a system: bus bandwidth against message size, one curve per rank
 * count (so per node count) and algorithm, told apart by colour and dash;
 * the line rates of both tiers drawn; on a curve whose bound moves from
 * one tier to the other (the tiers model), a point where it does, else a
 * vertical line at the size from which the NICs bound a run across nodes.
 */
static void figure_system(const struct coll_run *r, const struct dlist *ranks,
			  const struct dlist *sizes)
{
	const struct ctx *ctx = r->ctx;
	struct figure f = { 0 };
	struct panel *p;
	double lo, hi, ymax = ctx->machine.system.intra.beta_line;
	struct tier_moves mv = { NULL, 0 };
	size_t j;

	fig_range(sizes, &lo, &hi);
	p = system_panel(&f, r, ranks, lo, hi);
	if (ranks->n > FIG_RANKS)
		warning("the figure shows %d of the %zu rank counts", FIG_RANKS, ranks->n);
	busbw_curves(p, r, ranks, lo, hi, &mv, &ymax);
	/*
	 * Where the model itself says the bound changes tier along a curve
	 * (the tiers model: the bound column), the points show it; NCCL's
	 * model bounds a run by its node count alone, and then the line
	 * below marks the size from which the NICs hold a run across nodes.
	 */
	if (mv.n) {
		struct plot_series *s = plot_add_series(p, "where the bound changes tier",
							PS_POINTS);

		s->color = 6;   /* black */
		for (j = 0; j < mv.n; j++)
			plot_xy(s, mv.xy[2 * j], mv.xy[2 * j + 1]);
	}
	free(mv.xy);
	line_rates(p, r, mv.n, lo, hi, &ymax);
	p->ymax = 1.15 * ymax;
	ctx_figure(ctx, &f);
	plot_release(&f);
}

void coll_figure(const struct coll_run *r, const struct dlist *ranks,
		 const struct dlist *sizes)
{
	if (r->ctx->machine.have_system)
		figure_system(r, ranks, sizes);
	else
		figure_link(r, ranks, sizes);
}
