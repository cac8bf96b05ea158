/*
 * The output writers: a human table, CSV and JSON, all fed the same rows
 * through one interface (table.h), and the atomic replacement of -o FILE.
 *
 * Rows are written as they come; nothing is kept beyond a block of about
 * 64 KiB and stdio's buffer, so a sweep of millions of rows runs in
 * constant memory.  The human table therefore cannot measure its cells
 * first: column widths come from the column specs (width and label), and
 * a wider cell just pushes the rest of its row to the right.  Numbers in
 * CSV and JSON come from fmt_double (fmt.c).
 *
 * Output to a file goes to a temporary file beside it, renamed into place
 * by out_close().  Until then the temporary is on a list that an atexit
 * handler and handlers of the fatal signals (SIGINT, SIGTERM, SIGHUP,
 * SIGPIPE, SIGQUIT, SIGALRM, SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ) remove,
 * so neither die() nor Ctrl-C nor a resource limit leaves a half-written
 * file or a stray temporary behind.
 */
#define _XOPEN_SOURCE 700  /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <csv.h>

#include "fmt.h"
#include "table.h"
#include "units.h"

struct out {
	enum out_format fmt;
	FILE *f;
	char *path;            /* the target as given, for messages; NULL for stdout */
	char *target;          /* where the temporary is renamed: path, links resolved */
	char *tmp;             /* temporary beside path; NULL when written directly */
	int slot;              /* index of tmp in pending[], or -1 */

	/* human table */
	int lines;             /* lines written so far */
	int last_blank;        /* the last line written was empty */
	size_t *width;         /* display width of each column of the table */
	char *line;            /* the line being built */
	size_t line_len, line_alloc;

	/* all formats */
	const struct table *t; /* the table being written, or NULL */
	int tables;            /* tables begun */
	int csv_this;          /* the current table is the CSV table */
	int csv_done;          /* the CSV table has been chosen */
	size_t rows;           /* rows of the current table */
	int json_keys;         /* keys written in the JSON object */
	int json_inputs;       /* the "inputs" object is open */
	size_t json_ninputs;
	int batch;             /* CSV and JSON: write rows in blocks, not one by one */
	int failed;            /* a write failed: format nothing more */
	int err;               /* errno of that failure */
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

/* ---- opening and closing ---- */

int out_format_parse(const char *s, enum out_format *fmt, struct errbuf *eb)
{
	if (!strcmp(s, "table"))
		*fmt = FMT_TABLE;
	else if (!strcmp(s, "csv"))
		*fmt = FMT_CSV;
	else if (!strcmp(s, "json"))
		*fmt = FMT_JSON;
	else
		return errbuf_set(eb, "unknown format '%s' (want table, csv or json)", s);
	return 0;
}

enum out_format out_get_format(const struct out *o)
{
	return o->fmt;
}

static struct out *out_new(enum out_format fmt, FILE *f)
{
	struct out *o = xmalloc(sizeof(*o));

	memset(o, 0, sizeof(*o));
	o->fmt = fmt;
	o->f = f;
	o->slot = -1;
	/* A terminal sees each row as it is made; anything else gets blocks. */
	o->batch = !f || !isatty(fileno(f));
	return o;
}

static struct out *open_stdout(enum out_format fmt)
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
	return out_new(fmt, stdout);
}

struct out *out_open(enum out_format fmt, const char *path, struct errbuf *eb)
{
	const char *slash, *base;
	struct stat st, lst;
	int exists, fd, saved;
	mode_t mode, mask;
	size_t dirlen;
	char *tmp, *target;
	FILE *f;
	struct out *o;

	if (!path || !strcmp(path, "-"))
		return open_stdout(fmt);
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
	if (exists && !S_ISREG(st.st_mode)) {
		if (!(f = fopen(path, "w"))) {
			errbuf_set(eb, "cannot create '%s': %s", path, strerror(errno));
			return NULL;
		}
		o = out_new(fmt, f);
		o->path = xstrdup(path);
		return o;
	}

	/*
	 * Replace what a symbolic link points to, not the link itself
	 * (a dangling link is replaced by the file).
	 */
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
	dirlen = slash ? (size_t)(base - target) : 0;
	if (!*base) {
		free(target);
		errbuf_set(eb, "cannot create '%s': %s", path, strerror(EISDIR));
		return NULL;
	}
	tmp = xmalloc(dirlen + strlen(base) + sizeof(".") + sizeof(".commtime-XXXXXX"));
	sprintf(tmp, "%.*s.%s.commtime-XXXXXX", (int)dirlen, target, base);

	/* Block the signals while the name is made and registered. */
	install_cleanup();
	{
		sigset_t all, old;

		sigfillset(&all);
		sigprocmask(SIG_BLOCK, &all, &old);
		fd = mkstemp(tmp);
		saved = errno;
		/*
		 * With stdin, stdout or stderr closed the temporary would get
		 * its descriptor, and a message meant for the terminal would
		 * land in the output file: move it above them.
		 */
		if (fd >= 0 && fd <= 2) {
			int high = fcntl(fd, F_DUPFD, 3);

			close(fd);
			fd = high;
			saved = errno;
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
				saved = EMFILE;
			} else {
				o = out_new(fmt, NULL);
				o->slot = slot;
			}
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
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
		out_abort(o);
		errbuf_set(eb, "cannot create '%s': %s", path, strerror(saved));
		return NULL;
	}
	o->f = f;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	return o;
}

static void drop_temporary(struct out *o)
{
	if (!o->tmp)
		return;
	unlink(o->tmp);
	pending[o->slot] = NULL;
	free(o->tmp);
	o->tmp = NULL;
	o->slot = -1;
}

static void out_free(struct out *o)
{
	free(o->path);
	free(o->target);
	free(o->width);
	free(o->line);
	free(o);
}

static void json_finish(struct out *o);
static void line_write(struct out *o);

int out_close(struct out *o, struct errbuf *eb)
{
	int err = 0;

	if (o->t)
		out_table_end(o);
	if (o->fmt == FMT_JSON)
		json_finish(o);
	if (o->fmt != FMT_TABLE)
		line_write(o);

	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f) || o->failed)
		err = o->err ? o->err : errno ? errno : EIO;

	if (o->f == stdout) {
		out_free(o);
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
		out_free(o);
		return -1;
	}
	out_free(o);
	return 0;
}

void out_abort(struct out *o)
{
	if (!o)
		return;
	if (o->f && o->f != stdout)
		fclose(o->f);
	drop_temporary(o);
	out_free(o);
}

/* ---- numbers ---- */

/* An integral column: every digit when the value is a whole number. */
static int fmt_int(char *buf, double x)
{
	if (isfinite(x) && x == floor(x) && fabs(x) < 1e18) {
		/* no "-0" for a count */
		if (x < 0) {
			*buf = '-';
			return 1 + fmt_u64(buf + 1, (uint64_t)-x);
		}
		return fmt_u64(buf, (uint64_t)x);
	}
	return fmt_double(buf, x);
}

/* How a number looks in the human table. */
static void fmt_human(char *buf, size_t len, double x, enum col_type type,
		      enum col_human human, double scale, const char *suffix, int prec)
{
	if (isnan(x)) {
		buf[0] = '\0';
		return;
	}
	switch (human) {
	case H_FIXED:
		if (!(scale > 0))
			scale = 1;
		if (suffix && *suffix)
			snprintf(buf, len, "%.*f %s", prec < 0 ? 0 : prec, x / scale, suffix);
		else
			snprintf(buf, len, "%.*f", prec < 0 ? 0 : prec, x / scale);
		break;
	case H_TIME:
		units_fmt_time(buf, len, x, prec);
		return;
	case H_SIZE:
		units_fmt_size(buf, len, x);
		return;
	case H_RATE:
		units_fmt_rate(buf, len, x, prec);
		return;
	case H_PERCENT:
		snprintf(buf, len, "%.*f %%", prec < 0 ? 0 : prec, 100 * x);
		break;
	case H_PLAIN:
	default:
		if (isfinite(x) && x == floor(x) && (type == COL_INT || fabs(x) < 1e15)) {
			fmt_int(buf, x);
			return;
		}
		snprintf(buf, len, "%.*g", prec > 0 ? prec : 6, x);
		break;
	}
	fmt_fix_point(buf);
}

/* ---- the human table ---- */

/* Display width: UTF-8 code points (µ counts one), not bytes. */
static size_t text_width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

static void line_add(struct out *o, const char *s, size_t n)
{
	if (o->line_len + n + 1 > o->line_alloc) {
		o->line_alloc = 2 * (o->line_len + n + 1) + 64;
		o->line = xrealloc(o->line, o->line_alloc);
	}
	memcpy(o->line + o->line_len, s, n);
	o->line_len += n;
	o->line[o->line_len] = '\0';
}

/* Remember the first write error, with its reason, for out_close(). */
static void write_failed(struct out *o)
{
	if (!o->failed && errno)
		o->err = errno;
	o->failed = 1;
}

/* Room for n more bytes at the end of the line; the caller adds to line_len. */
static char *line_room(struct out *o, size_t n)
{
	if (o->line_len + n + 1 > o->line_alloc) {
		o->line_alloc = 2 * (o->line_len + n + 1) + 64;
		o->line = xrealloc(o->line, o->line_alloc);
	}
	return o->line + o->line_len;
}

static void line_str(struct out *o, const char *s)
{
	line_add(o, s, strlen(s));
}

static void line_char(struct out *o, char c)
{
	line_add(o, &c, 1);
}

/* Write out the buffer. */
static void line_write(struct out *o)
{
	errno = 0;
	if (o->line_len && (fwrite(o->line, 1, o->line_len, o->f) != o->line_len ||
			    ferror(o->f)))
		write_failed(o);
	o->line_len = 0;
}

/*
 * CSV and JSON rows are built in the line buffer and written in blocks of
 * about 64 KiB: stdio's per-call locking and bookkeeping cost more than
 * the formatting of a row, and a block that fills stdio's buffer goes
 * straight to write() without another copy.  To a terminal, every row.
 */
#define BLOCK (1 << 16)
static void line_flush(struct out *o)
{
	if (!o->batch || o->line_len >= BLOCK)
		line_write(o);
}

static void line_pad(struct out *o, size_t n)
{
	static const char blanks[] = "                                ";

	while (n > 0) {
		size_t k = n < sizeof(blanks) - 1 ? n : sizeof(blanks) - 1;

		line_add(o, blanks, k);
		n -= k;
	}
}

/* Write the line built so far without trailing blanks, and start anew. */
static void line_emit(struct out *o)
{
	while (o->line_len && o->line[o->line_len - 1] == ' ')
		o->line_len--;
	errno = 0;
	fwrite(o->line ? o->line : "", 1, o->line_len, o->f);
	if (fputc('\n', o->f) == EOF || ferror(o->f))
		write_failed(o);
	o->last_blank = o->line_len == 0;
	o->lines++;
	o->line_len = 0;
}

static void line_cell(struct out *o, const char *s, size_t width, int left, int first)
{
	size_t w = text_width(s);

	if (!first)
		line_add(o, "  ", 2);
	if (!left && w < width)
		line_pad(o, width - w);
	line_add(o, s, strlen(s));
	if (left && w < width)
		line_pad(o, width - w);
}

/* ---- JSON ---- */

static void json_string(struct out *o, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t plain = 0;

	/* Keys and most values are plain ASCII: copied in one piece. */
	while (p[plain] >= 0x20 && p[plain] < 0x80 && p[plain] != '"' && p[plain] != '\\')
		plain++;
	if (!p[plain]) {
		char *q = line_room(o, plain + 2);

		q[0] = '"';
		memcpy(q + 1, s, plain);
		q[plain + 1] = '"';
		o->line_len += plain + 2;
		o->line[o->line_len] = '\0';
		return;
	}
	line_char(o, '"');
	while (*p) {
		unsigned c = *p;
		size_t n = 0, i;

		if (c == '"' || c == '\\') {
			line_char(o, '\\');
			line_char(o, (char)c);
			p++;
			continue;
		}
		if (c < 0x20) {
			switch (c) {
			case '\b': line_str(o, "\\b"); break;
			case '\f': line_str(o, "\\f"); break;
			case '\n': line_str(o, "\\n"); break;
			case '\r': line_str(o, "\\r"); break;
			case '\t': line_str(o, "\\t"); break;
			default:
				snprintf(line_room(o, 8), 8, "\\u%04x", c);
				o->line_len += 6;
				break;
			}
			p++;
			continue;
		}
		if (c < 0x80) {
			line_char(o, (char)c);
			p++;
			continue;
		}
		/* Copy valid UTF-8; replace a broken byte with U+FFFD. */
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		for (i = 1; n && i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				n = 0;
		if (n == 2 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f)))
			n = 0;  /* overlong, or a UTF-16 surrogate */
		if (n == 3 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f)))
			n = 0;  /* overlong, or above U+10FFFF */
		if (!n) {
			line_str(o, "\\ufffd");
			p++;
			continue;
		}
		line_add(o, (const char *)p, n + 1);
		p += n + 1;
	}
	line_char(o, '"');
}

/* A number straight into the line: fmt_double writes at most 31 bytes. */
static void line_number(struct out *o, double x, enum col_type type)
{
	char *p = line_room(o, 32);

	if (type == COL_INT)
		o->line_len += (size_t)fmt_int(p, x);
	else
		o->line_len += (size_t)fmt_double(p, x);
}

static void json_number(struct out *o, double x, enum col_type type)
{
	if (!isfinite(x))
		line_str(o, "null");
	else
		line_number(o, x, type);
}

/* Start the next key of the top-level object. */
static void json_key(struct out *o, const char *key)
{
	line_str(o, o->json_keys++ ? ",\n  " : "{\n  ");
	json_string(o, key);
	line_str(o, ": ");
}

static void json_close_inputs(struct out *o)
{
	if (o->json_inputs) {
		line_str(o, "\n  }");
		o->json_inputs = 0;
	}
}

static void json_finish(struct out *o)
{
	json_close_inputs(o);
	line_str(o, o->json_keys ? "\n}\n" : "{}\n");
	line_flush(o);
}

static void json_input_key(struct out *o, const char *key)
{
	/* Inputs come before the tables; a late one is left out. */
	if (!o->json_inputs) {
		json_key(o, "inputs");
		line_char(o, '{');
		o->json_inputs = 1;
	}
	line_str(o, o->json_ninputs++ ? ",\n    " : "\n    ");
	json_string(o, key);
	line_str(o, ": ");
}

/* ---- CSV ---- */

/* A field, quoted by libcsv only when it has to be. */
static void csv_field(struct out *o, const char *s)
{
	size_t n = strlen(s), need;

	if (strpbrk(s, ",\"\r\n") || (n && (s[0] == ' ' || s[0] == '\t' ||
					     s[n - 1] == ' ' || s[n - 1] == '\t'))) {
		need = csv_write(NULL, 0, s, n);
		o->line_len += csv_write(line_room(o, need), need, s, n);
		o->line[o->line_len] = '\0';
	} else {
		line_add(o, s, n);
	}
}

/* ---- the interface ---- */

void out_input(struct out *o, const char *key, const char *label,
	       double value, enum col_human human, int prec, const char *note)
{
	char buf[128];

	switch (o->fmt) {
	case FMT_TABLE:
		fmt_human(buf, sizeof(buf), value, COL_NUM, human, 1, NULL, prec);
		line_add(o, label, strlen(label));
		line_add(o, ": ", 2);
		line_add(o, buf, strlen(buf));
		if (note) {
			line_add(o, " (", 2);
			line_add(o, note, strlen(note));
			line_add(o, ")", 1);
		}
		line_emit(o);
		break;
	case FMT_JSON:
		if (o->tables)
			break;
		json_input_key(o, key);
		json_number(o, value, COL_NUM);
		line_flush(o);
		break;
	case FMT_CSV:
		break;
	}
}

void out_input_str(struct out *o, const char *key, const char *label, const char *value)
{
	switch (o->fmt) {
	case FMT_TABLE:
		line_add(o, label, strlen(label));
		line_add(o, ": ", 2);
		line_add(o, value, strlen(value));
		line_emit(o);
		break;
	case FMT_JSON:
		if (o->tables)
			break;
		json_input_key(o, key);
		json_string(o, value);
		line_flush(o);
		break;
	case FMT_CSV:
		break;
	}
}

void out_text(struct out *o, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];
	int n;

	if (o->fmt != FMT_TABLE)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(buf)) {
		line_add(o, buf, (size_t)n);
	} else {
		char *big = xmalloc((size_t)n + 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		line_add(o, big, (size_t)n);
		free(big);
	}
	line_emit(o);
}

static int shown(const struct out *o, const struct column *c)
{
	if (o->fmt == FMT_TABLE)
		return !(c->flags & COL_DATA_ONLY);
	return !(c->flags & COL_TABLE_ONLY);
}

void out_table_begin(struct out *o, const struct table *t)
{
	size_t i;
	int first = 1;

	if (o->t)
		out_table_end(o);
	o->t = t;
	o->rows = 0;
	o->tables++;
	switch (o->fmt) {
	case FMT_TABLE:
		free(o->width);
		o->width = xmalloc((t->ncols ? t->ncols : 1) * sizeof(*o->width));
		if (o->lines && !o->last_blank)
			line_emit(o);
		if (t->title) {
			line_add(o, t->title, strlen(t->title));
			line_emit(o);
		}
		for (i = 0; i < t->ncols; i++) {
			const struct column *c = &t->cols[i];
			size_t lw = text_width(c->label ? c->label : c->key);

			o->width[i] = c->width > 0 && (size_t)c->width > lw ? (size_t)c->width : lw;
			if (!shown(o, c))
				continue;
			line_cell(o, c->label ? c->label : c->key, o->width[i],
				  c->type == COL_STR, first);
			first = 0;
		}
		line_emit(o);
		break;
	case FMT_CSV:
		o->csv_this = !t->secondary && !o->csv_done;
		if (!o->csv_this)
			break;
		o->csv_done = 1;
		for (i = 0; i < t->ncols; i++) {
			if (!shown(o, &t->cols[i]))
				continue;
			if (!first)
				line_char(o, ',');
			csv_field(o, t->cols[i].key);
			first = 0;
		}
		line_char(o, '\n');
		line_flush(o);
		break;
	case FMT_JSON:
		json_close_inputs(o);
		json_key(o, t->name ? t->name : "table");
		line_char(o, '[');
		line_flush(o);
		break;
	}
}

void out_row(struct out *o, const struct cell *cells)
{
	const struct table *t = o->t;
	char buf[128];
	size_t i;
	int first = 1;

	/*
	 * After a write error (a full disk, a closed pipe) the rest of a long
	 * sweep is not formatted; out_close() reports the error.
	 */
	if (!t || o->failed)
		return;
	o->rows++;
	switch (o->fmt) {
	case FMT_TABLE:
		for (i = 0; i < t->ncols; i++) {
			const struct column *c = &t->cols[i];
			const char *s = cells[i].s;

			if (!shown(o, c))
				continue;
			if (!s) {
				fmt_human(buf, sizeof(buf), cells[i].x, c->type, c->human,
					  c->scale, c->suffix, c->prec);
				s = buf;
			}
			line_cell(o, s, o->width[i], c->type == COL_STR, first);
			first = 0;
		}
		line_emit(o);
		break;
	case FMT_CSV:
		if (!o->csv_this)
			break;
		for (i = 0; i < t->ncols; i++) {
			const struct column *c = &t->cols[i];

			if (!shown(o, c))
				continue;
			if (!first)
				line_char(o, ',');
			first = 0;
			if (cells[i].s)
				csv_field(o, cells[i].s);
			else if (!isnan(cells[i].x))
				line_number(o, cells[i].x, c->type);
			/* NaN: an empty field, which pandas reads as NaN */
		}
		line_char(o, '\n');
		line_flush(o);
		break;
	case FMT_JSON:
		line_str(o, o->rows > 1 ? ",\n    {" : "\n    {");
		for (i = 0; i < t->ncols; i++) {
			const struct column *c = &t->cols[i];

			if (!shown(o, c))
				continue;
			if (!first)
				line_str(o, ", ");
			first = 0;
			json_string(o, c->key);
			line_str(o, ": ");
			if (cells[i].s)
				json_string(o, cells[i].s);
			else
				json_number(o, cells[i].x, c->type);
		}
		line_char(o, '}');
		line_flush(o);
		break;
	}
}

void out_table_end(struct out *o)
{
	if (!o->t)
		return;
	if (o->fmt == FMT_JSON) {
		line_str(o, o->rows ? "\n  ]" : "]");
		line_flush(o);
	}
	o->csv_this = 0;
	o->t = NULL;
}

FILE *out_file(struct out *o)
{
	return o->f;
}

const char *out_tmp_path(const struct out *o)
{
	return o->tmp;
}

int out_failed(const struct out *o)
{
	return o->failed;
}
