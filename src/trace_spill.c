/*
 * External merge sort of fixed-size records (trace_spill.h).  The runs
 * are merged by scanning their heads for the least one: there are few of
 * them (a 10 GB trace of 25 million kernels makes about 200), and each
 * step costs far less than parsing the record's JSON did.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "trace_spill.h"

void spill_init(struct spill *s, size_t recsz, int (*cmp)(const void *, const void *))
{
	memset(s, 0, sizeof(*s));
	s->recsz = recsz;
	s->cmp = cmp;
}

static int S_flush(struct spill *s, struct errbuf *eb)
{
	FILE *f;

	if (s->n == 0)
		return 0;
	qsort(s->buf, s->n, s->recsz, s->cmp);
	f = tmpfile();
	if (!f)
		return errbuf_set(eb, "cannot create a temporary file to sort the trace: %s",
				  strerror(errno));
	if (fwrite(s->buf, s->recsz, s->n, f) != s->n || fflush(f) != 0) {
		fclose(f);
		return errbuf_set(eb, "cannot write a temporary file to sort the trace: %s",
				  strerror(errno));
	}
	s->runs = xrealloc(s->runs, (s->nruns + 1) * sizeof(*s->runs));
	s->runs[s->nruns++] = f;
	s->n = 0;
	return 0;
}

int spill_add(struct spill *s, const void *rec, struct errbuf *eb)
{
	if (s->n == s->cap) {
		if (s->cap < SPILL_BUF_RECS) {
			s->cap = s->cap ? 2 * s->cap : 1024;
			s->buf = xrealloc(s->buf, s->cap * s->recsz);
		} else if (S_flush(s, eb) < 0) {
			return -1;
		}
	}
	memcpy(s->buf + s->n * s->recsz, rec, s->recsz);
	s->n++;
	s->count++;
	return 0;
}

static int S_load(struct spill *s, size_t i, struct errbuf *eb)
{
	if (fread(s->heads + i * s->recsz, s->recsz, 1, s->runs[i]) == 1) {
		s->live[i] = 1;
		return 0;
	}
	s->live[i] = 0;
	if (ferror(s->runs[i]))
		return errbuf_set(eb, "cannot read back a temporary file: %s", strerror(errno));
	return 0;
}

int spill_sort(struct spill *s, struct errbuf *eb)
{
	size_t i;

	s->reading = 1;
	s->pos = 0;
	if (s->nruns == 0) {
		if (s->n > 0)
			qsort(s->buf, s->n, s->recsz, s->cmp);
		return 0;
	}
	if (S_flush(s, eb) < 0)
		return -1;
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
	s->heads = xmalloc(s->nruns * s->recsz);
	s->live = xmalloc(s->nruns * sizeof(*s->live));
	for (i = 0; i < s->nruns; i++) {
		rewind(s->runs[i]);
		if (S_load(s, i, eb) < 0)
			return -1;
	}
	return 0;
}

int spill_next(struct spill *s, void *rec, struct errbuf *eb)
{
	size_t i, best = (size_t)-1;

	if (s->nruns == 0) {
		if (s->pos >= s->n)
			return 0;
		memcpy(rec, s->buf + s->pos++ * s->recsz, s->recsz);
		return 1;
	}
	for (i = 0; i < s->nruns; i++)
		if (s->live[i] && (best == (size_t)-1 ||
				   s->cmp(s->heads + i * s->recsz, s->heads + best * s->recsz) < 0))
			best = i;
	if (best == (size_t)-1)
		return 0;
	memcpy(rec, s->heads + best * s->recsz, s->recsz);
	return S_load(s, best, eb) < 0 ? -1 : 1;
}

void spill_release(struct spill *s)
{
	size_t i;

	for (i = 0; i < s->nruns; i++)
		fclose(s->runs[i]);
	free(s->runs);
	free(s->heads);
	free(s->live);
	free(s->buf);
	memset(s, 0, sizeof(*s));
}
