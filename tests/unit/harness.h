#ifndef COMMTIME_HARNESS_H
#define COMMTIME_HARNESS_H

/*
 * A small unit-test harness.  Each tests/unit/test_*.c defines functions
 * "void test_NAME(void)" at the start of a line; the Makefile lists them
 * in tests/unit/list.h and run-unit calls each.  The checks count passes
 * and failures and print both values on a failure.
 */
#include <math.h>
#include <string.h>

#include "cost.h"

extern int h_pass, h_fail;
extern const char *h_test;

void h_report(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int h_near(double got, double want, double rel);

/*
 * Call fn once for every file of dir whose name does not start with '.',
 * with its name, its path and its whole content (len bytes, NUL after
 * them); a file that cannot be read is reported as a failure.  Returns
 * the number of files fn saw, -1 (reported) when dir cannot be opened.
 * The fuzz corpora's regression tests run through it.
 */
typedef void h_file_fn(const char *name, const char *path, const char *buf, size_t len,
		       void *arg);
int h_each_file(const char *dir, h_file_fn *fn, void *arg);

#define CHECK(cond) do { \
	if (cond) h_pass++; \
	else h_report(__FILE__, __LINE__, "CHECK(%s)", #cond); \
} while (0)

/* |got - want| <= rel * |want| (or <= rel when want is 0). */
#define DBL_NEAR(got, want, rel) do { \
	double h_g_ = (got), h_w_ = (want); \
	if (h_near(h_g_, h_w_, (rel))) h_pass++; \
	else h_report(__FILE__, __LINE__, "%s = %.17g, want %.17g (rel %g)", \
		      #got, h_g_, h_w_, (double)(rel)); \
} while (0)

#define INT_EQ(got, want) do { \
	long long h_g_ = (got), h_w_ = (want); \
	if (h_g_ == h_w_) h_pass++; \
	else h_report(__FILE__, __LINE__, "%s = %lld, want %lld", #got, h_g_, h_w_); \
} while (0)

#define STR_EQ(got, want) do { \
	const char *h_g_ = (got), *h_w_ = (want); \
	if (h_g_ && h_w_ && !strcmp(h_g_, h_w_)) h_pass++; \
	else h_report(__FILE__, __LINE__, "%s = \"%s\", want \"%s\"", #got, \
		      h_g_ ? h_g_ : "(null)", h_w_ ? h_w_ : "(null)"); \
} while (0)

/*
 * Time in s of op with algorithm a on `ranks` ranks of the link l for
 * `bytes` B, asked of the cost core as every command asks it (cost_coll on
 * a single-link model); NaN where the link has not the algorithm.
 */
double t_link(enum coll_op op, enum coll_algo a, const struct link *l, unsigned long ranks,
	      double bytes);

#endif
