#ifndef COMMTIME_CALIB_H
#define COMMTIME_CALIB_H

#include <stddef.h>
#include "util.h"
#include "model.h"
#include "system.h"

/*
 * Calibrating one tier of a system (system.h) from measured curves of one
 * or more rank counts, keeping the spec as a prior and the values
 * physical.  The model of a curve of n ranks on the tier (models/fit.md,
 * "Calibrating a system"):
 *
 *     T(S) = L0 + a(n)·α + b(n)·S/β
 *
 * with a, b the single-link coefficients of the collective and algorithm
 * (cost_link_coeffs), L0 the per-call base latency, α the per-step
 * latency and β the tier's bandwidth.  Least squares on relative error
 * (rows divided by the measured time) with GSL, columns scaled to unit
 * maximum.  L0 and α can be told apart only by logs of two or more rank
 * counts; from one rank count the prior L0 = κ·α (FIT_BASE_STEPS) is
 * used and L0 is reported as from the prior.  Bounds: L0 >= 0, α >= 0,
 * β <= the tier's line rate; a value at its bound is fixed there and the
 * others refitted.  Uncertainties: 95 % intervals, 1.96 standard errors
 * from the covariance σ²(XᵀX)⁻¹ (σ² the residual variance), β's through
 * δβ = β²·δ(1/β).
 */

/* One measured curve: n rows of size (B) and time (s). */
struct calib_log {
	const double *size, *time;
	size_t n;
	enum coll_op op;
	enum coll_algo algo;       /* all-reduce algorithm of its model */
	unsigned long ranks;
};

/* Where a calibrated value comes from. */
enum calib_source {
	CALIB_FIT,     /* determined by the logs */
	CALIB_PRIOR,   /* L0 from the prior L0 = κ·α (one rank count) */
	CALIB_BOUND,   /* the fit went past a physical bound; held at it */
	CALIB_SPEC     /* not determined by the logs: the spec's value kept */
};

/* "fit", "prior", "bound: line rate" / "bound: 0", "spec". */
const char *calib_source_name(enum calib_source s);

struct calib_value {
	double value;              /* SI units */
	double ci95;               /* half-width of the 95 % interval; NaN when not known */
	enum calib_source source;
};

struct calib_tier {
	struct calib_value base;   /* s: L0 */
	struct calib_value alpha;  /* s per step */
	struct calib_value beta;   /* B/s */
	double base_steps;         /* L0/α, what a fitted link preset stores */
	double rms;                /* root mean square relative residual */
	size_t rows, logs;
	unsigned long rank_counts; /* distinct rank counts among the logs */
};

/*
 * Calibrate a tier from nlogs curves (each with at least 2 rows).
 * beta_line: the tier's line rate in B/s (0: no bound).  kappa: the prior
 * L0 = κ·α used when the logs hold one rank count (0 takes FIT_BASE_STEPS).
 * Returns 0 with t filled, or -1 with eb: no logs, a collective or
 * algorithm with no model, too few rows, a failed fit.
 */
int calib_tier_fit(const struct calib_log *logs, size_t nlogs, double beta_line,
		   double kappa, struct calib_tier *t, struct errbuf *eb);

/* Time of op on n ranks for S bytes with a calibrated tier: L0 + a·α + b·S/β. */
double calib_tier_time(const struct calib_tier *t, enum coll_op op, enum coll_algo algo,
		       unsigned long ranks, double bytes);

/*
 * A tier not determined by any log: the spec's α and β (base 0), every
 * value from the spec.
 */
void calib_tier_spec(const struct tier *spec, struct calib_tier *t);

/*
 * The NIC tier of a system calibrated from logs of two or more nodes
 * (models/fit.md, "The NIC tier").  With the intra tier known (calibrated
 * or the spec), the tier model's ring (models/system.md) is
 *
 *     T(S) = L0 + s·(n−N)·α_i + s·(N−1)·α_e + v·S / min(β_i, K·β_e)
 *
 * (s = 2 for all-reduce, 1 for the others; v the bytes per byte of
 * message; K the node's NIC ports).  Its coefficients are read off the tier
 * model itself (cost_coll with unit links), so calibration and prediction
 * share one formula.  α_e (per inter-node step) and 1/β_e (per NIC port)
 * are fitted by least squares on relative error, bounded: α_e >= 0,
 * β_e <= the NIC's line rate.  When the fitted K·β_e is not below β_i
 * (within 1 %) the
 * logs are bound by the intra tier and cannot say β_e: it is kept from
 * the spec (raised to β_i/K if the spec is below that, and then reported
 * as bound).  β_i is the intra tier's calibrated β, or its line rate when
 * it is the spec's; a spec β_i below the K·β_e fitted is raised to K·β_e
 * (the logs show the intra link at least that fast; reported as fit).
 * 95 % intervals from the covariance, conditional on the intra tier.
 */
struct calib_nic {
	struct calib_value alpha;  /* s per inter-node step */
	struct calib_value beta;   /* B/s per NIC port */
	double beta_line;          /* B/s: the NIC's line rate */
	double rms;                /* root mean square relative residual */
	size_t rows, logs;
};

/*
 * Fit the NIC tier of s from nlogs multi-node curves (ranks > gpus per
 * node, algo ALGO_RING), with the intra tier `intra` held (but for the
 * raise above).  Returns 0 with
 * t filled, or -1 with eb: no logs, s without NICs, too few rows.
 */
int calib_nic_fit(const struct calib_log *logs, size_t nlogs, const struct system *s,
		  struct calib_tier *intra, struct calib_nic *t, struct errbuf *eb);

/*
 * Write the calibration into a copy of the spec: dst = *spec (a shallow
 * copy: strings shared, not to be released) with the intra tier's α, β,
 * base and, when nic is not NULL, the NIC's α and β replaced.
 */
void calib_apply(struct system *dst, const struct system *spec,
		 const struct calib_tier *intra, const struct calib_nic *nic);

/*
 * Time of op (algo) on `ranks` packed ranks of the calibrated system cal
 * (calib_apply) by the tier model, in s; NaN when the model has no answer.
 */
double calib_system_time(const struct system *cal, enum coll_op op, enum coll_algo algo,
			 unsigned long ranks, double bytes);

#endif
