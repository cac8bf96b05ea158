/*
 * The comparison of commtime compare: each size of the log against its
 * prediction, the flags of the rental checklist, the sums and the
 * verdict.  Nothing here writes; cmd_compare.c writes what it found.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "compare.h"
#include "errband.h"

double cmp_predict(const struct comparison *c, double size, struct coll_cost *cc)
{
	size_t i;

	if (!c->expected)
		return cost_predict(&c->ctx->machine.model, c->op, c->fm ? ALGO_AUTO : c->algo, c->ranks,
				    size, cc);
	for (i = 0; i < c->expected->n; i++)
		if (c->expected->rows[i].size == size)
			return c->expected->rows[i].time;
	return NAN;
}

/*
 * The prediction of one row: a plan's time, or at a size the plan does
 * not hold (a log that goes further than the plan's sweep) the model's,
 * counted in c->beyond_plan and marked on the row.
 */
static double S_row_predict(struct comparison *c, struct cmp_row *r)
{
	double p = cmp_predict(c, r->size, NULL);

	if (c->expected && isnan(p)) {
		p = cost_predict(&c->ctx->machine.model, c->op, c->algo, c->ranks, r->size, NULL);
		r->beyond_plan = 1;
		c->beyond_plan++;
	}
	return p;
}

/*
 * 1 when the largest sizes of the log reach the bandwidth plateau: busbw
 * at the largest size is at most 3 % above busbw at half that size (or
 * the nearest size below).  Otherwise sets *rise to that growth and
 * *before to the smaller size: the curve still climbs (an A100 log that
 * stops at 128 MiB shows 167 GB/s and 4 % per doubling, where the same
 * machine plateaus at 232 GB/s from 1 GiB), and the log cannot tell a
 * slow link from a short sweep.
 */
static int reaches_plateau(const struct comparison *c, double *rise, double *before)
{
	const struct cmp_row *last = &c->rows[c->m->n - 1], *prev = NULL;
	size_t i;

	for (i = 0; i < c->m->n; i++)
		if (c->rows[i].size <= last->size / 2)
			prev = &c->rows[i];
	if (!prev || !(last->busbw > 1.03 * prev->busbw))
		return 1;
	*rise = last->busbw / prev->busbw - 1;
	*before = prev->size;
	return 0;
}

/* The measured side of every row, and its prediction. */
static void S_measured(struct comparison *c)
{
	const struct meas *m = c->m;
	double factor = busbw_factor(c->op, c->ranks);
	size_t i;

	c->rows = xmalloc(m->n * sizeof(*c->rows));
	for (i = 0; i < m->n; i++) {
		const struct meas_row *r = &m->rows[i];
		struct cmp_row *row = &c->rows[i];
		double tm = c->in_place ? r->time_ip : r->time, p;

		*row = (struct cmp_row){ .size = r->size, .measured = tm, .busbw = r->size / tm * factor,
					 .lo = NAN, .hi = NAN };
		p = S_row_predict(c, row);
		row->predicted = p;
		row->pbusbw = p > 0 ? r->size / p * factor : NAN;
	}
}

/* The flags, the band and the sums of one row. */
static void S_judge_row(struct comparison *c, size_t i, int range, int judge_bw,
			const struct fit_model *fm, struct cmp_sum *sum)
{
	struct cmp_row *r = &c->rows[i];
	double ref = c->on_system ? r->pbusbw : c->line_rate;
	double re = fit_rel_err(r->predicted, r->measured);
	struct coll_cost cc = { .time_s = NAN };

	if (r->beyond_plan)
		cost_predict(&c->ctx->machine.model, c->op, c->algo, c->ranks, r->size, &cc);
	else
		cmp_predict(c, r->size, &cc);
	r->cc = cc;
	/* a plan's times are its model's too: the stated error holds for them */
	{
		const struct errband *b = ctx_errband(c->ctx, c->op, c->ranks, r->size);

		if (b && r->predicted > 0) {
			sum->nstated++;
			sum->nstated_inside += errband_inside(b, r->measured, r->predicted);
		}
	}
	if (!isnan(re)) {
		sum->err[sum->nerr++] = fabs(re);
		if (fabs(re) > fabs(sum->worst) || isnan(sum->worst_size)) {
			sum->worst = re;
			sum->worst_size = r->size;
		}
		if (fabs(re) > c->tol) {
			strcat(r->flag, "far");
			r->far = 1;
			sum->nfar++;
		}
	}
	if (judge_bw && r->size >= c->large && r->busbw < c->minbw * ref) {
		strcat(r->flag, *r->flag ? ",low-busbw" : "low-busbw");
		r->low = 1;
	}
	/* The best large message, or the largest when none is large. */
	if ((r->size >= c->large && (isnan(sum->peak) || r->busbw > sum->peak)) ||
	    (i == c->m->n - 1 && isnan(sum->peak))) {
		sum->peak = r->busbw;
		sum->peak_ref = ref;
	}
	if (range) {
		if (c->on_system && !c->fm)
			fit_spec_band(cc.latency_s, cc.bandwidth_s, &r->lo, &r->hi);
		else
			fit_model_range(fm, c->op, c->ranks, r->size, &r->lo, &r->hi);
		sum->ninside += r->measured >= r->lo && r->measured <= r->hi;
		sum->nband++;
	}
}

int compare_run(struct comparison *c, int range, struct fit_model *fm, struct cmp_sum *sum,
		struct cmp_verdict *v)
{
	double rise = 0, before = 0;
	int plateau;
	size_t i;

	S_measured(c);
	plateau = reaches_plateau(c, &rise, &before);
	sum->err = xmalloc(c->m->n * sizeof(*sum->err));
	for (i = 0; i < c->m->n; i++)
		S_judge_row(c, i, range, plateau && (c->on_system || !isnan(c->line_rate)), fm, sum);
	if (sum->nerr == 0)
		return -1;
	gsl_sort(sum->err, 1, sum->nerr);
	compare_judge(c, sum, plateau, rise, before, v);
	return 0;
}
