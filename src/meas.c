/*
 * The rows of one measurement: the container every reader fills.
 */
#include <stdlib.h>
#include <string.h>

#include "meas.h"

void meas_init(struct meas *m, const char *path)
{
	memset(m, 0, sizeof(*m));
	m->path = xstrdup(path);
	m->op = -1;
}

void meas_release(struct meas *m)
{
	free(m->path);
	free(m->rows);
	free(m->tuned);
	memset(m, 0, sizeof(*m));
	m->op = -1;
}

void meas_push(struct meas *m, const struct meas_row *r)
{
	if (m->n == m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 64;
		m->rows = xrealloc(m->rows, m->alloc * sizeof(*m->rows));
	}
	m->rows[m->n++] = *r;
}

const char *meas_format_name(enum meas_format format)
{
	switch (format) {
	case MEAS_NCCL_JSON: return "nccl-tests JSON";
	case MEAS_CSV: return "CSV";
	case MEAS_OSU: return "OSU micro-benchmarks";
	case MEAS_IMB: return "Intel MPI Benchmarks";
	default: return "nccl-tests log";
	}
}

/* <0, 0, >0 as (op, size) of a sorts before, with or after (op, size). */
static int S_tuned_cmp(const struct meas_tuned *a, int op, double size)
{
	if (a->op != op)
		return a->op < op ? -1 : 1;
	return a->size < size ? -1 : a->size > size;
}

/* The index of the first entry not before (op, size). */
static size_t S_tuned_lower(const struct meas *m, int op, double size)
{
	size_t lo = 0, hi = m->ntuned;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (S_tuned_cmp(&m->tuned[mid], op, size) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void meas_tuned_add(struct meas *m, const struct meas_tuned *t)
{
	size_t i = S_tuned_lower(m, t->op, t->size);
	struct meas_tuned *e = i < m->ntuned ? &m->tuned[i] : NULL;

	if (e && S_tuned_cmp(e, t->op, t->size) == 0) {
		if (e->algo != t->algo || e->proto != t->proto)
			e->mixed = 1;
		return;
	}
	if (m->ntuned >= MEAS_TUNED_MAX)
		return;
	if (m->ntuned == m->tuned_alloc) {
		m->tuned_alloc = m->tuned_alloc ? 2 * m->tuned_alloc : 32;
		m->tuned = xrealloc(m->tuned, m->tuned_alloc * sizeof(*m->tuned));
	}
	memmove(m->tuned + i + 1, m->tuned + i, (m->ntuned - i) * sizeof(*m->tuned));
	m->tuned[i] = *t;
	m->tuned[i].mixed = 0;
	m->ntuned++;
}

const struct meas_tuned *meas_tuned_find(const struct meas *m, int op, double size)
{
	int ops[2] = { op, -1 };

	for (int k = 0; k < 2; k++) {
		size_t i = S_tuned_lower(m, ops[k], size);

		if (i < m->ntuned && S_tuned_cmp(&m->tuned[i], ops[k], size) == 0)
			return &m->tuned[i];
	}
	return NULL;
}

static int S_tuned_qcmp(const void *a, const void *b)
{
	const struct meas_tuned *y = b;

	return S_tuned_cmp(a, y->op, y->size);
}

void meas_tuned_per_rank(struct meas *m, unsigned long ranks)
{
	size_t i, k = 0;

	if (m->ntuned == 0)
		return;
	for (i = 0; i < m->ntuned; i++) {
		struct meas_tuned t = m->tuned[i];

		if (t.per_rank && ranks == 0)
			continue;
		if (t.per_rank)
			t.size *= (double)ranks;
		t.per_rank = 0;
		m->tuned[k++] = t;
	}
	m->ntuned = k;
	qsort(m->tuned, m->ntuned, sizeof(*m->tuned), S_tuned_qcmp);
}
