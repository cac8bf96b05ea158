#ifndef COMMTIME_MODEL_H
#define COMMTIME_MODEL_H

#include <stddef.h>
#include "util.h"

/*
 * The α-β(-γ) cost models of collective communication.  Sources and
 * derivations are in models/allreduce.md; every function here returns a
 * time in seconds for one collective on `ranks` ranks of a message of
 * `bytes` bytes (the full buffer each rank contributes or receives).
 */

/*
 * The smallest bandwidth commtime takes, from --beta or a preset: 1 B/s.
 * Below it the times of big messages overflow the doubles; nothing real
 * is that slow.
 */
#define BETA_MIN 1.0

struct link {
	double alpha;   /* s: fixed cost of one communication step */
	double beta;    /* B/s: bandwidth of one direction of one link */
	double gamma;   /* s/B: reduction cost per byte (0 ignores it) */
};

enum ar_algo {
	AR_RING,          /* 2(n-1)(α + S/(nβ)) */
	AR_TREE,          /* the seed's binomial tree: 2⌈log2 n⌉(α + S/β) */
	AR_DBTREE,        /* pipelined double binary tree (NCCL): 2⌈log2 n⌉α + 2S/β */
	AR_RD,            /* recursive doubling (Thakur et al. 2005) */
	AR_RABENSEIFNER,  /* reduce-scatter + all-gather by halving/doubling */
	AR_COUNT
};

/* Name used on the command line and in CSV ("ring", "tree", ...). */
const char *ar_algo_name(enum ar_algo a);

/* Look up a name; returns 0, or -1 with eb naming the value and the choices. */
int ar_algo_lookup(const char *name, enum ar_algo *a, struct errbuf *eb);

/*
 * Parse "ring,tree" into algos (at most AR_COUNT, duplicates rejected).
 * Returns the number of algorithms, or -1 with eb filled.
 */
int ar_algo_parse_list(const char *s, enum ar_algo *algos, struct errbuf *eb);

/*
 * Time of one all-reduce in seconds.  ranks >= 1 (1 rank costs 0 s);
 * bytes >= 0.  See models/allreduce.md for each formula.
 */
double ar_time(enum ar_algo a, const struct link *l, unsigned long ranks, double bytes);

/* ⌈log2 n⌉ for n >= 1, exact for every unsigned long. */
unsigned ceil_log2(unsigned long n);

/* ⌊log2 n⌋ for n >= 1. */
unsigned floor_log2(unsigned long n);

/*
 * Ring reduce-scatter and ring all-gather of a buffer of `bytes` bytes
 * (the whole buffer; each rank ends with / starts from bytes/n):
 * (n-1)(α + S/(nβ)), plus (n-1)Sγ/n for the reduce-scatter.
 */
double rs_ring_time(const struct link *l, unsigned long ranks, double bytes);
double ag_ring_time(const struct link *l, unsigned long ranks, double bytes);

/* The collectives that nccl-tests measures. */
enum coll_op {
	OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER, OP_ALLTOALL,
	OP_BROADCAST, OP_REDUCE, OP_SENDRECV, OP_COUNT
};

/* "all_reduce", "all_gather", ... (nccl-tests' names without _perf). */
const char *coll_op_name(enum coll_op op);
/* Accepts "all_reduce", "allreduce", "all_reduce_perf"; 0 or -1 with eb. */
int coll_op_lookup(const char *name, enum coll_op *op, struct errbuf *eb);

/*
 * nccl-tests' bus bandwidth factor: busbw = algbw × factor, with
 * 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and
 * all-to-all, 1 for broadcast, reduce and send/recv.  1 rank gives 0 for
 * the collectives that move nothing.
 */
double busbw_factor(enum coll_op op, unsigned long ranks);

/* Largest rank count the models accept (the rest is usage error). */
#define RANKS_MAX (1UL << 40)

#endif
