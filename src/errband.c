/*
 * The stated error of NCCL's model (errband.h): the lookup the commands
 * ask, and the drawing of a band from log rows that bench/errband-gen and
 * the unit tests use.  models/nccl.md, "The stated error".
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "errband.h"

enum errband_size errband_size_of(double bytes)
{
	return bytes < ERRBAND_SMALL_END_B ? ERRBAND_SMALL :
	       bytes < ERRBAND_MID_END_B ? ERRBAND_MID : ERRBAND_LARGE;
}

enum errband_scope errband_scope_of(unsigned long nodes)
{
	return nodes <= 1 ? ERRBAND_ONE_NODE : ERRBAND_NODES;
}

const char *errband_size_name(enum errband_size k)
{
	static const char *const names[ERRBAND_SIZE_COUNT] = {
		[ERRBAND_SMALL] = "below 64 KiB",
		[ERRBAND_MID] = "64 KiB to 64 MiB",
		[ERRBAND_LARGE] = "64 MiB and up",
	};
	return k >= 0 && k < ERRBAND_SIZE_COUNT ? names[k] : "?";
}

const char *errband_scope_name(enum errband_scope k)
{
	static const char *const names[ERRBAND_SCOPE_COUNT] = {
		[ERRBAND_ONE_NODE] = "one node",
		[ERRBAND_NODES] = "several nodes",
	};
	return k >= 0 && k < ERRBAND_SCOPE_COUNT ? names[k] : "?";
}

const struct errband *errband_get(unsigned long nodes, double bytes)
{
	const struct errband *b = &errband_table[errband_scope_of(nodes)][errband_size_of(bytes)];

	return b->logs >= ERRBAND_MIN_LOGS ? b : NULL;
}

unsigned errband_bit(enum errband_scope scope, enum errband_size size)
{
	return 1u << (scope * ERRBAND_SIZE_COUNT + size);
}

unsigned errband_cell_bit(unsigned long nodes, double bytes)
{
	return errband_bit(errband_scope_of(nodes), errband_size_of(bytes));
}

void errband_range(const struct errband *b, double t, double *lo_s, double *hi_s)
{
	*lo_s = b ? t * b->lo : NAN;
	*hi_s = b ? t * b->hi : NAN;
}

int errband_inside(const struct errband *b, double measured_s, double predicted_s)
{
	double r = measured_s / predicted_s;

	return predicted_s > 0 && r >= b->lo && r <= b->hi;
}

/* The ratios of the cell's samples, log `skip` left out (skip < 0: none), sorted. */
static size_t cell_ratios(const struct errband_sample *s, size_t n, enum errband_scope scope,
			  enum errband_size size, long skip, double *v)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (s[i].scope == scope && s[i].size == size && (long)s[i].log != skip)
			v[k++] = s[i].ratio;
	gsl_sort(v, 1, k);
	return k;
}

int errband_draw(const struct errband_sample *s, size_t n, enum errband_scope scope,
		 enum errband_size size, struct errband *out, struct errbuf *eb)
{
	double *v;
	size_t i, j, k;

	*out = (struct errband){ 0 };
	for (i = 0; i < n; i++)
		if (!(isfinite(s[i].ratio) && s[i].ratio > 0))
			return errbuf_set(eb, "sample %zu: a time ratio of %g is not positive", i,
					  s[i].ratio);
	if (!(v = malloc((n ? n : 1) * sizeof(*v))))
		return errbuf_set(eb, "out of memory");
	k = cell_ratios(s, n, scope, size, -1, v);
	if (k == 0) {
		free(v);
		return 0;
	}
	out->sizes = (unsigned)k;
	out->lo = gsl_stats_quantile_from_sorted_data(v, 1, k, ERRBAND_LO_P);
	out->mid = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.5);
	out->hi = gsl_stats_quantile_from_sorted_data(v, 1, k, ERRBAND_HI_P);

	/* each log once: the first sample of it in the cell counts it */
	for (i = 0; i < n; i++) {
		if (s[i].scope != scope || s[i].size != size)
			continue;
		for (j = 0; j < i; j++)
			if (s[j].log == s[i].log && s[j].scope == scope && s[j].size == size)
				break;
		if (j < i)
			continue;
		out->logs++;
		out->threaded += s[i].threaded != 0;
	}
	if (out->logs < 2) {
		free(v);
		return 0;
	}
	/* each log against the band of the others */
	for (i = 0; i < n; i++) {
		size_t m;
		double lo, hi;

		if (s[i].scope != scope || s[i].size != size)
			continue;
		m = cell_ratios(s, n, scope, size, (long)s[i].log, v);
		lo = gsl_stats_quantile_from_sorted_data(v, 1, m, ERRBAND_LO_P);
		hi = gsl_stats_quantile_from_sorted_data(v, 1, m, ERRBAND_HI_P);
		out->loo_inside += s[i].ratio >= lo && s[i].ratio <= hi;
	}
	free(v);
	return 0;
}
