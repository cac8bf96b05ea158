/*
 * The terms of the expected step read off a step (step_expect.h).
 * Formulas and sources: models/step.md, "The expected step".
 */
#include <math.h>
#include <string.h>

#include "step_expect.h"
#include "step_int.h"

/*
 * Forward kernels of one layer (Megatron-Core's transformer layer with
 * Transformer Engine's fused norms and linears):
 *   GPT:   norm, QKV, attention, output projection, bias-dropout-add,
 *          norm, MLP up, bias-GELU, MLP down, bias-dropout-add       10
 *   Llama: the same with RMSNorm, a rotary kernel for q and one for k,
 *          residual adds and SwiGLU in place of bias-GELU            12
 *   unfused attention: two batched GEMMs, the fused scale-mask-softmax
 *          and (GPT) dropout in place of the one fused kernel        +3 (Llama +2)
 *   MoE:   router GEMM, softmax and top-k, permute, two grouped GEMMs
 *          with the activation, unpermute in place of the MLP's 3     +5
 *   shared experts: their MLP beside the routed ones (up, SwiGLU, down) +3
 *   latent attention: q and kv down and up projections in place of QKV
 *          (+3), the two latents' RMSNorms (+2), q and k put together
 *          from their rotary and non-rotary parts (+2)                 +7
 * Backward launches each GEMM's two gradient GEMMs and the
 * elementwise kernels' gradients, counted as twice the forward.
 */
static double S_attn_kernels(const struct workload *w, int fused)
{
	if (fused)
		return 1;
	return w->arch == WL_LLAMA ? 3 : 4;
}

double expect_layer_kernels(const struct workload *w, int fused, enum recompute rc)
{
	double attn = S_attn_kernels(w, fused);
	double fwd = (w->arch == WL_LLAMA ? 11 : 9) + attn + (w->experts > 1 ? 5 : 0) +
		(w->experts > 1 && w->shared > 0 ? 3 : 0) + (workload_mla(w) ? 7 : 0);
	double k = 3 * fwd;

	if (rc == RC_FULL)
		k += fwd;
	else if (rc == RC_SELECTIVE)
		k += attn;
	return k;
}

/* The output layer and its loss: the logits GEMM and its two gradient
 * GEMMs, the cross-entropy's six kernels forward and two backward. */
#define EXPECT_OUTPUT_KERNELS 11.0
/* The update: Adam, the gradient norm and the clipping scale as
 * multi-tensor kernels, the zeroing of the gradient buffer. */
#define EXPECT_UPDATE_KERNELS 4.0

/*
 * Housekeeping beside Adam's update (Megatron-Core's optimizer,
 * clip_grads.py and the distributed data-parallel gradient buffer): the
 * gradient norm reads each fp32 gradient of this GPU's optimizer shard
 * (4 bytes) and the clipping scales it in place (8 bytes): 12 bytes where
 * Adam moves 30 (22 with BF16 moments, kernel_adam_bytes), so 12/30 of
 * the update's time; the gradient buffer is
 * zeroed before the next step, 4 bytes a parameter of the buffer this GPU
 * holds (all of its stage's, or its shard's with ZeRO 2 and 3).
 */
static double S_house_s(const struct step_config *c, const struct step_result *r,
			const struct kernel_gpu *kg)
{
	double shard = c->zero >= 2 ? (double)c->dp * c->cp : 1;
	double zero_s = kg ? kernel_mem_s(kg, 4 * r->stage_params / shard) : 0;

	if (!r->kernels || isnan(r->optim_s))
		return 0;
	return (r->optim_s - r->optim_acc_s) * 12.0 / kernel_adam_bytes(c->moment_bytes) + zero_s;
}

/* Hidden time of a row x the share of the HBM its collectives' bytes take. */
static double S_interference(const struct step_row *row, const struct kernel_gpu *kg)
{
	double rate;

	if (!kg || !(kg->hbm_Bps > 0) || !(row->one_s > 0) || !(row->hidden_s > 0))
		return 0;
	rate = 3 * row->bytes / row->one_s;
	return row->hidden_s * fmin(1, rate / (kg->hbm_Bps * kg->hbm_eff));
}

/*
 * The bubble in micro-batch slots of the best case: (p - 1)/v, or under
 * DualPipe its bubble over one micro-batch's compute and exposed time.
 */
static double step_bubble_slots(const struct step_config *c, const struct step_result *r)
{
	double tmb = r->mb_compute_s + r->mb_exposed_s;

	if (c->schedule == PP_DUALPIPE)
		return tmb > 0 ? r->bubble_s / tmb : 0;
	return ((double)c->pp - 1) / (c->pp > 1 ? (double)c->virt : 1);
}

void expect_terms_of(const struct workload *w, const struct step_config *c,
		     const struct step_result *r, const struct kernel_gpu *kg,
		     double power_share, struct expect_terms *t)
{
	const struct kernel_layer *k = &r->layer;
	double lay, bound;
	int i;

	memset(t, 0, sizeof(*t));
	t->step_best_s = r->step_s;
	t->mb_s = r->mb_compute_s;
	t->m = r->microbatches;
	t->slots = r->microbatches + step_bubble_slots(c, r);
	t->ranks = r->gpus;
	t->power_share = power_share > 0 ? power_share : 1;
	t->kernels = r->kernels;
	if (!r->kernels || isnan(r->step_s))
		return;
	/* The compute-bound share: GEMMs and attention of the layer, forward
	 * and backward (recomputation runs the same mix again). */
	lay = k->fwd_s + k->bwd_s;
	bound = k->gemm_fwd_s + k->gemm_bwd_s + k->attn_fwd_s + k->attn_bwd_s;
	t->bound_share = lay > 0 ? bound / lay : 1;
	t->kernels_mb = r->layers * expect_layer_kernels(w, r->fused, c->recompute) +
			EXPECT_OUTPUT_KERNELS;
	t->kernels_step = EXPECT_UPDATE_KERNELS;
	for (i = 0; i < r->nrows; i++) {
		const struct step_row *row = &r->rows[i];
		double lost = S_interference(row, kg) * (1 - t->bound_share);

		if (row->dim == DIM_DP) {
			t->interf_dp_s += lost;
			t->kernels_step += row->count;
		} else {
			t->interf_mb_s += lost;
			t->kernels_mb += row->count;
		}
	}
	t->house_s = S_house_s(c, r, kg);
}


/*
 * The sequence from which FSDP's attention runs lean slow (EXPECT_LEAN):
 * LLM Foundry's tables, whose runs at 16k to 64k tokens ran 10-26 % slower
 * than expected where its 8k runs sit inside the band (models/step-checks.md,
 * "LLM Foundry's whole tables", "Kinds that lean"): the tables' own steps.
 */
#define LEAN_LONG_TOKENS 16384

unsigned step_expect_leans(const struct step_config *c)
{
	unsigned k = 0;

	if (c->framework == FW_FSDP && (c->attention == ATTN_AUTO || c->attention == ATTN_FLASH2) &&
	    c->seq >= LEAN_LONG_TOKENS)
		k |= 1u << LEAN_FSDP_LONG;
	if (c->framework == FW_FSDP && c->recompute == RC_NONE)
		k |= 1u << LEAN_FSDP_NO_RECOMPUTE;
	if (c->framework == FW_DEEPSPEED_2021 && c->zero == 3)
		k |= 1u << LEAN_DS2021_ZERO3;
	return k;
}

void step_expect(const struct workload *w, const struct step_config *c,
		 const struct kernel_gpu *kg, double power_share, double peak,
		 const struct expect_params *p, struct step_result *r)
{
	struct expect_out *o = &r->expect;
	double nb = step_bubble_slots(c, r);

	r->step_best_s = r->step_s;
	r->compute_best_s = r->compute_s;
	r->mb_compute_best_s = r->mb_compute_s;
	r->bubble_best_s = r->bubble_s;
	r->mfu_best = r->mfu;
	r->step_lo_s = r->step_hi_s = NAN;
	r->leans = 0;
	memset(&r->expect_terms, 0, sizeof(r->expect_terms));
	memset(o, 0, sizeof(*o));
	if (isnan(r->step_s))
		return;
	expect_terms_of(w, c, r, kg, power_share, &r->expect_terms);
	expect_apply(&r->expect_terms, p ? p : &EXPECT_FITTED, o);
	r->step_s = o->step_s;
	r->compute_s = o->compute_s;
	r->mb_compute_s = o->mb_s;
	r->bubble_s = nb * (o->mb_s + r->mb_exposed_s);
	r->tokens_per_s = r->tokens / r->step_s;
	if (peak > 0)
		r->mfu = r->flops_model / (r->step_s * r->gpus * peak);
	r->leans = step_expect_leans(c);
	r->step_lo_s = r->step_s * EXPECT_BAND_LO;
	r->step_hi_s = r->step_s * EXPECT_BAND_HI;
}
