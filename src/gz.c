/*
 * gz.h over zlib's gzFile.  The raw offset (gzoffset) gives the progress
 * through the file on disk, which for a compressed trace is what the
 * size on disk can be compared with.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "gz.h"

struct gz_file {
	gzFile z;
	const char *path;
	double size;
	int compressed;
};

struct gz_file *gz_open(const char *path, struct errbuf *eb)
{
	struct gz_file *g;
	struct stat st;
	unsigned char magic[2] = { 0, 0 };
	FILE *f = fopen(path, "rb");

	if (!f) {
		errbuf_set(eb, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		errbuf_set(eb, "%s: is a directory", path);
		return NULL;
	}
	g = xmalloc(sizeof(*g));
	memset(g, 0, sizeof(*g));
	g->path = path;
	g->size = S_ISREG(st.st_mode) ? (double)st.st_size : 0;
	g->compressed = fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	fclose(f);
	g->z = gzopen(path, "rb");
	if (!g->z) {
		errbuf_set(eb, "%s: cannot open: %s", path, strerror(errno ? errno : ENOMEM));
		free(g);
		return NULL;
	}
	gzbuffer(g->z, 1u << 17);
	return g;
}

long gz_read(struct gz_file *g, char *buf, size_t n, struct errbuf *eb)
{
	int got, zerr;
	const char *msg;

	if (n > (1u << 30))
		n = 1u << 30;
	got = gzread(g->z, buf, (unsigned)n);
	if (got >= 0) {
		/* gzread stops quietly at a truncated stream; gzerror says so. */
		msg = gzerror(g->z, &zerr);
		if (got == 0 && zerr == Z_BUF_ERROR)
			return errbuf_set(eb, "%s: the gzip stream ends early (a truncated file)",
					  g->path);
		return got;
	}
	msg = gzerror(g->z, &zerr);
	if (zerr == Z_ERRNO)
		return errbuf_set(eb, "%s: read error: %s", g->path, strerror(errno));
	return errbuf_set(eb, "%s: corrupt gzip data: %s", g->path, msg ? msg : "error");
}

double gz_done(const struct gz_file *g)
{
	z_off_t o = gzoffset(g->z);
	return o >= 0 ? (double)o : 0;
}

double gz_size(const struct gz_file *g)
{
	return g->size;
}

void gz_close(struct gz_file *g)
{
	if (!g)
		return;
	gzclose(g->z);
	free(g);
}
