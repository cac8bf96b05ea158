/*
 * The training checks of commtime plan: the DDP step on 2, 4, 8... ranks
 * and the ZeRO stages, as sheet tables or as rows of the plan table.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "step.h"
#include "train.h"

static const struct column ddp_sheet_cols[] = {
	{ .key = "ranks", .label = "ranks", .type = COL_INT, .human = H_PLAIN, .width = 5 },
	{ .key = "comm_s", .label = "all-reduce", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 10 },
	{ .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 10 },
	{ .key = "fraction", .label = "comm share", .type = COL_NUM, .human = H_PERCENT, .prec = 1,
	  .width = 10 },
	{ .key = "speedup", .label = "speedup", .type = COL_NUM, .human = H_PLAIN, .prec = 3,
	  .width = 7 },
	{ .key = "memory_B", .label = "memory/rank", .type = COL_NUM, .human = H_SIZE, .prec = 4,
	  .width = 11 },
	{ .key = "fits", .label = "fits", .type = COL_STR, .human = H_PLAIN },
};

static const struct column zero_sheet_cols[] = {
	{ .key = "stage", .label = "stage", .type = COL_INT, .human = H_PLAIN, .width = 5 },
	{ .key = "memory_B", .label = "memory/rank", .type = COL_NUM, .human = H_SIZE, .prec = 4,
	  .width = 11 },
	{ .key = "comm_B", .label = "volume", .type = COL_NUM, .human = H_SIZE, .prec = 4, .width = 9 },
	{ .key = "comm_s", .label = "comm time", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 9 },
	{ .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "collectives", .label = "collectives", .type = COL_STR, .human = H_PLAIN },
	{ .key = "fits", .label = "fits", .type = COL_STR, .human = H_PLAIN },
};

/*
 * "does not fit" when the model states of one rank (weights, gradients
 * and Adam's states, models/zero.md; activations not counted) exceed the
 * system's GPU memory; "" when they fit or no GPU is known (a link).
 */
static const char *S_fits(const struct ctx *ctx, double memory_B)
{
	return ctx->machine.have_system && memory_B > ctx->machine.system.gpu.memory_B ? "does not fit" : "";
}

/* Under the checks: what "does not fit" means, and where the layouts that fit are. */
void plan_fit_note(struct out *o, const struct ctx *ctx, const char *workload, int unfit)
{
	char m[32];

	if (!unfit)
		return;
	out_text(o, "%d row%s marked 'does not fit' need more than the GPU's %s for the model "
		 "states alone (weights, gradients, Adam; activations come on top): 'commtime "
		 "--system %s search --workload %s --gpus N --global-batch B' finds the layouts "
		 "that fit and says how many GPUs it needs", unfit, unfit > 1 ? "s" : "",
		 units_fmt_size(m, sizeof(m), ctx->machine.system.gpu.memory_B),
		 global_args.system ? global_args.system : ctx->machine.system.name,
		 workload ? workload : "W");
}

/*
 * The row of the plan table for DDP on n ranks: the step st of p, the
 * memory of a rank in bytes and whether it fits (S_fits).
 */
static void S_ddp_row(struct out *o, const struct ctx *ctx, const struct ddp_params *p,
		      unsigned long n, const struct ddp_step *st, double memory_B,
		      const char *fits)
{
	char run[160], note[160];
	double compute = p->compute;

	snprintf(run, sizeof(run), "DDP training on %lu ranks (torchrun), bf16 "
		 "gradients, time one step", n);
	if (compute > 0)
		snprintf(note, sizeof(note), "communication %.1f %% of the step, "
			 "speedup %.2f of %lu", 100 * st->fraction,
			 n * compute / st->step_s, n);
	else
		snprintf(note, sizeof(note), "the all-reduce alone; --compute for the step");
	if (*fits) {
		char m[32];

		snprintf(note + strlen(note), sizeof(note) - strlen(note), "; does not fit: "
			 "%s a rank", units_fmt_size(m, sizeof(m), memory_B));
	}
	{
		struct cell row[] = { { .s = "ddp" }, { .s = run }, { .s = "all_reduce" },
				      { .x = (double)n }, { .s = cost_algo_label(&ctx->machine.model, p->algo) },
				      { .x = p->grad_bytes }, { .x = st->comm_s },
				      { .x = p->grad_bytes / st->comm_s },
				      { .x = p->grad_bytes / st->comm_s *
					      busbw_factor(OP_ALLREDUCE, n) },
				      { .x = st->step_s }, { .x = memory_B }, { .s = note },
				      { .x = NAN }, { .x = NAN }, { .s = ctx_nccl_priced(ctx) } };
		out_row(o, row);
	}
}

/*
 * DDP: the gradient all-reduce of one step on 2, 4, 8... ranks up to
 * maxranks (models/ddp.md, no overlap, no buckets: the seed's model).
 * Without the compute time (0) the step is left out: the all-reduce alone.
 */
int plan_ddp_rows(struct out *o, const struct ctx *ctx, double params,
		  double compute, unsigned long maxranks, int sheet)
{
	struct zero_params zp;
	int unfit = 0;
	struct column cols[7];
	struct table t = { .name = "ddp", .title = compute > 0 ?
			   "DDP training, bf16 gradients: time one step (torchrun)" :
			   "DDP training, bf16 gradients: the gradient all-reduce of one step",
			   .cols = cols, .ncols = 7, .secondary = 1 };
	struct ddp_params p;
	unsigned long n;

	memcpy(cols, ddp_sheet_cols, sizeof(cols));
	if (!(compute > 0))
		cols[2].flags = cols[3].flags = cols[4].flags = COL_DATA_ONLY;
	zero_params_init(&zp);
	zp.params = params;
	ddp_params_init(&p);
	p.algo = cost_algo_preferred(&ctx->machine.model, OP_ALLREDUCE);
	p.grad_bytes = DDP_GRAD_BYTES * params;     /* bf16 gradients, as its title says */
	p.compute = compute;
	if (sheet)
		out_table_begin(o, &t);
	for (n = 2; n <= maxranks; n *= 2) {
		struct ddp_step st;
		struct zero_cost z;
		const char *fits;

		ddp_step_cost(&p, &ctx->machine.model, n, &st);
		/* every rank holds the whole model: ZeRO stage 0's memory */
		zero_cost_model(&zp, &ctx->machine.model, n, 0, &z);
		fits = S_fits(ctx, z.memory_B);
		unfit += *fits != '\0';
		if (sheet) {
			struct cell row[] = { { .x = (double)n }, { .x = st.comm_s },
					      { .x = st.step_s }, { .x = st.fraction },
					      { .x = n * compute / st.step_s }, { .x = z.memory_B },
					      { .s = fits } };

			out_row(o, row);
			continue;
		}
		S_ddp_row(o, ctx, &p, n, &st, z.memory_B, fits);
	}
	if (sheet)
		out_table_end(o);
	return unfit;
}

/*
 * The row of the plan table for ZeRO stage on n ranks: its cost z, the
 * step in seconds (NAN without the compute time, timed 0), its
 * collectives and whether it fits (S_fits).
 */
static void S_zero_row(struct out *o, const struct ctx *ctx, const struct zero_params *p,
		       unsigned long n, int stage, const struct zero_cost *z, double step,
		       const char *colls, const char *fits, int timed)
{
	char run[160], note[96];

	snprintf(run, sizeof(run), "DeepSpeed ZeRO stage %d on %lu ranks, %sread the "
		 "memory per rank", stage, n, timed ? "time one step, " : "");
	snprintf(note, sizeof(note), "%s; step without overlap%s",
		 stage == 0 ? "plain data parallel (all-reduce)" : colls,
		 *fits ? "; does not fit" : "");
	{
		struct cell row[] = { { .s = "zero" }, { .s = run },
				      { .s = stage == 0 ? "all_reduce" : "reduce_scatter+all_gather" },
				      { .x = (double)n }, { .s = cost_algo_label(&ctx->machine.model, p->algo) },
				      { .x = z->comm_B }, { .x = z->comm_s },
				      { .x = NAN }, { .x = NAN },
				      { .x = step }, { .x = z->memory_B },
				      { .s = note }, { .x = NAN }, { .x = NAN },
				      { .s = ctx_nccl_priced(ctx) } };
		out_row(o, row);
	}
}

/* ZeRO stages 0-3 on n ranks (models/zero.md): memory and communication. */
int plan_zero_rows(struct out *o, const struct ctx *ctx, double params,
		   double compute, unsigned long n, int sheet)
{
	char title[160];
	struct column zcols[7];
	int unfit = 0;
	struct table t = { .name = "zero", .title = title, .cols = zcols, .ncols = 7,
			   .secondary = 1 };
	struct zero_params p;
	int stage;

	zero_params_init(&p);
	p.algo = cost_algo_preferred(&ctx->machine.model, OP_ALLREDUCE);
	p.params = params;
	snprintf(title, sizeof(title), "DeepSpeed ZeRO on %lu ranks, bf16 gradients: %sread the "
		 "memory per rank",
		 n, compute > 0 ? "time one step, " : "");
	memcpy(zcols, zero_sheet_cols, sizeof(zcols));
	if (!(compute > 0))
		zcols[4].flags = COL_DATA_ONLY;
	if (sheet)
		out_table_begin(o, &t);
	for (stage = 0; stage < ZERO_STAGES; stage++) {
		struct zero_cost z;
		const char *colls = stage == 0 ? "all-reduce" : stage == 3 ?
			"reduce-scatter + 2 all-gathers" : "reduce-scatter + all-gather";
		double step;

		const char *fits;

		zero_cost_model(&p, &ctx->machine.model, n, stage, &z);
		fits = S_fits(ctx, z.memory_B);
		unfit += *fits != '\0';
		step = compute > 0 ? compute + z.comm_s : NAN;
		if (sheet) {
			struct cell row[] = { { .x = stage }, { .x = z.memory_B }, { .x = z.comm_B },
					      { .x = z.comm_s }, { .x = step }, { .s = colls },
					      { .s = fits } };

			out_row(o, row);
			continue;
		}
		S_zero_row(o, ctx, &p, n, stage, &z, step, colls, fits, compute > 0);
	}
	if (sheet)
		out_table_end(o);
	return unfit;
}
