/*
 * The figure of commtime search, panels side by side (models/search.md):
 * what cmd_search.c draws with --plot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_fig.h"
#include "step_fig.h"

/* Cost per million tokens, or GPU-hours per million tokens without a price. */
static double S_xcost(const struct search_cand *k, int priced)
{
	return priced ? k->cost_per_Mtoken : k->gpus * k->step_s / 3600 /
		(k->tokens_per_s * k->step_s / 1e6);
}

/* "tp 2 pp 16 dp 8 cp 4" */
static char *S_layout(char *buf, size_t len, const struct search_cand *k)
{
	snprintf(buf, len, "tp %lu pp %lu dp %lu cp %lu%s", k->l.tp, k->l.pp, k->l.dp, k->l.cp,
		 k->l.ep > 1 ? " ep" : "");
	if (k->l.ep > 1)
		snprintf(buf + strlen(buf), len - strlen(buf), " %lu", k->l.ep);
	return buf;
}

/* The figure's title: the model, the GPUs and where, the batch, how many fit. */
static void S_figure_title(const struct ctx *ctx, const struct workload *w,
			   const struct search_result *r, const struct dlist *gpus,
			   double gpu_memory, const struct search_space *sp, char *title,
			   size_t size)
{
	char where[160];
	double lo = INFINITY, hi = 0;
	size_t g;

	for (g = 0; g < gpus->n; g++) {
		lo = fmin(lo, gpus->v[g]);
		hi = fmax(hi, gpus->v[g]);
	}
	if (ctx->machine.have_system && ctx->machine.system.gpus_per_node > 0) {
		double G = (double)ctx->machine.system.gpus_per_node;

		if (lo == hi)
			snprintf(where, sizeof(where), "%.15g GPUs (%.15g nodes of %.15g, %s)", lo,
				 ceil(lo / G), G, ctx->machine.system.name);
		else
			snprintf(where, sizeof(where), "%.15g to %.15g GPUs (%.15g to %.15g nodes of "
				 "%.15g, %s)", lo, hi, ceil(lo / G), ceil(hi / G), G, ctx->machine.system.name);
	} else if (lo == hi)
		snprintf(where, sizeof(where), "%.15g GPUs on one link", lo);
	else
		snprintf(where, sizeof(where), "%.15g to %.15g GPUs on one link", lo, hi);
	snprintf(title, size, "%s on %s, %.15g sequences of %.15g tokens per step: %zu "
		 "configurations fit in %.4g GB", w->name, where, sp->global_batch, sp->seq, r->n,
		 gpu_memory / 1e9);
}

/* Step time against cost (or GPU time) with several GPU counts, the Pareto front in black. */
static void S_figure_cost(struct figure *f, const struct search_result *r,
			  const struct dlist *gpus, int priced)
{
	struct panel *pn;
	struct plot_series *s;
	char name[96], lay[64], v[32];
	size_t i, g;

	pn = plot_add_panel(f, priced ? "step time against cost (Pareto front in black)" :
			    "step time against GPU time (Pareto front in black)",
			    priced ? "cost per million tokens (price per GPU-hour x GPU-hours)" :
			    "GPU-hours per million tokens", "step time");
	pn->xaxis = AX_PLAIN;
	pn->yaxis = AX_TIME;
	pn->logx = pn->logy = 1;
	pn->xmin = pn->xmax = pn->ymin = pn->ymax = NAN;
	pn->key = xstrdup("top left");
	for (g = 0; g < gpus->n; g++) {
		snprintf(name, sizeof(name), "%.15g GPUs", gpus->v[g]);
		s = plot_add_series(pn, name, PS_POINTS);
		for (i = 0; i < r->n; i++)
			if (r->cand[i]->gpus == gpus->v[g])
				plot_xy(s, S_xcost(r->cand[i], priced), r->cand[i]->step_s);
	}
	s = plot_add_series(pn, "Pareto front", PS_LINESPOINTS);
	s->color = 6;
	for (i = r->n; i-- > 0;)
		if (r->cand[i]->pareto)
			plot_xy(s, S_xcost(r->cand[i], priced), r->cand[i]->step_s);
	if (r->n) {
		units_fmt_time(v, sizeof(v), r->cand[0]->step_s, 4);
		snprintf(name, sizeof(name), "fastest: %s, %.15g GPUs, %s",
			 S_layout(lay, sizeof(lay), r->cand[0]), r->cand[0]->gpus, v);
		plot_add_label(pn, S_xcost(r->cand[0], priced), r->cand[0]->step_s, name, 1);
	}
	fig_whole_decades(pn);
	/* Room below the fastest for its label. */
	if (r->n && !(pn->ymin < 0.6 * r->cand[0]->step_s))
		pn->ymin = 0.6 * r->cand[0]->step_s;
}

/* Step time against memory per GPU, one colour per recomputation mode. */
static void S_figure_memory(struct figure *f, const struct search_result *r, double gpu_memory)
{
	struct panel *pn;
	struct plot_series *s;
	char name[96], lay[64];
	size_t i;
	int rc;

	pn = plot_add_panel(f, "step time against memory per GPU", "memory per GPU (GB)",
			    "step time");
	pn->xaxis = AX_PLAIN;
	pn->yaxis = AX_TIME;
	pn->logy = 1;
	pn->xmin = 0;
	pn->xmax = gpu_memory / 1e9 * 1.08;
	pn->ymin = pn->ymax = NAN;
	pn->key = xstrdup("top left");
	for (rc = 0; rc < RC_COUNT; rc++) {
		if (rc == RC_NORM_SWIGLU)   /* DeepSeek-V3's level, which search does not try */
			continue;
		snprintf(name, sizeof(name), "recompute %s", recompute_name((enum recompute)rc));
		s = plot_add_series(pn, name, PS_POINTS);
		for (i = r->n; i-- > 0;)
			if ((int)r->cand[i]->l.recompute == rc)
				plot_xy(s, r->cand[i]->memory_B / 1e9, r->cand[i]->step_s);
	}
	snprintf(name, sizeof(name), "%.4g GB", gpu_memory / 1e9);
	plot_add_vline(pn, gpu_memory / 1e9, name, NULL, NULL);
	if (r->n) {
		snprintf(name, sizeof(name), "fastest: %s", S_layout(lay, sizeof(lay), r->cand[0]));
		plot_add_label(pn, r->cand[0]->memory_B / 1e9, r->cand[0]->step_s, name, 2);
	}
	fig_whole_decades(pn);
	if (r->n && !(pn->ymin < 0.6 * r->cand[0]->step_s))
		pn->ymin = 0.6 * r->cand[0]->step_s;
}

/* The step of the best, the runner-up and the named one, in terms. */
static void S_figure_terms(struct figure *f, const struct search_result *r,
			   const struct dlist *gpus, size_t named, const struct search_space *sp,
			   const struct step_compute *cs, const struct ctx *cctx)
{
	struct panel *pn;
	struct step_fig_bar bars[3];
	char labels[3][128], lay[64];
	size_t idx[3], nb = 0, ru = search_runner_up(r), j;
	static const char *const which[3] = { "best", "runner-up", "named" };
	const char *wh[3];

	idx[nb] = 0;
	wh[nb++] = which[0];
	if (ru < r->n) {
		idx[nb] = ru;
		wh[nb++] = which[1];
	}
	if (named < r->n && named != 0 && named != ru) {
		idx[nb] = named;
		wh[nb++] = which[2];
	}
	for (j = 0; j < nb; j++) {
		struct step_result st;
		struct errbuf eb;

		struct step_config c;

		search_cand_config(sp, r->cand[idx[j]], &c);
		if (step_run(sp->w, &c, cs, &cctx->machine.model, STEP_BAND_NONE, &st, &eb) < 0)
			break;
		search_terms_of(&st, &bars[j].t);
		snprintf(labels[j], sizeof(labels[j]), "%s, rank %zu: %s", wh[j], idx[j] + 1,
			 S_layout(lay, sizeof(lay), r->cand[idx[j]]));
		if (gpus->n > 1)
			snprintf(labels[j] + strlen(labels[j]), sizeof(labels[j]) - strlen(labels[j]),
				 " on %.15g", r->cand[idx[j]]->gpus);
		bars[j].label = labels[j];
	}
	pn = plot_add_panel(f, "why the best wins: the step in terms", "", "");
	step_fig_bars(pn, bars, j);
	free(pn->key);
	pn->key = xstrdup("below horizontal");
}

/*
 * The figure, panels side by side: with several GPU counts, step time
 * against cost per million tokens (GPU-hours per million tokens without
 * a price), one colour per count, the Pareto front in black through the
 * configurations no other beats on both; step time against memory per
 * GPU, one colour per recomputation mode, the GPU's memory marked; the
 * step of the best, the runner-up and the named configuration in terms.
 */
void search_figure(const struct ctx *ctx, const struct workload *w, const struct search_result *r,
		   const struct dlist *gpus, double price, double gpu_memory, size_t named,
		   const struct search_space *sp, const struct step_compute *cs)
{
	struct figure f = { 0 };
	char title[400];
	int priced = !isnan(price);

	S_figure_title(ctx, w, r, gpus, gpu_memory, sp, title, sizeof(title));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime search: every fitting configuration, the Pareto front, "
			    "memory, and why the best wins");
	f.height = 600;

	if (gpus->n > 1)
		S_figure_cost(&f, r, gpus, priced);
	S_figure_memory(&f, r, gpu_memory);
	if (r->n)
		S_figure_terms(&f, r, gpus, named, sp, cs, ctx);
	f.width = f.npanels == 3 ? 1800 : 1300;
	ctx_figure(ctx, &f);
	plot_release(&f);
}
