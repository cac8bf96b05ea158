/*
 * What predicts the rental plan (plan.h): the machine's cost model, the
 * pair whose crossover is given, the stated error of a curve.  Shared by
 * the plan command and its sheet and figure, which call here and never
 * into cmd_plan.c.
 */
#include <math.h>
#include <stdio.h>

#include "errband.h"
#include "plan.h"

void planner_init(struct planner *pl, const struct ctx *ctx)
{
	const struct cost_model *m = &ctx->machine.model;

	*pl = (struct planner){ .ctx = ctx, .fm = ctx->machine.have_fit ? &ctx->machine.fit : NULL,
				.cross_a = ALGO_RING, .cross_b = ALGO_DBTREE,
				.tree = "dbtree, the pipelined double binary tree" };
	if (!ctx->machine.have_system)
		return;
	if (cost_algo_supported(m, OP_ALLREDUCE, ALGO_TREE)) {
		pl->cross_b = ALGO_TREE;
		pl->tree = m->kind == COST_NCCL ? "NCCL's tree (NCCL_ALGO=Tree): a chain inside "
			   "each node, double binary trees across nodes" : "the model's tree";
	} else {
		pl->cross_b = ALGO_HIER;
		pl->tree = "none in this model; the pair is ring and hier";
	}
}

double plan_predict(const struct planner *pl, enum coll_op op, enum coll_algo algo,
		    unsigned long ranks, double bytes, struct coll_cost *cc)
{
	return cost_predict(&pl->ctx->machine.model, op, algo, ranks, bytes, cc);
}

int plan_has_errband(const struct planner *pl, enum coll_op op)
{
	return ctx_has_errband(pl->ctx, op) && !pl->fm;
}

void plan_busbw_band(const struct planner *pl, enum coll_op op, unsigned long ranks, double S,
		     double tm, double *lo, double *hi)
{
	const struct errband *b = plan_has_errband(pl, op) ? ctx_errband(pl->ctx, op, ranks, S) :
				  NULL;
	double f = busbw_factor(op, ranks), tlo, thi;

	/* the low busbw is the band's high time, and the reverse */
	errband_range(b, tm, &tlo, &thi);
	*lo = S / thi * f;
	*hi = S / tlo * f;
	if (b && pl->cells)
		ctx_errband_cell(pl->ctx, op, ranks, S, pl->cells);
}

void plan_crossover(const struct planner *pl, unsigned long ranks, struct crossing *c,
		    double *time_s)
{
	const struct cost_model *m = &pl->ctx->machine.model;
	struct group g = { .ranks = ranks };
	struct errbuf eb;

	/* one door: the machine's cost model, whatever its kind (a link, its
	 * fitted regimes, the tiers or NCCL's) */
	if (crossover_coll(m, OP_ALLREDUCE, pl->cross_a, pl->cross_b, &g, CROSS_LO, CROSS_HI, c,
			   &eb) < 0)
		die("crossover at %lu ranks: %s", ranks, eb.msg);
	*time_s = c->result == CROSS_FOUND ?
		  cost_time(m, OP_ALLREDUCE, pl->cross_a, ranks, c->bytes) : NAN;
}

void plan_crossover_text(const struct planner *pl, const struct crossing *c, int in_table,
			 char *buf, size_t len)
{
	const char *a = coll_algo_name(pl->cross_a), *b = coll_algo_name(pl->cross_b);

	switch (c->result) {
	case CROSS_FOUND:
		snprintf(buf, len, "%s is faster below this size, %s above",
			 c->below ? b : a, c->below ? a : b);
		break;
	case CROSS_A_ALWAYS:
		snprintf(buf, len, "%s is faster at every size", a);
		break;
	case CROSS_B_ALWAYS:
		snprintf(buf, len, "%s is faster at every size", b);
		break;
	default:
		if (in_table)
			snprintf(buf, len, "%s and %s take the same time", a, b);
		else
			snprintf(buf, len, "the same time at every size");
		break;
	}
}

