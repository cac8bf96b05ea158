/*
 * Memory per GPU of a step: activations of one layer, by term, and the
 * weights, gradients, optimizer state and activations of each pipeline
 * stage.  models/step.md, "Memory per GPU".
 */
#include <string.h>

#include "step.h"
#include "step_int.h"

double step_act_layer(double s, double b, double h, double a, double t, int sp,
		      enum recompute rc)
{
	double sbh = s * b * h;

	switch (rc) {
	case RC_FULL:
		return sp ? 2 * sbh / t : 2 * sbh;
	case RC_SELECTIVE:
		return sp ? sbh * 34 / t : sbh * (10 + 24 / t);
	default:
		return sp ? sbh * (34 + 5 * a * s / h) / t : sbh * (10 + 24 / t + 5 * a * s / (h * t));
	}
}

double step_act_layer_w(const struct workload *w, double s, double b, double t, int sp,
			enum recompute rc, int fused, double capacity)
{
	double h = w->hidden, a = w->heads, hkv = h * w->kv_heads / w->heads, f = w->ffn;
	double E = w->experts > 1 ? w->experts : 1, k = w->experts > 1 ? w->top_k : 1;
	double ts = sp ? t : 1, repl, split, scores = 0, F;
	int gpt = w->arch == WL_GPT;

	if (rc == RC_FULL)
		return 2 * s * b * h / ts;
	/*
	 * Bytes per token, 16-bit values (Korthikanti et al. 2022, §4.1, for
	 * GPT): replicated across the tensor-parallel ranks unless sequence
	 * parallel, or split by t.
	 *   attention: QKV's input 2h (GPT: + the dropout mask h); GPT's Q, K,
	 *     V and the output projection's input 8h split, Llama's Q 2h, K
	 *     and V 4h_kv, output projection's input 2h split
	 *   the two norms' inputs 4h
	 *   MLP: its input 2h (GPT: + the dropout mask h); GELU's 4h-wide
	 *     output and activation 4f split; SwiGLU's gate, up and product 6f
	 *   the scores without fused attention: softmax output 2as, GPT's
	 *     dropout mask and output 3as more; fused, the kernel keeps only
	 *     the softmax's fp32 log-sum-exp, 4a
	 */
	repl = (gpt ? 3 : 2) * h + 4 * h;
	split = gpt ? 8 * h : 4 * h + 4 * hkv;
	F = gpt ? 4 * f : 6 * f;
	if (E > 1) {
		/* MoE: the router's fp32 logits 4E, each routed copy of a token
		 * (k·capacity of them) its expert's input 2h and inner values */
		repl += 2 * h + 4 * E;
		split += 0;
		scores += k * capacity * (2 * h + F / t);
	} else {
		repl += (gpt ? 3 : 2) * h;
		split += F;
	}
	if (!fused && rc == RC_NONE)
		scores += (gpt ? 5 : 2) * a * s / t;
	else if (fused)
		scores += 4 * a / t;
	return s * b * (repl / ts + split / t + scores);
}

void step_memory_stages(struct run *u)
{
	const struct workload *w = u->w;
	const struct step_config *c = u->c;
	struct step_result *r = u->r;
	const struct layer_params lp = u->lp;
	double Lf = u->Lf, Lm = u->Lm, Ll = u->Ll, p = u->p, sr = u->sr, b = u->b, t = u->t;
	double e = u->e, E = u->E, h = u->h, m = u->m, zd = u->zd, ze = u->ze;
	int moe = u->moe;

	/*
	 * Memory of the most loaded stage.  Each stage holds its layers (the
	 * first also the input embedding, the last the output layer or the
	 * tied embedding's copy; one stage both), split over the tensor-
	 * parallel ranks; ZeRO shards over the data-parallel ranks
	 * (Rajbhandari et al. 2020), ZeRO-3 holding two gathered layers (the
	 * one computing and the one prefetched).  Activations: one layer
	 * times its layers times the micro-batches the stage holds in flight;
	 * the last stage adds one micro-batch's fp32 logits.
	 */
	{
		static const char *const names[3] = { "first", "middle", "last" };
		double layers_of[3] = { Lf, Lm, Ll }, rank_of[3] = { 0, 1, p - 1 };
		double act = step_act_layer_w(w, sr, b, t, c->sp && c->tp > 1, c->recompute,
					      r->fused, c->capacity);
		double wd = c->param_bytes, gd = c->grad_bytes, od = c->optim_bytes;
		double layer_dense = lp.attn / t + lp.other + (moe ? 0 : lp.mlp / t);
		double layer_exp = moe ? E * lp.mlp / (t * e) : 0;
		int si, n = c->pp > 2 ? 3 : 1;

		r->mem.total_B = -1;
		for (si = 0; si < (c->pp > 1 ? 3 : 1); si++) {
			struct step_memory mm;
			double Ls = layers_of[si], dn, ex, fl;

			if (c->pp == 2 && si == 1)
				continue;
			(void)n;
			dn = Ls * layer_dense;
			ex = Ls * layer_exp;
			if (c->pp == 1)
				dn += workload_embed_params(w) / t;
			else if (si != 1)
				dn += w->vocab * h / t;
			memset(&mm, 0, sizeof(mm));
			mm.weights_B = wd * (c->zero >= 3 ? dn / zd + ex / ze : dn + ex);
			if (c->zero >= 3)
				mm.weights_B += wd * 2 * (layer_dense + layer_exp);
			mm.grads_B = gd * (c->zero >= 2 ? dn / zd + ex / ze : dn + ex);
			mm.optim_B = od * (c->zero >= 1 ? dn / zd + ex / ze : dn + ex);
			mm.act_layer_B = act;
			mm.inflight = step_sched_inflight(c, rank_of[si], m);
			mm.act_B = act * Ls * mm.inflight;
			if (c->pp == 1 || si == 2) {
				fl = 4 * b * sr * w->vocab / t;
				mm.act_B += fl;
			}
			mm.reserve_B = STEP_RESERVE_B;
			mm.total_B = mm.weights_B + mm.grads_B + mm.optim_B + mm.act_B + mm.reserve_B;
			mm.stage = c->pp == 1 ? "only" : names[si];
			mm.stage_layers = Ls;
			if (mm.total_B > r->mem.total_B)
				r->mem = mm;
		}
	}
}
