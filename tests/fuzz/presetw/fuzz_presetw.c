/*
 * Fuzz target: the preset writer.  The input's lines are taken in pairs
 * as keys and values (after a name, kind = link and a description); the
 * first line also goes through preset_text_clean() into a description
 * and a comment.  preset_write() either refuses with a message and
 * writes nothing, or writes a file that preset_load_file() reads back
 * with every pair identical, in order: write -> read -> identical.  A
 * value made by preset_text_clean() is always written.
 *
 * Built by `make fuzz`; the unit tests run corpus/ through fuzz_presetw().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preset.h"

#include "../fuzz_file.h"
#include "../fuzz_entry.h"

/* Write kv to the file; 1 written and read back identical, 0 refused, or a reason. */
static const char *write_read(const char *comment, const struct preset_kv *kv, size_t n,
			      int *written)
{
	const char *path = fuzz_file("presetw");
	struct preset p;
	struct errbuf eb;
	size_t i, j;
	FILE *f;
	int r;

	*written = 0;
	if (!path || !(f = fopen(path, "w")))
		return "cannot write the temporary file";
	eb.msg[0] = '\0';
	r = preset_write(f, path, comment, kv, n, &eb);
	if (fclose(f) != 0)
		return "cannot write the temporary file";
	if (r < 0) {
		if (!eb.msg[0])
			return "preset_write refused without a message";
		f = fopen(path, "r");
		if (f && fgetc(f) != EOF) {
			fclose(f);
			return "preset_write refused but wrote something";
		}
		if (f)
			fclose(f);
		return NULL;
	}
	if (preset_load_file(path, &p, &eb) < 0)
		return "a preset preset_write accepted does not load";
	for (i = j = 0; i < n; i++) {
		if (!kv[i].key)
			continue;
		if (j >= p.nkv || strcmp(p.kv[j].key, kv[i].key) ||
		    strcmp(p.kv[j].value, kv[i].value)) {
			preset_release(&p);
			return "a pair did not read back as written";
		}
		j++;
	}
	if (j != p.nkv) {
		preset_release(&p);
		return "the file read back holds more pairs than were written";
	}
	preset_release(&p);
	*written = 1;
	return NULL;
}

static const char *fuzz_presetw(const uint8_t *data, size_t size)
{
	struct preset_kv kv[40];
	char *in = malloc(size + 1), *orig = malloc(size + 1), *line, *clean;
	const char *why;
	size_t n = 0;
	int written;

	memcpy(in, data, size);
	in[size] = '\0';
	memcpy(orig, in, size + 1);
	kv[n++] = (struct preset_kv){ .key = "name", .value = "fuzz" };
	kv[n++] = (struct preset_kv){ .key = "kind", .value = "link" };
	kv[n++] = (struct preset_kv){ .key = "description", .value = "fuzz" };
	line = in;
	while (line && n + 2 < sizeof(kv) / sizeof(kv[0])) {
		char *value = strchr(line, '\n'), *next = NULL;

		if (value) {
			*value++ = '\0';
			next = strchr(value, '\n');
			if (next)
				*next++ = '\0';
		}
		kv[n++] = (struct preset_kv){ .key = line, .value = value ? value : "" };
		line = next;
	}
	why = write_read(NULL, kv, n, &written);

	/* Any text, cleaned, is a description and a comment that are written. */
	clean = preset_text_clean(orig, 1000);
	if (!why && *clean) {
		struct preset_kv d[] = {
			{ .key = "name", .value = "fuzz" },
			{ .key = "kind", .value = "workload" },
			{ .key = NULL, .value = clean },
			{ .key = "description", .value = clean },
		};

		why = write_read(clean, d, 4, &written);
		if (!why && !written)
			why = "preset_write refused a value made by preset_text_clean";
	}
	free(clean);
	free(orig);
	free(in);
	return why;
}

FUZZ_ENTRY(fuzz_presetw)
