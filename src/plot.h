#ifndef COMMTIME_PLOT_H
#define COMMTIME_PLOT_H

#include <stddef.h>
#include <stdio.h>
#include "util.h"

/*
 * Figures as gnuplot scripts.  A command fills a struct figure (one or more
 * panels, each with series of points and labels); plot_write() prints a
 * self-contained script: terminal and output, the data inline as
 * datablocks, comments saying what each part draws.  Every string that
 * reaches the script goes through one quoting function, so text from a
 * preset or a file name cannot run anything when gnuplot reads it.
 */

enum plot_style {
	PS_LINES,        /* columns x y */
	PS_POINTS,       /* columns x y */
	PS_LINESPOINTS,  /* columns x y */
	PS_FILL,         /* columns x y1 y2: the band between y1 and y2 */
	PS_BOXES         /* columns x1 x2 y1 y2: one rectangle per row */
};

/* How an axis prints its tic labels. */
enum plot_axis {
	AX_PLAIN,        /* numbers */
	AX_SIZE,         /* bytes with binary prefixes: 4 KiB, 1 GiB */
	AX_TIME,         /* seconds with SI prefixes: 10 µs, 2 ms */
	AX_RATE,         /* bytes/s with SI prefixes: 200 GB/s */
	AX_PERCENT,      /* values already in percent (0-100), shown with % */
	AX_INTEGER       /* whole numbers only, linear (stages, ranks) */
};

struct plot_series {
	char *title;         /* legend text, NULL for none */
	enum plot_style style;
	int ncols;           /* numbers per row: 2, 3 (PS_FILL) or 4 (PS_BOXES) */
	double *data;        /* rows × ncols, row-major */
	size_t n, alloc;
	int color;           /* index into the palette, -1 for the next one */
	int dash;            /* 0 solid, 1.. dash patterns */
	double opacity;      /* PS_FILL and PS_BOXES: 0..1 */
};

struct plot_label {
	double x, y;
	char *text;
	int point;           /* 1: a point at (x, y), the text right of it; 2: left
				of it; 0: the text centred at (x, y), no point */
};

struct plot_vline {
	double x;
	char *text;          /* written near the top, may be NULL */
	char *left, *right;  /* written at the bottom on either side, may be NULL */
};

struct plot_hline {
	double y;
	char *text;          /* written above the line at its right end, may be NULL */
};

struct panel {
	char *title;
	char *xlabel, *ylabel;
	enum plot_axis xaxis, yaxis;
	int logx, logy;
	double xmin, xmax, ymin, ymax;   /* NaN: let gnuplot choose */
	char *key;                       /* gnuplot key position, e.g. "top left" */
	int hline_text_left;             /* 1: horizontal lines labelled at their left end */
	struct plot_series *series;
	size_t nseries;
	struct plot_label *labels;
	size_t nlabels;
	struct plot_vline *vlines;
	size_t nvlines;
	struct plot_hline *hlines;
	size_t nhlines;
};

struct figure {
	char *title;          /* over all panels */
	char *comment;        /* a line for the script's header: how it was made */
	struct panel *panels;
	size_t npanels;
	int width, height;    /* pixels; 0 for the default */
};

/* Add a panel (returned pointer valid until the next plot_add_panel);
 * a series' pointer is valid until the next plot_add_series on its panel. */
struct panel *plot_add_panel(struct figure *f, const char *title,
			     const char *xlabel, const char *ylabel);
struct plot_series *plot_add_series(struct panel *p, const char *title,
				    enum plot_style style);
/* Append one row of s->ncols numbers. */
void plot_point(struct plot_series *s, const double *row);
void plot_xy(struct plot_series *s, double x, double y);
void plot_add_label(struct panel *p, double x, double y, const char *text, int point);
void plot_add_vline(struct panel *p, double x, const char *text,
		    const char *left, const char *right);
/* A dashed horizontal line across the panel at y, labelled at its right end. */
void plot_add_hline(struct panel *p, double y, const char *text);
void plot_release(struct figure *f);

/*
 * A panel of bus bandwidth against message size: x the size in bytes on
 * a log axis from lo to hi (binary units), y a rate on a linear axis from
 * 0, where the plateau of large messages reads against the line rate.
 */
struct panel *plot_add_busbw_panel(struct figure *f, const char *title, const char *xlabel,
				   const char *ylabel, double lo, double hi);

/*
 * A panel of the time of one collective against message size, both on
 * log axes: x the size in bytes from lo to hi (binary units), y a time.
 */
struct panel *plot_add_time_panel(struct figure *f, const char *title, const char *xlabel,
				  const char *ylabel, double lo, double hi);

/* The j-th of n + 1 points spaced evenly on a log axis from lo to hi (> 0): lo·(hi/lo)^(j/n). */
double plot_log_point(double lo, double hi, size_t j, size_t n);

/*
 * Append to s the curve y = fn(x, arg) at the n + 1 points
 * plot_log_point(lo, hi, 0..n): a smooth model drawn over a log axis.
 */
typedef double (*plot_fn)(double x, const void *arg);
void plot_log_curve(struct plot_series *s, double lo, double hi, size_t n, plot_fn fn,
		    const void *arg);

/*
 * Rank counts to draw a model at: every whole number from lo to hi when
 * there are at most max of them, otherwise about max whole numbers spaced
 * evenly on a log scale, lo and hi included (ceil(log2 n) and other steps
 * of the models stay where they are).  out holds max values, max >= 2;
 * lo >= 1.  Returns how many were written, in increasing order.
 */
size_t plot_rank_grid(double lo, double hi, size_t max, double *out);

/*
 * Write the script for terminal `term` ("svg", "png" or "pdf") and output
 * file `output`, a name from plot_output_name(); NULL leaves out "set
 * output", so gnuplot draws to its standard output.  Returns 0, or -1
 * with eb filled when writing fails.
 */
int plot_write(const struct figure *f, FILE *out, const char *term,
	       const char *output, struct errbuf *eb);

/*
 * The terminal for an output file name: "svg", "png" or "pdf" from its
 * extension; NULL when the extension is none of them.
 */
const char *plot_terminal_for(const char *path);

/*
 * The name a gnuplot script may give `set output` for the user's path:
 * a name gnuplot cannot read as anything but a file.  gnuplot pipes the
 * image into a command for a name starting with '|' and expands a
 * leading '~'; a relative path therefore gets "./" in front (the same
 * file), an absolute one stays.  No substitution happens inside the
 * single quotes the name is written in (no backquotes, no @macros).  A
 * control character cannot be written there (a newline ends the
 * command), so a path holding one is refused: NULL with eb filled.
 * Returns a new string for the caller to free.
 */
char *plot_output_name(const char *path, struct errbuf *eb);

/*
 * 1 when an image of format term ("png", "svg", "pdf") that starts with
 * the nhead bytes at head and ends with the ntail bytes at tail is
 * complete: a PNG's signature and its IEND chunk, an SVG's XML start and
 * closing </svg> tag, a PDF's %PDF- header and %%EOF marker (trailing
 * blanks allowed after the last two).  gnuplot exits 0 after a failed
 * write, so a full disk shows only here.
 */
int plot_image_complete(const char *term, const unsigned char *head, size_t nhead,
			const unsigned char *tail, size_t ntail);

/*
 * A string as a gnuplot single-quoted literal into buf: quotes doubled,
 * control characters replaced by blanks, truncated to fit.  Returns buf.
 */
char *plot_quote(char *buf, size_t len, const char *s);

#endif
