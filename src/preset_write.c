/*
 * The writer of presets: the text of a preset, checked by reading it
 * back with the reader's own parser (preset.c), and the one way a preset
 * is saved, under a temporary name renamed into place (outfile.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "preset.h"
#include "outfile.h"

char *preset_text_clean(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0, i = 0;
	/* Each input byte becomes at most the 3 bytes of U+FFFD. */
	char *r = xmalloc(3 * n + 1);

	while (i < n) {
		size_t len = utf8_len(p + i, n - i);

		if (p[i] < 0x20 || p[i] == 0x7f) {
			r[o++] = ' ';
			i++;
		} else if (!len) {
			memcpy(r + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		} else {
			memcpy(r + o, s + i, len);
			o += len;
			i += len;
		}
	}
	r[o] = '\0';
	/* No blanks at the ends (the reader trims them), at most max bytes. */
	{
		char *b = r, *e;

		while (*b == ' ')
			b++;
		n = strlen(b);
		if (n > max) {
			n = max;
			while (n && ((unsigned char)b[n] & 0xc0) == 0x80)
				n--;
		}
		while (n && b[n - 1] == ' ')
			n--;
		e = b + n;
		*e = '\0';
		memmove(r, b, n + 1);
	}
	return r;
}

/*
 * The text of the file: comment lines, then the pairs.  Returns a
 * NUL-terminated buffer; *n gets its length.
 */
static char *preset_text(const char *comment, const struct preset_kv *kv, size_t nkv,
			 size_t *n)
{
	size_t alloc = 256, len = 0, i;
	char *buf = xmalloc(alloc);

#define PUT(s, k) do { \
		size_t k_ = (k); \
		if (len + k_ + 1 > alloc) { \
			alloc = 2 * (len + k_ + 1); \
			buf = xrealloc(buf, alloc); \
		} \
		memcpy(buf + len, (s), k_); \
		len += k_; \
	} while (0)
	while (comment && *comment) {
		const char *nl = strchr(comment, '\n');
		size_t k = nl ? (size_t)(nl - comment) : strlen(comment);
		char *line = xmalloc(k + 1), *clean;

		memcpy(line, comment, k);
		line[k] = '\0';
		clean = preset_text_clean(line, PRESET_LINE_MAX - 2);
		PUT("#", 1);
		if (*clean)
			PUT(" ", 1);
		PUT(clean, strlen(clean));
		PUT("\n", 1);
		free(clean);
		free(line);
		comment += k + (nl != NULL);
	}
	for (i = 0; i < nkv; i++) {
		if (!kv[i].key) {
			/* a comment between the pairs */
			char *clean = preset_text_clean(kv[i].value, PRESET_LINE_MAX - 2);

			PUT("# ", 2);
			PUT(clean, strlen(clean));
			PUT("\n", 1);
			free(clean);
			continue;
		}
		PUT(kv[i].key, strlen(kv[i].key));
		PUT(" = ", 3);
		PUT(kv[i].value, strlen(kv[i].value));
		PUT("\n", 1);
	}
#undef PUT
	buf[len] = '\0';
	*n = len;
	return buf;
}

int preset_write(FILE *f, const char *path, const char *comment,
		 const struct preset_kv *kv, size_t nkv, struct errbuf *eb)
{
	struct preset back;
	size_t n, i, j;
	char *text = preset_text(comment, kv, nkv, &n);

	/*
	 * Read the text back with the reader itself: what is written is
	 * what the next run loads, key for key, or nothing is written.
	 */
	if (preset_parse(path, xstrdup(text), n, &back, eb) < 0) {
		free(text);
		return -1;
	}
	for (i = j = 0; i < nkv; i++) {
		if (!kv[i].key)
			continue;
		if (j >= back.nkv || strcmp(back.kv[j].key, kv[i].key) ||
		    strcmp(back.kv[j].value, kv[i].value)) {
			errbuf_set(eb, "%s: the value of '%s' would not read back as written "
				   "(a line break, or blanks at its ends?)", path, kv[i].key);
			preset_release(&back);
			free(text);
			return -1;
		}
		j++;
	}
	if (j != back.nkv) {
		errbuf_set(eb, "%s: a value would add the key '%s' (a line break in it?)",
			   path, back.kv[j].key);
		preset_release(&back);
		free(text);
		return -1;
	}
	preset_release(&back);
	errno = 0;
	if (fwrite(text, 1, n, f) != n) {
		free(text);
		return errbuf_set(eb, "cannot write '%s': %s", path,
				  strerror(errno ? errno : EIO));
	}
	free(text);
	return 0;
}

char *preset_text_escape(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0, i = 0;
	/* Each byte becomes at most the 4 bytes of "\xNN". */
	char *r = xmalloc(4 * n + 1);

	while (i < n) {
		size_t len = utf8_len(p + i, n - i);

		if (p[i] == '\\') {
			memcpy(r + o, "\\\\", 2);
			o += 2;
			i++;
		} else if (p[i] < 0x20 || p[i] == 0x7f || !len) {
			o += (size_t)sprintf(r + o, "\\x%02x", p[i]);
			i++;
		} else {
			memcpy(r + o, s + i, len);
			o += len;
			i += len;
		}
	}
	r[o] = '\0';
	return r;
}

/* A valid name made of s: lower case, other bytes as '-', no leading '-'. */
static void name_like(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 1 < len && o < PRESET_NAME_MAX; s++) {
		char c = *s;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
		      c == '_' || c == '-'))
			c = '-';
		if (o == 0 && !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			continue;
		if (c == '-' && o > 0 && buf[o - 1] == '-')
			continue;
		buf[o++] = c;
	}
	while (o > 0 && buf[o - 1] == '-')
		o--;
	buf[o] = '\0';
}

int preset_save_name(const char *path, size_t reserve, char **name, struct errbuf *eb)
{
	char *stem = preset_file_stem(path);
	char like[PRESET_NAME_MAX + 1];

	*name = NULL;
	if (!stem)
		return errbuf_set(eb, "'%s': a preset is saved as NAME.preset, so that the "
				  "name it carries is its file's", path);
	if (preset_name_valid(stem) && strlen(stem) + reserve <= PRESET_NAME_MAX) {
		*name = stem;
		return 0;
	}
	name_like(stem, like, sizeof(like) - reserve);
	errbuf_set(eb, "'%s': '%s' cannot be the name of a preset: names use a-z, 0-9, "
		   "'.', '_' and '-', start with a letter or digit and are at most %zu bytes "
		   "long; the file carries its name%s%s%s", path, stem,
		   (size_t)PRESET_NAME_MAX - reserve, *like ? " (such as '" : "", like,
		   *like ? ".preset')" : "");
	free(stem);
	return -1;
}

int preset_save_check(const char *path, struct errbuf *eb)
{
	struct stat st;

	if (!*path)
		return errbuf_set(eb, "cannot create '': empty file name");
	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return errbuf_set(eb, "cannot create '%s': %s", path, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return errbuf_set(eb, "'%s' exists and is not a regular file (%s); a preset "
				  "is saved as a new file or over a regular one", path,
				  S_ISLNK(st.st_mode) ? "a symbolic link" :
				  S_ISDIR(st.st_mode) ? "a directory" :
				  S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
				  S_ISFIFO(st.st_mode) ? "a FIFO" : "a socket");
	return 0;
}

int preset_save(const char *path, const char *comment, const struct preset_kv *kv,
		size_t nkv, struct errbuf *eb)
{
	struct outfile *out;
	struct preset back;
	size_t i, j;
	char *stem;

	if (preset_save_check(path, eb) < 0)
		return -1;
	stem = preset_file_stem(path);
	for (i = 0; stem && i < nkv; i++)
		if (kv[i].key && !strcmp(kv[i].key, "name") && strcmp(kv[i].value, stem)) {
			errbuf_set(eb, "'%s': the name '%s' is not the file's ('%s')", path,
				   kv[i].value, stem);
			free(stem);
			return -1;
		}
	free(stem);
	out = outfile_open(path, eb);
	if (!out)
		return -1;
	if (!outfile_tmp(out)) {
		/* standard output or a device appeared since the check */
		outfile_abort(out);
		return errbuf_set(eb, "'%s' is not a regular file; a preset is saved as a "
				  "new file or over a regular one", path);
	}
	if (preset_write(outfile_stream(out), path, comment, kv, nkv, eb) < 0) {
		outfile_abort(out);
		return -1;
	}
	if (outfile_commit(out, eb) < 0)
		return -1;
	/* What the next run reads, pair for pair, or the command fails. */
	if (preset_load(NULL, path, &back, eb) < 0)
		return -1;
	for (i = j = 0; i < nkv; i++) {
		if (!kv[i].key)
			continue;
		if (j >= back.nkv || strcmp(back.kv[j].key, kv[i].key) ||
		    strcmp(back.kv[j].value, kv[i].value))
			break;
		j++;
	}
	if (i < nkv || j != back.nkv) {
		preset_release(&back);
		return errbuf_set(eb, "%s: read back, the saved preset differs from what was "
				  "written", path);
	}
	preset_release(&back);
	return 0;
}
