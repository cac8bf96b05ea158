/*
 * The figure of commtime compare: the measured times and bus bandwidth
 * over the prediction.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "errband.h"

/* "dir/name.txt" -> "name.txt": the figure names files without their path. */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Palette entries (plot.c: Okabe & Ito) the figure gives its parts. */
enum { C_PRED = 0, C_FAR = 1, C_LOW = 3, C_MEAS = 6, C_LINE = 6 };

/* What the prediction is, for the title (link) and the key (pred). */
static void describe(const struct comparison *c, char *link, size_t llen,
		     char *pred, size_t plen)
{
	const struct ctx *ctx = c->ctx;
	char l[128];

	if (c->expected) {
		snprintf(link, llen, "the times expected in %s", base_name(c->expected_path));
		snprintf(pred, plen, "expected (%s)", base_name(c->expected_path));
	} else if (c->fm) {
		struct ctx plain = *ctx;

		/* The preset's name once, then the single α-β it also holds. */
		plain.machine.have_preset = 0;
		snprintf(link, llen, "the %zu regimes fitted in %s (single fit %s)",
			 c->fm->nreg, ctx->machine.preset.name, ctx_link_text(&plain, l, sizeof(l)));
		snprintf(pred, plen, "predicted (%zu regimes)", c->fm->nreg);
	} else if (c->on_system) {
		const char *algo = c->algo == ALGO_AUTO ? "its own choice" : coll_algo_name(c->algo);

		snprintf(link, llen, "%s's model on %s, %s", cost_kind_name(ctx->machine.model.kind),
			 ctx->machine.system.name, algo);
		snprintf(pred, plen, "predicted (%s, %s)", cost_kind_name(ctx->machine.model.kind), algo);
	} else {
		const char *algo = c->op == OP_ALLREDUCE ? coll_algo_name(c->algo) : "ring";

		snprintf(link, llen, "%s with %s", algo, ctx_link_text(ctx, l, sizeof(l)));
		snprintf(pred, plen, "predicted (%s)", algo);
	}
}

/*
 * The prediction as a series of p: the plan's own sizes joined, or the
 * model on a dense grid from lo to hi; busbw (factor) or time (0).
 */
static void prediction_series(const struct comparison *c, struct panel *p, const char *pred,
			      double lo, double hi, double factor)
{
	struct plot_series *s = plot_add_series(p, pred, PS_LINES);
	size_t j;

	s->color = C_PRED;
	if (c->expected) {
		for (j = 0; j < c->expected->n; j++) {
			double S = c->expected->rows[j].size, t = c->expected->rows[j].time;

			if (S >= lo && S <= hi)
				plot_xy(s, S, factor > 0 ? S / t * factor : t);
		}
		return;
	}
	for (j = 0; j <= 160; j++) {
		double S = plot_log_point(lo, hi, j, 160), t = cmp_predict(c, S, NULL);

		plot_xy(s, S, factor > 0 ? S / t * factor : t);
	}
}

/*
 * The stated error around the prediction on a system (errband.h): the
 * band a run should measure in, as times (factor 0) or busbw; NULL when
 * the prediction has none (a plan's times, a fitted preset, another
 * collective than all-reduce).
 */
static void band_series(const struct comparison *c, struct panel *p, double lo, double hi,
			double factor)
{
	struct plot_series *s = NULL;
	size_t j;

	if (c->expected || c->fm || !c->on_system)
		return;
	for (j = 0; j <= 160; j++) {
		double S = plot_log_point(lo, hi, j, 160), t = cmp_predict(c, S, NULL), row[3];
		const struct errband *b = ctx_errband(c->ctx, c->op, c->ranks, S);
		double tlo, thi;

		if (!b || !(t > 0))
			continue;
		if (!s) {
			s = plot_add_series(p, "stated error (where a run should measure)", PS_FILL);
			s->color = C_PRED;
		}
		errband_range(b, t, &tlo, &thi);
		row[0] = S;
		row[1] = factor > 0 ? S / thi * factor : tlo;
		row[2] = factor > 0 ? S / tlo * factor : thi;
		plot_point(s, row);
	}
}

/* Which measured points a series holds. */
enum rows_of { ROWS_ALL, ROWS_FAR, ROWS_LOW };

/* The measured points of the rows `which` picks: times, or busbw. */
static void point_series(const struct comparison *c, struct panel *p, const char *title,
			 int color, enum rows_of which, int busbw)
{
	struct plot_series *s = plot_add_series(p, title, PS_POINTS);
	size_t i;

	s->color = color;
	for (i = 0; i < c->m->n; i++) {
		const struct cmp_row *r = &c->rows[i];
		int flag = which == ROWS_FAR ? r->far : which == ROWS_LOW ? r->low : 1;

		if (flag)
			plot_xy(s, r->size, busbw ? r->busbw : r->measured);
	}
}

/* The title: the collective, its ranks (and nodes on a system), the log and the link. */
static void figure_title(const struct comparison *c, const char *link, char *title,
			 size_t size)
{
	const struct ctx *ctx = c->ctx;
	const char *op = coll_op_name(c->op);

	if (c->on_system) {
		unsigned long nodes = system_nodes(&ctx->machine.system, c->ranks);

		snprintf(title, size, "%s on %lu ranks (%lu node%s of %lu GPUs): %s "
			 "against %s", op, c->ranks, nodes, nodes == 1 ? "" : "s",
			 ctx->machine.system.gpus_per_node, base_name(c->m->path), link);
	} else
		snprintf(title, size, "%s on %lu ranks: %s against %s", op, c->ranks,
			 base_name(c->m->path), link);
}

/* Without a system: the line rate, and --min-busbw of it from --large up. */
static void line_rate_lines(const struct comparison *c, struct panel *p, double hi)
{
	const struct ctx *ctx = c->ctx;
	const struct meas *m = c->m;
	struct plot_series *s;
	char text[160], b[32];
	double from;

	snprintf(text, sizeof(text), "line rate %s%s",
		 units_fmt_rate(b, sizeof(b), c->line_rate, 4),
		 ctx->machine.have_preset && preset_get(&ctx->machine.preset, "beta_line") ?
		 " (beta_line)" : " (\xce\xb2)");
	plot_add_hline(p, c->line_rate, text);
	/* The busbw check starts at --large, or at the largest size when none
	 * reaches it (as the summary does). */
	from = c->large <= c->rows[m->n - 1].size ? c->large : c->rows[m->n - 1].size;
	snprintf(text, sizeof(text), "%g %% of the line rate, from %s", 100 * c->minbw,
		 units_fmt_size(b, sizeof(b), from));
	s = plot_add_series(p, text, PS_LINES);
	s->color = C_LINE;
	s->dash = 3;
	plot_xy(s, from / 1.2, c->minbw * c->line_rate);
	plot_xy(s, hi, c->minbw * c->line_rate);
}

/*
 * On a system the busbw is judged against the prediction itself: the
 * threshold is --min-busbw of the predicted curve from --large up, and
 * the line rates are those of the tiers the inputs name.
 */
static double system_lines(const struct comparison *c, struct panel *p, double hi,
			   double factor)
{
	const struct system *sy = &c->ctx->machine.system;
	const struct meas *m = c->m;
	struct plot_series *s;
	char text[160], b[32];
	double from;
	size_t j;

	from = c->large <= c->rows[m->n - 1].size ? c->large : c->rows[m->n - 1].size;
	snprintf(text, sizeof(text), "%g %% of the prediction, from %s", 100 * c->minbw,
		 units_fmt_size(b, sizeof(b), from));
	s = plot_add_series(p, text, PS_LINES);
	s->color = C_LINE;
	s->dash = 3;
	for (j = 0; j <= 40; j++) {
		double S = plot_log_point(from / 1.2, hi, j, 40), t = cmp_predict(c, S, NULL);

		if (t > 0)
			plot_xy(s, S, c->minbw * S / t * factor);
	}
	snprintf(text, sizeof(text), "intra-node line rate %s (%s)",
		 units_fmt_rate(b, sizeof(b), sy->intra.beta_line, 4), sy->intra.name);
	plot_add_hline(p, sy->intra.beta_line, text);
	if (system_nodes(sy, c->ranks) > 1 && sy->have_inter && sy->nics_per_node) {
		double nics = sy->nics_per_node * sy->inter.beta_line;

		snprintf(text, sizeof(text), "NICs' line rate %u x %s = %s per node",
			 sy->nics_per_node, sy->inter.name,
			 units_fmt_rate(b, sizeof(b), nics, 4));
		plot_add_hline(p, nics, text);
	}
	return sy->intra.beta_line;   /* the panel reaches up to it */
}

/* What both panels draw from: the sizes spanned, the names in the key, the parts drawn. */
struct both_panels {
	double lo, hi;          /* B */
	char pred[160], meas[64], far[64];
	int nfar, nlow;         /* rows far off the prediction, rows of low busbw */
	int draw_pred;          /* whether the prediction has points to draw */
};

/* Left: the time of one collective, the measured points over the prediction. */
static void time_panel(struct figure *f, const struct comparison *c,
		       const struct both_panels *bp)
{
	struct panel *p;
	char text[160];

	snprintf(text, sizeof(text), "time of one %s", coll_op_name(c->op));
	p = plot_add_time_panel(f, text, "message size", "time", bp->lo, bp->hi);
	band_series(c, p, bp->lo, bp->hi, 0);
	if (bp->draw_pred)
		prediction_series(c, p, bp->pred, bp->lo, bp->hi, 0);
	point_series(c, p, bp->meas, C_MEAS, ROWS_ALL, 0);
	if (bp->nfar)
		point_series(c, p, bp->far, C_FAR, ROWS_FAR, 0);
	fig_whole_decades(p);
}

/* The highest busbw drawn on p so far (a band by its upper edge), or top when higher. */
static double series_top(const struct panel *p, double top)
{
	size_t i, j;

	for (i = 0; i < p->nseries; i++)
		for (j = 0; j < p->series[i].n; j++) {
			const struct plot_series *q = &p->series[i];
			double y = q->data[q->ncols * j + q->ncols - 1];

			if (y > top)
				top = y;
		}
	return top;
}

/* Right: the bus bandwidth, the measured points over the prediction and the line rates. */
static void busbw_panel(struct figure *f, const struct comparison *c,
			const struct both_panels *bp)
{
	struct panel *p;
	double factor = busbw_factor(c->op, c->ranks);
	double top = isnan(c->line_rate) ? 0 : c->line_rate;
	char text[160];
	size_t i;

	p = plot_add_busbw_panel(f, "bus bandwidth (nccl-tests busbw)", "message size", "busbw",
				 bp->lo, bp->hi);
	band_series(c, p, bp->lo, bp->hi, factor);
	if (bp->draw_pred)
		prediction_series(c, p, bp->pred, bp->lo, bp->hi, factor);
	top = series_top(p, top);
	point_series(c, p, bp->meas, C_MEAS, ROWS_ALL, 1);
	for (i = 0; i < c->m->n; i++)
		if (c->rows[i].busbw > top)
			top = c->rows[i].busbw;
	if (bp->nfar)
		point_series(c, p, bp->far, C_FAR, ROWS_FAR, 1);
	if (bp->nlow) {
		if (c->on_system)
			snprintf(text, sizeof(text), "low busbw (< %g %% of the prediction)",
				 100 * c->minbw);
		else
			snprintf(text, sizeof(text), "low busbw (< %g %% of the line rate)",
				 100 * c->minbw);
		point_series(c, p, text, C_LOW, ROWS_LOW, 1);
	}
	if (!isnan(c->line_rate))
		line_rate_lines(c, p, bp->hi);
	if (c->on_system && bp->draw_pred && !c->expected) {
		double intra = system_lines(c, p, bp->hi, factor);

		if (intra > top)
			top = intra;
	}
	/*
	 * The key stands top left, over the small sizes whose busbw is near
	 * zero, and above every point and the line rate with its label: a
	 * line of the key takes about 3.5 % of the height, the label one more.
	 */
	p->ymax = top / (1 - 0.035 * (double)(p->nseries + 2) - 0.03);
}

/*
 * The figure: two panels side by side over the measured sizes.  Left, the
 * time of one collective, log-log: the measured points over the predicted
 * curve.  Right, the bus bandwidth, log size against a linear rate from 0,
 * because what it is for is the plateau of large messages against the line
 * rate, and that is a difference of tens of percent that a log axis would
 * flatten; the small sizes are readable on the left.  Sizes off the
 * prediction by more than the tolerance are red on both sides; large sizes
 * under --min-busbw of the line rate (on a system: of the prediction) are
 * purple on the right, where the threshold is drawn from --large up.
 */
void compare_figure(const struct comparison *c)
{
	const struct ctx *ctx = c->ctx;
	const struct meas *m = c->m;
	struct figure f = { 0 };
	struct both_panels bp = { 0 };
	double widen;
	char title[512], link[256];
	size_t i, j, nexp = 0;

	if (!ctx->plot && !ctx->render)
		return;
	for (i = 0; i < m->n; i++) {
		bp.nfar += c->rows[i].far;
		bp.nlow += c->rows[i].low;
	}
	/* Room either side, so that no point sits on the border; a few
	 * octaves at least, so that the curve has a shape. */
	bp.lo = c->rows[0].size;
	bp.hi = c->rows[m->n - 1].size;
	widen = bp.hi / bp.lo < 16 ? 8 : 1.5;
	bp.lo /= widen;
	bp.hi *= widen;
	for (j = 0; c->expected && j < c->expected->n; j++)
		nexp += c->expected->rows[j].size >= bp.lo && c->expected->rows[j].size <= bp.hi;
	bp.draw_pred = !c->expected || nexp;
	describe(c, link, sizeof(link), bp.pred, sizeof(bp.pred));
	snprintf(bp.meas, sizeof(bp.meas), "measured (%s)", c->in_place ? "in-place" : "out-of-place");
	snprintf(bp.far, sizeof(bp.far), "far off (> %g %%)", 100 * c->tol);
	figure_title(c, link, title, sizeof(title));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime compare: measured times and bus bandwidth against the prediction");
	f.width = 1280;
	f.height = 520;

	time_panel(&f, c, &bp);
	busbw_panel(&f, c, &bp);
	ctx_figure(ctx, &f);
	plot_release(&f);
}
