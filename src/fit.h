#ifndef COMMTIME_FIT_H
#define COMMTIME_FIT_H

#include <stddef.h>
#include "util.h"
#include "cost.h"
#include "preset.h"

/*
 * Fitting α and β to measured times, and the regime model that `fit`
 * saves.  Formulas, sources and accuracy figures are in models/fit.md.
 *
 * Every model of model.h is affine in the message size S, so for one
 * collective, algorithm and rank count
 *
 *     T(S) = a·α + b·S/β
 *
 * with a (steps) and b (bytes moved per byte of message) fixed by the
 * model.  Fitting α and 1/β is then linear least squares; commtime weighs
 * every row by 1/T_measured, so that the fit minimises the RELATIVE error
 * and an 8 B row counts as much as an 8 GiB one.
 */

/*
 * Relative error of a prediction, predicted/measured - 1 (dimensionless);
 * below 1e-12 in size it is reported as 0, so rounding does not print as
 * "-0.0 %".
 */
double fit_rel_err(double predicted, double measured);

/*
 * The a and b of T(S) = a·α + b·S/β a fit uses for op on `ranks` ranks:
 * the core's cost_link_coeffs() (γ = 0) for algo on all-reduce, and for
 * every other collective its own single-link algorithm, which the fit's
 * --algo names ring (ring all-gather, reduce-scatter, broadcast and
 * reduce; pairwise all-to-all; p2p send/recv; models/fit.md).  Returns 0,
 * or -1 with eb: an algorithm other than ring for a collective that is
 * not all-reduce, a rank count below 2 (nothing to fit), or the core's
 * errors.
 */
int fit_link_coeffs(enum coll_op op, enum coll_algo algo, unsigned long ranks,
		    struct link_coeffs *c, struct errbuf *eb);

/* The single α-β fit. */
struct ab_fit {
	double alpha, beta;          /* s, B/s */
	double alpha_err, beta_err;  /* one standard error (NaN if not known) */
	double n_half;               /* B: size where a·α = b·S/β (Hockney's n½) */
	double rms;                  /* root mean square relative residual */
	size_t n;                    /* rows fitted */
};

/*
 * Fit α and β to n rows (size in B, time in s, sizes distinct) by
 * weighted least squares on relative error (gsl_multifit_linear on rows
 * divided by the measured time), or with robust set by bisquare-weighted
 * robust regression (gsl_multifit_robust; with fewer than 4 rows the
 * ordinary fit).  α and 1/β are kept non-negative: a negative one is set
 * to 0 and the other refitted.  β is capped at FIT_BETA_MAX (a flat curve).
 * Uncertainties are the covariance scaled by the residual variance.
 * Returns 0, or -1 with eb filled: fewer than two distinct sizes.
 */
int fit_ab(const double *size, const double *time, size_t n,
	   const struct link_coeffs *c, int robust, struct ab_fit *f, struct errbuf *eb);

/* The largest β a fit reports: 1 EB/s, "no measurable size dependence". */
#define FIT_BETA_MAX 1e18

/*
 * The regime model.  Regime k holds over the sizes it was fitted on,
 * [lo_k, hi_k], with its own α_k and β_k:
 *
 *     T(S) = a·α_k + b·S/β_k                         for lo_k <= S <= hi_k
 *
 * Below the first regime the first one holds, above the last the last.
 * Between hi_k and lo_(k+1), where the switch happened at a size not
 * measured, the time moves from one regime to the next linearly in log S:
 *
 *     w = ln(S/hi_k) / ln(lo_(k+1)/hi_k),  T = (1-w)·T_k(S) + w·T_(k+1)(S).
 *
 * A model with one regime is the plain α-β model.
 */
#define FIT_REGIMES_MAX 4

struct regime {
	double alpha;   /* s per step */
	double beta;    /* B/s */
	double lo, hi;  /* B: smallest and largest size fitted in this regime */
	size_t n;       /* rows fitted */
	double alpha_ci, beta_ci;  /* s, B/s: 95 % half-widths (NaN: not known) */
};

struct fit_model {
	enum coll_op op;       /* collective the α_k, β_k were fitted for */
	enum coll_algo algo;     /* algorithm (all-reduce) */
	unsigned long ranks;   /* rank count of the fit */
	double base_steps;     /* κ: each regime's per-call base latency is κ·α_k,
				  paid once by a call at any rank count, beside
				  the a·α_k of its steps (models/fit.md); 0: none */
	size_t nreg;
	struct regime reg[FIT_REGIMES_MAX];
	int spec_last;         /* 1: the last regime's β is the spec's (fit_opts.spec_beta) */
};

struct fit_opts {
	enum coll_algo algo;   /* all-reduce algorithm of the model */
	int regimes;         /* 1..FIT_REGIMES_MAX, or 0: choose by BIC */
	int robust;          /* regimes of 4 rows or more fitted robustly */
	double base_steps;   /* κ of the base-latency prior: 0 takes
				FIT_BASE_STEPS, a negative value sets no
				base latency apart (the model of before) */
	double line_rate;    /* B/s: no β_k above it (0: no bound) */
	/*
	 * Protocol-aware regimes (NULL: the search by BIC): a cost model
	 * (NCCL's, on the machine of the log) whose choice of protocol per
	 * size, for switch_op on switch_ranks ranks, splits the regimes.
	 */
	const struct cost_model *switches;
	enum coll_op switch_op;
	unsigned long switch_ranks;
	/*
	 * B/s: the spec's bandwidth (0: none), the prior of the last regime
	 * when the log ends below that regime's n½ (models/fit.md, "Small to
	 * large"): its β is then taken from the spec and its α refitted.
	 */
	double spec_beta;
};

/*
 * The prior that splits one log's latency into a per-call base latency
 * L0 and a per-step latency α (models/fit.md, "Carrying a fit to other
 * rank counts"): L0 = κ·α for every regime, so a regime's latency
 * c = L0 + a·α gives α = c/(κ + a) and L0 = κ·c/(κ + a), and at another
 * rank count the latency is (κ + a')·α.  κ = 2: in a 2-rank ring
 * all-reduce (a = 2) half the latency is base and half is steps, between
 * NCCL's own ratios for its Simple protocol (8.4 µs base to 5.7 µs per
 * PCIe step, 1.5; to 3.4 µs per NVLink step, 2.5).
 */
#define FIT_BASE_STEPS 2.0
/* The spread of κ a --range band takes at another rank count: NCCL's bracket. */
#define FIT_BASE_STEPS_LO 1.5
#define FIT_BASE_STEPS_HI 2.5

/*
 * Largest number of rows the regime search takes (it is O(n^3));
 * above it the model is the plain α-β fit.
 */
#define FIT_SEARCH_MAX 256

/*
 * Fit the regime model: split the rows (sorted by size) into K contiguous
 * runs of at least 2 rows each, minimising the total squared relative
 * residual by dynamic programming, each run fitted as fit_ab does.  Then,
 * unless o->base_steps < 0, each regime's latency is split into base and
 * steps by the prior of FIT_BASE_STEPS (which leaves the fitted times as
 * they are); and with o->line_rate a β_k above it is set to it and α_k
 * refitted.  With
 * o->regimes = 0, K is the one with the least Bayesian information
 * criterion n·ln(RSS/n) + (3K-1)·ln n, RSS/n floored at (0.5 %)^2 so that
 * gains below measurement noise buy no regime.  Returns 0, or -1 with eb
 * filled (too few rows for the regimes asked, bad coefficients).
 */
int fit_model_fit(const double *size, const double *time, size_t n,
		  enum coll_op op, unsigned long ranks, const struct fit_opts *o,
		  struct fit_model *m, struct errbuf *eb);

/* A one-regime model from a link (how a plain preset predicts). */
void fit_model_from_link(struct fit_model *m, enum coll_op op, enum coll_algo algo,
			 unsigned long ranks, const struct link *l);

/*
 * Predicted time in seconds of op on ranks ranks for a message of bytes B:
 * the regimes' (κ + a)·α_k + b·S/β_k with the coefficients a, b of (op,
 * the model's algorithm for all-reduce, ranks) and κ = m->base_steps, so a
 * fit transfers to other rank counts and collectives as far as the model
 * does.
 */
double fit_model_time(const struct fit_model *m, enum coll_op op,
		      unsigned long ranks, double bytes);

/*
 * The regimes of fm as the machine's cost model (cost.h, COST_FIT) over
 * the preset's single link l: cost_coll() answers with the regimes'
 * (κ + a)·α_k + b·S/β_k (fit_model_time) for the algorithm they were
 * fitted for (fm->algo on all-reduce, which is then the default; every
 * other collective's own single-link algorithm), and with the link l for
 * any other algorithm asked by name.  fm must outlive cm.
 */
void fit_cost_init(struct cost_model *cm, const struct fit_model *fm, const struct link *l);

/*
 * The spread of a spec (models/fit.md, "Ranges"), for a prediction no fit
 * measured.  Bandwidth: NCCL's model, from public specifications alone,
 * was off by −17.5 % to +35.5 % in large-message bus bandwidth on 11
 * public nccl-tests logs (models/nccl-accuracy.md, "Accuracy", before NIC ports
 * were merged as NCCL merges them; the table now spans −11.8 % to +35.5 %
 * on 12 logs, and the wider spread is kept), so the measured bandwidth
 * lies between 1/1.355 = 0.738 and 1/0.825 = 1.212 of the predicted one.  Per-step latency: NCCL's ring latencies per step differ
 * by a factor of 5.7 between its LL and Simple protocols (hwLat 0.6 and
 * 3.4 µs on NVLink, 1.0 and 5.7 µs on PCIe, NVIDIA/nccl
 * src/graph/tuning.cc), so one α is taken within √5.7 = 2.39 either way.
 */
#define FIT_SPEC_BETA_LO 0.738
#define FIT_SPEC_BETA_HI 1.212
#define FIT_SPEC_ALPHA_SPREAD 2.39

/*
 * The band around fit_model_time (models/fit.md, "Ranges"): the least and
 * the greatest time over the corners of every regime's 95 % intervals
 * (α_k ± δα_k, β_k ± δβ_k) and, at a rank count other than the fit's, of
 * κ from FIT_BASE_STEPS_LO to FIT_BASE_STEPS_HI.  A β whose interval
 * reaches 0 is taken down to β/100.  Where no fit measured the run — a
 * model without intervals (a link preset), or a fit carried to another
 * rank count — the corners also take the spec's spread: α_k times or
 * divided by FIT_SPEC_ALPHA_SPREAD, β_k times FIT_SPEC_BETA_LO or _HI.
 */
void fit_model_range(const struct fit_model *m, enum coll_op op, unsigned long ranks,
		     double bytes, double *lo, double *hi);

/*
 * The spec's band around a prediction of a system's model, whose terms
 * are not one α and β: the latency terms latency_s (s) taken within
 * FIT_SPEC_ALPHA_SPREAD either way, the size terms bandwidth_s (s) at a
 * bandwidth FIT_SPEC_BETA_LO to FIT_SPEC_BETA_HI times the predicted one:
 *   lo = latency_s / 2.39 + bandwidth_s / 1.212,
 *   hi = latency_s · 2.39 + bandwidth_s / 0.738   (models/fit.md, "Ranges").
 */
void fit_spec_band(double latency_s, double bandwidth_s, double *lo, double *hi);

/*
 * Held-out accuracy: fit on the even rows and predict the odd ones, then
 * the reverse; the relative errors |pred - meas|/meas of all predictions
 * give a median and a 90th percentile, for the model of o and for the
 * plain α-β model.  Needs at least 4 rows.  Returns 0 or -1 with eb.
 */
struct holdout {
	double median, p90, max;         /* model of o */
	double ab_median, ab_p90, ab_max; /* plain α-β */
	size_t n;                         /* predictions made */
};
int fit_holdout(const double *size, const double *time, size_t n,
		enum coll_op op, unsigned long ranks, const struct fit_opts *o,
		struct holdout *h, struct errbuf *eb);

/*
 * Preset keys of a fitted model (README-measure.md): besides alpha and
 * beta (the single best α-β), "fit.op", "fit.algo", "fit.ranks",
 * "fit.base_steps" (κ, optional: 0 when absent), "regimes = K" and for
 * k = 1..K "alpha.k" (s), "beta.k" (B/s), "from.k" and "to.k" (B), and
 * optionally "alpha_ci.k" (s) and "beta_ci.k" (B/s), 95 % half-widths.
 *
 * fit_model_from_preset: returns 1 with m filled when p has regimes, 0
 * when it has none (m untouched), -1 with "file:line: ..." in eb when the
 * keys are malformed.
 */
int fit_model_from_preset(const struct preset *p, struct fit_model *m,
			  struct errbuf *eb);

/*
 * Write a link preset holding ab and m to path with preset_save() (a
 * temporary file beside it renamed into place, loaded back; a path that
 * exists and is not a regular file refused).  name and description go into
 * their keys; comment (may be NULL, may hold several lines) is written as
 * '#' lines at the top: where the fit came from.  Returns 0 or -1 with eb.
 */
int fit_preset_write(const char *path, const char *name, const char *description,
		     const char *comment, const struct ab_fit *ab,
		     const struct fit_model *m, struct errbuf *eb);

#endif
