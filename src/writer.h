#ifndef COMMTIME_WRITER_H
#define COMMTIME_WRITER_H

#include <stddef.h>
#include <stdio.h>
#include "outfile.h"
#include "table.h"

/*
 * Inside the output interface of table.h: what table.c shares with the
 * writers of the formats (write_table.c, write_csv.c, write_json.c).
 * table.c keeps the state every format needs and calls the writer of the
 * chosen format through struct writer; a writer builds its text in the
 * line buffer of struct out and hands it on with out_line_flush() (CSV and
 * JSON, in blocks) or writes its own lines (the human table).
 */

struct out {
	enum out_format fmt;
	const struct writer *w;
	struct outfile *file;
	FILE *f;               /* outfile_stream(file) */

	/* the line buffer */
	char *line;            /* text being built */
	size_t line_len, line_alloc;
	int batch;             /* CSV and JSON: write rows in blocks, not one by one */
	int failed;            /* a write failed: format nothing more */
	int err;               /* errno of that failure */

	/* all formats */
	const struct table *t; /* the table being written, or NULL */
	int tables;            /* tables begun */
	size_t rows;           /* rows of the current table */

	/* the human table */
	int lines;             /* lines written so far */
	int last_blank;        /* the last line written was empty */
	size_t *width;         /* display width of each column of the table */

	/* CSV */
	int csv_this;          /* the current table is the CSV table */
	int csv_done;          /* the CSV table has been chosen */

	/* JSON */
	int json_keys;         /* keys written in the JSON object */
	int json_inputs;       /* the "inputs" object is open */
	size_t json_ninputs;
};

/*
 * One format.  table.c has already done the bookkeeping of struct out
 * (o->t, o->rows, o->tables) when it calls these; NULL entries do nothing.
 */
struct writer {
	void (*input)(struct out *o, const char *key, const char *label, double value,
		      enum col_human human, int prec, const char *note);
	void (*input_str)(struct out *o, const char *key, const char *label,
			  const char *value);
	void (*text)(struct out *o, const char *s, size_t n);
	void (*table_begin)(struct out *o, const struct table *t);
	void (*row)(struct out *o, const struct cell *cells);
	void (*table_end)(struct out *o);
	void (*finish)(struct out *o);
};

extern const struct writer writer_table, writer_csv, writer_json;

/* Append n bytes of s, a string, a character to the line. */
void out_line_add(struct out *o, const char *s, size_t n);
void out_line_str(struct out *o, const char *s);
void out_line_char(struct out *o, char c);

/* Room for n more bytes at the end of the line; the caller adds to line_len. */
char *out_line_room(struct out *o, size_t n);

/* Write out the line buffer now. */
void out_line_write(struct out *o);

/* Write out the line buffer when it holds a block (to a terminal: always). */
void out_line_flush(struct out *o);

/* Remember the first write error (errno) for out_close(). */
void out_write_failed(struct out *o);

/* A number of a CSV or JSON cell straight into the line. */
void out_line_number(struct out *o, double x, enum col_type type);

/* 1 when the current format shows column c. */
int out_shown(const struct out *o, const struct column *c);

#endif
