/*
 * libFuzzer's entry point for a target whose check returns NULL when the
 * input was handled as it should be, else why not: FUZZ_ENTRY(fuzz_units)
 * defines LLVMFuzzerTestOneInput, which aborts with the reason.  Compiled
 * out under FUZZ_NO_MAIN, where tests/unit/test_fuzzcorpus.c calls the
 * checks itself.
 */
#ifndef COMMTIME_FUZZ_ENTRY_H
#define COMMTIME_FUZZ_ENTRY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef FUZZ_NO_MAIN
#define FUZZ_ENTRY(check)
#else
#define FUZZ_ENTRY(check)                                                      \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);          \
	int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)           \
	{                                                                      \
		const char *why = check(data, size);                           \
									       \
		if (why) {                                                     \
			fprintf(stderr, #check ": %s\n", why);                 \
			abort();                                               \
		}                                                              \
		return 0;                                                      \
	}
#endif

#endif
