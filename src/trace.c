/*
 * Reading profiler traces, Inspector JSON lines and NCCL INFO lines into
 * struct trace, and the per-step overlap (trace.h, models/trace.md).
 */
#define TRACE_INSIDE
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

/* ---- records sorted on disk ---- */

struct srec {               /* a kernel of a step, by step, device and start */
	uint32_t file;
	int32_t win;
	int64_t ts_ns;
	uint32_t dur_ns;
	uint16_t dev;
	uint8_t comm;
	uint8_t pad;
};

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

/* ---- files ---- */

static int S_add_file(struct trace *t, const char *name)
{
	struct trace_file *f;

	t->files = xrealloc(t->files, (t->nfiles + 1) * sizeof(*t->files));
	f = &t->files[t->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(name);
	f->rank = f->world = -1;
	if (t->launch.recsz == 0)
		spill_init(&t->launch, sizeof(struct lrec), trace_lcmp);
	return (int)t->nfiles++;
}

static int S_read_any(struct trace *t, struct reader *r, const char *name,
		      trace_progress_fn fn, void *arg, struct errbuf *eb)
{
	char *chunk = xmalloc(CHUNK);
	int file = S_add_file(t, name), rc;
	long got = trace_reader_read(r, chunk, CHUNK, eb), i;

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
		rc = trace_read_json(t, file, r, chunk, got, name, fn, arg, eb);
	else
		rc = trace_read_text(t, file, r, chunk, got, name, eb);
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

/*
 * The kernels of the launch records into ks, each in the step window that
 * holds its launch's time (the launch of its correlation, sorted just
 * before it), else its own start; a kernel in no window is left out.
 * 0, or -1 with eb.
 */
static int S_place_kernels(struct trace *t, struct spill *ks, struct errbuf *eb)
{
	struct lrec r;
	struct srec sr;
	uint32_t lfile = (uint32_t)-1, lcorr = 0;
	int64_t lts = 0;
	int have_launch = 0, rc;

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
		if (spill_add(ks, &sr, eb) < 0)
			return -1;
	}
	return rc;
}

/*
 * The steps from the sorted kernels of ks: those of one window and device
 * make a step, their compute and communication merged into intervals, and
 * fn is given the intervals of step `number`.  0, or -1 with eb.
 */
static int S_group_kernels(struct trace *t, struct spill *ks, long number, trace_interval_fn fn,
			   void *arg, struct errbuf *eb)
{
	struct srec sr, cur;
	struct group g;
	struct trace_step s;
	int rc, in_group = 0, want = 0;

	memset(&g, 0, sizeof(g));
	memset(&cur, 0, sizeof(cur));
	while ((rc = spill_next(ks, &sr, eb)) == 1) {
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
	return rc < 0 ? -1 : 0;
}

int trace_analyse(struct trace *t, long number, trace_interval_fn fn, void *arg,
		  struct errbuf *eb)
{
	struct spill ks;
	int rc;

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
	if (S_place_kernels(t, &ks, eb) < 0 || spill_sort(&ks, eb) < 0)
		goto fail;
	rc = S_group_kernels(t, &ks, number, fn, arg, eb);
	spill_release(&ks);
	return rc;
fail:
	spill_release(&ks);
	return -1;
}
