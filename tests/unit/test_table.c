/*
 * The output writers: the same rows as a human table, CSV and JSON,
 * compared with text written out by hand; number formatting; escaping;
 * the atomic replacement of output files.
 */
#define _DEFAULT_SOURCE  /* mkdtemp */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"  /* test_* are found by name */
#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "harness.h"
#include "fmt.h"
#include "table.h"
#include "units.h"

#define MU "\xc2\xb5"

static char dir[64];
static void remove_scratch(void);

/* A directory of our own, removed when run-unit exits. */
static const char *scratch(void)
{
	if (!dir[0]) {
		strcpy(dir, "/tmp/commtime-unit-XXXXXX");
		if (!mkdtemp(dir))
			perror("mkdtemp");
		atexit(remove_scratch);
	}
	return dir;
}

/* Number of entries in the scratch directory (besides . and ..). */
static int entries(void)
{
	DIR *d = opendir(scratch());
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void clean(void)
{
	DIR *d = opendir(scratch());
	struct dirent *e;
	char p[512];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	closedir(d);
}

static void remove_scratch(void)
{
	clean();
	rmdir(dir);
}

static char *slurp(const char *path)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void spit(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(s, f);
		fclose(f);
	}
}

/* ---- one set of rows, three formats ---- */

static const struct column cols[] = {
	{ "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	{ "size_B", "size", COL_INT, H_SIZE, 0, NULL, 0, 7, COL_ALL },
	{ "ring_s", "ring", COL_NUM, H_FIXED, 1e-6, MU "s", 1, 12, COL_ALL },
	{ "share", "share", COL_NUM, H_PERCENT, 0, NULL, 1, 0, COL_DATA_ONLY },
	{ "faster", "faster", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "pretty", "note", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_TABLE_ONLY },
};
static const struct table tab = { "allreduce", "one all-reduce", cols, 6, 0 };

static const struct column cols2[] = {
	{ "fraction", "share", COL_NUM, H_PERCENT, 0, NULL, 1, 0, COL_ALL },
	{ "x", "x", COL_NUM, H_PLAIN, 0, NULL, 3, 0, COL_ALL },
};
static const struct table tab2 = { "extra", NULL, cols2, 2, 1 };
static const struct table tab3 = { "extra", NULL, cols2, 2, 0 };

static void fill(struct out *o)
{
	struct cell r1[6] = { { NULL, 4 }, { NULL, 4096 }, { NULL, 30e-6 },
			      { NULL, 0.25 }, { "tree", 0 }, { "x", 0 } };
	struct cell r2[6] = { { NULL, 64 }, { NULL, 1073741824 }, { NULL, 11199.6e-6 },
			      { NULL, 0.5 }, { "ring", 0 }, { NULL, NAN } };
	struct cell r3[6] = { { NULL, 8 }, { NULL, NAN }, { NULL, NAN },
			      { NULL, NAN }, { "a,b", 0 }, { "", 0 } };
	struct cell s1[2] = { { NULL, 0.305 }, { NULL, 1.0 / 3 } };

	out_input(o, "alpha_s", "alpha", 5e-6, H_TIME, 3, "default");
	out_input(o, "beta_Bps", "beta", 200e9, H_RATE, 4, NULL);
	out_input_str(o, "preset", "preset", "nvlink");
	out_table_begin(o, &tab);
	out_row(o, r1);
	out_row(o, r2);
	out_row(o, r3);
	out_table_end(o);
	out_text(o, "%s", "");
	out_text(o, "ring wins above %d KiB", 512);
	out_table_begin(o, &tab2);
	out_row(o, s1);
	out_table_end(o);
}

static char *render(enum out_format fmt, void (*fn)(struct out *))
{
	char path[128];
	struct errbuf eb = { "" };
	struct out *o;

	clean();
	snprintf(path, sizeof(path), "%s/out", scratch());
	o = out_open(fmt, path, &eb);
	CHECK(o != NULL);
	if (!o)
		return NULL;
	CHECK(out_get_format(o) == fmt);
	fn(o);
	INT_EQ(out_close(o, &eb), 0);
	INT_EQ(entries(), 1);
	return slurp(path);
}

void test_table_human(void)
{
	/*
	 * Widths: ranks 5, size 7, ring 12, faster 6 (its label), note 4;
	 * "30.0 µs" is 7 columns wide although 8 bytes long.
	 */
	STR_EQ(render(FMT_TABLE, fill),
	       "alpha: 5.00 " MU "s (default)\n"
	       "beta: 200 GB/s\n"
	       "preset: nvlink\n"
	       "\n"
	       "one all-reduce\n"
	       "ranks     size          ring  faster  note\n"
	       "    4    4 KiB       30.0 " MU "s  tree    x\n"
	       "   64    1 GiB    11199.6 " MU "s  ring\n"
	       "    8                         a,b\n"
	       "\n"
	       "ring wins above 512 KiB\n"
	       "\n"
	       "share  x\n"
	       "30.5 %  0.333\n");
}

void test_table_csv(void)
{
	/* Only the first table that is not secondary; no inputs, no text. */
	STR_EQ(render(FMT_CSV, fill),
	       "ranks,size_B,ring_s,share,faster\n"
	       "4,4096,3e-05,0.25,tree\n"
	       "64,1073741824,0.0111996,0.5,ring\n"
	       "8,,,,\"a,b\"\n");
}

void test_table_json(void)
{
	STR_EQ(render(FMT_JSON, fill),
	       "{\n"
	       "  \"inputs\": {\n"
	       "    \"alpha_s\": 5e-06,\n"
	       "    \"beta_Bps\": 200000000000,\n"
	       "    \"preset\": \"nvlink\"\n"
	       "  },\n"
	       "  \"allreduce\": [\n"
	       "    {\"ranks\": 4, \"size_B\": 4096, \"ring_s\": 3e-05, "
	       "\"share\": 0.25, \"faster\": \"tree\"},\n"
	       "    {\"ranks\": 64, \"size_B\": 1073741824, \"ring_s\": 0.0111996, "
	       "\"share\": 0.5, \"faster\": \"ring\"},\n"
	       "    {\"ranks\": 8, \"size_B\": null, \"ring_s\": null, \"share\": null, "
	       "\"faster\": \"a,b\"}\n"
	       "  ],\n"
	       "  \"extra\": [\n"
	       "    {\"fraction\": 0.305, \"x\": 0.3333333333333333}\n"
	       "  ]\n"
	       "}\n");
}

static void fill_empty_table(struct out *o)
{
	out_table_begin(o, &tab2);
	out_table_end(o);
}

static void fill_nothing(struct out *o)
{
	out_text(o, "only text");
}

void test_table_json_empty(void)
{
	STR_EQ(render(FMT_JSON, fill_empty_table), "{\n  \"extra\": []\n}\n");
	STR_EQ(render(FMT_JSON, fill_nothing), "{}\n");
	STR_EQ(render(FMT_CSV, fill_nothing), "");
	STR_EQ(render(FMT_TABLE, fill_empty_table), "share  x\n");
}

static void fill_strings(struct out *o)
{
	static const struct column c[] = {
		{ "s", "s", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	};
	static const struct table t = { "t", NULL, c, 1, 0 };
	static const char *const s[] = {
		"plain", "a,b", "say \"hi\"", " lead", "trail ", "two\nlines", "cr\r",
		"back\\slash", "tab\there", "\x01\x1f", MU "s", "bad \xff utf8",
		"cut \xc2", "surrogate \xed\xa0\x80",
	};
	size_t i;

	out_table_begin(o, &t);
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		struct cell cell = { s[i], 0 };

		out_row(o, &cell);
	}
}

void test_table_csv_quoting(void)
{
	STR_EQ(render(FMT_CSV, fill_strings),
	       "s\n"
	       "plain\n"
	       "\"a,b\"\n"
	       "\"say \"\"hi\"\"\"\n"
	       "\" lead\"\n"
	       "\"trail \"\n"
	       "\"two\nlines\"\n"
	       "\"cr\r\"\n"
	       "back\\slash\n"
	       "tab\there\n"
	       "\x01\x1f\n"
	       MU "s\n"
	       "bad \xff utf8\n"
	       "cut \xc2\n"
	       "surrogate \xed\xa0\x80\n");
}

void test_table_json_escaping(void)
{
	STR_EQ(render(FMT_JSON, fill_strings),
	       "{\n  \"t\": [\n"
	       "    {\"s\": \"plain\"},\n"
	       "    {\"s\": \"a,b\"},\n"
	       "    {\"s\": \"say \\\"hi\\\"\"},\n"
	       "    {\"s\": \" lead\"},\n"
	       "    {\"s\": \"trail \"},\n"
	       "    {\"s\": \"two\\nlines\"},\n"
	       "    {\"s\": \"cr\\r\"},\n"
	       "    {\"s\": \"back\\\\slash\"},\n"
	       "    {\"s\": \"tab\\there\"},\n"
	       "    {\"s\": \"\\u0001\\u001f\"},\n"
	       "    {\"s\": \"" MU "s\"},\n"
	       "    {\"s\": \"bad \\ufffd utf8\"},\n"
	       "    {\"s\": \"cut \\ufffd\"},\n"
	       "    {\"s\": \"surrogate \\ufffd\\ufffd\\ufffd\"}\n"
	       "  ]\n}\n");
}

/* ---- fmt_double ---- */

static void fmt_is(double x, const char *want)
{
	char buf[32];
	int n = fmt_double(buf, x);

	STR_EQ(buf, want);
	INT_EQ(n, (long long)strlen(want));
}

void test_fmt_double_values(void)
{
	fmt_is(0, "0");
	fmt_is(-0.0, "-0");
	fmt_is(4096, "4096");
	fmt_is(-17, "-17");
	fmt_is(2e11, "200000000000");
	fmt_is(200e9, "200000000000");
	fmt_is(9007199254740992.0, "9007199254740992");      /* 2^53 */
	fmt_is(9007199254740994.0, "9007199254740994");      /* above, yet short */
	fmt_is(31722300588172752.0, "31722300588172752");    /* digits beat 3.17...e+16 */
	fmt_is(1e16, "1e+16");
	fmt_is(1e21, "1e+21");
	fmt_is(0.1, "0.1");
	fmt_is(0.5, "0.5");
	fmt_is(1.0 / 3, "0.3333333333333333");
	fmt_is(0.1 + 0.2, "0.30000000000000004");
	fmt_is(5e-6, "5e-06");
	fmt_is(1e-300, "1e-300");
	fmt_is(4.9406564584124654e-324, "4.94065645841247e-324"); /* smallest subnormal */
	fmt_is(1.7976931348623157e308, "1.7976931348623157e+308");
	fmt_is(NAN, "nan");
	fmt_is(INFINITY, "inf");
	fmt_is(-INFINITY, "-inf");
}

/*
 * Every finite double, read back with strtod, is the same double, and its
 * text is never longer than %.17g's.  Returns 1 when x is wrong.
 */
static int round_trip_fails(double x)
{
	char buf[32], ref[32];
	double y;

	fmt_double(buf, x);
	y = strtod(buf, NULL);
	snprintf(ref, sizeof(ref), "%.17g", x);
	if (memcmp(&x, &y, sizeof(x)) != 0 || strlen(buf) > strlen(ref)) {
		fprintf(stderr, "  fmt_double(%s) = %s reads back as %.17g\n", ref, buf, y);
		return 1;
	}
	return 0;
}

void test_fmt_double_round_trip(void)
{
	uint64_t s = 0x9e3779b97f4a7c15u;
	int i, e, bad = 0;

	for (i = 0; i < 200000 && bad < 10; i++) {
		double x;

		/* xorshift64: random bit patterns cover every exponent */
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		memcpy(&x, &s, sizeof(x));
		if (isfinite(x))
			bad += round_trip_fails(x);
		/* and random values of everyday magnitude */
		bad += round_trip_fails((double)(s >> 11) / 9007199254740992.0 * 1e6);
	}
	for (e = -330; e <= 308; e++)
		bad += round_trip_fails(pow(10, e)) + round_trip_fails(3 * pow(10, e));
	for (i = -1074; i <= 1023; i++)
		bad += round_trip_fails(ldexp(1, i)) + round_trip_fails(-ldexp(1, i));
	for (i = 0; i < 10000; i++)
		bad += round_trip_fails(i * 0.001);
	bad += round_trip_fails(-0.0);
	bad += round_trip_fails(4.9406564584124654e-324);  /* smallest subnormal */
	bad += round_trip_fails(2.2250738585072009e-308);  /* largest subnormal */
	bad += round_trip_fails(1.7976931348623157e308);
	INT_EQ(bad, 0);
}

/*
 * The definition of fmt_double's text, written with printf and strtod
 * as table.h states it, to compare the fast formatter against.
 */
static void fmt_reference(char *buf, double x)
{
	int p;

	if (isnan(x)) {
		strcpy(buf, "nan");
		return;
	}
	if (isinf(x)) {
		strcpy(buf, x < 0 ? "-inf" : "inf");
		return;
	}
	if (x == floor(x) && fabs(x) <= 9007199254740992.0) {
		if (x == 0)
			strcpy(buf, signbit(x) ? "-0" : "0");
		else
			sprintf(buf, "%.0f", x);
		return;
	}
	for (p = 15; p <= 17; p++) {
		sprintf(buf, "%.*g", p, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	if (x == floor(x) && fabs(x) < 1e17 && strchr(buf, 'e')) {
		char digits[32];
		int n = sprintf(digits, "%.0f", x);

		if ((size_t)n < strlen(buf))
			strcpy(buf, digits);
	}
}

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 1 when fmt_double(x) differs from the definition. */
static int differs(double x)
{
	char got[32], want[40];

	fmt_double(got, x);
	fmt_reference(want, x);
	if (strcmp(got, want)) {
		fprintf(stderr, "  fmt_double(%a) = %s, want %s\n", x, got, want);
		return 1;
	}
	return 0;
}

void test_fmt_double_definition(void)
{
	int i, bad = 0;

	for (i = 0; i < 60000 && bad < 10; i++) {
		uint64_t r = next_random();
		double x, base;
		int k;

		/* any bit pattern: every exponent, subnormals, NaNs */
		memcpy(&x, &r, sizeof(x));
		bad += differs(x);
		/* everyday magnitudes, 1e-20 to 1e20 */
		x = (double)(r >> 11) / 9007199254740992.0 * pow(10, (int)(next_random() % 41) - 20);
		bad += differs(x);
		/* short decimals d·10^e, d of 1 to 17 digits */
		x = (double)(next_random() % 100000000000000000u) /
		    pow(10, (int)(next_random() % 17)) * pow(10, (int)(next_random() % 61) - 30);
		bad += differs(x);
		/* whole numbers on both sides of 2^53 and 1e17 */
		bad += differs((double)(next_random() % 200000000000000000u));
		/* a few ulps from a power of two or of ten */
		base = r & 1 ? ldexp(1, (int)(next_random() % 2098) - 1074)
			     : pow(10, (int)(next_random() % 630) - 323);
		x = base;
		for (k = (int)(next_random() % 9) - 4; k > 0; k--)
			x = nextafter(x, INFINITY);
		for (; k < 0; k++)
			x = nextafter(x, 0);
		bad += differs(r & 2 ? x : -x);
		/* the kind of numbers a sweep writes: times and bandwidths */
		{
			double n = (double)(2 + next_random() % 100000);
			double S = pow(1.05, (double)(next_random() % 800));
			double t = 2 * (n - 1) * (5e-6 + S / n / 200e9);

			bad += differs(t) + differs(S / t) + differs(S / t * 2 * (n - 1) / n);
		}
	}
	INT_EQ(bad, 0);
}

/*
 * Exact ties, where the digits cut off are exactly 5 followed by nothing:
 * printf rounds them to the even digit, and the shortest decimal that
 * reads back has to agree.  2^49 = 562949953421312, whose doubles are
 * 1/8 apart, and 2^50 = 1125899906842624, 1/4 apart.
 */
void test_fmt_double_ties(void)
{
	uint64_t m;
	int f, bad = 0;

	fmt_is(562949953421312.25, "562949953421312.2");    /* 16 digits, tie: down */
	fmt_is(562949953421312.75, "562949953421312.8");    /* 16 digits, tie: up */
	fmt_is(1125899906842624.25, "1125899906842624.2");  /* 17 digits, tie: down */
	fmt_is(1125899906842624.75, "1125899906842624.8");  /* 17 digits, tie: up */
	fmt_is(0.5, "0.5");
	fmt_is(2.5, "2.5");
	for (m = (UINT64_C(1) << 49); m < (UINT64_C(1) << 51); m += 99999999977 + (m & 4095))
		for (f = 1; f < 8; f += 2)
			bad += differs((double)m + f * (m >= (UINT64_C(1) << 50) ? 0.25 : 0.125));
	INT_EQ(bad, 0);
}

/* Powers of two have a narrower rounding interval below than above. */
void test_fmt_double_powers_of_two(void)
{
	int e, bad = 0;

	for (e = -1074; e <= 1023; e++)
		bad += differs(ldexp(1, e)) + differs(-ldexp(1, e)) +
		       differs(nextafter(ldexp(1, e), 0)) + differs(nextafter(ldexp(1, e), INFINITY));
	fmt_is(36028797018963968.0, "36028797018963968");   /* 2^55: plain digits are shorter */
	fmt_is(1152921504606846976.0, "1.152921504606847e+18");  /* 2^60 */
	fmt_is(8.6736173798840355e-19, "8.673617379884035e-19");  /* 2^-60 */
	INT_EQ(bad, 0);
}

void test_fmt_shortest(void)
{
	uint64_t d;
	int k;

	/* 0.1 = 0x1.999999999999ap-4 */
	INT_EQ(fmt_shortest(UINT64_C(0x1999999999999a), -56, &d, &k), 1);
	INT_EQ((long long)d, 1);
	INT_EQ(k, -1);
	/* 1 = 2^52·2^-52 */
	INT_EQ(fmt_shortest(UINT64_C(1) << 52, -52, &d, &k), 1);
	INT_EQ((long long)d, 1);
	INT_EQ(k, 0);
	/* the largest double, 1.7976931348623157e308 */
	INT_EQ(fmt_shortest((UINT64_C(1) << 53) - 1, 971, &d, &k), 17);
	INT_EQ((long long)d, 17976931348623157LL);
	INT_EQ(k, 292);
	/* the smallest normal, 2.2250738585072014e-308 */
	INT_EQ(fmt_shortest(UINT64_C(1) << 52, -1074, &d, &k), 17);
	INT_EQ((long long)d, 22250738585072014LL);
	INT_EQ(k, -324);
}

void test_fmt_u64(void)
{
	char buf[24];

	INT_EQ(fmt_u64(buf, 0), 1);
	STR_EQ(buf, "0");
	fmt_u64(buf, 7);
	STR_EQ(buf, "7");
	fmt_u64(buf, 10);
	STR_EQ(buf, "10");
	fmt_u64(buf, 99);
	STR_EQ(buf, "99");
	fmt_u64(buf, 100);
	STR_EQ(buf, "100");
	fmt_u64(buf, 1000000007);
	STR_EQ(buf, "1000000007");
	INT_EQ(fmt_u64(buf, UINT64_MAX), 20);
	STR_EQ(buf, "18446744073709551615");
	/* every digit count, at its edges */
	{
		uint64_t p = 1;
		int i, bad = 0;

		for (i = 0; i < 20; i++, p *= 10) {
			uint64_t v[3] = { p - 1, p, p + 1 };
			char want[24];
			int j;

			for (j = 0; j < 3; j++) {
				snprintf(want, sizeof(want), "%llu", (unsigned long long)v[j]);
				bad += fmt_u64(buf, v[j]) != (int)strlen(want) || strcmp(buf, want);
			}
		}
		INT_EQ(bad, 0);
	}
}

/* ---- the table of powers of ten, checked with exact integers ---- */

#define BN_WORDS 48   /* 1536 bits: 2^(127 + 1077) and g·10^324 fit */
struct bn {
	uint32_t w[BN_WORDS];  /* little-endian */
};

static void bn_small(struct bn *a, uint32_t v)
{
	memset(a, 0, sizeof(*a));
	a->w[0] = v;
}

static void bn_from128(struct bn *a, uint64_t hi, uint64_t lo)
{
	memset(a, 0, sizeof(*a));
	a->w[0] = (uint32_t)lo;
	a->w[1] = (uint32_t)(lo >> 32);
	a->w[2] = (uint32_t)hi;
	a->w[3] = (uint32_t)(hi >> 32);
}

static void bn_mul_small(struct bn *a, uint32_t m)
{
	uint64_t carry = 0;
	int i;

	for (i = 0; i < BN_WORDS; i++) {
		uint64_t t = (uint64_t)a->w[i] * m + carry;

		a->w[i] = (uint32_t)t;
		carry = t >> 32;
	}
}

static void bn_mul(struct bn *r, const struct bn *a, const struct bn *b)
{
	int i, j;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < BN_WORDS; i++) {
		uint64_t carry = 0;

		for (j = 0; i + j < BN_WORDS; j++) {
			uint64_t t = (uint64_t)a->w[i] * b->w[j] + r->w[i + j] + carry;

			r->w[i + j] = (uint32_t)t;
			carry = t >> 32;
		}
	}
}

static void bn_shl(struct bn *a, int n)
{
	while (n-- > 0)
		bn_mul_small(a, 2);
}

static int bn_cmp(const struct bn *a, const struct bn *b)
{
	int i;

	for (i = BN_WORDS - 1; i >= 0; i--)
		if (a->w[i] != b->w[i])
			return a->w[i] < b->w[i] ? -1 : 1;
	return 0;
}

static int bn_bits(const struct bn *a)
{
	int i, b;

	for (i = BN_WORDS - 1; i >= 0; i--)
		if (a->w[i])
			for (b = 31; b >= 0; b--)
				if (a->w[i] >> b & 1)
					return 32 * i + b + 1;
	return 0;
}

/*
 * g(e) - 1 = ⌊10^e·2^(127-r)⌋ with r = ⌊log2 10^e⌋: for e >= 0,
 * (g-1)·2^max(0,r-127) <= 10^e·2^max(0,127-r) < g·2^max(0,r-127); for
 * e < 0, with d = 10^-e of L bits, (g-1)·d <= 2^(127+L) < g·d.
 */
void test_fmt_pow10_table(void)
{
	int e, i, bad = 0;

	CHECK(sizeof(fmt_pow10_table) / sizeof(fmt_pow10_table[0]) ==
	      (size_t)(FMT_POW10_MAX - FMT_POW10_MIN + 1));
	for (e = FMT_POW10_MIN; e <= FMT_POW10_MAX; e++) {
		const uint64_t *g = fmt_pow10_table[e - FMT_POW10_MIN];
		struct bn p, lo, hi, t, x;

		bn_from128(&hi, g[0], g[1]);
		bn_from128(&lo, g[0] - (g[1] == 0), g[1] - 1);
		bn_small(&p, 1);
		for (i = 0; i < (e < 0 ? -e : e); i++)
			bn_mul_small(&p, 10);
		if (e >= 0) {
			int r = bn_bits(&p) - 1;

			bn_shl(&p, r < 127 ? 127 - r : 0);
			bn_shl(&lo, r > 127 ? r - 127 : 0);
			bn_shl(&hi, r > 127 ? r - 127 : 0);
			x = p;
		} else {
			int L = bn_bits(&p);

			bn_small(&x, 1);
			bn_shl(&x, 127 + L);
			bn_mul(&t, &lo, &p);
			lo = t;
			bn_mul(&t, &hi, &p);
			hi = t;
		}
		if (!(bn_cmp(&lo, &x) <= 0 && bn_cmp(&x, &hi) < 0 && g[0] >> 63)) {
			fprintf(stderr, "  fmt_pow10_table's row of 10^%d is wrong\n", e);
			bad++;
		}
	}
	INT_EQ(bad, 0);
}

/* ---- atomic output ---- */

static void fill_one_row(struct out *o)
{
	struct cell r[2] = { { NULL, 0.5 }, { NULL, 2 } };

	out_table_begin(o, &tab3);
	out_row(o, r);
}

void test_out_missing_directory(void)
{
	char path[128], want[256];
	struct errbuf eb = { "" };

	clean();
	snprintf(path, sizeof(path), "%s/missing/out.csv", scratch());
	CHECK(out_open(FMT_CSV, path, &eb) == NULL);
	snprintf(want, sizeof(want), "cannot create '%s': No such file or directory", path);
	STR_EQ(eb.msg, want);
	INT_EQ(entries(), 0);
}

void test_out_is_directory(void)
{
	char want[256];
	struct errbuf eb = { "" };

	CHECK(out_open(FMT_CSV, scratch(), &eb) == NULL);
	snprintf(want, sizeof(want), "cannot create '%s': Is a directory", scratch());
	STR_EQ(eb.msg, want);
}

void test_out_unwritable_directory(void)
{
	char sub[128], path[160], want[256];
	struct errbuf eb = { "" };

	if (geteuid() == 0)
		return;  /* root writes anywhere */
	clean();
	snprintf(sub, sizeof(sub), "%s/ro", scratch());
	mkdir(sub, 0555);
	snprintf(path, sizeof(path), "%s/out.csv", sub);
	CHECK(out_open(FMT_CSV, path, &eb) == NULL);
	snprintf(want, sizeof(want), "cannot create '%s': Permission denied", path);
	STR_EQ(eb.msg, want);
	rmdir(sub);
}

void test_out_abort_leaves_nothing(void)
{
	char path[128];
	struct errbuf eb;
	struct out *o;

	clean();
	snprintf(path, sizeof(path), "%s/out.csv", scratch());
	o = out_open(FMT_CSV, path, &eb);
	CHECK(o != NULL);
	if (!o)
		return;
	fill_one_row(o);
	INT_EQ(entries(), 1);  /* the temporary */
	out_abort(o);
	INT_EQ(entries(), 0);
}

void test_out_replaces_atomically(void)
{
	char path[128];
	struct errbuf eb;
	struct stat st;
	struct out *o;
	mode_t old = umask(022);

	clean();
	snprintf(path, sizeof(path), "%s/out.csv", scratch());
	spit(path, "old\n");
	chmod(path, 0600);
	o = out_open(FMT_CSV, path, &eb);
	CHECK(o != NULL);
	if (!o) {
		umask(old);
		return;
	}
	fill_one_row(o);
	/* until closed, the old file is intact */
	STR_EQ(slurp(path), "old\n");
	INT_EQ(entries(), 2);
	INT_EQ(out_close(o, &eb), 0);
	STR_EQ(slurp(path), "fraction,x\n0.5,2\n");
	INT_EQ(entries(), 1);
	/* the replaced file kept its mode */
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);

	/* a new file gets 0666 less the umask */
	unlink(path);
	o = out_open(FMT_CSV, path, &eb);
	if (o) {
		fill_one_row(o);
		INT_EQ(out_close(o, &eb), 0);
	}
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
	umask(old);
	clean();
}

void test_out_keeps_symlink(void)
{
	char path[128], link[128];
	struct errbuf eb;
	struct stat st;
	struct out *o;

	clean();
	snprintf(path, sizeof(path), "%s/real.csv", scratch());
	snprintf(link, sizeof(link), "%s/link.csv", scratch());
	spit(path, "old\n");
	if (symlink("real.csv", link) < 0)
		return;
	o = out_open(FMT_CSV, link, &eb);
	CHECK(o != NULL);
	if (!o)
		return;
	fill_one_row(o);
	INT_EQ(out_close(o, &eb), 0);
	/* the link still links, and the file it names has the new text */
	CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	STR_EQ(slurp(path), "fraction,x\n0.5,2\n");
	INT_EQ(entries(), 2);
	clean();
}

void test_out_read_only_file(void)
{
	char path[128], want[256];
	struct errbuf eb = { "" };

	if (geteuid() == 0)
		return;
	clean();
	snprintf(path, sizeof(path), "%s/ro.csv", scratch());
	spit(path, "keep\n");
	chmod(path, 0444);
	CHECK(out_open(FMT_CSV, path, &eb) == NULL);
	snprintf(want, sizeof(want), "cannot create '%s': Permission denied", path);
	STR_EQ(eb.msg, want);
	STR_EQ(slurp(path), "keep\n");
	INT_EQ(entries(), 1);
	clean();
}

void test_out_device_full(void)
{
	struct errbuf eb = { "" };
	struct out *o;

	if (access("/dev/full", W_OK) != 0)
		return;
	o = out_open(FMT_CSV, "/dev/full", &eb);
	CHECK(o != NULL);
	if (!o)
		return;
	fill_one_row(o);
	INT_EQ(out_close(o, &eb), -1);
	STR_EQ(eb.msg, "cannot write '/dev/full': No space left on device");
}

void test_out_format_parse(void)
{
	enum out_format f;
	struct errbuf eb;

	INT_EQ(out_format_parse("csv", &f, &eb), 0);
	CHECK(f == FMT_CSV);
	INT_EQ(out_format_parse("json", &f, &eb), 0);
	CHECK(f == FMT_JSON);
	INT_EQ(out_format_parse("table", &f, &eb), 0);
	CHECK(f == FMT_TABLE);
	INT_EQ(out_format_parse("xml", &f, &eb), -1);
	STR_EQ(eb.msg, "unknown format 'xml' (want table, csv or json)");
}

/*
 * Under a locale with a decimal comma, CSV, JSON and the parser still
 * use '.'.  Skipped when no such locale is installed.
 */
void test_comma_locale(void)
{
	static const char *const names[] = {
		"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8",
	};
	struct errbuf eb;
	char buf[64];
	size_t i;
	double x;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (setlocale(LC_NUMERIC, names[i]))
			break;
	if (i == sizeof(names) / sizeof(names[0]))
		return;
	fmt_is(0.1, "0.1");
	fmt_is(1.0 / 3, "0.3333333333333333");
	fmt_is(2.5e-7, "2.5e-07");
	fmt_is(4.9406564584124654e-324, "4.94065645841247e-324");  /* printf's path */
	fmt_is(-1234.5, "-1234.5");
	INT_EQ(units_parse(Q_TIME, "1.5ms", &x, &eb), 0);
	CHECK(x == 1.5e-3);
	STR_EQ(units_fmt_time(buf, sizeof(buf), 30e-6, 3), "30.0 " MU "s");
	STR_EQ(units_fmt_rate(buf, sizeof(buf), 12.5e9, 4), "12.5 GB/s");
	setlocale(LC_NUMERIC, "C");
}
