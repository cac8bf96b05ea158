#ifndef COMMTIME_NCCL_TABLE_H
#define COMMTIME_NCCL_TABLE_H

/*
 * NCCL's own tuning table, read from a log (meas.h, struct meas_ncclt),
 * against the model's (nccl_model.h, struct nccl_tune): which pairs agree, and
 * which one change of the system description would make more of them
 * agree.  The tuning formulas are NCCL's, so a table that differs says the
 * description is not the machine NCCL found (models/nccl.md, "After the
 * run").
 */

#include "meas.h"
#include "nccl_cost.h"

/* Relative tolerance of an agreeing cell, on top of NCCL's 0.05 rounding. */
#define NCCLT_TOL 0.05

/* 1 when the model's value agrees with NCCL's printed one. */
int ncclt_close(double model, double nccl);

/*
 * How the pair (a, p) of f compares, into buf: "" when the tables agree,
 * "lat", "bw" or "lat,bw" where they differ, "NCCL only" or "model only"
 * when one side cannot run it; NULL when neither can (or the log's table
 * has no such cell): the pair is not compared.
 */
const char *ncclt_pair(const struct meas_ncclt *nt, const struct nccl_tune *t, enum nccl_func f,
		       enum nccl_algo a, enum nccl_proto p, char *buf, size_t len);

/* The pairs (algorithm, protocol) of f either table can run, and how many agree. */
struct ncclt_count {
	int pairs, agree;
};
struct ncclt_count ncclt_compare(const struct meas_ncclt *nt, const struct nccl_tune *t,
				 enum nccl_func f);

/*
 * The model's table model with NCCL's own cells of f (the log's) in place
 * of its own, into out: the choice rule (nccl_rank) then runs on NCCL's
 * table, and the rest of model (ranks, nodes, channels) stays.
 */
void ncclt_as_model(const struct meas_ncclt *nt, const struct nccl_tune *model,
		    enum nccl_func f, struct nccl_tune *out);

/* One key of the system changed, and what the tables then give. */
struct ncclt_variant {
	char key[16];               /* "nics_per_node", "nvls", ... */
	char value[16];             /* its new value, as a preset writes it */
	struct ncclt_count count;
};

/*
 * Each one-key change of s that NCCL's view of the machine depends on
 * (nics_per_node doubled and halved, nvls and p2p switched, each
 * pcie_path, nic_path and cpu), with base's constants and masks, for the
 * group g: those that agree at more pairs than s itself, most first (ties
 * in that order), into out (at most max).  Returns how many.
 */
int ncclt_variants(const struct system *s, const struct nccl_cost *base, const struct group *g,
		   const struct meas_ncclt *nt, enum nccl_func f, struct ncclt_variant *out,
		   int max);

#endif
