/*
 * Units: every suffix, every error, lists and ranges, human formatting.
 * The expected values are worked out by hand (1 GiB = 1024^3 = 1073741824,
 * 400 Gbit/s = 400e9 / 8 = 50e9 B/s, ...), not taken from the program.
 */
#include <stdio.h>

#pragma GCC diagnostic ignored "-Wmissing-prototypes"  /* test_* are found by name */

#include "harness.h"
#include <stdlib.h>

#include "units.h"

#define MU "\xc2\xb5"        /* U+00B5 MICRO SIGN */
#define GREEK_MU "\xce\xbc"  /* U+03BC GREEK SMALL LETTER MU */

struct parse_case {
	enum quantity q;
	const char *in;
	double want;             /* when err is NULL */
	const char *err;         /* the exact message, or NULL for success */
};

static const struct parse_case cases[] = {
	/* time */
	{ Q_TIME, "5e-6", 5e-6, NULL },
	{ Q_TIME, "5us", 5e-6, NULL },
	{ Q_TIME, "5" MU "s", 5e-6, NULL },
	{ Q_TIME, "5" GREEK_MU "s", 5e-6, NULL },
	{ Q_TIME, "0.005ms", 5e-6, NULL },
	{ Q_TIME, "5 us", 5e-6, NULL },
	{ Q_TIME, "  5us  ", 5e-6, NULL },
	{ Q_TIME, "5000ns", 5e-6, NULL },
	{ Q_TIME, "300ms", 0.3, NULL },
	{ Q_TIME, "1.5s", 1.5, NULL },
	{ Q_TIME, "2", 2, NULL },
	{ Q_TIME, "+2", 2, NULL },
	{ Q_TIME, "0", 0, NULL },
	{ Q_TIME, "-0", 0, NULL },
	{ Q_TIME, ".5", 0.5, NULL },
	{ Q_TIME, "5.", 5, NULL },
	{ Q_TIME, "1E-3", 1e-3, NULL },
	{ Q_TIME, "-5e-6", 0, "cannot parse time '-5e-6': must not be negative" },
	{ Q_TIME, "-1ms", 0, "cannot parse time '-1ms': must not be negative" },
	{ Q_TIME, "abc", 0, "cannot parse time 'abc': not a number" },
	{ Q_TIME, "us", 0, "cannot parse time 'us': not a number" },
	{ Q_TIME, ".", 0, "cannot parse time '.': not a number" },
	{ Q_TIME, "nan", 0, "cannot parse time 'nan': not a finite number" },
	{ Q_TIME, "NaN", 0, "cannot parse time 'NaN': not a finite number" },
	{ Q_TIME, "inf", 0, "cannot parse time 'inf': not a finite number" },
	{ Q_TIME, "-Infinity", 0, "cannot parse time '-Infinity': not a finite number" },
	{ Q_TIME, "+INF", 0, "cannot parse time '+INF': not a finite number" },
	{ Q_TIME, "1e400", 0, "cannot parse time '1e400': out of range" },
	{ Q_TIME, "0x10", 0, "cannot parse time '0x10': hexadecimal numbers are not accepted" },
	{ Q_TIME, "0x1p-3", 0, "cannot parse time '0x1p-3': hexadecimal numbers are not accepted" },
	{ Q_TIME, "", 0, "cannot parse time '': empty value" },
	{ Q_TIME, "   ", 0, "cannot parse time '   ': empty value" },
	{ Q_TIME, "5usec", 0, "cannot parse time '5usec': unknown suffix 'usec'" },
	{ Q_TIME, "5 us x", 0, "cannot parse time '5 us x': unknown suffix 'us x'" },
	{ Q_TIME, "1e", 0, "cannot parse time '1e': unknown suffix 'e'" },
	{ Q_TIME, "5,5us", 0, "cannot parse time '5,5us': unknown suffix ',5us'" },
	{ Q_TIME, "5 5", 0, "cannot parse time '5 5': unknown suffix '5'" },

	/* size: single letters and iB binary, xB decimal */
	{ Q_SIZE, "100", 100, NULL },
	{ Q_SIZE, "100B", 100, NULL },
	{ Q_SIZE, "4K", 4096, NULL },
	{ Q_SIZE, "4KiB", 4096, NULL },
	{ Q_SIZE, "4KB", 4000, NULL },
	{ Q_SIZE, "4kB", 4000, NULL },
	{ Q_SIZE, "4k", 4096, NULL },
	{ Q_SIZE, "1M", 1048576, NULL },
	{ Q_SIZE, "1m", 1048576, NULL },
	{ Q_SIZE, "1MiB", 1048576, NULL },
	{ Q_SIZE, "1MB", 1e6, NULL },
	{ Q_SIZE, "1G", 1073741824, NULL },
	{ Q_SIZE, "1g", 1073741824, NULL },
	{ Q_SIZE, "1GiB", 1073741824, NULL },
	{ Q_SIZE, "1GB", 1e9, NULL },
	{ Q_SIZE, "8G", 8589934592.0, NULL },
	{ Q_SIZE, "14G", 15032385536.0, NULL },
	{ Q_SIZE, "1T", 1099511627776.0, NULL },
	{ Q_SIZE, "1t", 1099511627776.0, NULL },
	{ Q_SIZE, "1TiB", 1099511627776.0, NULL },
	{ Q_SIZE, "1TB", 1e12, NULL },
	{ Q_SIZE, "1P", 1125899906842624.0, NULL },
	{ Q_SIZE, "1PiB", 1125899906842624.0, NULL },
	{ Q_SIZE, "1PB", 1e15, NULL },
	{ Q_SIZE, "1.5K", 1536, NULL },
	{ Q_SIZE, "25 MB", 25e6, NULL },
	{ Q_SIZE, "4X", 0, "cannot parse size '4X': unknown suffix 'X'" },
	{ Q_SIZE, "-4", 0, "cannot parse size '-4': must not be negative" },
	{ Q_SIZE, "4Mb", 0, "cannot parse size '4Mb': unknown suffix 'Mb'" },
	{ Q_SIZE, "4 KIB", 0, "cannot parse size '4 KIB': unknown suffix 'KIB'" },
	{ Q_SIZE, "1e308P", 0, "cannot parse size '1e308P': out of range" },
	{ Q_SIZE, "1GB/s", 0, "cannot parse size '1GB/s': unknown suffix 'GB/s'" },

	/* rate: bytes decimal, iB binary, bits divided by 8 */
	{ Q_RATE, "200e9", 200e9, NULL },
	{ Q_RATE, "200GB/s", 200e9, NULL },
	{ Q_RATE, "200 GB/s", 200e9, NULL },
	{ Q_RATE, "1.6Tb/s", 200e9, NULL },
	{ Q_RATE, "400Gbps", 50e9, NULL },
	{ Q_RATE, "400Gb/s", 50e9, NULL },
	{ Q_RATE, "400Gbit/s", 50e9, NULL },
	{ Q_RATE, "100Mbps", 12.5e6, NULL },
	{ Q_RATE, "100Mb/s", 12.5e6, NULL },
	{ Q_RATE, "100Mbit/s", 12.5e6, NULL },
	{ Q_RATE, "8kb/s", 1000, NULL },
	{ Q_RATE, "8Kb/s", 1000, NULL },
	{ Q_RATE, "8kbps", 1000, NULL },
	{ Q_RATE, "8kbit/s", 1000, NULL },
	{ Q_RATE, "1Tbps", 125e9, NULL },
	{ Q_RATE, "1Tbit/s", 125e9, NULL },
	{ Q_RATE, "8b/s", 1, NULL },
	{ Q_RATE, "8bps", 1, NULL },
	{ Q_RATE, "1B/s", 1, NULL },
	{ Q_RATE, "1kB/s", 1e3, NULL },
	{ Q_RATE, "1KB/s", 1e3, NULL },
	{ Q_RATE, "1MB/s", 1e6, NULL },
	{ Q_RATE, "1TB/s", 1e12, NULL },
	{ Q_RATE, "1PB/s", 1e15, NULL },
	{ Q_RATE, "1KiB/s", 1024, NULL },
	{ Q_RATE, "1MiB/s", 1048576, NULL },
	{ Q_RATE, "1GiB/s", 1073741824, NULL },
	{ Q_RATE, "1TiB/s", 1099511627776.0, NULL },
	{ Q_RATE, "25GB/s", 25e9, NULL },
	{ Q_RATE, "200GB/z", 0, "cannot parse rate '200GB/z': unknown suffix 'GB/z'" },
	{ Q_RATE, "25 GB/z", 0, "cannot parse rate '25 GB/z': unknown suffix 'GB/z'" },
	{ Q_RATE, "200G", 0, "cannot parse rate '200G': unknown suffix 'G' "
	  "(a rate needs a unit per second, e.g. GB/s or Gbps)" },
	{ Q_RATE, "-1GB/s", 0, "cannot parse rate '-1GB/s': must not be negative" },
	{ Q_RATE, "inf", 0, "cannot parse rate 'inf': not a finite number" },

	/* count */
	{ Q_COUNT, "4", 4, NULL },
	{ Q_COUNT, "0", 0, NULL },
	{ Q_COUNT, "4K", 4096, NULL },
	{ Q_COUNT, "1M", 1048576, NULL },
	{ Q_COUNT, "1G", 1073741824, NULL },
	{ Q_COUNT, "1e3", 1000, NULL },
	{ Q_COUNT, "2.5e1", 25, NULL },
	{ Q_COUNT, "1.5", 0, "cannot parse count '1.5': not an integer" },
	{ Q_COUNT, "-4", 0, "cannot parse count '-4': must not be negative" },
	{ Q_COUNT, "1e20", 0, "cannot parse count '1e20': out of range (above 2^53)" },
	{ Q_COUNT, "4KB", 0, "cannot parse count '4KB': unknown suffix 'KB'" },
	{ Q_COUNT, "four", 0, "cannot parse count 'four': not a number" },

	/* number and fraction */
	{ Q_NUMBER, "-2.5", -2.5, NULL },
	{ Q_NUMBER, "1e-3", 1e-3, NULL },
	{ Q_NUMBER, "+3", 3, NULL },
	{ Q_NUMBER, "5%", 0, "cannot parse number '5%': unknown suffix '%'" },
	{ Q_NUMBER, "-inf", 0, "cannot parse number '-inf': not a finite number" },
	{ Q_NUMBER, "1e-400", 0, NULL },  /* underflow reads as 0 */
	{ Q_FRACTION, "10%", 0.1, NULL },
	{ Q_FRACTION, "50 %", 0.5, NULL },
	{ Q_FRACTION, "0.1", 0.1, NULL },
	{ Q_FRACTION, "-10%", -0.1, NULL },
	{ Q_FRACTION, "10 percent", 0, "cannot parse fraction '10 percent': unknown suffix 'percent'" },
};

void test_units_parse_table(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct parse_case *c = &cases[i];
		struct errbuf eb = { "" };
		double x = -12345;
		int rc = units_parse(c->q, c->in, &x, &eb);

		if (!c->err) {
			if (rc != 0)
				fprintf(stderr, "  input '%s': %s\n", c->in, eb.msg);
			INT_EQ(rc, 0);
			CHECK(x == c->want);  /* exact: one rounding, as strtod of the same value */
			if (x != c->want)
				fprintf(stderr, "  input '%s': %.17g\n", c->in, x);
		} else {
			INT_EQ(rc, -1);
			STR_EQ(eb.msg, c->err);
			DBL_NEAR(x, -12345, 0);  /* untouched on error */
		}
	}
}

void test_units_parse_wrappers(void)
{
	struct errbuf eb;
	double x;

	INT_EQ(units_parse_time("5us", &x, &eb), 0);
	DBL_NEAR(x, 5e-6, 1e-15);
	INT_EQ(units_parse_size("4K", &x, &eb), 0);
	DBL_NEAR(x, 4096, 0);
	INT_EQ(units_parse_rate("400Gbps", &x, &eb), 0);
	DBL_NEAR(x, 50e9, 0);
	INT_EQ(units_parse_number("-1", &x, &eb), 0);
	DBL_NEAR(x, -1, 0);
	INT_EQ(units_parse_fraction("10%", &x, &eb), 0);
	DBL_NEAR(x, 0.1, 1e-15);
	/* A NULL error buffer is allowed. */
	INT_EQ(units_parse_size("4X", &x, NULL), -1);
}

/* -0 must not sneak through as a negative zero. */
void test_units_negative_zero(void)
{
	struct errbuf eb;
	double x;

	INT_EQ(units_parse(Q_SIZE, "-0K", &x, &eb), 0);
	CHECK(x == 0 && !signbit(x));
}

static int parse_list(enum quantity q, const char *s, struct dlist *l, struct errbuf *eb)
{
	eb->msg[0] = '\0';
	return units_parse_list(q, s, l, eb);
}

void test_units_list_plain(void)
{
	struct dlist l = { 0 };
	struct errbuf eb;

	INT_EQ(parse_list(Q_COUNT, "4,8,16", &l, &eb), 0);
	INT_EQ(l.n, 3);
	DBL_NEAR(l.v[0], 4, 0);
	DBL_NEAR(l.v[1], 8, 0);
	DBL_NEAR(l.v[2], 16, 0);
	dlist_release(&l);
	CHECK(l.v == NULL && l.n == 0);

	INT_EQ(parse_list(Q_SIZE, "4K", &l, &eb), 0);
	INT_EQ(l.n, 1);
	DBL_NEAR(l.v[0], 4096, 0);
	dlist_release(&l);

	/* blanks around elements, a mix of values and ranges */
	INT_EQ(parse_list(Q_SIZE, " 4 , 8:32:x2 ,1K", &l, &eb), 0);
	INT_EQ(l.n, 5);
	if (l.n == 5) {
		DBL_NEAR(l.v[0], 4, 0);
		DBL_NEAR(l.v[1], 8, 0);
		DBL_NEAR(l.v[2], 16, 0);
		DBL_NEAR(l.v[3], 32, 0);
		DBL_NEAR(l.v[4], 1024, 0);
	}
	dlist_release(&l);
}

void test_units_list_geometric(void)
{
	struct dlist l = { 0 };
	struct errbuf eb;
	size_t k;

	/* 8 B .. 8 GiB doubling: 8 * 2^k for k = 0..30 (8 GiB = 8 * 2^30). */
	INT_EQ(parse_list(Q_SIZE, "8:8G:x2", &l, &eb), 0);
	INT_EQ(l.n, 31);
	for (k = 0; k < l.n; k++)
		DBL_NEAR(l.v[k], 8 * ldexp(1, (int)k), 0);
	DBL_NEAR(l.v[30], 8589934592.0, 0);
	dlist_release(&l);

	/* powers of ten hit STOP exactly */
	INT_EQ(parse_list(Q_NUMBER, "1:1000:x10", &l, &eb), 0);
	INT_EQ(l.n, 4);
	DBL_NEAR(l.v[3], 1000, 0);
	dlist_release(&l);

	/* STOP not hit: the last element is below it */
	INT_EQ(parse_list(Q_COUNT, "2:100:x3", &l, &eb), 0);
	INT_EQ(l.n, 4);  /* 2 6 18 54 */
	DBL_NEAR(l.v[3], 54, 0);
	dlist_release(&l);

	/* START == STOP is one element */
	INT_EQ(parse_list(Q_SIZE, "1G:1G:x2", &l, &eb), 0);
	INT_EQ(l.n, 1);
	dlist_release(&l);

	/*
	 * 1e-6 * 10^k is not exact in binary, yet 1e-6:1e-3:x10 ends on
	 * 1e-3: the element within 1e-9 of STOP is STOP.
	 */
	INT_EQ(parse_list(Q_TIME, "1us:1ms:x10", &l, &eb), 0);
	INT_EQ(l.n, 4);
	if (l.n == 4)
		CHECK(l.v[3] == 1e-3);
	dlist_release(&l);
}

void test_units_list_arithmetic(void)
{
	struct dlist l = { 0 };
	struct errbuf eb;
	size_t k;

	INT_EQ(parse_list(Q_COUNT, "2:1024:+2", &l, &eb), 0);
	INT_EQ(l.n, 512);
	for (k = 0; k < l.n; k++)
		DBL_NEAR(l.v[k], 2 + 2.0 * (double)k, 0);
	dlist_release(&l);

	/* 0.1 + 2 * 0.1 is 0.30000000000000004: snapped to STOP */
	INT_EQ(parse_list(Q_NUMBER, "0.1:0.3:+0.1", &l, &eb), 0);
	INT_EQ(l.n, 3);
	if (l.n == 3)
		CHECK(l.v[2] == 0.3);
	dlist_release(&l);

	/* steps carry units */
	INT_EQ(parse_list(Q_TIME, "1us:10us:+1us", &l, &eb), 0);
	INT_EQ(l.n, 10);
	dlist_release(&l);
	INT_EQ(parse_list(Q_SIZE, "1K:4K:+1K", &l, &eb), 0);
	INT_EQ(l.n, 4);
	DBL_NEAR(l.v[3], 4096, 0);
	dlist_release(&l);

	/* negative numbers are fine for Q_NUMBER */
	INT_EQ(parse_list(Q_NUMBER, "-1:1:+0.5", &l, &eb), 0);
	INT_EQ(l.n, 5);
	dlist_release(&l);
}

struct list_error {
	enum quantity q;
	const char *in;
	const char *err;
};

static const struct list_error list_errors[] = {
	{ Q_SIZE, "1:1G:x1", "cannot parse range '1:1G:x1': never ends (factor must be above 1)" },
	{ Q_SIZE, "1:1G:+0", "cannot parse range '1:1G:+0': never ends (step must be above 0)" },
	{ Q_SIZE, "8:2:x2", "cannot parse range '8:2:x2': empty range (start is above stop)" },
	{ Q_SIZE, "1:8:x0.5", "cannot parse range '1:8:x0.5': runs backwards (factor must be above 1)" },
	{ Q_SIZE, "1:8:-1", "cannot parse range '1:8:-1': runs backwards (step must be above 0)" },
	{ Q_SIZE, "0:8:x2", "cannot parse range '0:8:x2': never ends (a geometric range must start above 0)" },
	{ Q_SIZE, "1:8:2", "cannot parse range '1:8:2': step '2' must start with x (factor) or + (step)" },
	{ Q_SIZE, "1:8", "cannot parse range '1:8': want START:STOP:xFACTOR or START:STOP:+STEP" },
	{ Q_SIZE, "1:8:x2:4", "cannot parse range '1:8:x2:4': want START:STOP:xFACTOR or START:STOP:+STEP" },
	{ Q_SIZE, "1:8X:x2", "cannot parse size '8X': unknown suffix 'X'" },
	{ Q_SIZE, "1:8:xtwo", "cannot parse number 'two': not a number" },
	{ Q_SIZE, "", "cannot parse size list '': empty value" },
	{ Q_SIZE, "4,,8", "cannot parse size list '4,,8': element 2 is empty" },
	{ Q_SIZE, "4,8,", "cannot parse size list '4,8,': element 3 is empty" },
	{ Q_SIZE, "4,4X", "cannot parse size '4X': unknown suffix 'X'" },
	{ Q_COUNT, "4,1.5", "cannot parse count '1.5': not an integer" },
	{ Q_COUNT, "2:100:x1.5", "cannot parse range '2:100:x1.5': element 4.5 is not an integer" },
	{ Q_NUMBER, "1:1e12:+1", "cannot parse range '1:1e12:+1': more than 10000000 elements" },
	{ Q_COUNT, "7,1:1e7:+1", "cannot parse range '1:1e7:+1': more than 10000000 elements" },
	{ Q_SIZE, "abc", "cannot parse size 'abc': not a number" },
	{ Q_SIZE, "nan", "cannot parse size 'nan': not a finite number" },
};

void test_units_list_errors(void)
{
	size_t i;

	for (i = 0; i < sizeof(list_errors) / sizeof(list_errors[0]); i++) {
		struct dlist l = { 0 };
		struct errbuf eb;

		INT_EQ(parse_list(list_errors[i].q, list_errors[i].in, &l, &eb), -1);
		STR_EQ(eb.msg, list_errors[i].err);
		CHECK(l.v == NULL && l.n == 0);  /* nothing to free after an error */
	}
}

/* The longest list there may be, UNITS_LIST_MAX elements, is taken whole. */
void test_units_list_longest(void)
{
	struct dlist l = { 0 };
	struct errbuf eb;

	INT_EQ(parse_list(Q_COUNT, "1:1e7:+1", &l, &eb), 0);
	INT_EQ(l.n, UNITS_LIST_MAX);
	if (l.n == UNITS_LIST_MAX)
		CHECK(l.v[0] == 1 && l.v[l.n - 1] == 1e7);
	dlist_release(&l);
}

/* Counts in a range that land within 1e-9 of an integer are that integer. */
void test_units_list_count_rounding(void)
{
	struct dlist l = { 0 };
	struct errbuf eb;

	/* 10 * 1.1 = 11.000000000000002 in binary */
	INT_EQ(parse_list(Q_COUNT, "10:11:x1.1", &l, &eb), 0);
	INT_EQ(l.n, 2);
	if (l.n == 2)
		CHECK(l.v[1] == 11);
	dlist_release(&l);
}

void test_units_fmt_time(void)
{
	char b[64];

	STR_EQ(units_fmt_time(b, sizeof(b), 30e-6, 3), "30.0 " MU "s");
	STR_EQ(units_fmt_time(b, sizeof(b), 20.1e-6, 3), "20.1 " MU "s");
	STR_EQ(units_fmt_time(b, sizeof(b), 5e-6, 3), "5.00 " MU "s");
	STR_EQ(units_fmt_time(b, sizeof(b), 64484.5e-6, 3), "64.5 ms");
	STR_EQ(units_fmt_time(b, sizeof(b), 131.6e-3, 4), "131.6 ms");
	STR_EQ(units_fmt_time(b, sizeof(b), 0.3, 3), "300 ms");
	STR_EQ(units_fmt_time(b, sizeof(b), 2, 3), "2.00 s");
	STR_EQ(units_fmt_time(b, sizeof(b), 7200, 3), "7200 s");
	STR_EQ(units_fmt_time(b, sizeof(b), 1.5e-9, 3), "1.50 ns");
	STR_EQ(units_fmt_time(b, sizeof(b), 0.5e-9, 3), "0.500 ns");
	STR_EQ(units_fmt_time(b, sizeof(b), 0, 3), "0 s");
	/* rounding up across a unit or a decade */
	STR_EQ(units_fmt_time(b, sizeof(b), 999.96e-6, 3), "1.00 ms");
	STR_EQ(units_fmt_time(b, sizeof(b), 9.996e-6, 3), "10.0 " MU "s");
	STR_EQ(units_fmt_time(b, sizeof(b), 123.456e-3, 2), "123 ms");
	STR_EQ(units_fmt_time(b, sizeof(b), -5e-6, 3), "-5.00 " MU "s");
}

void test_units_fmt_size(void)
{
	char b[64];

	STR_EQ(units_fmt_size(b, sizeof(b), 0), "0 B");
	STR_EQ(units_fmt_size(b, sizeof(b), 100), "100 B");
	STR_EQ(units_fmt_size(b, sizeof(b), 1000), "1000 B");
	STR_EQ(units_fmt_size(b, sizeof(b), 4096), "4 KiB");
	STR_EQ(units_fmt_size(b, sizeof(b), 4194304), "4 MiB");
	STR_EQ(units_fmt_size(b, sizeof(b), 1073741824), "1 GiB");
	STR_EQ(units_fmt_size(b, sizeof(b), 1610612736), "1.5 GiB");
	STR_EQ(units_fmt_size(b, sizeof(b), 15032385536.0), "14 GiB");
	STR_EQ(units_fmt_size(b, sizeof(b), 25e6), "25 MB");
	STR_EQ(units_fmt_size(b, sizeof(b), 1e6), "1 MB");
	STR_EQ(units_fmt_size(b, sizeof(b), 1.5e9), "1.5 GB");
	STR_EQ(units_fmt_size(b, sizeof(b), 123456789), "123.5 MB");
}

void test_units_fmt_rate(void)
{
	char b[64];

	STR_EQ(units_fmt_rate(b, sizeof(b), 200e9, 4), "200 GB/s");
	STR_EQ(units_fmt_rate(b, sizeof(b), 50e9, 4), "50 GB/s");
	STR_EQ(units_fmt_rate(b, sizeof(b), 12.5e9, 4), "12.5 GB/s");
	STR_EQ(units_fmt_rate(b, sizeof(b), 1.6e12, 4), "1.6 TB/s");
	STR_EQ(units_fmt_rate(b, sizeof(b), 23.4567e9, 4), "23.46 GB/s");
	STR_EQ(units_fmt_rate(b, sizeof(b), 999.99e9, 4), "1 TB/s");
	STR_EQ(units_fmt_rate(b, sizeof(b), 500, 4), "500 B/s");
}

/* 1e-300:1e300:x10 has 601 elements; its length estimate must not overflow. */
void test_units_list_wide_range(void)
{
	struct dlist l = { 0 };
	struct errbuf eb;

	INT_EQ(units_parse_list(Q_SIZE, "1e-300:1e300:x10", &l, &eb), 0);
	INT_EQ((long)l.n, 601);
	dlist_release(&l);
}

/* One reader for every number from outside: decimal only. */
void test_units_decimal(void)
{
	double x = -1;

	INT_EQ(units_decimal("18.41", -6, &x), 0);
	DBL_NEAR(x, 18.41e-6, 0);
	INT_EQ(units_decimal(" 1e3 ", 0, &x), 0);
	DBL_NEAR(x, 1000, 0);
	INT_EQ(units_decimal("0x10", 0, &x), -1);
	INT_EQ(units_decimal("0x1p3", 0, &x), -1);
	INT_EQ(units_decimal("nan", 0, &x), -1);
	INT_EQ(units_decimal("inf", 0, &x), -1);
	INT_EQ(units_decimal("1e999", 0, &x), -1);
	INT_EQ(units_decimal("", 0, &x), -1);
	INT_EQ(units_decimal("12abc", 0, &x), -1);
}

/* Times too long for digits before the point print in exponent form. */
void test_units_fmt_huge_time(void)
{
	char buf[64];

	STR_EQ(units_fmt_time(buf, sizeof(buf), 1.75e300, 4), "1.750e+300 s");
	STR_EQ(units_fmt_time(buf, sizeof(buf), 1e9, 3), "1.00e+09 s");
	STR_EQ(units_fmt_time(buf, sizeof(buf), 30e-6, 3), "30.0 \xc2\xb5s");
}

/* What reaches a terminal: escapes for control bytes, UTF-8 kept. */
void test_text_visible(void)
{
	char *v;

	v = text_visible("a\033[2J\a\n\t\xc2\xb5\xc2\x9b\xff", 0);
	STR_EQ(v, "a\\x1b[2J\\x07\\n\\t\xc2\xb5\\xc2\\x9b\\xff");
	free(v);
	v = text_visible("tab\there", 1);
	STR_EQ(v, "tab\there");
	free(v);
	INT_EQ((long)text_visible_len("ok\033", 0), 2);
}
