/*
 * Parsing of quantities as people write them ("5us", "4K", "400Gbps",
 * "8:8G:x2") into doubles in SI base units, and the human formatting of
 * times, sizes and rates for tables.  The suffix tables below are the
 * only place units are defined; README.md ("Units") shows the same table.
 *
 * Numbers are scanned by hand before strtod sees them, so that only plain
 * decimal notation gets through: strtod alone would also take "nan",
 * "inf", "0x1p3" and, under a locale with a decimal comma, read "1.5" as 1.
 */
#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

/* Largest integer a double holds exactly: counts above it are refused. */
#define COUNT_MAX 9007199254740992.0  /* 2^53 */

/* Relative tolerance within which a range hits its STOP. */
#define RANGE_TOL 1e-9

/*
 * A suffix scales the number by 10^exp10, folded into the decimal text
 * before strtod reads it so that "5us" is exactly the double 5e-6, then
 * by mult, a power of two (or 1/8 for bits), which is exact in binary.
 */
struct suffix {
	const char *name;
	int exp10;
	double mult;
};

#define KI 1024.0
#define MI (KI * KI)
#define GI (MI * KI)
#define TI (GI * KI)
#define PI_ (TI * KI)

/* µ is written as U+00B5 MICRO SIGN or U+03BC GREEK SMALL LETTER MU. */
static const struct suffix time_suffixes[] = {
	{ "", 0, 1 }, { "s", 0, 1 }, { "ms", -3, 1 }, { "us", -6, 1 },
	{ "\xc2\xb5s", -6, 1 }, { "\xce\xbcs", -6, 1 }, { "ns", -9, 1 },
	{ NULL, 0, 0 }
};

/*
 * Single letters are binary, as nccl-tests reads -b/-e (and, like it,
 * lowercase k m g t p mean the same); "iB" is binary; "B" after a letter
 * is decimal.
 */
static const struct suffix size_suffixes[] = {
	{ "", 0, 1 }, { "B", 0, 1 },
	{ "K", 0, KI }, { "M", 0, MI }, { "G", 0, GI }, { "T", 0, TI }, { "P", 0, PI_ },
	{ "k", 0, KI }, { "m", 0, MI }, { "g", 0, GI }, { "t", 0, TI }, { "p", 0, PI_ },
	{ "KiB", 0, KI }, { "MiB", 0, MI }, { "GiB", 0, GI }, { "TiB", 0, TI },
	{ "PiB", 0, PI_ },
	{ "kB", 3, 1 }, { "KB", 3, 1 }, { "MB", 6, 1 }, { "GB", 9, 1 },
	{ "TB", 12, 1 }, { "PB", 15, 1 },
	{ NULL, 0, 0 }
};

/* Byte rates are decimal unless "iB"; bit rates (b, bit, bps) are /8. */
static const struct suffix rate_suffixes[] = {
	{ "", 0, 1 }, { "B/s", 0, 1 },
	{ "kB/s", 3, 1 }, { "KB/s", 3, 1 }, { "MB/s", 6, 1 }, { "GB/s", 9, 1 },
	{ "TB/s", 12, 1 }, { "PB/s", 15, 1 },
	{ "KiB/s", 0, KI }, { "MiB/s", 0, MI }, { "GiB/s", 0, GI }, { "TiB/s", 0, TI },
	{ "b/s", 0, 0.125 }, { "bit/s", 0, 0.125 }, { "bps", 0, 0.125 },
	{ "kb/s", 3, 0.125 }, { "Kb/s", 3, 0.125 }, { "Mb/s", 6, 0.125 },
	{ "Gb/s", 9, 0.125 }, { "Tb/s", 12, 0.125 },
	{ "kbit/s", 3, 0.125 }, { "Kbit/s", 3, 0.125 }, { "Mbit/s", 6, 0.125 },
	{ "Gbit/s", 9, 0.125 }, { "Tbit/s", 12, 0.125 },
	{ "kbps", 3, 0.125 }, { "Kbps", 3, 0.125 }, { "Mbps", 6, 0.125 },
	{ "Gbps", 9, 0.125 }, { "Tbps", 12, 0.125 },
	{ NULL, 0, 0 }
};

static const struct suffix count_suffixes[] = {
	{ "", 0, 1 }, { "K", 0, KI }, { "M", 0, MI }, { "G", 0, GI }, { "T", 0, TI },
	{ "k", 0, KI }, { "m", 0, MI }, { "g", 0, GI }, { "t", 0, TI },
	{ NULL, 0, 0 }
};

static const struct suffix number_suffixes[] = {
	{ "", 0, 1 }, { NULL, 0, 0 }
};

static const struct suffix fraction_suffixes[] = {
	{ "", 0, 1 }, { "%", -2, 1 }, { NULL, 0, 0 }
};

static const struct {
	const char *noun;
	const struct suffix *suffixes;
	int may_be_negative;
	int integral;
} kinds[] = {
	[Q_NUMBER] = { "number", number_suffixes, 1, 0 },
	[Q_COUNT] = { "count", count_suffixes, 0, 1 },
	[Q_TIME] = { "time", time_suffixes, 0, 0 },
	[Q_SIZE] = { "size", size_suffixes, 0, 0 },
	[Q_RATE] = { "rate", rate_suffixes, 0, 0 },
	[Q_FRACTION] = { "fraction", fraction_suffixes, 1, 0 },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static int is_blank(int c)
{
	return c == ' ' || c == '\t';
}

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int starts_with_word(const char *p, const char *word)
{
	for (; *word; p++, word++)
		if (lower((unsigned char)*p) != *word)
			return 0;
	return 1;
}

/*
 * strtod of n bytes of plain decimal text (sign, digits, '.', exponent)
 * times 10^exp10, rounded once: the exponent is added to the text, and
 * the '.' becomes the locale's decimal point, whatever LC_NUMERIC says.
 */
static double decimal_to_double(const char *p, size_t n, int exp10)
{
	const char *dp = localeconv()->decimal_point;
	int swap = dp && *dp && strcmp(dp, ".");
	size_t dlen = swap ? strlen(dp) : 1;
	char buf[512], *heap = NULL, *b = buf;
	size_t i, j, need = n * dlen + 32;
	long e = 0;
	double x;

	if (need > sizeof(buf))
		b = heap = xmalloc(need);
	for (i = j = 0; i < n && p[i] != 'e' && p[i] != 'E'; i++) {
		if (p[i] == '.' && swap) {
			memcpy(b + j, dp, dlen);
			j += dlen;
		} else {
			b[j++] = p[i];
		}
	}
	if (i < n) {
		/* Saturate: beyond 10^±100000 every double is 0 or inf anyway. */
		int neg = p[++i] == '-';

		if (p[i] == '+' || p[i] == '-')
			i++;
		for (; i < n; i++)
			if (e < 1000000)
				e = 10 * e + (p[i] - '0');
		if (neg)
			e = -e;
	}
	e += exp10;
	if (e)
		j += (size_t)sprintf(b + j, "e%ld", e);
	b[j] = '\0';
	x = strtod(b, NULL);
	free(heap);
	return x;
}

/*
 * Scan a decimal number at p: [+-] digits [. digits] [e [+-] digits],
 * at least one digit in the mantissa.  Returns the number of bytes
 * scanned, 0 if there is no number there.
 */
static size_t scan_decimal(const char *p)
{
	const char *q = p;
	int digits = 0;

	if (*q == '+' || *q == '-')
		q++;
	while (is_digit((unsigned char)*q))
		q++, digits++;
	if (*q == '.') {
		q++;
		while (is_digit((unsigned char)*q))
			q++, digits++;
	}
	if (!digits)
		return 0;
	if (*q == 'e' || *q == 'E') {
		const char *e = q + 1;

		if (*e == '+' || *e == '-')
			e++;
		if (is_digit((unsigned char)*e)) {
			while (is_digit((unsigned char)*e))
				e++;
			q = e;
		}
	}
	return (size_t)(q - p);
}

size_t units_scan_decimal(const char *s, int exp10, double *x)
{
	size_t n = scan_decimal(s);

	/* "0x1p3": the "0" is not the number. */
	if (!n || ((s[n] == 'x' || s[n] == 'X') && s[n - 1] == '0' &&
		   n == (size_t)(1 + (*s == '+' || *s == '-'))))
		return 0;
	*x = decimal_to_double(s, n, exp10);
	if (*x == 0)
		*x = 0;  /* no negative zero */
	return n;
}

int units_decimal(const char *s, int exp10, double *x)
{
	size_t n;
	double v;

	while (is_blank((unsigned char)*s))
		s++;
	n = units_scan_decimal(s, exp10, &v);
	if (!n)
		return -1;
	s += n;
	while (is_blank((unsigned char)*s))
		s++;
	if (*s || !isfinite(v))
		return -1;
	*x = v;
	return 0;
}

/*
 * The suffix of a quantity of kind q in s: what follows the number (from
 * suf) and an optional blank; NULL with eb where q has no such suffix.
 */
static const struct suffix *suffix_of(enum quantity q, const char *s, const char *suf,
				      struct errbuf *eb)
{
	const char *noun = kinds[q].noun, *end;
	const struct suffix *sx;
	size_t slen;
	double v;

	while (is_blank((unsigned char)*suf))
		suf++;
	end = suf + strlen(suf);
	while (end > suf && is_blank((unsigned char)end[-1]))
		end--;
	slen = (size_t)(end - suf);
	for (sx = kinds[q].suffixes; sx->name; sx++)
		if (strlen(sx->name) == slen && !strncmp(sx->name, suf, slen))
			break;
	if (!sx->name) {
		if (q == Q_RATE && units_parse(Q_SIZE, s, &v, NULL) == 0) {
			errbuf_set(eb, "cannot parse rate '%s': unknown suffix '%.*s' "
				   "(a rate needs a unit per second, e.g. GB/s or Gbps)",
				   s, (int)slen, suf);
			return NULL;
		}
		errbuf_set(eb, "cannot parse %s '%s': unknown suffix '%.*s'",
			   noun, s, (int)slen, suf);
		return NULL;
	}
	return sx;
}

int units_parse(enum quantity q, const char *s, double *x, struct errbuf *eb)
{
	const char *noun, *p, *num;
	const struct suffix *sx;
	size_t n;
	double v;
	int neg;

	if ((unsigned)q >= NKINDS || !kinds[q].noun)
		return errbuf_set(eb, "cannot parse '%s': unknown kind of quantity", s);
	noun = kinds[q].noun;
	p = s;
	while (is_blank((unsigned char)*p))
		p++;
	if (!*p)
		return errbuf_set(eb, "cannot parse %s '%s': empty value", noun, s);
	num = p;
	neg = *p == '-';
	n = scan_decimal(num);
	if (!n) {
		const char *w = num + (*num == '+' || *num == '-');

		if (starts_with_word(w, "nan") || starts_with_word(w, "inf"))
			return errbuf_set(eb, "cannot parse %s '%s': not a finite number",
					  noun, s);
		return errbuf_set(eb, "cannot parse %s '%s': not a number", noun, s);
	}
	if ((num[n] == 'x' || num[n] == 'X') && n == (size_t)(1 + (*num == '+' || *num == '-')) &&
	    num[n - 1] == '0')
		return errbuf_set(eb, "cannot parse %s '%s': hexadecimal numbers are not accepted",
				  noun, s);

	sx = suffix_of(q, s, num + n, eb);
	if (!sx)
		return -1;

	v = decimal_to_double(num, n, sx->exp10);
	v *= sx->mult;
	if (!isfinite(v))
		return errbuf_set(eb, "cannot parse %s '%s': out of range", noun, s);
	if (neg && v < 0 && !kinds[q].may_be_negative)
		return errbuf_set(eb, "cannot parse %s '%s': must not be negative", noun, s);
	if (v == 0)
		v = 0;  /* "-0" is zero, not negative zero */
	if (kinds[q].integral) {
		if (v != floor(v))
			return errbuf_set(eb, "cannot parse %s '%s': not an integer", noun, s);
		if (v > COUNT_MAX)
			return errbuf_set(eb, "cannot parse %s '%s': out of range (above 2^53)",
					  noun, s);
	}
	*x = v;
	return 0;
}

int units_parse_time(const char *s, double *seconds, struct errbuf *eb)
{
	return units_parse(Q_TIME, s, seconds, eb);
}

int units_parse_size(const char *s, double *bytes, struct errbuf *eb)
{
	return units_parse(Q_SIZE, s, bytes, eb);
}

int units_parse_rate(const char *s, double *bytes_per_s, struct errbuf *eb)
{
	return units_parse(Q_RATE, s, bytes_per_s, eb);
}

int units_parse_number(const char *s, double *x, struct errbuf *eb)
{
	return units_parse(Q_NUMBER, s, x, eb);
}

int units_parse_fraction(const char *s, double *x, struct errbuf *eb)
{
	return units_parse(Q_FRACTION, s, x, eb);
}

void dlist_push(struct dlist *l, double x)
{
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 16;
		l->v = xrealloc(l->v, l->alloc * sizeof(*l->v));
	}
	l->v[l->n++] = x;
}

void dlist_release(struct dlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

/*
 * A range element: snap to STOP when within the tolerance (so that
 * 0.1:0.3:+0.1 ends on 0.3, not 0.30000000000000004), and make counts
 * exact integers (or refuse them).
 */
static int range_element(enum quantity q, const char *item, double x, double stop,
			 struct dlist *l, struct errbuf *eb)
{
	if (fabs(x - stop) <= RANGE_TOL * fabs(stop))
		x = stop;
	if (kinds[q].integral) {
		double r = nearbyint(x);

		if (fabs(x - r) > RANGE_TOL * fabs(x))
			return errbuf_set(eb, "cannot parse range '%s': element %.17g is not "
					  "an integer", item, x);
		x = r;
	}
	if (l->n >= UNITS_LIST_MAX)
		return errbuf_set(eb, "cannot parse list: more than %d elements",
				  UNITS_LIST_MAX);
	dlist_push(l, x);
	return 0;
}

/*
 * A range's step: xFACTOR (geometric, *geometric 1) or +STEP, into *by;
 * whole is the range as given, for the messages.
 */
static int range_step(enum quantity q, const char *step, double start, const char *whole,
		      double *by, int *geometric, struct errbuf *eb)
{
	if (*step == 'x' || *step == 'X' || *step == '*') {
		*geometric = 1;
		if (units_parse(Q_NUMBER, step + 1, by, eb) < 0)
			return -1;
		if (*by == 1)
			return errbuf_set(eb, "cannot parse range '%s': never ends "
					  "(factor must be above 1)", whole);
		if (*by < 1)
			return errbuf_set(eb, "cannot parse range '%s': runs backwards "
					  "(factor must be above 1)", whole);
		if (start <= 0)
			return errbuf_set(eb, "cannot parse range '%s': never ends "
					  "(a geometric range must start above 0)", whole);
	} else if (*step == '+' || *step == '-') {
		double mag;

		*geometric = 0;
		if (units_parse(q == Q_COUNT ? Q_COUNT : q, step + 1, &mag, eb) < 0)
			return -1;
		*by = *step == '-' ? -mag : mag;
		if (*by == 0)
			return errbuf_set(eb, "cannot parse range '%s': never ends "
					  "(step must be above 0)", whole);
		if (*by < 0)
			return errbuf_set(eb, "cannot parse range '%s': runs backwards "
					  "(step must be above 0)", whole);
	} else {
		return errbuf_set(eb, "cannot parse range '%s': step '%s' must start with "
				  "x (factor) or + (step)", whole, step);
	}
	return 0;
}

/* START:STOP:xFACTOR or START:STOP:+STEP, item NUL-terminated and trimmed. */
static int parse_range(enum quantity q, char *item, struct dlist *l, struct errbuf *eb)
{
	char *c1 = strchr(item, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	char *step, whole[256];
	double start, stop, by = 0, limit, est;
	int geometric = 0;
	size_t k;

	snprintf(whole, sizeof(whole), "%s", item);
	if (!c2 || strchr(c2 + 1, ':'))
		return errbuf_set(eb, "cannot parse range '%s': want START:STOP:xFACTOR "
				  "or START:STOP:+STEP", whole);
	*c1 = *c2 = '\0';
	step = c2 + 1;
	while (is_blank((unsigned char)*step))
		step++;
	if (units_parse(q, item, &start, eb) < 0 || units_parse(q, c1 + 1, &stop, eb) < 0)
		return -1;

	if (range_step(q, step, start, whole, &by, &geometric, eb) < 0)
		return -1;
	if (start > stop)
		return errbuf_set(eb, "cannot parse range '%s': empty range "
				  "(start is above stop)", whole);

	/* Refuse huge ranges before allocating anything. */
	/* log(stop) - log(start): stop / start may overflow (1e-300:1e300). */
	est = geometric ? floor((log(stop) - log(start)) / log(by)) + 1
			: floor((stop - start) / by) + 1;
	if (!(est <= (double)UNITS_LIST_MAX) || est > (double)(UNITS_LIST_MAX - l->n))
		return errbuf_set(eb, "cannot parse range '%s': more than %d elements",
				  whole, UNITS_LIST_MAX);

	limit = stop + RANGE_TOL * fabs(stop);
	for (k = 0;; k++) {
		/* From START each time: no rounding accumulates along the range. */
		double x = geometric ? start * pow(by, (double)k) : start + (double)k * by;

		/* by^k alone may overflow where start * by^k does not (1e-300:1e300). */
		if (geometric && isinf(x) && start < 1)
			x = start * pow(by, (double)(k / 2)) * pow(by, (double)(k - k / 2));
		if (x > limit)
			break;
		if (range_element(q, whole, x, stop, l, eb) < 0)
			return -1;
	}
	return 0;
}

int units_parse_list(enum quantity q, const char *s, struct dlist *list, struct errbuf *eb)
{
	const char *noun = (unsigned)q < NKINDS && kinds[q].noun ? kinds[q].noun : "value";
	const char *p = s;
	size_t index = 0;

	list->v = NULL;
	list->n = list->alloc = 0;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char buf[256];
		const char *b;

		index++;
		while (n && is_blank((unsigned char)*p))
			p++, n--;
		while (n && is_blank((unsigned char)p[n - 1]))
			n--;
		if (!n) {
			dlist_release(list);
			if (!comma && index == 1)
				return errbuf_set(eb, "cannot parse %s list '%s': empty value",
						  noun, s);
			return errbuf_set(eb, "cannot parse %s list '%s': element %zu is empty",
					  noun, s, index);
		}
		if (n >= sizeof(buf)) {
			dlist_release(list);
			return errbuf_set(eb, "cannot parse %s list: element %zu is too long",
					  noun, index);
		}
		memcpy(buf, p, n);
		buf[n] = '\0';
		b = buf;
		if (strchr(b, ':')) {
			if (parse_range(q, buf, list, eb) < 0) {
				dlist_release(list);
				return -1;
			}
		} else {
			double x;

			if (units_parse(q, b, &x, eb) < 0) {
				dlist_release(list);
				return -1;
			}
			if (list->n >= UNITS_LIST_MAX) {
				dlist_release(list);
				return errbuf_set(eb, "cannot parse %s list: more than %d elements",
						  noun, UNITS_LIST_MAX);
			}
			dlist_push(list, x);
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return 0;
}

/*
 * Replace the locale's decimal point in printf output with '.', in
 * case someone called setlocale(LC_NUMERIC, ...) with a comma locale.
 */
static char *fix_point(char *buf)
{
	const char *dp = localeconv()->decimal_point;
	size_t dlen;
	char *p;

	if (!dp || !*dp || !strcmp(dp, "."))
		return buf;
	dlen = strlen(dp);
	if ((p = strstr(buf, dp))) {
		*p = '.';
		memmove(p + 1, p + dlen, strlen(p + dlen) + 1);
	}
	return buf;
}

char *units_fmt_size(char *buf, size_t len, double bytes)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	static const char *const dec[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	double a = fabs(bytes), q;
	int n;

	if (!isfinite(bytes)) {
		snprintf(buf, len, "%s B", isnan(bytes) ? "nan" : bytes < 0 ? "-inf" : "inf");
		return buf;
	}
	if (a < 1024) {
		snprintf(buf, len, a == floor(a) ? "%.0f B" : "%.4g B", bytes);
		return fix_point(buf);
	}
	/*
	 * Binary when the value is a whole number of eighths of a binary
	 * unit (4 KiB, 1.5 GiB, 14 GiB): such sizes were almost always
	 * written in binary units; anything else is shown in decimal.
	 */
	for (n = 0, q = a; q >= 1024 && n < 6; n++)
		q /= 1024;
	if (q * 8 == floor(q * 8)) {
		snprintf(buf, len, "%s%g %s", bytes < 0 ? "-" : "", q, bin[n]);
		return fix_point(buf);
	}
	for (n = 0, q = a; q >= 999.95 && n < 6; n++)
		q /= 1000;
	snprintf(buf, len, "%s%.4g %s", bytes < 0 ? "-" : "", q, dec[n]);
	return fix_point(buf);
}

/*
 * x/unit with prec significant digits, keeping trailing zeros, as
 * "%.*f"; returns the value as printed, which may have rounded up to
 * 1000 (the caller then moves to the next unit).
 */
static double fmt_sig(char *buf, size_t len, double v, int prec)
{
	int d = 0, mag = 0;
	double r;

	if (v != 0) {
		mag = (int)floor(log10(fabs(v)));
		d = prec - 1 - mag;
		if (d < 0)
			d = 0;
	}
	snprintf(buf, len, "%.*f", d, v);
	fix_point(buf);
	r = fabs(decimal_to_double(buf, strlen(buf), 0));
	/* 9.996 rounds to "10.00": one decimal too many for prec digits. */
	if (d > 0 && r != 0 && (int)floor(log10(r)) > mag) {
		snprintf(buf, len, "%.*f", d - 1, v);
		fix_point(buf);
	}
	return r;
}

char *units_fmt_time(char *buf, size_t len, double seconds, int prec)
{
	static const struct suffix units[] = {
		{ "ns", 0, 1e-9 }, { "\xc2\xb5s", 0, 1e-6 }, { "ms", 0, 1e-3 }, { "s", 0, 1 }
	};
	double a = fabs(seconds);
	char num[64];
	int u;

	if (prec < 1)
		prec = 3;
	if (!isfinite(seconds)) {
		snprintf(buf, len, "%s s", isnan(seconds) ? "nan" : seconds < 0 ? "-inf" : "inf");
		return buf;
	}
	if (a == 0) {
		snprintf(buf, len, "0 s");
		return buf;
	}
	/*
	 * From 1e9 s (31 years) on, digits before the point say nothing and
	 * near 1e300 would not even fit: "1.88e+09 s".
	 */
	if (a >= 1e9) {
		snprintf(num, sizeof(num), "%.*e", prec - 1 > 20 ? 20 : prec - 1, seconds);
		fix_point(num);
		snprintf(buf, len, "%s s", num);
		return buf;
	}
	for (u = 0; u < 3 && a >= units[u + 1].mult; u++)
		;
	/* 999.96 µs at 3 digits would print as "1000 µs": use "1.00 ms". */
	if (fmt_sig(num, sizeof(num), seconds / units[u].mult, prec) >= 1000 && u < 3)
		u++, fmt_sig(num, sizeof(num), seconds / units[u].mult, prec);
	snprintf(buf, len, "%s %s", num, units[u].name);
	return buf;
}

char *units_fmt_rate(char *buf, size_t len, double bytes_per_s, int prec)
{
	static const char *const names[] = { "B/s", "kB/s", "MB/s", "GB/s", "TB/s", "PB/s" };
	double a = fabs(bytes_per_s), q, r;
	char num[64];
	int n;

	if (prec < 1)
		prec = 4;
	if (!isfinite(bytes_per_s)) {
		snprintf(buf, len, "%s B/s", isnan(bytes_per_s) ? "nan" :
			 bytes_per_s < 0 ? "-inf" : "inf");
		return buf;
	}
	for (n = 0, q = a; q >= 1000 && n < 5; n++)
		q /= 1000;
	snprintf(num, sizeof(num), "%.*g", prec, q);
	fix_point(num);
	r = decimal_to_double(num, strlen(num), 0);
	if (r >= 1000 && n < 5) {
		n++;
		snprintf(num, sizeof(num), "%.*g", prec, q / 1000);
		fix_point(num);
	}
	snprintf(buf, len, "%s%s %s", bytes_per_s < 0 ? "-" : "", num, names[n]);
	return buf;
}
