/*
 * The kinds of collective a trace holds, found by hash (trace.h).
 */
#define TRACE_INSIDE
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bound.h"
#include "trace.h"
#include "util.h"

const char *trace_format_name(enum trace_format f)
{
	switch (f) {
	case TRACE_KINETO: return "PyTorch profiler trace";
	case TRACE_INSPECTOR: return "NCCL Inspector JSON";
	case TRACE_NCCL_INFO: return "NCCL INFO lines";
	}
	return "?";
}

/* ---- names ---- */

static const struct { const char *name; double size; } S_dtypes[] = {
	{ "float", 4 }, { "float32", 4 }, { "double", 8 }, { "float64", 8 },
	{ "half", 2 }, { "float16", 2 }, { "bfloat16", 2 }, { "long", 8 }, { "int64", 8 },
	{ "int", 4 }, { "int32", 4 }, { "short", 2 }, { "int16", 2 }, { "char", 1 },
	{ "int8", 1 }, { "byte", 1 }, { "uint8", 1 }, { "bool", 1 },
	{ "float8_e4m3fn", 1 }, { "float8_e5m2", 1 }, { "float8_e4m3fnuz", 1 },
	{ "float8_e5m2fnuz", 1 }, { "complexfloat", 8 }, { "complexdouble", 16 },
	{ "complexhalf", 4 }, { "uint16", 2 }, { "uint32", 4 }, { "uint64", 8 },
};

double trace_dtype_size(const char *dtype)
{
	size_t i;

	for (i = 0; i < sizeof(S_dtypes) / sizeof(S_dtypes[0]); i++)
		if (!strcasecmp(dtype, S_dtypes[i].name))
			return S_dtypes[i].size;
	return 0;
}

int trace_coll_lookup(const char *name)
{
	char s[64];
	size_t n = 0;

	/* Lower case without '_': "_allgather_base" -> "allgatherbase". */
	for (; *name && n < sizeof(s) - 1; name++)
		if (*name != '_')
			s[n++] = (char)tolower((unsigned char)*name);
	s[n] = '\0';
	if (!strncmp(s, "allreduce", 9) || !strcmp(s, "barrier"))
		return OP_ALLREDUCE;
	if (!strncmp(s, "allgather", 9))
		return OP_ALLGATHER;
	if (!strncmp(s, "reducescatter", 13))
		return OP_REDUCESCATTER;
	if (!strncmp(s, "alltoall", 8))
		return OP_ALLTOALL;
	if (!strncmp(s, "broadcast", 9))
		return OP_BROADCAST;
	if (!strcmp(s, "reduce"))
		return OP_REDUCE;
	if (!strcmp(s, "send") || !strcmp(s, "recv") || !strcmp(s, "sendrecv"))
		return OP_SENDRECV;
	return -1;
}

/* ---- the kinds, by hash ---- */

static uint64_t S_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = UTIL_FNV(h, *c++);
	return h;
}

static uint64_t S_kind_hash(const struct trace_kind *k)
{
	uint64_t h = UTIL_FNV_BASIS;

	h = S_fnv(h, k->op, strlen(k->op) + 1);
	h = S_fnv(h, &k->size_B, sizeof(k->size_B));
	h = S_fnv(h, &k->ranks, sizeof(k->ranks));
	h = S_fnv(h, k->dtype, strlen(k->dtype) + 1);
	h = S_fnv(h, k->pg, strlen(k->pg) + 1);
	return S_fnv(h, k->source, strlen(k->source) + 1);
}

static int S_kind_same(const struct trace_kind *a, const struct trace_kind *b)
{
	int same_size = (isnan(a->size_B) && isnan(b->size_B)) || a->size_B == b->size_B;

	return same_size && a->ranks == b->ranks && !strcmp(a->op, b->op) &&
	       !strcmp(a->dtype, b->dtype) && !strcmp(a->pg, b->pg) &&
	       !strcmp(a->source, b->source);
}

static void S_rehash(struct trace *t)
{
	size_t i, size = t->hash_size ? 2 * t->hash_size : 256;

	free(t->hash);
	t->hash = xmalloc(size * sizeof(*t->hash));
	t->hash_size = size;
	for (i = 0; i < size; i++)
		t->hash[i] = (size_t)-1;
	for (i = 0; i < t->nkinds; i++) {
		size_t j = S_kind_hash(&t->kinds[i]) & (size - 1);
		while (t->hash[j] != (size_t)-1)
			j = (j + 1) & (size - 1);
		t->hash[j] = i;
	}
}

int trace_kind_add(struct trace *t, const struct trace_kind *k, double dur,
		      struct errbuf *eb)
{
	struct trace_kind *kk;
	size_t j;

	if (!isnan(k->size_B) && bound_check(BOUND_SIZE, k->size_B) < 0)
		return errbuf_set(eb, "%s of %g bytes: not %s", k->op, k->size_B,
				  bound_what(BOUND_SIZE));
	if (!isnan(dur) && bound_check(BOUND_TIME, dur) < 0)
		return errbuf_set(eb, "%s of %g s: not %s", k->op, dur, bound_what(BOUND_TIME));

	if (2 * (t->nkinds + 1) > t->hash_size)
		S_rehash(t);
	j = S_kind_hash(k) & (t->hash_size - 1);
	while (t->hash[j] != (size_t)-1 && !S_kind_same(&t->kinds[t->hash[j]], k))
		j = (j + 1) & (t->hash_size - 1);
	if (t->hash[j] == (size_t)-1) {
		if (t->nkinds == t->kinds_alloc) {
			t->kinds_alloc = t->kinds_alloc ? 2 * t->kinds_alloc : 32;
			t->kinds = xrealloc(t->kinds, t->kinds_alloc * sizeof(*t->kinds));
		}
		t->kinds[t->nkinds] = *k;
		t->kinds[t->nkinds].dur = NULL;
		t->kinds[t->nkinds].n = t->kinds[t->nkinds].alloc = 0;
		t->kinds[t->nkinds].count = 0;
		t->hash[j] = t->nkinds++;
	}
	kk = &t->kinds[t->hash[j]];
	kk->count++;
	if (!isnan(dur)) {
		if (kk->n == kk->alloc) {
			kk->alloc = kk->alloc ? 2 * kk->alloc : 16;
			kk->dur = xrealloc(kk->dur, kk->alloc * sizeof(*kk->dur));
		}
		kk->dur[kk->n++] = dur;
	}
	return 0;
}

static int S_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double trace_kind_median(const struct trace_kind *k)
{
	double *d;
	double m;

	if (k->n == 0)
		return NAN;
	d = xmalloc(k->n * sizeof(*d));
	memcpy(d, k->dur, k->n * sizeof(*d));
	qsort(d, k->n, sizeof(*d), S_dcmp);
	m = k->n % 2 ? d[k->n / 2] : 0.5 * (d[k->n / 2 - 1] + d[k->n / 2]);
	free(d);
	return m;
}

long trace_reader_read(struct reader *r, char *out, size_t n, struct errbuf *eb)
{
	if (r->gz)
		return gz_read(r->gz, out, n, eb);
	if (n > r->len - r->pos)
		n = r->len - r->pos;
	memcpy(out, r->buf + r->pos, n);
	r->pos += n;
	return (long)n;
}


void trace_copy(char *dst, size_t cap, const char *s, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

int trace_lcmp(const void *a, const void *b)
{
	const struct lrec *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->has_corr != y->has_corr)
		return x->has_corr < y->has_corr ? -1 : 1;
	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	if (x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

