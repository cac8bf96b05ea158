#ifndef COMMTIME_PREDICT_H
#define COMMTIME_PREDICT_H

/*
 * Where compare and plan take a predicted time from: the regimes of a
 * preset written by 'fit' (fit.h), or else the machine's cost model
 * (cost.h: one link, or a system with its tiers or NCCL's model).
 */

#include "cost.h"
#include "fit.h"

struct predictor {
	const struct cost_model *model;   /* the machine (not owned) */
	const struct fit_model *fm;       /* a fitted preset's regimes, or NULL */
};

/*
 * Time of op on `ranks` ranks (packed on nodes) for `bytes` B, in s.
 * The regimes predict when they were fitted for this algorithm (any
 * algorithm for a collective other than all-reduce); otherwise the cost
 * model does, with algo (ALGO_AUTO: the model's choice).  On one link a
 * collective without algo takes its own single-link algorithm (ring
 * all-gather, pairwise all-to-all...).  out (may be NULL) receives what
 * the model answered: the algorithm and protocol it chose, the nodes;
 * for the regimes algo, PROTO_NONE and one node.  Returns NaN when the
 * model has no answer (an algorithm it has not for op).
 */
double predictor_time(const struct predictor *p, enum coll_op op, enum coll_algo algo,
		      unsigned long ranks, double bytes, struct coll_cost *out);

/*
 * What the model chose, as NCCL_DEBUG=INFO would say it, into buf:
 * "tree/LL" (algorithm/protocol), "ring" for an α-β model, "-" when c
 * holds no answer (time_s NaN).  Returns buf.
 */
char *predictor_choice(const struct coll_cost *c, char *buf, size_t len);

#endif
