/*
 * The human table writer: inputs as "label: value (note)" lines, a title
 * line, a header of labels and one line per row, numbers formatted by
 * each column's "human" rule.
 *
 * Rows are not buffered, so the table cannot measure its cells first:
 * column widths come from the column specs (width and label), and a
 * wider cell just pushes the rest of its row to the right.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "units.h"
#include "writer.h"

/* How a number looks in the human table. */
static void fmt_human(char *buf, size_t len, double x, enum col_type type,
		      enum col_human human, double scale, const char *suffix, int prec)
{
	if (isnan(x)) {
		buf[0] = '\0';
		return;
	}
	switch (human) {
	case H_FIXED:
		if (!(scale > 0))
			scale = 1;
		/* Digits beyond 1e15 are noise, and 1e300 would not fit the cell. */
		if (fabs(x / scale) >= 1e15)
			snprintf(buf, len, "%.3e%s%s", x / scale, suffix && *suffix ? " " : "",
				 suffix && *suffix ? suffix : "");
		else if (suffix && *suffix)
			snprintf(buf, len, "%.*f %s", prec < 0 ? 0 : prec, x / scale, suffix);
		else
			snprintf(buf, len, "%.*f", prec < 0 ? 0 : prec, x / scale);
		break;
	case H_TIME:
		units_fmt_time(buf, len, x, prec);
		return;
	case H_SIZE:
		units_fmt_size(buf, len, x);
		return;
	case H_RATE:
		units_fmt_rate(buf, len, x, prec);
		return;
	case H_PERCENT:
		if (fabs(100 * x) >= 1e15)
			snprintf(buf, len, "%.3e %%", 100 * x);
		else
			snprintf(buf, len, "%.*f %%", prec < 0 ? 0 : prec, 100 * x);
		break;
	case H_PLAIN:
	default:
		if (isfinite(x) && x == floor(x) && (type == COL_INT || fabs(x) < 1e15)) {
			fmt_int(buf, x);
			return;
		}
		snprintf(buf, len, "%.*g", prec > 0 ? prec : 6, x);
		break;
	}
	fmt_fix_point(buf);
}

/* Display width: UTF-8 code points (µ counts one), not bytes. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void line_pad(struct out *o, size_t n)
{
	static const char blanks[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof(blanks) - 1 ? n : sizeof(blanks) - 1;

		out_line_add(o, blanks, k);
		n -= k;
	}
}

/* Write the line built so far without trailing blanks, and start anew. */
static void line_emit(struct out *o)
{
	while (o->line_len && o->line[o->line_len - 1] == ' ')
		o->line_len--;
	errno = 0;
	fwrite(o->line ? o->line : "", 1, o->line_len, o->f);
	if (fputc('\n', o->f) == EOF || ferror(o->f))
		out_write_failed(o);
	o->last_blank = o->line_len == 0;
	o->lines++;
	o->line_len = 0;
}

/*
 * Text from outside (a file name, a log field, a preset's description)
 * reaches the terminal here: escape sequences and bells in it are written
 * as "\x1b", "\x07" (text_visible), so nothing in a table acts.
 * Returns s itself when it needs nothing, else a string to free.
 */
static char *visible(const char *s)
{
	return s[text_visible_len(s, 0)] ? text_visible(s, 0) : (char *)s;
}

static void line_visible(struct out *o, const char *s)
{
	char *v = visible(s);

	out_line_str(o, v);
	if (v != s)
		free(v);
}

static void line_cell(struct out *o, const char *s, size_t width, int left, int first)
{
	char *v = visible(s);
	size_t w = text_width(v);

	if (!first)
		out_line_add(o, "  ", 2);
	if (!left && w < width)
		line_pad(o, width - w);
	out_line_str(o, v);
	if (left && w < width)
		line_pad(o, width - w);
	if (v != s)
		free(v);
}

static void table_input(struct out *o, const char *key, const char *label, double value,
			enum col_human human, int prec, const char *note)
{
	char buf[128];

	fmt_human(buf, sizeof(buf), value, COL_NUM, human, 1, NULL, prec);
	line_visible(o, label);
	out_line_add(o, ": ", 2);
	out_line_str(o, buf);
	if (note) {
		out_line_add(o, " (", 2);
		line_visible(o, note);
		out_line_add(o, ")", 1);
	}
	line_emit(o);
}

static void table_input_str(struct out *o, const char *key, const char *label,
			    const char *value)
{
	line_visible(o, label);
	out_line_add(o, ": ", 2);
	line_visible(o, value);
	line_emit(o);
}

static void table_text(struct out *o, const char *s, size_t n)
{
	line_visible(o, s);
	line_emit(o);
}

static void table_begin(struct out *o, const struct table *t)
{
	size_t i;
	int first = 1;

	free(o->width);
	o->width = xmalloc((t->ncols ? t->ncols : 1) * sizeof(*o->width));
	if (o->lines && !o->last_blank)
		line_emit(o);
	if (t->title) {
		line_visible(o, t->title);
		line_emit(o);
	}
	for (i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];
		size_t lw = text_width(c->label ? c->label : c->key);

		o->width[i] = c->width > 0 && (size_t)c->width > lw ? (size_t)c->width : lw;
		if (!out_shown(o, c))
			continue;
		line_cell(o, c->label ? c->label : c->key, o->width[i],
			  c->type == COL_STR, first);
		first = 0;
	}
	line_emit(o);
}

static void table_row(struct out *o, const struct cell *cells)
{
	const struct table *t = o->t;
	char buf[128];
	size_t i;
	int first = 1;

	for (i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];
		const char *s = cells[i].s;

		if (!out_shown(o, c))
			continue;
		if (!s) {
			fmt_human(buf, sizeof(buf), cells[i].x, c->type, c->human,
				  c->scale, c->suffix, c->prec);
			s = buf;
		}
		line_cell(o, s, o->width[i], c->type == COL_STR, first);
		first = 0;
	}
	line_emit(o);
}

const struct writer writer_table = {
	.input = table_input,
	.input_str = table_input_str,
	.text = table_text,
	.table_begin = table_begin,
	.row = table_row,
};
