#ifndef COMMTIME_ERRBAND_H
#define COMMTIME_ERRBAND_H

#include <stddef.h>

#include "util.h"

/*
 * The stated error of NCCL's model: how far the measured all-reduce times of
 * the public nccl-tests and rccl-tests logs (tests/data/nccl/README.md) fell from the
 * model's, as the ratio measured time / predicted time, by where the run
 * sits (one node or several) and by message size.  A prediction t is
 * stated as "a run should measure t·lo to t·hi": the 10th and 90th
 * percentiles of the ratio, widened by a margin (a factor below the one and
 * above the other) until a machine left out of the drawing falls inside
 * ERRBAND_TARGET of the time, the margin grown by sqrt(1 + 1/machines) for
 * a cell that stands on few machines; never so that the prediction itself
 * (ratio 1) is outside.  A cell too thin to state (ERRBAND_MIN_LOGS,
 * ERRBAND_MIN_MACHINES) gives way to its size class over any node count.
 * The table is written by tools/errband-gen from
 * the rows of bench/accuracy.sh (make errband) and checked against them by
 * tests/t-errband.sh; no constant of the model comes from it.
 * models/nccl-accuracy.md, "The stated error".
 */

enum errband_scope {
	ERRBAND_ONE_NODE,       /* every rank on one node */
	ERRBAND_NODES,          /* two or more nodes */
	ERRBAND_ANY_NODES,      /* one node and several together: the wider cell a
				 * cell too thin to state falls back to */
	ERRBAND_SCOPE_COUNT
};

enum errband_size {
	ERRBAND_SMALL,          /* below ERRBAND_SMALL_END_B */
	ERRBAND_MID,            /* from ERRBAND_SMALL_END_B to below ERRBAND_MID_END_B */
	ERRBAND_LARGE,          /* from ERRBAND_MID_END_B on */
	ERRBAND_SIZE_COUNT
};

#define ERRBAND_SMALL_END_B 65536.0      /* 64 KiB */
#define ERRBAND_MID_END_B 67108864.0     /* 64 MiB */
#define ERRBAND_SMALL_END_LOG2 16.0      /* log2 of ERRBAND_SMALL_END_B */
#define ERRBAND_MID_END_LOG2 26.0        /* log2 of ERRBAND_MID_END_B */

/* The percentiles a band spans: 10th to 90th. */
#define ERRBAND_LO_P 0.1
#define ERRBAND_HI_P 0.9

/* A band needs sizes from this many logs, of at least two machines, to be stated.
 * A cell of one node or several that has fewer takes the band of its size
 * class drawn over any node count (ERRBAND_ANY_NODES), when that is stated. */
#define ERRBAND_MIN_LOGS 3
#define ERRBAND_MIN_MACHINES 2

/* The share of a left-out machine's sizes the band is widened to hold. */
#define ERRBAND_TARGET 0.8
/* The margin w (a factor exp(w)) is tried from 0 in steps of ERRBAND_WIDEN_STEP
 * up to ERRBAND_WIDEN_MAX (a factor of 20). */
#define ERRBAND_WIDEN_STEP 0.01
#define ERRBAND_WIDEN_MAX 3.0

struct errband {
	double lo;              /* measured / predicted time, 10th percentile */
	double mid;             /* the median */
	double hi;              /* the 90th percentile */
	unsigned sizes;         /* sizes (log rows) it is drawn from */
	unsigned logs;          /* logs those sizes come from */
	unsigned threaded;      /* of those logs, run with one thread driving several GPUs (-g N) */
	unsigned loo_inside;    /* sizes inside the band drawn without their machine */
	unsigned machines;      /* machines (system descriptions) the logs ran on */
	double widen;           /* lo is the 10th percentile / widen, hi the 90th × widen
				 * (before holding 1; 1: not widened) */
};

/* The band of a size and a scope. */
enum errband_size errband_size_of(double bytes);
enum errband_scope errband_scope_of(unsigned long nodes);
const char *errband_size_name(enum errband_size k);     /* "below 64 KiB", ... */
const char *errband_scope_name(enum errband_scope k);   /* "one node", "several nodes",
							 * "any node count" */

/*
 * The stated band of NCCL's model for an all-reduce on `nodes` nodes of
 * `bytes` bytes, from the generated table: the band of the size's cell
 * (one node or several, its size class) or, when that cell stands on fewer
 * than ERRBAND_MIN_LOGS logs of ERRBAND_MIN_MACHINES machines, of its size
 * class over any node count; NULL when that too is short.  Smooth in size:
 * lo, mid and hi go linearly in log ratio between the middles of the cells
 * (log2 size 9.5, 21, 29.5), each cell of the row taken with the same
 * fallback, kept per quarter octave; the counts are those of the cell the
 * size's band is (models/nccl-accuracy.md, "The stated error").
 */
const struct errband *errband_get(unsigned long nodes, double bytes);

/*
 * As errband_get, from any table of cells (a table drawn with a machine
 * left out, tools/errband-gen --per-log): the smoothed band of the size
 * into *out; 0, or -1 when the size's cell is not stated there.
 */
int errband_at(const struct errband table[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT],
	       unsigned long nodes, double bytes, struct errband *out);

/* The cell whose band a size takes in a table: its own scope (one node or
 * several) when stated, else ERRBAND_ANY_NODES when stated; -1: neither. */
int errband_scope_at(const struct errband table[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT],
		     unsigned long nodes, double bytes);

/* One bit per cell (scope, size), for the set of cells an output used;
 * errband_cell_bit: the cell the shipped table's band of the size is
 * (errband_scope_at; the size's own cell when none is). */
unsigned errband_bit(enum errband_scope scope, enum errband_size size);
unsigned errband_cell_bit(unsigned long nodes, double bytes);

/*
 * What a run should measure around a predicted time t (s): t·lo to t·hi of
 * band b; both NaN when b is NULL (no band to state).
 */
void errband_range(const struct errband *b, double t, double *lo_s, double *hi_s);
#define ERRBAND_ALL_CELLS ((1u << (ERRBAND_SCOPE_COUNT * ERRBAND_SIZE_COUNT)) - 1)

/* Whether a measured time falls inside band b around the predicted one. */
int errband_inside(const struct errband *b, double measured_s, double predicted_s);

/* The generated table (src/errband_table.c): public nccl-tests all-reduce logs. */
extern const struct errband errband_table[ERRBAND_SCOPE_COUNT][ERRBAND_SIZE_COUNT];
extern const unsigned errband_logs, errband_sizes, errband_machines;  /* all it is drawn from */

/* ---- drawing a band (tools/errband-gen, the unit tests) ---- */

/* One size of one log: its measured/predicted time ratio and its cell. */
struct errband_sample {
	double ratio;           /* measured time / predicted time, > 0 */
	unsigned log;           /* which log, any id */
	unsigned machine;       /* which machine (system description) it ran on, any id */
	int threaded;           /* the log ran one thread driving several GPUs */
	enum errband_scope scope;       /* one node or several, never ERRBAND_ANY_NODES */
	enum errband_size size;
};

/*
 * The band of one cell (scope, size) from samples s[0..n) (scope
 * ERRBAND_ANY_NODES: the samples of the size class on any node count): the 10th, 50th
 * and 90th percentiles of the ratios (GSL's quantiles of sorted data,
 * linear between order statistics), lo divided and hi multiplied by
 * exp(w · sqrt(1 + 1/machines)), w the smallest step from 0 at which the sizes of each machine, checked against the band drawn (the
 * same way) from the other machines of the cell, fall inside ERRBAND_TARGET
 * of the time pooled (loo_inside counts them; w stops at ERRBAND_WIDEN_MAX);
 * lo at most 1 and hi at least 1.  A cell of one machine is its percentiles,
 * loo_inside 0.  A cell without samples is all zeros.  0, or -1 with eb (a
 * ratio not finite and positive, no memory).
 */
int errband_draw(const struct errband_sample *s, size_t n, enum errband_scope scope,
		 enum errband_size size, struct errband *out, struct errbuf *eb);

#endif
