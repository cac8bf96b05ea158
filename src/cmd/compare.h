#ifndef COMMTIME_COMPARE_H
#define COMMTIME_COMPARE_H

/*
 * One comparison of a measurement with its prediction, shared by the
 * files of the compare command (cmd_compare*.c): the table and its flags,
 * and the figure.
 */

#include "cli.h"
#include "measfile.h"

/* One compared size. */
struct cmp_row {
	double size, measured, busbw;   /* B, s, B/s */
	double predicted, pbusbw;       /* s, B/s: the prediction at this size */
	int far, low;                   /* its flags */
	int beyond_plan;                /* with --expected: a size the plan lacks, priced by the model */
	char flag[32];                  /* "far", "low-busbw", both or "" */
	double lo, hi;                  /* s: the band of --range (NaN without) */
	struct coll_cost cc;            /* what the model answered (time_s NaN: no model) */
};

struct comparison {
	const struct ctx *ctx;
	const struct meas *m;            /* the log, sizes increasing */
	const struct meas *expected;     /* the rows of a plan CSV (--expected), or NULL */
	const char *expected_path;
	const struct fit_model *fm;      /* the preset's regimes (ctx->machine.model is COST_FIT), or NULL */
	enum coll_op op;
	enum coll_algo algo;             /* asked for; ALGO_AUTO: the model's choice */
	unsigned long ranks;
	int in_place;
	int on_system;                   /* busbw is judged against the prediction */
	double tol, minbw, large;        /* --tolerance, --min-busbw, --large */
	double line_rate;                /* B/s on a link (NaN: unknown); NaN on a system */
	struct cmp_row *rows;            /* m->n of them */
	size_t beyond_plan;              /* with --expected: the sizes the plan lacks */
	char plan_nccl[16];              /* with --expected: the NCCL version the plan priced, or "" */
};

/*
 * The predicted time at `size` (NaN when there is none: a size the plan
 * does not hold); cc (may be NULL) receives the model's choice.
 * (compare_run.c)
 */
double cmp_predict(const struct comparison *c, double size, struct coll_cost *cc);

/* The comparison's results beyond its rows. */
struct cmp_sum {
	double *err;               /* |relative error| of each size with a prediction */
	size_t nerr;
	int nfar, ninside, nband;  /* far sizes; sizes inside the band of --range */
	int nstated, nstated_inside;   /* sizes with a stated error (errband.h); inside it */
	double worst, worst_size;  /* the largest error and its size */
	double peak, peak_ref;     /* the best large-message busbw, and its reference (B/s) */
};

/* Is the fabric fine: the verdict and the lines that explain it. */
struct cmp_verdict {
	const char *word;          /* "fine", "not fine" or "not judged" (JSON summary: verdict) */
	char line[512];            /* "verdict: ...", the first line of the output */
	char note[2][512];         /* why, or what else to know; "" when none */
	const char *cause;         /* on a system, the likely cause of a low busbw, or NULL */
};

/*
 * The comparison itself (compare_run.c): every row of c (the prediction,
 * its flags and with range its band), the sums, and the verdict.
 * Returns -1 when no size has a prediction.
 */
int compare_run(struct comparison *c, int range, struct fit_model *fm, struct cmp_sum *sum,
		struct cmp_verdict *v);

/* The rows as a table (compare_report.c). */
void compare_rows_write(const struct comparison *c, struct out *o, int range);

/*
 * The verdict of the sums (compare_report.c): plateau 0 when the log ends
 * before the bandwidth plateau, which rose by `rise` from `before` B.
 */
void compare_judge(const struct comparison *c, const struct cmp_sum *sum, int plateau,
		   double rise, double before, struct cmp_verdict *v);

/*
 * The summary table and the notes under it (sum->err sorted), and the
 * echo of the inputs.
 */
void compare_summary(const struct comparison *c, struct out *o, const struct cmp_sum *sum,
		     const struct cmp_verdict *v, int range);
struct meas_args;
void compare_inputs(const struct comparison *c, struct out *o, const struct meas_args *ma);

/*
 * On NCCL's model, what a log with NCCL's TUNING lines and tuning table
 * says against the model (compare_nccl.c); nothing without them.
 */
void compare_nccl_notes(const struct comparison *c, struct out *o);

/* The figure of --plot/--render (nothing when neither was given). */
void compare_figure(const struct comparison *c);

#endif
