#ifndef COMMTIME_MEAS_H
#define COMMTIME_MEAS_H

#include <stddef.h>
#include "nccl_model.h"
#include "util.h"

/*
 * The rows of one measurement of one collective, as every reader fills
 * them (measfile.c for CSV and the loader, ntests_text.c, ntests_json.c,
 * mpilog.c for the benchmarks' outputs).  Sizes are bytes, times seconds,
 * bandwidths bytes/s; a value the input did not carry is NaN.
 */

struct meas_row {
	double size;       /* B: the size column of nccl-tests, or size_B */
	double time;       /* s: out-of-place time (CSV: the time column) */
	double algbw;      /* B/s: out-of-place algbw, NaN if absent */
	double busbw;      /* B/s: out-of-place busbw, NaN if absent */
	double time_ip;    /* s: in-place time, NaN if absent */
	double busbw_ip;   /* B/s: in-place busbw, NaN if absent */
	int op;            /* enum coll_op of this row, -1 if unknown */
	unsigned long ranks; /* rank count of this row, 0 if unknown */
	int algo;          /* enum coll_algo of a CSV "algo" column, -1 if none */
	int line;          /* line of the input it came from */
	int size_per_rank; /* 1: size is per rank (OSU, IMB all-gather and
			      all-to-all); meas_select multiplies it by ranks */
};

/* The formats meas_load_file tells apart (models/nccl-tests.md). */
enum meas_format {
	MEAS_NCCL_TEXT, MEAS_NCCL_JSON, MEAS_CSV, MEAS_OSU, MEAS_IMB
};

/* "nccl-tests log", "nccl-tests JSON", "CSV", ... for messages and output. */
const char *meas_format_name(enum meas_format format);

/*
 * One choice NCCL printed under NCCL_DEBUG_SUBSYS=TUNING (rank 0 of each
 * communicator, every call; src/enqueue.cc): "AllReduce: 4096 Bytes ->
 * Algo Tree proto LL channel{Lo..Hi}={0..1}" from 2.24 on, "4096 Bytes ->
 * Algo 0 proto 0 time 12.3" before (indices in NCCL's order, nccl_model.h;
 * 2.23 puts "AllReduce:" in front).  NCCL's byte count is nccl-tests'
 * size column, except in the named form for all-gather and
 * reduce-scatter: there it is one rank's count (task->count), which
 * meas_tuned_per_rank turns into the size once the ranks are known.
 */
struct meas_tuned {
	double size;      /* B */
	int op;           /* enum coll_op the line names, -1 when it names none */
	enum nccl_algo algo;
	enum nccl_proto proto;
	int line;         /* the first line that said it */
	int mixed;        /* 1: a later line chose otherwise for the same size */
	int per_rank;     /* 1: size is one rank's share, not yet the size column */
};

/* The most distinct (collective, size) choices kept; later ones are dropped. */
#define MEAS_TUNED_MAX 4096

/*
 * NCCL's tuning table as it prints it under NCCL_DEBUG_SUBSYS=TUNING at
 * communicator set-up (rank 0; src/graph/tuning.cc, "Algorithm |",
 * "Protocol |", then a "latency/bandwidth" cell per algorithm and
 * protocol on each function's line, three algorithms a block).  The first
 * table of the log is kept.
 */
struct meas_ncclt {
	int have;        /* 1: the log holds one */
	int line;        /* its first function line */
	double lat[NCCL_NFUNC][NCCL_NALGO][NCCL_NPROTO];  /* µs, as printed (0.1) */
	double bw[NCCL_NFUNC][NCCL_NALGO][NCCL_NPROTO];   /* GB/s, as printed; 0: not usable */
	unsigned char seen[NCCL_NFUNC][NCCL_NALGO][NCCL_NPROTO];  /* 1: a cell was read */
};

struct meas {
	char *path;        /* name used in messages: "file" */
	int op;            /* enum coll_op when every row agrees, else -1 */
	int op_inferred;   /* 1: op is all_reduce, told from the redop column
			    * and busbw / algbw (ntests_text.c), not said */
	unsigned long ranks; /* rank count when every row agrees, else 0 */
	int from_log;      /* 1: read from a benchmark's output, 0: from CSV */
	enum meas_format format; /* what it was read as */
	unsigned long gpus_per_thread; /* GPUs one host thread drove (nccl-tests
					 * -g, the log's nGpus), 0: not said */
	char nccl_version[16];  /* "2.29.3": the NCCL the log says it ran
				 * ("nccl-library=22903", "NCCL version 2.29.3"), "" */
	char nccl_proto[NCCL_LIST_MAX + 1];  /* NCCL_PROTO the run's NCCL read ("NCCL_PROTO
					      * set by environment to simple", tuning.cc;
					      * or AWS's plugin setting it), "" */
	char nccl_algo[NCCL_LIST_MAX + 1];   /* NCCL_ALGO likewise, "" */
	struct meas_row *rows;
	size_t n, alloc;
	struct meas_tuned *tuned;  /* NCCL's choices, by (op, size) increasing */
	size_t ntuned, tuned_alloc;
	struct meas_ncclt ncclt;   /* NCCL's tuning table, if the log has it */
};

void meas_init(struct meas *m, const char *path);
void meas_release(struct meas *m);

/* Append a row (copied). */
void meas_push(struct meas *m, const struct meas_row *r);

/*
 * Record one TUNING line: a new (op, size) is inserted in order, a
 * repeated one marked mixed when its choice differs.  Beyond
 * MEAS_TUNED_MAX distinct entries nothing is added.
 */
void meas_tuned_add(struct meas *m, const struct meas_tuned *t);

/*
 * Multiply the per-rank entries' sizes by ranks (dropping them when
 * ranks is 0: their size cannot be known) and restore the order.
 */
void meas_tuned_per_rank(struct meas *m, unsigned long ranks);

/*
 * NCCL's choice for op (enum coll_op) at size: the line naming op, else
 * one naming no collective; NULL when the log has neither.
 */
const struct meas_tuned *meas_tuned_find(const struct meas *m, int op, double size);

#endif
