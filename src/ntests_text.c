/*
 * Reading nccl-tests output.  The parser goes line by line through a
 * buffer (so the fuzz target can hand it arbitrary bytes), keeps what the
 * comment lines say (collective, ranks, column header) and turns every
 * data row into a struct meas_row.  See ntests_text.h for the rules.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "nccl_model.h"
#include "nccl_info.h"
#include "ntests_text.h"
#include "units.h"

#define MAX_FIELDS 64
#define MAX_RANK_NUMBER (1u << 20)

/* Where the numbers of a data row are, by field index (-1: absent). */
struct layout {
	int nfields;        /* fields in a data row; 0: not known (no header) */
	int size, time, algbw, busbw;
	int time_ip, busbw_ip;
	int redop;          /* the "redop" column, -1: absent */
};

struct parser {
	const char *name;
	int line;
	struct layout lay;
	int have_header;
	int op;                 /* from "Collective test starting", or -1 */
	unsigned char *seen;    /* rank numbers seen in "# Rank" lines */
	unsigned long nranks;
	int started_line;       /* line of the "Collective test starting" */
	char *piece;            /* a row split by NCCL's lines, so far (S_nccl_head) */
	size_t npiece;
	struct nccllines lines;  /* what NCCL's own lines said so far */
	struct meas *m;
	struct errbuf *eb;
	int cut;                /* the line being read has no line break after it */
	size_t nsum;            /* data rows whose redop column says "sum" */
};

/* Split line (modified in place) into at most MAX_FIELDS fields. */
static int S_split(char *line, char **f)
{
	int n = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		if (n == MAX_FIELDS)
			return MAX_FIELDS + 1;
		f[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* A whole number of at most 18 digits (so it converts exactly). */
static int S_is_count(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 18)
		return 0;
	return strspn(s, "0123456789") == n;
}

/*
 * A finite number filling the whole field, times 10^exp10; 0 or -1.  The
 * power of ten is applied in decimal ("18.41" with -6 reads "18.41e-6"),
 * so the result is the double nearest the value printed and prints back
 * as 1.841e-05, not 1.8409999999999998e-05.
 */
static int S_number(const char *s, int exp10, double *x)
{
	double raw;

	if (!*s || isspace((unsigned char)*s) || strlen(s) > 64)
		return -1;
	if (units_decimal(s, exp10, x) < 0)
		return -1;
	/* 1e309 µs would be 1e303 s, but no program printed a number past the doubles */
	return units_decimal(s, 0, &raw) < 0 ? -2 : 0;
}

/* Digits only, however many. */
static int S_is_digits(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && strspn(s, "0123456789") == n;
}

/*
 * A launcher's tag before the real line: "srun --label" ("0: ", "12:\t"),
 * a bracketed rank ("[0] ", as mpirun tags output) or Open MPI's
 * --tag-output ("[1,0]<stdout>:").  Data rows never
 * hold a colon, and NCCL INFO lines ("host:pid:tid") have no blank after
 * their first colon, so neither is mistaken for a label; NCCL's "[0]"
 * comes after the host, never first.
 */
static char *S_strip_label(char *s)
{
	char *p = s;

	while (*p == ' ')
		p++;
	if (*p == '[') {
		char *q = p + 1;
		int pair = 0;

		while (isdigit((unsigned char)*q))
			q++;
		if (q > p + 1 && *q == ',' && isdigit((unsigned char)q[1])) {
			for (q++; isdigit((unsigned char)*q); q++)
				;
			pair = 1;
		}
		if (q == p + 1 || *q != ']')
			return s;
		/* Open MPI's --tag-output: "[1,0]<stdout>:" */
		if (pair && (!strncmp(q + 1, "<stdout>:", 9) || !strncmp(q + 1, "<stderr>:", 9)))
			return q + 10;
		if (!pair && (q[1] == ' ' || q[1] == '\t' || q[1] == '\0'))
			return q + 1;
		return s;
	}
	if (!isdigit((unsigned char)*p))
		return s;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p != ':' || (p[1] != ' ' && p[1] != '\t' && p[1] != '\0'))
		return s;
	return p + 1;
}

/*
 * Where NCCL's own line starts in line ("host:pid:tid [dev] NCCL INFO
 * ...", NCCL's debug.cc), or NULL when there is none.  NCCL writes to the
 * stdout nccl-tests prints its rows to, and nccl-tests prints a row in
 * three pieces (the size columns, then the out-of-place and the in-place
 * results, each after its calls; src/common.cu), so with NCCL_DEBUG=INFO
 * a piece of a row can stand before NCCL's line, glued to its host name.
 */
static char *S_nccl_head(char *line)
{
	static const char *const levels[] = { "] NCCL INFO", "] NCCL WARN", "] NCCL TRACE" };
	char *mark = NULL, *b, *tok;

	for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]) && !mark; i++)
		mark = strstr(line, levels[i]);
	if (!mark)
		return NULL;
	for (b = mark; b > line && b[-1] != '['; b--)
		;
	if (b == line || b - 1 == line || b[-2] != ' ')
		return NULL;
	for (tok = b - 2; tok > line && !isspace((unsigned char)tok[-1]); tok--)
		;
	return tok;
}

/*
 * The end of the piece of a row before NCCL's line at head: after the
 * number (or "N/A") glued to the host name (a root or #wrong column,
 * never read), else before a launcher's "[0]" glued to the row, else
 * head; line when nothing but blanks precede head.
 */
static char *S_piece_end(char *line, char *head)
{
	char *p = line, *e = head;

	while (p < head && isspace((unsigned char)*p))
		p++;
	if (p == head)
		return line;
	if (strncmp(e, "N/A", 3) == 0)
		return e + 3;
	if (*e == '-')
		e++;
	while (isdigit((unsigned char)*e) || *e == '.')
		e++;
	if (e > head && e[-1] != '-')
		return e;
	for (e = head; e > line && isspace((unsigned char)e[-1]); e--)
		;
	if (e > line && e[-1] == ']') {
		char *b = e - 1;

		while (b > line && isdigit((unsigned char)b[-1]))
			b--;
		if (b > line && b < e - 1 && b[-1] == '[')
			return b - 1;
	}
	return head;
}

/*
 * What the n bytes at s are: the start of a row (its first two fields
 * whole numbers, as a data row's), more of one (every field a number or
 * "N/A": the results nccl-tests prints after the calls), or neither (a
 * time stamp or any other text before NCCL's line, which joins no row).
 */
enum piece { PIECE_NONE, PIECE_START, PIECE_MORE };
static enum piece S_piece_kind(const char *s, size_t n)
{
	char f[72];
	size_t i = 0, k = 0;
	int counts = 0, numbers = 1;
	double x;

	while (i < n) {
		size_t len;

		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (i == n)
			break;
		for (len = 0; i + len < n && !isspace((unsigned char)s[i + len]); len++)
			;
		if (len >= sizeof(f))
			return PIECE_NONE;
		memcpy(f, s + i, len);
		f[len] = '\0';
		if (k < 2 && S_is_count(f))
			counts++;
		if (strcmp(f, "N/A") != 0 && S_number(f, 0, &x) < 0)
			numbers = 0;
		k++;
		i += len;
	}
	return counts == 2 ? PIECE_START : k && numbers ? PIECE_MORE : PIECE_NONE;
}

/* Append n bytes at s and a blank to the row being put together. */
static int S_piece_add(struct parser *ps, const char *s, size_t n)
{
	if (ps->npiece + n + 2 > NCCLLOG_LINE_MAX)
		return errbuf_set(ps->eb, "%s:%d: a row split by NCCL's lines grows past %d "
				  "bytes", ps->name, ps->line, NCCLLOG_LINE_MAX);
	if (!ps->piece)
		ps->piece = xmalloc(NCCLLOG_LINE_MAX + 1);
	memcpy(ps->piece + ps->npiece, s, n);
	ps->npiece += n;
	ps->piece[ps->npiece++] = ' ';
	ps->piece[ps->npiece] = '\0';
	return 0;
}

/*
 * The column header: the words after '#', with "time", "algbw" and
 * "busbw" once or twice (out-of-place, in-place).  The size column is
 * "size" in current builds, "bytes" in old ones.
 */
static int S_header(struct parser *ps, char **f, int nf)
{
	struct layout l = { 0, -1, -1, -1, -1, -1, -1, -1 };
	int i, ntime = 0, off = 1;

	/* The first field is "#" alone or glued to the first word ("#size"). */
	if (strcmp(f[0], "#") != 0) {
		f[0]++;
		off = 0;
	}
	for (i = off; i < nf; i++) {
		const char *w = f[i];
		int col = i - off;

		if ((!strcmp(w, "size") || !strcmp(w, "bytes")) && l.size < 0)
			l.size = col;
		else if (!strcmp(w, "redop") && l.redop < 0)
			l.redop = col;
		else if (!strcmp(w, "time")) {
			if (ntime == 0)
				l.time = col;
			else if (ntime == 1)
				l.time_ip = col;
			ntime++;
		} else if (!strcmp(w, "algbw") && ntime == 1 && l.algbw < 0)
			l.algbw = col;
		else if (!strcmp(w, "busbw")) {
			if (ntime == 1 && l.busbw < 0)
				l.busbw = col;
			else if (ntime == 2 && l.busbw_ip < 0)
				l.busbw_ip = col;
		}
	}
	if (l.time < 0 || l.busbw < 0)
		return 0;    /* a comment that merely mentions the words */
	if (l.size < 0)
		l.size = 0;
	l.nfields = nf - off;
	ps->lay = l;
	ps->have_header = 1;
	return 1;
}

/*
 * "# nThread 1 nGpus 8 minBytes ...": how many GPUs each host thread of
 * the run drove (nccl-tests -g), kept in m->gpus_per_thread.
 */
static void S_threads_line(struct parser *ps, char **f, int nf)
{
	if (nf < 5 || strcmp(f[0], "#") || strcmp(f[1], "nThread") || strcmp(f[3], "nGpus") ||
	    !S_is_count(f[4]) || strlen(f[4]) > 6)
		return;
	ps->m->gpus_per_thread = strtoul(f[4], NULL, 10);
}

static int S_rank_line(struct parser *ps, char **f, int nf)
{
	unsigned long r;

	if (nf < 3 || strcmp(f[0], "#") || strcmp(f[1], "Rank") || !S_is_count(f[2]))
		return 0;
	r = strtoul(f[2], NULL, 10);
	if (r >= MAX_RANK_NUMBER)
		return errbuf_set(ps->eb, "%s:%d: rank number '%s' is too large",
				  ps->name, ps->line, f[2]);
	if (!ps->seen)
		ps->seen = calloc(MAX_RANK_NUMBER / 8, 1);
	if (!ps->seen)
		return errbuf_set(ps->eb, "%s: out of memory", ps->name);
	if (!(ps->seen[r / 8] & (1u << (r % 8)))) {
		ps->seen[r / 8] |= (unsigned char)(1u << (r % 8));
		ps->nranks++;
	}
	return 0;
}

static int S_comment(struct parser *ps, char *line)
{
	static const char start[] = "Collective test starting:";
	char *f[MAX_FIELDS + 1];
	char *p = strstr(line, start);
	int nf;

	if (p) {
		struct errbuf ignore;
		enum coll_op op;
		char *w;

		if (ps->m->n > 0)
			return errbuf_set(ps->eb, "%s:%d: a second test starts here; "
					  "give one nccl-tests run per file",
					  ps->name, ps->line);
		ps->started_line = ps->line;
		p += sizeof(start) - 1;
		nf = S_split(p, f);
		w = nf >= 1 && nf <= MAX_FIELDS ? f[0] : "";
		/* Tests commtime has no model for (hypercube, gather) stay unknown. */
		ps->op = coll_op_lookup(w, &op, &ignore) == 0 ? (int)op : -1;
		return 0;
	}
	nf = S_split(line, f);
	if (nf < 1 || nf > MAX_FIELDS)
		return 0;
	if (S_rank_line(ps, f, nf) < 0)
		return -1;
	S_threads_line(ps, f, nf);
	if (nf >= 4)
		S_header(ps, f, nf);
	return 0;
}

static int S_bad_field(struct parser *ps, const char *what, const char *val, int why)
{
	return errbuf_set(ps->eb, "%s:%d: %s '%s' is %s", ps->name, ps->line, what, val,
			  why == -2 ? "out of range (past the largest double)" : "not a number");
}

/* A time in µs that must be a positive number; stored in seconds. */
static int S_time(struct parser *ps, const char *what, const char *val, double *t)
{
	int r = S_number(val, -6, t);

	if (r < 0)
		return S_bad_field(ps, what, val, r);
	if (!(*t > 0))
		return errbuf_set(ps->eb, "%s:%d: %s '%s' is not positive", ps->name,
				  ps->line, what, val);
	return 0;
}

/* A bandwidth in GB/s, >= 0; stored in bytes/s. */
static int S_bw(struct parser *ps, const char *what, const char *val, double *bw)
{
	int r = S_number(val, 9, bw);

	if (r < 0)
		return S_bad_field(ps, what, val, r);
	if (*bw < 0)
		return errbuf_set(ps->eb, "%s:%d: %s '%s' is negative", ps->name,
				  ps->line, what, val);
	return 0;
}

/* The columns of a data row of nf fields into *l (the header's, if any). */
static int S_row_layout(const struct parser *ps, int nf, struct layout *l)
{
	if (ps->have_header) {
		if (nf != l->nfields)
			return errbuf_set(ps->eb, "%s:%d: data row has %d fields, the "
					  "column header %d (truncated or mixed lines?)",
					  ps->name, ps->line, nf, l->nfields);
	} else {
		/* No header: every layout ends with time algbw busbw check, twice. */
		if (nf < 10)
			return errbuf_set(ps->eb, "%s:%d: data row has %d fields, "
					  "expected at least 10 (truncated?)",
					  ps->name, ps->line, nf);
		l->size = 0;
		l->time = nf - 8;
		l->algbw = nf - 7;
		l->busbw = nf - 6;
		l->time_ip = nf - 4;
		l->busbw_ip = nf - 2;
		l->redop = -1;
	}
	return 0;
}

static int S_data_row(struct parser *ps, char **f, int nf)
{
	struct layout l = ps->lay;
	struct meas_row r;
	struct meas *m = ps->m;

	if (nf > MAX_FIELDS)
		return errbuf_set(ps->eb, "%s:%d: too many fields in a data row",
				  ps->name, ps->line);
	if (S_row_layout(ps, nf, &l) < 0)
		return -1;
	if (ps->cut)
		return errbuf_set(ps->eb, "%s:%d: the file ends inside this row (no line "
				  "break after it): cut short?", ps->name, ps->line);
	if (l.redop >= 0 && !strcmp(f[l.redop], "sum"))
		ps->nsum++;
	r.line = ps->line;
	r.size_per_rank = 0;
	r.op = ps->op;
	r.ranks = 0;
	r.algo = -1;
	r.algbw = r.busbw = r.time_ip = r.busbw_ip = NAN;
	if (!S_is_count(f[l.size]))
		return errbuf_set(ps->eb, "%s:%d: size '%s' is not a whole number of bytes",
				  ps->name, ps->line, f[l.size]);
	r.size = strtod(f[l.size], NULL);
	if (S_time(ps, "time", f[l.time], &r.time) < 0)
		return -1;
	if (l.algbw >= 0 && S_bw(ps, "algbw", f[l.algbw], &r.algbw) < 0)
		return -1;
	if (S_bw(ps, "busbw", f[l.busbw], &r.busbw) < 0)
		return -1;
	if (l.time_ip >= 0 && S_time(ps, "in-place time", f[l.time_ip], &r.time_ip) < 0)
		return -1;
	if (l.busbw_ip >= 0 && S_bw(ps, "in-place busbw", f[l.busbw_ip], &r.busbw_ip) < 0)
		return -1;
	if (m->n > 0) {
		const struct meas_row *prev = &m->rows[m->n - 1];

		if (r.size == prev->size)
			return errbuf_set(ps->eb, "%s:%d: size %s appears twice (also on line %d)",
					  ps->name, ps->line, f[l.size], prev->line);
		if (r.size < prev->size)
			return errbuf_set(ps->eb, "%s:%d: size %s is smaller than %.17g on "
					  "line %d; sizes must increase",
					  ps->name, ps->line, f[l.size], prev->size, prev->line);
	}
	meas_push(m, &r);
	return 0;
}

/*
 * The NCCL a run used, where the log says it: nccl-tests' banner
 * "nccl-library=22903" (NCCL_VERSION_CODE, major × 10000 + minor × 100 +
 * patch) or NCCL's own "NCCL version 2.29.3+cuda12.8" line (NCCL_DEBUG at
 * VERSION or INFO, possibly after "host:pid:tid [0] NCCL INFO ").
 */
static void S_version(struct parser *ps, const char *line)
{
	const char *p = strstr(line, "nccl-library=");
	long code, a, b, c;
	char *end;

	if (p) {
		code = strtol(p + 13, &end, 10);
		if (end != p + 13 && code >= 20900 && code < 100000)
			snprintf(ps->m->nccl_version, sizeof(ps->m->nccl_version), "%ld.%ld.%ld",
				 code / 10000, code / 100 % 100, code % 100);
		return;
	}
	p = strstr(line, "NCCL version ");
	if (!p || ps->m->nccl_version[0])
		return;
	p += 13;
	a = strtol(p, &end, 10);
	if (end == p || *end != '.' || a < 1 || a > 9)
		return;
	p = end + 1;
	b = strtol(p, &end, 10);
	if (end == p || *end != '.' || b < 0 || b > 99)
		return;
	p = end + 1;
	c = strtol(p, &end, 10);
	if (end == p || c < 0 || c > 99)
		return;
	snprintf(ps->m->nccl_version, sizeof(ps->m->nccl_version), "%ld.%ld.%ld", a, b, c);
}

/* A line of nccl-tests' own (no NCCL line in it). */
static int S_text(struct parser *ps, char *p)
{
	char *f[MAX_FIELDS + 1];
	int nf;

	if (*p == '#') {
		S_version(ps, p);
		return S_comment(ps, p);
	}
	/* before S_split cuts the line up (a host name may start with a digit) */
	if (!isdigit((unsigned char)*p))
		S_version(ps, p);
	nccllines_read(&ps->lines, ps->m, p, ps->line);
	nf = S_split(p, f);
	/* Inside the table a line of digits first is a row, whole or not. */
	if ((ps->have_header || ps->m->n > 0) && nf >= 1 && S_is_digits(f[0])) {
		if (strlen(f[0]) > 18)
			return errbuf_set(ps->eb, "%s:%d: size '%s' does not fit: more than 18 "
					  "digits", ps->name, ps->line, f[0]);
		return S_data_row(ps, f, nf);
	}
	if (nf < 2 || !S_is_count(f[0]) || !S_is_count(f[1]))
		return 0;    /* banners, anything else */
	return S_data_row(ps, f, nf);
}

/* The row being put together, read as it stands (an error if incomplete). */
static int S_piece_flush(struct parser *ps)
{
	ps->npiece = 0;
	return S_text(ps, ps->piece);
}

/* The same for a row that ended on an earlier line than this one. */
static int S_piece_flush_earlier(struct parser *ps)
{
	int cut = ps->cut, rc;

	ps->cut = 0;
	rc = S_piece_flush(ps);
	ps->cut = cut;
	return rc;
}

static int S_line(struct parser *ps, char *line)
{
	char *p = S_strip_label(line), *head;
	size_t n = strlen(p);
	int rc;

	if (n && p[n - 1] == '\r')
		p[n - 1] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if ((head = S_nccl_head(p)) != NULL) {
		char *end = S_piece_end(p, head);
		enum piece k = end > p ? S_piece_kind(p, (size_t)(end - p)) : PIECE_NONE;

		S_version(ps, head);
		nccllines_read(&ps->lines, ps->m, head, ps->line);
		if (k == PIECE_START && ps->npiece && (rc = S_piece_flush_earlier(ps)) < 0)
			return rc;
		if (k == PIECE_START || (k == PIECE_MORE && ps->npiece))
			return S_piece_add(ps, p, (size_t)(end - p));
		return 0;
	}
	if (!ps->npiece)
		return S_text(ps, p);
	/* The last piece of a split row; anything else ends it as it
	 * stands (it fails if it is incomplete), then is read itself. */
	if (S_piece_kind(p, strlen(p)) != PIECE_MORE) {
		if ((rc = S_piece_flush_earlier(ps)) < 0)
			return rc;
		return S_text(ps, p);
	}
	if ((rc = S_piece_add(ps, p, strlen(p))) < 0)
		return rc;
	return S_piece_flush(ps);
}

/*
 * A log that does not say which collective it measured (no "Collective
 * test starting" line) is all_reduce_perf's when every row reduces with
 * "sum" and busbw / algbw is 2(n-1)/n at every row, nccl-tests' all-reduce
 * factor (doc/PERFORMANCE.md).  On n >= 3 ranks no other collective has
 * that factor (reduce_scatter: (n-1)/n, reduce and sendrecv: 1); on two
 * ranks it is 1 too, so two ranks are not inferred.  The columns print 2
 * decimals, so the ratio is read within 2 % (rows of busbw 1 GB/s or more).
 */
static int S_allreduce_ratio(const struct meas *m, unsigned long n)
{
	double want = 2.0 * ((double)n - 1) / (double)n;
	size_t i, used = 0;

	if (n < 3)
		return 0;
	for (i = 0; i < m->n; i++) {
		const struct meas_row *r = &m->rows[i];

		if (isnan(r->algbw) || isnan(r->busbw) || r->busbw < 1e9)
			continue;
		if (fabs(r->busbw / r->algbw / want - 1) > 0.02)
			return 0;
		used++;
	}
	return used > 0;
}

int nccllog_parse(const char *buf, size_t len, const char *name,
		  struct meas *m, struct errbuf *eb)
{
	struct parser ps;
	char *line = malloc(NCCLLOG_LINE_MAX + 1);
	size_t pos = 0, i;
	int rc = 0;

	if (!line)
		return errbuf_set(eb, "%s: out of memory", name);
	memset(&ps, 0, sizeof(ps));
	ps.name = name;
	ps.op = -1;
	ps.m = m;
	ps.eb = eb;
	m->from_log = 1;

	while (pos < len && rc == 0) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) : len;
		size_t n = end - pos;

		ps.line++;
		if (memchr(buf + pos, '\0', n)) {
			rc = errbuf_set(eb, "%s:%d: binary data (a NUL byte); expected "
					"nccl-tests output or CSV", name, ps.line);
			break;
		}
		if (n > NCCLLOG_LINE_MAX) {
			rc = errbuf_set(eb, "%s:%d: line longer than %d bytes", name,
					ps.line, NCCLLOG_LINE_MAX);
			break;
		}
		memcpy(line, buf + pos, n);
		line[n] = '\0';
		ps.cut = nl == NULL;
		rc = S_line(&ps, line);
		pos = end + 1;
	}
	if (rc == 0 && ps.npiece)
		rc = S_piece_flush(&ps);   /* a split row the log ends in */
	if (rc == 0 && m->n == 0)
		rc = errbuf_set(eb, "%s: no data rows found; expected nccl-tests "
				"output (rows of size, count, ..., time, algbw, busbw)", name);
	if (rc == 0) {
		m->op = ps.op;
		m->ranks = ps.nranks;
		if (m->op < 0 && ps.nsum == m->n && S_allreduce_ratio(m, ps.nranks)) {
			m->op = OP_ALLREDUCE;
			m->op_inferred = 1;
			for (i = 0; i < m->n; i++)
				m->rows[i].op = OP_ALLREDUCE;
		}
		for (i = 0; i < m->n; i++)
			m->rows[i].ranks = ps.nranks;
		meas_tuned_per_rank(m, ps.nranks);
	}
	free(ps.seen);
	free(ps.piece);
	free(line);
	return rc;
}
