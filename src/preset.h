#ifndef COMMTIME_PRESET_H
#define COMMTIME_PRESET_H

#include <stddef.h>
#include "util.h"
#include "units.h"
#include "model.h"

/*
 * Presets: named inputs in small text files, "key = value" per line, '#'
 * at the start of a line (after blanks) begins a comment.  Every preset has
 * `name`, `kind` ("link" or "workload") and `description`; the other keys
 * depend on the kind (README.md, "Presets").  A file NAME.preset is found
 * on the search path in this order: --presets-dir, each directory of
 * COMMTIME_PRESETS (colon-separated), the installed share directory,
 * ./presets.  A name containing '/' or ending in ".preset" is a path.
 */

struct preset_kv {
	char *key;
	char *value;
	int line;        /* line number in the file, for messages */
};

struct preset {
	char *path;          /* file it was read from */
	char *name;
	char *kind;
	char *description;
	struct preset_kv *kv;
	size_t nkv;
};

#define PRESET_DIRS_MAX 16
struct preset_dirs {
	char *dirs[PRESET_DIRS_MAX];
	size_t n;
};

/* Build the search path; cli_dir may be NULL.  Release with preset_dirs_release. */
void preset_dirs_init(struct preset_dirs *d, const char *cli_dir);
void preset_dirs_release(struct preset_dirs *d);

/*
 * Find and load a preset by name or path.  Returns 0, or -1 with eb filled:
 * "unknown preset 'x'" (with the directories searched), or
 * "file:line: ..." for a malformed file.
 */
int preset_load(const struct preset_dirs *d, const char *name_or_path,
		struct preset *p, struct errbuf *eb);

/* Parse one file. */
int preset_load_file(const char *path, struct preset *p, struct errbuf *eb);

/* Value of key, or NULL. */
const char *preset_get(const struct preset *p, const char *key);

/*
 * Value of key parsed as quantity q.  Returns 1 if found (and *x set), 0
 * if absent, -1 with "file:line: ..." in eb if it does not parse.
 */
int preset_get_quantity(const struct preset *p, const char *key,
			enum quantity q, double *x, struct errbuf *eb);

/*
 * The link of a kind = link preset: alpha, beta, optional gamma.
 * Returns 0, or -1 with eb filled (missing key, wrong kind, bad value).
 */
int preset_link(const struct preset *p, struct link *l, struct errbuf *eb);

/*
 * Every preset on the search path, first found wins for a name, sorted by
 * name.  Files that do not parse are skipped and counted in *nbad.
 * Returns 0 (list may be empty), -1 with eb filled on allocation trouble.
 */
int preset_list(const struct preset_dirs *d, struct preset **list, size_t *n,
		size_t *nbad, struct errbuf *eb);

void preset_release(struct preset *p);

#endif
