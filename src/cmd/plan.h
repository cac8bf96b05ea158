#ifndef COMMTIME_PLAN_H
#define COMMTIME_PLAN_H

/*
 * The rental plan, shared by the files of the plan command (cmd_plan*.c):
 * what predicts, the nccl-tests command lines, the sheet, the training
 * checks and the figure.
 */

#include "cli.h"
#include "crossover.h"

struct planner {
	const struct ctx *ctx;
	const struct fit_model *fm;   /* the preset's regimes (ctx->machine.model is COST_FIT), or NULL */
	enum coll_algo cross_a, cross_b;   /* the all-reduce pair whose crossover is given */
	const char *tree;             /* which tree cross_b is, in words */
	unsigned *cells;              /* the stated-error cells the rows used (errband.h) */
};

/* What predicts, shared by the command, its sheet and its figure (plan_model.c). */

/*
 * Set pl up for ctx: the preset's regimes (dies on malformed ones), and the
 * pair compared: on a link ring and dbtree (the seed's names), on a system
 * ring and the model's tree (NCCL's tree; hier on the tier model).
 */
void planner_init(struct planner *pl, const struct ctx *ctx);

/* The time of op with algo (ALGO_AUTO: the model's choice) on ranks, bytes; cc may be NULL. */
double plan_predict(const struct planner *pl, enum coll_op op, enum coll_algo algo,
		    unsigned long ranks, double bytes, struct coll_cost *cc);

/*
 * Where cross_a and cross_b take equal time on `ranks` ranks, from the
 * machine's cost model through the cost core (crossover_coll), whatever
 * its kind; dies when the model cannot say.
 * time_s receives the time there (NaN when they do not cross).
 */
void plan_crossover(const struct planner *pl, unsigned long ranks, struct crossing *c,
		    double *time_s);

/*
 * What c says when the pair does not cross ("ring is faster at every
 * size"), or, for the plan table's note (in_table = 1), also when it does
 * ("dbtree is faster below this size, ring above").
 */
void plan_crossover_text(const struct planner *pl, const struct crossing *c, int in_table,
			 char *buf, size_t len);

/*
 * The nccl-tests command line of one curve ("; " between runs when the
 * sizes need several): NCCL_ALGO for an algorithm that is not the model's
 * choice (ALGO_AUTO: the model's choice, or on a link a collective without a
 * choice of algorithm), NCCL_PROTO for --proto,
 * -g N on one node, mpirun beyond.
 */
void plan_run_line(const struct planner *pl, char *buf, size_t len, enum coll_op op,
		   enum coll_algo algo, unsigned long ranks, const struct dlist *sizes);

/*
 * The stated error of a curve of op (errband.h): only when NCCL's model
 * itself predicts it (not a preset's fitted regimes), for all-reduce.
 * plan_busbw_band gives the busbw of the band's high and low times around
 * the prediction tm at S bytes (NaN without a band) and adds the band's
 * cell to *pl->cells.
 */
int plan_has_errband(const struct planner *pl, enum coll_op op);
void plan_busbw_band(const struct planner *pl, enum coll_op op, unsigned long ranks, double S,
		     double tm, double *lo, double *hi);

/* The sheet (human table): one heading a run, a few sizes under it. */
#define SHEET_SIZES 6
void sheet_curve(struct out *o, const struct planner *pl, enum coll_op op, enum coll_algo algo,
		 unsigned long ranks, const struct dlist *sizes, int *nrun);
void sheet_crossover(struct out *o, const struct planner *pl, unsigned long ranks);

/*
 * The training checks on 2, 4, 8... ranks up to maxranks (DDP) and on
 * maxranks (ZeRO stages 0-3): sheet tables, or rows of the plan table.
 * compute: one step's compute in s, 0 to leave the step out.
 */
int plan_ddp_rows(struct out *o, const struct ctx *ctx, double params, double compute,
		  unsigned long maxranks, int sheet);
int plan_zero_rows(struct out *o, const struct ctx *ctx, double params, double compute,
		   unsigned long n, int sheet);
/* Each returns the rows it marked "does not fit" (on a system: the model
 * states of a rank beyond the GPU's memory); plan_fit_note says what that
 * means and points to search, when there are any. */
void plan_fit_note(struct out *o, const struct ctx *ctx, const char *workload, int unfit);

/* The figure of --plot/--render: the expected busbw curves. */
void plan_figure(const struct planner *pl, const enum coll_op *ops, size_t nops,
		 const enum coll_algo *algos, int nalgos, const struct dlist *ranks,
		 const struct dlist *sizes);

#endif
