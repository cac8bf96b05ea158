#ifndef COMMTIME_EXPECT_H
#define COMMTIME_EXPECT_H

/*
 * The expected step: what a run should measure, from the best case the
 * step model computes (every kernel at its best, ideal overlap).  Five
 * terms separate a run from its ceiling (models/step.md, "The expected
 * step"):
 *
 *   clock         the tensor cores at the clock a GPU holds under
 *                 sustained load, c = clock x (power cap / TDP)^(1/3),
 *                 slowing the compute-bound kernels (GEMMs, attention) by 1/c
 *   gaps          the GPU idle between kernels: gap_s per kernel launched
 *   interference  communication hidden behind compute still moves its bytes
 *                 through HBM: the memory-bound kernels beside it lose that
 *                 share of the bandwidth (no fitted number)
 *   stragglers    a synchronous step waits for the slowest of N GPUs: a
 *                 micro-batch's compute x (1 + EXPECT_JITTER x z(N)), z(N)
 *                 the expected largest of N standard normal values
 *   housekeeping  gradient clipping and zeroing the gradient buffer,
 *                 bytes through HBM (no fitted number)
 *
 * Two numbers are fitted (struct expect_params); every other term is
 * stated physics.  Times in seconds.
 */

/* The fitted numbers, each with its physical meaning and bounds. */
struct expect_params {
	double clock;         /* sustained tensor-core clock / the clock the GEMM benchmark
				 ran at, [0.75, 1] */
	double gap_s;         /* s: GPU idle per kernel launched, [0, 20e-6] */
};

/*
 * Relative standard deviation of one GPU's compute time among GPUs of one
 * model in one cluster: Sinha et al. 2022 ("Not All GPUs Are Created
 * Equal", SC22) measured about 8 % between the fastest and the slowest GPU
 * of clusters of thousands, where the spread of N normal values is about
 * 2 z(N) sigma, z(4096) = 3.4: sigma about 1 %.  Not fitted.
 */
#define EXPECT_JITTER 0.01

/* The values fitted on the pool of published runs (models/step-checks.md, "The pool"). */
extern const struct expect_params EXPECT_FITTED;

/*
 * The stated error of the expected step: the quantiles (from the 10th and
 * 90th, widened until 80 % of the runs fall inside) of
 * published / expected over the pool's runs, each predicted with the
 * parameters fitted without its source (models/step.md, "The step's
 * stated error").
 */
#define EXPECT_BAND_LO 0.870
#define EXPECT_BAND_HI 1.131
/* The share of the pool's left-out runs inside that band. */
#define EXPECT_BAND_INSIDE 0.80

/*
 * Kinds of step whose published runs lean one way beyond the band: each
 * with what the runs of that kind measured against the expected step,
 * published / expected, left out by source as the band is drawn
 * (models/step-checks.md, "Kinds that lean"; bench/step-all.py prints
 * them).  A step of such a kind is better read against the edge of the
 * band it leans to.  Nothing here moves the expected step or its band.
 */
enum expect_lean {
	LEAN_FSDP_LONG,          /* FSDP, PyTorch's attention, 16k tokens or more */
	LEAN_FSDP_NO_RECOMPUTE,  /* FSDP without recomputation */
	LEAN_DS2021_ZERO3,       /* DeepSpeed's ZeRO-3 of 2021 */
	LEAN_COUNT
};

struct expect_lean_kind {
	const char *kind;        /* JSON name */
	const char *about;       /* human name */
	int runs;                /* published runs of the kind */
	int sources;             /* independent sources they come from */
	double lo, median, hi;   /* published / expected over those runs */
};

extern const struct expect_lean_kind EXPECT_LEAN[LEAN_COUNT];

/* What the expected step is computed from: the best-case step's terms. */
struct expect_terms {
	double step_best_s;   /* the best case, the step model's step */
	double mb_s;          /* compute of one micro-batch on the slowest stage */
	double bound_share;   /* share of mb_s in compute-bound kernels (GEMMs, attention) */
	double kernels_mb;    /* kernels launched per micro-batch on that stage */
	double kernels_step;  /* kernels launched once a step (data-parallel, update) */
	double interf_mb_s;   /* per micro-batch: memory-bound compute lost beside hidden
				 communication (HBM shared) */
	double interf_dp_s;   /* the same for the data-parallel rows, per step */
	double slots;         /* micro-batch slots on the critical path: m + (p-1)/v */
	double m;             /* micro-batches */
	double ranks;         /* GPUs that synchronise every step */
	double power_share;   /* (cap / TDP)^(1/3) times the SKU's share against its die
				 family's reference (gpu_family); 1 without either; the
				 clock it scales is at most 1 */
	double house_s;       /* gradient clipping and zeroing, per step */
	int kernels;          /* 1: compute by kernel; 0: given or flat (the step stays
				 the best case: the compute is what was given) */
};

/* The expected step and its parts. */
struct expect_out {
	double mb_s;          /* one micro-batch's expected compute */
	double compute_s;     /* m x mb_s */
	double step_s;        /* the expected step */
	double clock_s;       /* per step: what the clock adds */
	double gaps_s;        /* per step: the kernels' gaps */
	double interference_s; /* per step: compute lost beside hidden communication */
	double straggler_s;   /* per step: waiting for the slowest GPU */
	double house_s;       /* per step: clipping and zeroing */
	double z;             /* z(ranks) */
};

/*
 * Expected largest of n independent standard normal values, Blom's
 * approximation Phi^-1((n - 0.375) / (n + 0.25)) (G. Blom, "Statistical
 * Estimates and Transformed Beta-Variables", 1958): 0 for n = 1, 1.43 for 8,
 * 3.23 for 1024.  n < 1 is taken as 1.
 */
double expect_max_normal(double n);

/*
 * The clock a GPU holds under a power cap, as a share of its clock at its
 * TDP: (cap / tdp)^(1/3), at most 1 (dynamic power ~ C V^2 f with the
 * voltage following the clock, so P ~ f^3; models/step.md).  1 when
 * either is not positive.
 */
double expect_power_share(double cap_w, double tdp_w);

/* The expected step of terms t under parameters p. */
void expect_apply(const struct expect_terms *t, const struct expect_params *p,
		  struct expect_out *o);

#endif
