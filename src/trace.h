#ifndef COMMTIME_TRACE_H
#define COMMTIME_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "model.h"
#include "trace_spill.h"
#include "util.h"

/*
 * What a training run's own record says it did: the collectives it ran
 * (from the GPU kernels NCCL launched) and, per profiler step, how long
 * the GPU computed and communicated and how much of the communication no
 * compute kernel hid.  Three inputs, told apart by content:
 *
 *   - the Chrome-trace JSON of the PyTorch profiler (Kineto), plain or
 *     gzipped, one file per rank: NCCL kernels ("ncclDevKernel_*",
 *     "ncclKernel_*") carry in their args "Collective name", "In msg
 *     nelems", "Out msg nelems", "dtype", "Group size" and the process
 *     group (PyTorch 2.1 and later); "ProfilerStep#N" annotations bound
 *     the steps; cuda_runtime events tie each kernel to its launch through
 *     "correlation";
 *   - the JSON lines of NCCL's Inspector plugin (NCCL 2.28 and later),
 *     one object per collective with its size and kernel time;
 *   - NCCL_DEBUG=INFO logs, whose "AllReduce: opCount ... count ...
 *     datatype ..." lines name each collective (no time).
 *
 * Reading streams (json.h, gz.h): memory is bounded by the number of
 * kinds of collective and steps, plus 8 bytes per collective call (the
 * median needs every duration); kernels are sorted on disk
 * (trace_spill.h).  models/trace.md has the rules and their sources.
 */

enum trace_format { TRACE_KINETO, TRACE_INSPECTOR, TRACE_NCCL_INFO };
const char *trace_format_name(enum trace_format f);   /* "PyTorch profiler trace", ... */

/* One kind of collective: the same op, size, group, dtype and process group. */
struct trace_kind {
	char op[32];            /* commtime's name ("all_reduce") or the trace's ("gather") */
	int coll;               /* enum coll_op, -1 when commtime has no model of it */
	double size_B;          /* B: elements × dtype size, nccl-tests' meaning; NaN unknown */
	double elems;           /* elements (the larger of in and out), NaN unknown */
	unsigned long ranks;    /* group size, 0 unknown */
	unsigned long stride;   /* rank distance inside the group, 0 unknown */
	char dtype[24];         /* as the trace names it ("BFloat16"), "" unknown */
	char pg[64];            /* process group: name and description, "" unknown */
	char source[12];        /* "kernel", "inspector", "nccl-info" */
	double *dur;            /* s: each call's duration (kernel or Inspector time) */
	size_t n, alloc;
	double count;           /* calls, over every file */
	int file;               /* where it was first seen */
	long line;
};

/* One profiler step of one file (rank) on one GPU. */
struct trace_step {
	int file;
	long rank;              /* the file's rank (distributedInfo), else its index */
	unsigned dev;           /* GPU (the events' device) */
	long number;            /* N of ProfilerStep#N */
	double step_s;          /* s: the annotation's length (CPU side) */
	double gpu_t0_s, gpu_t1_s;  /* s: first kernel start, last kernel end, trace clock */
	double compute_s;       /* s: union of compute-kernel intervals */
	double comm_s;          /* s: union of NCCL-kernel intervals */
	double exposed_s;       /* s: NCCL-kernel time no compute kernel overlaps */
	double busy_s;          /* s: union of both */
	double kernels, comm_kernels;
};

struct trace_file {
	char *path;
	enum trace_format format;
	long rank;              /* -1 unknown */
	long world;             /* -1 unknown */
	double events, kernels, comm_kernels, windows;
};

struct trace_window {       /* a ProfilerStep#N annotation */
	int file;
	long number;
	int64_t t0_ns, dur_ns;
};

struct trace {
	struct trace_kind *kinds;
	size_t nkinds, kinds_alloc;
	size_t *hash;           /* open addressing over kinds, SIZE_MAX empty */
	size_t hash_size;
	struct trace_file *files;
	size_t nfiles;
	struct trace_window *win;
	size_t nwin, win_alloc;
	struct trace_step *steps;
	size_t nsteps, steps_alloc;
	struct spill launch;    /* kernels and launches by correlation */
	long figure_step;       /* the step trace_analyse gave intervals of, -1 none */
};

void trace_init(struct trace *t);
void trace_release(struct trace *t);

/* Called about every 4 MiB read: bytes of the file on disk read, its size. */
typedef void (*trace_progress_fn)(void *arg, const char *path, double done_B, double size_B);

/*
 * Read one file (plain or gzip), telling its format from its content.
 * Returns 0, or -1 with "file:line: ..." (or "file: ...") in eb: malformed
 * JSON, a field of the wrong type, a negative duration, a file with
 * neither kernels nor collectives.
 */
int trace_read_file(struct trace *t, const char *path, trace_progress_fn fn, void *arg,
		    struct errbuf *eb);

/* The same from memory (tests, the fuzzer); name is used in messages. */
int trace_read_buffer(struct trace *t, const char *name, const char *buf, size_t len,
		      struct errbuf *eb);

/* What trace_analyse reports of one step's intervals. */
enum trace_iv { TRACE_IV_COMPUTE, TRACE_IV_COMM_HIDDEN, TRACE_IV_COMM_EXPOSED };
typedef void (*trace_interval_fn)(void *arg, const struct trace_step *s, enum trace_iv what,
				  double t0_s, double t1_s);

/*
 * After every file is read: tie each kernel to the step that launched it
 * (its launch's CPU time inside a ProfilerStep annotation; a kernel with
 * no launch record, by its own start), then per step and GPU the unions
 * of compute and NCCL intervals and the NCCL time outside every compute
 * interval, into t->steps (sorted by file, step, device).  For step
 * `number` (-1: none; -2: the last) fn receives the merged intervals,
 * and t->figure_step says which.  Returns 0 or -1
 * with eb (a temporary file).
 */
int trace_analyse(struct trace *t, long number, trace_interval_fn fn, void *arg,
		  struct errbuf *eb);

/* Median of a kind's durations (s), NaN when it has none. */
double trace_kind_median(const struct trace_kind *k);

/*
 * Bytes of one element of a dtype as PyTorch names it in traces ("Float",
 * "BFloat16", "Long", "Float8_e4m3fn", ...), or 0 when unknown.
 */
double trace_dtype_size(const char *dtype);

/*
 * commtime's collective for a name as PyTorch's "Collective name"
 * ("allreduce", "_allgather_base", "reduce_scatter_tensor_coalesced",
 * "all_to_all", "send"), NCCL's kernel ("AllReduce", "SendRecv") or
 * Inspector ("ReduceScatter") gives it: an enum coll_op, or -1.
 */
int trace_coll_lookup(const char *name);

/*
 * The inside of struct trace that its readers share: trace.c reads a file
 * and hands it to trace_kineto.c or trace_info.c, which add what they find
 * through trace_store.c.  Only those files define TRACE_INSIDE; commands
 * see the interface above.
 */
#ifdef TRACE_INSIDE
#include "gz.h"

#define CHUNK (1u << 20)               /* bytes read at a time */
#define TEXT_LINE_MAX (64u << 10)      /* the longest line of NCCL INFO text */
#define PROGRESS_EVERY (4.0 * 1048576) /* bytes between progress calls */

struct reader {             /* a source of bytes: a file or a buffer */
	struct gz_file *gz;
	const char *buf;
	size_t len, pos;
};

/* Up to n bytes of r into out: the count, 0 at the end, -1 with eb. */
long trace_reader_read(struct reader *r, char *out, size_t n, struct errbuf *eb);

struct lrec {               /* a kernel or a launch, by correlation */
	uint32_t file, corr;
	int64_t ts_ns;
	uint32_t dur_ns;
	uint16_t dev;
	uint8_t type;           /* 0 launch, 1 compute kernel, 2 NCCL kernel */
	uint8_t has_corr;
};

/* The order of struct lrec on disk: file, correlation, type, start. */
int trace_lcmp(const void *a, const void *b);

/* s[0..len) into dst of cap bytes, cut to fit, NUL-terminated. */
void trace_copy(char *dst, size_t cap, const char *s, size_t len);

/*
 * The kind like k (added when new); a call of duration dur (s, NaN: none).
 * The one check of what a record gives before it is kept: a size past
 * BOUND_SIZE or a duration past BOUND_TIME returns -1 with the reason in
 * eb (the caller says where).
 */
int trace_kind_add(struct trace *t, const struct trace_kind *k, double dur, struct errbuf *eb);

/* A JSON file (Kineto or Inspector) from its first chunk (got bytes) on. */
int trace_read_json(struct trace *t, int file, struct reader *r, char *chunk, long got,
		    const char *name, trace_progress_fn fn, void *arg, struct errbuf *eb);
/* NCCL INFO lines from the first chunk (got bytes) on. */
int trace_read_text(struct trace *t, int file, struct reader *r, char *chunk, long got,
		    const char *name, struct errbuf *eb);

#endif /* TRACE_INSIDE */

#endif
