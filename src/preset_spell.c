/*
 * A preset named as people write it: "Llama-3-8B" for llama3-8b,
 * "dgx_h100" for dgx-h100.  Two names are the same spelling when they
 * agree once letters are lower case and '-', '_' and spaces are dropped;
 * the one preset of the asked kind with that spelling is the one meant.
 * Two or more of them, or none, and the name stays unknown.
 */
#include "preset.h"

#include <string.h>

/* The spelling key of s into key (at most len bytes); 0 when s holds a
 * byte no preset name can hold in any spelling, or does not fit. */
static int spelling(const char *s, char *key, size_t len)
{
	size_t n = 0;

	for (; *s; s++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (c == '-' || c == '_' || c == ' ')
			continue;
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.'))
			return 0;
		if (n + 1 >= len)
			return 0;
		key[n++] = c;
	}
	key[n] = '\0';
	return n > 0;
}

int preset_spelled(const struct preset_dirs *d, const char *name, const char *kind,
		   char *out, size_t len)
{
	char want[PRESET_NAME_MAX + 1], key[PRESET_NAME_MAX + 1];
	struct preset *list;
	struct errbuf eb;
	size_t n, nbad, i, found = 0;

	out[0] = '\0';
	if (!spelling(name, want, sizeof(want)) ||
	    preset_list(d, &list, &n, &nbad, &eb) < 0)
		return 0;
	for (i = 0; i < n; i++) {
		if (!list[i].kind || strcmp(list[i].kind, kind) ||
		    !spelling(list[i].name, key, sizeof(key)) || strcmp(key, want))
			continue;
		if (!found++ && strlen(list[i].name) < len)
			strcpy(out, list[i].name);
	}
	preset_list_free(list, n);
	if (found != 1)
		out[0] = '\0';
	return found == 1 && out[0];
}
