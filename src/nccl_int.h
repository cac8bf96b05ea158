#ifndef COMMTIME_NCCL_INT_H
#define COMMTIME_NCCL_INT_H

/* The types (struct nccl_params, struct nccl_graph, enum nccl_func,
 * enum nccl_algo) are nccl_model.h's, which each file of the tuning
 * includes first; this header, included by nccl_model.c, never includes
 * nccl_model.h back (no circle). */

/*
 * Inside NCCL's tuning (models/nccl.md, "The tuning table"):
 * src/nccl_tune.c builds the table (nccl_tune_init) from the factors
 * below; src/nccl_model.c reads the table (nccl_time, nccl_run_time) and
 * names the same factors again, term by term (nccl_terms).  Nothing
 * outside these two files includes this header.
 */

/* floor(log2(n)), -1 for n = 0. */
int nccl_log2i(unsigned long long n);
/* Bus to algorithm bandwidth (tuning.cc:377-382): 1 and the factor in
 * *ratio, or 0 (*ratio 1) where NCCL keeps the bus bandwidth. */
int nccl_bus_ratio(const struct nccl_params *p, enum nccl_func f, enum nccl_algo a,
		   int ranks, int nsteps, double *ratio);
/* Ring/LL's share of the bus bandwidth, by NCCL version. */
double nccl_ring_ll_factor(const struct nccl_params *p, enum nccl_func f, int nodes);
/* The network steps of a ring of f on `nodes` nodes (tuning.cc:411-412). */
int nccl_inter_steps(const struct nccl_params *p, enum nccl_func f, int nodes);
/* NVLS and NVLSTree's bandwidth a channel before 2.28 (GB/s), ppn GPUs a node. */
double nccl_nvls_bw_old(const struct nccl_params *p, const struct nccl_graph *g,
			enum nccl_func f, enum nccl_algo a, int nodes, double ppn);

#endif
