/*
 * fmt_double: the text of a number in CSV and JSON, which is most of the
 * work of a long sweep.  The format (fmt.h) is the first of printf's
 * %.15g, %.16g and %.17g that reads back as exactly the same double.
 * Asking printf three times and strtod after each is slow, so the digits
 * come from one exact computation instead:
 *
 *  1. Schubfach (R. Giulietti, "The Schubfach way to render doubles",
 *     2020; the algorithm of Java's Double.toString since JDK 19) finds
 *     the shortest decimal D in the rounding interval of x, the closest to
 *     x if there are several, with one 128-bit table lookup and three
 *     64x128-bit multiplications.
 *
 *  2. D is also what the %.Pg rule prints, with P = max(15, digits of D),
 *     for every positive normal double whose significand bits are not all
 *     zero.  With n digits in D:
 *     - n <= 15: two 15-digit decimals are at least 1e-15·x apart, the
 *       rounding interval is at most 2^-52·x wide, so D is the 15-digit
 *       decimal nearest x: it is what %.15g prints, and it reads back.
 *     - n = 16: no decimal of 15 digits reads back, so %.15g fails.  The
 *       16-digit decimal nearest x, printed by %.16g, is no farther from
 *       x than D, so inside the (symmetric) interval too; it is D, being
 *       the closest one there (ties go to the even digit in both).
 *     - n = 17: %.15g and %.16g fail; %.17g's decimal, the 17-digit one
 *       nearest x, always reads back, and is again D.
 *     Left to printf: subnormals (where a 15-digit decimal may read back
 *     although a shorter one exists: "4.94065645841247e-324"), and powers
 *     of two with 16 or 17 digits, whose rounding interval is narrower
 *     below x than above it, so the decimal nearest x may fall outside.
 *
 * The unit tests (tests/unit/test_table.c) compare fmt_double with the
 * printf definition over half a million doubles of many kinds, exact ties
 * and every power of two, and check the table of fmt_pow10.c with exact
 * integer arithmetic.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include <math.h>

/* ---- 64x64 -> 128-bit multiplication ---- */

#if defined(__SIZEOF_INT128__)
static uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo)
{
	unsigned __int128 p = (unsigned __int128)a * b;

	*lo = (uint64_t)p;
	return (uint64_t)(p >> 64);
}
#else
static uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo)
{
	uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;

	*lo = (mid << 32) | (uint32_t)p00;
	return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}
#endif

/* ---- integers ---- */

static const char digit_pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static const uint64_t pow10_u64[20] = {
	UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000),
	UINT64_C(100000), UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000),
	UINT64_C(1000000000), UINT64_C(10000000000), UINT64_C(100000000000),
	UINT64_C(1000000000000), UINT64_C(10000000000000), UINT64_C(100000000000000),
	UINT64_C(1000000000000000), UINT64_C(10000000000000000),
	UINT64_C(100000000000000000), UINT64_C(1000000000000000000),
	UINT64_C(10000000000000000000),
};

/* Number of decimal digits of v (1 for 0). */
static int u64_digits(uint64_t v)
{
	int bits = 0, t;

#if defined(__GNUC__)
	bits = v ? 64 - __builtin_clzll(v) : 0;
#else
	for (uint64_t w = v; w; w >>= 1)
		bits++;
#endif
	/* log10(2) ~ 1233/4096: t is the digit count or one less */
	t = (bits * 1233) >> 12;
	return t + (t < 20 && v >= pow10_u64[t]) + (t == 0 && v == 0);
}

int fmt_u64(char *buf, uint64_t v)
{
	int n = u64_digits(v);
	char *p = buf + n;

	*p = '\0';
	/*
	 * Two digits per division, from the right; above 10^8 the two halves
	 * are done in 32 bits, which is cheaper than 64-bit division.
	 */
	if (v >= 100000000) {
		uint32_t lo = (uint32_t)(v % 100000000);
		int i;

		v /= 100000000;
		for (i = 0; i < 4; i++) {
			const char *pair = digit_pairs + 2 * (lo % 100);

			lo /= 100;
			*--p = pair[1];
			*--p = pair[0];
		}
	}
	while (v >= 100) {
		const char *pair = digit_pairs + 2 * (v % 100);

		v /= 100;
		*--p = pair[1];
		*--p = pair[0];
	}
	if (v >= 10) {
		*--p = digit_pairs[2 * v + 1];
		*--p = digit_pairs[2 * v];
	} else {
		*--p = (char)('0' + v);
	}
	return n;
}

/* ---- Schubfach (its table of g(e): fmt_pow10_table, src/fmt_pow10.c) ---- */

/* ⌊a / 2^s⌋ for negative a too (>> of a negative int is implementation-defined). */
static int floor_shift(long a, int s)
{
	return a >= 0 ? (int)(a >> s) : -(int)((-a - 1) >> s) - 1;
}

/*
 * ⌊log10 2^q⌋, ⌊log10 (3/4)·2^q⌋ and ⌊log2 10^e⌋ by fixed-point
 * multiplication, exact for |q| <= 1100 and |e| <= 330 (checked against
 * exact integer arithmetic when the table was made).
 */
static int floor_log10_pow2(int q) { return floor_shift((long)q * 1262611, 22); }
static int floor_log10_34_pow2(int q) { return floor_shift((long)q * 1262611 - 524031, 22); }
static int floor_log2_pow10(int e) { return floor_shift((long)e * 1741647, 19); }

/*
 * cp·g / 2^128 rounded to odd: the integer part, with its lowest bit set
 * when the fraction is not zero.  Comparisons of a value rounded so with
 * an even integer (4s, 4s + 4, 4s + 2 below) come out as with the exact
 * value.  The low 64 bits of the product are only the error of g and are
 * dropped (Giulietti 2020, section 9).
 */
static uint64_t rop(const uint64_t g[2], uint64_t cp)
{
	uint64_t x0, x1, y0, y1, z;

	x1 = mul_64x64(g[1], cp, &x0);
	y1 = mul_64x64(g[0], cp, &y0);
	(void)x0;
	z = y0 + x1;
	y1 += z < y0;
	return y1 | (z != 0);
}

int fmt_shortest(uint64_t c, int q, uint64_t *d, int *k)
{
	/*
	 * The rounding interval of x = c·2^q is [cbl, cbr]·2^(q-2), its ends
	 * included when c is even (strtod rounds a tie to even).  It is
	 * narrower below x when x is a power of two above the smallest normal.
	 */
	int asym = c == (UINT64_C(1) << 52) && q > -1074;
	uint64_t cb = c << 2, cbr = cb + 2, cbl = asym ? cb - 1 : cb - 2;
	uint64_t out = c & 1, s, vb, vbl, vbr, dd;
	int kk = asym ? floor_log10_34_pow2(q) : floor_log10_pow2(q);
	/* h in 1..4 puts x·10^-kk at the binary point of the product */
	int h = q + floor_log2_pow10(-kk) + 1;
	const uint64_t *g = fmt_pow10_table[-kk - FMT_POW10_MIN];
	int upin, wpin, uin, win;

	/* vb = 4x·10^-kk, vbl and vbr the interval's ends, rounded to odd */
	vb = rop(g, cb << h);
	vbl = rop(g, cbl << h);
	vbr = rop(g, cbr << h);
	s = vb >> 2;  /* ⌊x·10^-kk⌋: 16 or 17 digits */

	/*
	 * 10^kk is at most the width of the interval, so one of s·10^kk and
	 * (s+1)·10^kk lies in it; one digit fewer is tried first.
	 */
	dd = 0;
	if (s >= 10) {
		uint64_t sp = s / 10;

		upin = vbl + out <= 40 * sp;
		wpin = 40 * sp + 40 + out <= vbr;
		if (upin != wpin) {
			dd = sp + (uint64_t)wpin;
			kk++;
		}
	}
	if (!dd) {
		uin = vbl + out <= 4 * s;
		win = 4 * s + 4 + out <= vbr;
		if (uin != win) {
			dd = s + (uint64_t)win;
		} else {
			/* both in: the closer, or the even one of two as close */
			uint64_t mid = 4 * s + 2;

			dd = s + (vb > mid || (vb == mid && (s & 1)));
		}
	}
	while (dd % 10 == 0) {
		dd /= 10;
		kk++;
	}
	*d = dd;
	*k = kk;
	return u64_digits(dd);
}

/* ---- the printf definition, for the few values the fast path leaves ---- */

void fmt_fix_point(char *buf)
{
	const char *dp = localeconv()->decimal_point;
	char *p;

	if (!dp || !*dp || !strcmp(dp, "."))
		return;
	if ((p = strstr(buf, dp))) {
		size_t n = strlen(dp);

		*p = '.';
		memmove(p + 1, p + n, strlen(p + n) + 1);
	}
}

/* strtod of C-locale text whatever the locale. */
static double read_back(const char *s)
{
	const char *dp = localeconv()->decimal_point;
	char buf[64];
	const char *dot;

	if (!dp || !*dp || !strcmp(dp, ".") || !(dot = strchr(s, '.')))
		return strtod(s, NULL);
	snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(dot - s), s, dp, dot + 1);
	return strtod(buf, NULL);
}

static int fmt_double_printf(char *buf, double x)
{
	int p;

	for (p = 15; p < 17; p++) {
		snprintf(buf, 32, "%.*g", p, x);
		fmt_fix_point(buf);
		if (read_back(buf) == x)
			return (int)strlen(buf);
	}
	snprintf(buf, 32, "%.17g", x);
	fmt_fix_point(buf);
	return (int)strlen(buf);
}

/* ---- fmt_double ---- */

/*
 * Write the n digits d (no trailing zeros) of the value 0.d·10^(e+1) as
 * %.Pg does: plain when -4 <= e < P, otherwise d[0].d[1..]e±XX.
 */
static int write_g(char *buf, int neg, const char *d, int n, int e, int P)
{
	char *o = buf;
	int i;

	if (neg)
		*o++ = '-';
	if (e >= -4 && e < P) {
		if (e >= 0) {
			if (n <= e + 1) {
				memcpy(o, d, (size_t)n);
				o += n;
				for (i = n; i <= e; i++)
					*o++ = '0';
			} else {
				memcpy(o, d, (size_t)e + 1);
				o += e + 1;
				*o++ = '.';
				memcpy(o, d + e + 1, (size_t)(n - e - 1));
				o += n - e - 1;
			}
		} else {
			*o++ = '0';
			*o++ = '.';
			for (i = 0; i < -e - 1; i++)
				*o++ = '0';
			memcpy(o, d, (size_t)n);
			o += n;
		}
	} else {
		*o++ = d[0];
		if (n > 1) {
			*o++ = '.';
			memcpy(o, d + 1, (size_t)n - 1);
			o += n - 1;
		}
		*o++ = 'e';
		*o++ = e < 0 ? '-' : '+';
		if (e < 0)
			e = -e;
		if (e >= 100) {
			*o++ = (char)('0' + e / 100);
			e %= 100;
		}
		*o++ = digit_pairs[2 * e];
		*o++ = digit_pairs[2 * e + 1];
	}
	*o = '\0';
	return (int)(o - buf);
}

int fmt_double(char *buf, double x)
{
	uint64_t bits, frac, c, d, whole;
	char digits[24];
	int neg, bexp, q, k, n, len;

	memcpy(&bits, &x, sizeof(bits));
	neg = (int)(bits >> 63);
	bexp = (int)(bits >> 52) & 0x7ff;
	frac = bits & ((UINT64_C(1) << 52) - 1);

	if (bexp == 0x7ff) {
		if (frac)
			return (int)(memcpy(buf, "nan", 4), 3);
		return neg ? (int)(memcpy(buf, "-inf", 5), 4) : (int)(memcpy(buf, "inf", 4), 3);
	}
	if (bexp == 0) {
		if (!frac) {
			if (neg)
				return (int)(memcpy(buf, "-0", 3), 2);
			return (int)(memcpy(buf, "0", 2), 1);
		}
		return fmt_double_printf(buf, x);  /* subnormal */
	}
	c = frac | (UINT64_C(1) << 52);
	q = bexp - 1075;

	/* Integers up to 2^53: all their digits, no exponent. */
	if (q <= 0 ? q >= -52 && (c & ((UINT64_C(1) << -q) - 1)) == 0
		   : q == 1 && frac == 0) {
		if (neg)
			*buf = '-';
		return neg + fmt_u64(buf + neg, q <= 0 ? c >> -q : c << q);
	}

	n = fmt_shortest(c, q, &d, &k);
	if (n >= 16 && frac == 0) {
		len = fmt_double_printf(buf, x);  /* a power of two: see above */
	} else {
		fmt_u64(digits, d);
		len = write_g(buf, neg, digits, n, k + n - 1, n > 15 ? n : 15);
	}

	/*
	 * Whole numbers from 2^53 to 1e17 may read shorter as plain digits
	 * ("31722300588172752", not "3.172230058817275e+16").
	 */
	if (q > 0 && q <= 4 && (whole = c << q) < UINT64_C(100000000000000000) &&
	    memchr(buf, 'e', (size_t)len)) {
		char plain[24];
		int m = fmt_u64(plain, whole);

		if (m + neg < len) {
			if (neg)
				*buf = '-';
			memcpy(buf + neg, plain, (size_t)m + 1);
			len = m + neg;
		}
	}
	return len;
}

int fmt_int(char *buf, double x)
{
	if (isfinite(x) && x == floor(x) && fabs(x) < 1e18) {
		/* no "-0" for a count */
		if (x < 0) {
			*buf = '-';
			return 1 + fmt_u64(buf + 1, (uint64_t)-x);
		}
		return fmt_u64(buf, (uint64_t)x);
	}
	return fmt_double(buf, x);
}
