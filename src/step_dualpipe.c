/*
 * DeepSeek's DualPipe schedule (DeepSeek-V3 report, arXiv:2412.19437,
 * section 3.2.1, Figure 5 and Table 2; deepseek-ai/DualPipe at 3da1bbe,
 * dualpipe/dualpipe.py): each rank holds two stages, i and p - 1 - i, and
 * micro-batches enter the pipeline from both ends.  In the steady state a
 * forward chunk of one micro-batch and a backward chunk of another run as
 * a pair, each one's expert all-to-all and pipeline send/recv behind the
 * other's compute.  models/step-teams.md, "DualPipe".
 */
#include <math.h>

#include "step.h"
#include "step_int.h"

/*
 * SMs the report gives the communication kernels while a pair overlaps:
 * 20 of the H800's 132 (section 3.2.2, "only 20 SMs are sufficient to
 * fully utilize the bandwidths of IB and NVLink").
 */
#define STEP_DUALPIPE_COMM_SMS 20.0

/*
 * One pair's time: compute k beside communication c.  While the
 * communication runs the compute has sms - 20 of the GPU's sms SMs, so
 * it takes k + c·20/sms when the communication ends first, c when it
 * does not (sms 0, no kernel model: no SM charge).
 */
double step_dualpipe_pair_s(double k, double c, double sms)
{
	double share = sms > STEP_DUALPIPE_COMM_SMS ? STEP_DUALPIPE_COMM_SMS / sms : 0;

	return fmax(k + c * share, c);
}

/*
 * Paired forward-backward chunks of the ranks with the fewest, the first
 * and last (half_rank 0 in dualpipe.py, DualPipe.step): step 4 runs
 * 2(m/2 - p + 1) pairs and step 5 p/2 - 1 more, m - 3p/2 + 1 in all of
 * the rank's m forwards and m backwards.
 */
double step_dualpipe_pairs(double p, double m)
{
	return fmax(0, m - 1.5 * p + 1);
}

/*
 * The bubble of the report's Table 2: (p/2 - 1)(F&B + B - 3W), F&B a
 * pair's time, B a full backward chunk's, W its weight-gradient part.
 */
double step_dualpipe_bubble_s(double p, double fb, double b, double w)
{
	return fmax(0, (p / 2 - 1) * (fb + b - 3 * w));
}

/* The rows a pair hides: the EP all-to-all and the pipeline's send/recv. */
static int S_paired(const struct step_row *row)
{
	return (row->dim == DIM_EP && row->op == OP_ALLTOALL) || row->dim == DIM_PP;
}

/*
 * The micro-batch's rows under DualPipe.  Of the m forward and m backward
 * chunks of a rank, step_dualpipe_pairs of each run paired, a pair taking
 * step_dualpipe_pair_s of the micro-batch's compute K and of the paired
 * rows' time C; the other chunks wait for their communication whole.  A
 * micro-batch's paired rows stay exposed (pairs/m)(pair - K) + (1 -
 * pairs/m) C, shared by their times; the other rows keep what the rules
 * before left exposed.  Then the bubble, in u->dual_bubble_s.
 */
void step_overlap_dualpipe(struct run *u)
{
	struct step_result *r = u->r;
	double K = u->fwd_mb + u->bwd_mb, C = 0, Cb = 0, Xf = 0, Xb = 0;
	double pair, share, E, fb, b, w;
	int i;

	u->dual_bubble_s = NAN;
	if (u->c->schedule != PP_DUALPIPE || isnan(K))
		return;
	for (i = 0; i < r->nrows; i++) {
		const struct step_row *row = &r->rows[i];

		if (S_paired(row)) {
			C += row->time_s;
			Cb += row->phase == PH_BACKWARD ? row->time_s : 0;
		} else if (row->phase == PH_BACKWARD) {
			Xb += row->exposed_s;
		} else {
			Xf += row->exposed_s;
		}
	}
	pair = step_dualpipe_pair_s(K, C, u->sms);
	share = fmin(1, step_dualpipe_pairs(u->p, u->m) / u->m);
	E = share * (pair - K) + (1 - share) * C;
	for (i = 0; i < r->nrows; i++) {
		struct step_row *row = &r->rows[i];
		double e = C > 0 ? row->time_s * E / C : 0;

		if (!S_paired(row))
			continue;
		row->exposed_s = fmax(0, fmin(row->time_s, e));
		row->hidden_s = row->time_s - row->exposed_s;
		row->overlap = row->hidden_s > 0 ? "the paired chunk's compute (dualpipe)" : NULL;
	}
	/*
	 * The bubble's terms: a pair with the other rows' exposed time; a
	 * backward chunk alone with its rows exposed; its weight-gradient
	 * part: half the backward less the forward it recomputes (the
	 * backward's FLOPs are twice the forward's, the input's gradient and
	 * the weights', Narayanan et al. 2021, appendix on floating-point
	 * operations; attention's core, with no weights, counted in as well).
	 */
	fb = pair + Xf + Xb;
	b = u->bwd_mb + Cb + Xb;
	w = (u->bwd_mb - u->rec_mb) / 2;
	u->dual_bubble_s = step_dualpipe_bubble_s(u->p, fb, b, w);
}
