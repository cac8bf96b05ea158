/*
 * Measurement files: reading them whole, telling CSV from nccl-tests logs,
 * the CSV reader (libcsv) and the checks every set of rows must pass.
 */
#include <csv.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bound.h"
#include "measfile.h"
#include "model.h"
#include "mpilog.h"
#include "ntests_json.h"
#include "ntests_text.h"
#include "units.h"

int meas_read_file(const char *path, char **buf, size_t *len, struct errbuf *eb)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, alloc = 65536;
	char *b;

	*buf = NULL;
	*len = 0;
	if (!f)
		return errbuf_set(eb, "cannot open '%s': %s", path, strerror(errno));
	b = xmalloc(alloc + 1);
	for (;;) {
		size_t got = fread(b + n, 1, alloc - n, f);

		n += got;
		if (got == 0)
			break;
		if (n == alloc) {
			if (alloc >= MEAS_FILE_MAX) {
				fclose(f);
				free(b);
				return errbuf_set(eb, "%s: file larger than %u MiB",
						  path, MEAS_FILE_MAX >> 20);
			}
			alloc *= 2;
			b = xrealloc(b, alloc + 1);
		}
	}
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		free(b);
		return errbuf_set(eb, "cannot read '%s': %s", path, strerror(e));
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}


/* Does the line [s, e) start with prefix (after blanks)? */
static int S_starts(const char *s, const char *e, const char *prefix)
{
	size_t n = strlen(prefix);

	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	return (size_t)(e - s) >= n && !memcmp(s, prefix, n);
}

static int S_holds(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);

	for (; s + n <= e; s++)
		if (!memcmp(s, word, n))
			return 1;
	return 0;
}

/*
 * The format of a file, from its content (measfile.h).  A CSV header has a
 * comma and names a size column; an nccl-tests log starts with '#'
 * comments, NCCL lines or rows of blank-separated numbers, none of which
 * fits.  The markers of the MPI suites are looked for in the first 200
 * lines: their titles come before any data.
 */
static enum meas_format S_sniff(const char *buf, size_t len)
{
	size_t i = 0, end;
	int lines = 0, csv = -1;

	while (i < len && isspace((unsigned char)buf[i]))
		i++;
	if (i < len && buf[i] == '{')
		return MEAS_NCCL_JSON;
	for (i = 0; i < len && lines < 200; i = end + 1, lines++) {
		const char *e;
		int comma = 0, size = 0;
		size_t k;

		for (end = i; end < len && buf[end] != '\n'; end++)
			;
		e = buf + end;
		if (S_starts(buf + i, e, "# OSU "))
			return MEAS_OSU;
		if (S_starts(buf + i, e, "# Benchmarking ") || S_holds(buf + i, e, "MPI Benchmarks"))
			return MEAS_IMB;
		if (S_starts(buf + i, e, "#") || csv >= 0)
			continue;
		for (k = i; k < end && isspace((unsigned char)buf[k]); k++)
			;
		if (k == end)
			continue;
		/* The first line that is neither blank nor a comment. */
		for (; k < end; k++) {
			if (buf[k] == ',')
				comma = 1;
			if (k + 4 <= end && !strncasecmp(buf + k, "size", 4))
				size = 1;
			if (k + 5 <= end && !strncasecmp(buf + k, "bytes", 5))
				size = 1;
		}
		csv = comma && size;
	}
	return csv > 0 ? MEAS_CSV : MEAS_NCCL_TEXT;
}

/*
 * Every reader's rows pass the same bounds before any model sees them: a
 * size and each time (bound.h), whatever the format parsed.
 */
static int S_bounded(const struct meas *m, const char *path, struct errbuf *eb)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		const struct meas_row *r = &m->rows[i];

		if (bound_check(BOUND_SIZE, r->size) < 0)
			return errbuf_set(eb, "%s:%d: size %g is not %s", path, r->line, r->size,
					  bound_what(BOUND_SIZE));
		if (bound_check(BOUND_TIME, r->time) < 0 ||
		    (!isnan(r->time_ip) && bound_check(BOUND_TIME, r->time_ip) < 0))
			return errbuf_set(eb, "%s:%d: time %g s is not %s", path, r->line,
					  bound_check(BOUND_TIME, r->time) < 0 ? r->time : r->time_ip,
					  bound_what(BOUND_TIME));
	}
	return 0;
}

int meas_load_file(const char *path, struct meas *m, struct errbuf *eb)
{
	char *buf;
	size_t len, skip = 0;
	int rc;

	if (meas_read_file(path, &buf, &len, eb) < 0)
		return -1;
	/* Spreadsheets save CSV with a UTF-8 byte order mark; it is not data. */
	skip = bound_bom(buf, len);
	m->format = S_sniff(buf + skip, len - skip);
	switch (m->format) {
	case MEAS_CSV:
		rc = meas_parse_csv(buf + skip, len - skip, path, m, eb);
		break;
	case MEAS_NCCL_JSON:
		rc = nccljson_parse(buf + skip, len - skip, path, m, eb);
		break;
	case MEAS_OSU:
		rc = osulog_parse(buf + skip, len - skip, path, m, eb);
		break;
	case MEAS_IMB:
		rc = imblog_parse(buf + skip, len - skip, path, m, eb);
		break;
	default:
		rc = nccllog_parse(buf + skip, len - skip, path, m, eb);
	}
	free(buf);
	return rc < 0 ? rc : S_bounded(m, path, eb);
}

/* ---- CSV ---- */

enum csv_col { C_SIZE, C_TIME, C_RANKS, C_OP, C_ALGO, C_CHECK, C_NCCL, C_COUNT };

/*
 * Header names and how their unit turns into SI: times 10^exp10 (applied
 * in decimal, see S_csv_num) or times scale (binary prefixes).
 */
static const struct {
	const char *name;
	enum csv_col col;
	int exp10;
	double scale;
} csv_names[] = {
	{ "size", C_SIZE, 0, 1 }, { "size_B", C_SIZE, 0, 1 }, { "bytes", C_SIZE, 0, 1 },
	{ "size_bytes", C_SIZE, 0, 1 },
	{ "size_KB", C_SIZE, 3, 1 }, { "size_MB", C_SIZE, 6, 1 }, { "size_GB", C_SIZE, 9, 1 },
	{ "size_KiB", C_SIZE, 0, 1024.0 }, { "size_MiB", C_SIZE, 0, 1048576.0 },
	{ "size_GiB", C_SIZE, 0, 1073741824.0 },
	{ "time", C_TIME, 0, 1 }, { "time_s", C_TIME, 0, 1 }, { "time_ms", C_TIME, -3, 1 },
	{ "time_us", C_TIME, -6, 1 }, { "time_ns", C_TIME, -9, 1 },
	{ "expected_time_s", C_TIME, 0, 1 },
	{ "time_sec", C_TIME, 0, 1 }, { "latency_us", C_TIME, -6, 1 },
	{ "ranks", C_RANKS, 0, 1 }, { "nranks", C_RANKS, 0, 1 },
	{ "world_size", C_RANKS, 0, 1 },
	{ "op", C_OP, 0, 1 }, { "collective", C_OP, 0, 1 }, { "algo", C_ALGO, 0, 1 },
	{ "check", C_CHECK, 0, 1 },
	/* a plan's: the NCCL version its times are priced with */
	{ "nccl_version", C_NCCL, 0, 1 },
};
#define NCSV_NAMES (sizeof(csv_names) / sizeof(csv_names[0]))

#define CSV_FIELD_MAX 256

struct csvstate {
	const char *name;
	struct meas *m;
	struct errbuf *eb;
	int failed;
	int line;            /* line being fed to the parser */
	int rec_line;        /* line where the current record started */
	int header_done;
	int ncols;           /* fields in the header */
	int col[C_COUNT];    /* field index of each known column, -1 if absent */
	int exp10[C_COUNT];
	double scale[C_COUNT];
	int field;           /* index of the next field in the record */
	char val[C_COUNT][CSV_FIELD_MAX];
	int have[C_COUNT];
	int at_end;          /* the file ended without a line break after its last row */
};

static void S_trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

static void S_csv_field(void *data, size_t len, void *arg)
{
	struct csvstate *cs = arg;
	char v[CSV_FIELD_MAX];
	int idx = cs->field++;
	size_t k;

	if (cs->failed)
		return;
	if (idx == 0)
		cs->rec_line = cs->line;
	if (len >= CSV_FIELD_MAX)
		len = CSV_FIELD_MAX - 1;
	memcpy(v, data ? data : "", data ? len : 0);
	v[data ? len : 0] = '\0';
	S_trim(v);

	if (!cs->header_done) {
		for (k = 0; k < NCSV_NAMES; k++) {
			enum csv_col c = csv_names[k].col;

			if (strcasecmp(v, csv_names[k].name))
				continue;
			if (cs->col[c] >= 0) {
				cs->failed = errbuf_set(cs->eb, "%s:%d: two %s columns ('%s')",
							cs->name, cs->line, c == C_SIZE ? "size" :
							c == C_TIME ? "time" : csv_names[k].name, v);
				return;
			}
			cs->col[c] = idx;
			cs->exp10[c] = csv_names[k].exp10;
			cs->scale[c] = csv_names[k].scale;
		}
		return;
	}
	for (k = 0; k < C_COUNT; k++)
		if (cs->col[k] == idx) {
			memcpy(cs->val[k], v, sizeof(v));
			cs->have[k] = 1;
		}
}

static int S_csv_num(struct csvstate *cs, enum csv_col c, const char *what, double *x)
{
	const char *v = cs->val[c];

	double raw;

	/* "18.41" in time_us reads as 18.41e-6: the double nearest the value. */
	if (units_decimal(v, cs->exp10[c], x) < 0)
		return errbuf_set(cs->eb, "%s:%d: %s '%s' is not a number", cs->name,
				  cs->rec_line, what, v);
	/* 1e309 us would be 1e303 s, but no program printed a number past the doubles */
	if (units_decimal(v, 0, &raw) < 0 || !isfinite(*x * cs->scale[c]))
		return errbuf_set(cs->eb, "%s:%d: %s '%s' is out of range (past the largest "
				  "double)", cs->name, cs->rec_line, what, v);
	*x *= cs->scale[c];
	return 0;
}

/* A row's ranks, op and algo, where the file has them and they are not empty. */
static int S_csv_optional(struct csvstate *cs, struct meas_row *r)
{
	if (cs->col[C_RANKS] >= 0 && cs->val[C_RANKS][0]) {
		double n;

		if (S_csv_num(cs, C_RANKS, "ranks", &n) < 0)
			return -1;
		if (n < 1 || n > (double)RANKS_MAX || n != floor(n))
			return errbuf_set(cs->eb, "%s:%d: ranks '%s' is not a rank count",
					  cs->name, cs->rec_line, cs->val[C_RANKS]);
		r->ranks = (unsigned long)n;
	}
	if (cs->col[C_OP] >= 0 && cs->val[C_OP][0]) {
		struct errbuf e2;
		enum coll_op op;

		if (coll_op_lookup(cs->val[C_OP], &op, &e2) < 0)
			return errbuf_set(cs->eb, "%s:%d: %s", cs->name, cs->rec_line, e2.msg);
		r->op = (int)op;
	}
	if (cs->col[C_ALGO] >= 0 && cs->val[C_ALGO][0]) {
		struct errbuf e2;
		enum coll_algo a;

		if (coll_algo_lookup(cs->val[C_ALGO], &a, &e2) < 0)
			return errbuf_set(cs->eb, "%s:%d: %s", cs->name, cs->rec_line, e2.msg);
		r->algo = (int)a;
	}
	return 0;
}

static int S_csv_record(struct csvstate *cs)
{
	struct meas_row r;
	int k;

	for (k = 0; k < C_COUNT; k++)
		if (cs->col[k] >= 0 && !cs->have[k])
			return errbuf_set(cs->eb, "%s:%d: row has %d fields, the header %d",
					  cs->name, cs->rec_line, cs->field, cs->ncols);
	if (cs->field != cs->ncols)
		return errbuf_set(cs->eb, "%s:%d: row has %d fields, the header %d%s",
				  cs->name, cs->rec_line, cs->field, cs->ncols,
				  cs->field < cs->ncols ? " (truncated?)" : "");
	if (cs->at_end)
		return errbuf_set(cs->eb, "%s:%d: the file ends inside this row (no line break "
				  "after it): cut short?", cs->name, cs->rec_line);
	if (cs->col[C_NCCL] >= 0 && cs->val[C_NCCL][0] && !cs->m->nccl_version[0])
		snprintf(cs->m->nccl_version, sizeof(cs->m->nccl_version), "%.15s",
			 cs->val[C_NCCL]);
	if (cs->col[C_CHECK] >= 0 && strcmp(cs->val[C_CHECK], "busbw"))
		return 0;
	memset(&r, 0, sizeof(r));
	r.line = cs->rec_line;
	r.algbw = r.busbw = r.time_ip = r.busbw_ip = NAN;
	r.op = -1;
	r.algo = -1;
	if (S_csv_num(cs, C_SIZE, "size", &r.size) < 0 ||
	    S_csv_num(cs, C_TIME, "time", &r.time) < 0)
		return -1;
	if (r.size < 0)
		return errbuf_set(cs->eb, "%s:%d: size '%s' is negative", cs->name,
				  cs->rec_line, cs->val[C_SIZE]);
	/* as the logs' 18 digits: no buffer measured comes near an exabyte */
	if (r.size >= 1e18)
		return errbuf_set(cs->eb, "%s:%d: size '%s' does not fit: 1e18 bytes or more",
				  cs->name, cs->rec_line, cs->val[C_SIZE]);
	if (!(r.time > 0))
		return errbuf_set(cs->eb, "%s:%d: time '%s' is not positive", cs->name,
				  cs->rec_line, cs->val[C_TIME]);
	if (S_csv_optional(cs, &r) < 0)
		return -1;
	meas_push(cs->m, &r);
	return 0;
}

static void S_csv_row(int term, void *arg)
{
	struct csvstate *cs = arg;
	int k;

	if (!cs->failed) {
		if (!cs->header_done) {
			cs->ncols = cs->field;
			cs->header_done = 1;
			if (cs->col[C_SIZE] < 0 || cs->col[C_TIME] < 0)
				cs->failed = errbuf_set(cs->eb, "%s:%d: the header needs a size "
							"column (size_B, size, ...) and a time "
							"column (time_s, time_us, ...)",
							cs->name, cs->rec_line);
		} else if (S_csv_record(cs) < 0)
			cs->failed = -1;
	}
	cs->field = 0;
	for (k = 0; k < C_COUNT; k++)
		cs->have[k] = 0;
}

int meas_parse_csv(const char *buf, size_t len, const char *name,
		   struct meas *m, struct errbuf *eb)
{
	struct csv_parser p;
	struct csvstate *cs = xmalloc(sizeof(*cs));
	size_t pos = 0;
	int k, rc = 0;

	memset(cs, 0, sizeof(*cs));
	cs->name = name;
	cs->m = m;
	cs->eb = eb;
	for (k = 0; k < C_COUNT; k++) {
		cs->col[k] = -1;
		cs->scale[k] = 1;
	}
	m->from_log = 0;
	m->format = MEAS_CSV;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
		free(cs);
		return errbuf_set(eb, "%s: out of memory", name);
	}
	/* Fed one line at a time, so that messages can name the line. */
	while (pos < len && !cs->failed) {
		const char *nl = memchr(buf + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - buf) + 1 : len;

		cs->line++;
		/* '#' lines before the header: what made the file, not data. */
		if (!cs->header_done && cs->field == 0 && buf[pos] == '#') {
			pos = end;
			continue;
		}
		if (memchr(buf + pos, '\0', end - pos)) {
			cs->failed = errbuf_set(eb, "%s:%d: binary data (a NUL byte); "
						"expected CSV", name, cs->line);
			break;
		}
		if (csv_parse(&p, buf + pos, end - pos, S_csv_field, S_csv_row, cs) != end - pos
		    && !cs->failed)
			cs->failed = errbuf_set(eb, "%s:%d: malformed CSV: %s", name, cs->line,
						csv_strerror(csv_error(&p)));
		pos = end;
	}
	cs->at_end = len > 0 && buf[len - 1] != '\n';
	if (!cs->failed && csv_fini(&p, S_csv_field, S_csv_row, cs) != 0 && !cs->failed)
		cs->failed = errbuf_set(eb, "%s:%d: malformed CSV: %s", name, cs->line,
					csv_strerror(csv_error(&p)));
	if (cs->failed)
		rc = -1;
	else if (!cs->header_done)
		rc = errbuf_set(eb, "%s: empty file; expected a CSV header and rows", name);
	else if (m->n == 0)
		rc = errbuf_set(eb, "%s: no data rows after the header", name);
	csv_free(&p);
	free(cs);
	return rc;
}

/* ---- checks ---- */

int meas_select(struct meas *m, enum coll_op given, unsigned long ranks, struct errbuf *eb)
{
	size_t i, k = 0;
	int op0, op = given == OP_COUNT ? -1 : (int)given;   /* the rows' int, -1: none */
	unsigned long r0;

	for (i = 0; i < m->n; i++) {
		struct meas_row *r = &m->rows[i];

		if (op >= 0 && (m->from_log || r->op < 0))
			r->op = op;
		if (ranks > 0 && (m->from_log || r->ranks == 0))
			r->ranks = ranks;
		if (op >= 0 && r->op != op)
			continue;
		if (ranks > 0 && r->ranks != ranks)
			continue;
		/* MPI suites' per-rank sizes to nccl-tests' whole buffers. */
		if (r->size_per_rank && r->ranks > 0) {
			r->size *= (double)r->ranks;
			r->size_per_rank = 0;
		}
		m->rows[k++] = *r;
	}
	if (k == 0) {
		char what[96] = "";

		if (op >= 0)
			snprintf(what, sizeof(what), "%s", coll_op_name((enum coll_op)op));
		if (ranks > 0)
			snprintf(what + strlen(what), sizeof(what) - strlen(what),
				 "%s%lu ranks", op >= 0 ? " at " : "", ranks);
		return errbuf_set(eb, "%s: no rows for %s", m->path, what);
	}
	m->n = k;
	op0 = m->rows[0].op;
	r0 = m->rows[0].ranks;
	for (i = 1; i < m->n; i++) {
		const struct meas_row *r = &m->rows[i];

		if (r->op != op0)
			return errbuf_set(eb, "%s:%d: rows of several collectives; "
					  "choose one with --op", m->path, r->line);
		if (r->ranks != r0)
			return errbuf_set(eb, "%s:%d: rows of several rank counts; "
					  "choose one with --ranks", m->path, r->line);
		if (r->size == m->rows[i - 1].size)
			return errbuf_set(eb, "%s:%d: size %.17g appears twice (also on line %d)",
					  m->path, r->line, r->size, m->rows[i - 1].line);
		if (r->size < m->rows[i - 1].size)
			return errbuf_set(eb, "%s:%d: size %.17g is smaller than %.17g on line "
					  "%d; sizes must increase", m->path, r->line,
					  r->size, m->rows[i - 1].size, m->rows[i - 1].line);
	}
	m->op = op0;
	m->ranks = r0;
	return 0;
}
