/*
 * Messages to the user and allocation that cannot fail.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/* Length of the character at s that a terminal shows, not acts on; 0 if none. */
static size_t shown_len(const unsigned char *s, int keep_tab)
{
	size_t len;

	if (s[0] < 0x80)
		return (s[0] >= 0x20 && s[0] != 0x7f) || (keep_tab && s[0] == '\t') ? 1 : 0;
	/* A NUL ends a sequence early, so 4 never reads past the string. */
	len = utf8_len(s, 4);
	/* U+0080-U+009F, the C1 controls, are 0xc2 0x80-0x9f. */
	if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0)
		return 0;
	return len;
}

size_t text_visible_len(const char *s, int keep_tab)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, k;

	while (p[n] && (k = shown_len(p + n, keep_tab)))
		n += k;
	return n;
}

char *text_visible(const char *s, int keep_tab)
{
	const unsigned char *p = (const unsigned char *)s;
	/* Each byte becomes at most four ("\xHH"). */
	char *r = xmalloc(4 * strlen(s) + 1), *o = r;

	while (*p) {
		size_t k = shown_len(p, keep_tab);

		if (k) {
			memcpy(o, p, k);
			o += k;
			p += k;
			continue;
		}
		switch (*p) {
		case '\n': memcpy(o, "\\n", 2); o += 2; break;
		case '\r': memcpy(o, "\\r", 2); o += 2; break;
		case '\t': memcpy(o, "\\t", 2); o += 2; break;
		default: o += sprintf(o, "\\x%02x", *p); break;
		}
		p++;
	}
	*o = '\0';
	return r;
}

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);
	char small[1024], *msg = small, *shown;
	va_list aq;
	int len;

	va_copy(aq, ap);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	if (len >= (int)sizeof(small)) {
		msg = xmalloc((size_t)len + 1);
		vsnprintf(msg, (size_t)len + 1, fmt, aq);
	}
	va_end(aq);
	if (len < 0)
		small[0] = '\0';
	shown = text_visible(msg, 1);
	fprintf(stderr, "commtime: %s%s", prefix, shown);
	free(shown);
	if (msg != small)
		free(msg);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(EXIT_DATA);
}

void die_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

int errbuf_set(struct errbuf *eb, const char *fmt, ...)
{
	va_list ap;

	if (!eb)
		return -1;
	va_start(ap, fmt);
	vsnprintf(eb->msg, sizeof(eb->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("commtime: error: out of memory\n", stderr);
		exit(EXIT_DATA);
	}
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fputs("commtime: error: out of memory\n", stderr);
		exit(EXIT_DATA);
	}
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

size_t text_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, row[65];

	if (la > 64 || lb > 64)
		return (size_t)-1;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}
