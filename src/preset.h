#ifndef COMMTIME_PRESET_H
#define COMMTIME_PRESET_H

#include <stddef.h>
#include <stdio.h>
#include "util.h"
#include "units.h"
#include "model.h"

/*
 * Presets: named inputs in small text files, "key = value" per line, '#'
 * at the start of a line (after blanks) begins a comment.  Every preset has
 * `name`, `kind` ("link", "workload", "gpu" or "system") and `description`; the other keys
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

/* The longest line of a preset file, and the suffix of a preset's file name. */
#define PRESET_LINE_MAX 4096
#define PRESET_SUFFIX ".preset"

struct preset_dirs {
	char *dirs[PRESET_DIRS_MAX];
	size_t n;
};

/*
 * Build the search path: cli_dir (--presets-dir), COMMTIME_PRESETS, the
 * share directory, ./presets, then build_dir (the presets next to a
 * binary that was never installed, so it finds them from any directory).
 * cli_dir and build_dir may be NULL.  Empty entries are skipped, repeated
 * ones kept once; COMMTIME_PRESETS contributes at most PRESET_DIRS_MAX - 4
 * directories, so the others always stay on the path.  Release with
 * preset_dirs_release.
 */
void preset_dirs_init(struct preset_dirs *d, const char *cli_dir, const char *build_dir);
void preset_dirs_release(struct preset_dirs *d);

/*
 * Find and load a preset by name or path.  Returns 0, or -1 with eb filled:
 * "unknown preset 'x'" (with the directories searched), or
 * "file:line: ..." for a malformed file.  The first DIR/NAME.preset that
 * exists is loaded, and its `name` must be NAME ("file:line: name 'y' does
 * not match the file name 'x.preset'"); so must a file given by a path
 * that ends in ".preset" (any other path may carry any valid name).
 */
int preset_load(const struct preset_dirs *d, const char *name_or_path,
		struct preset *p, struct errbuf *eb);

/*
 * preset_load for a preset of one kind ("link", "system", "gpu",
 * "workload"): a name that is not on the search path but spells one
 * preset of that kind another way (preset_spelled) loads that one; else an
 * unknown name's "did you mean" names only a preset of that kind (by
 * prefix, else by edit distance), or nothing.  Returns 0; 1
 * when the preset loaded but is of another kind (p holds it, for the
 * caller's message; release it); -1 with eb filled.
 */
int preset_load_kind(const struct preset_dirs *d, const char *name_or_path, const char *kind,
		     struct preset *p, struct errbuf *eb);

/*
 * The preset of kind that name spells another way: the same once letters
 * are lower case and '-', '_' and spaces are dropped ("Llama-3-8B" is
 * llama3-8b).  preset_load_kind takes it when name itself is unknown.
 * Returns 1 with its name in out (len bytes), 0 when no preset or more
 * than one spells so (out empty).
 */
int preset_spelled(const struct preset_dirs *d, const char *name, const char *kind,
		   char *out, size_t len);

/*
 * Parse one file.  Returns 0, or -1 with eb filled ("path: empty preset",
 * "path: missing 'name'", "path:line: ..." for a NUL byte, invalid UTF-8 or
 * another control character, a line over 4096 bytes, a line without '=',
 * an empty or invalid key, a duplicate key, an invalid name, an unknown
 * kind).  On failure p is left empty.  Values are kept as raw text,
 * trimmed; name, kind and description point into p->kv.
 */
int preset_load_file(const char *path, struct preset *p, struct errbuf *eb);

/*
 * Parse the n bytes of buf (NUL-terminated) as the preset file path into
 * p.  buf is freed.  Returns 0, or -1 with eb filled and p empty.  The
 * reader of preset_load_file, and the check of the writer.
 */
int preset_parse(const char *path, char *buf, size_t n, struct preset *p,
		 struct errbuf *eb);

/* "name" of "dir/name.preset"; NULL when path does not end in ".preset". */
char *preset_file_stem(const char *path);

/* ---- writing (src/preset_write.c) ---- */

/*
 * Write a preset to f: each line of comment (may be NULL) as a '#' line,
 * then "key = value" for each of the nkv pairs; a pair with a NULL key is
 * a comment line between the pairs (its value is the text).  Nothing the
 * reader would refuse or read differently is written: the text is parsed
 * back with preset_load_file's own parser first, and every pair must come
 * back as it went in.  Comments are cleaned (preset_text_clean); keys and
 * values are not.  path names the file in messages.  Returns 0, or -1
 * with eb filled ("path:3: invalid name 'H100'; ...", "path: the value of
 * 'description' would not read back as written ...") and nothing written,
 * or with "cannot write 'path': ..." when f fails.
 */
int preset_write(FILE *f, const char *path, const char *comment,
		 const struct preset_kv *kv, size_t nkv, struct errbuf *eb);

/*
 * s made fit for a preset value or comment: control characters become
 * blanks, broken UTF-8 becomes U+FFFD, blanks at both ends go, and the
 * text is cut to at most max bytes at a character boundary.  Returns a
 * new string for the caller to free.
 */
char *preset_text_clean(const char *s, size_t max);

/*
 * s as it may stand in a comment and still say what it was: a backslash
 * as "\\", a control byte or a byte that is not UTF-8 as "\xNN".  For
 * file names copied into a saved preset.  The caller frees the result.
 */
char *preset_text_escape(const char *s);

/*
 * The name a preset saved at path carries: its file name less ".preset",
 * which must be a valid name with room for `reserve` more bytes (the
 * "-intra" of the links a system saves beside it).  Returns 0 with *name
 * (the caller frees it), or -1 with eb saying which names work and
 * suggesting one ("'My Sys.preset': 'My Sys' cannot be the name of a
 * preset: ... (such as 'my-sys.preset')").
 */
int preset_save_name(const char *path, size_t reserve, char **name, struct errbuf *eb);

/*
 * 0 when a preset may be saved at path: it does not exist or is a
 * regular file.  -1 with eb for a symbolic link, a directory, a device,
 * a FIFO or a socket (never written through nor replaced).
 */
int preset_save_check(const char *path, struct errbuf *eb);

/*
 * The one writer of saved presets (fit --save, fit --system --save): checks
 * path (preset_save_check) and the `name` pair (the file's stem when path
 * ends in ".preset"), writes the text of preset_write() under a temporary
 * name beside path and renames it into place (outfile.h), then loads the
 * file back with preset_load() (its name rule included) and compares every
 * pair.  Returns 0, or -1 with eb filled and path as it was before (but
 * for a file that was replaced and then failed to read back).
 */
int preset_save(const char *path, const char *comment, const struct preset_kv *kv,
		size_t nkv, struct errbuf *eb);

/* Line of key in the file (1-based), or 0 when absent. */
int preset_line(const struct preset *p, const char *key);

/* The key's entry (its value and line), or NULL when absent. */
const struct preset_kv *preset_find(const struct preset *p, const char *key);

/* Value of key, or NULL. */
const char *preset_get(const struct preset *p, const char *key);

/*
 * Value of key parsed as quantity q.  Returns 1 if found (and *x set), 0
 * if absent, -1 with "file:line: ..." in eb if it does not parse.
 */
int preset_get_quantity(const struct preset *p, const char *key,
			enum quantity q, double *x, struct errbuf *eb);

/*
 * The link of a kind = link preset: alpha (a time, 0 to 3600 s), beta (a
 * rate, > 0 and at most 1e18 B/s), optional gamma (a plain number of s/B,
 * 0 to 1; 0 when absent).  beta_line, shown but not used, must parse as a
 * rate > 0 when present.  The bounds are those of --alpha, --beta, --gamma.
 * Returns 0, or -1 with eb filled (missing key, wrong kind, bad value;
 * "file:line: ..." naming the line of the key).
 */
int preset_link(const struct preset *p, struct link *l, struct errbuf *eb);

/*
 * Every preset on the search path, first found wins for a name, sorted by
 * name.  Files that do not parse are skipped and counted in *nbad; when
 * *nbad > 0 the call still returns 0 and eb holds the message of the first
 * file skipped (files are visited in search-path order, sorted by name in
 * each directory).  A file whose `name` differs from its file name stem is
 * skipped as bad, as preset_load would refuse it.  Directories that do not
 * exist are passed over.  Free the list with preset_list_free.
 * Returns 0 (list may be empty), -1 with eb filled on allocation trouble.
 */
int preset_list(const struct preset_dirs *d, struct preset **list, size_t *n,
		size_t *nbad, struct errbuf *eb);

/* Release every preset of a list from preset_list, and the list. */
void preset_list_free(struct preset *list, size_t n);

/*
 * 1 if s is a valid preset name: a-z, 0-9, '.', '_' and '-', starting with
 * a letter or digit (so a name is never a path, a hidden file or an
 * option), at most PRESET_NAME_MAX bytes (so NAME.preset is a file name).
 */
#define PRESET_NAME_MAX 128
#define PRESET_NAME_MAX_TEXT "128"
#define PRESET_LIKE_DEPTH 8
int preset_name_valid(const char *s);

void preset_release(struct preset *p);

#endif
