/*
 * Calibrating a tier of a system from measured curves: the numerics of
 * calib.h (a bounded weighted linear least-squares fit with GSL).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "calib.h"
#include "cost.h"
#include "fit.h"
#include "util.h"

const char *calib_source_name(enum calib_source s)
{
	switch (s) {
	case CALIB_FIT: return "fit";
	case CALIB_PRIOR: return "prior";
	case CALIB_BOUND: return "bound";
	default: return "spec";
	}
}

/* Parameters: L0 (s), α (s), u = 1/β (s/B). */
enum { P_BASE, P_ALPHA, P_U, NP };

/*
 * Linear least squares X·p = y (X: nrows × np, row by row, changed: its
 * columns are scaled to unit maximum first, since 1/T and S/T differ by
 * ten orders of magnitude).  Fills p, sd (one standard error from GSL's
 * covariance, which it scales by the residual variance) and rss.
 */
static int S_lsq(double *X, const double *y, size_t nrows, size_t np, double *p,
		 double *sd, double *rss, struct errbuf *eb)
{
	gsl_matrix_view Xv = gsl_matrix_view_array(X, nrows, np);
	gsl_vector_const_view yv = gsl_vector_const_view_array(y, nrows);
	gsl_vector *c = gsl_vector_alloc(np);
	gsl_matrix *cov = gsl_matrix_alloc(np, np);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(nrows, np);
	double scale[NP] = { 0, 0, 0 };
	size_t r, k;
	int st;

	for (k = 0; k < np; k++) {
		for (r = 0; r < nrows; r++)
			scale[k] = fmax(scale[k], fabs(X[r * np + k]));
		if (!(scale[k] > 0))
			scale[k] = 1;
		for (r = 0; r < nrows; r++)
			X[r * np + k] /= scale[k];
	}
	st = gsl_multifit_linear(&Xv.matrix, &yv.vector, c, cov, rss, w);
	for (k = 0; k < np && !st; k++) {
		p[k] = gsl_vector_get(c, k) / scale[k];
		sd[k] = sqrt(gsl_matrix_get(cov, k, k)) / scale[k];
	}
	gsl_multifit_linear_free(w);
	gsl_vector_free(c);
	gsl_matrix_free(cov);
	if (st)
		return errbuf_set(eb, "least-squares fit failed: %s", gsl_strerror(st));
	return 0;
}

/*
 * One least-squares solve over the rows of every log with the parameters
 * of fixed[] held at p[] and the others fitted.  tie_kappa > 0 replaces
 * the L0 column by L0 = κ·α (one rank count).  Fills p, sd (one standard
 * error; NaN for held ones) and the residual sum of squares.
 */
static int S_solve(const struct calib_log *logs, size_t nlogs, const int *fixed,
		   double tie_kappa, double *p, double *sd, double *rss, struct errbuf *eb)
{
	size_t nrows = 0, i, j, r, k, nf = 0;
	int map[NP], st;
	double *X, *y, q[NP], qsd[NP];

	for (k = 0; k < NP; k++) {
		map[k] = -1;
		sd[k] = NAN;
		if (!fixed[k] && !(k == P_BASE && tie_kappa > 0))
			map[k] = (int)nf++;
	}
	for (j = 0; j < nlogs; j++)
		nrows += logs[j].n;
	if (nf == 0 || nrows <= nf)
		return errbuf_set(eb, "%zu sizes are too few to calibrate %zu values", nrows, nf);
	X = xmalloc(nrows * nf * sizeof(double));
	y = xmalloc(nrows * sizeof(double));
	for (j = 0, r = 0; j < nlogs; j++) {
		struct link_coeffs co;

		if (fit_link_coeffs(logs[j].op, logs[j].algo, logs[j].ranks, &co, eb) < 0) {
			free(X);
			free(y);
			return -1;
		}
		for (i = 0; i < logs[j].n; i++, r++) {
			double T = logs[j].time[i], x[NP], rest = 0;

			x[P_BASE] = 1 / T;
			x[P_ALPHA] = (co.a + (tie_kappa > 0 ? tie_kappa : 0)) / T;
			x[P_U] = co.b * logs[j].size[i] / T;
			for (k = 0; k < NP; k++) {
				if (map[k] >= 0)
					X[r * nf + (size_t)map[k]] = x[k];
				else if (fixed[k])
					rest += x[k] * p[k];
			}
			y[r] = 1 - rest;
		}
	}
	st = S_lsq(X, y, nrows, nf, q, qsd, rss, eb);
	free(X);
	free(y);
	if (st < 0)
		return -1;
	for (k = 0; k < NP; k++)
		if (map[k] >= 0) {
			p[k] = q[map[k]];
			sd[k] = qsd[map[k]];
		}
	if (tie_kappa > 0)
		p[P_BASE] = tie_kappa * p[P_ALPHA];
	return 0;
}

/* The rows, the logs and the distinct rank counts (64 told apart) of the logs into t. */
static void S_tier_counts(const struct calib_log *logs, size_t nlogs, struct calib_tier *t)
{
	unsigned long seen[64];
	size_t j, k, nseen = 0;

	for (j = 0; j < nlogs; j++) {
		for (k = 0; k < nseen && seen[k] != logs[j].ranks; k++)
			;
		if (k == nseen && nseen < 64)
			seen[nseen++] = logs[j].ranks;
		t->rows += logs[j].n;
	}
	t->logs = nlogs;
	t->rank_counts = nseen;
}

int calib_tier_fit(const struct calib_log *logs, size_t nlogs, double beta_line,
		   double kappa, struct calib_tier *t, struct errbuf *eb)
{
	double p[NP] = { 0, 0, 0 }, sd[NP], rss = 0, tie;
	int fixed[NP] = { 0, 0, 0 }, bound[NP] = { 0, 0, 0 }, round;

	gsl_set_error_handler_off();
	memset(t, 0, sizeof(*t));
	if (nlogs == 0)
		return errbuf_set(eb, "no measurements to calibrate with");
	S_tier_counts(logs, nlogs, t);
	tie = t->rank_counts >= 2 ? 0 : kappa > 0 ? kappa : FIT_BASE_STEPS;
	/*
	 * Fit, then hold whatever crossed a bound at the bound and fit the
	 * rest again; three rounds reach every combination of three bounds.
	 */
	for (round = 0; round < NP + 1; round++) {
		int again = 0;

		if (S_solve(logs, nlogs, fixed, tie, p, sd, &rss, eb) < 0)
			return -1;
		if (!fixed[P_U] && beta_line > 0 && p[P_U] < 1 / beta_line) {
			p[P_U] = 1 / beta_line;
			fixed[P_U] = bound[P_U] = again = 1;
		} else if (!fixed[P_U] && p[P_U] < 0) {
			p[P_U] = 0;
			fixed[P_U] = bound[P_U] = again = 1;
		}
		if (!fixed[P_ALPHA] && p[P_ALPHA] < 0) {
			p[P_ALPHA] = 0;
			fixed[P_ALPHA] = bound[P_ALPHA] = again = 1;
		}
		if (!tie && !fixed[P_BASE] && p[P_BASE] < 0) {
			p[P_BASE] = 0;
			fixed[P_BASE] = bound[P_BASE] = again = 1;
		}
		if (!again)
			break;
	}
	if (!(p[P_U] > 0))
		return errbuf_set(eb, "the times do not grow with size: no bandwidth to calibrate");
	t->base.value = p[P_BASE];
	t->base.ci95 = tie ? NAN : 1.96 * sd[P_BASE];
	t->base.source = bound[P_BASE] ? CALIB_BOUND : tie ? CALIB_PRIOR : CALIB_FIT;
	t->alpha.value = p[P_ALPHA];
	t->alpha.ci95 = 1.96 * sd[P_ALPHA];
	t->alpha.source = bound[P_ALPHA] ? CALIB_BOUND : CALIB_FIT;
	t->beta.value = 1 / p[P_U];
	t->beta.ci95 = 1.96 * sd[P_U] * t->beta.value * t->beta.value;
	t->beta.source = bound[P_U] ? CALIB_BOUND : CALIB_FIT;
	t->base_steps = p[P_ALPHA] > 0 ? p[P_BASE] / p[P_ALPHA] : 0;
	t->rms = sqrt(rss / (double)t->rows);
	return 0;
}

double calib_tier_time(const struct calib_tier *t, enum coll_op op, enum coll_algo algo,
		       unsigned long ranks, double bytes)
{
	struct link_coeffs c;
	struct errbuf eb;

	if (ranks < 2)
		return 0;
	if (fit_link_coeffs(op, algo, ranks, &c, &eb) < 0)
		return NAN;
	return t->base.value + c.a * t->alpha.value + c.b * bytes / t->beta.value;
}

void calib_tier_spec(const struct tier *spec, struct calib_tier *t)
{
	memset(t, 0, sizeof(*t));
	t->base = (struct calib_value){ .value = spec->base, .ci95 = NAN, .source = CALIB_SPEC };
	t->alpha = (struct calib_value){ .value = spec->link.alpha, .ci95 = NAN,
					 .source = CALIB_SPEC };
	t->beta = (struct calib_value){ .value = spec->link.beta, .ci95 = NAN,
					.source = CALIB_SPEC };
	t->base_steps = spec->link.alpha > 0 ? spec->base / spec->link.alpha : 0;
	t->rms = NAN;
}

void calib_apply(struct system *dst, const struct system *spec,
		 const struct calib_tier *intra, const struct calib_nic *nic)
{
	*dst = *spec;
	dst->intra.link.alpha = intra->alpha.value;
	dst->intra.link.beta = intra->beta.value;
	dst->intra.base = intra->base.value;
	if (nic) {
		dst->inter.link.alpha = nic->alpha.value;
		dst->inter.link.beta = nic->beta.value;
	}
}

double calib_system_time(const struct system *cal, enum coll_op op, enum coll_algo algo,
			 unsigned long ranks, double bytes)
{
	struct cost_model m;

	cost_model_tiers(&m, cal);
	return cost_time(&m, op, algo, ranks, bytes);
}

/* The tier model's time on s with the given links, base latency and size. */
static double S_tiers(const struct system *s, double base, double ai, double bi, double ae,
		      double be, const struct calib_log *l, double bytes)
{
	struct system t = *s;

	t.intra.base = base;
	t.inter.base = 0;
	t.intra.link = (struct link){ .alpha = ai, .beta = bi };
	t.inter.link = (struct link){ .alpha = ae, .beta = be };
	return calib_system_time(&t, l->op, l->algo, l->ranks, bytes);
}

/* Parameters of the NIC tier: α_e (s), u_e = 1/β_e (s/B). */
enum { Q_ALPHA, Q_U, NQ };

/*
 * One solve of the NIC fit with the parameters of fixed[] held at q[].
 * Each row: 1 − (intra latency + held terms)/T = Σ x_k·q_k with
 * x_alpha = (inter steps)/T and x_u = (bytes through the NICs per NIC
 * port's 1/β)/T, read off the tier model.
 */
static int S_nic_solve(const struct calib_log *logs, size_t nlogs, const struct system *s,
		       const struct calib_tier *in, const int *fixed, double *q, double *sd,
		       double *rss, struct errbuf *eb)
{
	const double huge = FIT_BETA_MAX;
	size_t nrows = 0, nf = 0, i, j, r, k;
	int map[NQ], st;
	double *X, *y, p[NQ], psd[NQ];

	for (k = 0; k < NQ; k++) {
		sd[k] = NAN;
		map[k] = fixed[k] ? -1 : (int)nf++;
	}
	for (j = 0; j < nlogs; j++)
		nrows += logs[j].n;
	if (nf == 0)
		return 0;
	if (nrows <= nf)
		return errbuf_set(eb, "%zu sizes are too few to calibrate the NICs", nrows);
	X = xmalloc(nrows * nf * sizeof(double));
	y = xmalloc(nrows * sizeof(double));
	for (j = 0, r = 0; j < nlogs; j++) {
		const struct calib_log *l = &logs[j];
		/* intra latency and the inter steps, at S = 0 */
		double li = S_tiers(s, in->base.value, in->alpha.value, huge, 0, huge, l, 0);
		double ce = S_tiers(s, 0, 0, huge, 1, huge, l, 0);

		for (i = 0; i < l->n; i++, r++) {
			double T = l->time[i], S = l->size[i], x[NQ], rest = li;

			x[Q_ALPHA] = ce / T;
			/* NIC-bound bytes: the intra link taken as infinitely fast */
			x[Q_U] = S_tiers(s, 0, 0, huge, 0, 1, l, S) / T;
			if (fixed[Q_ALPHA])
				rest += ce * q[Q_ALPHA];
			if (fixed[Q_U])  /* the real min(β_i, K·β_e) */
				rest += S_tiers(s, 0, 0, in->beta.value, 0, 1 / q[Q_U], l, S);
			for (k = 0; k < NQ; k++)
				if (map[k] >= 0)
					X[r * nf + (size_t)map[k]] = x[k];
			y[r] = 1 - rest / T;
		}
	}
	st = S_lsq(X, y, nrows, nf, p, psd, rss, eb);
	free(X);
	free(y);
	if (st < 0)
		return -1;
	for (k = 0; k < NQ; k++)
		if (map[k] >= 0) {
			q[k] = p[map[k]];
			sd[k] = psd[map[k]];
		}
	return 0;
}

/* The NIC logs: some, of a system with NICs, all of the ring; their counts into t. */
static int S_nic_logs(const struct calib_log *logs, size_t nlogs, const struct system *s,
		      struct calib_nic *t, struct errbuf *eb)
{
	size_t j;

	if (nlogs == 0)
		return errbuf_set(eb, "no multi-node measurements to calibrate the NICs with");
	if (!s->have_inter || s->nics_per_node == 0)
		return errbuf_set(eb, "system '%s' has no NICs (inter, nics_per_node) to calibrate",
				  s->name);
	for (j = 0; j < nlogs; j++) {
		if (logs[j].algo != ALGO_RING)
			return errbuf_set(eb, "the NICs are calibrated with the tier model's ring "
					  "(--algo ring)");
		t->rows += logs[j].n;
	}
	t->logs = nlogs;
	return 0;
}

/* The fitted α_e and β_e, their intervals and sources, and the residual into t. */
static void S_nic_values(struct calib_nic *t, const double *q, const double *sd,
			 const int *fixed, const int *bound, int spec_beta, double rss)
{
	t->alpha.value = q[Q_ALPHA];
	t->alpha.ci95 = fixed[Q_ALPHA] ? NAN : 1.96 * sd[Q_ALPHA];
	t->alpha.source = bound[Q_ALPHA] ? CALIB_BOUND : CALIB_FIT;
	t->beta.value = 1 / q[Q_U];
	t->beta.ci95 = fixed[Q_U] ? NAN : 1.96 * sd[Q_U] * t->beta.value * t->beta.value;
	t->beta.source = spec_beta ? CALIB_SPEC : bound[Q_U] ? CALIB_BOUND : CALIB_FIT;
	t->rms = sqrt(rss / (double)t->rows);
}

int calib_nic_fit(const struct calib_log *logs, size_t nlogs, const struct system *s,
		  struct calib_tier *intra, struct calib_nic *t, struct errbuf *eb)
{
	double q[NQ] = { 0, 0 }, sd[NQ] = { NAN, NAN }, rss = 0, K, line, bi;
	int fixed[NQ] = { 0, 0 }, bound[NQ] = { 0, 0 }, spec_beta = 0, round;

	gsl_set_error_handler_off();
	memset(t, 0, sizeof(*t));
	if (S_nic_logs(logs, nlogs, s, t, eb) < 0)
		return -1;
	K = (double)s->nics_per_node;
	line = s->inter.beta_line;
	/*
	 * What the intra tier allows: its calibrated β, or, when it is the
	 * spec's (a rate no log here measured), its line rate.
	 */
	bi = intra->beta.source == CALIB_SPEC ? s->intra.beta_line : intra->beta.value;
	t->beta_line = line;
	/*
	 * Fit, then hold what crossed a bound and fit the rest again.  A
	 * fitted K·β_e at or above β_i means the intra tier bounds these logs
	 * (the tier model takes the slower of the two): β_e is not
	 * determined, and the spec's value is kept.
	 */
	for (round = 0; round < NQ + 2; round++) {
		int again = 0;

		if (S_nic_solve(logs, nlogs, s, intra, fixed, q, sd, &rss, eb) < 0)
			return -1;
		/* within 1 %: the two tiers cannot be told apart by these logs */
		if (!fixed[Q_U] && (!(q[Q_U] > 0) || K / q[Q_U] >= 0.99 * bi)) {
			double be = fmax(s->inter.link.beta, bi / K);

			if (line > 0 && be > line)
				be = line;
			q[Q_U] = 1 / be;
			spec_beta = be == s->inter.link.beta;
			bound[Q_U] = !spec_beta;
			fixed[Q_U] = again = 1;
		} else if (!fixed[Q_U] && line > 0 && q[Q_U] < 1 / line) {
			q[Q_U] = 1 / line;
			fixed[Q_U] = bound[Q_U] = again = 1;
		}
		if (!fixed[Q_ALPHA] && q[Q_ALPHA] < 0) {
			q[Q_ALPHA] = 0;
			fixed[Q_ALPHA] = bound[Q_ALPHA] = again = 1;
		}
		if (!again)
			break;
	}
	S_nic_values(t, q, sd, fixed, bound, spec_beta, rss);
	/*
	 * A spec intra rate below what the NICs were measured to carry through
	 * it is raised to that: the logs show the intra link at least as fast.
	 */
	if (intra->beta.source == CALIB_SPEC && K * t->beta.value > intra->beta.value) {
		intra->beta.value = K * t->beta.value;
		intra->beta.source = CALIB_FIT;
	}
	return 0;
}
