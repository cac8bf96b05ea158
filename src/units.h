#ifndef COMMTIME_UNITS_H
#define COMMTIME_UNITS_H

#include <stddef.h>
#include "util.h"

/*
 * Parsing of quantities as people write them, into SI base units.
 * The single table of suffixes is in README.md ("Units").
 *
 * Every parser consumes the whole string (surrounding blanks allowed),
 * rejects NaN, Inf, overflow and leftover text, and returns 0 on success
 * or -1 with a message in eb that names the value and says why, e.g.
 * "cannot parse size '4X': unknown suffix 'X'".
 */

/*
 * The one reader of numbers from outside — the command line, presets,
 * nccl-tests logs, CSV files: plain decimal notation only, [+-] digits
 * [. digits] [e [+-] digits] with at least one digit before the exponent;
 * no hexadecimal ("0x10", "0x1p3"), no "nan" or "inf", no locale (the
 * point is '.').  The value is scaled by 10^exp10 in the decimal text
 * itself, so "18.41" with exp10 = -6 is the double nearest 18.41e-6.
 *
 * units_scan_decimal: reads the number at the start of s (no blanks
 * before it) into *x; returns the bytes read, 0 when there is no number
 * there (*x untouched).  An exponent beyond the doubles gives ±inf or 0.
 * units_decimal: the whole of s, blanks around allowed; returns 0, or -1
 * when s is not such a number or its value is not finite.
 */
size_t units_scan_decimal(const char *s, int exp10, double *x);
int units_decimal(const char *s, int exp10, double *x);

/* A time: bare seconds or ns, us, µs, ms, s.  Result in seconds, >= 0. */
int units_parse_time(const char *s, double *seconds, struct errbuf *eb);

/*
 * A size: bare bytes or B, K M G T (x1024^n), KiB MiB GiB TiB PiB (x1024^n),
 * kB KB MB GB TB PB (x1000^n).  Result in bytes, >= 0.
 */
int units_parse_size(const char *s, double *bytes, struct errbuf *eb);

/*
 * A rate: bare bytes/s or kB/s MB/s GB/s TB/s (x1000^n), KiB/s MiB/s GiB/s
 * TiB/s, B/s, and bit rates kb/s Mb/s Gb/s Tb/s, Gbit/s, Mbps Gbps Tbps
 * (x1000^n bits, divided by 8).  Result in bytes per second, >= 0.
 */
int units_parse_rate(const char *s, double *bytes_per_s, struct errbuf *eb);

/* A plain number without unit (ratio, fraction, count); >= 0 not enforced. */
int units_parse_number(const char *s, double *x, struct errbuf *eb);

/*
 * A percentage or fraction: "10%" is 0.1, "0.1" is 0.1.
 */
int units_parse_fraction(const char *s, double *x, struct errbuf *eb);

/* The kind of quantity a list holds; chooses the element parser. */
enum quantity {
	Q_NUMBER,  /* plain number */
	Q_COUNT,   /* non-negative integer up to 2^53 (rank counts, microbatches);
		      K M G T suffixes (x1024^n) allowed, 1e3 if integral */
	Q_TIME,
	Q_SIZE,
	Q_RATE,
	Q_FRACTION /* as units_parse_fraction: "10%" or "0.1"; may be negative */
};

/* Parse one quantity of the given kind. */
int units_parse(enum quantity q, const char *s, double *x, struct errbuf *eb);

/*
 * A list of values: "4,8,16", a geometric range "START:STOP:xFACTOR" or an
 * arithmetic range "START:STOP:+STEP" (inclusive of STOP when hit, within
 * a relative 1e-9), or any comma-separated mix of these.  Elements of a
 * geometric range are START*FACTOR^k (no accumulated rounding).  Ranges
 * that never end (x1, +0), run backwards or are empty are errors, as are
 * lists longer than UNITS_LIST_MAX.  STEP carries the list's unit
 * ("1us:10us:+1us"); FACTOR is a plain number.  An element within 1e-9
 * of STOP is STOP.  In a Q_COUNT range an element within 1e-9 of an
 * integer is that integer, and any other element is an error
 * ("2:100:x1.5" fails at 4.5).  Error messages name the element or the
 * range: "cannot parse range '8:2:x2': empty range (start is above stop)".
 *
 * On success fills list (which the caller frees with dlist_release) and
 * returns 0; on error returns -1 with the message in eb.
 */
/* At most 10 million elements: 80 MB of doubles. */
#define UNITS_LIST_MAX 10000000
struct dlist {
	double *v;
	size_t n, alloc;
};
int units_parse_list(enum quantity q, const char *s, struct dlist *list, struct errbuf *eb);
void dlist_push(struct dlist *l, double x);
void dlist_release(struct dlist *l);

/*
 * Human-readable formatting for tables (not for CSV/JSON, which print raw
 * SI values).  Each writes into buf (size len) and returns buf.
 *
 * units_fmt_size: binary units when the size is a whole number of
 *   eighths of one ("4 KiB", "1 GiB", "1.5 GiB", "14 GiB"), otherwise
 *   decimal with 4 significant digits ("25 MB", "1.5 GB"); below 1024
 *   plain bytes ("1000 B").
 * units_fmt_time: picks ns, µs (U+00B5), ms or s so the number is in
 *   [1, 1000) (ns below, s above); prec significant digits, trailing
 *   zeros kept: 30e-6 at prec 3 is "30.0 µs", 0 is "0 s"; from 1e9 s on
 *   in exponent form with prec significant digits, "1.88e+09 s".
 * units_fmt_rate: B/s, kB/s, MB/s, GB/s, TB/s, PB/s so the number is in
 *   [1, 1000); prec significant digits as %g, without trailing zeros:
 *   200e9 at prec 4 is "200 GB/s", 23.4567e9 is "23.46 GB/s".
 * prec < 1 means the default (3 for time, 4 for rate).
 */
char *units_fmt_size(char *buf, size_t len, double bytes);
char *units_fmt_time(char *buf, size_t len, double seconds, int prec);
char *units_fmt_rate(char *buf, size_t len, double bytes_per_s, int prec);

#endif
