/*
 * Fuzz target: preset_load_file, the reader of the key = value files of
 * presets/.  Each input is written to a temporary file and read back; a
 * success has a valid name, a known kind and a description, and the link
 * reader then either fills a link within the documented bounds or says
 * why not; a failure says why and leaves the preset empty.
 *
 * Built by `make fuzz`; the unit tests run corpus/ through fuzz_preset().
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "preset.h"

#include "../fuzz_file.h"
#include "../fuzz_entry.h"

static const char *fuzz_preset(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("preset"), *why = NULL;
	struct preset p;
	struct errbuf eb;
	struct link l;
	double x;

	if ((why = fuzz_file_write(path, "", data, size)) != NULL)
		return why;

	eb.msg[0] = '\0';
	if (preset_load_file(path, &p, &eb) < 0) {
		if (!eb.msg[0] || !memchr(eb.msg, '\0', sizeof(eb.msg)))
			return "preset_load_file failed without a message";
		if (p.kv || p.nkv || p.path || p.name)
			return "a failed preset_load_file left the preset filled";
		return NULL;
	}
	if (!p.name || !preset_name_valid(p.name))
		why = "a preset was read without a valid name";
	else if (!p.kind || (strcmp(p.kind, "link") && strcmp(p.kind, "workload")))
		why = "a preset was read with an unknown kind";
	else if (!p.description)
		why = "a preset was read without a description";
	else if (!preset_get(&p, "name") || strcmp(preset_get(&p, "name"), p.name))
		why = "preset_get does not find the name";

	/* The link reader: bounds of --alpha, --beta and --gamma, or a message. */
	eb.msg[0] = '\0';
	if (!why && preset_link(&p, &l, &eb) == 0) {
		if (!(l.alpha >= 0 && l.alpha <= 3600) || !(l.beta > 0 && l.beta <= 1e18) ||
		    !(l.gamma >= 0 && l.gamma <= 1))
			why = "preset_link accepted a link out of bounds";
	} else if (!why && !eb.msg[0]) {
		why = "preset_link failed without a message";
	}
	eb.msg[0] = '\0';
	if (!why && preset_get_quantity(&p, "beta_line", Q_RATE, &x, &eb) < 0 && !eb.msg[0])
		why = "preset_get_quantity failed without a message";
	preset_release(&p);
	return why;
}

FUZZ_ENTRY(fuzz_preset)
