/*
 * Atomic replacement of output files (outfile.h).
 *
 * The temporaries not yet renamed are on a small list that an atexit
 * handler and handlers of the fatal signals remove, so neither die() nor
 * Ctrl-C nor a resource limit leaves a half-written file or a stray
 * temporary behind.
 */
#define _XOPEN_SOURCE 700  /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "outfile.h"

struct outfile {
	FILE *f;
	char *path;            /* the target as given, for messages; NULL for stdout */
	char *target;          /* where the temporary is renamed: path, links resolved */
	char *tmp;             /* temporary beside path; NULL when written directly */
	int slot;              /* index of tmp in pending[], or -1 */
	int err;               /* errno of the first write error the caller saw */
};

/* ---- temporaries that must not survive the process ---- */

#define MAX_PENDING 16
static char *volatile pending[MAX_PENDING];
static volatile pid_t pending_owner;
static int cleanup_installed;

/* Async-signal-safe: unlink() and getpid() only. */
static void unlink_pending(void)
{
	int i;

	/* A forked child that exits must not remove its parent's files. */
	if (getpid() != pending_owner)
		return;
	for (i = 0; i < MAX_PENDING; i++) {
		char *p = pending[i];

		if (p)
			unlink(p);
	}
}

static void cleanup_at_exit(void)
{
	unlink_pending();
}

static void cleanup_on_signal(int sig)
{
	unlink_pending();
	/* Die of the same signal, so the parent sees how we ended. */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_cleanup(void)
{
	/*
	 * The signals whose default action ends the process, as they come
	 * from a terminal, kill, timeout(1) or a resource limit (ulimit -t,
	 * ulimit -f).  SIGKILL cannot be caught: it may leave the temporary,
	 * but never a half-written target.
	 */
	static const int sigs[] = {
		SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2,
		SIGXCPU, SIGXFSZ,
	};
	size_t i;

	if (cleanup_installed)
		return;
	cleanup_installed = 1;
	pending_owner = getpid();
	atexit(cleanup_at_exit);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old, sa;

		/* A signal the caller ignores (nohup) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = cleanup_on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

static int pending_add(char *path)
{
	int i;

	install_cleanup();
	for (i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = path;
			return i;
		}
	return -1;
}

/* ---- opening ---- */

static struct outfile *outfile_new(FILE *f)
{
	struct outfile *o = xmalloc(sizeof(*o));

	*o = (struct outfile){ .f = f, .slot = -1 };
	return o;
}

static struct outfile *open_stdout(void)
{
	static char buf[1 << 16];
	static int buffered;

	/*
	 * A big buffer for pipes and files; a terminal keeps its line
	 * buffering so rows and warnings appear in order.  glibc flushes
	 * anything already written before changing the buffer.
	 */
	if (!buffered) {
		buffered = 1;
		if (!isatty(fileno(stdout)))
			setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	}
	return outfile_new(stdout);
}

/*
 * The temporary's name, beside target: ".<base>.commtime-XXXXXX".  A base
 * name too long to take the prefix and suffix gets cut (at a character
 * boundary of UTF-8), so the temporary can be made whenever the target
 * can; NAME_MAX is 255 on the file systems commtime meets.
 */
static char *tmp_name(const char *target)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	size_t dirlen = (size_t)(base - target), blen = strlen(base);
	char *tmp;

	if (blen > 200) {
		blen = 200;
		while (blen && ((unsigned char)base[blen] & 0xc0) == 0x80)
			blen--;
	}
	tmp = xmalloc(dirlen + blen + sizeof(".") + sizeof(".commtime-XXXXXX"));
	sprintf(tmp, "%.*s.%.*s.commtime-XXXXXX", (int)dirlen, target, (int)blen, base);
	return tmp;
}

/* A device or a pipe, written to directly. */
static struct outfile *open_special(const char *path, struct errbuf *eb)
{
	struct outfile *o;
	FILE *f;

	if (!(f = fopen(path, "w"))) {
		errbuf_set(eb, "cannot create '%s': %s", path, strerror(errno));
		return NULL;
	}
	o = outfile_new(f);
	o->path = xstrdup(path);
	return o;
}

/*
 * The file to replace: what a symbolic link points to, not the link itself
 * (a dangling link is replaced by the file); NULL with the message set when
 * it cannot be.
 */
static char *resolve_target(const char *path, int exists, struct errbuf *eb)
{
	const char *slash, *base;
	struct stat lst;
	char *target;
	int saved;

	target = NULL;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		target = realpath(path, NULL);
	if (!target)
		target = xstrdup(path);
	/* A read-only file stays as it is, as with the shell's '>'. */
	if (exists && access(target, W_OK) < 0) {
		saved = errno;
		free(target);
		errbuf_set(eb, "cannot create '%s': %s", path, strerror(saved));
		return NULL;
	}

	slash = strrchr(target, '/');
	base = slash ? slash + 1 : target;
	if (!*base) {
		free(target);
		errbuf_set(eb, "cannot create '%s': %s", path, strerror(EISDIR));
		return NULL;
	}
	return target;
}

/*
 * Creates the temporary TMP and registers it for removal, the signals
 * blocked meanwhile; its descriptor in *FD (-1 and errno in *SAVED when
 * it fails).
 */
static struct outfile *create_temp(char *tmp, int *fdp, int *saved)
{
	struct outfile *o;
	sigset_t all, old;
	int fd;

	install_cleanup();
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	fd = mkstemp(tmp);
	*saved = errno;
	/*
	 * With stdin, stdout or stderr closed the temporary would get
	 * its descriptor, and a message meant for the terminal would
	 * land in the output file: move it above them.
	 */
	if (fd >= 0 && fd <= 2) {
		int high = fcntl(fd, F_DUPFD, 3);

		close(fd);
		fd = high;
		*saved = errno;
		if (fd < 0)
			unlink(tmp);
	}
	o = NULL;
	if (fd >= 0) {
		int slot = pending_add(tmp);

		if (slot < 0) {
			unlink(tmp);
			close(fd);
			fd = -1;
			*saved = EMFILE;
		} else {
			o = outfile_new(NULL);
			o->slot = slot;
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	*fdp = fd;
	return o;
}

struct outfile *outfile_open(const char *path, struct errbuf *eb)
{
	struct stat st;
	int exists, fd, saved;
	mode_t mode, mask;
	char *tmp, *target;
	FILE *f;
	struct outfile *o;

	if (!path || !strcmp(path, "-"))
		return open_stdout();
	if (!*path) {
		errbuf_set(eb, "cannot create '': empty file name");
		return NULL;
	}
	exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		errbuf_set(eb, "cannot create '%s': %s", path, strerror(EISDIR));
		return NULL;
	}
	/*
	 * A device or a pipe (/dev/null, /dev/stdout, a FIFO) cannot be
	 * replaced by renaming: write to it directly.
	 */
	if (exists && !S_ISREG(st.st_mode))
		return open_special(path, eb);
	if (!(target = resolve_target(path, exists, eb)))
		return NULL;
	tmp = tmp_name(target);
	o = create_temp(tmp, &fd, &saved);
	if (fd < 0) {
		free(tmp);
		free(target);
		errbuf_set(eb, "cannot create '%s': %s", path, strerror(saved));
		return NULL;
	}
	o->tmp = tmp;
	o->path = xstrdup(path);
	o->target = target;

	/* The mode a new file would get, or the mode of the file replaced. */
	if (exists) {
		mode = st.st_mode & 0777;
	} else {
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	if (fchmod(fd, mode) < 0 || !(f = fdopen(fd, "w"))) {
		saved = errno;
		close(fd);
		outfile_abort(o);
		errbuf_set(eb, "cannot create '%s': %s", path, strerror(saved));
		return NULL;
	}
	o->f = f;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return o;
}

FILE *outfile_stream(struct outfile *o)
{
	return o->f;
}

const char *outfile_tmp(const struct outfile *o)
{
	return o->tmp;
}

void outfile_fail(struct outfile *o, int err)
{
	if (!o->err)
		o->err = err ? err : EIO;
}

/* ---- closing ---- */

static void drop_temporary(struct outfile *o)
{
	if (!o->tmp)
		return;
	unlink(o->tmp);
	pending[o->slot] = NULL;
	free(o->tmp);
	o->tmp = NULL;
	o->slot = -1;
}

static void outfile_free(struct outfile *o)
{
	free(o->path);
	free(o->target);
	free(o);
}

int outfile_commit(struct outfile *o, struct errbuf *eb)
{
	int err = 0;

	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f) || o->err)
		err = o->err ? o->err : errno ? errno : EIO;

	if (o->f == stdout) {
		outfile_free(o);
		if (err)
			return errbuf_set(eb, "cannot write standard output: %s", strerror(err));
		return 0;
	}
	errno = 0;
	if (fclose(o->f) != 0 && !err)
		err = errno ? errno : EIO;
	o->f = NULL;
	if (!err && o->tmp) {
		if (rename(o->tmp, o->target) < 0)
			err = errno;
		else {
			/* Renamed: the name is no longer ours to remove. */
			pending[o->slot] = NULL;
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	if (err) {
		drop_temporary(o);
		errbuf_set(eb, "cannot write '%s': %s", o->path, strerror(err));
		outfile_free(o);
		return -1;
	}
	outfile_free(o);
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (!o)
		return;
	if (o->f && o->f != stdout)
		fclose(o->f);
	drop_temporary(o);
	outfile_free(o);
}

/* ---- one path, two outputs ---- */

/* The directory part of path, resolved, and its last component. */
static char *resolved_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	char *dir, *real, *r;
	size_t n;

	if (slash == path)
		dir = xstrdup("/");
	else if (slash) {
		n = (size_t)(slash - path);
		dir = xmalloc(n + 1);
		memcpy(dir, path, n);
		dir[n] = '\0';
	} else {
		dir = xstrdup(".");
	}
	real = realpath(dir, NULL);
	free(dir);
	if (!real)
		return xstrdup(path);
	r = xmalloc(strlen(real) + strlen(base) + 2);
	sprintf(r, "%s/%s", real, base);
	free(real);
	return r;
}

int outfile_same(const char *a, const char *b)
{
	struct stat sa, sb;
	char *ra, *rb;
	int same;

	if (!a || !b)
		return 0;
	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return !strcmp(a, b);
	/* A device (/dev/null) may take any number of outputs. */
	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	ra = resolved_name(a);
	rb = resolved_name(b);
	same = !strcmp(ra, rb);
	free(ra);
	free(rb);
	return same;
}
