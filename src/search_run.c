/*
 * The search over the whole space (models/search.md, "Time"): the layouts
 * t, p of each GPU count are walked on as many threads as the processors
 * this process may run on (at most SEARCH_THREADS_MAX), each layout into
 * its own part;
 * the parts are then joined in the order a single walk takes them, so the
 * result is the same, candidate for candidate and count for count, on any
 * number of threads.  Each thread keeps its own prices and kernels.
 */
#ifdef __linux__
#define _GNU_SOURCE   /* sched_getaffinity: the processors this process may run on */
#include <sched.h>
#endif
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search.h"
#include "search_int.h"

/* One layout's result, and its error. */
struct S_part {
	struct search_result r;
	struct errbuf eb;
	int rc;
};

static void S_sort(struct search_result *r);

struct S_job {
	const struct search_space *sp;
	const struct step_compute *cs;
	const struct cost_model *cm;
	const struct search_unit *units;
	struct S_part *parts;
	size_t n;
	atomic_size_t next;       /* the next layout to walk */
	atomic_size_t failed;     /* the first layout that failed (n: none) */
	atomic_size_t calls, evals;
};

/* A walker: takes the next layout until none is left (or every one left
 * comes after one that failed, which a single walk would not reach). */
static void *S_work(void *arg)
{
	struct S_job *j = arg;
	struct search_memo memo;
	size_t i, f;

	memset(&memo, 0, sizeof(memo));
	memo.m = j->cm;
	while ((i = atomic_fetch_add(&j->next, 1)) < j->n) {
		struct S_part *pt = &j->parts[i];

		if (i > atomic_load(&j->failed))
			continue;
		pt->r.named.unfit_memory_B = NAN;
		pt->rc = search_walk(j->sp, &j->units[i], j->cs, &memo, &pt->r, &pt->eb);
		if (pt->rc >= 0)
			S_sort(&pt->r);
		for (f = atomic_load(&j->failed); pt->rc < 0 && i < f;)
			if (atomic_compare_exchange_weak(&j->failed, &f, i))
				break;
	}
	atomic_fetch_add(&j->calls, memo.prices.calls);
	atomic_fetch_add(&j->evals, memo.prices.evals);
	step_memo_release(&memo.prices);
	return NULL;
}

/* The processors this process may run on (its affinity where the system
 * says it: taskset, a container's cpuset), else those online. */
static long S_cpus(void)
{
#if defined(__linux__) && defined(CPU_COUNT)
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
#endif
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/* The threads: sp->threads, else one a processor; never more than layouts. */
static size_t S_threads(const struct search_space *sp, size_t n)
{
	long cpus = sp->threads ? (long)sp->threads : S_cpus();
	size_t t = cpus > 1 ? (size_t)cpus : 1;

	if (t > SEARCH_THREADS_MAX)
		t = SEARCH_THREADS_MAX;
	return t < n ? t : (n ? n : 1);
}

/* Walk every layout; the calling thread walks beside the others (and
 * alone where a thread cannot be started). */
static void S_walk_all(struct S_job *j, size_t nthreads)
{
	pthread_t *th = xmalloc(nthreads * sizeof(*th));
	size_t i, started = 0;

	for (i = 1; i < nthreads; i++)
		if (pthread_create(&th[started], NULL, S_work, j) == 0)
			started++;
	S_work(j);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
}

/* b's configurations named by sp->where, after a's. */
static void S_join_named(struct search_named *a, const struct search_named *b)
{
	if (!a->refused && b->refused)
		memcpy(a->refused_why, b->refused_why, sizeof(a->refused_why));
	a->tried += b->tried;
	a->refused += b->refused;
	a->fit += b->fit;
	/* the least memory of those that do not fit, the first found on a tie */
	if (b->unfit && !(a->unfit_memory_B <= b->unfit_memory_B)) {
		a->unfit_memory_B = b->unfit_memory_B;
		a->unfit_c = b->unfit_c;
	}
	a->unfit += b->unfit;
}

/*
 * b's counts and reasons after a's.  A part keeps SEARCH_REASONS_MAX
 * groups as the result does; a layout refused for more kinds of reasons
 * than that counts the rest as other, where one walk would have found
 * some of them a group already open (a count moved, never lost).
 */
static void S_join_counts(struct search_result *a, const struct search_result *b)
{
	size_t i;

	a->tried += b->tried;
	a->valid += b->valid;
	for (i = 0; i < b->nreasons; i++)
		search_refused(a, b->reason[i].example, b->reason[i].count);
	a->refused_other += b->refused_other;
	S_join_named(&a->named, &b->named);
}

/* A candidate's place in the order: step time, memory, then the order found. */
struct S_key {
	double step_s, memory_B;
	size_t i;
};

static int S_cmp(const void *a, const void *b)
{
	const struct S_key *x = a, *y = b;

	if (x->step_s != y->step_s)
		return x->step_s < y->step_s ? -1 : 1;
	if (x->memory_B != y->memory_B)
		return x->memory_B < y->memory_B ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * One layout's candidates by step time, ties by memory, then in the order
 * found (a stable sort): the keys are sorted, then the candidates moved
 * in place, cycle by cycle of the permutation.  Each walker sorts the
 * layouts it walked.
 */
static void S_sort(struct search_result *r)
{
	struct S_key *key;
	struct search_cand tmp, *c = r->found;
	size_t i, j, from, n = r->nfound;

	if (n < 2)
		return;
	key = xmalloc(n * sizeof(*key));
	for (i = 0; i < n; i++) {
		key[i].step_s = c[i].step_s;
		key[i].memory_B = c[i].memory_B;
		key[i].i = i;
	}
	qsort(key, n, sizeof(*key), S_cmp);
	/* place j takes the candidate found at key[j].i; SIZE_MAX: placed */
	for (i = 0; i < n; i++) {
		if (key[i].i == SIZE_MAX)
			continue;
		tmp = c[i];
		for (j = i;;) {
			from = key[j].i;
			key[j].i = SIZE_MAX;
			if (from == i) {
				c[j] = tmp;
				break;
			}
			c[j] = c[from];
			j = from;
		}
	}
	free(key);
}

/* The head of each sorted run, in a heap: the least (step, memory, run) on top. */
struct S_head {
	struct search_cand *const *c, *const *end;   /* run 0: r's ordered candidates */
	struct search_cand *f, *fend;                /* the others: a layout's, sorted */
	size_t run;
};

static const struct search_cand *S_at(const struct S_head *x)
{
	return x->run ? x->f : *x->c;
}

static int S_before(const struct S_head *x, const struct S_head *y)
{
	const struct search_cand *a = S_at(x), *b = S_at(y);

	if (a->step_s != b->step_s)
		return a->step_s < b->step_s;
	if (a->memory_B != b->memory_B)
		return a->memory_B < b->memory_B;
	return x->run < y->run;
}

static void S_down(struct S_head *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct S_head t;

		if (l < n && S_before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && S_before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i], h[i] = h[m], h[m] = t;
		i = m;
	}
}

/* The next candidate of the heap's top run; 1 when that run is done. */
static struct search_cand *S_next(struct S_head *h, int *done)
{
	struct search_cand *c;

	if (h->run) {
		c = h->f++;
		*done = h->f == h->fend;
	} else {
		c = *h->c++;
		*done = h->c == h->end;
	}
	return c;
}

/*
 * r's candidates, then every layout's (each sorted), merged: by step
 * time, ties by memory, then in the order found, which is the order of
 * the runs and within each run its own.  r keeps the layouts' arrays
 * (store) and orders pointers into them.
 */
static void S_join_cands(struct search_result *r, struct S_part *parts, size_t np)
{
	size_t total = r->n, n = 0, k, i;
	struct S_head *h = xmalloc((np + 1) * sizeof(*h));
	struct search_cand **out;
	int done;

	if (r->n)
		h[n].c = r->cand, h[n].end = r->cand + r->n, h[n++].run = 0;
	for (k = 0; k < np; k++) {
		total += parts[k].r.nfound;
		if (parts[k].r.nfound) {
			h[n].f = parts[k].r.found, h[n].fend = parts[k].r.found + parts[k].r.nfound;
			h[n++].run = k + 1;
		}
	}
	out = xmalloc((total ? total : 1) * sizeof(*out));
	for (k = n / 2; k-- > 0;)
		S_down(h, n, k);
	for (i = 0; n > 0; i++) {
		out[i] = S_next(&h[0], &done);
		if (done)
			h[0] = h[--n];
		S_down(h, n, 0);
	}
	free(h);
	free(r->cand);
	r->cand = out;
	r->n = total;
	/* the layouts' arrays, now r's */
	r->store = xrealloc(r->store, (r->nstore + np + 1) * sizeof(*r->store));
	for (k = 0; k < np; k++) {
		if (parts[k].r.found)
			r->store[r->nstore++] = parts[k].r.found;
		parts[k].r.found = NULL;
		parts[k].r.nfound = parts[k].r.capfound = 0;
	}
}

/* The most frequent reason first; ties in the order of the message. */
static int S_reason_cmp(const void *a, const void *b)
{
	const struct search_reason *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->key, y->key);
}

int search_run(const struct search_space *sp, const double *gpus, size_t ngpus,
	       const struct step_compute *cs, const struct cost_model *cm,
	       struct search_result *r, struct errbuf *eb)
{
	struct S_job j;
	struct search_unit *units;
	size_t gi, n = 0, k;
	int rc = 0;

	for (gi = 0; gi < ngpus; gi++)
		n += search_units(sp, gpus[gi], NULL, 0);
	units = xmalloc((n ? n : 1) * sizeof(*units));
	for (gi = 0, k = 0; gi < ngpus; gi++)
		k += search_units(sp, gpus[gi], units + k, n - k);
	memset(&j, 0, sizeof(j));
	j.sp = sp, j.cs = cs, j.cm = cm, j.units = units, j.n = n;
	j.parts = xmalloc((n ? n : 1) * sizeof(*j.parts));
	memset(j.parts, 0, (n ? n : 1) * sizeof(*j.parts));
	atomic_init(&j.next, 0);
	atomic_init(&j.failed, n);
	atomic_init(&j.calls, 0);
	atomic_init(&j.evals, 0);
	S_walk_all(&j, S_threads(sp, n));

	r->named.unfit_memory_B = NAN;
	for (k = 0; k < n && !rc; k++) {
		S_join_counts(r, &j.parts[k].r);
		if ((rc = j.parts[k].rc) < 0)
			errbuf_set(eb, "%s", j.parts[k].eb.msg);
	}
	r->coll_calls += atomic_load(&j.calls);
	r->coll_evals += atomic_load(&j.evals);
	if (!rc)
		S_join_cands(r, j.parts, n);
	for (k = 0; k < n; k++)
		search_release(&j.parts[k].r);
	free(j.parts);
	free(units);
	if (rc < 0)
		return -1;
	if (r->nreasons > 1)
		qsort(r->reason, r->nreasons, sizeof(r->reason[0]), S_reason_cmp);
	search_pareto(r);
	return 0;
}
