#ifndef COMMTIME_TRAIN_H
#define COMMTIME_TRAIN_H

#include <stddef.h>
#include "util.h"
#include "cost.h"

/*
 * Training-level models built on the collectives of model.h:
 * data-parallel gradient all-reduce (DDP), ZeRO stages 0-3, and the
 * speedup law N/(1+a(N-1)).  The core never prints; every function takes
 * SI units (bytes, seconds, bytes/s).  Specs: models/ddp.md,
 * models/zero.md, models/speedup.md.
 */

/* ------------------------------------------------------------------ DDP */

/* PyTorch DDP's default bucket_cap_mb = 25, i.e. 25 MiB (torch/nn/parallel/distributed.py). */
#define DDP_PYTORCH_BUCKET (25.0 * 1024 * 1024)
/* Backward takes about twice the forward, so 2/3 of forward + backward. */
#define DDP_BACKWARD_SHARE (2.0 / 3.0)

struct ddp_params {
	double grad_bytes;      /* B: the gradient reduced each step, > 0 */
	double compute;         /* s: forward + backward of one step on one rank, > 0;
				   0 when unknown: the all-reduce alone, no step */
	double backward_share;  /* backward / compute, in (0, 1] */
	double overlap;         /* share of backward that communication can hide behind, [0, 1] */
	double bucket;          /* B: bucket capacity; 0 reduces the whole gradient at once */
	enum coll_algo algo;
};

/* Defaults: no overlap (as in the seed), backward 2/3, no buckets, ring. */
void ddp_params_init(struct ddp_params *p);

/* Check ranges; returns 0 or -1 with eb naming the value. */
int ddp_check(const struct ddp_params *p, struct errbuf *eb);

struct ddp_step {
	unsigned long ranks;
	double buckets;       /* number of all-reduces: ⌈G/b⌉, or 1 */
	double bucket_bytes;  /* B: one full bucket (G without buckets) */
	double bucket_s;      /* s: all-reduce of one full bucket */
	double last_s;        /* s: all-reduce of the last bucket, G - (k-1)b */
	double comm_s;        /* s: all the all-reduces of a step */
	double exposed_s;     /* s: the part not hidden behind backward */
	double step_s;        /* s: compute + exposed */
	double fraction;      /* exposed / step */
};

/*
 * One training step on `ranks` ranks.
 *   comm    = (k-1)·T(b) + T(G - (k-1)b),  k = ⌈G/b⌉  (k = 1, T(G) without buckets)
 *   exposed = max(0, comm - F·s_b·C)            without buckets
 *           = max(T(last bucket), comm - F·s_b·C)  with buckets
 *   step    = C + exposed,  fraction = exposed / step
 * T is the all-reduce time of p->algo (cost_coll), C the compute time, s_b the backward share,
 * F the overlap.  Without overlap exposed = comm, the seed's model.
 * With C = 0 (unknown) nothing hides: exposed = comm, and step and
 * fraction are NaN.
 */
void ddp_step(const struct ddp_params *p, const struct link *l, unsigned long ranks,
	      struct ddp_step *s);

/* The same on any cost model (a link, a system); T is its all-reduce time. */
void ddp_step_cost(const struct ddp_params *p, const struct cost_model *m,
		   unsigned long ranks, struct ddp_step *s);

enum target_result {
	TARGET_FOUND,        /* *beta is the bandwidth where the share equals the target */
	TARGET_UNREACHABLE,  /* even at β = TARGET_BETA_HI the share stays above it */
	TARGET_ANY           /* even at β = TARGET_BETA_LO the share is below it */
};
#define TARGET_BETA_LO 1.0     /* B/s */
#define TARGET_BETA_HI 1e18    /* B/s */

/*
 * The bandwidth β (B/s) at which the communication share of the step
 * falls to `target` (0 < target < 1), α and everything else as in l and p.
 * The share falls as β grows; the root of share(β) - target is found by
 * GSL's Brent solver on log β over [TARGET_BETA_LO, TARGET_BETA_HI].
 * Returns 0 with *res (and *beta when TARGET_FOUND), or -1 with eb filled
 * when the solver fails.
 */
int ddp_target_beta(const struct ddp_params *p, const struct link *l, unsigned long ranks,
		    double target, enum target_result *res, double *beta, struct errbuf *eb);

/* ----------------------------------------------------------------- ZeRO */

#define ZERO_STAGES 4

struct zero_params {
	double params;       /* Ψ: parameter count, > 0 */
	double param_bytes;  /* bytes per parameter (2: bf16/fp16) */
	double grad_bytes;   /* bytes per gradient (2 here; the command: 4) */
	double optim_bytes;  /* K: optimizer bytes per parameter (12: fp32 copy, momentum, variance) */
	double layers;       /* layers ZeRO-3 gathers one at a time; 1: the whole model at once */
	enum coll_algo algo;   /* all-reduce of stage 0; ring gives ring RS/AG for 1-3 */
};

/*
 * Mixed-precision Adam as the ZeRO paper counts it: 2, 2, 12, ring
 * (Rajbhandari et al. 2020).  The zero command reduces fp32 gradients by
 * default (4 bytes, models/ddp.md), as ddp and step do.
 */
void zero_params_init(struct zero_params *p);
int zero_check(const struct zero_params *p, struct errbuf *eb);

struct zero_cost {
	unsigned long ranks;
	int stage;           /* 0 plain data parallel, 1 P_os, 2 P_os+g, 3 P_os+g+p */
	double param_B;      /* B per rank: parameters */
	double grad_B;       /* B per rank: gradients */
	double optim_B;      /* B per rank: optimizer states */
	double memory_B;     /* B per rank: the three together */
	double comm_B;       /* B sent per rank per step */
	double comm_s;       /* s per step */
};

/*
 * Model-state memory, communication volume and time of one step of ZeRO
 * stage `stage` (0-3) on n = ranks ranks, with p = param_bytes,
 * g = grad_bytes, K = optim_bytes:
 *   memory  stage 0: (p+g+K)Ψ   1: (p+g)Ψ + KΨ/n   2: pΨ + (g+K)Ψ/n   3: (p+g+K)Ψ/n
 *   volume  0: 2·(n-1)/n·gΨ (all-reduce)   1, 2: (n-1)/n·(gΨ + pΨ)
 *           (reduce-scatter of gradients, all-gather of parameters)
 *           3: (n-1)/n·(gΨ + 2pΨ) (all-gather in forward and in backward)
 *   time    0: AR(gΨ); 1, 2: RS(gΨ) + AG(pΨ); 3: RS(gΨ) + 2·AG(pΨ)
 * Every collective is priced by the cost core (cost_coll on packed ranks):
 * RS and AG are the model's own reduce-scatter and all-gather with
 * p->algo where the model has it for them, else its preferred algorithm
 * (ring on a link), never half an all-reduce.
 * With p->layers = l > 1, stage 3 gathers layer by layer as ZeRO does:
 * l·(RS(gΨ/l) + 2·AG(pΨ/l)), the same bytes and l times the latency.
 * The times are the data-parallel rows of the step ledger (step_dp_rows,
 * one micro-batch), so zero and step agree.
 */
void zero_cost(const struct zero_params *p, const struct link *l, unsigned long ranks,
	       int stage, struct zero_cost *c);

/* The same on any cost model. */
void zero_cost_model(const struct zero_params *p, const struct cost_model *m,
		     unsigned long ranks, int stage, struct zero_cost *c);

/* -------------------------------------------------------------- speedup */

/*
 * Speedup on n ranks when communication costs a = T_comm / T_compute:
 * n / (1 + a(n-1)).  NaN when 1 + a(n-1) <= 0 (a fitted a < 0).
 */
double speedup(double a, double n);

/*
 * Parse measured throughputs "1:45,2:89" (ranks:throughput pairs, ranks a
 * whole number >= 1, throughput > 0, any unit).  Fills ranks and tput
 * (allocated with xmalloc, freed by the caller) and *n.  Returns 0, or -1
 * with eb naming the pair that does not parse.
 */
int speedup_parse_measured(const char *s, double **ranks, double **tput, size_t *n,
			   struct errbuf *eb);

struct speedup_fit {
	double a, a_err;       /* fitted ratio and its standard error (NaN if no dof) */
	double x1, x1_err;     /* single-rank throughput; err NaN when not fitted */
	int x1_fitted;         /* 0: taken as the mean of the N = 1 points */
	size_t npoints;        /* points used */
	int dof;               /* npoints - unknowns */
	double rss;            /* sum of squared residuals */
};

/*
 * Least-squares fit of X(N) = X1·N/(1 + a(N-1)) to measured throughputs.
 * With N = 1 points, X1 is their mean and only a is fitted; otherwise X1
 * is fitted too.  Starts from the linearised fit (N/X against N-1, GSL
 * gsl_fit_linear / gsl_fit_mul) and refines it by GSL's trust-region
 * nonlinear least squares on the throughputs themselves.  fitted[i]
 * receives the model's throughput at ranks[i] (may be NULL).
 * Returns 0, or -1 with eb filled: fewer rank counts than unknowns, a
 * non-positive value, or a fit that does not converge.
 */
int speedup_fit(const double *ranks, const double *tput, size_t n,
		struct speedup_fit *f, double *fitted, struct errbuf *eb);

#endif
