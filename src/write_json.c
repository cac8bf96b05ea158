/*
 * The JSON writer: one object holding "inputs" (an object of the inputs
 * echoed) and one array of row objects per table, keyed by the table's
 * name.  Numbers are raw SI values (null for NaN and infinities); strings
 * are escaped, with broken UTF-8 replaced by U+FFFD, so the output always
 * parses.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "writer.h"

/*
 * The continuation bytes of the UTF-8 sequence at p (lead byte >= 0x80):
 * 1 to 3, or 0 where the sequence is broken.
 */
static size_t utf8_tail(const unsigned char *p)
{
	unsigned c = *p;
	size_t n = 0, i;

	if (c >= 0xc2 && c <= 0xdf)
		n = 1;
	else if (c >= 0xe0 && c <= 0xef)
		n = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 3;
	for (i = 1; n && i <= n; i++)
		if ((p[i] & 0xc0) != 0x80)
			n = 0;
	if (n == 2 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f)))
		n = 0;  /* overlong, or a UTF-16 surrogate */
	if (n == 3 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f)))
		n = 0;  /* overlong, or above U+10FFFF */
	return n;
}

static void json_string(struct out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t plain = 0;

	/* Keys and most values are plain ASCII: copied in one piece. */
	while (p[plain] >= 0x20 && p[plain] < 0x80 && p[plain] != '"' && p[plain] != '\\')
		plain++;
	if (!p[plain]) {
		char *q = out_line_room(o, plain + 2);

		q[0] = '"';
		memcpy(q + 1, s, plain);
		q[plain + 1] = '"';
		o->line_len += plain + 2;
		o->line[o->line_len] = '\0';
		return;
	}
	out_line_char(o, '"');
	while (*p) {
		unsigned c = *p;
		size_t n;

		if (c == '"' || c == '\\') {
			out_line_char(o, '\\');
			out_line_char(o, (char)c);
			p++;
			continue;
		}
		if (c < 0x20) {
			switch (c) {
			case '\b': out_line_str(o, "\\b"); break;
			case '\f': out_line_str(o, "\\f"); break;
			case '\n': out_line_str(o, "\\n"); break;
			case '\r': out_line_str(o, "\\r"); break;
			case '\t': out_line_str(o, "\\t"); break;
			default:
				snprintf(out_line_room(o, 8), 8, "\\u%04x", c);
				o->line_len += 6;
				break;
			}
			p++;
			continue;
		}
		if (c < 0x80) {
			out_line_char(o, (char)c);
			p++;
			continue;
		}
		/* Copy valid UTF-8; replace a broken byte with U+FFFD. */
		n = utf8_tail(p);
		if (!n) {
			out_line_str(o, "\\ufffd");
			p++;
			continue;
		}
		out_line_add(o, (const char *)p, n + 1);
		p += n + 1;
	}
	out_line_char(o, '"');
}

static void json_number(struct out *o, double x, enum col_type type)
{
	if (!isfinite(x))
		out_line_str(o, "null");
	else
		out_line_number(o, x, type);
}

/* Start the next key of the top-level object. */
static void json_key(struct out *o, const char *key)
{
	out_line_str(o, o->json_keys++ ? ",\n  " : "{\n  ");
	json_string(o, key);
	out_line_str(o, ": ");
}

static void json_close_inputs(struct out *o)
{
	if (o->json_inputs) {
		out_line_str(o, "\n  }");
		o->json_inputs = 0;
	}
}

static void json_input_key(struct out *o, const char *key)
{
	/* Inputs come before the tables; a late one is left out. */
	if (!o->json_inputs) {
		json_key(o, "inputs");
		out_line_char(o, '{');
		o->json_inputs = 1;
	}
	out_line_str(o, o->json_ninputs++ ? ",\n    " : "\n    ");
	json_string(o, key);
	out_line_str(o, ": ");
}

static void json_input(struct out *o, const char *key, const char *label, double value,
		       enum col_human human, int prec, const char *note)
{
	if (o->tables)
		return;
	json_input_key(o, key);
	json_number(o, value, COL_NUM);
	out_line_flush(o);
}

static void json_input_str(struct out *o, const char *key, const char *label,
			   const char *value)
{
	if (o->tables)
		return;
	json_input_key(o, key);
	json_string(o, value);
	out_line_flush(o);
}

static void json_begin(struct out *o, const struct table *t)
{
	json_close_inputs(o);
	json_key(o, t->name ? t->name : "table");
	out_line_char(o, '[');
	out_line_flush(o);
}

static void json_row(struct out *o, const struct cell *cells)
{
	const struct table *t = o->t;
	size_t i;
	int first = 1;

	out_line_str(o, o->rows > 1 ? ",\n    {" : "\n    {");
	for (i = 0; i < t->ncols; i++) {
		const struct column *c = &t->cols[i];

		if (!out_shown(o, c))
			continue;
		if (!first)
			out_line_str(o, ", ");
		first = 0;
		json_string(o, c->key);
		out_line_str(o, ": ");
		if (cells[i].s)
			json_string(o, cells[i].s);
		else
			json_number(o, cells[i].x, c->type);
	}
	out_line_char(o, '}');
	out_line_flush(o);
}

static void json_end(struct out *o)
{
	out_line_str(o, o->rows ? "\n  ]" : "]");
	out_line_flush(o);
}

static void json_finish(struct out *o)
{
	json_close_inputs(o);
	out_line_str(o, o->json_keys ? "\n}\n" : "{}\n");
	out_line_flush(o);
}

const struct writer writer_json = {
	.input = json_input,
	.input_str = json_input_str,
	.table_begin = json_begin,
	.row = json_row,
	.table_end = json_end,
	.finish = json_finish,
};
