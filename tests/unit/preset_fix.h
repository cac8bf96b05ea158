#ifndef COMMTIME_PRESET_FIX_H
#define COMMTIME_PRESET_FIX_H

/*
 * A workload read from a preset file, for the unit tests that check a
 * preset's shape (tests/unit/test_workload_ds.c, test_step_deepseek.c,
 * test_step_dsmem.c, test_workload_published.c); a failure is reported
 * where it happened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

/*
 * w's pairs (workload_to_kv) written by preset_write to a file of a fresh
 * directory and read back into b, as the one writer of workload files
 * loads back what it wrote.  Returns the number of pairs written, or -1
 * with the failure reported where it happened.
 */
static inline int fix_workload_write_back(const struct workload *w, struct workload *b)
{
	struct preset_kv kv[WORKLOAD_KV_MAX];
	struct preset p;
	struct errbuf eb;
	char buf[2048], dir[] = "/tmp/commtime-wl-XXXXXX", path[64];
	size_t n;
	int r = -1;
	FILE *f;

	if (!mkdtemp(dir)) {
		h_report(__FILE__, __LINE__, "mkdtemp failed");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/w.preset", dir);
	n = workload_to_kv(w, "written back", kv, buf, sizeof(buf));
	f = fopen(path, "w");
	if (!f) {
		h_report(__FILE__, __LINE__, "cannot write %s", path);
	} else if (preset_write(f, path, "written back", kv, n, &eb) < 0) {
		h_report(__FILE__, __LINE__, "%s", eb.msg);
		fclose(f);
	} else if (fclose(f) != 0 || preset_load_file(path, &p, &eb) < 0) {
		h_report(__FILE__, __LINE__, "%s: not read back", path);
	} else {
		r = fix_workload_of(&p, b) < 0 ? -1 : (int)n;
	}
	unlink(path);
	rmdir(dir);
	return r;
}

#endif
