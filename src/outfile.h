#ifndef COMMTIME_OUTFILE_H
#define COMMTIME_OUTFILE_H

#include <stdio.h>
#include "util.h"

/*
 * An output file that appears whole or not at all.  outfile_open() creates
 * a temporary file beside the target; outfile_commit() flushes it, checks
 * every write, and renames it into place.  Every file commtime writes
 * (tables with -o, gnuplot scripts, images, presets from fit --save) goes
 * through here, so a failed run never leaves a half-written file.
 *
 * The temporary is ".<name>.commtime-XXXXXX" in the target's directory;
 * until it is renamed, an atexit handler and handlers of the catchable
 * fatal signals (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM,
 * SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ; not those already ignored) remove
 * it, so die() or a signal leaves nothing behind.  A replaced file keeps
 * its mode, a new one gets 0666 less the umask; a symbolic link is
 * followed (the file it names is replaced); a device or FIFO (/dev/null,
 * /dev/full) is written directly.
 */

struct outfile;

/*
 * Open path for writing; NULL or "-" is standard output (given a 64 KiB
 * buffer unless it is a terminal).  Returns NULL with eb filled:
 * "cannot create 'dir/out.csv': Permission denied" (also for a read-only
 * file, a directory or a missing directory), "cannot create '': empty
 * file name".
 */
struct outfile *outfile_open(const char *path, struct errbuf *eb);

/* The stream to write to. */
FILE *outfile_stream(struct outfile *f);

/*
 * The file the data goes to before outfile_commit() renames it: the
 * temporary, or NULL when writing to standard output or a device.
 */
const char *outfile_tmp(const struct outfile *f);


/*
 * Record a write error (errno value err) found by the caller, so that
 * outfile_commit() fails with its reason.
 */
void outfile_fail(struct outfile *f, int err);

/*
 * Flush, check for write errors, close and rename into place.  Returns 0,
 * or -1 with eb filled (and the temporary removed): "cannot write
 * 'out.csv': No space left on device", "cannot write standard output:
 * ...".  Standard output is flushed and checked but not closed.  f is
 * freed either way.
 */
int outfile_commit(struct outfile *f, struct errbuf *eb);

/* Give up: close, remove the temporary, free f.  NULL is allowed. */
void outfile_abort(struct outfile *f);

/*
 * 1 when the two names lead to one file: the same file when both exist
 * (links followed), otherwise the same name in the same directory.  "-"
 * and NULL (standard output) equal each other only.  For refusing two
 * outputs of one run on one path.
 */
int outfile_same(const char *a, const char *b);

#endif
