#include <stdarg.h>
#include <stdio.h>

#include "harness.h"

int h_pass, h_fail;
const char *h_test;

#define T(name) void name(void);
#include "list.h"
#undef T

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
#define T(name) { #name, name },
#include "list.h"
#undef T
};

void h_report(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	h_fail++;
	fprintf(stderr, "FAIL %s:%d: %s: ", file, line, h_test);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int h_near(double got, double want, double rel)
{
	double tol = want == 0 ? rel : rel * fabs(want);

	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabs(got - want) <= tol;
}

int main(int argc, char **argv)
{
	size_t i;

	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		if (argc > 1 && !strstr(tests[i].name, argv[1]))
			continue;
		h_test = tests[i].name;
		tests[i].fn();
	}
	printf("unit: %d passed, %d failed\n", h_pass, h_fail);
	return h_fail != 0;
}

double t_link(enum coll_op op, enum coll_algo a, const struct link *l, unsigned long ranks,
	      double bytes)
{
	struct cost_model m;

	cost_model_link(&m, l);
	return cost_time(&m, op, a, ranks, bytes);
}
