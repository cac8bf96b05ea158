/*
 * libFuzzer target of the CSV measurement reader (libcsv underneath).
 * Build and run from the top of the repository (README.md beside):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *     tests/fuzz/csv/fuzz_csv.c src/ntests_text.c src/measfile.c \
 *     src/model.c src/util.c -lcsv -lgsl -lgslcblas -lm -o fuzz-csv
 *   ./fuzz-csv -max_total_time=300 tests/fuzz/csv/corpus
 */
#include <stddef.h>
#include <stdint.h>

#include "measfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meas m;
	struct errbuf eb;

	meas_init(&m, "fuzz");
	if (meas_parse_csv((const char *)data, size, "fuzz", &m, &eb) == 0)
		(void)meas_select(&m, OP_COUNT, 0, &eb);
	meas_release(&m);
	return 0;
}
