#ifndef COMMTIME_COLL_FIGURE_H
#define COMMTIME_COLL_FIGURE_H

#include "cli.h"
#include "serve.h"

/*
 * One run of a collective command (cmd_coll.c): the machine, the
 * collective, the algorithms asked for.  Its figure lives in
 * coll_figure.c.
 */
struct coll_run {
	const struct ctx *ctx;
	enum coll_op op;
	const char *name;             /* command and JSON table name: "allreduce" */
	const char *what;             /* "all-reduce" in titles */
	const enum coll_algo *algos;
	int nalgo;
	enum ar_impl impl;            /* all-reduce: NCCL (its model) or a serving kernel */
};

/*
 * One collective's cost on n ranks for S bytes into *c, its time
 * returned; a model error (a run that needs NICs the system has not)
 * dies (exit 1) naming the algorithm and rank count.
 */
double coll_run_cost(const struct coll_run *r, enum coll_algo a, unsigned long n, double S,
		     struct coll_cost *c);

/*
 * The figure of a run, written and rendered as --plot and --render ask.
 * On a link: time against message size per algorithm and rank count, the
 * crossovers where the fastest algorithm changes, the link's n½.  On a
 * system: bus bandwidth against message size, one curve per rank count
 * (so per node count) and algorithm, the line rates of both tiers, and
 * where the bound moves from the intra-node link to the NICs.
 */
void coll_figure(const struct coll_run *r, const struct dlist *ranks,
		 const struct dlist *sizes);

#endif
