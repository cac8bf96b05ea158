#ifndef COMMTIME_FMT_H
#define COMMTIME_FMT_H

#include <stdint.h>

/*
 * The number formatter behind CSV, JSON and the data of gnuplot scripts,
 * and the pieces the writers share with it.
 */

/*
 * Shortest decimal text that reads back as exactly x (C locale), as used in
 * CSV and JSON.  buf must hold 32 bytes; returns the length written.
 * NaN and infinities are written as "nan", "inf", "-inf".
 *
 * The form is printf's %g with the first of 15, 16 or 17 significant
 * digits that reads back exactly: "0.1", "5e-06", "1e+21",
 * "0.30000000000000004".  Integers up to 2^53 are written as digits
 * ("4096", "200000000000"), as are whole numbers below 1e17 when that is
 * shorter.  The decimal point is '.' whatever LC_NUMERIC says.
 */
int fmt_double(char *buf, double x);

/*
 * An integral column: every digit when x is a whole number below 1e18
 * ("-3", never "-0"), otherwise as fmt_double.  buf holds 32 bytes;
 * returns the length written.
 */
int fmt_int(char *buf, double x);

/* Decimal digits of v into buf (21 bytes are enough), NUL-terminated; returns the length. */
int fmt_u64(char *buf, uint64_t v);

/*
 * The shortest decimal d·10^k (d without trailing zeros) that reads back
 * as the positive normal double with significand c (53 bits, hidden bit
 * included) and exponent q (x = c·2^q); of several such, the closest to x,
 * and of two equally close, the one with an even last digit.  Returns the
 * number of digits of d (1 to 17).  Schubfach (Giulietti 2020).
 */
int fmt_shortest(uint64_t c, int q, uint64_t *d, int *k);

/*
 * The 128-bit multipliers of 10^e used by fmt_shortest, for -292 <= e <= 324,
 * row e - FMT_POW10_MIN (src/fmt_pow10.c): g[0] is the high half, g[1] the
 * low half of ⌊10^e·2^(127-⌊log2 10^e⌋)⌋ + 1.  The unit tests check every row.
 */
#define FMT_POW10_MIN (-292)
#define FMT_POW10_MAX 324
extern const uint64_t fmt_pow10_table[FMT_POW10_MAX - FMT_POW10_MIN + 1][2];

/* Put back '.' where a locale with a decimal comma made printf write ','. */
void fmt_fix_point(char *buf);

#endif
