#ifndef COMMTIME_TABLE_H
#define COMMTIME_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include "util.h"

/*
 * One table structure, one writer per format.  A command describes its
 * columns once (struct column), opens an output (struct out) in the chosen
 * format, and streams rows into it; the writers of the human table, CSV
 * and JSON (write_table.c, write_csv.c, write_json.c) each render the same
 * rows.  Rows are never buffered, so sweeps of millions of rows run
 * in constant memory.
 *
 * CSV and JSON print raw SI base units (the unit is in the column key,
 * e.g. "time_s"); the human table formats each number with the column's
 * "human" rule late, at print time.
 */

enum out_format { FMT_TABLE, FMT_CSV, FMT_JSON };

/* "table", "csv" or "json"; returns 0 or -1 with eb filled. */
int out_format_parse(const char *s, enum out_format *fmt, struct errbuf *eb);

enum col_type {
	COL_STR,   /* text; JSON string, CSV quoted when needed */
	COL_INT,   /* integral number; printed without exponent */
	COL_NUM    /* real number; shortest digits that read back exactly */
};

/* How the human table shows a number. */
enum col_human {
	H_PLAIN,   /* %.*g with prec significant digits (integers as integers) */
	H_FIXED,   /* value/scale with prec decimals, then " suffix" */
	H_TIME,    /* seconds, unit chosen per value (ns, µs, ms, s), prec significant */
	H_SIZE,    /* bytes, "4 KiB" or "25 MB" */
	H_RATE,    /* bytes/s as GB/s etc., prec significant */
	H_PERCENT  /* fraction shown as percent with prec decimals: 0.305 -> "30.5 %" */
};

/* Which outputs carry the column. */
#define COL_ALL        0u
#define COL_TABLE_ONLY 1u   /* human table only (e.g. a formatted pivot column) */
#define COL_DATA_ONLY  2u   /* CSV and JSON only */

struct column {
	const char *key;        /* CSV header and JSON key, with unit: "time_s" */
	const char *label;      /* human header: "ring" (units go in the cells) */
	enum col_type type;
	enum col_human human;
	double scale;           /* H_FIXED: printed value is x/scale */
	const char *suffix;     /* H_FIXED: unit after the number, e.g. "µs" */
	int prec;               /* decimals (H_FIXED, H_PERCENT) or significant digits */
	int width;              /* minimum width in the human table; 0: the label's */
	unsigned flags;         /* COL_ALL, COL_TABLE_ONLY, COL_DATA_ONLY */
};

/*
 * One cell: text when s is non-NULL, otherwise the number x.  A NaN number
 * is an empty cell: blank in the table and CSV, null in JSON.
 */
struct cell {
	const char *s;
	double x;
};

struct table {
	const char *name;       /* JSON key of the row array: "allreduce" */
	const char *title;      /* line above the human table; may be NULL */
	const struct column *cols;
	size_t ncols;
	int secondary;          /* 1: not written to CSV (CSV holds one table) */
};

struct out;

/*
 * Open an output.  path NULL or "-" writes to stdout; otherwise the output
 * goes to a temporary file beside path that out_close() renames into
 * place (outfile.h), so a failed run never leaves a half-written file.
 * Returns NULL with eb filled when the file cannot be created:
 * "cannot create 'dir/out.csv': Permission denied".
 */
struct out *out_open(enum out_format fmt, const char *path, struct errbuf *eb);

enum out_format out_get_format(const struct out *o);

/*
 * Echo one input above the tables.  Table: "label: <formatted> (note)";
 * JSON: "inputs": {key: value}; CSV: nothing.  Call before the first table.
 * For out_input_str the value is text.
 */
void out_input(struct out *o, const char *key, const char *label,
	       double value, enum col_human human, int prec, const char *note);
void out_input_str(struct out *o, const char *key, const char *label,
		   const char *value);

/* A line of free text in the human table only (ignored in CSV and JSON). */
void out_text(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Start a table, write one row (cells in column order), end the table. */
void out_table_begin(struct out *o, const struct table *t);
void out_row(struct out *o, const struct cell *cells);

/*
 * 1 once a write has failed (a full disk, a file size limit, a closed
 * pipe): nothing more will be written and out_close() will report the
 * error, so a long sweep may stop producing rows.
 */
int out_failed(const struct out *o);
void out_table_end(struct out *o);

/*
 * Finish: close the JSON object, flush, check for write errors, close the
 * file and rename it into place.  Returns 0, or -1 with eb filled (and the
 * temporary file removed): "cannot write 'out.csv': No space left on
 * device", "cannot write standard output: ...".  stdout is flushed and
 * checked but not closed.  o is freed either way.
 */
int out_close(struct out *o, struct errbuf *eb);

/* Give up: remove the temporary file, free o. */
void out_abort(struct out *o);


#endif
