/*
 * Fuzz target: the workload readers.  The input's first line goes to
 * workload_parse_count() (--params and the published key), which either
 * gives a finite count above 0 or says why; the whole input, after a
 * fixed head (name, kind = workload, description), is read as a preset
 * by workload_from_preset(), which either gives a shape whose sizes are
 * whole numbers above 0 and whose parameter count is finite and positive,
 * or says why; with a sliding window, one in at most every layer, and the
 * keys a query spans between the window and the sequence.
 *
 * Built by `make fuzz`; the unit tests run corpus/ through fuzz_workload().
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preset.h"
#include "workload.h"

#include "../fuzz_file.h"
#include "../fuzz_entry.h"

static int whole_positive(double x)
{
	return isfinite(x) && x >= 1 && x == floor(x);
}

static const char *fuzz_workload(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("workload"), *why = NULL;
	char *first = malloc(size + 1), *nl;
	struct workload w;
	struct preset p;
	struct errbuf eb;
	double x;

	memcpy(first, data, size);
	first[size] = '\0';
	if ((nl = strchr(first, '\n')))
		*nl = '\0';
	eb.msg[0] = '\0';
	if (workload_parse_count(first, &x, &eb) == 0) {
		if (!(isfinite(x) && x > 0))
			why = "workload_parse_count gave a count that is not finite and positive";
	} else if (!eb.msg[0]) {
		why = "workload_parse_count refused without a message";
	}
	free(first);
	if (why)
		return why;

	why = fuzz_file_write(path, "name = w\nkind = workload\ndescription = fuzz\n", data,
			      size);
	if (why)
		return why;
	if (preset_load_file(path, &p, &eb) < 0)
		return NULL;
	eb.msg[0] = '\0';
	if (workload_from_preset(&p, &w, &eb) == 0) {
		double n = workload_params(&w);

		if (!whole_positive(w.layers) || !whole_positive(w.hidden) ||
		    !whole_positive(w.heads) || !whole_positive(w.kv_heads) ||
		    !whole_positive(w.vocab) || !whole_positive(w.seq))
			why = "a workload with a size that is not a whole number above 0";
		else if (!(isfinite(n) && n > 0))
			why = "a workload whose parameter count is not finite and positive";
		else if (workload_windowed(&w) &&
			 (!whole_positive(w.window) || !whole_positive(w.window_layers) ||
			  w.window_layers > w.layers))
			why = "a sliding window that is not whole or in more layers than there are";
		else if (!(workload_attn_span(&w, w.seq) <= w.seq &&
			   workload_attn_span(&w, w.seq) >= fmin(w.seq, workload_windowed(&w) ?
								 w.window : w.seq)))
			why = "a mean span outside [min(window, seq), seq]";
	} else if (!eb.msg[0]) {
		why = "workload_from_preset refused without a message";
	}
	preset_release(&p);
	return why;
}

FUZZ_ENTRY(fuzz_workload)
