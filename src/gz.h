#ifndef COMMTIME_GZ_H
#define COMMTIME_GZ_H

#include <stddef.h>
#include "util.h"

/*
 * Reading a file that may be gzip-compressed, through zlib (Debian
 * zlib1g-dev): gzread() inflates a .gz file and passes any other file
 * through unchanged, so one reader serves both, told apart by the gzip
 * magic bytes, not by the name.  Reads go in chunks; nothing is held but
 * zlib's window and buffers (about 300 KiB).
 */
struct gz_file;

/* Open path; NULL with "path: cannot open: ..." in eb. */
struct gz_file *gz_open(const char *path, struct errbuf *eb);

/*
 * Up to n bytes of the (inflated) content into buf.  Returns the count,
 * 0 at the end, or -1 with "path: ..." in eb (a truncated or corrupt
 * gzip stream, a read error).
 */
long gz_read(struct gz_file *g, char *buf, size_t n, struct errbuf *eb);

/* Bytes of the file on disk read so far, and its size (0 if unknown). */
double gz_done(const struct gz_file *g);
double gz_size(const struct gz_file *g);

void gz_close(struct gz_file *g);

#endif
