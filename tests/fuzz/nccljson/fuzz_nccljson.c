/*
 * libFuzzer target of the nccl-tests JSON reader (make fuzz builds it).
 */
#include <stddef.h>
#include <stdint.h>

#include "measfile.h"
#include "ntests_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meas m;
	struct errbuf eb;

	meas_init(&m, "fuzz");
	if (nccljson_parse((const char *)data, size, "fuzz", &m, &eb) == 0)
		(void)meas_select(&m, OP_COUNT, 0, &eb);
	meas_release(&m);
	return 0;
}
