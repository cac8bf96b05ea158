/*
 * Reading traces for the commands: the progress line, the run's
 * configuration and what the steps add up to (trace_cmd.h).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trace_cmd.h"

struct progress {
	struct timespec t0;
	double last;       /* s since t0 of the last line written */
	int shown;
};

static double S_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

/* A line on stderr, rewritten in place at most twice a second, once a read takes a second. */
static void S_progress(void *arg, const char *path, double done, double size)
{
	struct progress *p = arg;
	double el = S_since(&p->t0);

	if (el < 1.0 || (done < size && el - p->last < 0.5))
		return;
	if (!p->shown && done >= size)
		return;
	p->last = el;
	if (size > 0)
		fprintf(stderr, "\rreading %s: %3.0f %% (%.0f of %.0f MB, %.0f MB/s)", path,
			100.0 * done / size, done / 1e6, size / 1e6, done / el / 1e6);
	else
		fprintf(stderr, "\rreading %s: %.0f MB", path, done / 1e6);
	if (done >= size)
		fputc('\n', stderr);
	p->shown = done < size;
}

void trace_cmd_load(struct trace *t, int nfiles, char **files, long number,
		    trace_interval_fn fn, void *arg)
{
	struct errbuf eb;
	int i;

	for (i = 0; i < nfiles; i++) {
		struct progress p = { .shown = 0 };

		clock_gettime(CLOCK_MONOTONIC, &p.t0);
		if (trace_read_file(t, files[i], S_progress, &p, &eb) < 0) {
			if (p.shown)
				fputc('\n', stderr);
			die("%s", eb.msg);
		}
	}
	if (trace_analyse(t, number, fn, arg, &eb) < 0)
		die("%s", eb.msg);
}

void trace_run_init(struct trace_run *r)
{
	memset(r, 0, sizeof(*r));
	step_config_init(&r->c);
	r->mb = 1;
}

long trace_world(const struct trace *t)
{
	size_t i;

	for (i = 0; i < t->nfiles; i++)
		if (t->files[i].world > 0)
			return t->files[i].world;
	return (long)t->nfiles;
}

double trace_run_settle(const struct ctx *ctx, struct trace_run *r, const struct workload *w,
			const struct trace *t, int dp_given)
{
	struct errbuf eb;
	struct step_config *c = &r->c;
	long world = trace_world(t);
	unsigned long other = c->tp * c->pp * c->cp;

	if (!dp_given && world > 0 && (unsigned long)world % other == 0)
		c->dp = (unsigned long)world / other;
	c->micro_batch = (double)r->mb;
	c->global_batch = (double)r->gb;
	c->seq = r->seq ? (double)r->seq : w->seq;
	if (ctx->machine.have_system)
		c->gpus_per_node = ctx->machine.system.gpus_per_node;
	if (step_check(w, c, &eb) < 0)
		die_usage("compare --trace: %s", eb.msg);
	return (double)(c->tp * c->pp * c->dp * c->cp);
}

double trace_steps_per_file(const struct trace *t)
{
	double best = 0;
	size_t i;

	for (i = 0; i < t->nfiles; i++)
		if (t->files[i].windows > best)
			best = t->files[i].windows;
	return best;
}

static int S_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double trace_steps_median(const struct trace *t, size_t offset)
{
	double *v, m;
	size_t i;

	if (t->nsteps == 0)
		return NAN;
	v = xmalloc(t->nsteps * sizeof(*v));
	for (i = 0; i < t->nsteps; i++)
		memcpy(&v[i], (const char *)&t->steps[i] + offset, sizeof(double));
	qsort(v, t->nsteps, sizeof(*v), S_dcmp);
	m = t->nsteps % 2 ? v[t->nsteps / 2] : 0.5 * (v[t->nsteps / 2 - 1] + v[t->nsteps / 2]);
	free(v);
	return m;
}
