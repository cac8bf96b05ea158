/*
 * commtime fit: the figure of a fit (two panels, the curves and their
 * relative errors).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fit_cmd.h"

void fit_regime_of(const struct fit_model *fm, double S, char *buf, size_t len)
{
	size_t k;

	for (k = 0; k < fm->nreg; k++) {
		if (k + 1 == fm->nreg || S <= fm->reg[k].hi) {
			snprintf(buf, len, "%zu", k + 1);
			return;
		}
		if (S < fm->reg[k + 1].lo) {
			snprintf(buf, len, "%zu-%zu", k + 1, k + 2);
			return;
		}
	}
}

/* Palette entries (plot.c: Okabe & Ito): regimes take 0-3. */
enum { C_AB = 4, C_MODEL = 6 };

/* Model fm's time of one collective as series s, at 161 sizes from lo to hi. */
static void model_curve(struct plot_series *s, const struct fit_model *fm, enum coll_op op,
			unsigned long ranks, double lo, double hi)
{
	size_t j;

	for (j = 0; j <= 160; j++) {
		double x = lo * pow(hi / lo, j / 160.0);

		plot_xy(s, x, fit_model_time(fm, op, ranks, x));
	}
}

/* The measured points on p: a series per regime of fm, or one for all. */
static void measured_points(struct panel *p, const struct meas *m, const double *S,
			    const double *T, const struct fit_model *fm, int inplace)
{
	struct plot_series *s;
	char text[160];
	size_t i, k;

	if (fm->nreg > 1) {
		for (k = 0; k < fm->nreg; k++) {
			char ak[32], bk[32];

			units_fmt_time(ak, sizeof(ak), fm->reg[k].alpha, 3);
			units_fmt_rate(bk, sizeof(bk), fm->reg[k].beta, 4);
			snprintf(text, sizeof(text), "regime %zu: \xce\xb1 = %s, \xce\xb2 = %s",
				 k + 1, ak, bk);
			s = plot_add_series(p, text, PS_POINTS);
			s->color = (int)k;
			for (i = 0; i < m->n; i++)
				if (S[i] >= fm->reg[k].lo && S[i] <= fm->reg[k].hi)
					plot_xy(s, S[i], T[i]);
		}
	} else {
		snprintf(text, sizeof(text), "measured (%s)", inplace ? "in-place" : "out-of-place");
		s = plot_add_series(p, text, PS_POINTS);
		s->color = C_MODEL;
		for (i = 0; i < m->n; i++)
			plot_xy(s, S[i], T[i]);
	}
}

/*
 * The left panel: the time of one collective from lo to hi, log-log, the
 * α-β fit fab and the regime model fm over the measured points.
 */
static void time_panel(struct figure *f, const struct meas *m, const double *S,
		       const double *T, const struct ab_fit *ab, const struct fit_model *fm,
		       const struct fit_model *fab, int inplace, double lo, double hi)
{
	enum coll_op op = (enum coll_op)m->op;
	struct panel *p;
	struct plot_series *s;
	char text[160], sz[32];
	size_t k;

	snprintf(text, sizeof(text), "time of one %s", coll_op_name(op));
	p = plot_add_panel(f, text, "message size", "time");
	p->xaxis = AX_SIZE;
	p->yaxis = AX_TIME;
	p->logx = p->logy = 1;
	p->xmin = lo;
	p->xmax = hi;
	s = plot_add_series(p, "\xce\xb1-\xce\xb2 fit", PS_LINES);
	s->color = C_AB;
	s->dash = 1;
	model_curve(s, fab, op, m->ranks, lo, hi);
	if (fm->nreg > 1) {
		snprintf(text, sizeof(text), "regime model (%zu regimes)", fm->nreg);
		s = plot_add_series(p, text, PS_LINES);
		s->color = C_MODEL;
		model_curve(s, fm, op, m->ranks, lo, hi);
		for (k = 0; k + 1 < fm->nreg; k++)
			plot_add_vline(p, sqrt(fm->reg[k].hi * fm->reg[k + 1].lo), NULL, NULL, NULL);
	}
	/* The points last, over the curves. */
	measured_points(p, m, S, T, fm, inplace);
	if (ab->n_half >= lo && ab->n_half <= hi) {
		snprintf(text, sizeof(text), "n\xc2\xbd = %s", fig_size_text(sz, sizeof(sz), ab->n_half));
		plot_add_label(p, ab->n_half, fit_model_time(fab, op, m->ranks, ab->n_half), text, 1);
	}

	fig_whole_decades(p);
}

/* The right panel: each model's relative error at each measured size, in percent. */
static void error_panel(struct figure *f, const struct meas *m, const double *S,
			const double *T, const struct fit_model *fm, const struct fit_model *fab,
			double lo, double hi)
{
	enum coll_op op = (enum coll_op)m->op;
	struct panel *p;
	struct plot_series *s;
	char text[160];
	size_t i, k;

	/* Plain numbers: errors of a few tenths of a percent need their decimals. */
	p = plot_add_panel(f, "relative error (fitted/measured - 1)", "message size",
			   "relative error (%)");
	p->xaxis = AX_SIZE;
	p->yaxis = AX_PLAIN;
	p->logx = 1;
	p->xmin = lo;
	p->xmax = hi;
	s = plot_add_series(p, NULL, PS_LINES);
	s->color = C_MODEL;
	s->dash = 2;
	plot_xy(s, lo, 0);
	plot_xy(s, hi, 0);
	s = plot_add_series(p, "\xce\xb1-\xce\xb2 fit", PS_LINESPOINTS);
	s->color = C_AB;
	s->dash = 1;
	for (i = 0; i < m->n; i++)
		plot_xy(s, S[i], 100 * fit_rel_err(fit_model_time(fab, op, m->ranks, S[i]), T[i]));
	if (fm->nreg > 1) {
		snprintf(text, sizeof(text), "regime model (%zu regimes)", fm->nreg);
		s = plot_add_series(p, text, PS_LINESPOINTS);
		s->color = C_MODEL;
		for (i = 0; i < m->n; i++)
			plot_xy(s, S[i], 100 * fit_rel_err(fit_model_time(fm, op, m->ranks, S[i]), T[i]));
		for (k = 0; k + 1 < fm->nreg; k++)
			plot_add_vline(p, sqrt(fm->reg[k].hi * fm->reg[k + 1].lo), NULL, NULL, NULL);
	}
}

/*
 * The figure, two panels over the measured sizes.  Left, the time of one
 * collective, log-log: the measured points (coloured by regime, whose α
 * and β the key gives), the single α-β fit dashed and the regime model
 * solid, the boundaries between regimes as vertical lines (midway, on a
 * log scale, between the last size of one regime and the first of the
 * next), and Hockney's n½ on the α-β curve.  Right, the relative error of
 * each model at each size, in percent on a linear axis: where the single
 * α-β line misses and by how much.
 */
void fit_figure(const struct ctx *ctx, const struct meas *m, const double *S,
		       const double *T, const struct ab_fit *ab, const struct fit_model *fm,
		       const struct fit_model *fab, int inplace)
{
	enum coll_op op = (enum coll_op)m->op;
	struct figure f = { 0 };
	/* Room either side of the points; a few octaves at least. */
	double widen = S[m->n - 1] / S[0] < 16 ? 8 : 1.5;
	double lo = S[0] / widen, hi = S[m->n - 1] * widen;
	const char *b = strrchr(m->path, '/');
	char title[512], a[32], r[32];

	if (!ctx->plot && !ctx->render)
		return;

	units_fmt_time(a, sizeof(a), ab->alpha, 3);
	units_fmt_rate(r, sizeof(r), ab->beta, 4);
	snprintf(title, sizeof(title), "%s on %lu ranks: %s fitted by the %s model, "
		 "\xce\xb1 = %s, \xce\xb2 = %s", coll_op_name(op), m->ranks, b ? b + 1 : m->path,
		 coll_algo_name(fm->algo), a, r);
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime fit: measured times, the alpha-beta fit, the regime model "
			    "and their relative errors");
	f.width = 1280;
	f.height = 520;

	time_panel(&f, m, S, T, ab, fm, fab, inplace, lo, hi);
	error_panel(&f, m, S, T, fm, fab, lo, hi);
	ctx_figure(ctx, &f);
	plot_release(&f);
}
