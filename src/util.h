#ifndef COMMTIME_UTIL_H
#define COMMTIME_UTIL_H

#include <stddef.h>

/*
 * Exit status of the program, documented in README.md ("Exit status").
 */
enum exit_code {
	EXIT_OK = 0,      /* success */
	EXIT_DATA = 1,    /* bad data or a computation that cannot be done */
	EXIT_USAGE = 2    /* unknown command or option, a value that does not parse */
};

/*
 * Messages to the user.  Only main.c and cmd_*.c call these; the core
 * reports through return values and fills an error buffer instead.
 *
 * die() prints "commtime: error: ..." and exits with EXIT_DATA.
 * die_usage() prints the same and exits with EXIT_USAGE.
 * error() prints and returns -1, so callers can write "return error(...)".
 * warning() prints "commtime: warning: ..." and returns.
 * A format that ends in ':' gets ": strerror(errno)" appended.
 */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Error text from the core: a fixed buffer filled by the function that
 * failed, read by the command that reports it.
 */
struct errbuf {
	char msg[512];
};

/* Fill eb with a printf-style message; returns -1 so callers can return it. */
int errbuf_set(struct errbuf *eb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Allocation that never returns NULL: dies with "out of memory". */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
