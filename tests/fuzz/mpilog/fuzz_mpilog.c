/*
 * libFuzzer target of the OSU and IMB readers (make fuzz builds it): the
 * first byte chooses the reader, the rest is its input.
 */
#include <stddef.h>
#include <stdint.h>

#include "measfile.h"
#include "mpilog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct meas m;
	struct errbuf eb;
	int rc;

	if (size < 1)
		return 0;
	meas_init(&m, "fuzz");
	if (data[0] & 1)
		rc = imblog_parse((const char *)data + 1, size - 1, "fuzz", &m, &eb);
	else
		rc = osulog_parse((const char *)data + 1, size - 1, "fuzz", &m, &eb);
	if (rc == 0)
		(void)meas_select(&m, OP_COUNT, 64, &eb);
	meas_release(&m);
	return 0;
}
