/*
 * The figures of commtime serve: time per output token against the TP
 * size, and the decode step's communication against the batch.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "serve_cmd.h"

/* The model at p, or 0 when that layout cannot run (a size that does not divide). */
static int S_at(const struct ctx *ctx, const struct kernel_gpu *g, const struct workload *w,
		const struct serve_params *p, struct serve_result *r)
{
	struct errbuf eb;

	if (system_check_ranks(&ctx->machine.system, p->tp * p->pp, &eb) < 0)
		return 0;
	return serve_run(&ctx->machine.model, &ctx->machine.system, g, w, p, r, &eb) == 0;
}

/* Left: TPOT, its compute and its communication against the TP size. */
static void S_tp_panel(const struct ctx *ctx, struct figure *f, const struct kernel_gpu *g,
		       const struct workload *w, const struct serve_params *p0)
{
	struct panel *pn = plot_add_panel(f, "time per output token against TP size",
					  "tensor-parallel size", "time");
	struct plot_series *tpot, *comp, *comm;
	unsigned long tp, most = ctx->machine.system.gpus_per_node *
				 (ctx->machine.system.have_inter ? 8 : 1);

	/* a series' pointer holds until the next one is added: take them after */
	plot_add_series(pn, "TPOT", PS_LINESPOINTS);
	plot_add_series(pn, "decode compute", PS_LINESPOINTS);
	plot_add_series(pn, "decode communication", PS_LINESPOINTS);
	tpot = &pn->series[0];
	comp = &pn->series[1];
	comm = &pn->series[2];
	pn->xaxis = AX_INTEGER;
	pn->yaxis = AX_TIME;
	pn->logx = 1;
	pn->ymin = 0;
	for (tp = 1; tp <= most && tp <= (unsigned long)w->heads; tp *= 2) {
		struct serve_params p = *p0;
		struct serve_result r;

		p.tp = tp;
		if (p.ep > tp)
			p.ep = 1;
		if (!S_at(ctx, g, w, &p, &r))
			continue;
		plot_xy(tpot, (double)tp, r.tpot_s);
		plot_xy(comp, (double)tp, r.decode_compute_s);
		plot_xy(comm, (double)tp, r.decode_comm_s);
	}
}

/* Right: the decode step's communication and TPOT against the batch. */
static void S_batch_panel(const struct ctx *ctx, struct figure *f, const struct kernel_gpu *g,
			  const struct workload *w, const struct serve_params *p0)
{
	struct panel *pn = plot_add_panel(f, "decode communication against batch",
					  "requests in the batch", "time per decode step");
	struct plot_series *tpot, *comm;
	double b;

	plot_add_series(pn, "TPOT", PS_LINES);
	plot_add_series(pn, "decode communication", PS_LINES);
	tpot = &pn->series[0];
	comm = &pn->series[1];
	pn->xaxis = AX_PLAIN;
	pn->yaxis = AX_TIME;
	pn->logx = 1;
	pn->logy = 1;
	for (b = 1; b <= 1024; b *= 2) {
		struct serve_params p = *p0;
		struct serve_result r;

		p.batch = b;
		if (!S_at(ctx, g, w, &p, &r))
			continue;
		plot_xy(tpot, b, r.tpot_s);
		plot_xy(comm, b, r.decode_comm_s);
	}
}

void serve_figure(const struct ctx *ctx, const struct kernel_gpu *g, const struct workload *w,
		  const struct serve_params *p)
{
	struct figure f = { 0 };
	char title[300], link[128];

	snprintf(title, sizeof(title), "serving %s: batch %.0f, prompt %.0f, output %.0f, "
		 "all-reduce %s; %s", w->name, p->batch, p->prompt, p->output, ar_impl_name(p->impl),
		 ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime serve: TPOT against TP size, communication against batch");
	S_tp_panel(ctx, &f, g, w, p);
	S_batch_panel(ctx, &f, g, w, p);
	ctx_figure(ctx, &f);
	plot_release(&f);
}
