/*
 * The stated error of NCCL's model (errband.h): the lookup the commands
 * ask, and the drawing of a band from log rows that tools/errband-gen and
 * the unit tests use.  models/nccl-accuracy.md, "The stated error".
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
		[ERRBAND_ANY_NODES] = "any node count",
	};
	return k >= 0 && k < ERRBAND_SCOPE_COUNT ? names[k] : "?";
}

static int S_stated(const struct errband *b)
{
	return b->logs >= ERRBAND_MIN_LOGS && b->machines >= ERRBAND_MIN_MACHINES;
}

/*
 * log2 of the size each cell's band stands for: the geometric middle of the
 * sizes nccl-tests' default sweeps give it (8 B to 64 KiB, 64 KiB to 64 MiB,
 * 64 MiB to 8 GiB).  Between two middles lo, mid and hi move linearly in
 * log size (in log ratio), so the band has no step where the cells meet;
 * below the first and above the last they are the cell's.
 */
static const double S_centre[ERRBAND_SIZE_COUNT] = { 9.5, 21.0, 29.5 };

/* The cell of scope k and size class c whose band a size takes: its own
 * when stated, else the size class's over any node count when stated. */
static const struct errband *S_pick(const struct errband t[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT],
				    enum errband_scope k, int c)
{
	if (S_stated(&t[k][c]))
		return &t[k][c];
	return S_stated(&t[ERRBAND_ANY_NODES][c]) ? &t[ERRBAND_ANY_NODES][c] : NULL;
}

/* The band at log2(bytes) = x of a size of scope k and cell c of table t,
 * into *out (its counts those of the cell picked); -1 when c has none. */
static int S_smooth(const struct errband t[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT],
		    enum errband_scope k, enum errband_size c, double x, struct errband *out)
{
	int a = x < S_centre[c] ? (int)c - 1 : (int)c, b = a + 1;
	const struct errband *own = S_pick(t, k, c), *ba, *bb;
	double f;

	if (!own)
		return -1;
	*out = *own;
	if (a < 0 || b >= ERRBAND_SIZE_COUNT || !(ba = S_pick(t, k, a)) || !(bb = S_pick(t, k, b)))
		return 0;
	f = (x - S_centre[a]) / (S_centre[b] - S_centre[a]);
	out->lo = exp((1 - f) * log(ba->lo) + f * log(bb->lo));
	out->mid = exp((1 - f) * log(ba->mid) + f * log(bb->mid));
	out->hi = exp((1 - f) * log(ba->hi) + f * log(bb->hi));
	return 0;
}

/* Quarter octaves from 1 B to 2^48 B: the sizes a smoothed band is kept for. */
#define S_STEPS 4
#define S_NBANDS (48 * S_STEPS + 1)

/* The quarter octave a size's band is kept for. */
static int S_step(double bytes)
{
	double x = bytes > 1 ? log2(bytes) : 0;
	int i = (int)floor(x * S_STEPS + 0.5);

	return i >= S_NBANDS ? S_NBANDS - 1 : i;
}

const struct errband *errband_get(unsigned long nodes, double bytes)
{
	static struct errband smooth[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT][S_NBANDS];
	static int ready;
	enum errband_scope k = errband_scope_of(nodes);
	enum errband_size c = errband_size_of(bytes);
	int i;

	if (!S_pick(errband_table, k, c))
		return NULL;
	if (!ready) {
		int j, m;
		for (j = 0; j < ERRBAND_SCOPE_COUNT; j++)
			for (m = 0; m < ERRBAND_SIZE_COUNT; m++)
				for (i = 0; i < S_NBANDS; i++)
					(void)S_smooth(errband_table, (enum errband_scope)j,
						       (enum errband_size)m, (double)i / S_STEPS,
						       &smooth[j][m][i]);
		ready = 1;
	}
	return &smooth[k][c][S_step(bytes)];
}

int errband_at(const struct errband table[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT],
	       unsigned long nodes, double bytes, struct errband *out)
{
	return S_smooth(table, errband_scope_of(nodes), errband_size_of(bytes),
			(double)S_step(bytes) / S_STEPS, out);
}

int errband_scope_at(const struct errband table[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT],
		     unsigned long nodes, double bytes)
{
	enum errband_scope k = errband_scope_of(nodes);
	const struct errband *b = S_pick(table, k, errband_size_of(bytes));

	return !b ? -1 : b == &table[k][errband_size_of(bytes)] ? (int)k : ERRBAND_ANY_NODES;
}

unsigned errband_bit(enum errband_scope scope, enum errband_size size)
{
	return 1u << (scope * ERRBAND_SIZE_COUNT + size);
}

unsigned errband_cell_bit(unsigned long nodes, double bytes)
{
	int k = errband_scope_at(errband_table, nodes, bytes);

	return errband_bit(k < 0 ? errband_scope_of(nodes) : (enum errband_scope)k,
			   errband_size_of(bytes));
}

/* Whether sample s falls in cell (scope, size); ERRBAND_ANY_NODES takes either scope. */
static int S_in_cell(const struct errband_sample *s, enum errband_scope scope,
		     enum errband_size size)
{
	return s->size == size && (scope == ERRBAND_ANY_NODES || s->scope == scope);
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

/* The ratios of the cell's samples, machine `skip` left out (skip < 0: none), sorted. */
static size_t cell_ratios(const struct errband_sample *s, size_t n, enum errband_scope scope,
			  enum errband_size size, long skip, double *v)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (S_in_cell(&s[i], scope, size) && (long)s[i].machine != skip)
			v[k++] = s[i].ratio;
	gsl_sort(v, 1, k);
	return k;
}

/* How many distinct values of the field (log or machine) the cell's samples have. */
static unsigned cell_count(const struct errband_sample *s, size_t n, enum errband_scope scope,
			   enum errband_size size, int machine, unsigned *threaded)
{
	unsigned c = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		unsigned id = machine ? s[i].machine : s[i].log;
		if (!S_in_cell(&s[i], scope, size))
			continue;
		for (j = 0; j < i; j++)
			if (S_in_cell(&s[j], scope, size) &&
			    (machine ? s[j].machine : s[j].log) == id)
				break;
		if (j < i)
			continue;
		c++;
		if (threaded)
			*threaded += s[i].threaded != 0;
	}
	return c;
}

/*
 * The band of k sorted ratios v standing on m machines, widened by the
 * margin w: the 10th percentile divided and the 90th multiplied by
 * exp(w · sqrt(1 + 1/m)) (a prediction interval for one more machine from
 * m grows so), then stretched to hold 1.
 */
static void band_of(const double *v, size_t k, unsigned m, double w, double *lo, double *mid,
		    double *hi)
{
	double f = exp(w * sqrt(1.0 + 1.0 / (m ? m : 1)));

	*mid = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.5);
	*lo = gsl_stats_quantile_from_sorted_data(v, 1, k, ERRBAND_LO_P) / f;
	*hi = gsl_stats_quantile_from_sorted_data(v, 1, k, ERRBAND_HI_P) * f;
	if (*lo > 1)
		*lo = 1;
	if (*hi < 1)
		*hi = 1;
}

/* The cell's sizes inside the band drawn without their machine, at widening w. */
static unsigned loo_count(const struct errband_sample *s, size_t n, enum errband_scope scope,
			  enum errband_size size, unsigned machines, double w, double *v)
{
	unsigned inside = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		double lo, mid, hi;
		size_t m;

		if (!S_in_cell(&s[i], scope, size))
			continue;
		for (j = 0; j < i; j++)   /* each machine once: its first sample */
			if (S_in_cell(&s[j], scope, size) && s[j].machine == s[i].machine)
				break;
		if (j < i)
			continue;
		m = cell_ratios(s, n, scope, size, (long)s[i].machine, v);
		band_of(v, m, machines - 1, w, &lo, &mid, &hi);
		for (j = i; j < n; j++)
			if (S_in_cell(&s[j], scope, size) && s[j].machine == s[i].machine)
				inside += s[j].ratio >= lo && s[j].ratio <= hi;
	}
	return inside;
}

int errband_draw(const struct errband_sample *s, size_t n, enum errband_scope scope,
		 enum errband_size size, struct errband *out, struct errbuf *eb)
{
	double *v, w = 0;
	size_t i, k;

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
	out->logs = cell_count(s, n, scope, size, 0, &out->threaded);
	out->machines = cell_count(s, n, scope, size, 1, NULL);
	if (out->machines >= 2) {
		/* the smallest widening at which left-out machines fall inside */
		for (;; w += ERRBAND_WIDEN_STEP) {
			out->loo_inside = loo_count(s, n, scope, size, out->machines, w, v);
			if (out->loo_inside >= ERRBAND_TARGET * k || w + ERRBAND_WIDEN_STEP > ERRBAND_WIDEN_MAX)
				break;
		}
		k = cell_ratios(s, n, scope, size, -1, v);
		band_of(v, k, out->machines, w, &out->lo, &out->mid, &out->hi);
		out->widen = exp(w * sqrt(1.0 + 1.0 / out->machines));
	} else {
		out->lo = gsl_stats_quantile_from_sorted_data(v, 1, k, ERRBAND_LO_P);
		out->mid = gsl_stats_quantile_from_sorted_data(v, 1, k, 0.5);
		out->hi = gsl_stats_quantile_from_sorted_data(v, 1, k, ERRBAND_HI_P);
		out->widen = 1;
	}
	free(v);
	return 0;
}
