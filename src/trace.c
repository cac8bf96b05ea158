/*
 * Reading profiler traces, Inspector JSON lines and NCCL INFO lines into
 * struct trace, and the per-step overlap (trace.h, models/trace.md).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bound.h"
#include "gz.h"
#include "json.h"
#include "trace.h"
#include "units.h"

#define CHUNK (1u << 20)
#define TEXT_LINE_MAX (64u << 10)
#define PROGRESS_EVERY (4.0 * 1048576)

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

/* ---- the store ---- */

void trace_init(struct trace *t)
{
	memset(t, 0, sizeof(*t));
}

void trace_release(struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nkinds; i++)
		free(t->kinds[i].dur);
	free(t->kinds);
	free(t->hash);
	for (i = 0; i < t->nfiles; i++)
		free(t->files[i].path);
	free(t->files);
	free(t->win);
	free(t->steps);
	spill_release(&t->launch);
	memset(t, 0, sizeof(*t));
}

static uint64_t S_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 1099511628211ull;
	return h;
}

static uint64_t S_kind_hash(const struct trace_kind *k)
{
	uint64_t h = 1469598103934665603ull;

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

/*
 * The kind like k (added when new); a call of duration dur (s, NaN: none).
 * The one check of what a record gives before it is kept: a size past
 * BOUND_SIZE or a duration past BOUND_TIME returns -1 with the reason in
 * eb (the caller says where).
 */
static int S_kind_add(struct trace *t, const struct trace_kind *k, double dur,
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

/* ---- records sorted on disk ---- */

struct lrec {               /* a kernel or a launch, by correlation */
	uint32_t file, corr;
	int64_t ts_ns;
	uint32_t dur_ns;
	uint16_t dev;
	uint8_t type;           /* 0 launch, 1 compute kernel, 2 NCCL kernel */
	uint8_t has_corr;
};

struct srec {               /* a kernel of a step, by step, device and start */
	uint32_t file;
	int32_t win;
	int64_t ts_ns;
	uint32_t dur_ns;
	uint16_t dev;
	uint8_t comm;
	uint8_t pad;
};

static int S_lcmp(const void *a, const void *b)
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

static int S_scmp(const void *a, const void *b)
{
	const struct srec *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->win != y->win)
		return x->win < y->win ? -1 : 1;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ts_ns < y->ts_ns ? -1 : x->ts_ns > y->ts_ns;
}

/* ---- the JSON readers ---- */

#define KEY_MAX 48
#define NAME_MAX_ 160
#define PATH_DEPTH 8

struct ev {                 /* the fields of one event (or Inspector object) kept */
	char ph, cat[32], name[NAME_MAX_];
	double pid, tid, dev;
	int64_t ts_ns, dur_ns;
	int have_ts, have_dur;
	char coll[40], dtype[24], pgname[32], pgdesc[32];
	double in_n, out_n, group, corr;
	unsigned long pg_first, pg_stride, pg_count;
	long line;
	/* Inspector */
	double rank, nranks, msg_B, exec_us;
	char icoll[32], comm[48];
};

struct jctx {
	struct trace *t;
	struct json_stream *js;
	int file;
	char path[PATH_DEPTH][KEY_MAX];  /* last key at each depth (1..) */
	int events_depth;       /* depth of the events array, 0 none yet */
	int kineto, inspector;
	struct ev e;
	struct errbuf *eb;
};

static void S_ev_reset(struct ev *e, long line)
{
	memset(e, 0, sizeof(*e));
	e->pid = e->tid = e->dev = e->in_n = e->out_n = e->group = e->corr = NAN;
	e->rank = e->nranks = e->msg_B = e->exec_us = NAN;
	e->line = line;
}

static void S_copy(char *dst, size_t cap, const char *s, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* "4458677009853.422" µs into ns without rounding through a double. */
static int S_us_to_ns(const char *s, size_t len, int64_t *ns)
{
	char buf[64];
	size_t i = 0;
	int64_t whole = 0, frac = 0, scale = 1000;
	int neg = 0, digits = 0;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (buf[i] == '-') {
		neg = 1;
		i++;
	}
	for (; isdigit((unsigned char)buf[i]); i++, digits++) {
		if (whole > (INT64_MAX / 1000 - 9) / 10)
			return -1;
		whole = whole * 10 + (buf[i] - '0');
	}
	if (buf[i] == '.') {
		for (i++; isdigit((unsigned char)buf[i]); i++) {
			if (scale > 1) {
				scale /= 10;
				frac += (buf[i] - '0') * scale;
			}
		}
	}
	if (buf[i] != '\0' || digits == 0) {   /* an exponent: through a double */
		char *end;
		double x = strtod(buf, &end);
		if (*end != '\0' || !isfinite(x) || fabs(x) > 9e12 * 1000)
			return -1;
		*ns = (int64_t)llround(x * 1000);
		return 0;
	}
	*ns = (neg ? -1 : 1) * (whole * 1000 + frac);
	return 0;
}

/* A JSON number through the one number reader (units_decimal). */
static int S_num(const char *s, size_t len, double *x)
{
	char buf[64];

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return units_decimal(buf, 0, x);
}

/* A number of the event bounded as its kind is, else a file:line refusal. */
static int S_bounded(struct jctx *c, const char *key, const char *s, size_t len,
		     enum bound b, double scale, double *x)
{
	if (S_num(s, len, x) < 0 || bound_check(b, *x * scale) < 0)
		return json_stream_fail(c->js, "\"%s\" is %.*s, not %s", key,
					(int)(len > 40 ? 40 : len), s, bound_what(b));
	return 1;
}

/* "[0, 1, 2, 3]": the first rank, the stride when regular (else 0), the count. */
static void S_pg_ranks(struct ev *e, const char *s, size_t len)
{
	size_t i = 0;
	unsigned long n = 0, first = 0, prev = 0, stride = 0;
	int regular = 1;

	while (i < len) {
		unsigned long r = 0;
		if (!isdigit((unsigned char)s[i])) {
			i++;
			continue;
		}
		while (i < len && isdigit((unsigned char)s[i]) && r < (1ul << 40))
			r = r * 10 + (unsigned long)(s[i++] - '0');
		if (n == 0)
			first = r;
		else if (n == 1)
			stride = r > prev ? r - prev : 0;
		else if (r != prev + stride)
			regular = 0;
		prev = r;
		n++;
	}
	e->pg_first = first;
	e->pg_count = n;
	e->pg_stride = regular ? (n > 1 ? stride : 1) : 0;
}

static const char *S_key(const struct jctx *c, int depth)
{
	return depth >= 1 && depth < PATH_DEPTH ? c->path[depth] : "";
}

/* Where a scalar at the current depth sits: 1 event field, 2 arg, 0 other. */
static int S_where(const struct jctx *c, int *idx)
{
	int d = json_stream_depth(c->js);

	if (c->events_depth > 0 && d == c->events_depth + 1) {
		*idx = d;
		return 1;
	}
	if (c->events_depth > 0 && d == c->events_depth + 2 &&
	    !strcmp(S_key(c, c->events_depth + 1), "args")) {
		*idx = d;
		return 2;
	}
	return 0;
}

static int S_bad(struct jctx *c, const char *key, const char *what)
{
	return json_stream_fail(c->js, "\"%s\" %s", key, what);
}

/* "traceEvents" holds an array; any other value is refused, not read as no events. */
static int S_events_type(struct jctx *c, int d, const char *what)
{
	if (d == 1 && !strcmp(S_key(c, 1), "traceEvents"))
		return json_stream_fail(c->js, "\"traceEvents\" is %s; expected an array of "
					"events", what);
	return 1;
}

static int S_j_number(void *ctx, const char *s, size_t len)
{
	struct jctx *c = ctx;
	int d = json_stream_depth(c->js), idx;
	int where = S_where(c, &idx);
	const char *k;
	double x;

	if (!S_events_type(c, d, "a number"))
		return 0;
	if (where == 1) {
		k = S_key(c, idx);
		if (!strcmp(k, "ts")) {
			if (S_us_to_ns(s, len, &c->e.ts_ns) < 0)
				return S_bad(c, k, "is not a time in µs");
			c->e.have_ts = 1;
		} else if (!strcmp(k, "dur")) {
			if (S_us_to_ns(s, len, &c->e.dur_ns) < 0 || c->e.dur_ns < 0)
				return S_bad(c, k, "is not a duration in µs (a number, not negative)");
			c->e.have_dur = 1;
		} else if (!strcmp(k, "pid")) {
			S_num(s, len, &c->e.pid);
		} else if (!strcmp(k, "tid")) {
			S_num(s, len, &c->e.tid);
		}
		return 1;
	}
	if (where == 2) {
		k = S_key(c, idx);
		if (!strcmp(k, "In msg nelems"))
			return S_bounded(c, k, s, len, BOUND_COUNT, 1, &c->e.in_n);
		if (!strcmp(k, "Out msg nelems"))
			return S_bounded(c, k, s, len, BOUND_COUNT, 1, &c->e.out_n);
		if (!strcmp(k, "Group size"))
			return S_bounded(c, k, s, len, BOUND_RANKS, 1, &c->e.group);
		if (S_num(s, len, &x) < 0)
			return 1;
		if (!strcmp(k, "correlation"))
			c->e.corr = x;
		else if (!strcmp(k, "device"))
			c->e.dev = x;
		return 1;
	}
	/* distributedInfo, Inspector's header and coll_perf / p2p_perf. */
	if (d == 2) {
		const char *top = S_key(c, 1);
		k = S_key(c, 2);
		if (!strcmp(top, "distributedInfo")) {
			if (!strcmp(k, "rank")) {
				if (!S_bounded(c, k, s, len, BOUND_RANK, 1, &x))
					return 0;
				c->t->files[c->file].rank = (long)x;
			} else if (!strcmp(k, "world_size")) {
				if (!S_bounded(c, k, s, len, BOUND_RANKS, 1, &x))
					return 0;
				c->t->files[c->file].world = (long)x;
			}
		} else if (!strcmp(top, "header")) {
			if (!strcmp(k, "rank"))
				return S_bounded(c, k, s, len, BOUND_RANK, 1, &c->e.rank);
			if (!strcmp(k, "n_ranks"))
				return S_bounded(c, k, s, len, BOUND_RANKS, 1, &c->e.nranks);
		} else if (!strcmp(top, "coll_perf") || !strcmp(top, "p2p_perf")) {
			if (!strcmp(k, "coll_msg_size_bytes") || !strcmp(k, "p2p_msg_size_bytes"))
				return S_bounded(c, k, s, len, BOUND_SIZE, 1, &c->e.msg_B);
			if (!strcmp(k, "coll_exec_time_us") || !strcmp(k, "p2p_exec_time_us"))
				return S_bounded(c, k, s, len, BOUND_TIME, 1e-6, &c->e.exec_us);
		}
	}
	return 1;
}

static int S_j_string(void *ctx, const char *s, size_t len)
{
	struct jctx *c = ctx;
	int d = json_stream_depth(c->js), idx;
	int where = S_where(c, &idx);
	const char *k;

	if (!S_events_type(c, d, "a string"))
		return 0;
	if (where == 1) {
		k = S_key(c, idx);
		if (!strcmp(k, "ph"))
			c->e.ph = len ? s[0] : 0;
		else if (!strcmp(k, "cat"))
			S_copy(c->e.cat, sizeof(c->e.cat), s, len);
		else if (!strcmp(k, "name"))
			S_copy(c->e.name, sizeof(c->e.name), s, len);
		else if (!strcmp(k, "ts") || !strcmp(k, "dur")) {
			/* Some writers quote numbers. */
			int64_t v;
			if (S_us_to_ns(s, len, &v) < 0 || (k[0] == 'd' && v < 0))
				return S_bad(c, k, "is not a time in µs");
			if (k[0] == 't') {
				c->e.ts_ns = v;
				c->e.have_ts = 1;
			} else {
				c->e.dur_ns = v;
				c->e.have_dur = 1;
			}
		}
		return 1;
	}
	if (where == 2) {
		k = S_key(c, idx);
		if (!strcmp(k, "Collective name"))
			S_copy(c->e.coll, sizeof(c->e.coll), s, len);
		else if (!strcmp(k, "dtype"))
			S_copy(c->e.dtype, sizeof(c->e.dtype), s, len);
		else if (!strcmp(k, "Process Group Name"))
			S_copy(c->e.pgname, sizeof(c->e.pgname), s, len);
		else if (!strcmp(k, "Process Group Description"))
			S_copy(c->e.pgdesc, sizeof(c->e.pgdesc), s, len);
		else if (!strcmp(k, "Process Group Ranks"))
			S_pg_ranks(&c->e, s, len);
		return 1;
	}
	if (d == 2) {
		const char *top = S_key(c, 1);
		k = S_key(c, 2);
		if (!strcmp(top, "coll_perf") && !strcmp(k, "coll"))
			S_copy(c->e.icoll, sizeof(c->e.icoll), s, len);
		else if (!strcmp(top, "p2p_perf") && !strcmp(k, "p2p"))
			S_copy(c->e.icoll, sizeof(c->e.icoll), s, len);
		else if (!strcmp(top, "header") && !strcmp(k, "comm_name"))
			S_copy(c->e.comm, sizeof(c->e.comm), s, len);
		else if (!strcmp(top, "header") && !strcmp(k, "id") && !c->e.comm[0])
			S_copy(c->e.comm, sizeof(c->e.comm), s, len);
	}
	return 1;
}

static int S_j_key(void *ctx, const char *s, size_t len)
{
	struct jctx *c = ctx;
	int d = json_stream_depth(c->js);

	if (d >= 1 && d < PATH_DEPTH)
		S_copy(c->path[d], KEY_MAX, s, len);
	if (d == 1) {
		if (len == 11 && !memcmp(s, "traceEvents", 11))
			c->kineto = 1;
		else if ((len == 9 && !memcmp(s, "coll_perf", 9)) ||
			 (len == 8 && !memcmp(s, "p2p_perf", 8)) ||
			 (len == 6 && !memcmp(s, "header", 6)))
			c->inspector = 1;
	}
	return 1;
}

static int S_j_start_array(void *ctx)
{
	struct jctx *c = ctx;
	int d = json_stream_depth(c->js);

	if (!c->events_depth && ((d == 1) || (d == 2 && !strcmp(S_key(c, 1), "traceEvents")))) {
		c->events_depth = d;
		c->kineto = 1;
	}
	return 1;
}

static int S_j_end_array(void *ctx)
{
	struct jctx *c = ctx;

	if (json_stream_depth(c->js) == c->events_depth)
		c->events_depth = -c->events_depth;   /* done: no more events */
	return 1;
}

static int S_j_null(void *ctx)
{
	struct jctx *c = ctx;
	return S_events_type(c, json_stream_depth(c->js), "null");
}

static int S_j_bool(void *ctx, int b)
{
	struct jctx *c = ctx;
	(void)b;
	return S_events_type(c, json_stream_depth(c->js), "true or false");
}

static int S_j_start_map(void *ctx)
{
	struct jctx *c = ctx;
	int d = json_stream_depth(c->js);

	if (!S_events_type(c, d - 1, "an object"))
		return 0;

	if (d < PATH_DEPTH)
		c->path[d][0] = '\0';
	if ((c->events_depth > 0 && d == c->events_depth + 1) || d == 1)
		S_ev_reset(&c->e, json_stream_line(c->js));
	return 1;
}

static int S_launch(struct jctx *c, uint8_t type, int64_t ts, int64_t dur, double dev,
		    double corr)
{
	struct lrec r;

	memset(&r, 0, sizeof(r));
	r.file = (uint32_t)c->file;
	r.ts_ns = ts;
	r.dur_ns = dur > 0xffffffffll ? 0xffffffffu : (uint32_t)dur;
	r.dev = dev >= 0 && dev < 65535 ? (uint16_t)dev : 0;
	r.type = type;
	if (corr >= 0 && corr <= 4294967295.0) {
		r.has_corr = 1;
		r.corr = (uint32_t)corr;
	}
	if (spill_add(&c->t->launch, &r, c->eb) < 0)
		return json_stream_fail(c->js, "%s", c->eb->msg);
	return 1;
}

/* The collective a kernel's name gives: "ncclDevKernel_AllGather_RING_LL" -> AllGather. */
static void S_kernel_coll(const char *name, char *out, size_t cap)
{
	const char *p = strchr(name, '_'), *q;

	out[0] = '\0';
	if (!p)
		return;
	p++;
	q = p + strcspn(p, "_(");
	S_copy(out, cap, p, (size_t)(q - p));
}

static int S_is_nccl(const char *name)
{
	return !strncmp(name, "ncclKernel_", 11) || !strncmp(name, "ncclDevKernel_", 14);
}

static int S_kineto_event(struct jctx *c)
{
	struct ev *e = &c->e;
	struct trace_file *f = &c->t->files[c->file];
	char cat[32];
	size_t i;

	f->events++;
	for (i = 0; e->cat[i] && i < sizeof(cat) - 1; i++)
		cat[i] = (char)tolower((unsigned char)e->cat[i]);
	cat[i] = '\0';
	if (e->ph != 'X')
		return 1;
	if (!e->have_ts || !e->have_dur)
		return 1;
	if (!strncmp(e->name, "ProfilerStep#", 13) && strncmp(cat, "gpu_", 4)) {
		struct trace *t = c->t;
		char *end;
		long n = strtol(e->name + 13, &end, 10);
		if (end == e->name + 13)
			return 1;
		if (t->nwin == t->win_alloc) {
			t->win_alloc = t->win_alloc ? 2 * t->win_alloc : 16;
			t->win = xrealloc(t->win, t->win_alloc * sizeof(*t->win));
		}
		t->win[t->nwin].file = c->file;
		t->win[t->nwin].number = n;
		t->win[t->nwin].t0_ns = e->ts_ns;
		t->win[t->nwin].dur_ns = e->dur_ns;
		t->nwin++;
		f->windows++;
		return 1;
	}
	if (!strcmp(cat, "cuda_runtime") || !strcmp(cat, "cuda_driver")) {
		if (!isnan(e->corr))
			return S_launch(c, 0, e->ts_ns, e->dur_ns, 0, e->corr);
		return 1;
	}
	if (strcmp(cat, "kernel"))
		return 1;
	f->kernels++;
	{
		double dev = !isnan(e->dev) ? e->dev : e->pid;
		int comm = S_is_nccl(e->name);
		if (!S_launch(c, comm ? 2 : 1, e->ts_ns, e->dur_ns, dev, e->corr))
			return 0;
		if (!comm)
			return 1;
	}
	f->comm_kernels++;
	{
		struct trace_kind k;
		char name[40];
		double esz;

		memset(&k, 0, sizeof(k));
		k.size_B = k.elems = NAN;
		k.file = c->file;
		k.line = e->line;
		snprintf(k.source, sizeof(k.source), "kernel");
		if (e->coll[0])
			snprintf(name, sizeof(name), "%s", e->coll);
		else
			S_kernel_coll(e->name, name, sizeof(name));
		k.coll = trace_coll_lookup(name);
		snprintf(k.op, sizeof(k.op), "%s", k.coll >= 0 ? coll_op_name(k.coll) :
			 name[0] ? name : "nccl");
		snprintf(k.dtype, sizeof(k.dtype), "%s", e->dtype);
		if (e->pgname[0] || e->pgdesc[0])
			snprintf(k.pg, sizeof(k.pg), "%s%s%s", e->pgname,
				 e->pgname[0] && e->pgdesc[0] ? ":" : "", e->pgdesc);
		if (!isnan(e->in_n) || !isnan(e->out_n)) {
			double in = isnan(e->in_n) ? 0 : e->in_n, out = isnan(e->out_n) ? 0 : e->out_n;
			if (in < 0 || out < 0)
				return json_stream_fail(c->js, "kernel '%.60s' has a negative element count",
							e->name);
			/* nccl-tests' size: the larger buffer (all-gather's output,
			 * reduce-scatter's input); the same for the others. */
			k.elems = in > out ? in : out;
			esz = trace_dtype_size(e->dtype);
			if (esz > 0)
				k.size_B = k.elems * esz;
		}
		if (e->group >= 1 && e->group <= (double)RANKS_MAX && e->group == floor(e->group))
			k.ranks = (unsigned long)e->group;
		else if (e->pg_count > 0)
			k.ranks = e->pg_count;
		if (e->pg_count > 0 && e->pg_count == k.ranks)
			k.stride = e->pg_stride;
		if (S_kind_add(c->t, &k, (double)e->dur_ns * 1e-9, c->eb) < 0)
			return json_stream_fail(c->js, "%s", c->eb->msg);
	}
	return 1;
}

static int S_inspector_object(struct jctx *c)
{
	struct ev *e = &c->e;
	struct trace_kind k;
	struct trace_file *f = &c->t->files[c->file];

	f->events++;
	if (!e->icoll[0])
		return 1;
	if (isnan(e->msg_B) || e->msg_B < 0)
		return json_stream_fail(c->js, "Inspector record of %s without a message size",
					e->icoll);
	if (isnan(e->exec_us) || e->exec_us < 0)
		return json_stream_fail(c->js, "Inspector record of %s without an execution time",
					e->icoll);
	memset(&k, 0, sizeof(k));
	k.file = c->file;
	k.line = e->line;
	snprintf(k.source, sizeof(k.source), "inspector");
	k.coll = trace_coll_lookup(e->icoll);
	snprintf(k.op, sizeof(k.op), "%s", k.coll >= 0 ? coll_op_name(k.coll) : e->icoll);
	if (!isnan(e->nranks))
		k.ranks = (unsigned long)e->nranks;
	if (!isnan(e->rank) && f->rank < 0)
		f->rank = (long)e->rank;
	/* Inspector's size is count × type size, one rank's share for
	 * all-gather and reduce-scatter (inspector.cc, inspectorComputeOpBw). */
	k.size_B = e->msg_B;
	if ((k.coll == OP_ALLGATHER || k.coll == OP_REDUCESCATTER) && k.ranks)
		k.size_B *= (double)k.ranks;
	k.elems = NAN;
	snprintf(k.pg, sizeof(k.pg), "%s", e->comm);
	f->comm_kernels++;
	if (S_kind_add(c->t, &k, e->exec_us * 1e-6, c->eb) < 0)
		return json_stream_fail(c->js, "%s", c->eb->msg);
	return 1;
}

static int S_j_end_map(void *ctx)
{
	struct jctx *c = ctx;
	int d = json_stream_depth(c->js);

	if (c->events_depth > 0 && d == c->events_depth + 1)
		return S_kineto_event(c);
	if (d == 1 && c->inspector && !c->kineto)
		return S_inspector_object(c);
	return 1;
}

static const struct json_cb S_jcb = {
	S_j_null, S_j_bool, S_j_number, S_j_string, S_j_start_map, S_j_key, S_j_end_map,
	S_j_start_array, S_j_end_array
};

/* ---- NCCL INFO lines ---- */

/* NCCL's ncclDataType_t (nccl.h): int8, uint8, int32, uint32, int64,
 * uint64, float16, float32, float64, bfloat16, fp8 e4m3, fp8 e5m2. */
static const double S_nccl_dtype_size[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };
static const char *const S_nccl_dtype_name[] = {
	"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32",
	"float64", "bfloat16", "f8e4m3", "f8e5m2"
};

static int S_field(const char *line, const char *key, double *x)
{
	const char *p = line;
	size_t n = strlen(key);

	while ((p = strstr(p, key)) != NULL) {
		if ((p == line || p[-1] == ' ' || p[-1] == '[') && (p[n] == ' ' || p[n] == '=')) {
			const char *v = p + n + 1;
			size_t got = units_scan_decimal(v, 0, x);
			/* "count 0x10", "count inf", "count 12abc": not a number. */
			return got && (v[got] == '\0' || v[got] == ' ' || v[got] == ']') &&
				isfinite(*x) ? 0 : -1;
		}
		p += n;
	}
	return -1;
}

static int S_info_line(struct trace *t, int file, const char *line, long lineno,
		       const char *name, struct errbuf *eb)
{
	const char *p = strstr(line, "NCCL INFO "), *colon;
	char coll[32];
	double count, dt, nranks;
	struct trace_kind k;

	if (!p)
		return 0;
	p += 10;
	colon = strstr(p, ": opCount ");
	if (!colon || colon - p >= (long)sizeof(coll) || colon == p)
		return 0;
	S_copy(coll, sizeof(coll), p, (size_t)(colon - p));
	if (strchr(coll, ' '))
		return 0;
	if (S_field(colon, "count", &count) < 0 || bound_check(BOUND_COUNT, count) < 0)
		return errbuf_set(eb, "%s:%ld: %s line: its count is not %s in plain decimal",
				  name, lineno, coll, bound_what(BOUND_COUNT));
	if (S_field(colon, "datatype", &dt) < 0 || dt < 0 || dt != floor(dt) ||
	    dt >= (double)(sizeof(S_nccl_dtype_size) / sizeof(S_nccl_dtype_size[0])))
		return errbuf_set(eb, "%s:%ld: %s line without a known datatype (0-11)", name,
				  lineno, coll);
	memset(&k, 0, sizeof(k));
	k.file = file;
	k.line = lineno;
	snprintf(k.source, sizeof(k.source), "nccl-info");
	k.coll = trace_coll_lookup(coll);
	snprintf(k.op, sizeof(k.op), "%s", k.coll >= 0 ? coll_op_name(k.coll) : coll);
	snprintf(k.dtype, sizeof(k.dtype), "%s", S_nccl_dtype_name[(int)dt]);
	if (S_field(colon, "nranks", &nranks) == 0 && bound_check(BOUND_RANKS, nranks) == 0)
		k.ranks = (unsigned long)nranks;
	k.elems = count;
	k.size_B = count * S_nccl_dtype_size[(int)dt];
	/* NCCL's count is one rank's share for all-gather (send) and
	 * reduce-scatter (receive); nccl-tests' size is the whole buffer. */
	if ((k.coll == OP_ALLGATHER || k.coll == OP_REDUCESCATTER) && k.ranks) {
		k.size_B *= (double)k.ranks;
		k.elems *= (double)k.ranks;
	}
	{
		const char *cm = strstr(colon, " comm ");
		if (cm) {
			cm += 6;
			S_copy(k.pg, sizeof(k.pg), cm, strcspn(cm, " "));
		}
	}
	t->files[file].comm_kernels++;
	if (S_kind_add(t, &k, NAN, eb) < 0) {
		char why[sizeof(eb->msg)];

		memcpy(why, eb->msg, sizeof(why));
		return errbuf_set(eb, "%s:%ld: %s", name, lineno, why);
	}
	return 0;
}

/* ---- files ---- */

struct reader {             /* a source of bytes: a file or a buffer */
	struct gz_file *gz;
	const char *buf;
	size_t len, pos;
};

static long S_read(struct reader *r, char *out, size_t n, struct errbuf *eb)
{
	if (r->gz)
		return gz_read(r->gz, out, n, eb);
	if (n > r->len - r->pos)
		n = r->len - r->pos;
	memcpy(out, r->buf + r->pos, n);
	r->pos += n;
	return (long)n;
}

static int S_add_file(struct trace *t, const char *name)
{
	struct trace_file *f;

	t->files = xrealloc(t->files, (t->nfiles + 1) * sizeof(*t->files));
	f = &t->files[t->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(name);
	f->rank = f->world = -1;
	if (t->launch.recsz == 0)
		spill_init(&t->launch, sizeof(struct lrec), S_lcmp);
	return (int)t->nfiles++;
}

static int S_read_json(struct trace *t, int file, struct reader *r, char *chunk, long got,
		       const char *name, trace_progress_fn fn, void *arg, struct errbuf *eb)
{
	struct jctx c;
	double next = PROGRESS_EVERY;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	c.t = t;
	c.file = file;
	c.eb = eb;
	c.js = json_stream_new(&S_jcb, &c, name, JSON_MULTIPLE | JSON_NOVALIDATE);
	while (got > 0) {
		if (json_stream_feed(c.js, chunk, (size_t)got, eb) < 0) {
			rc = -1;
			break;
		}
		if (fn && r->gz && gz_done(r->gz) >= next) {
			fn(arg, name, gz_done(r->gz), gz_size(r->gz));
			next = gz_done(r->gz) + PROGRESS_EVERY;
		}
		got = S_read(r, chunk, CHUNK, eb);
		if (got < 0)
			rc = -1;
	}
	if (rc == 0)
		rc = json_stream_finish(c.js, eb);
	if (rc == 0) {
		if (c.kineto && t->files[file].events == 0)
			rc = errbuf_set(eb, "%s: a PyTorch profiler trace with no event in it "
					"(an empty \"traceEvents\")", name);
		else if (c.kineto)
			t->files[file].format = TRACE_KINETO;
		else if (c.inspector)
			t->files[file].format = TRACE_INSPECTOR;
		else
			rc = errbuf_set(eb, "%s: JSON without \"traceEvents\" or Inspector's "
					"\"coll_perf\"; expected a PyTorch profiler trace or NCCL "
					"Inspector output", name);
	}
	json_stream_free(c.js);
	return rc;
}

static int S_read_text(struct trace *t, int file, struct reader *r, char *chunk, long got,
		       const char *name, struct errbuf *eb)
{
	char *line = xmalloc(TEXT_LINE_MAX + 1);
	size_t n = 0;
	long lineno = 1;
	int rc = 0;

	t->files[file].format = TRACE_NCCL_INFO;
	while (got > 0 && rc == 0) {
		long i;
		for (i = 0; i < got && rc == 0; i++) {
			char ch = chunk[i];
			if (ch == '\0') {
				rc = errbuf_set(eb, "%s:%ld: binary data (a NUL byte)", name, lineno);
				break;
			}
			if (ch != '\n') {
				if (n == TEXT_LINE_MAX) {
					rc = errbuf_set(eb, "%s:%ld: line longer than 64 KiB", name,
							lineno);
					break;
				}
				line[n++] = ch;
				continue;
			}
			line[n] = '\0';
			rc = S_info_line(t, file, line, lineno, name, eb);
			n = 0;
			lineno++;
		}
		if (rc == 0) {
			got = S_read(r, chunk, CHUNK, eb);
			if (got < 0)
				rc = -1;
		}
	}
	if (rc == 0 && n > 0) {
		line[n] = '\0';
		rc = S_info_line(t, file, line, lineno, name, eb);
	}
	free(line);
	if (rc == 0 && t->files[file].comm_kernels == 0)
		rc = errbuf_set(eb, "%s: no collective in it; expected a PyTorch profiler trace "
				"(JSON), NCCL Inspector JSON or NCCL INFO lines naming collectives "
				"(NCCL_DEBUG=INFO)", name);
	return rc;
}

static int S_read_any(struct trace *t, struct reader *r, const char *name,
		      trace_progress_fn fn, void *arg, struct errbuf *eb)
{
	char *chunk = xmalloc(CHUNK);
	int file = S_add_file(t, name), rc;
	long got = S_read(r, chunk, CHUNK, eb), i;

	if (got < 0) {
		free(chunk);
		return -1;
	}
	i = (long)bound_bom(chunk, (size_t)got);
	if (i) {
		memmove(chunk, chunk + i, (size_t)(got - i));
		got -= i;
	}
	for (i = 0; i < got && isspace((unsigned char)chunk[i]); i++)
		;
	if (i == got)
		rc = errbuf_set(eb, "%s: empty file; expected a trace", name);
	else if (chunk[i] == '{' || chunk[i] == '[')
		rc = S_read_json(t, file, r, chunk, got, name, fn, arg, eb);
	else
		rc = S_read_text(t, file, r, chunk, got, name, eb);
	free(chunk);
	if (rc == 0 && fn && r->gz)
		fn(arg, name, gz_size(r->gz), gz_size(r->gz));
	return rc;
}

int trace_read_file(struct trace *t, const char *path, trace_progress_fn fn, void *arg,
		    struct errbuf *eb)
{
	struct reader r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.gz = gz_open(path, eb);
	if (!r.gz)
		return -1;
	rc = S_read_any(t, &r, path, fn, arg, eb);
	gz_close(r.gz);
	return rc;
}

int trace_read_buffer(struct trace *t, const char *name, const char *buf, size_t len,
		      struct errbuf *eb)
{
	struct reader r;

	memset(&r, 0, sizeof(r));
	r.buf = buf;
	r.len = len;
	return S_read_any(t, &r, name, NULL, NULL, eb);
}

/* ---- the steps ---- */

static int S_wcmp(const void *a, const void *b)
{
	const struct trace_window *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->t0_ns < y->t0_ns ? -1 : x->t0_ns > y->t0_ns;
}

/* The window of file holding time ts, or -1. */
static int32_t S_window(const struct trace *t, uint32_t file, int64_t ts)
{
	size_t lo = 0, hi = t->nwin;

	/* The last window of file starting at or before ts. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct trace_window *w = &t->win[mid];
		if ((uint32_t)w->file < file || ((uint32_t)w->file == file && w->t0_ns <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return -1;
	lo--;
	if ((uint32_t)t->win[lo].file != file || ts >= t->win[lo].t0_ns + t->win[lo].dur_ns)
		return -1;
	return (int32_t)lo;
}

struct iv { int64_t a, b; };

struct group {
	struct iv *comp, *comm;
	size_t nc, nm, ac, am;
};

static void S_push(struct iv **v, size_t *n, size_t *alloc, int64_t a, int64_t b)
{
	/* Merge with the last when they touch: the input is sorted by start. */
	if (*n > 0 && a <= (*v)[*n - 1].b) {
		if (b > (*v)[*n - 1].b)
			(*v)[*n - 1].b = b;
		return;
	}
	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 256;
		*v = xrealloc(*v, *alloc * sizeof(**v));
	}
	(*v)[*n].a = a;
	(*v)[*n].b = b;
	(*n)++;
}

static double S_len(const struct iv *v, size_t n)
{
	double s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (double)(v[i].b - v[i].a);
	return s;
}

static void S_finish_group(struct trace *t, struct group *g, struct trace_step *s, int want,
			   trace_interval_fn fn, void *arg)
{
	size_t i, j = 0;
	double inter = 0, busy;

	s->compute_s = S_len(g->comp, g->nc) * 1e-9;
	s->comm_s = S_len(g->comm, g->nm) * 1e-9;
	/* Comm minus compute: both lists are sorted and disjoint. */
	for (i = 0; i < g->nm; i++) {
		int64_t a = g->comm[i].a, b = g->comm[i].b, cur = a;
		while (j < g->nc && g->comp[j].b <= a)
			j++;
		for (size_t k = j; k < g->nc && g->comp[k].a < b; k++) {
			int64_t lo = g->comp[k].a > a ? g->comp[k].a : a;
			int64_t hi = g->comp[k].b < b ? g->comp[k].b : b;
			if (hi > lo) {
				inter += (double)(hi - lo);
				if (want && fn) {
					if (lo > cur)
						fn(arg, s, TRACE_IV_COMM_EXPOSED, cur * 1e-9, lo * 1e-9);
					fn(arg, s, TRACE_IV_COMM_HIDDEN, lo * 1e-9, hi * 1e-9);
				}
				cur = hi;
			}
		}
		if (want && fn && b > cur)
			fn(arg, s, TRACE_IV_COMM_EXPOSED, cur * 1e-9, b * 1e-9);
	}
	if (want && fn)
		for (i = 0; i < g->nc; i++)
			fn(arg, s, TRACE_IV_COMPUTE, g->comp[i].a * 1e-9, g->comp[i].b * 1e-9);
	s->exposed_s = s->comm_s - inter * 1e-9;
	if (s->exposed_s < 0)
		s->exposed_s = 0;
	busy = s->compute_s + s->comm_s - inter * 1e-9;
	s->busy_s = busy;
	if (t->nsteps == t->steps_alloc) {
		t->steps_alloc = t->steps_alloc ? 2 * t->steps_alloc : 16;
		t->steps = xrealloc(t->steps, t->steps_alloc * sizeof(*t->steps));
	}
	t->steps[t->nsteps++] = *s;
	g->nc = g->nm = 0;
}

int trace_analyse(struct trace *t, long number, trace_interval_fn fn, void *arg,
		  struct errbuf *eb)
{
	struct spill ks;
	struct lrec r;
	struct srec sr, cur;
	struct group g;
	struct trace_step s;
	uint32_t lfile = (uint32_t)-1, lcorr = 0;
	int64_t lts = 0;
	int have_launch = 0, rc, in_group = 0, want = 0;

	t->nsteps = 0;
	if (t->launch.recsz == 0)
		return 0;
	if (t->nwin > 0)
		qsort(t->win, t->nwin, sizeof(*t->win), S_wcmp);
	if (number == -2) {   /* the last step */
		size_t i;
		number = -1;
		for (i = 0; i < t->nwin; i++)
			if (t->win[i].number > number)
				number = t->win[i].number;
	}
	t->figure_step = number;
	spill_init(&ks, sizeof(struct srec), S_scmp);
	if (spill_sort(&t->launch, eb) < 0)
		goto fail;
	while ((rc = spill_next(&t->launch, &r, eb)) == 1) {
		int64_t when = r.ts_ns;
		if (r.type == 0) {
			lfile = r.file;
			lcorr = r.corr;
			lts = r.ts_ns;
			have_launch = 1;
			continue;
		}
		if (r.has_corr && have_launch && lfile == r.file && lcorr == r.corr)
			when = lts;
		memset(&sr, 0, sizeof(sr));
		sr.win = S_window(t, r.file, when);
		if (sr.win < 0)
			continue;
		sr.file = r.file;
		sr.ts_ns = r.ts_ns;
		sr.dur_ns = r.dur_ns;
		sr.dev = r.dev;
		sr.comm = r.type == 2;
		if (spill_add(&ks, &sr, eb) < 0)
			goto fail;
	}
	if (rc < 0 || spill_sort(&ks, eb) < 0)
		goto fail;
	memset(&g, 0, sizeof(g));
	memset(&cur, 0, sizeof(cur));
	while ((rc = spill_next(&ks, &sr, eb)) == 1) {
		if (!in_group || sr.file != cur.file || sr.win != cur.win || sr.dev != cur.dev) {
			const struct trace_window *w = &t->win[sr.win];
			if (in_group)
				S_finish_group(t, &g, &s, want, fn, arg);
			in_group = 1;
			cur = sr;
			memset(&s, 0, sizeof(s));
			s.file = (int)sr.file;
			s.rank = t->files[sr.file].rank >= 0 ? t->files[sr.file].rank : (long)sr.file;
			s.dev = sr.dev;
			s.number = w->number;
			s.step_s = (double)w->dur_ns * 1e-9;
			s.gpu_t0_s = (double)sr.ts_ns * 1e-9;
			s.gpu_t1_s = s.gpu_t0_s;
			want = number >= 0 && w->number == number;
		}
		if ((sr.ts_ns + sr.dur_ns) * 1e-9 > s.gpu_t1_s)
			s.gpu_t1_s = (double)(sr.ts_ns + sr.dur_ns) * 1e-9;
		s.kernels++;
		if (sr.comm) {
			s.comm_kernels++;
			S_push(&g.comm, &g.nm, &g.am, sr.ts_ns, sr.ts_ns + sr.dur_ns);
		} else {
			S_push(&g.comp, &g.nc, &g.ac, sr.ts_ns, sr.ts_ns + sr.dur_ns);
		}
	}
	if (in_group && rc == 0)
		S_finish_group(t, &g, &s, want, fn, arg);
	free(g.comp);
	free(g.comm);
	spill_release(&ks);
	return rc < 0 ? -1 : 0;
fail:
	spill_release(&ks);
	return -1;
}
