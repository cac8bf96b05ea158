/*
 * Calibrating a tier of a system from measured curves: the numerics of
 * calib.h (a bounded weighted linear least-squares fit with GSL).
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>

#include "calib.h"
#include "fit.h"

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
	double scale[NP] = { 0, 0, 0 }, chisq;
	gsl_matrix *X, *cov;
	gsl_vector *y, *c;
	gsl_multifit_linear_workspace *w;

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
	X = gsl_matrix_calloc(nrows, nf);
	y = gsl_vector_alloc(nrows);
	c = gsl_vector_alloc(nf);
	cov = gsl_matrix_alloc(nf, nf);
	for (j = 0, r = 0; j < nlogs; j++) {
		struct coeffs co;

		if (fit_coeffs(logs[j].op, logs[j].algo, logs[j].ranks, &co, eb) < 0)
			goto fail;
		for (i = 0; i < logs[j].n; i++, r++) {
			double T = logs[j].time[i], x[NP], rest = 0;

			x[P_BASE] = 1 / T;
			x[P_ALPHA] = (co.a + (tie_kappa > 0 ? tie_kappa : 0)) / T;
			x[P_U] = co.b * logs[j].size[i] / T;
			for (k = 0; k < NP; k++) {
				if (map[k] >= 0)
					gsl_matrix_set(X, r, (size_t)map[k], x[k]);
				else if (fixed[k])
					rest += x[k] * p[k];
			}
			gsl_vector_set(y, r, 1 - rest);
		}
	}
	/* Columns to unit maximum: 1/T and S/T differ by ten orders of magnitude. */
	for (k = 0; k < nf; k++) {
		for (r = 0; r < nrows; r++)
			scale[k] = fmax(scale[k], fabs(gsl_matrix_get(X, r, k)));
		if (!(scale[k] > 0))
			scale[k] = 1;
		for (r = 0; r < nrows; r++)
			gsl_matrix_set(X, r, k, gsl_matrix_get(X, r, k) / scale[k]);
	}
	w = gsl_multifit_linear_alloc(nrows, nf);
	st = gsl_multifit_linear(X, y, c, cov, &chisq, w);
	gsl_multifit_linear_free(w);
	if (st) {
		errbuf_set(eb, "least-squares fit failed: %s", gsl_strerror(st));
		goto fail;
	}
	for (k = 0; k < NP; k++)
		if (map[k] >= 0) {
			size_t m = (size_t)map[k];

			p[k] = gsl_vector_get(c, m) / scale[m];
			/* GSL scales cov by the residual variance already. */
			sd[k] = sqrt(gsl_matrix_get(cov, m, m)) / scale[m];
		}
	if (tie_kappa > 0)
		p[P_BASE] = tie_kappa * p[P_ALPHA];
	*rss = chisq;
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	return 0;
fail:
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	return -1;
}

int calib_tier_fit(const struct calib_log *logs, size_t nlogs, double beta_line,
		   double kappa, struct calib_tier *t, struct errbuf *eb)
{
	double p[NP] = { 0, 0, 0 }, sd[NP], rss = 0, tie;
	int fixed[NP] = { 0, 0, 0 }, bound[NP] = { 0, 0, 0 }, round;
	unsigned long seen[64];
	size_t j, k, nseen = 0;

	gsl_set_error_handler_off();
	memset(t, 0, sizeof(*t));
	if (nlogs == 0)
		return errbuf_set(eb, "no measurements to calibrate with");
	for (j = 0; j < nlogs; j++) {
		for (k = 0; k < nseen && seen[k] != logs[j].ranks; k++)
			;
		if (k == nseen && nseen < 64)
			seen[nseen++] = logs[j].ranks;
		t->rows += logs[j].n;
	}
	t->logs = nlogs;
	t->rank_counts = nseen;
	tie = nseen >= 2 ? 0 : kappa > 0 ? kappa : FIT_BASE_STEPS;
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
	struct coeffs c;
	struct errbuf eb;

	if (ranks < 2)
		return 0;
	if (fit_coeffs(op, algo, ranks, &c, &eb) < 0)
		return NAN;
	return t->base.value + c.a * t->alpha.value + c.b * bytes / t->beta.value;
}
