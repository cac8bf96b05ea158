/*
 * libFuzzer target of the nccl-tests log parser.  Build and run from the
 * top of the repository (README.md in this directory):
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *     tests/fuzz/nccllog/fuzz_nccllog.c src/ntests_text.c src/measfile.c \
 *     src/model.c src/util.c -lcsv -lgsl -lgslcblas -lm -o fuzz-nccllog
 *   ./fuzz-nccllog -max_total_time=300 tests/fuzz/nccllog/corpus
 */
#include <stddef.h>
#include <stdint.h>

#include "measfile.h"
#include "ntests_text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meas m;
	struct errbuf eb;

	meas_init(&m, "fuzz");
	if (nccllog_parse((const char *)data, size, "fuzz", &m, &eb) == 0)
		(void)meas_select(&m, OP_COUNT, 0, &eb);
	meas_release(&m);
	return 0;
}
