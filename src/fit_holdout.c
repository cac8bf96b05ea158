/*
 * Held-out accuracy of the regime model (fit.h, fit_holdout): fit on some
 * rows, measure the error on the others (models/fit.md).
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "fit.h"

static void S_quantiles(double *e, size_t n, double *median, double *p90, double *max)
{
	gsl_sort(e, 1, n);
	*median = gsl_stats_quantile_from_sorted_data(e, 1, n, 0.5);
	*p90 = gsl_stats_quantile_from_sorted_data(e, 1, n, 0.9);
	*max = e[n - 1];
}

int fit_holdout(const double *size, const double *time, size_t n,
		enum coll_op op, unsigned long ranks, const struct fit_opts *o,
		struct holdout *h, struct errbuf *eb)
{
	double *s = xmalloc(n * sizeof(double)), *t = xmalloc(n * sizeof(double));
	double *e = xmalloc(n * sizeof(double)), *eab = xmalloc(n * sizeof(double));
	struct fit_opts oab = *o;
	size_t par, i, nt, ne = 0;
	int rc = -1;

	oab.regimes = 1;
	if (n < 4) {
		errbuf_set(eb, "held-out check needs at least 4 sizes, got %zu", n);
		goto out;
	}
	for (par = 0; par < 2; par++) {
		struct fit_model m, mab;

		for (i = par, nt = 0; i < n; i += 2, nt++) {
			s[nt] = size[i];
			t[nt] = time[i];
		}
		if (fit_model_fit(s, t, nt, op, ranks, o, &m, eb) < 0 ||
		    fit_model_fit(s, t, nt, op, ranks, &oab, &mab, eb) < 0)
			goto out;
		for (i = 1 - par; i < n; i += 2) {
			e[ne] = fabs(fit_model_time(&m, op, ranks, size[i]) - time[i]) / time[i];
			eab[ne] = fabs(fit_model_time(&mab, op, ranks, size[i]) - time[i]) / time[i];
			ne++;
		}
	}
	h->n = ne;
	S_quantiles(e, ne, &h->median, &h->p90, &h->max);
	S_quantiles(eab, ne, &h->ab_median, &h->ab_p90, &h->ab_max);
	rc = 0;
out:
	free(s);
	free(t);
	free(e);
	free(eab);
	return rc;
}

