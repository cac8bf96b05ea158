/*
 * The output interface (table.h): one table structure, one writer per
 * format.  This file keeps what every format shares — the output file
 * (outfile.c), the line buffer that rows are built in, the bookkeeping of
 * tables and rows — and hands each call to the writer of the chosen
 * format: write_table.c (the human table), write_csv.c, write_json.c.
 *
 * Rows are written as they come; nothing is kept beyond a block of about
 * 64 KiB and stdio's buffer, so a sweep of millions of rows runs in
 * constant memory.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "writer.h"

int out_format_parse(const char *s, enum out_format *fmt, struct errbuf *eb)
{
	if (!strcmp(s, "table"))
		*fmt = FMT_TABLE;
	else if (!strcmp(s, "csv"))
		*fmt = FMT_CSV;
	else if (!strcmp(s, "json"))
		*fmt = FMT_JSON;
	else
		return errbuf_set(eb, "unknown format '%s' (want table, csv or json)", s);
	return 0;
}

enum out_format out_get_format(const struct out *o)
{
	return o->fmt;
}

/* ---- opening and closing ---- */

struct out *out_open(enum out_format fmt, const char *path, struct errbuf *eb)
{
	struct outfile *file = outfile_open(path, eb);
	struct out *o;

	if (!file)
		return NULL;
	o = xmalloc(sizeof(*o));
	*o = (struct out){
		.fmt = fmt,
		.w = fmt == FMT_CSV ? &writer_csv : fmt == FMT_JSON ? &writer_json : &writer_table,
		.file = file,
		.f = outfile_stream(file),
	};
	/* A terminal sees each row as it is made; anything else gets blocks. */
	o->batch = !isatty(fileno(o->f));
	return o;
}

static void out_free(struct out *o)
{
	free(o->width);
	free(o->line);
	free(o);
}

int out_close(struct out *o, struct errbuf *eb)
{
	int r;

	if (o->t)
		out_table_end(o);
	if (o->w->finish)
		o->w->finish(o);
	out_line_write(o);
	if (o->failed)
		outfile_fail(o->file, o->err);
	r = outfile_commit(o->file, eb);
	out_free(o);
	return r;
}

void out_abort(struct out *o)
{
	if (!o)
		return;
	outfile_abort(o->file);
	out_free(o);
}

int out_failed(const struct out *o)
{
	return o->failed;
}

/* ---- the line buffer ---- */

char *out_line_room(struct out *o, size_t n)
{
	if (o->line_len + n + 1 > o->line_alloc) {
		o->line_alloc = 2 * (o->line_len + n + 1) + 64;
		o->line = xrealloc(o->line, o->line_alloc);
	}
	return o->line + o->line_len;
}

void out_line_add(struct out *o, const char *s, size_t n)
{
	memcpy(out_line_room(o, n), s, n);
	o->line_len += n;
	o->line[o->line_len] = '\0';
}

void out_line_str(struct out *o, const char *s)
{
	out_line_add(o, s, strlen(s));
}

void out_line_char(struct out *o, char c)
{
	out_line_add(o, &c, 1);
}

void out_write_failed(struct out *o)
{
	if (!o->failed && errno)
		o->err = errno;
	o->failed = 1;
}

void out_line_write(struct out *o)
{
	errno = 0;
	if (o->line_len && (fwrite(o->line, 1, o->line_len, o->f) != o->line_len ||
			    ferror(o->f)))
		out_write_failed(o);
	o->line_len = 0;
}

/*
 * CSV and JSON rows are built in the line buffer and written in blocks of
 * about 64 KiB: stdio's per-call locking and bookkeeping cost more than
 * the formatting of a row, and a block that fills stdio's buffer goes
 * straight to write() without another copy.  To a terminal, every row.
 */
#define BLOCK (1 << 16)
void out_line_flush(struct out *o)
{
	if (!o->batch || o->line_len >= BLOCK)
		out_line_write(o);
}

/* fmt_double and fmt_int write at most 31 bytes. */
void out_line_number(struct out *o, double x, enum col_type type)
{
	char *p = out_line_room(o, 32);

	if (type == COL_INT)
		o->line_len += (size_t)fmt_int(p, x);
	else
		o->line_len += (size_t)fmt_double(p, x);
}

int out_shown(const struct out *o, const struct column *c)
{
	if (o->fmt == FMT_TABLE)
		return !(c->flags & COL_DATA_ONLY);
	return !(c->flags & COL_TABLE_ONLY);
}

/* ---- the interface ---- */

void out_input(struct out *o, const char *key, const char *label,
	       double value, enum col_human human, int prec, const char *note)
{
	if (o->w->input)
		o->w->input(o, key, label, value, human, prec, note);
}

void out_input_str(struct out *o, const char *key, const char *label, const char *value)
{
	if (o->w->input_str)
		o->w->input_str(o, key, label, value);
}

void out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	int n;

	if (!o->w->text)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		o->w->text(o, buf, (size_t)n);
	} else {
		char *big = xmalloc((size_t)n + 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		o->w->text(o, big, (size_t)n);
		free(big);
	}
}

void out_table_begin(struct out *o, const struct table *t)
{
	if (o->t)
		out_table_end(o);
	o->t = t;
	o->rows = 0;
	o->tables++;
	if (o->w->table_begin)
		o->w->table_begin(o, t);
}

void out_row(struct out *o, const struct cell *cells)
{
	/*
	 * After a write error (a full disk, a closed pipe) the rest of a long
	 * sweep is not formatted; out_close() reports the error.
	 */
	if (!o->t || o->failed)
		return;
	o->rows++;
	if (o->w->row)
		o->w->row(o, cells);
}

void out_table_end(struct out *o)
{
	if (!o->t)
		return;
	if (o->w->table_end)
		o->w->table_end(o);
	o->t = NULL;
}
