#ifndef COMMTIME_FMT_H
#define COMMTIME_FMT_H

#include <stdint.h>

/*
 * The number formatter behind CSV and JSON.  fmt_double() itself is
 * declared in table.h, where its output format is documented; these are
 * the pieces the writers share with it.
 */

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
 * The 128-bit multiplier of 10^e used by fmt_shortest, for -292 <= e <= 324:
 * g[0] is the high half, g[1] the low half of ⌊10^e·2^(127-⌊log2 10^e⌋)⌋ + 1.
 * Exposed for the unit tests, which check every entry.
 */
const uint64_t *fmt_pow10(int e);
#define FMT_POW10_MIN (-292)
#define FMT_POW10_MAX 324

/* Put back '.' where a locale with a decimal comma made printf write ','. */
void fmt_fix_point(char *buf);

#endif
