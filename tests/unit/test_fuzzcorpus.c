/*
 * The fuzz corpora as regression tests: every file of
 * tests/fuzz/NAME/corpus/ (seeds, and inputs that once crashed a parser)
 * goes through the same checks as the fuzz target, in the plain build.
 * run-unit runs from the top of the repository (tests/run.sh).
 */
#define FUZZ_NO_MAIN
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "../fuzz/units/fuzz_units.c"
#include "../fuzz/list/fuzz_list.c"
#include "../fuzz/preset/fuzz_preset.c"
#include "../fuzz/gpquote/fuzz_gpquote.c"
#include "../fuzz/presetw/fuzz_presetw.c"
#include "../fuzz/regime/fuzz_regime.c"
#include "../fuzz/workload/fuzz_workload.c"
#include "../fuzz/topo/fuzz_topo.c"
#include "../fuzz/system/fuzz_system.c"

typedef const char *(*fuzz_fn)(const uint8_t *data, size_t size);

static void S_one(const char *name, const char *path, const char *buf, size_t len, void *arg)
{
	const char *why = (*(fuzz_fn *)arg)((const uint8_t *)buf, len);

	if (why)
		h_report(__FILE__, __LINE__, "%s: %s", path, why);
	else
		h_pass++;
}

/* Feed every file of dir to fn; returns the number of files, -1 if none. */
static int run_corpus(const char *dir, fuzz_fn fn)
{
	return h_each_file(dir, S_one, &fn);
}

void test_fuzzcorpus_units(void)
{
	CHECK(run_corpus("tests/fuzz/units/corpus", fuzz_units) > 0);
}

void test_fuzzcorpus_list(void)
{
	CHECK(run_corpus("tests/fuzz/list/corpus", fuzz_list) > 0);
}

void test_fuzzcorpus_preset(void)
{
	CHECK(run_corpus("tests/fuzz/preset/corpus", fuzz_preset) > 0);
}

void test_fuzzcorpus_gpquote(void)
{
	CHECK(run_corpus("tests/fuzz/gpquote/corpus", fuzz_gpquote) > 0);
}

void test_fuzzcorpus_presetw(void)
{
	CHECK(run_corpus("tests/fuzz/presetw/corpus", fuzz_presetw) > 0);
}

void test_fuzzcorpus_regime(void)
{
	CHECK(run_corpus("tests/fuzz/regime/corpus", fuzz_regime) > 0);
}

void test_fuzzcorpus_workload(void)
{
	CHECK(run_corpus("tests/fuzz/workload/corpus", fuzz_workload) > 0);
}

void test_fuzzcorpus_topo(void)
{
	CHECK(run_corpus("tests/fuzz/topo/corpus", fuzz_topo) > 0);
}

void test_fuzzcorpus_system(void)
{
	CHECK(run_corpus("tests/fuzz/system/corpus", fuzz_system) > 0);
}
