/*
 * commtime --system S fit LOG...: calibrate the tiers of a system from
 * measured logs (models/fit.md, "Calibrating a system"), report each value
 * with its interval and where it comes from, and save the calibrated
 * system as presets.
 */
#include <math.h>
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

static void write_or_die(FILE *f, const char *path)
{
	if (fflush(f) || ferror(f)) {
		fclose(f);
		die("cannot write '%s'", path);
	}
	if (fclose(f))
		die("cannot write '%s'", path);
}

static FILE *open_tmp(const char *tmp)
{
	FILE *f = fopen(tmp, "w");

	if (!f)
		die("cannot write '%s':", tmp);
	return f;
}

/* A calibrated tier as a link preset: alpha, beta (with where each came from), beta_line. */
static void write_link(FILE *f, const char *name, const char *what, const struct calib_value *a,
		       const struct calib_value *b, double line, const char *spec)
{
	char v[32];

	fprintf(f, "name = %s\nkind = link\ndescription = %s\n", name, what);
	fmt_double(v, a->value);
	fprintf(f, "alpha = %s\nsource_alpha = per-step latency, %s", v,
		calib_source_name(a->source));
	if (!isnan(a->ci95))
		fprintf(f, " (95 %% interval +/- %.3g s)", a->ci95);
	fmt_double(v, b->value);
	fprintf(f, "\nbeta = %s\nsource_beta = bandwidth, %s", v, calib_source_name(b->source));
	if (!isnan(b->ci95))
		fprintf(f, " (95 %% interval +/- %.3g B/s)", b->ci95);
	fmt_double(v, line);
	fprintf(f, "\nbeta_line = %s\nsource_beta_line = line rate of %s (spec, kept)\n", v,
		spec);
}

/*
 * The calibrated system as presets: FILE, a system preset with the spec's
 * keys and intra (and, with calibrated NICs, inter) naming the calibrated
 * links FILE-intra.preset (alpha, beta, beta_line, base) and
 * FILE-inter.preset.  Written under temporary names and renamed, the links
 * first.
 */
static void save_system(const char *path, const struct system *s, const struct calib_tier *t,
			const struct calib_nic *nic, char *const *files, size_t nfiles)
{
	char gpu[4096], inter[4096], desc[512], lname[512], num[32];
	char *lpath = tier_path(path, "intra"), *ipath = tier_path(path, "inter");
	char *ltmp = xmalloc(strlen(lpath) + 8), *itmp = xmalloc(strlen(ipath) + 8);
	char *stmp = xmalloc(strlen(path) + 8), *name = fit_preset_name_of(path);
	const char *lbase = strrchr(lpath, '/'), *ibase = strrchr(ipath, '/');
	FILE *f;
	size_t i;

	lbase = lbase ? lbase + 1 : lpath;
	ibase = ibase ? ibase + 1 : ipath;
	spec_ref(s, "gpu", s->gpu.name, gpu, sizeof(gpu));
	spec_ref(s, "inter", s->inter.name, inter, sizeof(inter));
	snprintf(ltmp, strlen(lpath) + 8, "%s.tmp", lpath);
	snprintf(itmp, strlen(ipath) + 8, "%s.tmp", ipath);
	snprintf(stmp, strlen(path) + 8, "%s.tmp", path);

	f = open_tmp(ltmp);
	fprintf(f, "# link preset written by 'commtime fit --system %s' from", s->name);
	for (i = 0; i < nfiles; i++)
		fprintf(f, " %s", files[i]);
	snprintf(desc, sizeof(desc), "%s, intra-node tier calibrated from %zu log(s)", s->name,
		 nfiles);
	snprintf(lname, sizeof(lname), "%s-intra", name);
	fprintf(f, "\n");
	write_link(f, lname, desc, &t->alpha, &t->beta, s->intra.beta_line, s->intra.name);
	fmt_double(num, t->base.value);
	fprintf(f, "base = %s\nsource_base = per-call base latency, %s (models/fit.md)\n", num,
		calib_source_name(t->base.source));
	write_or_die(f, ltmp);
	if (nic) {
		f = open_tmp(itmp);
		fprintf(f, "# link preset written by 'commtime fit --system %s': one NIC port\n",
			s->name);
		snprintf(desc, sizeof(desc), "%s, one NIC port calibrated from %zu multi-node "
			 "log(s)", s->name, nic->logs);
		snprintf(lname, sizeof(lname), "%s-inter", name);
		write_link(f, lname, desc, &nic->alpha, &nic->beta, s->inter.beta_line,
			   s->inter.name);
		write_or_die(f, itmp);
	}

	f = open_tmp(stmp);
	fprintf(f, "# system preset written by 'commtime fit --system %s'; calibrated:\n"
		"# the intra tier (%s)%s%s, the rest is the spec's\n", s->name, lbase,
		nic ? " and the NICs " : "", nic ? ibase : "");
	fprintf(f, "name = %s\nkind = system\n", name);
	fprintf(f, "description = %s calibrated from %zu log(s)\n", s->name, nfiles);
	fprintf(f, "gpu = %s\ngpus_per_node = %lu\nintra = ./%s\n", gpu, s->gpus_per_node, lbase);
	if (s->have_inter)
		fprintf(f, "nics_per_node = %u\ninter = %s%s\n", s->nics_per_node,
			nic ? "./" : "", nic ? ibase : inter);
	fprintf(f, "nvls = %s\np2p = %s\nnvswitch = %s\npcie_path = %s\nnic_path = %s\n",
		s->nvls ? "yes" : "no", s->p2p ? "yes" : "no", s->nvswitch ? "yes" : "no",
		pcie_path_name(s->pcie_path), pcie_path_name(s->nic_path));
	if (s->cpu_given)
		fprintf(f, "cpu = %s\n", cpu_vendor_name(s->cpu));
	if (s->nic_ports > 1)
		fprintf(f, "nic_ports = %u\n", s->nic_ports);
	if (s->net_latency_s > 0) {
		fmt_double(num, s->net_latency_s);
		fprintf(f, "net_latency = %ss\n", num);
	}
	/* The calibrated values are the tier model's (NCCL's model reads only
	 * the specs), so the preset asks for that model; --model overrides. */
	fprintf(f, "model = tiers\n");
	write_or_die(f, stmp);
	if (rename(ltmp, lpath) || (nic && rename(itmp, ipath)) || rename(stmp, path)) {
		unlink(ltmp);
		unlink(itmp);
		unlink(stmp);
		die("cannot rename into '%s':", path);
	}
	free(lpath);
	free(ipath);
	free(ltmp);
	free(itmp);
	free(stmp);
	free(name);
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

int fit_system(char **files, size_t nfiles, const char *check, const struct meas_args *ma,
	       const struct fit_opts *fo, const char *save_path, struct ctx *ctx)
{
	const struct system *s = &ctx->system;
	size_t nall = nfiles + (check != NULL);
	struct meas *m = xmalloc(nall * sizeof(*m));
	struct calib_log *one = xmalloc(nall * sizeof(*one)), *multi = xmalloc(nall * sizeof(*multi));
	double **S = xmalloc(nall * sizeof(*S)), **T = xmalloc(nall * sizeof(*T));
	size_t i, none = 0, nmulti = 0;
	struct calib_tier t;
	struct calib_nic nic;
	struct system cal;
	struct errbuf eb;
	struct out *o;

	for (i = 0; i < nall; i++) {
		meas_args_load(ma, i < nfiles ? files[i] : check, &m[i]);
		fit_meas_rows(&m[i], ma->in_place, &S[i], &T[i]);
		if (system_check_ranks(s, m[i].ranks, &eb) < 0)
			die("%s: %s", m[i].path, eb.msg);
		if (i < nfiles) {
			struct calib_log l = { .size = S[i], .time = T[i], .n = m[i].n,
					       .op = (enum coll_op)m[i].op, .algo = fo->algo,
					       .ranks = m[i].ranks };

			if (system_nodes(s, m[i].ranks) == 1)
				one[none++] = l;
			else
				multi[nmulti++] = l;
		}
	}
	if (none == 0)
		calib_tier_spec(&s->intra, &t);
	else if (calib_tier_fit(one, none, s->intra.beta_line,
				fo->base_steps > 0 ? fo->base_steps : 0, &t, &eb) < 0)
		die("%s", eb.msg);
	if (nmulti && calib_nic_fit(multi, nmulti, s, &t, &nic, &eb) < 0)
		die("%s", eb.msg);
	calib_apply(&cal, s, &t, nmulti ? &nic : NULL);
	if (save_path)
		save_system(save_path, s, &t, nmulti ? &nic : NULL, files, nfiles);

	o = ctx_out_open(ctx);
	out_input_str(o, "system", "system", s->name);
	out_input(o, "logs", "logs", (double)nfiles, H_PLAIN, 10, NULL);
	out_input(o, "rank_counts", "one-node rank counts", (double)t.rank_counts, H_PLAIN, 10,
		  t.rank_counts >= 2 ? "base and per-step latency told apart by the logs" :
		  t.rank_counts == 1 ? "one, so the base latency is the prior of --base-steps" :
		  "none, so the intra tier is the spec's");
	if (s->have_inter)
		out_input(o, "multi_node_logs", "multi-node logs", (double)nmulti, H_PLAIN, 10,
			  nmulti ? "the NICs calibrated, the intra tier held" :
			  "none, so the NICs are the spec's");
	out_table_begin(o, &cal_table);
	tier_row(o, "intra", &t.base, &t.alpha, &t.beta, s->intra.beta_line);
	if (s->have_inter && nmulti)
		tier_row(o, "inter", NULL, &nic.alpha, &nic.beta, s->inter.beta_line);
	else if (s->have_inter) {
		struct calib_value a = { .value = s->inter.link.alpha, .ci95 = NAN,
					 .source = CALIB_SPEC };
		struct calib_value b = { .value = s->inter.link.beta, .ci95 = NAN,
					 .source = CALIB_SPEC };

		tier_row(o, "inter", NULL, &a, &b, s->inter.beta_line);
	}
	out_table_end(o);
	out_table_begin(o, &cal_log_table);
	for (i = 0; i < nall; i++) {
		unsigned long nodes = system_nodes(s, m[i].ranks);
		struct cell r[] = {
			{ m[i].path, 0 }, { NULL, (double)m[i].ranks }, { NULL, (double)nodes },
			{ NULL, (double)m[i].n }, { NULL, log_median(&cal, &t, &m[i], S[i], T[i], fo->algo) },
			{ i == nfiles ? "check (held out)" : nodes == 1 ? "intra" : "inter", 0 },
		};

		out_row(o, r);
	}
	out_table_end(o);
	if (s->have_inter && nmulti && nic.beta.source == CALIB_SPEC)
		out_text(o, "inter beta: these logs are bound by the intra tier, so the NICs' "
			 "bandwidth is kept from the spec (%s)", s->inter.name);
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
	free(one);
	free(multi);
	return 0;
}
