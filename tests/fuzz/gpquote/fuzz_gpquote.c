/*
 * Fuzz target: the text that reaches a gnuplot script.  The input's first
 * line is an image name, the rest the text of titles, labels and
 * comments.  plot_output_name() either refuses the name (a control
 * character, or empty) or gives one that starts with neither '|' nor '~'
 * and names the same file; plot_write() then writes a script in which
 * every command line has balanced single quotes (text never ends a
 * string early), no comment ends in a backslash (which would swallow the
 * next line), and "set output" carries the name exactly.
 *
 * Built by `make fuzz`; the unit tests run corpus/ through fuzz_gpquote().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "../fuzz_entry.h"

/* The name quoted as gnuplot reads it back: quotes doubled. */
static char *gp_quoted(const char *s)
{
	char *r = malloc(2 * strlen(s) + 3), *o = r;

	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\'')
			*o++ = '\'';
		*o++ = *s;
	}
	*o++ = '\'';
	*o = '\0';
	return r;
}

static const char *check_script(const char *buf, const char *name)
{
	const char *p = buf;
	char *want = NULL;
	int seen_output = 0;

	if (name) {
		char *q = gp_quoted(name);

		want = malloc(strlen(q) + 16);
		sprintf(want, "set output %s", q);
		free(q);
	}
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p), i, quotes = 0;

		if (n && p[0] == '#') {
			if (p[n - 1] == '\\') {
				free(want);
				return "a comment line ends in a backslash";
			}
		} else {
			for (i = 0; i < n; i++)
				quotes += p[i] == '\'';
			if (quotes % 2) {
				free(want);
				return "a command line has unbalanced single quotes";
			}
			if (n >= 11 && !strncmp(p, "set output ", 11)) {
				if (!want || strlen(want) != n || strncmp(p, want, n)) {
					free(want);
					return "set output does not carry the name exactly";
				}
				seen_output = 1;
			}
		}
		p += n + (nl != NULL);
	}
	free(want);
	if (name && !seen_output)
		return "no set output for a named image";
	return NULL;
}

static const char *fuzz_gpquote(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1), *text, *name, *buf = NULL;
	const char *why = NULL;
	struct figure f = { 0 };
	struct plot_series *s;
	struct panel *pn;
	struct errbuf eb;
	size_t len = 0;
	FILE *m;

	memcpy(in, data, size);
	in[size] = '\0';
	text = strchr(in, '\n');
	if (text)
		*text++ = '\0';
	else
		text = "";

	name = plot_output_name(in, &eb);
	if (!name) {
		const unsigned char *c;
		int control = !*in;

		for (c = (const unsigned char *)in; *c; c++)
			control |= *c < 0x20 || *c == 0x7f;
		if (!control)
			why = "plot_output_name refused a name without a control character";
	} else if (name[0] == '|' || name[0] == '~' || name[0] == '<' ||
		   (strcmp(name, in) && (strncmp(name, "./", 2) || strcmp(name + 2, in)))) {
		why = "plot_output_name gave a name gnuplot could interpret, or another file";
	}

	f.title = strdup(text);
	f.comment = strdup(text);
	pn = plot_add_panel(&f, text, text, text);
	s = plot_add_series(pn, text, PS_LINES);
	plot_xy(s, 1, 2);
	plot_xy(s, 2, 3);
	plot_add_label(pn, 1.5, 2.5, text, 1);
	plot_add_vline(pn, 1.5, text, text, text);
	plot_add_hline(pn, 2.5, text);
	m = open_memstream(&buf, &len);
	if (!why && m) {
		if (plot_write(&f, m, "svg", name, &eb) < 0)
			why = "plot_write failed on a memory stream";
		fclose(m);
		if (!why)
			why = check_script(buf, name);
	} else if (m) {
		fclose(m);
	}
	free(buf);
	plot_release(&f);
	free(name);
	free(in);
	return why;
}

FUZZ_ENTRY(fuzz_gpquote)
