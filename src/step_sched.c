/*
 * The pipeline schedule of a step: the micro-batches whose activations a
 * stage holds, the bubble, and the step time that joins compute, exposed
 * communication and the update.  models/step.md, "Step time".
 */
#include <math.h>

#include "step.h"
#include "step_int.h"

/*
 * The micro-batches a virtual stage runs in a row under the interleaved
 * schedule, N.  Megatron-Core's microbatch_group_size_per_vp_stage: pp by
 * default; where pp does not divide m, the least N in [pp, m] whose
 * remainder m mod N is 0 or at least pp, the two conditions schedules.py
 * (forward_backward_pipelining_with_interleaving, since November 2024)
 * checks.  PyTorch's (--framework fsdp; torch/distributed/pipelining/
 * schedules.py, ScheduleInterleaved1F1B): m in max(1, m / pp) rounds,
 * which must divide m, N = m / rounds.  0 when m < pp or no N serves.
 */
double step_vp_group(const struct step_config *c, double m)
{
	double p = (double)c->pp, n, rounds;

	if (m < p)
		return 0;
	if (c->framework == FW_FSDP) {
		rounds = floor(m / p);
		return fmod(m, rounds) == 0 ? m / rounds : 0;
	}
	for (n = p; n <= m; n++) {
		double rest = fmod(m, n);

		if (rest == 0 || rest >= p)
			return n;
	}
	return 0;
}

/* Micro-batches whose activations a stage holds (Megatron's schedules.py). */
double step_sched_inflight(const struct step_config *c, double rank, double m)
{
	double p = (double)c->pp, v = (double)c->virt, x;

	if (c->pp <= 1)
		return 1;
	if (c->schedule == PP_GPIPE)
		return m;
	/* DualPipe: p + 1 on every rank (DeepSeek-V3 report, Table 2) */
	if (c->schedule == PP_DUALPIPE)
		return fmin(p + 1, m);
	if (c->schedule == PP_INTERLEAVED) {
		/* warm-up (p - rank - 1)·2 + (v - 1)·N chunks, plus one, of L/v layers
		 * each (get_pp_rank_microbatches), N = step_vp_group: p when p
		 * divides m */
		double n = fmax(step_vp_group(c, m), p);

		x = (2 * (p - rank - 1) + (v - 1) * n + 1) / v;
		return fmin(x, m);
	}
	return fmin(p - rank, m);
}

/*
 * The update by kernel into r->optim_s, with DeepSpeed's accumulation of
 * bf16 gradients (r->optim_acc_s, else 0); without kernels r->optim_s as
 * it was.
 */
static void S_optim(struct run *u)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	const struct kernel_gpu *kg = u->kg;
	struct step_result *r = u->r;
	double dense = u->dense, expert = u->expert, zd = u->zd, h = u->h, t = u->t;
	double m = u->m;

	r->optim_acc_s = 0;
	if (r->kernels) {
		r->optim_s = kernel_adam_s(kg, (dense + expert +
					      (c->pp > 1 ? w->vocab * h / t : 0)) /
					   (c->zero >= 1 ? zd : 1), c->moment_bytes);
		/*
		 * DeepSpeed's bf16 optimizer (bf16 with ZeRO-1, the wrapper
		 * engine.py picks: _do_optimizer_sanity_check) adds each
		 * micro-batch's bf16 gradients into its fp32 ones after the
		 * backward (bf16_optimizer.py, update_hp_grads: the cast reads 2
		 * bytes and writes 4, the add reads 8 and writes 4), on the
		 * compute stream: 18 bytes a parameter of the stage, m times.
		 */
		if (c->framework == FW_DEEPSPEED && c->zero == 1)
			r->optim_acc_s = m * kernel_mem_s(kg, STEP_DS_BF16_ACC_B * r->stage_params);
		r->optim_s += r->optim_acc_s;
	}
}

/* The update, the bubble and the step. */
int step_sched_step(struct run *u, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	const struct step_compute *cs = u->cs;
	struct step_pricing *prp = u->prp;
	struct step_result *r = u->r;
	struct pp_config ppc;
	struct pp_result ppr;
	double p = u->p, v = u->v, m = u->m;

	/* The optimizer's update of this GPU's share of the weights. */
	S_optim(u);

	/*
	 * Step: m micro-batches of compute and exposed communication, the
	 * pipeline bubble of (p-1)/v of them (Narayanan et al. 2021, §2.2),
	 * then the data-parallel collectives' exposed part and the update;
	 * under --offload-activations the waits for the host link.
	 */
	/* the calculator checks DualPipe's counts as 1F1B's (step_check has
	 * checked its own) */
	ppc.schedule = c->pp > 1 && c->schedule != PP_DUALPIPE ? c->schedule : PP_1F1B;
	ppc.stages = c->pp;
	ppc.microbatches = (unsigned long)m;
	/* Megatron-Core's interleaved groups (step_vp_group) take any m from p
	 * on, which the calculator's rule (m a multiple of p) does not know:
	 * it checks the counts with the next multiple of p (the bubble below
	 * is the same formula either way) */
	if (ppc.schedule == PP_INTERLEAVED && c->pp > 1 && fmod(m, p) != 0)
		ppc.microbatches = (unsigned long)(ceil(m / p) * p);
	ppc.virt = c->pp > 1 ? c->virt : 1;
	ppc.tf = 1;
	ppc.tb = 2;
	if (pp_bubble(&ppc, &ppr, eb) < 0)
		return -1;
	step_offload_time(u);
	if (!isnan(r->compute_s) && !isnan(r->mb_exposed_s)) {
		double tmb = r->mb_compute_s + r->mb_exposed_s;
		/* the waits for the host link (step_offload.c), each micro-batch */
		double off = r->offload.exposed_s > 0 ? m * r->offload.exposed_s : 0;

		/* DualPipe: the bubble of its Table 2 (step_overlap_dualpipe) */
		r->bubble_s = c->schedule == PP_DUALPIPE ? u->dual_bubble_s
			      : (p - 1) / (c->pp > 1 ? v : 1) * tmb;
		r->step_s = m * tmb + off + r->bubble_s + r->dp_exposed_s + r->optim_s;
		r->tokens_per_s = r->tokens / r->step_s;
		if (cs->peak_flops > 0)
			r->mfu = r->flops_model / (r->step_s * r->gpus * cs->peak_flops);
	}
	r->band_missing = prp->missing;
	r->band_cells = prp->cells;

	return 0;
}
