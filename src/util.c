/*
 * Messages to the user and allocation that cannot fail.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "commtime: %s", prefix);
	vfprintf(stderr, fmt, ap);
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

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
	return -1;
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
