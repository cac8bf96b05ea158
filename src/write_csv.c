/*
 * The CSV writer: one table per output (the first that is not secondary),
 * a header of column keys with their units, raw SI numbers, fields quoted
 * by libcsv only when they have to be.  Inputs and free text are left
 * out; a NaN is an empty field, which pandas reads as NaN.
 */
#include <math.h>
#include <string.h>

#include <csv.h>

#include "writer.h"

static void csv_field(struct out *o, const char *s)
{
	size_t n = strlen(s), need;

	if (strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[0] == '\t' ||
					     s[n - 1] == ' ' || s[n - 1] == '\t'))) {
		need = csv_write(NULL, 0, s, n);
		o->line_len += csv_write(out_line_room(o, need), need, s, n);
		o->line[o->line_len] = '\0';
	} else {
		out_line_add(o, s, n);
	}
}

static void csv_begin(struct out *o, const struct table *t)
{
	size_t i;
	int first = 1;

	o->csv_this = !t->secondary && !o->csv_done;
	if (!o->csv_this)
		return;
	o->csv_done = 1;
	for (i = 0; i < t->ncols; i++) {
		if (!out_shown(o, &t->cols[i]))
			continue;
		if (!first)
			out_line_char(o, ',');
		csv_field(o, t->cols[i].key);
		first = 0;
	}
	out_line_char(o, '\n');
	out_line_flush(o);
}

static void csv_row(struct out *o, const struct cell *cells)
{
	const struct table *t = o->t;
	size_t i;
	int first = 1;

	if (!o->csv_this)
		return;
	for (i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];

		if (!out_shown(o, c))
			continue;
		if (!first)
			out_line_char(o, ',');
		first = 0;
		if (cells[i].s)
			csv_field(o, cells[i].s);
		else if (!isnan(cells[i].x))
			out_line_number(o, cells[i].x, c->type);
	}
	out_line_char(o, '\n');
	out_line_flush(o);
}

static void csv_end(struct out *o)
{
	o->csv_this = 0;
}

const struct writer writer_csv = {
	.table_begin = csv_begin,
	.row = csv_row,
	.table_end = csv_end,
};
