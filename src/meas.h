#ifndef COMMTIME_MEAS_H
#define COMMTIME_MEAS_H

#include <stddef.h>
#include "util.h"

/*
 * The rows of one measurement of one collective, as every reader fills
 * them (measure.c for CSV and the loader, nccllog.c, nccljson.c,
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

struct meas {
	char *path;        /* name used in messages: "file" */
	int op;            /* enum coll_op when every row agrees, else -1 */
	unsigned long ranks; /* rank count when every row agrees, else 0 */
	int from_log;      /* 1: read from a benchmark's output, 0: from CSV */
	enum meas_format format; /* what it was read as */
	unsigned long gpus_per_thread; /* GPUs one host thread drove (nccl-tests
					 * -g, the log's nGpus), 0: not said */
	char nccl_version[16];  /* "2.29.3": the NCCL the log says it ran
				 * ("nccl-library=22903", "NCCL version 2.29.3"), "" */
	struct meas_row *rows;
	size_t n, alloc;
};

void meas_init(struct meas *m, const char *path);
void meas_release(struct meas *m);

/* Append a row (copied). */
void meas_push(struct meas *m, const struct meas_row *r);

#endif
