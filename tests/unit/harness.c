#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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

int h_each_file(const char *dir, h_file_fn *fn, void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d) {
		h_report(__FILE__, __LINE__, "cannot open %s (run from the top of the repository)",
			 dir);
		return -1;
	}
	while ((e = readdir(d))) {
		char path[512], *buf;
		FILE *f;
		long len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		buf = NULL;
		len = -1;
		if ((f = fopen(path, "rb")) && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0) {
			rewind(f);
			buf = malloc((size_t)len + 1);
			if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
				free(buf);
				buf = NULL;
			}
		}
		if (f)
			fclose(f);
		if (!buf) {
			h_report(__FILE__, __LINE__, "cannot read %s", path);
			continue;
		}
		buf[len] = '\0';
		fn(e->d_name, path, buf, (size_t)len, arg);
		free(buf);
		n++;
	}
	closedir(d);
	return n;
}
