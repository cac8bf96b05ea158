#ifndef COMMTIME_UTIL_H
#define COMMTIME_UTIL_H

#include <stddef.h>
#include <stdint.h>

/*
 * FNV-1a, 64 bits (Fowler, Noll and Vo; the offset basis and prime of
 * draft-eastlake-fnv, "The FNV Non-Cryptographic Hash Algorithm"): the
 * hash the memo tables and the trace store key with.  UTIL_FNV mixes one
 * word (or byte) x into h.
 */
#define UTIL_FNV_BASIS 1469598103934665603ULL
#define UTIL_FNV_PRIME 1099511628211ULL
#define UTIL_FNV(h, x) (((h) ^ (uint64_t)(x)) * UTIL_FNV_PRIME)

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
 * warning() prints "commtime: warning: ..." and returns.
 * A format that ends in ':' gets ": strerror(errno)" appended.  The
 * message reaches the terminal through text_visible(): a file name or a
 * log field holding ESC or BEL shows as "\x1b", never acts.
 */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void die_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
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

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0
 * when it is not one: overlong forms, surrogates and code points above
 * U+10FFFF are rejected as RFC 3629 asks.  An ASCII byte is 1.
 */
size_t utf8_len(const unsigned char *s, size_t n);

/*
 * Text for a terminal.  text_visible_len() is the length of the longest
 * prefix of s that a terminal only shows: printable ASCII, well-formed
 * UTF-8 other than the C1 controls U+0080-U+009F, and tab when keep_tab.
 * text_visible() returns a new string in which every other byte is
 * written as an escape, "\n", "\r", "\t" or "\xHH" (so ESC [ 2 J
 * becomes "\x1b[2J" and clears nothing).
 */
size_t text_visible_len(const char *s, int keep_tab);
char *text_visible(const char *s, int keep_tab);

/* Allocation that never returns NULL: dies with "out of memory". */
void *xmalloc(size_t n);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

/*
 * Edit distance (Levenshtein: insertions, deletions, substitutions) of two
 * short names, at most 64 bytes each; (size_t)-1 when either is longer.
 * For "did you mean" suggestions.
 */
size_t text_distance(const char *a, const char *b);

#endif
