/*
 * Presets: small "key = value" text files found by name on a search path.
 *
 * The format is deliberately poor: one key per line, no quoting, no
 * escapes, no trailing comments (a '#' inside a value is part of it, so
 * URLs with fragments survive).  Every file is checked strictly before
 * anything reads it, because a preset that half-loads would feed a
 * plausible but wrong α or β into every table the user prints.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bound.h"
#include "preset.h"
#include "outfile.h"

#ifndef COMMTIME_SHAREDIR
#define COMMTIME_SHAREDIR "/usr/local/share/commtime"
#endif

#define LINE_MAX_BYTES PRESET_LINE_MAX
#define FILE_MAX_BYTES (1024 * 1024)
#define SUFFIX PRESET_SUFFIX
#define SUFFIX_LEN (sizeof(SUFFIX) - 1)

/* The bounds of α, β and γ are model.h's LINK_*_MAX, as for the options. */
#define ALPHA_MAX LINK_ALPHA_MAX
#define BETA_MAX LINK_BETA_MAX
#define GAMMA_MAX LINK_GAMMA_MAX

/* ---- search path ---- */

static void dirs_add(struct preset_dirs *d, const char *dir, size_t len)
{
	size_t i;

	if (!len || d->n >= PRESET_DIRS_MAX)
		return;
	for (i = 0; i < d->n; i++)
		if (strlen(d->dirs[i]) == len && !strncmp(d->dirs[i], dir, len))
			return;
	d->dirs[d->n] = xmalloc(len + 1);
	memcpy(d->dirs[d->n], dir, len);
	d->dirs[d->n][len] = '\0';
	d->n++;
}

void preset_dirs_init(struct preset_dirs *d, const char *cli_dir, const char *build_dir)
{
	const char *env = getenv("COMMTIME_PRESETS");
	const char *share = COMMTIME_SHAREDIR "/presets";
	size_t nenv = 0;

	memset(d, 0, sizeof(*d));
	if (cli_dir)
		dirs_add(d, cli_dir, strlen(cli_dir));
	/*
	 * Keep three slots for the share directory, ./presets and the build
	 * tree's presets, so a long
	 * COMMTIME_PRESETS cannot hide the presets that ship with the tool.
	 */
	while (env && *env) {
		const char *colon = strchr(env, ':');
		size_t len = colon ? (size_t)(colon - env) : strlen(env), before = d->n;

		if (nenv < PRESET_DIRS_MAX - 4)
			dirs_add(d, env, len);
		nenv += d->n > before;
		env = colon ? colon + 1 : NULL;
	}
	dirs_add(d, share, strlen(share));
	dirs_add(d, "./presets", strlen("./presets"));
	if (build_dir)
		dirs_add(d, build_dir, strlen(build_dir));
}

void preset_dirs_release(struct preset_dirs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->dirs[i]);
	memset(d, 0, sizeof(*d));
}

/* ---- parsing one file ---- */

void preset_release(struct preset *p)
{
	size_t i;

	for (i = 0; i < p->nkv; i++) {
		free(p->kv[i].key);
		free(p->kv[i].value);
	}
	free(p->kv);
	free(p->path);
	memset(p, 0, sizeof(*p));
}

/* a-z 0-9 . _ -, starting with a letter or a digit, at most PRESET_NAME_MAX bytes. */
int preset_name_valid(const char *s)
{
	const char *c;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')) ||
	    strlen(s) > PRESET_NAME_MAX)
		return 0;
	for (c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
		      *c == '.' || *c == '_' || *c == '-'))
			return 0;
	return 1;
}

static int key_valid(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

/*
 * Check one line (without its newline) for bytes that do not belong in
 * text.  Returns 0, or -1 with "path:line: ..." in eb.
 */
static int check_text(const char *path, int lineno, const char *s, size_t n,
		      struct errbuf *eb)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t len;

		if (c == '\0')
			return errbuf_set(eb, "%s:%d: NUL byte; binary file?", path, lineno);
		if ((c < 0x20 && c != '\t' && !(c == '\r' && i + 1 == n)) || c == 0x7f)
			return errbuf_set(eb, "%s:%d: control character 0x%02x; binary file?",
					  path, lineno, c);
		len = utf8_len((const unsigned char *)s + i, n - i);
		if (!len)
			return errbuf_set(eb, "%s:%d: invalid UTF-8; binary file?", path, lineno);
		i += len;
	}
	return 0;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Trim blanks at both ends of [*s, *s + *n). */
static void trim(const char **s, size_t *n)
{
	while (*n && is_blank(**s))
		++*s, --*n;
	while (*n && is_blank((*s)[*n - 1]))
		--*n;
}

static char *xstrndup(const char *s, size_t n)
{
	char *r = xmalloc(n + 1);

	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

const struct preset_kv *preset_find(const struct preset *p, const char *key)
{
	size_t i;

	for (i = 0; i < p->nkv; i++)
		if (!strcmp(p->kv[i].key, key))
			return &p->kv[i];
	return NULL;
}

/* Parse one line into p; lines are already checked for text. */
static int parse_line(struct preset *p, int lineno, const char *s, size_t n,
		      size_t *alloc, struct errbuf *eb)
{
	const char *key, *val, *eq;
	size_t klen, vlen;
	const struct preset_kv *dup;
	char *k;

	trim(&s, &n);
	if (!n || *s == '#')
		return 0;
	eq = memchr(s, '=', n);
	if (!eq)
		return errbuf_set(eb, "%s:%d: line without '=': '%.*s'", p->path, lineno,
				  n > 60 ? 60 : (int)n, s);
	key = s;
	klen = (size_t)(eq - s);
	val = eq + 1;
	vlen = n - klen - 1;
	trim(&key, &klen);
	trim(&val, &vlen);
	if (!klen)
		return errbuf_set(eb, "%s:%d: empty key before '='", p->path, lineno);
	if (!key_valid(key, klen))
		return errbuf_set(eb, "%s:%d: invalid key '%.*s'; keys use letters, digits, "
				  "'.', '_' and '-'", p->path, lineno,
				  klen > 60 ? 60 : (int)klen, key);
	k = xstrndup(key, klen);
	dup = preset_find(p, k);
	if (dup) {
		errbuf_set(eb, "%s:%d: duplicate key '%s' (first on line %d)", p->path,
			   lineno, k, dup->line);
		free(k);
		return -1;
	}
	if (p->nkv == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 16;
		p->kv = xrealloc(p->kv, *alloc * sizeof(*p->kv));
	}
	p->kv[p->nkv].key = k;
	p->kv[p->nkv].value = xstrndup(val, vlen);
	p->kv[p->nkv].line = lineno;
	p->nkv++;
	return 0;
}

/* name, kind and description: present, not empty, well formed. */
static int check_required(struct preset *p, struct errbuf *eb)
{
	static const char *const req[] = { "name", "kind", "description" };
	const struct preset_kv *kv;
	size_t i;

	for (i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		kv = preset_find(p, req[i]);
		if (!kv)
			return errbuf_set(eb, "%s: missing '%s'", p->path, req[i]);
		if (!kv->value[0])
			return errbuf_set(eb, "%s:%d: empty '%s'", p->path, kv->line, req[i]);
	}
	kv = preset_find(p, "name");
	if (!preset_name_valid(kv->value))
		return errbuf_set(eb, "%s:%d: invalid name '%s'; names use a-z, 0-9, '.', "
				  "'_' and '-' and start with a letter or digit%s",
				  p->path, kv->line, kv->value, strlen(kv->value) > PRESET_NAME_MAX ?
				  " and are at most " PRESET_NAME_MAX_TEXT " bytes long" : "");
	p->name = kv->value;
	kv = preset_find(p, "kind");
	if (strcmp(kv->value, "link") && strcmp(kv->value, "workload") &&
	    strcmp(kv->value, "gpu") && strcmp(kv->value, "system"))
		return errbuf_set(eb, "%s:%d: unknown kind '%s'; want 'link', 'workload', "
				  "'gpu' or 'system'", p->path, kv->line, kv->value);
	p->kind = kv->value;
	p->description = preset_find(p, "description")->value;
	return 0;
}

/*
 * Read the whole file into a NUL-terminated buffer; *n gets its length.
 * The buffer grows as needed, so pipes and /dev/stdin work as well as
 * regular files, and stops one byte past the limit.
 */
static char *read_file(const char *path, size_t *n, struct errbuf *eb)
{
	FILE *f = fopen(path, "rb");
	size_t got = 0, alloc = 4096;
	char *buf;
	struct stat st;

	if (!f)
		return errbuf_set(eb, "cannot open '%s': %s", path, strerror(errno)), NULL;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return errbuf_set(eb, "cannot read '%s': %s", path, strerror(EISDIR)), NULL;
	}
	buf = xmalloc(alloc);
	for (;;) {
		got += fread(buf + got, 1, alloc - 1 - got, f);
		if (got < alloc - 1 || got > FILE_MAX_BYTES)
			break;
		alloc *= 2;
		buf = xrealloc(buf, alloc);
	}
	if (ferror(f)) {
		errbuf_set(eb, "cannot read '%s': %s", path, strerror(errno ? errno : EIO));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	if (got > FILE_MAX_BYTES) {
		free(buf);
		return errbuf_set(eb, "%s: larger than %d bytes; not a preset", path,
				  FILE_MAX_BYTES), NULL;
	}
	buf[got] = '\0';
	*n = got;
	return buf;
}

int preset_parse(const char *path, char *buf, size_t n, struct preset *p,
			struct errbuf *eb)
{
	size_t pos = 0, alloc = 0;
	int lineno = 0;

	memset(p, 0, sizeof(*p));
	p->path = xstrdup(path);
	/*
	 * A NUL byte anywhere means a binary file: say so before the first
	 * line that merely fails to parse.
	 */
	{
		const char *z = memchr(buf, '\0', n), *c;

		if (z) {
			for (c = buf, lineno = 1; c < z; c++)
				lineno += *c == '\n';
			errbuf_set(eb, "%s:%d: NUL byte; binary file?", path, lineno);
			goto fail;
		}
	}
	/* A byte order mark is not text; editors on some systems add one. */
	pos = bound_bom(buf, n);
	while (pos < n) {
		const char *line = buf + pos, *nl = memchr(line, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - line) : n - pos;

		lineno++;
		pos += len + (nl != NULL);
		if (len > LINE_MAX_BYTES) {
			errbuf_set(eb, "%s:%d: line longer than %d bytes", path, lineno,
				   LINE_MAX_BYTES);
			goto fail;
		}
		if (check_text(path, lineno, line, len, eb) < 0 ||
		    parse_line(p, lineno, line, len, &alloc, eb) < 0)
			goto fail;
	}
	free(buf);
	if (!p->nkv) {
		errbuf_set(eb, "%s: empty preset", path);
		goto fail_freed;
	}
	if (check_required(p, eb) < 0)
		goto fail_freed;
	return 0;
fail:
	free(buf);
fail_freed:
	preset_release(p);
	return -1;
}

int preset_load_file(const char *path, struct preset *p, struct errbuf *eb)
{
	size_t n;
	char *buf;

	memset(p, 0, sizeof(*p));
	buf = read_file(path, &n, eb);
	if (!buf)
		return -1;
	return preset_parse(path, buf, n, p, eb);
}

/* ---- finding presets ---- */

char *preset_file_stem(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;
	char *r;

	b = b ? b + 1 : path;
	n = strlen(b);
	if (n <= SUFFIX_LEN || strcmp(b + n - SUFFIX_LEN, SUFFIX))
		return NULL;
	r = xmalloc(n - SUFFIX_LEN + 1);
	memcpy(r, b, n - SUFFIX_LEN);
	r[n - SUFFIX_LEN] = '\0';
	return r;
}

/* A name containing '/' or ending in ".preset" is a path. */
static int is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n >= SUFFIX_LEN && !strcmp(s + n - SUFFIX_LEN, SUFFIX));
}

static char *join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *r = xmalloc(a + 1 + b + SUFFIX_LEN + 1);

	memcpy(r, dir, a);
	r[a] = '/';
	memcpy(r + a + 1, name, b);
	memcpy(r + a + 1 + b, SUFFIX, SUFFIX_LEN + 1);
	return r;
}

/*
 * A preset is called by its file name: NAME.preset is NAME, found by name
 * on the search path or given as a path, so the listing and the lookup
 * always agree.  A `name` line that differs (a shipped preset copied under
 * another file name and edited, which is how a user starts one) is read
 * as the file's name: the `name` key's value becomes the stem.  Never
 * fails; eb is unused (kept for the callers' one shape).
 */
static int check_stem(struct preset *p, const char *stem, struct errbuf *eb)
{
	struct preset_kv *kv;

	(void)eb;
	if (!strcmp(p->name, stem) || !(kv = (struct preset_kv *)preset_find(p, "name")))
		return 0;
	free(kv->value);
	kv->value = xstrdup(stem);
	p->name = kv->value;
	return 0;
}

/* Append "; did you mean 'x'?" for presets whose names start with name. */
static void suggest(const struct preset_dirs *d, const char *name, struct errbuf *eb)
{
	size_t i, nlen = strlen(name), used = strlen(eb->msg);
	int found = 0;

	for (i = 0; i < d->n && !found; i++) {
		DIR *dir = opendir(d->dirs[i]);
		struct dirent *e;

		if (!dir)
			continue;
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);

			if (len > nlen + SUFFIX_LEN && !strncmp(e->d_name, name, nlen) &&
			    !strcmp(e->d_name + len - SUFFIX_LEN, SUFFIX)) {
				snprintf(eb->msg + used, sizeof(eb->msg) - used,
					 "; did you mean '%.*s'?",
					 (int)(len - SUFFIX_LEN), e->d_name);
				found = 1;
				break;
			}
		}
		closedir(dir);
	}
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/*
 * The presets of kind nearest to name, into best: those whose name starts
 * with name first, else contains it, else the smallest edit distance, at
 * most 2 or a third of the name; every one as near, sorted, at most
 * SUGGEST_MAX, as "a" or "a', 'b' or 'c", to go between the quotes of
 * "did you mean '...'?".  Every candidate is read for its kind, so a
 * suggestion always names a preset that loads as that kind.  "" when
 * none is near.
 */
#define SUGGEST_MAX 4
static void suggest_kind(const struct preset_dirs *d, const char *name, const char *kind,
			 char *best, size_t len)
{
	char found[SUGGEST_MAX][PRESET_NAME_MAX + 1];
	size_t i, nlen = strlen(name), bestd = (size_t)-1, nf = 0, used = 0;

	best[0] = '\0';
	for (i = 0; i < d->n; i++) {
		DIR *dir = opendir(d->dirs[i]);
		struct dirent *e;

		if (!dir)
			continue;
		while ((e = readdir(dir))) {
			size_t elen = strlen(e->d_name), dist, k;
			char stem[PRESET_NAME_MAX + 1], *path;
			struct preset q;
			struct errbuf eb;
			int ok;

			if (elen <= SUFFIX_LEN || elen - SUFFIX_LEN > PRESET_NAME_MAX ||
			    strcmp(e->d_name + elen - SUFFIX_LEN, SUFFIX))
				continue;
			memcpy(stem, e->d_name, elen - SUFFIX_LEN);
			stem[elen - SUFFIX_LEN] = '\0';
			dist = !strncmp(stem, name, nlen) ? 0 : strstr(stem, name) ? 1 :
			       text_distance(name, stem);
			if (dist > bestd || (dist > 2 && dist > nlen / 3))
				continue;
			for (k = 0; k < nf && strcmp(found[k], stem); k++)
				;
			if (k < nf && dist == bestd)
				continue;    /* a later directory's file of a name already found */
			path = join(d->dirs[i], stem);
			ok = preset_load_file(path, &q, &eb) == 0;
			free(path);
			if (!ok)
				continue;
			if (q.kind && !strcmp(q.kind, kind) && q.name && !strcmp(q.name, stem)) {
				if (dist < bestd)
					nf = 0;
				bestd = dist;
				if (nf < SUGGEST_MAX)
					memcpy(found[nf++], stem, sizeof(stem));
			}
			preset_release(&q);
		}
		closedir(dir);
	}
	qsort(found, nf, sizeof(found[0]), cmp_cstr);
	for (i = 0; i < nf && used < len; i++)
		used += (size_t)snprintf(best + used, len - used, "%s%s", i == 0 ? "" :
					 i + 1 == nf ? "' or '" : "', '", found[i]);
}

int preset_load_kind(const struct preset_dirs *d, const char *name_or_path, const char *kind,
		     struct preset *p, struct errbuf *eb)
{
	char near[SUGGEST_MAX * (PRESET_NAME_MAX + 8)], *cut;
	size_t used;

	if (preset_load(d, name_or_path, p, eb) < 0) {
		char same[PRESET_NAME_MAX + 1];

		if (is_path(name_or_path) || (strncmp(eb->msg, "unknown preset '", 16) &&
					      strncmp(eb->msg, "invalid preset name '", 21)))
			return -1;
		if (preset_spelled(d, name_or_path, kind, same, sizeof(same))) {
			if (preset_load(d, same, p, eb) < 0)
				return -1;
			return p->kind && !strcmp(p->kind, kind) ? 0 : 1;
		}
		if (strncmp(eb->msg, "unknown preset '", 16))
			return -1;
		/* the suggestion of any kind gives way to one of this kind */
		cut = strstr(eb->msg, "; did you mean '");
		if (cut)
			*cut = '\0';
		suggest_kind(d, name_or_path, kind, near, sizeof(near));
		used = strlen(eb->msg);
		if (near[0])
			snprintf(eb->msg + used, sizeof(eb->msg) - used, "; did you mean '%s'?",
				 near);
		return -1;
	}
	if (!p->kind || strcmp(p->kind, kind))
		return 1;
	return 0;
}

static int load_at(const struct preset_dirs *d, const char *name_or_path,
		   struct preset *p, int depth, struct errbuf *eb);

/* Directory part of path ("." when it has none), newly allocated. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrndup(".", 1);
}

/*
 * like = NAME: every key of preset NAME (on the search path, of the same
 * kind) that p does not set itself, as if written in p on the line of
 * `like`.  A relative topo names a file beside NAME's preset, so it is
 * made to say so.  At most PRESET_LIKE_DEPTH presets deep.
 */
static int inherit(const struct preset_dirs *d, struct preset *p, int depth,
		   struct errbuf *eb)
{
	const struct preset_kv *like = preset_find(p, "like");
	struct preset base;
	struct errbuf inner;
	char *dir;
	size_t i;
	int line;

	if (!like || !d)
		return 0;
	line = like->line;
	if (depth >= PRESET_LIKE_DEPTH)
		return errbuf_set(eb, "%s:%d: like = %s: presets like one another more than %d "
				  "deep (a cycle?)", p->path, line, like->value,
				  PRESET_LIKE_DEPTH);
	if (!strcmp(like->value, p->name) || is_path(like->value))
		return errbuf_set(eb, "%s:%d: like = %s: name another preset (not itself, "
				  "not a path)", p->path, line, like->value);
	if (load_at(d, like->value, &base, depth + 1, &inner) < 0)
		return errbuf_set(eb, "%s:%d: like = %s: %s", p->path, line, like->value,
				  inner.msg);
	if (strcmp(base.kind, p->kind)) {
		errbuf_set(eb, "%s:%d: like = %s: that preset is a %s, this one a %s", p->path,
			   line, like->value, base.kind, p->kind);
		preset_release(&base);
		return -1;
	}
	dir = dir_of(base.path);
	for (i = 0; i < base.nkv; i++) {
		const struct preset_kv *kv = &base.kv[i];
		const char *skip[] = { "name", "kind", "description", "like" };
		size_t j, n = sizeof(skip) / sizeof(skip[0]);

		for (j = 0; j < n && strcmp(kv->key, skip[j]); j++)
			;
		if (j < n || preset_find(p, kv->key))
			continue;
		p->kv = xrealloc(p->kv, (p->nkv + 1) * sizeof(*p->kv));
		p->kv[p->nkv].key = xstrndup(kv->key, strlen(kv->key));
		if (!strcmp(kv->key, "topo") && kv->value[0] != '/') {
			p->kv[p->nkv].value = xmalloc(strlen(dir) + strlen(kv->value) + 2);
			sprintf(p->kv[p->nkv].value, "%s/%s", dir, kv->value);
		} else {
			p->kv[p->nkv].value = xstrndup(kv->value, strlen(kv->value));
		}
		p->kv[p->nkv].line = line;
		p->nkv++;
	}
	free(dir);
	preset_release(&base);
	return 0;
}

int preset_load(const struct preset_dirs *d, const char *name_or_path,
		struct preset *p, struct errbuf *eb)
{
	return load_at(d, name_or_path, p, 0, eb);
}

static int load_at(const struct preset_dirs *d, const char *name_or_path,
		   struct preset *p, int depth, struct errbuf *eb)
{
	size_t i, used;
	struct stat st;
	int r;

	memset(p, 0, sizeof(*p));
	if (is_path(name_or_path)) {
		char *stem = preset_file_stem(name_or_path);
		r = preset_load_file(name_or_path, p, eb);

		/* NAME.preset carries the name NAME, wherever it lies. */
		if (r == 0 && stem)
			r = check_stem(p, stem, eb);
		free(stem);
		if (r == 0 && inherit(d, p, depth, eb) < 0) {
			preset_release(p);
			return -1;
		}
		return r;
	}
	if (!preset_name_valid(name_or_path))
		return errbuf_set(eb, "invalid preset name '%s'; names use a-z, 0-9, '.', "
				  "'_' and '-' and start with a letter or digit%s", name_or_path,
				  strlen(name_or_path) > PRESET_NAME_MAX ?
				  " and are at most " PRESET_NAME_MAX_TEXT " bytes long" : "");
	for (i = 0; i < d->n; i++) {
		char *path = join(d->dirs[i], name_or_path);

		r = stat(path, &st);
		if (r < 0 && errno == ENOENT) {
			free(path);
			continue;
		}
		if (r == 0 && !S_ISREG(st.st_mode)) {
			errbuf_set(eb, "%s: not a regular file", path);
			free(path);
			return -1;
		}
		r = preset_load_file(path, p, eb);
		free(path);
		if (r < 0 || check_stem(p, name_or_path, eb) < 0)
			return -1;
		if (inherit(d, p, depth, eb) < 0) {
			preset_release(p);
			return -1;
		}
		return 0;
	}
	used = (size_t)snprintf(eb->msg, sizeof(eb->msg), "unknown preset '%s'; searched:",
				name_or_path);
	for (i = 0; i < d->n && used < sizeof(eb->msg); i++)
		used += (size_t)snprintf(eb->msg + used, sizeof(eb->msg) - used, "%s %s",
					 i ? "," : "", d->dirs[i]);
	if (!d->n)
		snprintf(eb->msg + used, sizeof(eb->msg) - used, " nothing");
	suggest(d, name_or_path, eb);
	return -1;
}

/* ---- reading values ---- */

int preset_line(const struct preset *p, const char *key)
{
	const struct preset_kv *kv = preset_find(p, key);

	return kv ? kv->line : 0;
}

const char *preset_get(const struct preset *p, const char *key)
{
	const struct preset_kv *kv = preset_find(p, key);

	return kv ? kv->value : NULL;
}

int preset_get_quantity(const struct preset *p, const char *key,
			enum quantity q, double *x, struct errbuf *eb)
{
	const struct preset_kv *kv = preset_find(p, key);
	struct errbuf e2;

	if (!kv)
		return 0;
	if (units_parse(q, kv->value, x, &e2) < 0)
		return errbuf_set(eb, "%s:%d: %s: %s", p->path, kv->line, key, e2.msg);
	return 1;
}

/* A quantity that the link needs, within [lo, hi]; lo itself excluded if open. */
static int link_value(const struct preset *p, const char *key, enum quantity q,
		      double lo, int open, double hi, const char *unit, double *x,
		      struct errbuf *eb)
{
	int r = preset_get_quantity(p, key, q, x, eb);
	const struct preset_kv *kv = preset_find(p, key);

	if (r <= 0)
		return r;
	if (*x < lo || (open && *x == lo))
		return errbuf_set(eb, "%s:%d: %s must be %s %g%s, got '%s'", p->path,
				  kv->line, key, open ? ">" : ">=", lo, unit, kv->value);
	if (*x > hi)
		return errbuf_set(eb, "%s:%d: %s '%s' is above %g%s", p->path, kv->line,
				  key, kv->value, hi, unit);
	return 1;
}

int preset_link(const struct preset *p, struct link *l, struct errbuf *eb)
{
	struct link t = { 0, 0, 0 };
	double line_rate;
	int r;

	if (!p->kind || strcmp(p->kind, "link"))
		return errbuf_set(eb, "%s:%d: preset '%s' is of kind '%s', not a link",
				  p->path, preset_find(p, "kind") ? preset_find(p, "kind")->line : 0,
				  p->name ? p->name : "?", p->kind ? p->kind : "?");
	r = link_value(p, "alpha", Q_TIME, 0, 0, ALPHA_MAX, " s", &t.alpha, eb);
	if (r < 0)
		return -1;
	if (!r)
		return errbuf_set(eb, "%s: missing 'alpha'", p->path);
	r = link_value(p, "beta", Q_RATE, BETA_MIN, 0, BETA_MAX, " B/s", &t.beta, eb);
	if (r < 0)
		return -1;
	if (!r)
		return errbuf_set(eb, "%s: missing 'beta'", p->path);
	if (link_value(p, "gamma", Q_NUMBER, 0, 0, GAMMA_MAX, " s/B", &t.gamma, eb) < 0)
		return -1;
	/* beta_line is only shown, but a typo in it should not pass unseen. */
	if (link_value(p, "beta_line", Q_RATE, BETA_MIN, 0, BETA_MAX, " B/s", &line_rate, eb) < 0)
		return -1;
	*l = t;
	return 0;
}

/* ---- listing ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_preset(const void *a, const void *b)
{
	return strcmp(((const struct preset *)a)->name, ((const struct preset *)b)->name);
}

/* The stems of the *.preset files in dir, sorted; NULL when dir cannot be read. */
static char **dir_stems(const char *path, size_t *n)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	char **v = NULL;
	size_t alloc = 0;

	*n = 0;
	if (!dir)
		return NULL;
	while ((e = readdir(dir))) {
		size_t len = strlen(e->d_name);

		char *full;
		struct stat st;
		int regular;

		if (len <= SUFFIX_LEN || strcmp(e->d_name + len - SUFFIX_LEN, SUFFIX) ||
		    e->d_name[0] == '.')
			continue;
		/* A FIFO or a device would block the listing or never end. */
		full = xmalloc(strlen(path) + len + 2);
		sprintf(full, "%s/%s", path, e->d_name);
		regular = stat(full, &st) == 0 && S_ISREG(st.st_mode);
		free(full);
		if (!regular)
			continue;
		if (*n == alloc) {
			alloc = alloc ? 2 * alloc : 32;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[(*n)++] = xstrndup(e->d_name, len - SUFFIX_LEN);
	}
	closedir(dir);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_str);
	return v;
}

int preset_list(const struct preset_dirs *d, struct preset **list, size_t *n,
		size_t *nbad, struct errbuf *eb)
{
	struct preset *out = NULL;
	char **seen = NULL;
	size_t nout = 0, aout = 0, nseen = 0, aseen = 0, i, j, k;

	*list = NULL;
	*n = *nbad = 0;
	for (i = 0; i < d->n; i++) {
		size_t ns;
		char **stems = dir_stems(d->dirs[i], &ns);

		for (j = 0; j < ns; j++) {
			struct errbuf e2;
			struct preset p;
			char *path;
			int dup = 0, ok;

			for (k = 0; k < nseen && !dup; k++)
				dup = !strcmp(seen[k], stems[j]);
			if (dup) {
				free(stems[j]);
				continue;
			}
			/* The first file of a name hides the later ones, good or bad. */
			if (nseen == aseen) {
				aseen = aseen ? 2 * aseen : 32;
				seen = xrealloc(seen, aseen * sizeof(*seen));
			}
			seen[nseen++] = stems[j];
			path = join(d->dirs[i], stems[j]);
			ok = preset_load_file(path, &p, &e2) == 0 &&
			     check_stem(&p, stems[j], &e2) == 0;   /* each releases p when it fails */
			if (ok && inherit(d, &p, 0, &e2) < 0) {
				preset_release(&p);
				ok = 0;
			}
			if (!ok) {
				if (!(*nbad)++ && eb)
					*eb = e2;
				free(path);
				continue;
			}
			free(path);
			if (nout == aout) {
				aout = aout ? 2 * aout : 32;
				out = xrealloc(out, aout * sizeof(*out));
			}
			out[nout++] = p;
		}
		free(stems);
	}
	for (k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	if (nout)
		qsort(out, nout, sizeof(*out), cmp_preset);
	*list = out;
	*n = nout;
	return 0;
}

void preset_list_free(struct preset *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		preset_release(&list[i]);
	free(list);
}
