/*
 * The shape of a step: the layers of each pipeline stage, the FLOPs, and
 * the compute of one stage (by kernel through src/kernel.c, a flat share
 * of the peak, or given).  models/step.md, "FLOPs" and
 * "Compute by kernel".
 */
#include <math.h>

#include "step.h"
#include "step_int.h"

int step_stage_layers(const struct workload *w, const struct step_config *c, double *first,
		      double *middle, double *last, struct errbuf *eb)
{
	double l = w->layers, p = (double)c->pp, f = c->layers_first, e = c->layers_last, rest;

	if (p <= 1) {
		if (f > 0 || e > 0)
			return errbuf_set(eb, "layers on the first and last stage need pipeline parallelism");
		*first = *middle = *last = l;
		return 0;
	}
	if (f > 0 || e > 0) {
		/* Megatron's num_layers_in_first/last_pipeline_stage: the rest even. */
		if (!(f > 0))
			f = e;
		if (!(e > 0))
			e = f;
		rest = l - f - e;
		if (f != floor(f) || e != floor(e) || rest < 0 || (p == 2 && rest != 0) ||
		    (p > 2 && (fmod(rest, p - 2) != 0 || rest / (p - 2) < 1)))
			return errbuf_set(eb, "%.15g layers on the first and %.15g on the last stage "
					  "leave %.15g for %.15g middle stages: not an even split",
					  f, e, rest, p - 2);
		*first = f;
		*last = e;
		*middle = p > 2 ? rest / (p - 2) : f;
		return 0;
	}
	if (fmod(l, p) == 0) {
		*first = *middle = *last = l / p;
		return 0;
	}
	/*
	 * Uneven: the middle stages take ceil(l/p), the first and last the
	 * rest, half each (Llama 3: one layer fewer on the first and last of
	 * 16 stages for its 126 layers, section 3.3.2); an odd rest gives the
	 * first stage the extra layer, the last holding the output layer and
	 * the loss (DeepSeek-V3's 61 layers on 16 stages: 3, 14 x 4, 2).
	 */
	*middle = ceil(l / p);
	rest = p > 2 ? l - (p - 2) * *middle : l;
	if (rest < 2)
		return errbuf_set(eb, "pipeline size %lu does not divide the %.15g layers (and "
				  "they do not split as ceil(l/p) per middle stage with the rest "
				  "on the first and last; give --layers-first)", c->pp, l);
	*first = ceil(rest / 2);
	*last = rest - *first;
	if (p == 2)
		*middle = *first;
	return 0;
}

void step_stage_dense(struct run *u)
{
	const struct workload *w = u->w;
	double l = u->l;

	u->Ld = u->Ldf = u->Ldm = u->Ldm2 = u->Ldl = 0;
	if (!(w->dense_layers > 0))
		return;
	if (u->c->pp == 1) {
		u->Ld = u->Ldf = u->Ldl = workload_dense_in(w, 0, l);
		return;
	}
	u->Ldf = workload_dense_in(w, 0, u->Lf);
	u->Ldl = workload_dense_in(w, l - u->Ll, u->Ll);
	if (u->c->pp > 2) {
		u->Ldm = workload_dense_in(w, u->Lf, u->Lm);
		u->Ldm2 = workload_dense_in(w, l - u->Ll - u->Lm, u->Lm);
	}
	u->Ld = u->c->pp > 2 ? u->Ldm : u->Lf >= u->Ll ? u->Ldf : u->Ldl;
}

static double S_dense_params(const struct run *u, double n, double nd, int other)
{
	const struct layer_params lp = u->lp;
	double t = u->t, x;
	struct workload d;
	struct layer_params ld;

	x = n * (lp.attn / t + (other ? lp.other : 0) + (u->moe ? lp.shared / t : lp.mlp / t));
	if (!(nd > 0))
		return x;
	workload_dense_layer(u->w, &d);
	workload_layer_params(&d, &ld);
	return (n - nd) * (lp.attn / t + (other ? lp.other : 0) + lp.shared / t) +
	       nd * (ld.attn / t + (other ? ld.other : 0) + ld.mlp / t);
}

double step_stage_dense_params(const struct run *u, double n, double nd)
{
	return S_dense_params(u, n, nd, 1);
}

double step_stage_dense_linears(const struct run *u, double n, double nd)
{
	return S_dense_params(u, n, nd, 0);
}

double step_up_proj_params(const struct workload *w)
{
	double a = w->heads;

	/* MLA's up projections (workload.c, S_mla_params): q_b_proj
	 * q_lora x a(d + r), kv_b_proj kv_lora x a(d + v); none without
	 * latent attention, nor a q up projection without q_lora */
	if (!workload_mla(w))
		return 0;
	return (w->q_lora > 0 ? w->q_lora * a * (w->head_dim + w->rope) : 0) +
	       w->kv_lora * a * (w->head_dim + w->v_head);
}

double step_alt_matmul_params(const struct workload *w)
{
	double h = w->hidden, hkv = workload_kv_width(w), hq = workload_q_width(w), f = w->ffn;
	int gpt = w->arch == WL_GPT, moe = w->experts > 1;

	/* torchtitan counts a layer's matmuls and recomputes the even ones:
	 * Llama's k, o and up (q, k, v, o, gate, up, down), GPT's attention
	 * output and the MLP's last (QKV, output, first, last); an MoE layer's
	 * experts run grouped GEMMs, which it does not count. */
	if (gpt)
		return hq * h + (moe ? 0 : f * h);
	return h * hkv + hq * h + (moe ? 0 : h * f);
}

void step_shape_flops(struct run *u)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	double l = u->l, s = u->s, h = u->h, core, tok, mm;
	int full = u->full;
	const struct layer_params lp = u->lp;

	/*
	 * FLOPs: 6 per parameter and token that multiplies (the layers'
	 * matrices, k experts of an MoE layer, the output layer), plus the
	 * attention scores and their use, 4s·h_q per token and layer forward
	 * (h_q = a·d, the queries' width: h unless the head_dim key says),
	 * times 3 for forward and backward (Narayanan et al. 2021, Eq. 3
	 * without recomputation).  Full recomputation runs the layers'
	 * forward again, selective only the attention core (Korthikanti et
	 * al. 2022, §5).
	 */
	tok = r->tokens;
	/* The first dense_layers layers count their own MLP (workload_matmul_params);
	 * latent attention's core is a(d_qk + d_v)/2 wide (workload_core_width);
	 * a sliding-window layer's queries span its window, not s
	 * (workload_attn_span). */
	mm = w->dense_layers > 0 ? workload_matmul_params(w) : l * lp.matmul;
	core = workload_core_width(w) * workload_attn_span(w, s);   /* span·h_q */
	r->flops_model = 6 * tok * (mm + w->vocab * h) + 12 * tok * l * core;
	r->flops_hw = r->flops_model;
	if (full)
		r->flops_hw += 2 * tok * mm + 4 * tok * l * core;
	else if (c->recompute == RC_SELECTIVE)
		r->flops_hw += 4 * tok * l * core;
	else if (c->recompute == RC_ALT_MATMUL)
		r->flops_hw += 2 * tok * l * step_alt_matmul_params(w);
	else if (c->recompute == RC_NORM_SWIGLU)   /* each layer's up projections again */
		r->flops_hw += 2 * tok * l * step_up_proj_params(w);

}

/*
 * The forward work backward runs again, one layer: all of it (full), the
 * attention core (selective), the memory-bound work of norms, activation
 * functions and casts (matmul-outputs), and with it the even matmuls'
 * forward GEMMs (alternate-matmul-outputs: Llama's k, o and up, GPT's
 * attention output and last MLP matrix, their shares of kernel_layer's
 * linears) or latent attention's up projections (norm-and-swiglu-inputs).
 */
static double S_recomputed_s(const struct workload *w, const struct step_config *c,
			     const struct kernel_layer *k, int full)
{
	double hq = workload_q_width(w), hkv = workload_kv_width(w), alt;
	int moe = w->experts > 1;

	if (full)
		return k->fwd_s;
	switch (c->recompute) {
	case RC_SELECTIVE:
		return k->attn_fwd_s;
	case RC_MATMUL:
		return k->mem_fwd_s;
	case RC_ALT_MATMUL:
		if (w->arch == WL_GPT)
			alt = k->lin_fwd_s[1] + (moe ? 0 : k->lin_fwd_s[3]);
		else
			alt = k->lin_fwd_s[0] * hkv / (hq + 2 * hkv) + k->lin_fwd_s[1] +
			      (moe ? 0 : k->lin_fwd_s[2] / 2);
		return k->mem_fwd_s + alt;
	case RC_NORM_SWIGLU:
		/* the memory-bound forward (norms, SwiGLU, rotary, casts; the
		 * residual adds too, a small overcount) less the dispatcher's
		 * copies, which stay; the up projections' GEMMs */
		return k->mem_fwd_s - k->copy_s + k->up_fwd_s;
	default:
		return 0;
	}
}

/* A dense layer of a model with dense first layers: its forward and its
 * backward with what it recomputes (rec), one micro-batch. */
static void S_dense_layer(const struct run *u, const struct kernel_layer *k, double *fwd,
			  double *bwd, double *rec)
{
	struct workload d;

	workload_dense_layer(u->w, &d);
	*fwd = k->fwd_s;
	*rec = S_recomputed_s(&d, u->c, k, u->full);
	*bwd = k->bwd_s + *rec;
}

/*
 * The slowest stage's micro-batch: a stage of n layers, n_d of them dense,
 * takes (n - n_d)·layer + n_d·dense layer (lay, ld), the last adding the
 * output layer.  The middle stages' costs are linear in n_d, so the first
 * and last middle stages bound them.
 */
static double S_slowest_stage(const struct run *u, double lay, double ld)
{
	double tf, tl, tm;

	if (u->c->pp <= 1)
		return (u->l - u->Ld) * lay + u->Ld * ld + u->r->output_s;
	tf = (u->Lf - u->Ldf) * lay + u->Ldf * ld;
	tl = (u->Ll - u->Ldl) * lay + u->Ldl * ld + u->r->output_s;
	tm = u->c->pp > 2 ? fmax((u->Lm - u->Ldm) * lay + u->Ldm * ld,
				 (u->Lm - u->Ldm2) * lay + u->Ldm2 * ld) : 0;
	return fmax(tf, fmax(tl, tm));
}

/*
 * The compute by kernel: one layer's kernels once for the shape, then the
 * slowest stage's layers per micro-batch; the last stage adds the output
 * layer and its loss.  Recomputation runs the forward again (full) or the
 * attention core (selective).  A layer's and a micro-batch's forward and
 * backward into *fwd_l, *bwd_l, *fwd_mb and *bwd_mb.
 */
static int S_by_kernel(struct run *u, double *fwd_l, double *bwd_l, double *fwd_mb,
		       double *bwd_mb, struct errbuf *eb)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	const struct kernel_gpu *kg = u->kg;
	struct step_result *r = u->r;
	double b = u->b, sr = u->sr, s = u->s, cp = u->cp, t = u->t, e = u->e;
	double L = u->L, m = u->m, lay;
	int full = u->full;
	struct kernel_shape sh = {
		.tokens = b * sr, .seq = s, .cp = cp, .tp = t, .sp = c->sp && c->tp > 1,
		.fused = r->fused, .ep = e, .capacity = step_moe_load(c),
		.fp8 = c->precision == PREC_FP8, .microbatches = m,
		.etp = (double)step_etp(c),
		.eager = c->eager == 1, .sdpa = step_attention_flash2(c),
		.attn_len = c->cp_form == CP_RING ? s / cp : s,
	};
	double fd = 0, bd = 0, rl, rd = 0;
	struct step_kernels kt;
	const struct step_kernels *ks = step_kernels_of(u->prp ? u->prp->memo : NULL, kg, w,
							&sh, &kt, eb);

	if (!ks)
		return -1;
	r->layer = ks->layer;
	r->kernels = 1;
	r->output_s = ks->output_s;
	*fwd_l = r->layer.fwd_s;
	rl = S_recomputed_s(w, c, &r->layer, full);
	*bwd_l = r->layer.bwd_s + rl;
	lay = *fwd_l + *bwd_l;
	if (w->dense_layers > 0)
		S_dense_layer(u, &ks->dense, &fd, &bd, &rd);
	r->mb_compute_s = S_slowest_stage(u, lay, fd + bd);
	r->compute_s = r->mb_compute_s * m;
	*fwd_mb = (L - u->Ld) * *fwd_l + u->Ld * fd;
	*bwd_mb = (L - u->Ld) * *bwd_l + u->Ld * bd;
	u->rec_mb = (L - u->Ld) * rl + u->Ld * rd;
	if (u->Ld > 0) {   /* the ledger stage's mean layer */
		*fwd_l = *fwd_mb / L;
		*bwd_l = *bwd_mb / L;
	}
	return 0;
}

/* The compute, by kernel, flat, or given; what the overlap rules hide behind. */
int step_shape_compute(struct run *u, struct errbuf *eb)
{
	const struct step_compute *cs = u->cs;
	const struct kernel_gpu *kg = u->kg;
	struct step_result *r = u->r;
	double L = u->L, m = u->m;
	double rate = NAN, fwd_l = NAN, bwd_l = NAN, fwd_mb = NAN, bwd_mb = NAN;
	int full = u->full;

	r->compute_s = r->mb_compute_s = r->bubble_s = r->step_s = NAN;
	r->tokens_per_s = r->mfu = r->kernel_eff = NAN;
	if (cs && cs->step_compute_s > 0) {
		r->compute_s = cs->step_compute_s;
	} else if (kg) {
		if (S_by_kernel(u, &fwd_l, &bwd_l, &fwd_mb, &bwd_mb, eb) < 0)
			return -1;
	} else if (cs && cs->peak_flops > 0 && cs->mfu > 0)
		r->compute_s = r->flops_hw / (r->gpus * cs->peak_flops * cs->mfu);
	if (!isnan(r->compute_s)) {
		if (!r->kernels) {
			r->mb_compute_s = r->compute_s / m;
			fwd_mb = r->mb_compute_s / 3;
			bwd_mb = 2 * r->mb_compute_s / 3;
			u->rec_mb = full ? fwd_mb : 0;
			fwd_l = fwd_mb / L;
			bwd_l = bwd_mb / L;
		}
		rate = r->flops_hw / (r->gpus * r->compute_s);   /* FLOP/s of one GPU */
		if (cs && cs->peak_flops > 0)
			r->kernel_eff = rate / cs->peak_flops;
	}

	u->rate = rate;
	u->fwd_l = fwd_l, u->bwd_l = bwd_l, u->fwd_mb = fwd_mb, u->bwd_mb = bwd_mb;
	return 0;
}
