/*
 * The figure writer: quoting of text that reaches a gnuplot script, the
 * image format from a file name, the rank grid, and the lines plot_write
 * emits for tics, markers and empty series, compared with text written
 * out by hand.
 */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"  /* test_* are found by name */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "plot.h"

/* The script of a figure as a string (free it). */
static char *script(const struct figure *f)
{
	struct errbuf eb;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	if (plot_write(f, m, "svg", "out.svg", &eb) < 0)
		h_report(__FILE__, __LINE__, "plot_write: %s", eb.msg);
	fclose(m);
	return buf;
}

/* 1 if line is one whole line of text. */
static int has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; p && (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return 1;
	return 0;
}

void test_plot_quote(void)
{
	char buf[64];

	STR_EQ(plot_quote(buf, sizeof(buf), "ring, 8 ranks"), "'ring, 8 ranks'");
	/* a quote is doubled, the only escape gnuplot knows in single quotes */
	STR_EQ(plot_quote(buf, sizeof(buf), "x' ; system('touch P') ; '"),
	       "'x'' ; system(''touch P'') ; '''");
	/* backquotes, @macros and $(...) are plain text inside single quotes */
	STR_EQ(plot_quote(buf, sizeof(buf), "`touch P` @m $(touch P)"),
	       "'`touch P` @m $(touch P)'");
	/* a newline would end the command: control characters become blanks */
	STR_EQ(plot_quote(buf, sizeof(buf), "a\nb\tc\x7f"), "'a b c '");
	STR_EQ(plot_quote(buf, sizeof(buf), NULL), "''");
	/* truncated text still ends in a closing quote */
	STR_EQ(plot_quote(buf, 8, "abcdefghij"), "'abcd'");
	/* a doubled quote is never cut in half */
	STR_EQ(plot_quote(buf, 6, "ab'cd"), "'ab'");
	STR_EQ(plot_quote(buf, 3, "abc"), "''");
	STR_EQ(plot_quote(buf, 2, "abc"), "");
}

void test_plot_terminal_for(void)
{
	STR_EQ(plot_terminal_for("a.png"), "png");
	STR_EQ(plot_terminal_for("dir.x/a.svg"), "svg");
	STR_EQ(plot_terminal_for("a.pdf"), "pdf");
	CHECK(plot_terminal_for("a.gp") == NULL);
	CHECK(plot_terminal_for("a.PNG") == NULL);
	CHECK(plot_terminal_for("png") == NULL);
}

void test_plot_rank_grid_small(void)
{
	double g[16];
	size_t n = plot_rank_grid(3, 9, 16, g), i;

	/* every whole number when there is room */
	INT_EQ(n, 7);
	for (i = 0; i < n; i++)
		DBL_NEAR(g[i], 3 + (double)i, 0);
	/* one rank count, and lo below one */
	n = plot_rank_grid(5, 5, 16, g);
	INT_EQ(n, 1);
	DBL_NEAR(g[0], 5, 0);
	n = plot_rank_grid(0.2, 2, 16, g);
	INT_EQ(n, 2);
	DBL_NEAR(g[0], 1, 0);
}

void test_plot_rank_grid_log(void)
{
	double g[100];
	size_t n = plot_rank_grid(1, 1e6, 100, g), i;
	int increasing = 1, whole = 1;

	CHECK(n > 50 && n <= 100);
	DBL_NEAR(g[0], 1, 0);
	DBL_NEAR(g[n - 1], 1e6, 0);
	for (i = 0; i < n; i++) {
		if (i && !(g[i] > g[i - 1]))
			increasing = 0;
		if (g[i] != (double)(long)g[i])
			whole = 0;
	}
	CHECK(increasing);
	CHECK(whole);
	/* the middle of a log grid is the geometric mean: 10^3 here */
	for (i = 0; i < n && g[i] < 1000; i++)
		;
	CHECK(i < n && g[i] <= 1000 * 1.2 && g[i - 1] >= 1000 / 1.2);
}

void test_plot_linear_time_tics(void)
{
	struct figure f = { 0 };
	struct panel *p = plot_add_panel(&f, "t", "ranks", "time");
	struct plot_series *s = plot_add_series(p, "a", PS_LINES);
	char *text;

	p->yaxis = AX_TIME;
	plot_xy(s, 1, 0);
	plot_xy(s, 2, 1.5);
	text = script(&f);
	/*
	 * 0 to 1.5 s: 1.5/6 = 0.25 rounds to a step of 0.2 s; the tics are
	 * k·0.2 for k = 0..7 (the doubles 0.2·k, e.g. 0.6000000000000001),
	 * labelled without a prefix at zero.
	 */
	CHECK(has_line(text, "set ytics ('0' 0, '200 ms' 0.2, '400 ms' 0.4, "
		       "'600 ms' 0.6000000000000001, '800 ms' 0.8, '1 s' 1, "
		       "'1.2 s' 1.2000000000000002, '1.4 s' 1.4000000000000001)"));
	/* a plain linear axis keeps gnuplot's tics, its earlier list undone */
	CHECK(has_line(text, "set xtics autofreq"));
	free(text);
	plot_release(&f);
}

void test_plot_log_size_tics(void)
{
	struct figure f = { 0 };
	struct panel *p = plot_add_panel(&f, "t", "size", "time");
	struct plot_series *s = plot_add_series(p, "a", PS_LINES);
	char *text;

	p->xaxis = AX_SIZE;
	p->logx = 1;
	p->xmin = 1024;
	p->xmax = 1048576;
	plot_xy(s, 1024, 1);
	plot_xy(s, 1048576, 2);
	text = script(&f);
	/* 2^10 to 2^20: ten octaves, a tic every 2^2, one beyond the end */
	CHECK(has_line(text, "set xtics ('1 KiB' 1024, '4 KiB' 4096, '16 KiB' 16384, "
		       "'64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304)"));
	/* the ends move out a part in 10^9 so the edge tics stay */
	CHECK(has_line(text, "set xrange [1023.999998976:1048576.001048576]"));
	free(text);
	plot_release(&f);
}

void test_plot_markers_and_empty(void)
{
	struct figure f = { 0 };
	struct panel *p = plot_add_panel(&f, "t", "x", "y");
	char *text;

	plot_xy(plot_add_series(p, NULL, PS_LINES), 1, 2);
	plot_xy(plot_add_series(p, NULL, PS_LINES), 2, 3);
	plot_add_series(p, "empty", PS_POINTS);
	plot_add_hline(p, 10, "target 10 %");
	text = script(&f);
	CHECK(has_line(text, "set arrow from graph 0, first 10 to graph 1, first 10 "
		       "nohead dt 3 lw 1.5 lc rgb '#666666' back"));
	CHECK(has_line(text, "set label 'target 10 %' at graph 0.99, first 10 right "
		       "offset 0,0.7 tc rgb '#444444' front"));
	/* the empty series is left out of the plot command */
	CHECK(strstr(text, "$p1s3 using") == NULL);
	CHECK(has_line(text, "  $p1s2 using 1:2 with lines lw 2 dt 1 lc rgb '#D55E00' notitle"));
	/* no titled series with points: no key box */
	CHECK(has_line(text, "unset key"));
	free(text);
	plot_release(&f);

	/* a panel with nothing at all still makes a script gnuplot accepts */
	memset(&f, 0, sizeof(f));
	p = plot_add_panel(&f, "t", "x", "y");
	plot_add_series(p, "empty", PS_LINES);
	text = script(&f);
	CHECK(has_line(text, "plot NaN notitle"));
	CHECK(has_line(text, "set xrange [0:1]"));
	free(text);
	plot_release(&f);
}

void test_plot_single_value(void)
{
	struct figure f = { 0 };
	struct panel *p = plot_add_panel(&f, "t", "x", "y");
	struct plot_series *s = plot_add_series(p, "a", PS_POINTS);
	char *text;

	p->logy = 1;
	plot_xy(s, 4, 8);
	text = script(&f);
	/* one x and one y: a range around each, as gnuplot would warn */
	CHECK(has_line(text, "set xrange [3:5]"));
	CHECK(has_line(text, "set yrange [3.999999996:16.000000016]"));
	free(text);
	plot_release(&f);
}

/* A name gnuplot could pipe into a command or expand never starts a script's output. */
void test_plot_output_name(void)
{
	struct errbuf eb;
	char *r;

	r = plot_output_name("|touch PWNED;/x.png", &eb);
	STR_EQ(r, "./|touch PWNED;/x.png");
	free(r);
	r = plot_output_name("~/x.svg", &eb);
	STR_EQ(r, "./~/x.svg");
	free(r);
	r = plot_output_name("<x.svg", &eb);
	STR_EQ(r, "./<x.svg");
	free(r);
	r = plot_output_name("/abs/x.svg", &eb);
	STR_EQ(r, "/abs/x.svg");
	free(r);
	CHECK(plot_output_name("a\nb.svg", &eb) == NULL);
	CHECK(strstr(eb.msg, "control character 0x0a") != NULL);
	CHECK(plot_output_name("a\033b.svg", &eb) == NULL);
	CHECK(plot_output_name("", &eb) == NULL);
}

/* A 4 KiB name is written whole, its quotes doubled. */
void test_plot_long_output_name(void)
{
	struct figure f = { 0 };
	struct errbuf eb;
	char name[4200], *buf = NULL, *want;
	size_t len = 0;
	FILE *m;

	memset(name, 'a', 4096);
	strcpy(name + 4096, "'.svg");
	m = open_memstream(&buf, &len);
	plot_add_panel(&f, "p", "x", "y");
	INT_EQ(plot_write(&f, m, "svg", name, &eb), 0);
	fclose(m);
	want = malloc(4200);
	sprintf(want, "set output '%.4096s''.svg'\n", name);
	CHECK(strstr(buf, want) != NULL);
	free(want);
	free(buf);
	plot_release(&f);
}

/* No "set output" at all when gnuplot draws to its standard output. */
void test_plot_no_output(void)
{
	struct figure f = { 0 };
	struct errbuf eb;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	plot_add_panel(&f, "p", "x", "y");
	INT_EQ(plot_write(&f, m, "png", NULL, &eb), 0);
	fclose(m);
	CHECK(strstr(buf, "set output") == NULL);
	free(buf);
	plot_release(&f);
}

/* A comment ending in a backslash must not join the next line to it. */
void test_plot_comment_backslash(void)
{
	struct figure f = { 0 };
	struct plot_series *s;
	char *out, *p;

	f.title = strdup("title\\");
	f.comment = strdup("made from C:\\logs\\");
	s = plot_add_series(plot_add_panel(&f, "p\\", "x", "y"), "series\\", PS_LINES);
	plot_xy(s, 1, 2);
	out = script(&f);
	/* No comment line of the script ends in a backslash. */
	for (p = out; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *nl = strchr(p, '\n');

		if (*p == '#' && nl)
			CHECK(nl[-1] != '\\');
	}
	free(out);
	plot_release(&f);
}

void test_plot_image_complete(void)
{
	static const unsigned char png_head[] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	static const unsigned char png_tail[] = {
		'x', 0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82
	};
	const unsigned char *svg = (const unsigned char *)"<?xml version=\"1.0\"?>";
	const unsigned char *svg_end = (const unsigned char *)"</g>\n</svg>\n\n";
	const unsigned char *pdf = (const unsigned char *)"%PDF-1.5";
	const unsigned char *pdf_end = (const unsigned char *)"startxref\n123\n%%EOF\n";

	CHECK(plot_image_complete("png", png_head, 8, png_tail, sizeof(png_tail)));
	CHECK(!plot_image_complete("png", png_head, 8, png_tail, sizeof(png_tail) - 1));
	CHECK(!plot_image_complete("png", png_head, 7, png_tail, sizeof(png_tail)));
	CHECK(plot_image_complete("svg", svg, 20, svg_end, strlen((const char *)svg_end)));
	CHECK(!plot_image_complete("svg", svg, 20, svg_end, 6));
	CHECK(plot_image_complete("pdf", pdf, 8, pdf_end, strlen((const char *)pdf_end)));
	CHECK(!plot_image_complete("pdf", pdf, 8, pdf_end, 12));
	CHECK(!plot_image_complete("gif", pdf, 8, pdf_end, 12));
}
