/*
 * The expected step from the best case's terms (expect.h).  Formulas,
 * sources and the fit: models/step.md, "The expected step".
 */
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "expect.h"

/*
 * Fitted on the pool of published runs in bench/step-pool.txt
 * (models/step-checks.md, "The pool"; bench/step-pool.py), 2026-12-06,
 * each source weighing as much as any other.
 */
const struct expect_params EXPECT_FITTED = {
	.clock = 0.823,
	.gap_s = 0.0,
};

/*
 * What the runs of each kind measured, published / expected step, each run
 * predicted with the clock fitted without its source: the lowest, the
 * median and the highest (models/step-checks.md, "Kinds that lean").
 * FSDP's two kinds: LLM Foundry's H100 and A100 tables and torchtitan's
 * runs, 34 at 16k tokens and more (its context-parallel ones among them),
 * 67 without recomputation, all but one LLM Foundry's (bench/step-all.py,
 * its "kind" lines, over fifteen sources); DeepSpeed's ZeRO-3 of 2021:
 * Narayanan et al. 2021's six runs against PTD-P (Table 2, Figure 10;
 * bench/step-check.sh, its second table), in no fit.
 */
const struct expect_lean_kind EXPECT_LEAN[LEAN_COUNT] = {
	[LEAN_FSDP_LONG] = { "fsdp_long_sequence", "FSDP, PyTorch's attention, 16k tokens and more",
			     34, 2, 0.921, 1.191, 1.350 },
	[LEAN_FSDP_NO_RECOMPUTE] = { "fsdp_no_recompute", "FSDP without recomputation",
				     67, 2, 0.917, 1.091, 1.343 },
	[LEAN_DS2021_ZERO3] = { "deepspeed_2021_zero3", "DeepSpeed's ZeRO-3 of 2021",
				6, 1, 1.018, 1.141, 1.390 },
};

double expect_max_normal(double n)
{
	if (!(n > 1))
		return 0;
	return gsl_cdf_ugaussian_Pinv((n - 0.375) / (n + 0.25));
}

double expect_power_share(double cap_w, double tdp_w)
{
	if (!(cap_w > 0) || !(tdp_w > 0) || cap_w >= tdp_w)
		return 1;
	return cbrt(cap_w / tdp_w);
}

void expect_apply(const struct expect_terms *t, const struct expect_params *p,
		  struct expect_out *o)
{
	/* a GPU holds at most the clock its peak is rated at */
	double clock = fmin(1, p->clock * t->power_share);
	double mb_clock, mb_gaps, mb_int, mb_work;

	memset(o, 0, sizeof(*o));
	o->z = expect_max_normal(t->ranks);
	if (!t->kernels || isnan(t->step_best_s)) {
		o->mb_s = t->mb_s;
		o->compute_s = t->mb_s * t->m;
		o->step_s = t->step_best_s;
		return;
	}
	mb_clock = t->mb_s * t->bound_share * (1 / clock - 1);
	mb_gaps = t->kernels_mb * p->gap_s;
	mb_int = t->interf_mb_s;
	mb_work = t->mb_s + mb_clock + mb_gaps + mb_int;
	o->mb_s = mb_work * (1 + EXPECT_JITTER * o->z);
	o->compute_s = o->mb_s * t->m;
	o->clock_s = t->slots * mb_clock;
	o->gaps_s = t->slots * mb_gaps + t->kernels_step * p->gap_s;
	o->interference_s = t->slots * mb_int + t->interf_dp_s;
	o->straggler_s = t->slots * (o->mb_s - mb_work);
	o->house_s = t->house_s;
	o->step_s = t->step_best_s + o->clock_s + o->gaps_s + o->interference_s +
		    o->straggler_s + o->house_s;
}
