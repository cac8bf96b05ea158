/*
 * The stated error beside NCCL's predictions (errband.h): which prediction
 * has a band, and the table that says what each band stands on.  Shared by
 * the collective commands, plan and compare.  models/nccl-accuracy.md,
 * "The stated error".
 */
#include <math.h>
#include <stdio.h>

#include "cli.h"
#include "errband.h"

int ctx_has_errband(const struct ctx *ctx, enum coll_op op)
{
	return ctx->machine.have_system && ctx->machine.model.kind == COST_NCCL && op == OP_ALLREDUCE;
}

const struct errband *ctx_errband(const struct ctx *ctx, enum coll_op op, unsigned long ranks,
				  double bytes)
{
	if (!ctx_has_errband(ctx, op) || ranks < 2)
		return NULL;
	return errband_get(system_nodes(&ctx->machine.system, ranks), bytes);
}

void ctx_errband_cell(const struct ctx *ctx, enum coll_op op, unsigned long ranks, double bytes,
		      unsigned *cells)
{
	if (ctx_errband(ctx, op, ranks, bytes))
		*cells |= errband_cell_bit(system_nodes(&ctx->machine.system, ranks), bytes);
}

static const struct column cols[] = {
	{ .key = "runs_on", .label = "runs on", .type = COL_STR, .human = H_PLAIN, .width = 13 },
	{ .key = "sizes", .label = "sizes", .type = COL_STR, .human = H_PLAIN, .width = 16 },
	{ .key = "low_ratio", .label = "low", .type = COL_NUM, .human = H_PLAIN, .prec = 3,
	  .width = 5 },
	{ .key = "median_ratio", .label = "median", .type = COL_NUM, .human = H_PLAIN, .prec = 3 },
	{ .key = "high_ratio", .label = "high", .type = COL_NUM, .human = H_PLAIN, .prec = 3,
	  .width = 5 },
	{ .key = "log_sizes", .label = "log sizes", .type = COL_INT, .human = H_PLAIN },
	{ .key = "logs", .label = "logs", .type = COL_INT, .human = H_PLAIN },
	{ .key = "machines", .label = "machines", .type = COL_INT, .human = H_PLAIN },
	{ .key = "threaded_logs", .label = "-g logs", .type = COL_INT, .human = H_PLAIN },
	{ .key = "inside_left_out", .label = "inside left out", .type = COL_NUM,
	  .human = H_PERCENT, .prec = 0, .width = 15 },
};

void ctx_errband_table(const struct ctx *ctx, struct out *o, unsigned cells)
{
	char title[256];
	const struct table t = {
		.name = "stated_error", .title = title, .cols = cols,
		.ncols = sizeof(cols) / sizeof(cols[0]), .secondary = 1
	};
	int sc, sz, threaded = 0;

	if (!cells)
		return;
	snprintf(title, sizeof(title), "stated error: measured / predicted time of NCCL's model "
		 "on %u public nccl-tests logs of %u machines (%u all-reduce sizes)", errband_logs,
		 errband_machines, errband_sizes);
	out_table_begin(o, &t);
	for (sc = 0; sc < ERRBAND_SCOPE_COUNT; sc++)
		for (sz = 0; sz < ERRBAND_SIZE_COUNT; sz++) {
			const struct errband *b = &errband_table[sc][sz];
			int stated = b->logs >= ERRBAND_MIN_LOGS && b->machines >= ERRBAND_MIN_MACHINES;

			if (!(cells & errband_bit((enum errband_scope)sc, (enum errband_size)sz)))
				continue;
			threaded |= b->threaded > 0;
			struct cell row[] = {
				{ .s = errband_scope_name((enum errband_scope)sc) },
				{ .s = errband_size_name((enum errband_size)sz) },
				{ .x = stated ? b->lo : NAN }, { .x = stated ? b->mid : NAN },
				{ .x = stated ? b->hi : NAN }, { .x = b->sizes }, { .x = b->logs },
				{ .x = b->machines }, { .x = b->threaded },
				{ .x = b->sizes ? (double)b->loo_inside / b->sizes : NAN },
			};
			out_row(o, row);
		}
	out_table_end(o);
	out_text(o, "a run should measure low to high times the prediction: the 10th to 90th "
		 "percentile, widened until a machine left out falls inside 80 %% of the time");
	out_text(o, "inside left out: the share of the sizes inside the band drawn without their "
		 "machine, as that widening left it");
	if (threaded)
		out_text(o, "-g logs: run with one thread driving every GPU of a node (nccl-tests -g N)");
}
