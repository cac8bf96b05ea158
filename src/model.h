#ifndef COMMTIME_MODEL_H
#define COMMTIME_MODEL_H

#include <stddef.h>
#include "util.h"

/*
 * The vocabulary of the cost models: a link, the collectives, the
 * algorithms, and nccl-tests' bus bandwidth.  The time of a collective is
 * asked of cost.h, the one place that holds the formulas.
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

/* The bounds of a link's α (s), β (B/s, above 0) and γ (s/B): the only
 * place they are set; options and presets check against them. */
#define LINK_ALPHA_MAX 3600.0
#define LINK_BETA_MAX 1e18
#define LINK_GAMMA_MAX 1.0

/*
 * Algorithms of every cost model, in one namespace of names.  A name
 * belongs to its model (cost.h says which model accepts which): on a
 * single link "tree" is the seed's binomial tree; under NCCL's model it is
 * the tree NCCL builds.  The first five are the single-link all-reduce
 * algorithms, in the order the tables print them.
 */
enum coll_algo {
	ALGO_AUTO = -1,    /* let the cost model choose the fastest */
	ALGO_RING,         /* 2(n-1)(α + S/(nβ)) on one link; a ring through all ranks on tiers */
	ALGO_TREE,         /* the seed's binomial tree: 2⌈log2 n⌉(α + S/β); NCCL's tree under nccl */
	ALGO_DBTREE,       /* pipelined double binary tree (NCCL): 2⌈log2 n⌉α + 2S/β */
	ALGO_RD,           /* recursive doubling (Thakur et al. 2005) */
	ALGO_RABENSEIFNER, /* reduce-scatter + all-gather by halving/doubling */
	ALGO_PAIRWISE,     /* all-to-all: n-1 pairwise exchanges */
	ALGO_P2P,          /* send/recv: one transfer to a peer */
	ALGO_HIER,         /* tiers: inside the node, across nodes over the NICs, inside again */
	ALGO_NVLS,         /* NCCL: NVLink SHARP (reduction in the NVSwitch) */
	ALGO_NVLSTREE,     /* NCCL: NVLS inside the node, tree across nodes */
	ALGO_COLLNET,      /* NCCL: in-network reduction (SHARP) across nodes */
	ALGO_PAT,          /* NCCL: parallel aggregated trees */
	ALGO_HIERHD,       /* tiers: reduce in the node, halving-doubling across nodes, broadcast */
	ALGO_COUNT
};

/* The single-link all-reduce algorithms are ALGO_RING .. ALGO_RABENSEIFNER. */
#define ALGO_LINK_AR_COUNT (ALGO_RABENSEIFNER + 1)

/* Name used on the command line and in CSV ("ring", "tree", ...). */
const char *coll_algo_name(enum coll_algo a);

/*
 * Look up a single-link all-reduce algorithm (ring, tree, dbtree, rd,
 * rabenseifner); returns 0, or -1 with eb naming the value and the
 * choices.  For another collective or model: cost_algo_lookup (cost.h).
 */
int ar_algo_lookup(const char *name, enum coll_algo *a, struct errbuf *eb);

/*
 * Look up any algorithm name commtime writes (a plan CSV's algo column:
 * the single-link ones, pairwise, p2p, the tier forms and NCCL's); 0, or
 * -1 with eb naming the value and the choices.
 */
int coll_algo_lookup(const char *name, enum coll_algo *a, struct errbuf *eb);

/*
 * Parse "ring,tree" into algos (at most ALGO_COUNT, duplicates rejected).
 * Returns the number of algorithms, or -1 with eb filled.
 */
int ar_algo_parse_list(const char *s, enum coll_algo *algos, struct errbuf *eb);

/*
 * The list walk behind every algorithm list: each comma-separated name
 * through lookup(arg, name, &a, eb) (0, or -1 with eb filled), duplicates
 * and empty names rejected.  Returns the count, or -1.
 */
typedef int algo_lookup_fn(const void *arg, const char *name, enum coll_algo *a,
			   struct errbuf *eb);
int algo_parse_list(const char *s, algo_lookup_fn *lookup, const void *arg,
		    enum coll_algo *algos, struct errbuf *eb);

/* ⌈log2 n⌉ for n >= 1, exact for every unsigned long. */
unsigned ceil_log2(unsigned long n);

/* ⌊log2 n⌋ for n >= 1. */
unsigned floor_log2(unsigned long n);

/* The collectives that nccl-tests measures. */
enum coll_op {
	OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER, OP_ALLTOALL,
	OP_BROADCAST, OP_REDUCE, OP_SENDRECV, OP_COUNT
};

/* "all_reduce", "all_gather", ... (nccl-tests' names without _perf). */
const char *coll_op_name(enum coll_op op);
/* Accepts "all_reduce", "allreduce", "all_reduce_perf", "all_reduce_perf_mpi"; 0 or -1 with eb. */
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
