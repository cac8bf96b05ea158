#ifndef COMMTIME_PRESET_FIX_H
#define COMMTIME_PRESET_FIX_H

/*
 * A workload read from a preset file, for the unit tests that check a
 * preset's shape (tests/unit/test_workload_ds.c, test_step_deepseek.c,
 * test_step_dsmem.c, test_workload_published.c); a failure is reported
 * where it happened.
 */
#include "harness.h"
#include "preset.h"
#include "workload.h"

/* The workload of a loaded preset, which it releases. */
static inline int fix_workload_of(struct preset *p, struct workload *w)
{
	struct errbuf eb;
	int r = workload_from_preset(p, w, &eb);

	if (r < 0)
		h_report(__FILE__, __LINE__, "%s", eb.msg);
	preset_release(p);
	return r;
}

static inline int fix_workload_file(const char *file, struct workload *w)
{
	struct preset p;
	struct errbuf eb;

	if (preset_load_file(file, &p, &eb) < 0) {
		h_report(__FILE__, __LINE__, "%s", eb.msg);
		return -1;
	}
	return fix_workload_of(&p, w);
}

#endif
