/*
 * Gnuplot scripts from figures.  See plot.h.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "fmt.h"

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

void plot_add_hline(struct panel *p, double y, const char *text)
{
	p->hlines = xrealloc(p->hlines, (p->nhlines + 1) * sizeof(*p->hlines));
	p->hlines[p->nhlines++] = (struct plot_hline){ y, dup_or_null(text) };
}

struct panel *plot_add_busbw_panel(struct figure *f, const char *title, const char *xlabel,
				   const char *ylabel, double lo, double hi)
{
	struct panel *p = plot_add_panel(f, title, xlabel, ylabel);

	p->xaxis = AX_SIZE;
	p->yaxis = AX_RATE;
	p->logx = 1;
	p->xmin = lo;
	p->xmax = hi;
	p->ymin = 0;
	return p;
}

struct panel *plot_add_time_panel(struct figure *f, const char *title, const char *xlabel,
				  const char *ylabel, double lo, double hi)
{
	struct panel *p = plot_add_panel(f, title, xlabel, ylabel);

	p->xaxis = AX_SIZE;
	p->yaxis = AX_TIME;
	p->logx = p->logy = 1;
	p->xmin = lo;
	p->xmax = hi;
	return p;
}

double plot_log_point(double lo, double hi, size_t j, size_t n)
{
	return lo * pow(hi / lo, (double)j / (double)n);
}

void plot_log_curve(struct plot_series *s, double lo, double hi, size_t n, plot_fn fn,
		    const void *arg)
{
	size_t j;

	for (j = 0; j <= n; j++) {
		double x = plot_log_point(lo, hi, j, n);

		plot_xy(s, x, fn(x, arg));
	}
}

size_t plot_rank_grid(double lo, double hi, size_t max, double *out)
{
	size_t n = 0, i;

	lo = lo < 1 ? 1 : floor(lo);
	hi = hi < lo ? lo : floor(hi);
	if (hi - lo + 1 <= (double)max) {
		double v;

		for (v = lo; v <= hi; v++)
			out[n++] = v;
		return n;
	}
	/* Rounded log steps collide at the low end; keep each whole number once. */
	for (i = 0; i < max; i++) {
		double t = (double)i / (double)(max - 1);
		double v = i + 1 == max ? hi : floor(lo * pow(hi / lo, t) + 0.5);

		if (n == 0 || v > out[n - 1])
			out[n++] = v;
	}
	return n;
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
		for (j = 0; j < p->nhlines; j++)
			free(p->hlines[j].text);
		free(p->series);
		free(p->labels);
		free(p->vlines);
		free(p->hlines);
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

/*
 * Text in a comment line: a newline would end the comment, so none pass;
 * a backslash at the end of a line joins the next line to the comment
 * (gnuplot continues any line so ended, comments included), so one there
 * gets a blank after it.
 */
static void put_comment(FILE *out, const char *text)
{
	int last = 0;

	for (; text && *text; text++) {
		last = (unsigned char)*text < 0x20 || *text == 0x7f ? ' ' : *text;
		fputc(last, out);
	}
	if (last == '\\')
		fputc(' ', out);
	fputc('\n', out);
}

char *plot_output_name(const char *path, struct errbuf *eb)
{
	const unsigned char *c;
	char *r;

	if (!*path) {
		errbuf_set(eb, "an empty file name cannot be an image");
		return NULL;
	}
	for (c = (const unsigned char *)path; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			errbuf_set(eb, "a gnuplot script cannot name the image '%s': it holds "
				   "the control character 0x%02x", path, *c);
			return NULL;
		}
	/*
	 * gnuplot reads a name that starts with '|' as a command to pipe the
	 * image into and expands a leading '~'; "./" in front leaves neither
	 * at the start, and names the same file.
	 */
	if (path[0] == '/')
		return xstrdup(path);
	r = xmalloc(strlen(path) + 3);
	strcpy(r, "./");
	strcat(r, path);
	return r;
}

/* A quoted string of any length, for names that must not be cut. */
static void put_quoted(FILE *out, const char *s)
{
	fputc('\'', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'')
			fputc('\'', out);
		fputc(c < 0x20 || c == 0x7f ? ' ' : c, out);
	}
	fputc('\'', out);
}

int plot_image_complete(const char *term, const unsigned char *head, size_t nhead,
			const unsigned char *tail, size_t ntail)
{
	static const unsigned char png_sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	/* The IEND chunk: length 0, type, CRC. */
	static const unsigned char png_end[12] = {
		0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82
	};

	/* Trailing blanks (a final newline) do not count. */
	while (ntail && (tail[ntail - 1] == '\n' || tail[ntail - 1] == '\r' ||
			 tail[ntail - 1] == ' ' || tail[ntail - 1] == '\t') && strcmp(term, "png"))
		ntail--;
	if (!strcmp(term, "png"))
		return nhead >= 8 && !memcmp(head, png_sig, 8) &&
		       ntail >= 12 && !memcmp(tail + ntail - 12, png_end, 12);
	if (!strcmp(term, "pdf"))
		return nhead >= 5 && !memcmp(head, "%PDF-", 5) &&
		       ntail >= 5 && !memcmp(tail + ntail - 5, "%%EOF", 5);
	if (!strcmp(term, "svg"))
		return nhead >= 5 && (!memcmp(head, "<?xml", 5) || !memcmp(head, "<svg", 4)) &&
		       ntail >= 6 && !memcmp(tail + ntail - 6, "</svg>", 6);
	return 0;
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

/*
 * An axis range.  On a log axis gnuplot compares tics with the ends after
 * taking logarithms, and log(64)/log(2) comes out a hair above 6: a tic on
 * the very end would vanish, so the ends move out by a part in 10⁹.
 */
static void write_range(FILE *out, const char *axis, int logscale, double lo, double hi)
{
	char a[32] = "*", b[32] = "*";
	double eps = logscale ? 1e-9 : 0;

	if (isnan(lo) && isnan(hi))
		return;
	if (!isnan(lo))
		fmt_double(a, lo * (1 - eps));
	if (!isnan(hi))
		fmt_double(b, hi * (1 + eps));
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

	/* A linear axis may start at zero or below: no prefix there. */
	if (v == 0 && kind != AX_PLAIN) {
		snprintf(buf, len, "0");
		return;
	}
	if (v < 0 && len > 1) {
		buf[0] = '-';
		tic_label(buf + 1, len - 1, kind, -v);
		return;
	}
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
		/* whole numbers in full: 1048576, not 1.04858e+06 */
		if (v == floor(v) && fabs(v) < 1e15)
			snprintf(buf, len, "%.0f", v);
		else
			snprintf(buf, len, "%g", v);
		break;
	}
}

/*
 * A tic step for a linear axis: 1, 2 or 5 times a power of ten, about six
 * tics over the span; sizes count in the binary unit the span reaches, so
 * the tics read 256 MiB, 512 MiB rather than 268.4 MB.
 */
static double linear_step(enum plot_axis kind, double span)
{
	double unit = 1, raw, mag, r;

	if (kind == AX_SIZE)
		while (span / unit >= 1024)
			unit *= 1024;
	raw = span / unit / 6;
	mag = pow(10, floor(log10(raw)));
	r = raw / mag;
	return unit * mag * (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10);
}

/* The explicit list of tics: "set xtics ('4 KiB' 4096, ...)". */
static void write_tics(FILE *out, const char *axis, enum plot_axis kind,
		       const double *t, int n)
{
	char q[64], label[48], num[32];
	int i;

	fprintf(out, "set %stics (", axis);
	for (i = 0; i < n; i++) {
		tic_label(label, sizeof(label), kind, t[i]);
		fmt_double(num, t[i]);
		fprintf(out, "%s%s %s", i ? ", " : "", plot_quote(q, sizeof(q), label), num);
	}
	fputs(")\n", out);
	fprintf(out, "set m%stics default\n", axis);
}

/*
 * Axes with units get explicit tics with readable labels ("4 KiB",
 * "100 µs", "1.5 s").  Log axes: powers of two for sizes and plain numbers
 * (about eight over the range), powers of ten otherwise.  Linear axes:
 * steps of 1, 2 or 5.  Plain numbers and percentages on a linear axis use
 * gnuplot's own tics with a format.  A previous panel's tics are undone.
 */
static void write_axis(FILE *out, const char *axis, enum plot_axis kind, int logscale,
		       double lo, double hi)
{
	char q[64];
	double base = kind == AX_SIZE || kind == AX_PLAIN ? 2 : 10, t, step, tics[64];
	int n = 0;

	if (kind == AX_INTEGER && !logscale) {
		/* whole steps: a row per stage reads 0, 1, 2, never 0.5 */
		step = isfinite(lo) && isfinite(hi) && hi != lo ?
		       round(linear_step(AX_PLAIN, fabs(hi - lo))) : 1;
		if (step < 1)
			step = 1;
		fprintf(out, "set %stics %g\nset m%stics 1\nset format %s '%%.0f'\n",
			axis, step, axis, axis);
		return;
	}
	if (logscale && lo > 0 && hi >= lo && isfinite(hi)) {
		fprintf(out, "set logscale %s %g\n", axis, base);
		step = ceil(log(hi / lo) / log(base) / 8);
		if (step < 1)
			step = 1;
		step = pow(base, step);
		/* One tic beyond each end: gnuplot draws only those in range. */
		for (t = pow(base, floor(log(lo) / log(base) + 1e-9)); t <= hi * step && n < 64;
		     t *= step)
			tics[n++] = t;
		write_tics(out, axis, kind, tics, n);
		return;
	}
	if (!logscale && kind != AX_PLAIN && kind != AX_PERCENT && isfinite(lo) &&
	    isfinite(hi) && hi > lo) {
		double k;

		step = linear_step(kind, hi - lo);
		if (kind == AX_INTEGER && step < 1)
			step = 1;
		for (k = ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9 && n < 64; k++)
			tics[n++] = k * step + 0.0;  /* + 0.0: no "-0" */
		write_tics(out, axis, kind, tics, n);
		return;
	}
	if (logscale)
		fprintf(out, "set logscale %s %g\n", axis, base);
	fprintf(out, "set %stics autofreq\nset m%stics default\n", axis, axis);
	fprintf(out, "set format %s %s\n", axis, plot_quote(q, sizeof(q), axis_format(kind)));
}

/*
 * The data range of one axis over all series, for tic steps: the smallest
 * positive value (for a log axis) or the smallest of all (linear).
 */
static void data_range(const struct panel *p, int col, int logscale, double *lo, double *hi)
{
	size_t i, j;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < p->nseries; i++)
		for (j = 0; j < p->series[i].n; j++) {
			double v = p->series[i].data[j * (size_t)p->series[i].ncols + (size_t)col];

			if ((v > 0 || !logscale) && v < *lo)
				*lo = v;
			if (v > *hi)
				*hi = v;
		}
	if (!(*lo <= *hi))
		*lo = *hi = NAN;
}

/*
 * What one axis spans: [*lo, *hi] for its tics (the range asked, else the
 * data's) and [*rlo, *rhi] for "set range" (NaN: gnuplot's choice).  All
 * data at one value makes gnuplot warn about an empty range, so the axis
 * then spans a factor of two (log) or one unit either side of it.
 */
static void axis_limits(const struct panel *p, int col, int logscale, double want_lo,
			double want_hi, double *lo, double *hi, double *rlo, double *rhi)
{
	data_range(p, col, logscale, lo, hi);
	if (!isnan(want_lo))
		*lo = want_lo;
	if (!isnan(want_hi))
		*hi = want_hi;
	*rlo = want_lo;
	*rhi = want_hi;
	if (isfinite(*lo) && *lo == *hi) {
		*rlo = *lo = logscale ? *lo / 2 : *lo - 1;
		*rhi = *hi = logscale ? *hi * 2 : *hi + 1;
	}
}

static const char *const dashes[] = { "1", "2", "3", "4", "5" };

/* The panel's vertical and horizontal markers and its marked points. */
static void write_markers(FILE *out, const struct panel *p)
{
	char q[1024], num1[32], num2[32];
	size_t i;

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
	if (p->nhlines)
		fputs("# horizontal markers\n", out);
	for (i = 0; i < p->nhlines; i++) {
		fmt_double(num1, p->hlines[i].y);
		fprintf(out, "set arrow from graph 0, first %s to graph 1, first %s nohead "
			"dt 3 lw 1.5 lc rgb '#666666' back\n", num1, num1);
		if (p->hlines[i].text)
			fprintf(out, "set label %s at graph %s, first %s %s offset 0,0.7 tc rgb '#444444' front\n",
				plot_quote(q, sizeof(q), p->hlines[i].text),
				p->hline_text_left ? "0.01" : "0.99", num1,
				p->hline_text_left ? "left" : "right");
	}
	if (p->nlabels)
		fputs("# marked points\n", out);
	for (i = 0; i < p->nlabels; i++) {
		fmt_double(num1, p->labels[i].x);
		fmt_double(num2, p->labels[i].y);
		fprintf(out, "set label %s at %s, %s %s front\n",
			plot_quote(q, sizeof(q), p->labels[i].text), num1, num2,
			p->labels[i].point == 2 ?
			"right point pt 7 ps 1.1 lc rgb '#000000' offset -0.8,-0.8" :
			p->labels[i].point ?
			"point pt 7 ps 1.1 lc rgb '#000000' offset 0.8,-0.8" : "center");
	}
}

/* The plot command: one datablock a series, in its style and colour. */
static void write_plot(FILE *out, const struct panel *p, size_t pi)
{
	char q[1024];
	size_t i;
	int next_color = 0, drawn = 0;

	fputs("plot \\\n", out);
	for (i = 0; i < p->nseries; i++) {
		const struct plot_series *s = &p->series[i];
		int color = s->color >= 0 ? s->color : next_color++;
		const char *rgb = palette[(size_t)color % NPALETTE];
		char title[sizeof(q) + 16];

		/* gnuplot warns about an empty datablock: leave it out */
		if (!s->n)
			continue;
		if (drawn++)
			fputs(", \\\n", out);
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
			/* a thin white edge keeps neighbouring boxes apart */
			fprintf(out, "using (($1+$2)/2):(($3+$4)/2):1:2:3:4 with boxxyerror "
				"fs solid %.2f border lc rgb '#ffffff' lw 0.5 lc rgb '%s' %s",
				s->opacity, rgb, title);
			break;
		}
	}
	/* nothing to draw still draws the axes */
	fputs(drawn ? "\n" : "  NaN notitle\n", out);
}

static void write_panel(FILE *out, const struct panel *p, size_t pi)
{
	char q[1024];
	double lo, hi, rlo, rhi;
	size_t i;

	fprintf(out, "\n# ---- panel %zu: ", pi + 1);
	put_comment(out, p->title);
	fputs("unset label\nunset arrow\nunset logscale\nset autoscale\n", out);
	fprintf(out, "set title %s\n", plot_quote(q, sizeof(q), p->title));
	fprintf(out, "set xlabel %s\n", plot_quote(q, sizeof(q), p->xlabel));
	fprintf(out, "set ylabel %s\n", plot_quote(q, sizeof(q), p->ylabel));
	for (i = 0; i < p->nseries && !p->series[i].n; i++)
		;
	if (i == p->nseries) {
		/* Nothing to draw: gnuplot cannot scale empty axes, so say so. */
		fputs("unset xtics\nunset ytics\nset xrange [0:1]\nset yrange [0:1]\n"
		      "unset key\nset label 'nothing to draw' at graph 0.5, graph 0.5 center\n"
		      "plot NaN notitle\n", out);
		return;
	}
	axis_limits(p, 0, p->logx, p->xmin, p->xmax, &lo, &hi, &rlo, &rhi);
	write_axis(out, "x", p->xaxis, p->logx, lo, hi);
	write_range(out, "x", p->logx, rlo, rhi);
	axis_limits(p, 1, p->logy, p->ymin, p->ymax, &lo, &hi, &rlo, &rhi);
	write_axis(out, "y", p->yaxis, p->logy, lo, hi);
	write_range(out, "y", p->logy, rlo, rhi);
	fputs("set grid xtics ytics mxtics mytics lc rgb '#dddddd' lw 1, lc rgb '#f0f0f0' lw 1\n", out);
	for (i = 0; i < p->nseries && !(p->series[i].title && p->series[i].n); i++)
		;
	/* With no titled series gnuplot would still draw an empty box. */
	if (i < p->nseries)
		fprintf(out, "set key %s opaque box lc rgb '#cccccc'\n", p->key ? p->key : "top left");
	else
		fputs("unset key\n", out);
	write_markers(out, p);
	write_plot(out, p, pi);
}

/* The datablocks $p<panel>s<series>, one per series, NaN where a value is missing. */
static void write_data(FILE *out, const struct figure *f)
{
	char num[32];
	size_t i, j, k, c;

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
}

int plot_write(const struct figure *f, FILE *out, const char *term,
	       const char *output, struct errbuf *eb)
{
	char q[1024];
	int w = f->width ? f->width : 800, h = f->height ? f->height : 500;
	size_t i;

	fputs("# ", out);
	put_comment(out, f->title ? f->title : "commtime figure");
	if (f->comment) {
		fputs("# ", out);
		put_comment(out, f->comment);
	}
	/*
	 * No "set encoding utf8": in the C locale gnuplot answers it with a
	 * warning about the degree sign, and the cairo and svg terminals take
	 * the text as UTF-8 without it.
	 */
	fputs("# A gnuplot script written by commtime; 'gnuplot FILE' draws ", out);
	if (output)
		put_quoted(out, output);
	else
		fputs("to standard output", out);
	fputs(".\n# The data is inline below; edit titles, colours or sizes freely.\n"
	      "# The text is UTF-8 (add 'set encoding utf8' in a Latin-1 locale).\n\n", out);
	if (!strcmp(term, "png"))
		fprintf(out, "set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n", w, h);
	else if (!strcmp(term, "pdf"))
		fprintf(out, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'sans,9'\n",
			w / 100.0, h / 100.0);
	else
		fprintf(out, "set terminal svg size %d,%d dynamic noenhanced font 'sans,11' "
			"background '#ffffff'\n", w, h);
	if (output) {
		fputs("set output ", out);
		put_quoted(out, output);
		fputc('\n', out);
	}
	fputs("set border lw 1 lc rgb '#444444'\nset tics nomirror out\nset border 3\n", out);

	/* Data first, one datablock per series. */
	write_data(out, f);

	if (f->npanels > 1)
		fprintf(out, "\nset multiplot layout 1,%zu title %s\n", f->npanels,
			plot_quote(q, sizeof(q), f->title));
	for (i = 0; i < f->npanels; i++)
		write_panel(out, &f->panels[i], i);
	if (f->npanels > 1)
		fputs("unset multiplot\n", out);
	if (output)
		fputs("set output\n", out);
	if (ferror(out))
		return errbuf_set(eb, "cannot write the gnuplot script: %s", strerror(errno));
	return 0;
}
