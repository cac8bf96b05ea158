/*
 * The JSON readers of traces: the PyTorch profiler's Chrome trace (Kineto)
 * and NCCL Inspector's JSON lines, streamed (json.h) into struct trace
 * (trace.h, models/trace.md).
 */
#define TRACE_INSIDE
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "json.h"
#include "trace.h"
#include "units.h"

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

/* A number two deep: distributedInfo, Inspector's header and coll_perf / p2p_perf. */
static int S_top_number(struct jctx *c, const char *s, size_t len)
{
	const char *top = S_key(c, 1), *k = S_key(c, 2);
	double x;

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
	if (d == 2)
		return S_top_number(c, s, len);
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
			trace_copy(c->e.cat, sizeof(c->e.cat), s, len);
		else if (!strcmp(k, "name"))
			trace_copy(c->e.name, sizeof(c->e.name), s, len);
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
			trace_copy(c->e.coll, sizeof(c->e.coll), s, len);
		else if (!strcmp(k, "dtype"))
			trace_copy(c->e.dtype, sizeof(c->e.dtype), s, len);
		else if (!strcmp(k, "Process Group Name"))
			trace_copy(c->e.pgname, sizeof(c->e.pgname), s, len);
		else if (!strcmp(k, "Process Group Description"))
			trace_copy(c->e.pgdesc, sizeof(c->e.pgdesc), s, len);
		else if (!strcmp(k, "Process Group Ranks"))
			S_pg_ranks(&c->e, s, len);
		return 1;
	}
	if (d == 2) {
		const char *top = S_key(c, 1);
		k = S_key(c, 2);
		if (!strcmp(top, "coll_perf") && !strcmp(k, "coll"))
			trace_copy(c->e.icoll, sizeof(c->e.icoll), s, len);
		else if (!strcmp(top, "p2p_perf") && !strcmp(k, "p2p"))
			trace_copy(c->e.icoll, sizeof(c->e.icoll), s, len);
		else if (!strcmp(top, "header") && !strcmp(k, "comm_name"))
			trace_copy(c->e.comm, sizeof(c->e.comm), s, len);
		else if (!strcmp(top, "header") && !strcmp(k, "id") && !c->e.comm[0])
			trace_copy(c->e.comm, sizeof(c->e.comm), s, len);
	}
	return 1;
}

static int S_j_key(void *ctx, const char *s, size_t len)
{
	struct jctx *c = ctx;
	int d = json_stream_depth(c->js);

	if (d >= 1 && d < PATH_DEPTH)
		trace_copy(c->path[d], KEY_MAX, s, len);
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
	trace_copy(out, cap, p, (size_t)(q - p));
}

static int S_is_nccl(const char *name)
{
	return !strncmp(name, "ncclKernel_", 11) || !strncmp(name, "ncclDevKernel_", 14);
}

/* An NCCL kernel of the trace as a kind of collective: its collective,
 * data type, process group, size and ranks, and its duration. */
static int S_kernel_kind(struct jctx *c, const struct ev *e)
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
	if (trace_kind_add(c->t, &k, (double)e->dur_ns * 1e-9, c->eb) < 0)
		return json_stream_fail(c->js, "%s", c->eb->msg);
	return 1;
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
	return S_kernel_kind(c, e);
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
	if (trace_kind_add(c->t, &k, e->exec_us * 1e-6, c->eb) < 0)
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

int trace_read_json(struct trace *t, int file, struct reader *r, char *chunk, long got,
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
		got = trace_reader_read(r, chunk, CHUNK, eb);
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

