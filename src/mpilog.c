/*
 * OSU micro-benchmarks and Intel MPI Benchmarks output, line by line.
 * See mpilog.h for what is read.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"
#include "mpilog.h"
#include "units.h"

#define LINE_MAX_LEN 4096
#define FIELDS_MAX 16

struct lines {
	const char *buf, *name;
	size_t len, pos;
	int line;
	int cut;        /* the line read last has no line break after it */
	char text[LINE_MAX_LEN + 1];
	struct errbuf *eb;
};

/* The next line into l->text (without its newline or '\r'); 1, 0 at the end, -1. */
static int S_next(struct lines *l)
{
	const char *nl;
	size_t end, n;

	if (l->pos >= l->len)
		return 0;
	nl = memchr(l->buf + l->pos, '\n', l->len - l->pos);
	end = nl ? (size_t)(nl - l->buf) : l->len;
	n = end - l->pos;
	l->line++;
	l->cut = nl == NULL;
	if (memchr(l->buf + l->pos, '\0', n))
		return errbuf_set(l->eb, "%s:%d: binary data (a NUL byte)", l->name, l->line);
	if (n > LINE_MAX_LEN)
		return errbuf_set(l->eb, "%s:%d: line longer than %d bytes", l->name, l->line,
				  LINE_MAX_LEN);
	memcpy(l->text, l->buf + l->pos, n);
	if (n && l->text[n - 1] == '\r')
		n--;
	l->text[n] = '\0';
	l->pos = end + 1;
	return 1;
}

static int S_split(char *s, char **f)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == FIELDS_MAX)
			return FIELDS_MAX + 1;
		f[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static int S_is_count(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 18 && strspn(s, "0123456789") == n;
}

/* Digits only, however many: a size, whether or not it fits. */
static int S_is_digits(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && strspn(s, "0123456789") == n;
}

/*
 * What every data row must be, beyond its fields: a size that fits (at
 * most 18 digits, read exactly) and a line break after it (a row the file
 * ends in without one may be cut short: "1048576  12" of "1048576  1234.5").
 */
static int S_row_whole(struct lines *l, const char *size)
{
	if (strlen(size) > 18)
		return errbuf_set(l->eb, "%s:%d: size '%s' does not fit: more than 18 digits",
				  l->name, l->line, size);
	if (l->cut)
		return errbuf_set(l->eb, "%s:%d: the file ends inside this row (no line break "
				  "after it): cut short?", l->name, l->line);
	return 0;
}

/* A time in µs filling the whole field, > 0; in seconds. */
static int S_time_us(struct lines *l, const char *v, double *t)
{
	double raw;

	/* "11.69" is 11.69e-6: the double nearest the printed value. */
	if (strlen(v) > 64 || !*v || units_decimal(v, -6, t) < 0)
		return errbuf_set(l->eb, "%s:%d: time '%s' is not a number", l->name, l->line, v);
	/* 1e309 µs is 1e303 s, but no program printed a number past the doubles */
	if (units_decimal(v, 0, &raw) < 0)
		return errbuf_set(l->eb, "%s:%d: time '%s' is out of range (past the largest "
				  "double)", l->name, l->line, v);
	if (!(*t > 0))
		return errbuf_set(l->eb, "%s:%d: time '%s' is not positive", l->name, l->line, v);
	return 0;
}

static void S_row_init(struct meas_row *r, int line)
{
	memset(r, 0, sizeof(*r));
	r->line = line;
	r->op = -1;
	r->algo = -1;
	r->algbw = r->busbw = r->time_ip = r->busbw_ip = NAN;
}

/* A row of one size of the test (op, ranks), its time still to read. */
static void S_row_of(struct meas_row *r, int line, const char *size, int op,
		     unsigned long ranks, int per_rank)
{
	S_row_init(r, line);
	r->size = strtod(size, NULL);
	r->op = op;
	r->ranks = ranks;
	r->size_per_rank = per_rank;
}

/* Sizes increase within one test (one collective and rank count). */
static int S_push(struct lines *l, struct meas *m, size_t first, struct meas_row *r)
{
	if (m->n > first) {
		const struct meas_row *p = &m->rows[m->n - 1];

		if (r->size <= p->size)
			return errbuf_set(l->eb, "%s:%d: size %.17g %s line %d; sizes must "
					  "increase", l->name, l->line, r->size,
					  r->size == p->size ? "appears twice, also on" :
					  "is smaller than the size on", p->line);
	}
	meas_push(m, r);
	return 0;
}

/* ---- OSU ---- */

/*
 * The benchmark names of OSU's titles ("# OSU MPI Allreduce Latency
 * Test"), with the CUDA, ROCm and non-blocking variants ("OSU MPI-CUDA",
 * "OSU MPI Non-blocking Allreduce") read as their blocking collective.
 */
static const struct {
	const char *word;
	enum coll_op op;
	int per_rank;
} osu_names[] = {
	{ "Allreduce", OP_ALLREDUCE, 0 },
	{ "Allgather", OP_ALLGATHER, 1 },
	{ "Reduce Scatter", OP_REDUCESCATTER, 0 },
	{ "Reduce_scatter", OP_REDUCESCATTER, 0 },
	{ "All-to-All", OP_ALLTOALL, 1 },
	{ "Alltoall", OP_ALLTOALL, 1 },
	{ "Broadcast", OP_BROADCAST, 0 },
	{ "Reduce", OP_REDUCE, 0 },
	{ "Latency", OP_SENDRECV, 0 },
};

/*
 * The collective of the OSU title p ("# OSU MPI Allreduce Latency Test")
 * into *op and *per_rank; a bandwidth test or a test without a model is
 * an error.
 */
static int S_osu_title(struct lines *l, char *p, int *op, int *per_rank)
{
	size_t k;
	char *t = strstr(p, " Test");

	if (strstr(p, "Bandwidth") || strstr(p, "Bi-Directional"))
		return errbuf_set(l->eb, "%s:%d: this OSU test reports bandwidth, not "
				  "time; run osu_latency or a collective test",
				  l->name, l->line);
	*op = -1;
	if (t)
		*t = '\0';
	for (k = 0; k < sizeof(osu_names) / sizeof(osu_names[0]); k++)
		if (strstr(p, osu_names[k].word)) {
			*op = (int)osu_names[k].op;
			*per_rank = osu_names[k].per_rank;
			break;
		}
	if (*op < 0)
		return errbuf_set(l->eb, "%s:%d: no model for this OSU test ('%s')",
				  l->name, l->line, p + 2);
	return 0;
}

/* A row's fields after the title: a whole row of a size and a latency, as wide as those above. */
static int S_osu_width(struct lines *l, char **f, int nf, int *nrow)
{
	if (S_row_whole(l, f[0]) < 0)
		return -1;
	if (nf < 2)
		return errbuf_set(l->eb, "%s:%d: data row has 1 field, expected the "
				  "size and the latency (truncated?)", l->name, l->line);
	if (*nrow && nf != *nrow)
		return errbuf_set(l->eb, "%s:%d: data row has %d fields, the rows "
				  "above %d (truncated?)", l->name, l->line, nf, *nrow);
	*nrow = nf;
	return 0;
}

int osulog_parse(const char *buf, size_t len, const char *name,
		 struct meas *m, struct errbuf *eb)
{
	struct lines l = { buf, name, len, 0, 0, 0, "", eb };
	int op = -1, per_rank = 0, title = 0, st, nrow = 0;
	unsigned long ranks = 0;
	size_t first = m->n;

	m->from_log = 1;
	while ((st = S_next(&l)) > 0) {
		char *f[FIELDS_MAX + 1], *p = l.text;
		struct meas_row r;
		int nf;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!strncmp(p, "# OSU ", 6)) {
			if (title && m->n > first)
				return errbuf_set(eb, "%s:%d: a second test starts here; give one "
						  "benchmark run per file", name, l.line);
			if (S_osu_title(&l, p, &op, &per_rank) < 0)
				return -1;
			title = 1;
			/* osu_latency: the title is "# OSU MPI Latency Test", 2 ranks. */
			ranks = op == OP_SENDRECV ? 2 : 0;
			continue;
		}
		if (*p == '#' || !*p)
			continue;
		nf = S_split(p, f);
		/* After the title a line of digits first is a row, whole or not. */
		if (title && nf >= 1 && nf <= FIELDS_MAX && S_is_digits(f[0]) &&
		    S_osu_width(&l, f, nf, &nrow) < 0)
			return -1;
		if (nf < 2 || nf > FIELDS_MAX || !S_is_count(f[0]))
			continue;    /* launcher messages, prompts */
		if (!title)
			return errbuf_set(eb, "%s:%d: a data row before the '# OSU MPI ... Test' "
					  "title", name, l.line);
		S_row_of(&r, l.line, f[0], op, ranks, per_rank);
		if (S_time_us(&l, f[1], &r.time) < 0 || S_push(&l, m, first, &r) < 0)
			return -1;
	}
	if (st < 0)
		return -1;
	if (m->n == first)
		return errbuf_set(eb, "%s: no data rows found; expected OSU micro-benchmark "
				  "output (rows of size and latency in us)", name);
	m->op = op;
	m->ranks = ranks;
	return 0;
}

/* ---- IMB ---- */

static const struct {
	const char *name;
	enum coll_op op;
	int per_rank;
} imb_names[] = {
	{ "Allreduce", OP_ALLREDUCE, 0 },
	{ "Allgather", OP_ALLGATHER, 1 },
	{ "Reduce_scatter", OP_REDUCESCATTER, 0 },
	{ "Alltoall", OP_ALLTOALL, 1 },
	{ "Bcast", OP_BROADCAST, 0 },
	{ "Reduce", OP_REDUCE, 0 },
	{ "PingPong", OP_SENDRECV, 0 },
	{ "Sendrecv", OP_SENDRECV, 0 },
};

/* The collective of IMB's section "# Benchmarking <name>"; -1 for one without a model. */
static int S_imb_op(const char *word, int *per_rank)
{
	int op = -1;
	size_t k;

	for (k = 0; k < sizeof(imb_names) / sizeof(imb_names[0]); k++)
		if (!strcmp(word, imb_names[k].name)) {
			op = (int)imb_names[k].op;
			*per_rank = imb_names[k].per_rank;
		}
	return op;
}

/* The time's column of the header "#bytes ...": t_avg[usec], else the first t[usec]; -1. */
static int S_imb_tcol(char **f, int nf)
{
	int i, tcol = -1;

	for (i = 1; i < nf; i++)
		if (!strcmp(f[i], "t_avg[usec]") ||
		    (!strcmp(f[i], "t[usec]") && tcol < 0))
			tcol = i;
	return tcol;
}

/* The file's collective and rank count: the rows' own, or -1 and 0 where they differ. */
static void S_imb_common(struct meas *m)
{
	size_t k;

	m->op = m->rows[0].op;
	m->ranks = m->rows[0].ranks;
	for (k = 1; k < m->n; k++) {
		if (m->rows[k].op != m->op)
			m->op = -1;
		if (m->rows[k].ranks != m->ranks)
			m->ranks = 0;
	}
}

int imblog_parse(const char *buf, size_t len, const char *name,
		 struct meas *m, struct errbuf *eb)
{
	struct lines l = { buf, name, len, 0, 0, 0, "", eb };
	int op = -1, per_rank = 0, tcol = -1, ncol = 0, st;
	unsigned long ranks = 0;
	size_t first = m->n;

	/* Several benchmarks and process counts: select rows as in a CSV. */
	m->from_log = 0;
	while ((st = S_next(&l)) > 0) {
		char *f[FIELDS_MAX + 1], *p = l.text;
		struct meas_row r;
		int nf;

		while (*p == ' ' || *p == '\t')
			p++;
		nf = S_split(p, f);
		if (nf < 1 || nf > FIELDS_MAX)
			continue;
		if (nf >= 3 && !strcmp(f[0], "#") && !strcmp(f[1], "Benchmarking")) {
			/* A new section: a collective commtime models, or one to skip. */
			op = S_imb_op(f[2], &per_rank);
			tcol = -1;
			ranks = 0;
			first = m->n;
			continue;
		}
		if (nf >= 4 && !strcmp(f[0], "#") && !strcmp(f[1], "#processes") &&
		    !strcmp(f[2], "=")) {
			if (!S_is_count(f[3]) || strtod(f[3], NULL) > (double)RANKS_MAX)
				return errbuf_set(eb, "%s:%d: process count '%s' is not a count",
						  name, l.line, f[3]);
			ranks = strtoul(f[3], NULL, 10);
			continue;
		}
		if (!strcmp(f[0], "#bytes")) {
			tcol = S_imb_tcol(f, nf);
			ncol = nf;
			continue;
		}
		if (f[0][0] == '#' || op < 0 || tcol < 0 || !S_is_digits(f[0]))
			continue;
		if (S_row_whole(&l, f[0]) < 0)
			return -1;
		if (nf != ncol)
			return errbuf_set(eb, "%s:%d: data row has %d fields, the column header "
					  "%d (truncated?)", name, l.line, nf, ncol);
		S_row_of(&r, l.line, f[0], op, ranks, per_rank);
		if (r.size == 0)
			continue;    /* nothing moved: not a point of the curve */
		if (S_time_us(&l, f[tcol], &r.time) < 0 || S_push(&l, m, first, &r) < 0)
			return -1;
	}
	if (st < 0)
		return -1;
	if (m->n == 0)
		return errbuf_set(eb, "%s: no data rows found; expected Intel MPI Benchmarks "
				  "output of Allreduce, Allgather, Reduce_scatter, Alltoall, "
				  "Bcast, Reduce, PingPong or Sendrecv", name);
	S_imb_common(m);
	return 0;
}
