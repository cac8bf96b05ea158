/*
 * commtime fit: α and β (and the regime model) from measured times.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib.h"
#include "cli.h"
#include "fit.h"
#include "measure.h"
#include "system.h"

static const char *const usage_lines[] = {
	"commtime fit [options] FILE",
	"commtime --system S fit [options] LOG... (calibrate the system's intra-node tier)",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "fit",
	.lines = usage_lines,
	.about = "Fits alpha (s per step) and beta (bytes/s) of the measured collective's\n"
		 "model to an nccl-tests log or a CSV file (size_B,time_s), by least squares\n"
		 "on relative error; and a regime model, one alpha and beta per size range as\n"
		 "NCCL switches protocols, that follows real curves (models/fit.md).\n",
};

static const struct column ab_cols[] = {
	{ "alpha_s", "alpha", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "alpha_err_s", "+/-", COL_NUM, H_TIME, 0, NULL, 3, 9, COL_ALL },
	{ "beta_Bps", "beta", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "beta_err_Bps", "+/-", COL_NUM, H_RATE, 0, NULL, 3, 10, COL_ALL },
	{ "n_half_B", "n1/2", COL_NUM, H_SIZE, 0, NULL, 3, 9, COL_ALL },
	{ "rms_rel_error", "rms error", COL_NUM, H_PERCENT, 0, NULL, 1, 9, COL_ALL },
};
static const struct table ab_table = {
	"alpha_beta", "single alpha-beta fit (what other commands use)",
	ab_cols, sizeof(ab_cols) / sizeof(ab_cols[0]), 1
};

static const struct column reg_cols[] = {
	{ "regime", "regime", COL_INT, H_PLAIN, 0, NULL, 0, 6, COL_ALL },
	{ "from_B", "from", COL_NUM, H_SIZE, 0, NULL, 3, 8, COL_ALL },
	{ "to_B", "to", COL_NUM, H_SIZE, 0, NULL, 3, 8, COL_ALL },
	{ "alpha_s", "alpha", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "beta_Bps", "beta", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "rows", "rows", COL_INT, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "base_s", "base", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
};
static const struct table reg_table = {
	"regimes", "regime model (what --save stores for compare)",
	reg_cols, sizeof(reg_cols) / sizeof(reg_cols[0]), 1
};

static const struct column hold_cols[] = {
	{ "model", "model", COL_STR, H_PLAIN, 0, NULL, 0, 12, COL_ALL },
	{ "median_rel_error", "median", COL_NUM, H_PERCENT, 0, NULL, 1, 7, COL_ALL },
	{ "p90_rel_error", "p90", COL_NUM, H_PERCENT, 0, NULL, 1, 7, COL_ALL },
	{ "max_rel_error", "max", COL_NUM, H_PERCENT, 0, NULL, 1, 7, COL_ALL },
	{ "predictions", "predictions", COL_INT, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
};
static const struct table hold_table = {
	"holdout", "held-out error (fit even rows, predict odd ones, and the reverse)",
	hold_cols, sizeof(hold_cols) / sizeof(hold_cols[0]), 1
};

static const struct column res_cols[] = {
	{ "size_B", "size", COL_NUM, H_SIZE, 0, NULL, 3, 8, COL_ALL },
	{ "measured_s", "measured", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "regime", "regime", COL_STR, H_PLAIN, 0, NULL, 0, 6, COL_ALL },
	{ "fitted_s", "fitted", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "rel_error", "error", COL_NUM, H_PERCENT, 0, NULL, 1, 7, COL_ALL },
	{ "ab_fitted_s", "alpha-beta", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
	{ "ab_rel_error", "error", COL_NUM, H_PERCENT, 0, NULL, 1, 7, COL_ALL },
	/* the fitted link on every row, so the CSV alone holds the answer */
	{ "alpha_s", "alpha", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_DATA_ONLY },
	{ "beta_Bps", "beta", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_DATA_ONLY },
};
static const struct table res_table = {
	"residuals", "measured against fitted (error = fitted/measured - 1)",
	res_cols, sizeof(res_cols) / sizeof(res_cols[0]), 0
};

/* Base name of path without directories and without ".preset". */
static char *preset_name_of(const char *path)
{
	const char *b = strrchr(path, '/');
	char *name = xstrdup(b ? b + 1 : path);
	size_t n = strlen(name);

	if (n > 7 && !strcmp(name + n - 7, ".preset"))
		name[n - 7] = '\0';
	return name;
}

static void save(const char *path, const struct meas *m,
		 const struct ab_fit *ab, const struct fit_model *fm, const struct holdout *h,
		 int inplace, const char *name)
{
	char comment[1024], desc[512], lo[32], hi[32], a[32], b[32];
	struct errbuf eb;
	size_t k;
	int len;

	units_fmt_size(lo, sizeof(lo), m->rows[0].size);
	units_fmt_size(hi, sizeof(hi), m->rows[m->n - 1].size);
	snprintf(desc, sizeof(desc), "fitted to %s (%s, %lu ranks, %zu sizes %s to %s)",
		 m->path, coll_op_name((enum coll_op)m->op), m->ranks, m->n, lo, hi);
	units_fmt_time(a, sizeof(a), ab->alpha, 3);
	units_fmt_rate(b, sizeof(b), ab->beta, 4);
	len = snprintf(comment, sizeof(comment),
		       "link preset written by 'commtime fit' from %s\n"
		       "%s on %lu ranks, %s model, %s times\n"
		       "alpha-beta: alpha %s, beta %s, rms relative error %.1f %%\n",
		       m->path, coll_op_name((enum coll_op)m->op), m->ranks,
		       coll_algo_name(fm->algo), inplace ? "in-place" : "out-of-place",
		       a, b, 100 * ab->rms);
	for (k = 0; k < fm->nreg && fm->nreg > 1 && len > 0 && (size_t)len < sizeof(comment); k++) {
		units_fmt_size(lo, sizeof(lo), fm->reg[k].lo);
		units_fmt_size(hi, sizeof(hi), fm->reg[k].hi);
		units_fmt_time(a, sizeof(a), fm->reg[k].alpha, 3);
		units_fmt_rate(b, sizeof(b), fm->reg[k].beta, 4);
		len += snprintf(comment + len, sizeof(comment) - (size_t)len,
				"regime %zu: %s to %s, alpha %s, beta %s\n", k + 1, lo, hi, a, b);
	}
	if (h && len > 0 && (size_t)len < sizeof(comment))
		snprintf(comment + len, sizeof(comment) - (size_t)len,
			 "held-out error: median %.1f %%, p90 %.1f %% (alpha-beta alone: "
			 "%.1f %%, %.1f %%)\n", 100 * h->median, 100 * h->p90,
			 100 * h->ab_median, 100 * h->ab_p90);
	if (fit_preset_write(path, name, desc, comment, ab, fm, &eb) < 0)
		die("%s", eb.msg);
}

/* "1", or "1-2" for a size between the sizes of regimes 1 and 2. */
static void regime_of(const struct fit_model *fm, double S, char *buf, size_t len)
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
static void figure_fit(const struct ctx *ctx, const struct meas *m, const double *S,
		       const double *T, const struct ab_fit *ab, const struct fit_model *fm,
		       const struct fit_model *fab, int inplace)
{
	enum coll_op op = (enum coll_op)m->op;
	struct figure f = { 0 };
	struct panel *p;
	struct plot_series *s;
	/* Room either side of the points; a few octaves at least. */
	double widen = S[m->n - 1] / S[0] < 16 ? 8 : 1.5;
	double lo = S[0] / widen, hi = S[m->n - 1] * widen;
	const char *b = strrchr(m->path, '/');
	char title[512], text[160], a[32], r[32], sz[32];
	size_t i, j, k;

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

	snprintf(text, sizeof(text), "time of one %s", coll_op_name(op));
	p = plot_add_panel(&f, text, "message size", "time");
	p->xaxis = AX_SIZE;
	p->yaxis = AX_TIME;
	p->logx = p->logy = 1;
	p->xmin = lo;
	p->xmax = hi;
	s = plot_add_series(p, "\xce\xb1-\xce\xb2 fit", PS_LINES);
	s->color = C_AB;
	s->dash = 1;
	for (j = 0; j <= 160; j++) {
		double x = lo * pow(hi / lo, j / 160.0);

		plot_xy(s, x, fit_model_time(fab, op, m->ranks, x));
	}
	if (fm->nreg > 1) {
		snprintf(text, sizeof(text), "regime model (%zu regimes)", fm->nreg);
		s = plot_add_series(p, text, PS_LINES);
		s->color = C_MODEL;
		for (j = 0; j <= 160; j++) {
			double x = lo * pow(hi / lo, j / 160.0);

			plot_xy(s, x, fit_model_time(fm, op, m->ranks, x));
		}
		for (k = 0; k + 1 < fm->nreg; k++)
			plot_add_vline(p, sqrt(fm->reg[k].hi * fm->reg[k + 1].lo), NULL, NULL, NULL);
	}
	/* The points last, over the curves. */
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
	if (ab->n_half >= lo && ab->n_half <= hi) {
		snprintf(text, sizeof(text), "n\xc2\xbd = %s", fig_size_text(sz, sizeof(sz), ab->n_half));
		plot_add_label(p, ab->n_half, fit_model_time(fab, op, m->ranks, ab->n_half), text, 1);
	}

	fig_whole_decades(p);

	/* Plain numbers: errors of a few tenths of a percent need their decimals. */
	p = plot_add_panel(&f, "relative error (fitted/measured - 1)", "message size",
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
	ctx_figure(ctx, &f);
	plot_release(&f);
}

/* ---- calibrating a system: fit --system S LOG... ---- */

static const struct column cal_cols[] = {
	{ "tier", "tier", COL_STR, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	{ "base_s", "base", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "base_ci95_s", "+/-95%", COL_NUM, H_TIME, 0, NULL, 3, 8, COL_ALL },
	{ "base_source", "from", COL_STR, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	{ "alpha_s", "alpha", COL_NUM, H_TIME, 0, NULL, 4, 9, COL_ALL },
	{ "alpha_ci95_s", "+/-95%", COL_NUM, H_TIME, 0, NULL, 3, 8, COL_ALL },
	{ "alpha_source", "from", COL_STR, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	{ "beta_Bps", "beta", COL_NUM, H_RATE, 0, NULL, 4, 11, COL_ALL },
	{ "beta_ci95_Bps", "+/-95%", COL_NUM, H_RATE, 0, NULL, 3, 10, COL_ALL },
	{ "beta_source", "from", COL_STR, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	{ "beta_line_Bps", "line rate", COL_NUM, H_RATE, 0, NULL, 3, 10, COL_ALL },
};
static const struct table cal_table = {
	"calibrated", "calibrated tiers (from: fit, prior, bound, spec)",
	cal_cols, sizeof(cal_cols) / sizeof(cal_cols[0]), 0
};

static const struct column cal_log_cols[] = {
	{ "file", "file", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	{ "nodes", "nodes", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	{ "sizes", "sizes", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	{ "median_rel_error", "median |error|", COL_NUM, H_PERCENT, 0, NULL, 1, 14, COL_ALL },
	{ "used", "used for", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
};
static const struct table cal_log_table = {
	"logs", "logs against the calibrated system",
	cal_log_cols, sizeof(cal_log_cols) / sizeof(cal_log_cols[0]), 1
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The tier preset beside the system preset: "dir/name-intra.preset". */
static char *tier_path(const char *sys_path)
{
	size_t n = strlen(sys_path);
	char *p = xmalloc(n + 16);

	memcpy(p, sys_path, n + 1);
	if (n > 7 && !strcmp(p + n - 7, ".preset"))
		p[n - 7] = '\0';
	strcat(p, "-intra.preset");
	return p;
}

/*
 * The gpu the saved system names: the spec's `gpu` value, made absolute
 * when it is a path relative to the spec's file (the saved file may live
 * elsewhere), else the gpu preset's name.
 */
static void gpu_ref(const struct system *s, char *buf, size_t len)
{
	struct preset p;
	struct errbuf eb;
	const char *v;

	snprintf(buf, len, "%s", s->gpu.name ? s->gpu.name : "");
	if (!s->path || preset_load_file(s->path, &p, &eb) < 0)
		return;
	v = preset_get(&p, "gpu");
	if (v && strchr(v, '/') && v[0] != '/') {
		char cwd[2048] = ".", dir[2048];
		const char *slash = strrchr(s->path, '/');
		int n = slash ? (int)(slash - s->path) : 0;

		snprintf(dir, sizeof(dir), "%.*s", n, s->path);
		if (s->path[0] != '/' && !getcwd(cwd, sizeof(cwd)))
			snprintf(cwd, sizeof(cwd), ".");
		if (s->path[0] == '/')
			snprintf(buf, len, "%s/%s", dir, v);
		else
			snprintf(buf, len, "%s/%s%s%s", cwd, dir, n ? "/" : "", v);
	} else if (v)
		snprintf(buf, len, "%s", v);
	preset_release(&p);
}

static void write_or_die(FILE *f, const char *path)
{
	if (fflush(f) || ferror(f)) {
		fclose(f);
		die("cannot write '%s'", path);
	}
	if (fclose(f))
		die("cannot write '%s'", path);
}

/*
 * The calibrated system as two presets: FILE, a system preset with the
 * spec's keys and intra = the calibrated link, and FILE-intra.preset, that
 * link (alpha, beta, beta_line, base).  Written under temporary names and
 * renamed, the link first.
 */
static void save_system(const char *path, const struct system *s, const struct calib_tier *t,
			char *const *files, size_t nfiles)
{
	char gpu[4096];
	char *lpath = tier_path(path), *ltmp = xmalloc(strlen(lpath) + 8);
	char *stmp = xmalloc(strlen(path) + 8), *name = preset_name_of(path);
	const char *lbase = strrchr(lpath, '/');
	FILE *f;
	size_t i;

	gpu_ref(s, gpu, sizeof(gpu));
	snprintf(ltmp, strlen(lpath) + 8, "%s.tmp", lpath);
	snprintf(stmp, strlen(path) + 8, "%s.tmp", path);
	f = fopen(ltmp, "w");
	if (!f)
		die("cannot write '%s':", ltmp);
	fprintf(f, "# link preset written by 'commtime fit --system %s' from", s->name);
	for (i = 0; i < nfiles; i++)
		fprintf(f, " %s", files[i]);
	fprintf(f, "\nname = %s-intra\nkind = link\n", name);
	fprintf(f, "description = %s, intra-node tier calibrated from %zu log(s)\n",
		 s->name, nfiles);
	fprintf(f, "alpha = %.6g\nsource_alpha = per-step latency, %s (95 %% interval +/- %.3g s)\n",
		t->alpha.value, calib_source_name(t->alpha.source), t->alpha.ci95);
	fprintf(f, "beta = %.6g\nsource_beta = bandwidth, %s (95 %% interval +/- %.3g B/s)\n",
		t->beta.value, calib_source_name(t->beta.source), t->beta.ci95);
	fprintf(f, "beta_line = %.6g\nsource_beta_line = line rate of %s (spec, kept)\n",
		s->intra.beta_line, s->intra.name);
	fprintf(f, "# per-call base latency (s); the tier model does not read it yet\n"
		"base = %.6g\nsource_base = %s (models/fit.md)\n", t->base.value,
		calib_source_name(t->base.source));
	write_or_die(f, ltmp);

	f = fopen(stmp, "w");
	if (!f) {
		unlink(ltmp);
		die("cannot write '%s':", stmp);
	}
	fprintf(f, "# system preset written by 'commtime fit --system %s'; the intra tier\n"
		"# is calibrated (%s), the rest is the spec's\n", s->name, lbase ? lbase + 1 : lpath);
	fprintf(f, "name = %s\nkind = system\n", name);
	fprintf(f, "description = %s calibrated from %zu log(s)\n", s->name, nfiles);
	fprintf(f, "gpu = %s\ngpus_per_node = %lu\nintra = ./%s\n", gpu,
		s->gpus_per_node, lbase ? lbase + 1 : lpath);
	if (s->have_inter)
		fprintf(f, "nics_per_node = %u\ninter = %s\n", s->nics_per_node, s->inter.name);
	fprintf(f, "nvls = %s\np2p = %s\nnvswitch = %s\npcie_path = %s\n", s->nvls ? "yes" : "no",
		s->p2p ? "yes" : "no", s->nvswitch ? "yes" : "no", pcie_path_name(s->pcie_path));
	if (s->cpu_given)
		fprintf(f, "cpu = %s\n", cpu_vendor_name(s->cpu));
	write_or_die(f, stmp);
	if (rename(ltmp, lpath) || rename(stmp, path)) {
		unlink(ltmp);
		unlink(stmp);
		die("cannot rename into '%s':", path);
	}
	free(lpath);
	free(ltmp);
	free(stmp);
	free(name);
}

static int fit_system(char **files, size_t nfiles, const char *check,
		      const struct meas_args *ma, const struct fit_opts *fo,
		      const char *save_path, struct ctx *ctx)
{
	const struct system *s = &ctx->system;
	size_t nall = nfiles + (check != NULL);
	struct meas *m = xmalloc(nall * sizeof(*m));
	struct calib_log *logs = xmalloc(nall * sizeof(*logs));
	double **S = xmalloc(nall * sizeof(*S)), **T = xmalloc(nall * sizeof(*T));
	size_t i, j, nintra = 0;
	struct calib_tier t;
	struct errbuf eb;
	struct out *o;

	for (i = 0; i < nall; i++) {
		meas_args_load(ma, i < nfiles ? files[i] : check, &m[i]);
		S[i] = xmalloc(m[i].n * sizeof(double));
		T[i] = xmalloc(m[i].n * sizeof(double));
		for (j = 0; j < m[i].n; j++) {
			S[i][j] = m[i].rows[j].size;
			T[i][j] = ma->in_place ? m[i].rows[j].time_ip : m[i].rows[j].time;
			if (isnan(T[i][j]))
				die("%s:%d: no in-place time", m[i].path, m[i].rows[j].line);
		}
		if (i < nfiles && system_nodes(s, m[i].ranks) == 1) {
			logs[nintra].size = S[i];
			logs[nintra].time = T[i];
			logs[nintra].n = m[i].n;
			logs[nintra].op = (enum coll_op)m[i].op;
			logs[nintra].algo = fo->algo;
			logs[nintra].ranks = m[i].ranks;
			nintra++;
		}
	}
	if (nintra == 0)
		die("no log of one node: the intra-node tier of '%s' (%lu GPUs per node) needs "
		    "a log of at most %lu ranks", s->name, s->gpus_per_node, s->gpus_per_node);
	if (calib_tier_fit(logs, nintra, s->intra.beta_line,
			   fo->base_steps > 0 ? fo->base_steps : 0, &t, &eb) < 0)
		die("%s", eb.msg);
	if (save_path)
		save_system(save_path, s, &t, files, nfiles);

	o = ctx_out_open(ctx);
	out_input_str(o, "system", "system", s->name);
	out_input(o, "logs", "logs", (double)nfiles, H_PLAIN, 10, NULL);
	out_input(o, "rank_counts", "rank counts", (double)t.rank_counts, H_PLAIN, 10,
		  t.rank_counts >= 2 ? "base and per-step latency told apart by the logs" :
		  "one, so the base latency is the prior of --base-steps");
	out_table_begin(o, &cal_table);
	{
		struct cell r[] = { { "intra", 0 }, { NULL, t.base.value }, { NULL, t.base.ci95 },
				    { calib_source_name(t.base.source), 0 }, { NULL, t.alpha.value },
				    { NULL, t.alpha.ci95 }, { calib_source_name(t.alpha.source), 0 },
				    { NULL, t.beta.value }, { NULL, t.beta.ci95 },
				    { calib_source_name(t.beta.source), 0 }, { NULL, s->intra.beta_line } };
		out_row(o, r);
	}
	if (s->have_inter) {
		struct cell r[] = { { "inter", 0 }, { NULL, 0 }, { NULL, NAN }, { "spec", 0 },
				    { NULL, s->inter.link.alpha }, { NULL, NAN }, { "spec", 0 },
				    { NULL, s->inter.link.beta }, { NULL, NAN }, { "spec", 0 },
				    { NULL, s->inter.beta_line } };
		out_row(o, r);
	}
	out_table_end(o);
	out_table_begin(o, &cal_log_table);
	for (i = 0; i < nall; i++) {
		double *e = xmalloc(m[i].n * sizeof(double)), med;
		unsigned long nodes = system_nodes(s, m[i].ranks);

		for (j = 0; j < m[i].n; j++)
			e[j] = fabs(fit_rel_err(calib_tier_time(&t, (enum coll_op)m[i].op, fo->algo,
								m[i].ranks, S[i][j]), T[i][j]));
		qsort(e, m[i].n, sizeof(double), cmp_double);
		med = m[i].n % 2 ? e[m[i].n / 2] : 0.5 * (e[m[i].n / 2 - 1] + e[m[i].n / 2]);
		{
			struct cell r[] = { { m[i].path, 0 }, { NULL, (double)m[i].ranks },
					    { NULL, (double)nodes }, { NULL, (double)m[i].n },
					    { NULL, med }, { i == nfiles ? "check (held out)" :
							     nodes == 1 ? "intra" :
							     "not used (multi-node logs: not yet)", 0 } };
			out_row(o, r);
		}
		free(e);
	}
	out_table_end(o);
	if (!s->have_inter)
		;
	else
		out_text(o, "inter: not determined by these logs; kept from the spec (%s)",
			 s->inter.name);
	if (save_path)
		out_text(o, "saved the calibrated system as '%s'", save_path);
	ctx_out_close(ctx, o);
	for (i = 0; i < nall; i++) {
		free(S[i]);
		free(T[i]);
		meas_release(&m[i]);
	}
	free(S);
	free(T);
	free(m);
	free(logs);
	return 0;
}

int cmd_fit(int argc, char **argv, struct ctx *ctx)
{
	struct fit_opts fo = { ALGO_RING, 0, 0, 0, 0 };
	const char *base_steps = NULL, *check = NULL;
	int npos;
	const char *save_path = NULL, *name = NULL;
	struct meas_args ma = MEAS_ARGS_INIT;
	const char *regimes = NULL;
	int holdout = 0;
	char *save_name = NULL;
	struct meas m;
	struct errbuf eb;
	struct coeffs co;
	struct ab_fit ab;
	struct fit_model fm, fab;
	struct holdout h;
	struct out *o;
	double *S, *T;
	char note[96];
	size_t i;

	struct opt options[] = {
		OPTS_MEASUREMENT(&ma),
		OPT_GROUP_("the fit"),
		OPT_STRING_("regimes", "N|auto", &regimes,
			    "regimes of the model, 1 = plain alpha-beta (default auto,\n"
			    "at most 4)"),
		OPT_FLAG_("robust", &fo.robust, "robust (bisquare) regression, for outliers"),
		OPT_STRING_("base-steps", "K", &base_steps,
			    "prior: every call pays a base latency of K per-step\n"
			    "latencies besides its steps (default 2; 0: none), so\n"
			    "that the fit carries to other rank counts"),
		OPT_POSITIVE_("line-rate", "RATE", Q_RATE, &fo.line_rate,
			      "no fitted bandwidth above RATE (the link's line rate)"),
		OPT_FILE_("check", "LOG", &check,
			  "with --system: a log to predict, not fitted (held out)"),
		OPT_FLAG_("holdout", &holdout,
			  "report accuracy on held-out sizes: fit the even rows and\n"
			  "predict the odd ones, then the reverse"),
		OPT_FILE_("save", "FILE", &save_path,
			  "save the fit as a link preset (use with --preset FILE)"),
		OPT_STRING_("name", "NAME", &name,
			    "name inside the saved preset (default: FILE's base name)"),
		OPT_END_()
	};

	npos = opts_parse(argc, argv, options, &usage, ctx->have_system ? 64 : 1);
	if (npos < 1)
		die_usage("fit needs a measurement file; see 'commtime fit --help'");
	fo.algo = ma.algo;
	if (base_steps) {
		fo.base_steps = opt_quantity_range("--base-steps", Q_NUMBER, base_steps, 0, 1e6);
		if (fo.base_steps == 0)
			fo.base_steps = -1;
	}
	if (ctx->have_system)
		return fit_system(argv, (size_t)npos, check, &ma, &fo, save_path, ctx);
	if (check)
		die_usage("--check: only with --system (a plain fit: compare LOG --preset FILE)");
	if (regimes && strcmp(regimes, "auto"))
		fo.regimes = (int)opt_quantity_range("--regimes", Q_COUNT, regimes,
						     1, FIT_REGIMES_MAX);
	/*
	 * The name the saved preset will carry must load again: refuse it
	 * before any work, and refuse --save onto another output of the run
	 * (the input itself may be replaced: it is read completely first).
	 */
	if (save_path) {
		const char *paths[] = { ctx->output, ctx->plot, ctx->render, save_path };
		static const char *const opts[] = { "-o", "--plot", "--render", "--save" };

		outputs_distinct(paths, opts, 4);
		save_name = name ? xstrdup(name) : preset_name_of(save_path);
		if (!preset_name_valid(save_name))
			die_usage("%s: '%s' is not a valid preset name: names use a-z, 0-9, "
				  "'.', '_' and '-', start with a letter or digit and are at most "
				  PRESET_NAME_MAX_TEXT " bytes long%s",
				  name ? "--name" : "--save", save_name,
				  name ? "" : "; name the file so, or give --name");
	}
	meas_args_load(&ma, argv[0], &m);
	if (fit_coeffs((enum coll_op)m.op, fo.algo, m.ranks, &co, &eb) < 0)
		die("%s: %s", m.path, eb.msg);

	S = xmalloc(m.n * sizeof(*S));
	T = xmalloc(m.n * sizeof(*T));
	for (i = 0; i < m.n; i++) {
		S[i] = m.rows[i].size;
		T[i] = ma.in_place ? m.rows[i].time_ip : m.rows[i].time;
		if (isnan(T[i]))
			die("%s:%d: no in-place time", m.path, m.rows[i].line);
	}
	if (fit_ab(S, T, m.n, &co, fo.robust, &ab, &eb) < 0 ||
	    fit_model_fit(S, T, m.n, (enum coll_op)m.op, m.ranks, &fo, &fm, &eb) < 0)
		die("%s: %s", m.path, eb.msg);
	if (holdout && fit_holdout(S, T, m.n, (enum coll_op)m.op, m.ranks, &fo, &h, &eb) < 0)
		die("%s: %s", m.path, eb.msg);
	{
		struct link l = { ab.alpha, ab.beta, 0 };

		fit_model_from_link(&fab, (enum coll_op)m.op, fo.algo, m.ranks, &l);
	}
	if (save_path)
		save(save_path, &m, &ab, &fm, holdout ? &h : NULL, ma.in_place, save_name);

	o = ctx_out_open(ctx);
	out_input_str(o, "file", "file", m.path);
	{
		char fmt[64];

		snprintf(fmt, sizeof(fmt), "%s (detected)", meas_format_name(m.format));
		out_input_str(o, "format", "format", fmt);
	}
	out_input_str(o, "op", "collective", coll_op_name((enum coll_op)m.op));
	snprintf(note, sizeof(note), "%s", ma.ranks ? "from --ranks" :
		 m.format == MEAS_NCCL_TEXT ? "from the log's '# Rank' lines" : "from the file");
	out_input(o, "ranks", "ranks", (double)m.ranks, H_PLAIN, 10, note);
	out_input_str(o, "algo", "algorithm", coll_algo_name(fo.algo));
	snprintf(note, sizeof(note), "T(S) = %.6g*alpha + %.6g*S/beta", co.a, co.b);
	out_input_str(o, "model", "model", note);
	out_input_str(o, "times", "times", ma.in_place ? "in-place" : "out-of-place");
	out_input(o, "base_steps", "base latency", fm.base_steps, H_PLAIN, 10,
		  fm.base_steps > 0 ? "per-step latencies per call, a prior; --base-steps" :
		  "none (--base-steps 0)");

	out_table_begin(o, &ab_table);
	{
		struct cell r[] = { { NULL, ab.alpha }, { NULL, ab.alpha_err },
				    { NULL, ab.beta }, { NULL, ab.beta_err },
				    { NULL, ab.n_half }, { NULL, ab.rms } };
		out_row(o, r);
	}
	out_table_end(o);

	out_table_begin(o, &reg_table);
	for (i = 0; i < fm.nreg; i++) {
		struct cell r[] = { { NULL, (double)(i + 1) }, { NULL, fm.reg[i].lo },
				    { NULL, fm.reg[i].hi }, { NULL, fm.reg[i].alpha },
				    { NULL, fm.reg[i].beta }, { NULL, (double)fm.reg[i].n },
				    { NULL, fm.base_steps * fm.reg[i].alpha } };
		out_row(o, r);
	}
	out_table_end(o);

	if (holdout) {
		struct cell r1[] = { { "regimes", 0 }, { NULL, h.median }, { NULL, h.p90 },
				     { NULL, h.max }, { NULL, (double)h.n } };
		struct cell r2[] = { { "alpha-beta", 0 }, { NULL, h.ab_median },
				     { NULL, h.ab_p90 }, { NULL, h.ab_max }, { NULL, (double)h.n } };

		out_table_begin(o, &hold_table);
		out_row(o, r1);
		out_row(o, r2);
		out_table_end(o);
	}

	out_table_begin(o, &res_table);
	for (i = 0; i < m.n; i++) {
		double f = fit_model_time(&fm, (enum coll_op)m.op, m.ranks, S[i]);
		double fa = fit_model_time(&fab, (enum coll_op)m.op, m.ranks, S[i]);
		char rg[24];
		struct cell r[] = { { NULL, S[i] }, { NULL, T[i] }, { rg, 0 }, { NULL, f },
				    { NULL, fit_rel_err(f, T[i]) }, { NULL, fa }, { NULL, fit_rel_err(fa, T[i]) },
				    { NULL, ab.alpha }, { NULL, ab.beta } };

		regime_of(&fm, S[i], rg, sizeof(rg));
		out_row(o, r);
	}
	out_table_end(o);
	if (save_path)
		out_text(o, "saved the fit as link preset '%s'", save_path);
	figure_fit(ctx, &m, S, T, &ab, &fm, &fab, ma.in_place);
	ctx_out_close(ctx, o);

	free(S);
	free(T);
	free(save_name);
	meas_release(&m);
	return 0;
}
