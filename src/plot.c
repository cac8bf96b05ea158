/*
 * Gnuplot scripts from figures.  See plot.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "table.h"

/* Okabe & Ito's palette: told apart by readers with any colour vision. */
static const char *const palette[] = {
	"#0072B2", "#D55E00", "#009E73", "#CC79A7",
	"#E69F00", "#56B4E9", "#000000", "#F0E442"
};
#define NPALETTE (sizeof(palette) / sizeof(palette[0]))

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

struct panel *plot_add_panel(struct figure *f, const char *title,
			     const char *xlabel, const char *ylabel)
{
	struct panel *p;

	f->panels = xrealloc(f->panels, (f->npanels + 1) * sizeof(*f->panels));
	p = &f->panels[f->npanels++];
	memset(p, 0, sizeof(*p));
	p->title = dup_or_null(title);
	p->xlabel = dup_or_null(xlabel);
	p->ylabel = dup_or_null(ylabel);
	p->xmin = p->xmax = p->ymin = p->ymax = NAN;
	return p;
}

struct plot_series *plot_add_series(struct panel *p, const char *title,
				    enum plot_style style)
{
	struct plot_series *s;

	p->series = xrealloc(p->series, (p->nseries + 1) * sizeof(*p->series));
	s = &p->series[p->nseries++];
	memset(s, 0, sizeof(*s));
	s->title = dup_or_null(title);
	s->style = style;
	s->ncols = style == PS_FILL ? 3 : style == PS_BOXES ? 4 : 2;
	s->color = -1;
	s->opacity = style == PS_FILL ? 0.18 : 0.85;
	return s;
}

void plot_point(struct plot_series *s, const double *row)
{
	size_t k = (size_t)s->ncols;

	if (s->n == s->alloc) {
		s->alloc = s->alloc ? 2 * s->alloc : 64;
		s->data = xrealloc(s->data, s->alloc * k * sizeof(double));
	}
	memcpy(s->data + s->n * k, row, k * sizeof(double));
	s->n++;
}

void plot_xy(struct plot_series *s, double x, double y)
{
	double row[2] = { x, y };

	plot_point(s, row);
}

void plot_add_label(struct panel *p, double x, double y, const char *text, int point)
{
	p->labels = xrealloc(p->labels, (p->nlabels + 1) * sizeof(*p->labels));
	p->labels[p->nlabels++] = (struct plot_label){ x, y, xstrdup(text), point };
}

void plot_add_vline(struct panel *p, double x, const char *text,
		    const char *left, const char *right)
{
	p->vlines = xrealloc(p->vlines, (p->nvlines + 1) * sizeof(*p->vlines));
	p->vlines[p->nvlines++] = (struct plot_vline){ x, dup_or_null(text),
		dup_or_null(left), dup_or_null(right) };
}

void plot_release(struct figure *f)
{
	size_t i, j;

	for (i = 0; i < f->npanels; i++) {
		struct panel *p = &f->panels[i];

		for (j = 0; j < p->nseries; j++) {
			free(p->series[j].title);
			free(p->series[j].data);
		}
		for (j = 0; j < p->nlabels; j++)
			free(p->labels[j].text);
		for (j = 0; j < p->nvlines; j++) {
			free(p->vlines[j].text);
			free(p->vlines[j].left);
			free(p->vlines[j].right);
		}
		free(p->series);
		free(p->labels);
		free(p->vlines);
		free(p->title);
		free(p->xlabel);
		free(p->ylabel);
		free(p->key);
	}
	free(f->panels);
	free(f->title);
	free(f->comment);
	memset(f, 0, sizeof(*f));
}

/*
 * Gnuplot does no substitution inside single quotes (no backquotes, no
 * @macros) and knows one escape there: '' for a quote.  A newline would end
 * the command, so control characters become blanks.  That is all it takes
 * for text from outside to stay text.
 */
char *plot_quote(char *buf, size_t len, const char *s)
{
	size_t o = 0;

	if (len < 3) {
		if (len)
			buf[0] = '\0';
		return buf;
	}
	buf[o++] = '\'';
	for (; s && *s && o + 3 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'') {
			buf[o++] = '\'';
			buf[o++] = '\'';
		} else {
			buf[o++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
		}
	}
	buf[o++] = '\'';
	buf[o] = '\0';
	return buf;
}

const char *plot_terminal_for(const char *path)
{
	const char *dot = strrchr(path, '.');

	if (!dot)
		return NULL;
	if (!strcmp(dot, ".svg"))
		return "svg";
	if (!strcmp(dot, ".png"))
		return "png";
	if (!strcmp(dot, ".pdf"))
		return "pdf";
	return NULL;
}

/* Text in a comment line: a newline would end the comment, so none pass. */
static void put_comment(FILE *out, const char *text)
{
	for (; text && *text; text++)
		fputc((unsigned char)*text < 0x20 || *text == 0x7f ? ' ' : *text, out);
	fputc('\n', out);
}

static const char *axis_format(enum plot_axis a)
{
	switch (a) {
	case AX_SIZE:
		return "%.0b %BB";
	case AX_TIME:
		return "%.0s %cs";
	case AX_RATE:
		return "%.0s %cB/s";
	case AX_PERCENT:
		return "%.0f %%";
	default:
		return "%g";
	}
}

static void write_range(FILE *out, const char *axis, double lo, double hi)
{
	char a[32] = "*", b[32] = "*";

	if (isnan(lo) && isnan(hi))
		return;
	if (!isnan(lo))
		fmt_double(a, lo);
	if (!isnan(hi))
		fmt_double(b, hi);
	fprintf(out, "set %srange [%s:%s]\n", axis, a, b);
}

/*
 * A tic label without trailing zeros: "4 KiB", "100 µs", "200 GB/s".
 * Sizes use binary prefixes (tics fall on powers of two), times and rates
 * decimal ones.
 */
static void tic_label(char *buf, size_t len, enum plot_axis kind, double v)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	static const char *const sec[] = { "ps", "ns", "\xc2\xb5s", "ms", "s" };
	static const char *const rate[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s" };
	int k = 0;

	switch (kind) {
	case AX_SIZE:
		while (v >= 1024 && k < 6) {
			v /= 1024;
			k++;
		}
		snprintf(buf, len, "%g %s", v, bin[k]);
		break;
	case AX_TIME:
		v *= 1e12;
		while (v >= 1000 * (1 - 1e-9) && k < 4) {
			v /= 1000;
			k++;
		}
		snprintf(buf, len, "%g %s", v, sec[k]);
		break;
	case AX_RATE:
		while (v >= 1000 * (1 - 1e-9) && k < 5) {
			v /= 1000;
			k++;
		}
		snprintf(buf, len, "%g %s", v, rate[k]);
		break;
	default:
		snprintf(buf, len, "%g", v);
		break;
	}
}

/*
 * Log axes get explicit tics with readable labels: powers of two for sizes
 * (about eight over the range), powers of ten otherwise.  Linear axes use
 * gnuplot's own tics with a format.
 */
static void write_axis(FILE *out, const char *axis, enum plot_axis kind, int logscale,
		       double lo, double hi)
{
	char q[64], label[48], num[32];
	double base = kind == AX_SIZE || kind == AX_PLAIN ? 2 : 10, t, step;
	int first = 1, n = 0;

	if (!logscale || !(lo > 0) || !(hi >= lo) || !isfinite(hi)) {
		if (logscale)
			fprintf(out, "set logscale %s %g\n", axis, base);
		fprintf(out, "set format %s %s\n", axis, plot_quote(q, sizeof(q), axis_format(kind)));
		return;
	}
	fprintf(out, "set logscale %s %g\n", axis, base);
	step = ceil(log(hi / lo) / log(base) / 8);
	if (step < 1)
		step = 1;
	step = pow(base, step);
	fprintf(out, "set %stics (", axis);
	/* One tic beyond each end: gnuplot draws only those in range. */
	for (t = pow(base, floor(log(lo) / log(base) + 1e-9)); t <= hi * step && n < 64;
	     t *= step, n++) {
		tic_label(label, sizeof(label), kind, t);
		fmt_double(num, t);
		fprintf(out, "%s%s %s", first ? "" : ", ", plot_quote(q, sizeof(q), label), num);
		first = 0;
	}
	fputs(")\n", out);
	fprintf(out, "set m%stics default\n", axis);
}

/* The data range of one axis over all series, for tic steps. */
static void data_range(const struct panel *p, int col, double *lo, double *hi)
{
	size_t i, j;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < p->nseries; i++)
		for (j = 0; j < p->series[i].n; j++) {
			double v = p->series[i].data[j * (size_t)p->series[i].ncols + (size_t)col];

			if (v > 0 && v < *lo)
				*lo = v;
			if (v > *hi)
				*hi = v;
		}
	if (!(*lo <= *hi))
		*lo = *hi = NAN;
}

static const char *const dashes[] = { "1", "2", "3", "4", "5" };

static void write_panel(FILE *out, const struct panel *p, size_t pi)
{
	char q[1024], num1[32], num2[32];
	double lo, hi;
	size_t i;
	int next_color = 0;

	fprintf(out, "\n# ---- panel %zu: ", pi + 1);
	put_comment(out, p->title);
	fputs("unset label\nunset arrow\nunset logscale\nset autoscale\n", out);
	fprintf(out, "set title %s\n", plot_quote(q, sizeof(q), p->title));
	fprintf(out, "set xlabel %s\n", plot_quote(q, sizeof(q), p->xlabel));
	fprintf(out, "set ylabel %s\n", plot_quote(q, sizeof(q), p->ylabel));
	data_range(p, 0, &lo, &hi);
	write_axis(out, "x", p->xaxis, p->logx, isnan(p->xmin) ? lo : p->xmin,
		   isnan(p->xmax) ? hi : p->xmax);
	data_range(p, 1, &lo, &hi);
	write_axis(out, "y", p->yaxis, p->logy, lo, hi);
	write_range(out, "x", p->xmin, p->xmax);
	write_range(out, "y", p->ymin, p->ymax);
	fputs("set grid xtics ytics mxtics mytics lc rgb '#dddddd' lw 1, lc rgb '#f0f0f0' lw 1\n", out);
	fprintf(out, "set key %s opaque box lc rgb '#cccccc'\n", p->key ? p->key : "top left");

	if (p->nvlines)
		fputs("# vertical markers\n", out);
	for (i = 0; i < p->nvlines; i++) {
		fmt_double(num1, p->vlines[i].x);
		fprintf(out, "set arrow from %s, graph 0 to %s, graph 1 nohead dt 2 lw 1.5 lc rgb '#666666' back\n",
			num1, num1);
		if (p->vlines[i].text)
			fprintf(out, "set label %s at %s, graph 0.96 offset 0.6,0 tc rgb '#444444' front\n",
				plot_quote(q, sizeof(q), p->vlines[i].text), num1);
		if (p->vlines[i].left)
			fprintf(out, "set label %s at %s, graph 0.04 right offset -0.6,0 tc rgb '#444444' front\n",
				plot_quote(q, sizeof(q), p->vlines[i].left), num1);
		if (p->vlines[i].right)
			fprintf(out, "set label %s at %s, graph 0.04 left offset 0.6,0 tc rgb '#444444' front\n",
				plot_quote(q, sizeof(q), p->vlines[i].right), num1);
	}
	if (p->nlabels)
		fputs("# marked points\n", out);
	for (i = 0; i < p->nlabels; i++) {
		fmt_double(num1, p->labels[i].x);
		fmt_double(num2, p->labels[i].y);
		fprintf(out, "set label %s at %s, %s %s front\n",
			plot_quote(q, sizeof(q), p->labels[i].text), num1, num2,
			p->labels[i].point ?
			"point pt 7 ps 1.1 lc rgb '#000000' offset 0.8,-0.8" : "center");
	}

	fputs("plot \\\n", out);
	for (i = 0; i < p->nseries; i++) {
		const struct plot_series *s = &p->series[i];
		int color = s->color >= 0 ? s->color : next_color++;
		const char *rgb = palette[(size_t)color % NPALETTE];
		char title[sizeof(q) + 16];

		if (s->title)
			snprintf(title, sizeof(title), "title %s", plot_quote(q, sizeof(q), s->title));
		else
			snprintf(title, sizeof(title), "notitle");
		fprintf(out, "  $p%zus%zu ", pi + 1, i + 1);
		switch (s->style) {
		case PS_LINES:
			fprintf(out, "using 1:2 with lines lw 2 dt %s lc rgb '%s' %s",
				dashes[s->dash % 5], rgb, title);
			break;
		case PS_POINTS:
			fprintf(out, "using 1:2 with points pt 7 ps 0.9 lc rgb '%s' %s", rgb, title);
			break;
		case PS_LINESPOINTS:
			fprintf(out, "using 1:2 with linespoints lw 2 pt 7 ps 0.7 dt %s lc rgb '%s' %s",
				dashes[s->dash % 5], rgb, title);
			break;
		case PS_FILL:
			fprintf(out, "using 1:2:3 with filledcurves fs transparent solid %.2f noborder "
				"lc rgb '%s' %s", s->opacity, rgb, title);
			break;
		case PS_BOXES:
			fprintf(out, "using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror "
				"fs solid %.2f noborder lc rgb '%s' %s", s->opacity, rgb, title);
			break;
		}
		fputs(i + 1 < p->nseries ? ", \\\n" : "\n", out);
	}
}

int plot_write(const struct figure *f, FILE *out, const char *term,
	       const char *output, struct errbuf *eb)
{
	char q[1024], num[32];
	int w = f->width ? f->width : 800, h = f->height ? f->height : 500;
	size_t i, j, k, c;

	fputs("# ", out);
	put_comment(out, f->title ? f->title : "commtime figure");
	if (f->comment) {
		fputs("# ", out);
		put_comment(out, f->comment);
	}
	fprintf(out, "# A gnuplot script written by commtime; 'gnuplot FILE' draws %s.\n"
		"# The data is inline below; edit titles, colours or sizes freely.\n\n",
		plot_quote(q, sizeof(q), output));
	fputs("set encoding utf8\n", out);
	if (!strcmp(term, "png"))
		fprintf(out, "set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n", w, h);
	else if (!strcmp(term, "pdf"))
		fprintf(out, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'sans,9'\n",
			w / 100.0, h / 100.0);
	else
		fprintf(out, "set terminal svg size %d,%d dynamic noenhanced font 'sans,11' "
			"background '#ffffff'\n", w, h);
	fprintf(out, "set output %s\n", plot_quote(q, sizeof(q), output));
	fputs("set border lw 1 lc rgb '#444444'\nset tics nomirror out\nset border 3\n", out);

	/* Data first, one datablock per series. */
	for (i = 0; i < f->npanels; i++)
		for (j = 0; j < f->panels[i].nseries; j++) {
			const struct plot_series *s = &f->panels[i].series[j];

			fprintf(out, "\n# panel %zu, series %zu: ", i + 1, j + 1);
			put_comment(out, s->title ? s->title : "(no title)");
			fprintf(out, "$p%zus%zu << EOD\n", i + 1, j + 1);
			for (k = 0; k < s->n; k++) {
				for (c = 0; c < (size_t)s->ncols; c++) {
					double v = s->data[k * (size_t)s->ncols + c];

					if (isnan(v))
						strcpy(num, "NaN");
					else
						fmt_double(num, v);
					fprintf(out, c ? " %s" : "%s", num);
				}
				fputc('\n', out);
			}
			fputs("EOD\n", out);
		}

	if (f->npanels > 1)
		fprintf(out, "\nset multiplot layout 1,%zu title %s\n", f->npanels,
			plot_quote(q, sizeof(q), f->title));
	for (i = 0; i < f->npanels; i++)
		write_panel(out, &f->panels[i], i);
	if (f->npanels > 1)
		fputs("unset multiplot\n", out);
	fputs("set output\n", out);
	if (ferror(out))
		return errbuf_set(eb, "cannot write the gnuplot script: %s", strerror(errno));
	return 0;
}
