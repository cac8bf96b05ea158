#ifndef COMMTIME_CROSSOVER_H
#define COMMTIME_CROSSOVER_H

#include "cost.h"

/*
 * Where two cost models take equal time.  See models/crossover.md.
 */

/* A cost function: time in seconds of a message of `bytes` bytes. */
typedef double (*cost_fn)(double bytes, const void *arg);

enum cross_result {
	CROSS_FOUND,      /* *bytes holds the size where a and b are equal;
	                     below it `below` is faster */
	CROSS_A_ALWAYS,   /* a is faster (or equal) over the whole bracket */
	CROSS_B_ALWAYS,   /* b is faster (or equal) over the whole bracket */
	CROSS_EQUAL       /* a and b take the same time over the whole bracket */
};

struct crossing {
	enum cross_result result;
	double bytes;     /* CROSS_FOUND: the crossover size in bytes */
	int below;        /* CROSS_FOUND: 0 if a is faster below bytes, 1 if b is */
};

/*
 * Find the size in [lo, hi] bytes where fa and fb take equal time, by
 * GSL's Brent solver on fa - fb, bracketed on a geometric grid over
 * [lo, hi].  Assumes at most one crossing (true for the affine models of
 * model.h); if the grid shows more, the smallest is returned.
 * Returns 0 with *c filled, or -1 with eb filled when the solver fails.
 */
int crossover_solve(cost_fn fa, const void *a, cost_fn fb, const void *b,
		    double lo, double hi, struct crossing *c, struct errbuf *eb);

/* The same for two all-reduce algorithms at a rank count on one link (crossover_coll). */
int crossover_allreduce(enum coll_algo a, enum coll_algo b, const struct link *l,
			unsigned long ranks, double lo, double hi,
			struct crossing *c, struct errbuf *eb);

/*
 * The same for two algorithms of any collective on any cost model (a
 * link, the tiers of a system), on the group g.  An error of the model
 * (an algorithm it has not, a system without NICs) is returned as -1 with
 * eb filled.
 */
int crossover_coll(const struct cost_model *m, enum coll_op op, enum coll_algo a,
		   enum coll_algo b, const struct group *g, double lo, double hi,
		   struct crossing *c, struct errbuf *eb);

/*
 * Closed form for ring against the seed's tree:
 * S* = αβ(n−1−L)/(L−(n−1)/n), L = ⌈log2 n⌉.  Returns NaN when the lines do
 * not cross at a positive size.
 */
double crossover_ring_tree(const struct link *l, unsigned long ranks);

/* Default bracket: 1 B to 1 PiB. */
#define CROSS_LO 1.0
#define CROSS_HI 1125899906842624.0

#endif
