/*
 * Fitting the α-β model and the regime model to measurements, and
 * predicting with a fitted model; saving it as a link preset and reading
 * it back is src/fit_preset.c.  The mathematics is in models/fit.md; this
 * file keeps to the numerics.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "bisect.h"
#include "fit.h"
#include "outfile.h"
#include "units.h"

int fit_link_coeffs(enum coll_op op, enum coll_algo algo, unsigned long ranks,
		    struct link_coeffs *c, struct errbuf *eb)
{
	struct cost_model m;
	const struct link unit = { 1, 1, 0 };

	if (op != OP_ALLREDUCE && algo != ALGO_RING)
		return errbuf_set(eb, "algorithm '%s' is modelled for all_reduce only; "
				  "%s uses ring", coll_algo_name(algo), coll_op_name(op));
	if (ranks < 2)
		return errbuf_set(eb, "%lu rank moves no data; need at least 2 ranks", ranks);
	/* A collective other than all-reduce has its own single-link algorithm. */
	cost_model_link(&m, &unit);
	if (op != OP_ALLREDUCE)
		algo = cost_algo_default(&m, op);
	return cost_link_coeffs(op, algo, ranks, c, eb);
}

/* ---- least squares on relative error ---- */

struct lsq {
	double alpha, u;        /* s per step, s/B (u = 1/β) */
	double var_alpha, var_u;/* variances, NaN if not known */
	double rss;             /* sum of squared relative residuals */
};

/*
 * off (s) is a time every row pays besides the model's a·α + b·S/β: the
 * per-call base latency once it has been set apart (fit_model_fit).
 */
static double S_rss(const double *S, const double *T, size_t n,
		    const struct link_coeffs *c, double off, double alpha, double u)
{
	double rss = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double r = (off + c->a * alpha + c->b * S[i] * u) / T[i] - 1;

		rss += r * r;
	}
	return rss;
}

/*
 * One parameter: minimise Σ(p·x_i - y_i)^2 over p with x_i = a/T_i (α) or
 * b·S_i/T_i (u) and y_i = 1 - off/T_i; p = Σxy/Σx², variance s²/Σx².
 */
static void S_one(const double *S, const double *T, size_t n,
		  const struct link_coeffs *c, double off, int which, struct lsq *f)
{
	double sx = 0, sxx = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		double x = which == 0 ? c->a / T[i] : c->b * S[i] / T[i];

		sx += x * (1 - off / T[i]);
		sxx += x * x;
	}
	f->alpha = f->u = 0;
	f->var_alpha = f->var_u = NAN;
	if (sxx > 0) {
		if (which == 0)
			f->alpha = sx / sxx;
		else
			f->u = sx / sxx;
	}
	if (f->alpha < 0)
		f->alpha = 0;
	if (f->u < 0)
		f->u = 0;
	f->rss = S_rss(S, T, n, c, off, f->alpha, f->u);
	if (n > 1 && sxx > 0) {
		double v = f->rss / (double)(n - 1) / sxx;

		if (which == 0)
			f->var_alpha = v;
		else
			f->var_u = v;
	}
}

#define ROBUST_K 1e6

/* p and its covariance cov from y = X p: bisquare-robust when asked and n >= 4; a GSL status. */
static int S_solve(gsl_matrix *X, gsl_vector *y, gsl_vector *p, gsl_matrix *cov, size_t n, int robust)
{
	double chisq = 0;
	int st;

	if (robust && n >= 4) {
		gsl_multifit_robust_workspace *w =
			gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, n, 2);

		/*
		 * GSL bounds the residual scale of its weights below by 1e-6
		 * times the spread of y, and by 1 when y is constant, as it is
		 * here; residuals of relative error are far below 1, so the
		 * bound would keep every weight near 1.  Scaling rows by ROBUST_K
		 * leaves the solution and covariance as they are and puts the
		 * bound at a relative error of 1/ROBUST_K.
		 */
		gsl_matrix_scale(X, ROBUST_K);
		gsl_vector_scale(y, ROBUST_K);
		st = gsl_multifit_robust(X, y, p, cov, w);
		gsl_multifit_robust_free(w);
		/* Not converging in the iteration limit still leaves an estimate. */
		if (st == GSL_EMAXITER)
			st = 0;
	} else {
		gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, 2);

		st = gsl_multifit_linear(X, y, p, cov, &chisq, w);
		gsl_multifit_linear_free(w);
	}
	return st;
}

/*
 * Two parameters (α, u) by GSL on the rows divided by T_i, columns scaled
 * to unit maximum first (a and b·S differ by up to ten orders of
 * magnitude).  Robust: bisquare weights, when n >= 4.  Negative
 * parameters fall back to the better one-parameter fit.
 */
static int S_lsq(const double *S, const double *T, size_t n, const struct link_coeffs *c,
		 double off, int robust, struct lsq *f, struct errbuf *eb)
{
	gsl_matrix *X, *cov;
	gsl_vector *y, *p;
	double scale[2] = { 0, 0 };
	size_t i;
	int st;

	gsl_set_error_handler_off();
	for (i = 0; i < n; i++) {
		scale[0] = fmax(scale[0], c->a / T[i]);
		scale[1] = fmax(scale[1], c->b * S[i] / T[i]);
	}
	if (!(scale[1] > 0)) {
		/* Only size-0 rows: nothing tells β. */
		S_one(S, T, n, c, off, 0, f);
		return 0;
	}
	X = gsl_matrix_alloc(n, 2);
	cov = gsl_matrix_alloc(2, 2);
	y = gsl_vector_alloc(n);
	p = gsl_vector_alloc(2);
	for (i = 0; i < n; i++) {
		gsl_matrix_set(X, i, 0, c->a / T[i] / scale[0]);
		gsl_matrix_set(X, i, 1, c->b * S[i] / T[i] / scale[1]);
		gsl_vector_set(y, i, 1.0 - off / T[i]);
	}
	st = S_solve(X, y, p, cov, n, robust);
	if (st == 0) {
		/*
		 * Both GSL fits return the covariance already scaled by the
		 * variance of the residuals (σ²(XᵀX)⁻¹), which is what a fit
		 * without known error bars needs.
		 */
		f->alpha = gsl_vector_get(p, 0) / scale[0];
		f->u = gsl_vector_get(p, 1) / scale[1];
		f->var_alpha = gsl_matrix_get(cov, 0, 0) / (scale[0] * scale[0]);
		f->var_u = gsl_matrix_get(cov, 1, 1) / (scale[1] * scale[1]);
		if (n == 2)
			f->var_alpha = f->var_u = NAN;
		f->rss = S_rss(S, T, n, c, off, f->alpha, f->u);
	}
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(p);
	if (st != 0)
		return errbuf_set(eb, "least-squares fit failed: %s", gsl_strerror(st));
	if (!isfinite(f->alpha) || !isfinite(f->u))
		return errbuf_set(eb, "least-squares fit failed: result is not finite");
	if (f->alpha < 0 || f->u < 0) {
		struct lsq fa, fu;

		S_one(S, T, n, c, off, 0, &fa);
		S_one(S, T, n, c, off, 1, &fu);
		*f = fa.rss <= fu.rss ? fa : fu;
	}
	return 0;
}

static double S_beta(double u)
{
	return u > 1 / FIT_BETA_MAX ? 1 / u : FIT_BETA_MAX;
}

static int S_check_rows(const double *size, const double *time, size_t n,
			struct errbuf *eb)
{
	size_t i, distinct = n > 0;

	for (i = 0; i < n; i++) {
		if (!(time[i] > 0) || !isfinite(time[i]))
			return errbuf_set(eb, "time %g s of size %g B is not positive",
					  time[i], size[i]);
		if (!(size[i] >= 0) || !isfinite(size[i]))
			return errbuf_set(eb, "size %g B is not a size", size[i]);
		if (i > 0 && size[i] != size[i - 1])
			distinct++;
	}
	if (distinct < 2)
		return errbuf_set(eb, "need at least two distinct sizes to fit alpha and "
				  "beta, got %zu", distinct);
	return 0;
}

int fit_ab(const double *size, const double *time, size_t n,
	   const struct link_coeffs *c, int robust, struct ab_fit *f, struct errbuf *eb)
{
	struct lsq q;

	if (S_check_rows(size, time, n, eb) < 0)
		return -1;
	if (S_lsq(size, time, n, c, 0, robust, &q, eb) < 0)
		return -1;
	f->n = n;
	f->alpha = q.alpha;
	f->beta = S_beta(q.u);
	f->alpha_err = sqrt(q.var_alpha);
	/* δβ = δu·β² to first order. */
	f->beta_err = q.u > 1 / FIT_BETA_MAX ? sqrt(q.var_u) * f->beta * f->beta : NAN;
	f->n_half = cost_n_half(c->a, f->alpha, f->beta, c->b);
	f->rms = sqrt(q.rss / (double)n);
	return 0;
}

/* ---- the regime model ---- */

static void S_regime(struct regime *r, const double *S, size_t n, const struct lsq *q)
{
	r->alpha = q->alpha;
	r->beta = S_beta(q->u);
	/* 95 % intervals: 1.96 standard errors; δβ = β²·δ(1/β). */
	r->alpha_ci = 1.96 * sqrt(q->var_alpha);
	r->beta_ci = q->u > 1 / FIT_BETA_MAX ? 1.96 * sqrt(q->var_u) * r->beta * r->beta : NAN;
	r->lo = S[0];
	r->hi = S[n - 1];
	r->n = n;
}

/*
 * With β_k above line: β_k = line and α_k alone refitted, on the
 * coefficient c->a (steps and base) of the model.
 */
static void S_set_beta(const double *size, const double *time, size_t n,
		       const struct link_coeffs *c, double beta, struct regime *r)
{
	double sx = 0, sxy = 0, u = 1 / beta;
	size_t i;

	for (i = 0; i < n; i++) {
		double x, y;

		if (size[i] < r->lo || size[i] > r->hi)
			continue;
		x = c->a / time[i];
		y = 1 - c->b * size[i] * u / time[i];
		sx += x * x;
		sxy += x * y;
	}
	r->beta = beta;
	r->beta_ci = 0;
	r->alpha = sx > 0 && sxy > 0 ? sxy / sx : 0;
}

static void S_bound(const double *size, const double *time, size_t n,
		    const struct link_coeffs *c, double line, struct regime *r)
{
	if (r->beta > line)
		S_set_beta(size, time, n, c, line, r);
}

/*
 * The prior of FIT_BASE_STEPS: a regime's latency a·α_k becomes
 * (κ + a)·α'_k, the same time at this rank count; then β bounded.
 */
static int S_label(const struct fit_opts *o, double bytes);

/*
 * Narrow (lo, hi), where the protocol NCCL's model chooses is la at lo and
 * another at hi, to the switch by bisection in log S: on return *lo still
 * runs la and *hi, within 1e-9 of it, does not.
 */
struct S_switch {
	const struct fit_opts *o;
	int la;                    /* the protocol at the low end */
};

static int S_runs_la(double S, void *arg)
{
	const struct S_switch *w = arg;

	return S_label(w->o, S) == w->la;
}

static void S_switch_at(const struct fit_opts *o, int la, double *lo, double *hi)
{
	struct S_switch w = { .o = o, .la = la };

	bisect_log(lo, hi, 1e-9, S_runs_la, &w);
}

static int S_base_and_bounds(const double *size, const double *time, size_t n,
			     const struct link_coeffs *c, const struct fit_opts *o,
			     struct fit_model *m, struct errbuf *eb)
{
	double kappa = o->base_steps == 0 ? FIT_BASE_STEPS : o->base_steps;
	struct link_coeffs ce = *c;
	size_t k;

	(void)eb;
	m->base_steps = kappa > 0 ? kappa : 0;
	ce.a = c->a + m->base_steps;
	for (k = 0; k < m->nreg; k++) {
		m->reg[k].alpha *= c->a / ce.a;
		m->reg[k].alpha_ci *= c->a / ce.a;
		if (o->line_rate > 0)
			S_bound(size, time, n, &ce, o->line_rate, &m->reg[k]);
	}
	/*
	 * The spec's bandwidth as the prior of the last regime when the log
	 * stops below that regime's n½ (its bandwidth term never reaches
	 * half its time): its β is then not determined by the log, and it is
	 * the β every larger size would be extrapolated with.
	 */
	/*
	 * And when NCCL's model switches protocol above the largest measured
	 * size, the regime of that protocol was never measured: it is added
	 * from the switch on with the spec's bandwidth and the last measured
	 * regime's per-step latency.
	 */
	if (o->spec_beta > 0 && o->switches && m->nreg > 0 && m->nreg < FIT_REGIMES_MAX) {
		double lo = size[n - 1], hi = 1099511627776.0;   /* 1 TiB */
		int la = S_label(o, lo), lb = S_label(o, hi);

		if (la >= 0 && lb >= 0 && la != lb && lo < hi) {
			struct regime *r = &m->reg[m->nreg];

			S_switch_at(o, la, &lo, &hi);
			*r = m->reg[m->nreg - 1];
			r->lo = r->hi = hi;
			r->beta = o->spec_beta;
			r->alpha_ci = r->beta_ci = NAN;
			r->n = 0;
			m->nreg++;
			m->spec_last = 1;
			return 0;
		}
	}
	if (o->spec_beta > 0 && m->nreg > 0) {
		struct regime *r = &m->reg[m->nreg - 1];

		if (ce.b * r->hi / r->beta < ce.a * r->alpha) {
			S_set_beta(size, time, n, &ce, o->spec_beta, r);
			r->beta_ci = NAN;
			m->spec_last = 1;
		}
	}
	return 0;
}

/* Floor of RSS/n in the information criterion: (0.5 %)^2. */
#define NOISE_FLOOR 2.5e-5

/* The protocol the switch model runs at `bytes` (enum coll_proto), or -1. */
static int S_label(const struct fit_opts *o, double bytes)
{
	struct group g = { .ranks = o->switch_ranks, .per_node = 0 };
	struct coll_cost cc;

	if (cost_coll(o->switches, o->switch_op, ALGO_AUTO, &g, bytes, &cc, NULL) < 0)
		return -1;
	return (int)cc.proto;
}

/*
 * The protocol-aware split (models/fit.md, "Protocol-aware regimes"):
 * run[i] numbers the runs of rows (sorted by size) on which the protocol
 * NCCL's model chooses stays the same; a run of a single row joins its
 * shorter neighbour (one row cannot give α and β), and beyond
 * FIT_REGIMES_MAX runs the shortest joins its shorter neighbour.  lab[i]
 * is the protocol of row i.  Returns the number of runs.
 */
static size_t S_runs(const double *size, size_t n, const struct fit_opts *o, int *lab,
		     size_t *run)
{
	size_t start[FIT_SEARCH_MAX + 1], nr = 0, i, k;

	for (i = 0; i < n; i++) {
		lab[i] = S_label(o, size[i]);
		if (i == 0 || lab[i] != lab[i - 1])
			start[nr++] = i;
	}
	start[nr] = n;
	while (nr > 1) {
		size_t best = nr, len = n + 1, drop;

		for (k = 0; k < nr; k++) {
			size_t l = start[k + 1] - start[k];

			if ((l < 2 || nr > FIT_REGIMES_MAX) && l < len) {
				best = k;
				len = l;
			}
		}
		if (best == nr)
			break;
		if (best == 0)
			drop = 1;
		else if (best + 1 == nr)
			drop = best;
		else
			drop = start[best] - start[best - 1] <= start[best + 2] - start[best + 1] ?
			       best : best + 1;
		memmove(&start[drop], &start[drop + 1], (nr - drop) * sizeof(start[0]));
		nr--;
	}
	for (k = 0; k < nr; k++)
		for (i = start[k]; i < start[k + 1]; i++)
			run[i] = k;
	return nr;
}

/*
 * Between two regimes whose edge rows run different protocols, the
 * boundary is the size where NCCL's model switches, found by bisection in
 * log S: a size between two measured ones takes the regime of its own
 * protocol instead of a blend.
 */
static void S_switch_edges(const struct fit_opts *o, struct fit_model *m)
{
	size_t k;

	for (k = 0; k + 1 < m->nreg; k++) {
		double lo = m->reg[k].hi, hi = m->reg[k + 1].lo;
		int la = S_label(o, lo), lb = S_label(o, hi);

		if (la == lb || la < 0 || lb < 0)
			continue;
		S_switch_at(o, la, &lo, &hi);
		m->reg[k].hi = lo;
		m->reg[k + 1].lo = hi;
	}
}

/*
 * cost[i*(n+1)+j]: squared relative residual of one regime over rows
 * [i, j), infinite across a protocol switch (run[] differs).
 */
static int S_costs(const double *size, const double *time, size_t n, const size_t *run,
		   const struct link_coeffs *c, double *cost, struct errbuf *eb)
{
	struct lsq q;
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 2; j <= n; j++) {
			if (run && run[i] != run[j - 1]) {
				cost[i * (n + 1) + j] = INFINITY;
				continue;
			}
			if (S_lsq(size + i, time + i, j - i, c, 0, 0, &q, eb) < 0)
				return -1;
			cost[i * (n + 1) + j] = q.rss;
		}
	return 0;
}

/*
 * best[k*(n+1)+j]: least cost of rows [0, j) in k regimes of 2 rows at
 * least, the last one starting at from[k*(n+1)+j].
 */
static void S_partition(const double *cost, size_t n, size_t kmax, double *best, size_t *from)
{
	size_t i, j, k;

	for (k = 0; k <= kmax; k++)
		for (j = 0; j <= n; j++)
			best[k * (n + 1) + j] = INFINITY;
	best[0] = 0;
	for (k = 1; k <= kmax; k++)
		for (j = 2 * k; j <= n; j++)
			for (i = 2 * (k - 1); i + 2 <= j; i++) {
				double v = best[(k - 1) * (n + 1) + i];

				if (!isfinite(v))
					continue;
				v += cost[i * (n + 1) + j];
				if (v < best[k * (n + 1) + j]) {
					best[k * (n + 1) + j] = v;
					from[k * (n + 1) + j] = i;
				}
			}
}

/* The regime count, nruns to kmax, of least BIC. */
static size_t S_pick_regimes(const double *best, size_t n, size_t nruns, size_t kmax)
{
	double bic_best = INFINITY;
	size_t K, kbest = 1;

	for (K = nruns; K <= kmax; K++) {
		double rss = best[K * (n + 1) + n];
		double bic = (double)n * log(fmax(rss / (double)n, NOISE_FLOOR)) +
			(double)(3 * K - 1) * log((double)n);

		if (bic < bic_best) {
			bic_best = bic;
			kbest = K;
		}
	}
	return kbest;
}

/* The regime search: up to kmax regimes, as many as asked or of least BIC, fitted into m. */
static int S_fit_regimes(const double *size, const double *time, size_t n, const struct link_coeffs *c,
			 const struct fit_opts *o, size_t kmax, struct fit_model *m, struct errbuf *eb)
{
	double *cost = NULL, *best = NULL;
	size_t *from = NULL, *run = NULL, i, j, K, kbest = 1, nruns = 1;
	int *lab = NULL;
	struct lsq q;
	int rc = -1;

	/*
	 * Protocol-aware: no regime spans a protocol switch of NCCL's model,
	 * so there are at least as many regimes as protocol runs.
	 */
	if (o->switches) {
		lab = xmalloc(n * sizeof(*lab));
		run = xmalloc(n * sizeof(*run));
		nruns = S_runs(size, n, o, lab, run);
		if (o->regimes && (size_t)o->regimes < nruns) {
			errbuf_set(eb, "%d regimes are fewer than the %zu protocol ranges of "
				   "--switches", o->regimes, nruns);
			goto out;
		}
	}
	/*
	 * cost[i*(n+1)+j]: squared relative residual of one regime over rows
	 * [i, j); best[k*(n+1)+j]: least cost of rows [0, j) in k regimes,
	 * the last one starting at from[k*(n+1)+j].
	 */
	cost = xmalloc((n + 1) * (n + 1) * sizeof(*cost));
	best = xmalloc((kmax + 1) * (n + 1) * sizeof(*best));
	from = xmalloc((kmax + 1) * (n + 1) * sizeof(*from));
	if (S_costs(size, time, n, run, c, cost, eb) < 0)
		goto out;
	S_partition(cost, n, kmax, best, from);
	kbest = o->regimes ? (size_t)o->regimes : S_pick_regimes(best, n, nruns, kmax);
	/* Walk back through from[] and fit each run for good. */
	m->nreg = kbest;
	for (K = kbest, j = n; K >= 1; K--) {
		i = from[K * (n + 1) + j];
		if (S_lsq(size + i, time + i, j - i, c, 0, o->robust, &q, eb) < 0)
			goto out;
		S_regime(&m->reg[K - 1], size + i, j - i, &q);
		j = i;
	}
	if (o->switches)
		S_switch_edges(o, m);
	rc = S_base_and_bounds(size, time, n, c, o, m, eb);
out:
	free(lab);
	free(run);
	free(cost);
	free(best);
	free(from);
	return rc;
}

int fit_model_fit(const double *size, const double *time, size_t n,
		  enum coll_op op, unsigned long ranks, const struct fit_opts *o,
		  struct fit_model *m, struct errbuf *eb)
{
	struct link_coeffs c;
	size_t i, kmax;
	struct lsq q;

	if (fit_link_coeffs(op, o->algo, ranks, &c, eb) < 0 || S_check_rows(size, time, n, eb) < 0)
		return -1;
	for (i = 1; i < n; i++)
		if (size[i] <= size[i - 1])
			return errbuf_set(eb, "sizes must increase: %g B after %g B",
					  size[i], size[i - 1]);
	memset(m, 0, sizeof(*m));
	m->op = op;
	m->algo = o->algo;
	m->ranks = ranks;

	kmax = o->regimes ? (size_t)o->regimes : FIT_REGIMES_MAX;
	if (kmax > FIT_REGIMES_MAX)
		return errbuf_set(eb, "at most %d regimes, asked for %d", FIT_REGIMES_MAX,
				  o->regimes);
	if (o->regimes && (size_t)o->regimes * 2 > n)
		return errbuf_set(eb, "%d regimes need at least %d sizes (2 each), got %zu",
				  o->regimes, 2 * o->regimes, n);
	if (kmax * 2 > n)
		kmax = n / 2;
	if (n > FIT_SEARCH_MAX || kmax <= 1) {
		if (o->regimes > 1)
			return errbuf_set(eb, "the regime search takes at most %d sizes, got %zu",
					  FIT_SEARCH_MAX, n);
		if (S_lsq(size, time, n, &c, 0, o->robust, &q, eb) < 0)
			return -1;
		m->nreg = 1;
		S_regime(&m->reg[0], size, n, &q);
		return S_base_and_bounds(size, time, n, &c, o, m, eb);
	}
	return S_fit_regimes(size, time, n, &c, o, kmax, m, eb);
}

void fit_model_from_link(struct fit_model *m, enum coll_op op, enum coll_algo algo,
			 unsigned long ranks, const struct link *l)
{
	memset(m, 0, sizeof(*m));
	m->op = op;
	m->algo = algo;
	m->ranks = ranks;
	m->nreg = 1;
	m->reg[0].alpha = l->alpha;
	m->reg[0].beta = l->beta;
	m->reg[0].alpha_ci = m->reg[0].beta_ci = NAN;
	m->reg[0].lo = m->reg[0].hi = 0;
}

static double S_regime_time(const struct regime *r, const struct link_coeffs *c, double S)
{
	return c->a * r->alpha + c->b * S / r->beta;
}

static double S_model_time(const struct fit_model *m, const struct link_coeffs *c, double bytes);
static double S_fit_time(const struct fit_model *m, const struct link_coeffs *c0, double bytes,
			 double *lat);

double fit_model_time(const struct fit_model *m, enum coll_op op,
		      unsigned long ranks, double bytes)
{
	struct link_coeffs c;
	struct errbuf eb;

	if (fit_link_coeffs(op, op == OP_ALLREDUCE ? m->algo : ALGO_RING, ranks, &c, &eb) < 0)
		return ranks < 2 ? 0 : NAN;
	return S_fit_time(m, &c, bytes, NULL);
}

/* The regimes' time with the coefficients c of the step count, κ added; lat: its α part. */
static double S_fit_time(const struct fit_model *m, const struct link_coeffs *c0, double bytes,
			 double *lat)
{
	struct link_coeffs c = *c0;
	double t;

	c.a += m->base_steps;
	t = S_model_time(m, &c, bytes);
	if (lat) {
		c.b = 0;
		*lat = S_model_time(m, &c, bytes);
	}
	return t;
}

static double S_model_time(const struct fit_model *m, const struct link_coeffs *cp, double bytes)
{
	const struct link_coeffs c = *cp;
	size_t k;

	for (k = 0; k < m->nreg; k++) {
		const struct regime *r = &m->reg[k], *nx;
		double w;

		if (k + 1 == m->nreg || bytes <= r->hi)
			return S_regime_time(r, &c, bytes);
		nx = &m->reg[k + 1];
		if (bytes < nx->lo) {
			/* The switch happened somewhere in (hi, lo): blend in log S. */
			w = r->hi > 0 ? log(bytes / r->hi) / log(nx->lo / r->hi) : 1;
			return (1 - w) * S_regime_time(r, &c, bytes) +
				w * S_regime_time(nx, &c, bytes);
		}
	}
	return NAN;
}

/* ---- the regimes as a cost model (COST_FIT) ---- */

static int S_fit_coll(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		      const struct group *g, double bytes, struct coll_cost *out,
		      struct errbuf *eb)
{
	const struct fit_model *fm = m->impl;
	struct cost_model link;
	struct link_coeffs c;
	double t;

	/* The regimes answer for the fit's all-reduce algorithm, every other
	 * collective's own (cost_algo_default of a COST_FIT model). */
	if (algo == ALGO_AUTO)
		algo = cost_algo_default(m, op);
	/* The link answers first: the algorithm's checks, and every
	 * algorithm the regimes were not fitted for. */
	cost_model_link(&link, &m->link);
	if (cost_coll(&link, op, algo, g, bytes, out, eb) < 0)
		return -1;
	if (algo != cost_algo_default(m, op) || g->ranks < 2)
		return 0;
	if (cost_link_coeffs(op, algo, g->ranks, &c, eb) < 0)
		return -1;
	t = S_fit_time(fm, &c, bytes, &out->latency_s);
	out->time_s = t;
	out->bandwidth_s = t - out->latency_s;
	return 0;
}

void fit_cost_init(struct cost_model *cm, const struct fit_model *fm, const struct link *l)
{
	cost_model_link(cm, l);
	cm->kind = COST_FIT;
	cm->coll = S_fit_coll;
	cm->impl = fm;
	cm->fit_algo = fm->algo;
}

void fit_spec_band(double latency_s, double bandwidth_s, double *lo, double *hi)
{
	*lo = latency_s / FIT_SPEC_ALPHA_SPREAD + bandwidth_s / FIT_SPEC_BETA_HI;
	*hi = latency_s * FIT_SPEC_ALPHA_SPREAD + bandwidth_s / FIT_SPEC_BETA_LO;
}

void fit_model_range(const struct fit_model *m, enum coll_op op, unsigned long ranks,
		     double bytes, double *lo, double *hi)
{
	double kap[2] = { m->base_steps, m->base_steps }, a0 = 0;
	struct link_coeffs c0;
	struct errbuf eb;
	int corner, known = 0, spread;
	size_t k;

	for (k = 0; k < m->nreg; k++)
		known |= isfinite(m->reg[k].alpha_ci) || isfinite(m->reg[k].beta_ci);
	/*
	 * The spec's spread where no fit measured the run: a model without
	 * intervals (a link preset), or a fit carried to another rank count.
	 */
	spread = !known || ranks != m->ranks;
	if (m->base_steps > 0 && ranks != m->ranks) {
		kap[0] = FIT_BASE_STEPS_LO;
		kap[1] = FIT_BASE_STEPS_HI;
	}
	if (fit_link_coeffs(m->op, m->algo, m->ranks, &c0, &eb) == 0)
		a0 = c0.a;
	*lo = INFINITY;
	*hi = -INFINITY;
	for (corner = 0; corner < (spread ? 32 : 8); corner++) {
		struct fit_model c = *m;
		int sk = corner & 1, sa = (corner >> 1) & 1, sb = (corner >> 2) & 1;
		int xa = (corner >> 3) & 1, xb = (corner >> 4) & 1;
		double t;

		c.base_steps = kap[sk];
		for (k = 0; k < c.nreg; k++) {
			struct regime *r = &c.reg[k];
			double da = isfinite(r->alpha_ci) ? r->alpha_ci : 0;
			double db = isfinite(r->beta_ci) ? r->beta_ci : 0;

			r->alpha = fmax(0, r->alpha + (sa ? da : -da));
			/* The same latency at the fit's rank count, split by another κ. */
			if (m->base_steps > 0)
				r->alpha *= (m->base_steps + a0) / (kap[sk] + a0);
			r->beta = sb ? r->beta + db : fmax(r->beta - db, r->beta / 100);
			if (spread) {
				r->alpha *= xa ? FIT_SPEC_ALPHA_SPREAD : 1 / FIT_SPEC_ALPHA_SPREAD;
				r->beta *= xb ? FIT_SPEC_BETA_HI : FIT_SPEC_BETA_LO;
			}
		}
		t = fit_model_time(&c, op, ranks, bytes);
		*lo = fmin(*lo, t);
		*hi = fmax(*hi, t);
	}
}

double fit_rel_err(double predicted, double measured)
{
	double e = predicted / measured - 1;

	return fabs(e) < 1e-12 ? 0 : e;
}
