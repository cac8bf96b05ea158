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

#include "preset.h"

#ifndef COMMTIME_SHAREDIR
#define COMMTIME_SHAREDIR "/usr/local/share/commtime"
#endif

#define LINE_MAX_BYTES 4096
#define FILE_MAX_BYTES (1024 * 1024)
#define SUFFIX ".preset"
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

/* a-z 0-9 . _ -, starting with a letter or a digit. */
int preset_name_valid(const char *s)
{
	const char *c;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
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
 * Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0
 * when it is not one: overlong forms, surrogates and code points above
 * U+10FFFF are rejected as RFC 3629 asks.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
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

static const struct preset_kv *find_kv(const struct preset *p, const char *key)
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
	dup = find_kv(p, k);
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
		kv = find_kv(p, req[i]);
		if (!kv)
			return errbuf_set(eb, "%s: missing '%s'", p->path, req[i]);
		if (!kv->value[0])
			return errbuf_set(eb, "%s:%d: empty '%s'", p->path, kv->line, req[i]);
	}
	kv = find_kv(p, "name");
	if (!preset_name_valid(kv->value))
		return errbuf_set(eb, "%s:%d: invalid name '%s'; names use a-z, 0-9, '.', "
				  "'_' and '-' and start with a letter or digit",
				  p->path, kv->line, kv->value);
	p->name = kv->value;
	kv = find_kv(p, "kind");
	if (strcmp(kv->value, "link") && strcmp(kv->value, "workload") &&
	    strcmp(kv->value, "gpu") && strcmp(kv->value, "system"))
		return errbuf_set(eb, "%s:%d: unknown kind '%s'; want 'link', 'workload', "
				  "'gpu' or 'system'", p->path, kv->line, kv->value);
	p->kind = kv->value;
	p->description = find_kv(p, "description")->value;
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

int preset_load_file(const char *path, struct preset *p, struct errbuf *eb)
{
	size_t n, pos = 0, alloc = 0;
	int lineno = 0;
	char *buf;

	memset(p, 0, sizeof(*p));
	buf = read_file(path, &n, eb);
	if (!buf)
		return -1;
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
	if (n >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		pos = 3;
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

/* ---- finding presets ---- */

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
 * A file found by name on the search path must carry that name: the
 * listing and the lookup would disagree otherwise.
 */
static int check_stem(struct preset *p, const char *stem, struct errbuf *eb)
{
	const char *base;

	if (!strcmp(p->name, stem))
		return 0;
	base = strrchr(p->path, '/');
	errbuf_set(eb, "%s:%d: name '%s' does not match the file name '%s'", p->path,
		   find_kv(p, "name")->line, p->name, base ? base + 1 : p->path);
	preset_release(p);
	return -1;
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

int preset_load(const struct preset_dirs *d, const char *name_or_path,
		struct preset *p, struct errbuf *eb)
{
	size_t i, used;
	struct stat st;

	memset(p, 0, sizeof(*p));
	if (is_path(name_or_path))
		return preset_load_file(name_or_path, p, eb);
	if (!preset_name_valid(name_or_path))
		return errbuf_set(eb, "invalid preset name '%s'; names use a-z, 0-9, '.', "
				  "'_' and '-' and start with a letter or digit", name_or_path);
	for (i = 0; i < d->n; i++) {
		char *path = join(d->dirs[i], name_or_path);
		int r;

		if (stat(path, &st) < 0 && errno == ENOENT) {
			free(path);
			continue;
		}
		r = preset_load_file(path, p, eb);
		free(path);
		if (r < 0)
			return -1;
		return check_stem(p, name_or_path, eb);
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
	const struct preset_kv *kv = find_kv(p, key);

	return kv ? kv->line : 0;
}

const char *preset_get(const struct preset *p, const char *key)
{
	const struct preset_kv *kv = find_kv(p, key);

	return kv ? kv->value : NULL;
}

int preset_get_quantity(const struct preset *p, const char *key,
			enum quantity q, double *x, struct errbuf *eb)
{
	const struct preset_kv *kv = find_kv(p, key);
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
	const struct preset_kv *kv = find_kv(p, key);

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
				  p->path, find_kv(p, "kind") ? find_kv(p, "kind")->line : 0,
				  p->name ? p->name : "?", p->kind ? p->kind : "?");
	r = link_value(p, "alpha", Q_TIME, 0, 0, ALPHA_MAX, " s", &t.alpha, eb);
	if (r < 0)
		return -1;
	if (!r)
		return errbuf_set(eb, "%s: missing 'alpha'", p->path);
	r = link_value(p, "beta", Q_RATE, 0, 1, BETA_MAX, " B/s", &t.beta, eb);
	if (r < 0)
		return -1;
	if (!r)
		return errbuf_set(eb, "%s: missing 'beta'", p->path);
	if (link_value(p, "gamma", Q_NUMBER, 0, 0, GAMMA_MAX, " s/B", &t.gamma, eb) < 0)
		return -1;
	/* beta_line is only shown, but a typo in it should not pass unseen. */
	if (link_value(p, "beta_line", Q_RATE, 0, 1, BETA_MAX, " B/s", &line_rate, eb) < 0)
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

		if (len <= SUFFIX_LEN || strcmp(e->d_name + len - SUFFIX_LEN, SUFFIX) ||
		    e->d_name[0] == '.')
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
			int dup = 0;

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
			if (preset_load_file(path, &p, &e2) < 0 ||
			    check_stem(&p, stems[j], &e2) < 0) {
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
