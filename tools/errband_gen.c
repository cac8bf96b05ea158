/*
 * errband-gen: writes src/errband_table.c, the stated error of NCCL's model,
 * from the rows bench/accuracy.sh leaves in tests/tmp/accuracy/rows (one
 * line per size of every judged log:
 *
 *     LOG NODES THREADED SIZE_B MEASURED_S PREDICTED_S MACHINE
 *
 * THREADED 1 when the log's header says nGpus above 1; MACHINE the system
 * description it was compared with, which the left-out check leaves out
 * whole).  Each cell (one node, several, or any node count — the wider cell
 * a thin one falls back to — by three size bands) is drawn by errband_draw
 * of the core.
 *
 *     tools/errband-gen ROWS > src/errband_table.c      (make errband)
 *     tools/errband-gen --per-log ROWS                  (make accuracy)
 *
 * --per-log prints, for each log, how many of its sizes fall inside the
 * band drawn from every log (in sample, the band commtime states) and
 * inside the band drawn, the whole procedure over (percentiles, margin,
 * its own left-out check), with the log's machine left out:
 *
 *     LOG MACHINE SIZES INSIDE_IN INSIDE_OUT NO_BAND_OUT WIDER_OUT
 *
 * NO_BAND_OUT counts the sizes that have no band without the machine
 * (neither their cell nor their size class over any node count stands on
 * enough logs and machines); they count as outside.  WIDER_OUT counts the
 * sizes whose band without the machine is the wider cell's (errband_scope_at).
 *
 * Exit 1 on a malformed row (its line number on stderr) or none, 2 on usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errband.h"

#define MAX_LOGS 64
#define MAX_NAME 128

static const char *const scope_ids[ERRBAND_SCOPE_COUNT] = { "ERRBAND_ONE_NODE", "ERRBAND_NODES",
							    "ERRBAND_ANY_NODES" };
static const char *const size_ids[ERRBAND_SIZE_COUNT] = { "ERRBAND_SMALL", "ERRBAND_MID",
							  "ERRBAND_LARGE" };

typedef struct errband band_table[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT];

/* The rows read: one sample per size, with the node count and size it stands for. */
struct rows {
	char names[MAX_LOGS][MAX_NAME], machines[MAX_LOGS][MAX_NAME];
	size_t nlogs, nmach, n, cap;
	struct errband_sample *s;
	unsigned long *nodes;
	double *size;
	unsigned *log_machine;  /* the machine of each log */
};

/* The index of name in list[0..*count), appended when new; -1 when full. */
static long S_intern(char list[][MAX_NAME], size_t *count, const char *name)
{
	size_t k;

	for (k = 0; k < *count && strcmp(list[k], name) != 0; k++)
		;
	if (k == *count) {
		if (*count == MAX_LOGS)
			return -1;
		strcpy(list[(*count)++], name);
	}
	return (long)k;
}

static int S_grow(struct rows *r)
{
	size_t cap = r->cap ? 2 * r->cap : 256;
	struct errband_sample *s = realloc(r->s, cap * sizeof(*s));
	unsigned long *nodes;
	double *size;

	if (s)
		r->s = s;
	nodes = s ? realloc(r->nodes, cap * sizeof(*nodes)) : NULL;
	if (nodes)
		r->nodes = nodes;
	size = nodes ? realloc(r->size, cap * sizeof(*size)) : NULL;
	if (!size)
		return -1;
	r->size = size;
	r->cap = cap;
	return 0;
}

/* One row of the file into r; 0, or -1 with the reason on stderr. */
static int S_row(struct rows *r, const char *line, const char *path, size_t lineno)
{
	char name[MAX_NAME], mach[MAX_NAME];
	unsigned long nodes;
	int threaded, used = 0;
	double size, meas, pred;
	long k, km;

	if (sscanf(line, "%127s %lu %d %lf %lf %lf %127s %n", name, &nodes, &threaded, &size,
		   &meas, &pred, mach, &used) != 7 || line[used] != '\0' || !(meas > 0) ||
	    !(pred > 0) || !(size > 0)) {
		fprintf(stderr, "%s:%zu: not LOG NODES THREADED SIZE_B MEASURED_S PREDICTED_S "
			"MACHINE with positive numbers\n", path, lineno);
		return -1;
	}
	if ((km = S_intern(r->machines, &r->nmach, mach)) < 0 ||
	    (k = S_intern(r->names, &r->nlogs, name)) < 0) {
		fprintf(stderr, "%s:%zu: more than %d logs or machines\n", path, lineno, MAX_LOGS);
		return -1;
	}
	r->log_machine[k] = (unsigned)km;
	if (r->n == r->cap && S_grow(r) < 0) {
		fprintf(stderr, "errband-gen: out of memory\n");
		return -1;
	}
	r->nodes[r->n] = nodes;
	r->size[r->n] = size;
	r->s[r->n++] = (struct errband_sample){ .ratio = meas / pred, .log = (unsigned)k,
						.machine = (unsigned)km,
						.threaded = threaded != 0,
						.scope = errband_scope_of(nodes),
						.size = errband_size_of(size) };
	return 0;
}

static int S_read(const char *path, struct rows *r)
{
	static unsigned log_machine[MAX_LOGS];
	char line[512];
	size_t lineno = 0;
	FILE *f;

	memset(r, 0, sizeof *r);
	r->log_machine = log_machine;
	if (!(f = fopen(path, "r"))) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (S_row(r, line, path, ++lineno) < 0) {
			fclose(f);
			return -1;
		}
	fclose(f);
	if (r->n == 0) {
		fprintf(stderr, "%s: no rows\n", path);
		return -1;
	}
	return 0;
}

/* Every cell of the table from samples s[0..n); 0, or -1 with the reason on stderr. */
static int S_draw(const struct errband_sample *s, size_t n, band_table t)
{
	struct errbuf eb;
	int sc, sz;

	for (sc = 0; sc < ERRBAND_SCOPE_COUNT; sc++)
		for (sz = 0; sz < ERRBAND_SIZE_COUNT; sz++)
			if (errband_draw(s, n, (enum errband_scope)sc, (enum errband_size)sz,
					 &t[sc][sz], &eb) < 0) {
				fprintf(stderr, "errband-gen: %s\n", eb.msg);
				return -1;
			}
	return 0;
}

static int S_table(const struct rows *r)
{
	band_table t;
	int sc, sz;

	if (S_draw(r->s, r->n, t) < 0)
		return 1;
	printf("/*\n * Generated by tools/errband-gen from the rows of bench/accuracy.sh"
	       " (make errband);\n * do not edit.  Reviewed when regenerated: models/nccl-accuracy.md,"
	       " \"The stated error\".\n */\n#include \"errband.h\"\n\n");
	printf("const unsigned errband_logs = %zu, errband_sizes = %zu, errband_machines = %zu;\n\n",
	       r->nlogs, r->n, r->nmach);
	printf("const struct errband errband_table[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT] = {\n");
	for (sc = 0; sc < ERRBAND_SCOPE_COUNT; sc++) {
		printf("\t[%s] = {\n", scope_ids[sc]);
		for (sz = 0; sz < ERRBAND_SIZE_COUNT; sz++) {
			const struct errband *b = &t[sc][sz];
			printf("\t\t[%s] = { .lo = %.4f, .mid = %.4f, .hi = %.4f,\n"
			       "\t\t\t.sizes = %u, .logs = %u, .threaded = %u, .loo_inside = %u,\n"
			       "\t\t\t.machines = %u, .widen = %.2f },\n",
			       size_ids[sz], b->lo, b->mid, b->hi, b->sizes, b->logs, b->threaded,
			       b->loo_inside, b->machines, b->widen);
		}
		printf("\t},\n");
	}
	printf("};\n");
	return ferror(stdout) ? 1 : 0;
}

/* Whether sample i of r is inside table t (the smoothed band of its size); -1: no band. */
static int S_inside(const struct rows *r, size_t i, band_table t)
{
	struct errband b;

	if (errband_at((const struct errband(*)[ERRBAND_SIZE_COUNT])t, r->nodes[i], r->size[i], &b) < 0)
		return -1;
	return errband_inside(&b, r->s[i].ratio, 1.0);
}

/* --per-log: each log's sizes inside the band in sample and with its machine left out. */
static int S_per_log(const struct rows *r)
{
	static band_table out[MAX_LOGS];
	band_table all;
	struct errband_sample *keep;
	size_t m, i, k, j;

	if (S_draw(r->s, r->n, all) < 0 || !(keep = malloc(r->n * sizeof(*keep))))
		return 1;
	for (m = 0; m < r->nmach; m++) {
		for (i = k = 0; i < r->n; i++)
			if (r->s[i].machine != m)
				keep[k++] = r->s[i];
		if (S_draw(keep, k, out[m]) < 0) {
			free(keep);
			return 1;
		}
	}
	free(keep);
	printf("# log machine sizes inside_in inside_out no_band_out wider_out\n");
	for (j = 0; j < r->nlogs; j++) {
		unsigned sizes = 0, in = 0, outside = 0, none = 0, wider = 0;
		m = r->log_machine[j];
		for (i = 0; i < r->n; i++) {
			int a, b;
			if (r->s[i].log != j)
				continue;
			sizes++;
			a = S_inside(r, i, all);
			b = S_inside(r, i, out[m]);
			in += a == 1;
			outside += b == 1;
			none += b < 0;
			wider += errband_scope_at((const struct errband(*)[ERRBAND_SIZE_COUNT])out[m],
						  r->nodes[i], r->size[i]) == ERRBAND_ANY_NODES;
		}
		printf("%s %s %u %u %u %u %u\n", r->names[j], r->machines[m], sizes, in, outside, none,
		       wider);
	}
	return ferror(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct rows r;
	int per_log = argc == 3 && strcmp(argv[1], "--per-log") == 0, rc;

	if (argc != 2 && !per_log) {
		fprintf(stderr, "usage: errband-gen [--per-log] ROWS\n");
		return 2;
	}
	if (S_read(argv[argc - 1], &r) < 0)
		return 1;
	rc = per_log ? S_per_log(&r) : S_table(&r);
	free(r.s);
	free(r.nodes);
	free(r.size);
	return rc;
}
