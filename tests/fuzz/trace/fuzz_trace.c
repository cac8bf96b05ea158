/*
 * libFuzzer target of the trace readers (make fuzz builds it): PyTorch
 * profiler JSON, NCCL Inspector JSON lines and NCCL INFO lines, told apart
 * by content, then the per-step analysis.
 */
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct errbuf eb;

	trace_init(&t);
	if (trace_read_buffer(&t, "fuzz", (const char *)data, size, &eb) == 0)
		(void)trace_analyse(&t, -2, NULL, NULL, &eb);
	trace_release(&t);
	return 0;
}
