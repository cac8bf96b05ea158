/*
 * commtime --system S fit LOG...: calibrate the tiers of a system from
 * measured logs (models/fit.md, "Calibrating a system"), report each value
 * with its interval and where it comes from, and save the calibrated
 * system as presets.
 */
#define _XOPEN_SOURCE 700  /* realpath */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calib.h"
#include "fit_cmd.h"
#include "fmt.h"
#include "system.h"

static const struct column cal_cols[] = {
	{ .key = "tier", .label = "tier", .type = COL_STR, .human = H_PLAIN, .width = 5 },
	{ .key = "base_s", .label = "base", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "base_ci95_s", .label = "+/-95%", .type = COL_NUM, .human = H_TIME, .prec = 3,
	  .width = 8 },
	{ .key = "base_source", .label = "from", .type = COL_STR, .human = H_PLAIN, .width = 5 },
	{ .key = "alpha_s", .label = "alpha", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "alpha_ci95_s", .label = "+/-95%", .type = COL_NUM, .human = H_TIME, .prec = 3,
	  .width = 8 },
	{ .key = "alpha_source", .label = "from", .type = COL_STR, .human = H_PLAIN, .width = 5 },
	{ .key = "beta_Bps", .label = "beta", .type = COL_NUM, .human = H_RATE, .prec = 4, .width = 11 },
	{ .key = "beta_ci95_Bps", .label = "+/-95%", .type = COL_NUM, .human = H_RATE, .prec = 3,
	  .width = 10 },
	{ .key = "beta_source", .label = "from", .type = COL_STR, .human = H_PLAIN, .width = 5 },
	{ .key = "beta_line_Bps", .label = "line rate", .type = COL_NUM, .human = H_RATE, .prec = 3,
	  .width = 10 },
	{ .key = "beta_efficiency", .label = "share", .type = COL_NUM, .human = H_PERCENT,
	  .prec = 0, .width = 5 },
};
static const struct table cal_table = {
	"calibrated", "calibrated tiers (from: fit, prior, bound, spec; share = beta/line rate)",
	cal_cols, sizeof(cal_cols) / sizeof(cal_cols[0]), 0
};

static const struct column cal_log_cols[] = {
	{ .key = "file", .label = "file", .type = COL_STR, .human = H_PLAIN },
	{ .key = "ranks", .label = "ranks", .type = COL_INT, .human = H_PLAIN, .width = 5 },
	{ .key = "nodes", .label = "nodes", .type = COL_INT, .human = H_PLAIN, .width = 5 },
	{ .key = "sizes", .label = "sizes", .type = COL_INT, .human = H_PLAIN, .width = 5 },
	{ .key = "median_rel_error", .label = "median |error|", .type = COL_NUM,
	  .human = H_PERCENT, .prec = 1, .width = 14 },
	{ .key = "used", .label = "used for", .type = COL_STR, .human = H_PLAIN },
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
static char *tier_path(const char *sys_path, const char *tier)
{
	size_t n = strlen(sys_path);
	char *p = xmalloc(n + strlen(tier) + 10);

	memcpy(p, sys_path, n + 1);
	if (n > 7 && !strcmp(p + n - 7, ".preset"))
		p[n - 7] = '\0';
	strcat(p, "-");
	strcat(p, tier);
	strcat(p, ".preset");
	return p;
}

/*
 * What the saved system names for key (gpu, inter): the spec's value, made
 * absolute when it is a path relative to the spec's file (the saved file
 * may live elsewhere), else `dflt`.
 */
static void spec_ref(const struct system *s, const char *key, const char *dflt,
		     char *buf, size_t len)
{
	struct preset p;
	struct errbuf eb;
	const char *v;

	snprintf(buf, len, "%s", dflt ? dflt : "");
	if (!s->path || preset_load_file(s->path, &p, &eb) < 0)
		return;
	v = preset_get(&p, key);
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

/* The pairs of a preset being saved; values copied. */
struct kvs {
	struct preset_kv kv[48];
	size_t n;
};

static void put(struct kvs *l, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void put(struct kvs *l, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *v;

	if (l->n >= sizeof(l->kv) / sizeof(l->kv[0]))
		die("internal: too many keys in a saved preset");
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	v = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(v, (size_t)n + 1, fmt, ap);
	va_end(ap);
	l->kv[l->n++] = (struct preset_kv){ .key = key ? xstrdup(key) : NULL, .value = v };
}

static void put_num(struct kvs *l, const char *key, double x, const char *unit)
{
	char v[32];

	fmt_double(v, x);
	put(l, key, "%s%s", v, unit);
}

static void kvs_save(struct kvs *l, const char *path, const char *comment)
{
	struct errbuf eb;
	size_t i;
	int r = preset_save(path, comment, l->kv, l->n, &eb);

	for (i = 0; i < l->n; i++) {
		free(l->kv[i].key);
		free(l->kv[i].value);
	}
	l->n = 0;
	if (r < 0)
		die("--save: %s", eb.msg);
}

/* A calibrated tier as a link preset: alpha, beta (with where each came from), beta_line. */
static void put_link(struct kvs *l, const char *name, const char *what,
		     const struct calib_value *a, const struct calib_value *b, double line,
		     const char *spec)
{
	char ci[64] = "";

	put(l, "name", "%s", name);
	put(l, "kind", "link");
	put(l, "description", "%s", what);
	put_num(l, "alpha", a->value, "");
	if (!isnan(a->ci95))
		snprintf(ci, sizeof(ci), " (95 %% interval +/- %.3g s)", a->ci95);
	put(l, "source_alpha", "per-step latency, %s%s", calib_source_name(a->source), ci);
	put_num(l, "beta", b->value, "");
	ci[0] = '\0';
	if (!isnan(b->ci95))
		snprintf(ci, sizeof(ci), " (95 %% interval +/- %.3g B/s)", b->ci95);
	put(l, "source_beta", "bandwidth, %s%s", calib_source_name(b->source), ci);
	put_num(l, "beta_line", line, "");
	put(l, "source_beta_line", "line rate of %s (spec, kept)", spec);
}

/* Where a calibrated system is saved: its file, its links' files, their names. */
struct save_plan {
	const char *path;
	char *name, *lpath, *ipath, *lname, *iname;
	char *spec_file;       /* the spec calibrated, absolute (calibrated_from), or NULL */
};

/*
 * Refuse what cannot be saved before any work: a file name that is not
 * NAME.preset with a valid NAME (exit 2), a path (the system's or a link's)
 * that exists and is not a regular file, or one that is another output.
 */
static void save_plan_make(struct save_plan *sp, const char *path, const struct ctx *ctx)
{
	const char *paths[4], *const opts[] = { "-o", "--save", "--save (intra link)",
						 "--save (inter link)" };
	struct errbuf eb;

	memset(sp, 0, sizeof(*sp));
	sp->path = path;
	if (preset_save_name(path, strlen("-intra"), &sp->name, &eb) < 0)
		die_usage("--save: %s", eb.msg);
	sp->lpath = tier_path(path, "intra");
	sp->ipath = tier_path(path, "inter");
	sp->lname = xmalloc(strlen(sp->name) + 8);
	sp->iname = xmalloc(strlen(sp->name) + 8);
	sprintf(sp->lname, "%s-intra", sp->name);
	sprintf(sp->iname, "%s-inter", sp->name);
	paths[0] = ctx->output;
	paths[1] = path;
	paths[2] = sp->lpath;
	paths[3] = sp->ipath;
	outputs_distinct(paths, opts, 4);
	if (preset_save_check(path, &eb) < 0 || preset_save_check(sp->lpath, &eb) < 0 ||
	    preset_save_check(sp->ipath, &eb) < 0)
		die("--save: %s", eb.msg);
}

static void save_plan_release(struct save_plan *sp)
{
	free(sp->name);
	free(sp->lpath);
	free(sp->ipath);
	free(sp->lname);
	free(sp->iname);
	free(sp->spec_file);
}

/* The file name of path, after its last slash. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* The comment of the intra tier's preset: the command and its logs (xmalloc'd). */
static char *logs_comment(const struct system *s, char *const *files, size_t nfiles)
{
	size_t len = 128, i;
	char *comment, *esc;

	/* The logs' names escaped: no line break, control byte or broken UTF-8. */
	for (i = 0; i < nfiles; i++)
		len += 4 * strlen(files[i]) + 1;
	comment = xmalloc(len);
	snprintf(comment, len, "link preset written by 'commtime fit --system %s' from",
		 s->name);
	for (i = 0; i < nfiles; i++) {
		esc = preset_text_escape(files[i]);
		strcat(comment, " ");
		strcat(comment, esc);
		free(esc);
	}
	return comment;
}

/* The calibrated intra tier as FILE-intra.preset: its link and its base latency. */
static void save_intra(const struct save_plan *sp, const struct system *s,
		       const struct calib_tier *t, char *const *files, size_t nfiles)
{
	char what[600], *comment = logs_comment(s, files, nfiles);
	struct kvs l = { .n = 0 };

	snprintf(what, sizeof(what), "%s, intra-node tier calibrated from %zu log(s)",
		 s->name, nfiles);
	put_link(&l, sp->lname, what, &t->alpha, &t->beta, s->intra.beta_line,
		 s->intra.name);
	put_num(&l, "base", t->base.value, "");
	put(&l, "source_base", "per-call base latency, %s (models/fit.md)",
	    calib_source_name(t->base.source));
	kvs_save(&l, sp->lpath, comment);
	free(comment);
}

/* The calibrated NICs as FILE-inter.preset: one port. */
static void save_inter(const struct save_plan *sp, const struct system *s,
		       const struct calib_nic *nic)
{
	char what[600], c[600];
	struct kvs l = { .n = 0 };

	snprintf(what, sizeof(what), "%s, one NIC port calibrated from %zu multi-node "
		 "log(s)", s->name, nic->logs);
	snprintf(c, sizeof(c), "link preset written by 'commtime fit --system %s': "
		 "one NIC port", s->name);
	put_link(&l, sp->iname, what, &nic->alpha, &nic->beta, s->inter.beta_line,
		 s->inter.name);
	kvs_save(&l, sp->ipath, c);
}

/*
 * The system preset's pairs into l: the spec's keys, with intra (and,
 * with calibrated NICs, inter) naming the saved links.
 */
static void put_system(struct kvs *l, const struct save_plan *sp, const struct system *s,
		       const struct calib_nic *nic, size_t nfiles, const char *gpu,
		       const char *inter)
{
	put(l, "name", "%s", sp->name);
	put(l, "kind", "system");
	put(l, "description", "%s calibrated from %zu log(s)", s->name, nfiles);
	put(l, "gpu", "%s", gpu);
	put(l, "gpus_per_node", "%lu", s->gpus_per_node);
	if (s->topo_path) {
		/* the NVLink graph and the paths stay the spec's topology's */
		char *abs = realpath(s->topo_path, NULL);

		put(l, "topo", "%s", abs ? abs : s->topo_path);
		free(abs);
	}
	put(l, "intra", "./%s", base_name(sp->lpath));
	if (s->have_inter) {
		put(l, "nics_per_node", "%u", s->nics_per_node);
		put(l, "inter", "%s%s", nic ? "./" : "", nic ? base_name(sp->ipath) : inter);
	}
	put(l, "nvls", "%s", s->nvls ? "yes" : "no");
	put(l, "p2p", "%s", s->p2p ? "yes" : "no");
	put(l, "nvswitch", "%s", s->nvswitch ? "yes" : "no");
	put(l, "pcie_path", "%s", pcie_path_name(s->pcie_path));
	put(l, "nic_path", "%s", pcie_path_name(s->nic_path));
	if (s->cpu_given)
		put(l, "cpu", "%s", cpu_vendor_name(s->cpu));
	if (s->nic_ports > 1)
		put(l, "nic_ports", "%u", s->nic_ports);
	if (s->net_latency_s > 0)
		put_num(l, "net_latency", s->net_latency_s, "s");
	if (!isnan(s->price_per_gpu_hour))
		put_num(l, "price_per_gpu_hour", s->price_per_gpu_hour, "");
	if (s->price_date)
		put(l, "price_date", "%s", s->price_date);
	/* The calibrated values are the tier model's (NCCL's model reads only
	 * the specs), so the preset asks for that model; --model overrides. */
	put(l, "model", "tiers");
	if (sp->spec_file) {
		put(l, NULL, "the spec calibrated: a refit of this system calibrates it again");
		put(l, "calibrated_from", "%s", sp->spec_file);
	}
}

/*
 * The calibrated system as presets: FILE, a system preset with the spec's
 * keys and intra (and, with calibrated NICs, inter) naming the calibrated
 * links FILE-intra.preset (alpha, beta, beta_line, base) and
 * FILE-inter.preset; calibrated_from names the spec, so that a refit of
 * the saved system calibrates the same spec.  The links first, each with
 * preset_save (atomic, loaded back).
 */
static void save_system(const struct save_plan *sp, const struct system *s,
			const struct calib_tier *t, const struct calib_nic *nic,
			char *const *files, size_t nfiles)
{
	char gpu[4096], inter[4096], c[1200];
	const char *lbase = base_name(sp->lpath), *ibase = base_name(sp->ipath);
	struct kvs l = { .n = 0 };

	spec_ref(s, "gpu", s->gpu.name, gpu, sizeof(gpu));
	spec_ref(s, "inter", s->inter.name, inter, sizeof(inter));
	save_intra(sp, s, t, files, nfiles);
	if (nic)
		save_inter(sp, s, nic);
	put_system(&l, sp, s, nic, nfiles, gpu, inter);
	snprintf(c, sizeof(c), "system preset written by 'commtime fit --system %s'; "
		 "calibrated:\nthe intra tier (%s)%s%s, the rest is the spec's", s->name,
		 lbase, nic ? " and the NICs " : "", nic ? ibase : "");
	kvs_save(&l, sp->path, c);
}

/* One row of the calibrated table. */
static void tier_row(struct out *o, const char *tier, const struct calib_value *base,
		     const struct calib_value *a, const struct calib_value *b, double line)
{
	struct cell r[] = {
		{ tier, 0 }, { NULL, base ? base->value : NAN }, { NULL, base ? base->ci95 : NAN },
		{ base ? calib_source_name(base->source) : "-", 0 },
		{ NULL, a->value }, { NULL, a->ci95 }, { calib_source_name(a->source), 0 },
		{ NULL, b->value }, { NULL, b->ci95 }, { calib_source_name(b->source), 0 },
		{ NULL, line }, { NULL, line > 0 ? b->value / line : NAN },
	};

	out_row(o, r);
}

/* Median |relative error| of the calibrated system on one log. */
static double log_median(const struct system *cal, const struct calib_tier *t,
			 const struct meas *m, const double *S, const double *T, enum coll_algo algo)
{
	double *e = xmalloc(m->n * sizeof(double)), med;
	enum coll_op op = (enum coll_op)m->op;
	int one = system_nodes(cal, m->ranks) == 1;
	size_t j;

	/* One node: the single-link model of the tier, with every algorithm it has. */
	for (j = 0; j < m->n; j++)
		e[j] = fabs(fit_rel_err(one ? calib_tier_time(t, op, algo, m->ranks, S[j]) :
					calib_system_time(cal, op, algo, m->ranks, S[j]), T[j]));
	qsort(e, m->n, sizeof(double), cmp_double);
	med = m->n % 2 ? e[m->n / 2] : 0.5 * (e[m->n / 2 - 1] + e[m->n / 2]);
	free(e);
	return med;
}

/* Median of the n values of e (sorted in place). */
static double median(double *e, size_t n)
{
	qsort(e, n, sizeof(double), cmp_double);
	return n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]);
}

/*
 * Median |relative error| over every row of the nlogs input logs: of the
 * calibrated system cal with the tier model and the calibration's
 * algorithm (what the saved system predicts), or (cal NULL) of the
 * uncalibrated machine um with its own choice of algorithm.
 */
static double input_median(const struct system *cal, const struct cost_model *um,
			   const struct meas *m, double *const *S, double *const *T,
			   size_t nlogs, enum coll_algo algo)
{
	size_t n = 0, i, j;
	double *e, med;

	for (i = 0; i < nlogs; i++)
		n += m[i].n;
	e = xmalloc((n ? n : 1) * sizeof(double));
	for (i = 0, n = 0; i < nlogs; i++)
		for (j = 0; j < m[i].n; j++) {
			enum coll_op op = (enum coll_op)m[i].op;
			double p = cal ? calib_system_time(cal, op, algo, m[i].ranks, S[i][j]) :
				   cost_time(um, op, ALGO_AUTO, m[i].ranks, S[i][j]);

			/* no answer from a model counts as a miss without bound */
			e[n++] = isnan(p) ? INFINITY : fabs(fit_rel_err(p, T[i][j]));
		}
	med = n ? median(e, n) : NAN;
	free(e);
	return med;
}

static const struct column check_cols[] = {
	{ .key = "system", .label = "system", .type = COL_STR, .human = H_PLAIN, .width = 24 },
	{ .key = "model", .label = "model", .type = COL_STR, .human = H_PLAIN, .width = 12 },
	{ .key = "rows", .label = "rows", .type = COL_INT, .human = H_PLAIN, .width = 4 },
	{ .key = "median_rel_error", .label = "median |error|", .type = COL_NUM,
	  .human = H_PERCENT, .prec = 1, .width = 14 },
};
static const struct table check_table = {
	"check", "the input logs against the calibrated and the uncalibrated system",
	check_cols, sizeof(check_cols) / sizeof(check_cols[0]), 1
};

/*
 * The spec a saved system was calibrated from (its key calibrated_from),
 * or NULL: a refit of a saved system calibrates that spec again, so the
 * same logs save the same values.  Not when an option changed the system.
 */
static char *calibrated_from(const struct system *s, int *line)
{
	struct preset p;
	struct errbuf eb;
	const char *v;
	char *r = NULL;

	if (!s->path || global_args.gpus_per_node || global_args.nics_per_node ||
	    global_args.intra || global_args.inter)
		return NULL;
	if (preset_load_file(s->path, &p, &eb) < 0)
		return NULL;
	v = preset_get(&p, "calibrated_from");
	*line = preset_line(&p, "calibrated_from");
	if (v)
		r = xstrdup(v);
	preset_release(&p);
	return r;
}

/* The spec a saved system was calibrated from, and its model. */
static void load_spec(const struct ctx *ctx, const char *from, int from_line,
		      struct system *spec_sys, struct cost_model *spec_model,
		      struct nccl_cost *spec_nc)
{
	struct errbuf eb;

	if (system_load(&ctx->dirs, from, spec_sys, &eb) < 0)
		die("%s:%d: calibrated_from: %s", ctx->machine.system.path, from_line, eb.msg);
	if (spec_sys->model == SYSTEM_MODEL_TIERS)
		cost_model_tiers(spec_model, spec_sys);
	else {
		if (nccl_cost_init(spec_nc, spec_model, spec_sys, ctx->machine.nccl_algo_mask, ~0u,
				   &eb) < 0)
			die("%s", eb.msg);
		spec_nc->params = ctx->machine.nccl_params;
	}
}

/* Saves the calibrated system and checks that, read back, it predicts as calibrated. */
static void save_checked(const struct ctx *ctx, const struct save_plan *sp,
			 const struct system *s, const struct calib_tier *t,
			 const struct calib_nic *nic, char **files, size_t nfiles,
			 const struct meas *m, double *const *S, double *const *T,
			 enum coll_algo algo, double med_cal)
{
	struct errbuf eb;
	struct system back;

	save_system(sp, s, t, nic, files, nfiles);
	/* What the next run loads predicts what was calibrated. */
	if (system_load(&ctx->dirs, sp->path, &back, &eb) < 0)
		die("--save: %s", eb.msg);
	if (back.model != SYSTEM_MODEL_TIERS ||
	    input_median(&back, NULL, m, S, T, nfiles, algo) != med_cal)
		die("--save: '%s' read back does not predict as calibrated", sp->path);
	system_release(&back);
}

/* The inputs, and the table of the tiers: fitted, or the spec's. */
static void echo_tiers(const struct ctx *ctx, struct out *o, const struct system *s,
		       const char *from, size_t nfiles, const struct calib_tier *t,
		       size_t nmulti, const struct calib_nic *nic)
{
	out_input_str(o, "system", "system", ctx->machine.system.name);
	if (from)
		out_input_str(o, "calibrated_from", "calibrated from", from);
	out_input(o, "logs", "logs", (double)nfiles, H_PLAIN, 10, NULL);
	out_input(o, "rank_counts", "one-node rank counts", (double)t->rank_counts, H_PLAIN, 10,
		  t->rank_counts >= 2 ? "base and per-step latency told apart by the logs" :
		  t->rank_counts == 1 ? "one, so the base latency is the prior of --base-steps" :
		  "none, so the intra tier is the spec's");
	if (s->have_inter)
		out_input(o, "multi_node_logs", "multi-node logs", (double)nmulti, H_PLAIN, 10,
			  nmulti ? "the NICs calibrated, the intra tier held" :
			  "none, so the NICs are the spec's");
	out_table_begin(o, &cal_table);
	tier_row(o, "intra", &t->base, &t->alpha, &t->beta, s->intra.beta_line);
	if (s->have_inter && nmulti)
		tier_row(o, "inter", NULL, &nic->alpha, &nic->beta, s->inter.beta_line);
	else if (s->have_inter) {
		struct calib_value a = { .value = s->inter.link.alpha, .ci95 = NAN,
					 .source = CALIB_SPEC };
		struct calib_value b = { .value = s->inter.link.beta, .ci95 = NAN,
					 .source = CALIB_SPEC };

		tier_row(o, "inter", NULL, &a, &b, s->inter.beta_line);
	}
	out_table_end(o);
}

/* One row per log: its ranks, nodes, rows and the calibrated system's median error. */
static void log_rows(struct out *o, const struct system *s, const struct system *cal,
		     const struct calib_tier *t, const struct meas *m, double *const *S,
		     double *const *T, size_t nall, size_t nfiles, enum coll_algo algo)
{
	size_t i;

	out_table_begin(o, &cal_log_table);
	for (i = 0; i < nall; i++) {
		unsigned long nodes = system_nodes(s, m[i].ranks);
		struct cell r[] = {
			{ m[i].path, 0 }, { NULL, (double)m[i].ranks }, { NULL, (double)nodes },
			{ NULL, (double)m[i].n }, { NULL, log_median(cal, t, &m[i], S[i], T[i], algo) },
			{ i == nfiles ? "check (held out)" : nodes == 1 ? "intra" : "inter", 0 },
		};

		out_row(o, r);
	}
	out_table_end(o);
}

/* The check of a saved calibration: its median error and the spec's, on the same rows. */
static void check_rows(struct out *o, const char *cal_name, const char *spec_name,
		       enum coll_algo algo, const struct cost_model *um, size_t nrows,
		       double med_cal, double med_spec)
{
	char mc[64], ms[64], nc[PRESET_NAME_MAX + 16], ns[PRESET_NAME_MAX + 16];
	struct cell r1[] = { { nc, 0 }, { mc, 0 }, { NULL, (double)nrows },
			     { NULL, med_cal } };
	struct cell r2[] = { { ns, 0 }, { ms, 0 }, { NULL, (double)nrows },
			     { NULL, med_spec } };

	out_table_begin(o, &check_table);
	snprintf(nc, sizeof(nc), "%s (calibrated)", cal_name);
	snprintf(ns, sizeof(ns), "%s (spec)", spec_name);
	snprintf(mc, sizeof(mc), "tiers, %s", coll_algo_name(algo));
	snprintf(ms, sizeof(ms), "%s", cost_kind_name(um->kind));
	out_row(o, r1);
	out_row(o, r2);
	out_table_end(o);
}

/* The spec file calibrated, absolute, when the system is a preset file as it stands. */
static char *spec_file_of(const struct system *s)
{
	char *real = s->path && !global_args.gpus_per_node && !global_args.nics_per_node &&
		     !global_args.intra && !global_args.inter ? realpath(s->path, NULL) : NULL;
	char *r = real ? xstrdup(real) : NULL;

	free(real);
	return r;
}

/*
 * The intra tier from the one-node logs (the spec's without any), the
 * NICs from the multi-node ones, and the calibrated system of both.
 */
static void fit_tiers(const struct system *s, const struct calib_log *one, size_t none,
		      const struct calib_log *multi, size_t nmulti, const struct fit_opts *fo,
		      struct calib_tier *t, struct calib_nic *nic, struct system *cal)
{
	struct errbuf eb;

	if (none == 0)
		calib_tier_spec(&s->intra, t);
	else if (calib_tier_fit(one, none, s->intra.beta_line,
				fo->base_steps > 0 ? fo->base_steps : 0, t, &eb) < 0)
		die("%s", eb.msg);
	if (nmulti && calib_nic_fit(multi, nmulti, s, t, nic, &eb) < 0)
		die("%s", eb.msg);
	calib_apply(cal, s, t, nmulti ? nic : NULL);
}

/* The logs of a calibration and their rows. */
struct logs {
	size_t nall;                  /* the logs fitted, then --check's */
	struct meas *m;
	double **S, **T;              /* each log's sizes (B) and times (s) */
	struct calib_log *one, *multi;   /* the logs fitted: on one node, on several */
	size_t none, nmulti;
	size_t nrows;                 /* the rows of the logs fitted */
};

/*
 * The nfiles logs of files and (when not NULL) the log check into *l, each
 * a run the system s can hold; those of files split by the nodes they span.
 */
static void logs_load(struct logs *l, char **files, size_t nfiles, const char *check,
		      const struct meas_args *ma, const struct fit_opts *fo,
		      const struct system *s)
{
	struct errbuf eb;
	size_t i;

	l->nall = nfiles + (check != NULL);
	l->none = l->nmulti = l->nrows = 0;
	l->m = xmalloc(l->nall * sizeof(*l->m));
	l->one = xmalloc(l->nall * sizeof(*l->one));
	l->multi = xmalloc(l->nall * sizeof(*l->multi));
	l->S = xmalloc(l->nall * sizeof(*l->S));
	l->T = xmalloc(l->nall * sizeof(*l->T));
	for (i = 0; i < l->nall; i++) {
		meas_args_load(ma, i < nfiles ? files[i] : check, &l->m[i]);
		fit_meas_rows(&l->m[i], ma->in_place, &l->S[i], &l->T[i]);
		if (system_check_ranks(s, l->m[i].ranks, &eb) < 0)
			die("%s: %s", l->m[i].path, eb.msg);
		if (i < nfiles) {
			struct calib_log c = { .size = l->S[i], .time = l->T[i], .n = l->m[i].n,
					       .op = (enum coll_op)l->m[i].op, .algo = fo->algo,
					       .ranks = l->m[i].ranks };

			l->nrows += l->m[i].n;
			if (system_nodes(s, l->m[i].ranks) == 1)
				l->one[l->none++] = c;
			else
				l->multi[l->nmulti++] = c;
		}
	}
}

static void logs_release(struct logs *l)
{
	size_t i;

	for (i = 0; i < l->nall; i++) {
		free(l->S[i]);
		free(l->T[i]);
		meas_release(&l->m[i]);
	}
	free(l->S);
	free(l->T);
	free(l->m);
	free(l->one);
	free(l->multi);
}

/*
 * A calibration worse than the spec on its own logs: saved under --force
 * with a warning, else not saved (exit 1).
 */
static void worse_verdict(const char *save_path, int force, size_t nrows, double med_cal,
			  double med_spec)
{
	char what[256];

	snprintf(what, sizeof(what), "median |error| on the %zu rows of the input logs: "
		 "calibrated %.1f %%, uncalibrated %.1f %%", nrows, 100 * med_cal, 100 * med_spec);
	if (force)
		fprintf(stderr, "commtime: warning: --force: saved '%s' though the calibrated "
			"system is worse than the uncalibrated one (%s)\n", save_path, what);
	else
		die("--save: not saved: the calibrated system is worse than the uncalibrated "
		    "one (%s); --force saves it anyway", what);
}

/* Options fit --system refuses (exit 2): a figure, --force without --save. */
static void check_options(const struct ctx *ctx, const char *save_path, int force)
{
	if (ctx->plot || ctx->render)
		die_usage("%s: fit --system draws no figure (a plain fit does: "
			  "fit LOG --render FILE)", ctx->plot ? "--plot" : "--render");
	if (force && !save_path)
		die_usage("--force: only with --save");
}

int fit_system(char **files, size_t nfiles, const char *check, const struct meas_args *ma,
	       const struct fit_opts *fo, const char *save_path, int force, struct ctx *ctx)
{
	const struct system *s = &ctx->machine.system;
	struct logs l;
	double med_cal, med_spec;
	struct calib_tier t;
	struct calib_nic nic;
	struct system cal, spec_sys;
	struct cost_model spec_model;
	const struct cost_model *um = &ctx->machine.model;
	struct nccl_cost spec_nc;
	struct save_plan sp;
	struct out *o;
	int worse, from_line = 0;
	char *from = calibrated_from(s, &from_line);

	check_options(ctx, save_path, force);
	if (save_path)
		save_plan_make(&sp, save_path, ctx);
	/*
	 * A saved system names the spec it was calibrated from: calibrate that
	 * spec, so that a refit on the same logs saves the same values.
	 */
	if (from) {
		load_spec(ctx, from, from_line, &spec_sys, &spec_model, &spec_nc);
		s = &spec_sys;
		um = &spec_model;
	}
	if (save_path)
		sp.spec_file = spec_file_of(s);
	logs_load(&l, files, nfiles, check, ma, fo, s);
	fit_tiers(s, l.one, l.none, l.multi, l.nmulti, fo, &t, &nic, &cal);
	/* The calibration checks itself: against its own logs, and the spec. */
	med_cal = save_path ? input_median(&cal, NULL, l.m, l.S, l.T, nfiles, fo->algo) : NAN;
	med_spec = save_path ? input_median(NULL, um, l.m, l.S, l.T, nfiles, fo->algo) : NAN;
	worse = save_path && !(med_cal <= med_spec);
	if (save_path && (!worse || force))
		save_checked(ctx, &sp, s, &t, l.nmulti ? &nic : NULL, files, nfiles, l.m, l.S, l.T,
			     fo->algo, med_cal);

	o = ctx_out_open(ctx);
	echo_tiers(ctx, o, s, from, nfiles, &t, l.nmulti, &nic);
	log_rows(o, s, &cal, &t, l.m, l.S, l.T, l.nall, nfiles, fo->algo);
	if (s->have_inter && l.nmulti && nic.beta.source == CALIB_SPEC)
		out_text(o, "inter beta: these logs are bound by the intra tier, so the NICs' "
			 "bandwidth is kept from the spec (%s)", s->inter.name);
	if (save_path)
		check_rows(o, sp.name, s->name, fo->algo, um, l.nrows, med_cal, med_spec);
	if (save_path && (!worse || force))
		out_text(o, "saved the calibrated system as '%s'", save_path);
	ctx_out_close(ctx, o);
	if (worse && save_path)
		worse_verdict(save_path, force, l.nrows, med_cal, med_spec);
	logs_release(&l);
	if (save_path)
		save_plan_release(&sp);
	if (from)
		system_release(&spec_sys);
	free(from);
	return 0;
}
