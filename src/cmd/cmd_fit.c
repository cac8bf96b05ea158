/*
 * commtime fit: α and β (and the regime model) from measured times.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_cmd.h"
#include "trace_cmd.h"
#include "nccl_cost.h"
#include "system.h"

static const char *const usage_lines[] = {
	"commtime fit [options] FILE",
	"commtime --system S fit [options] LOG... (calibrate the system's tiers)",
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
	{ .key = "alpha_s", .label = "alpha", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 9 },
	{ .key = "alpha_err_s", .label = "+/-", .type = COL_NUM, .human = H_TIME,
	  .prec = 3, .width = 9 },
	{ .key = "beta_Bps", .label = "beta", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "beta_err_Bps", .label = "+/-", .type = COL_NUM, .human = H_RATE,
	  .prec = 3, .width = 10 },
	{ .key = "n_half_B", .label = "n1/2", .type = COL_NUM, .human = H_SIZE,
	  .prec = 3, .width = 9 },
	{ .key = "rms_rel_error", .label = "rms error", .type = COL_NUM, .human = H_PERCENT,
	  .prec = 1, .width = 9 },
};
static const struct table ab_table = {
	"alpha_beta", "single alpha-beta fit (what other commands use)",
	ab_cols, sizeof(ab_cols) / sizeof(ab_cols[0]), 1
};

static const struct column reg_cols[] = {
	{ .key = "regime", .label = "regime", .type = COL_INT, .human = H_PLAIN, .width = 6 },
	{ .key = "from_B", .label = "from", .type = COL_NUM, .human = H_SIZE,
	  .prec = 3, .width = 8 },
	{ .key = "to_B", .label = "to", .type = COL_NUM, .human = H_SIZE, .prec = 3, .width = 8 },
	{ .key = "alpha_s", .label = "alpha", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 9 },
	{ .key = "beta_Bps", .label = "beta", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "rows", .label = "rows", .type = COL_INT, .human = H_PLAIN },
	{ .key = "base_s", .label = "base", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 9 },
};
static const struct table reg_table = {
	"regimes", "regime model (what --save stores for compare)",
	reg_cols, sizeof(reg_cols) / sizeof(reg_cols[0]), 1
};

static const struct column hold_cols[] = {
	{ .key = "model", .label = "model", .type = COL_STR, .human = H_PLAIN, .width = 12 },
	{ .key = "median_rel_error", .label = "median", .type = COL_NUM, .human = H_PERCENT,
	  .prec = 1, .width = 7 },
	{ .key = "p90_rel_error", .label = "p90", .type = COL_NUM, .human = H_PERCENT,
	  .prec = 1, .width = 7 },
	{ .key = "max_rel_error", .label = "max", .type = COL_NUM, .human = H_PERCENT,
	  .prec = 1, .width = 7 },
	{ .key = "predictions", .label = "predictions", .type = COL_INT, .human = H_PLAIN },
};
static const struct table hold_table = {
	"holdout", "held-out error (fit even rows, predict odd ones, and the reverse)",
	hold_cols, sizeof(hold_cols) / sizeof(hold_cols[0]), 1
};

static const struct column res_cols[] = {
	{ .key = "size_B", .label = "size", .type = COL_NUM, .human = H_SIZE,
	  .prec = 3, .width = 8 },
	{ .key = "measured_s", .label = "measured", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 9 },
	{ .key = "regime", .label = "regime", .type = COL_STR, .human = H_PLAIN, .width = 6 },
	{ .key = "fitted_s", .label = "fitted", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 9 },
	{ .key = "rel_error", .label = "error", .type = COL_NUM, .human = H_PERCENT,
	  .prec = 1, .width = 7 },
	{ .key = "ab_fitted_s", .label = "alpha-beta", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 10 },
	{ .key = "ab_rel_error", .label = "error", .type = COL_NUM, .human = H_PERCENT,
	  .prec = 1, .width = 7 },
	/* the fitted link on every row, so the CSV alone holds the answer */
	{ .key = "alpha_s", .label = "alpha", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 9, .flags = COL_DATA_ONLY },
	{ .key = "beta_Bps", .label = "beta", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11, .flags = COL_DATA_ONLY },
};
static const struct table res_table = {
	"residuals", "measured against fitted (error = fitted/measured - 1)",
	res_cols, sizeof(res_cols) / sizeof(res_cols[0]), 0
};

/*
 * The machine's bandwidth for op on `ranks` ranks in the terms of the
 * fitted model's b·S/β, the prior of fit_opts.spec_beta: the tier model's
 * bandwidth time at 1 GiB with the spec's links.
 */
static double S_spec_beta(const struct system *s, enum coll_op op, unsigned long ranks,
			  const struct link_coeffs *co)
{
	struct cost_model m;
	struct group g = { .ranks = ranks };
	struct coll_cost cc;
	const double S = 1 << 30;

	cost_model_tiers(&m, s);
	if (cost_coll(&m, op, ALGO_AUTO, &g, S, &cc, NULL) == 0 && cc.bandwidth_s > 0)
		return co->b * S / cc.bandwidth_s;
	return 0;
}

/*
 * The name the saved preset will carry must load again: refuse it before
 * any work, and refuse --save onto another output of the run (the input
 * itself may be replaced: it is read completely first).  Returns the
 * name to save under.
 */
static char *S_save_name(struct ctx *ctx, const char *save_path, const char *name)
{
	char *save_name = NULL;
	struct errbuf eb;

	const char *paths[] = { ctx->output, ctx->plot, ctx->render, save_path };
	static const char *const opts[] = { "-o", "--plot", "--render", "--save" };

	char *stem = preset_file_stem(save_path);
	int other = stem && name && strcmp(name, stem);

	outputs_distinct(paths, opts, 4);
	if (stem && !name && preset_save_name(save_path, 0, &save_name, &eb) < 0) {
		free(stem);
		die_usage("--save: %s", eb.msg);
	}
	free(stem);
	if (other)
		die_usage("--name: '%s' is not the file name of '%s': a preset carries "
			  "its file's name (leave --name out, or save as '%s.preset')",
			  name, save_path, name);
	if (!save_name)
		save_name = name ? xstrdup(name) : fit_preset_name_of(save_path);
	if (preset_save_check(save_path, &eb) < 0)
		die("--save: %s", eb.msg);
	if (!preset_name_valid(save_name))
		die_usage("%s: '%s' is not a valid preset name: names use a-z, 0-9, "
			  "'.', '_' and '-', start with a letter or digit and are at most "
			  PRESET_NAME_MAX_TEXT " bytes long%s",
			  name ? "--name" : "--save", save_name,
			  name ? "" : "; name the file so, or give --name");
	return save_name;
}

/* What the fit was given and assumed, above its tables. */
static void S_echo(const struct ctx *ctx, struct out *o, const struct meas *m,
		   const struct meas_args *ma, const struct fit_opts *fo,
		   const struct link_coeffs *co, const struct fit_model *fm, const char *switches,
		   double line_from_machine)
{
	char note[96];

	out_input_str(o, "file", "file", m->path);
	{
		char fmt[64];

		snprintf(fmt, sizeof(fmt), "%s (detected)", meas_format_name(m->format));
		out_input_str(o, "format", "format", fmt);
	}
	out_input_str(o, "op", "collective", coll_op_name((enum coll_op)m->op));
	snprintf(note, sizeof(note), "%s", ma->ranks ? "from --ranks" :
		 m->format == MEAS_NCCL_TEXT ? "from the log's '# Rank' lines" : "from the file");
	out_input(o, "ranks", "ranks", (double)m->ranks, H_PLAIN, 10, note);
	out_input_str(o, "algo", "algorithm", coll_algo_name(fo->algo));
	snprintf(note, sizeof(note), "T(S) = %.6g*alpha + %.6g*S/beta", co->a, co->b);
	out_input_str(o, "model", "model", note);
	out_input_str(o, "times", "times", ma->in_place ? "in-place" : "out-of-place");
	if (switches) {
		out_input_str(o, "machine", "machine", switches);
		if (ctx->machine.nccl_version)
			out_input_str(o, "nccl_version", "NCCL version", ctx->machine.nccl_version);
		/* the launch of one thread driving several GPUs (the log's banner):
		 * NCCL's times on the machine take it, its protocol switches not */
		if (ctx->machine.gpus_per_process)
			out_input_str(o, "gpus_per_process", "GPUs per process", ctx->machine.gpus_per_process);
		out_input_str(o, "switches", "regimes", "none across a protocol switch of NCCL's "
			      "model there");
		if (line_from_machine > 0)
			out_input(o, "line_rate", "line rate", line_from_machine, H_RATE, 4,
				  "the machine's intra link: no bandwidth above it");
		if (fm->spec_last)
			out_input(o, "spec_beta", "prior", fo->spec_beta, H_RATE, 4, "the machine's "
				  "bandwidth for the last regime: the log ends below its n1/2");
	}
	out_input(o, "base_steps", "base latency", fm->base_steps, H_PLAIN, 10,
		  fm->base_steps > 0 ? "per-step latencies per call, a prior; --base-steps" :
		  "none (--base-steps 0)");
}

/*
 * --machine SYSTEM: the system the log was measured on, whose NCCL model
 * says where the protocol switches (regimes never cross one), the spec's
 * bandwidth for a last regime below its n1/2, and on one node without
 * NVLS the intra line rate as a bound.
 */
static void S_machine(struct ctx *ctx, const char *switches, const struct meas *m,
		      const struct link_coeffs *co, struct fit_opts *fo, struct system *sw_sys,
		      struct nccl_cost *sw_nc, struct cost_model *sw_model,
		      double *line_from_machine)
{
	unsigned protos = ~0u;   /* --proto, as the system's model takes it (main.c) */
	struct errbuf eb;

	if (global_args.proto && nccl_proto_mask(global_args.proto, &protos, &eb) < 0)
		die_usage("--proto: %s", eb.msg);
	if (system_load(&ctx->dirs, switches, sw_sys, &eb) < 0 ||
	    system_check_ranks(sw_sys, m->ranks, &eb) < 0 ||
	    nccl_cost_init(sw_nc, sw_model, sw_sys, ctx->machine.nccl_algo_mask, protos, &eb) < 0)
		die("--machine: %s", eb.msg);
	sw_nc->params = ctx->machine.nccl_params;
	ctx_nccl_from_log(ctx, m, sw_nc);
	fo->switches = sw_model;
	fo->spec_beta = S_spec_beta(sw_sys, (enum coll_op)m->op, m->ranks, co);
	/*
	 * On one node without NVLink SHARP the intra link's line rate
	 * bounds every bandwidth; NVLS reduces in the switches and
	 * trees across nodes carry less than a ring, so neither has a
	 * bound of this form.
	 */
	if (!(fo->line_rate > 0) && !sw_sys->nvls && system_nodes(sw_sys, m->ranks) == 1)
		fo->line_rate = *line_from_machine = sw_sys->intra.beta_line;
	fo->switch_op = (enum coll_op)m->op;
	fo->switch_ranks = m->ranks;
}

/* The alpha-beta fit, the regimes, the held-out accuracy and the residuals. */
static void S_tables(struct out *o, const struct meas *m, const double *S, const double *T,
		     const struct ab_fit *ab, const struct fit_model *fm,
		     const struct fit_model *fab, const struct holdout *h)
{
	size_t i;

	out_table_begin(o, &ab_table);
	{
		struct cell r[] = { { NULL, ab->alpha }, { NULL, ab->alpha_err },
				    { NULL, ab->beta }, { NULL, ab->beta_err },
				    { NULL, ab->n_half }, { NULL, ab->rms } };
		out_row(o, r);
	}
	out_table_end(o);

	out_table_begin(o, &reg_table);
	for (i = 0; i < fm->nreg; i++) {
		struct cell r[] = { { NULL, (double)(i + 1) }, { NULL, fm->reg[i].lo },
				    { NULL, fm->reg[i].hi }, { NULL, fm->reg[i].alpha },
				    { NULL, fm->reg[i].beta }, { NULL, (double)fm->reg[i].n },
				    { NULL, fm->base_steps * fm->reg[i].alpha } };
		out_row(o, r);
	}
	out_table_end(o);

	if (h) {
		struct cell r1[] = { { "regimes", 0 }, { NULL, h->median }, { NULL, h->p90 },
				     { NULL, h->max }, { NULL, (double)h->n } };
		struct cell r2[] = { { "alpha-beta", 0 }, { NULL, h->ab_median },
				     { NULL, h->ab_p90 }, { NULL, h->ab_max }, { NULL, (double)h->n } };

		out_table_begin(o, &hold_table);
		out_row(o, r1);
		out_row(o, r2);
		out_table_end(o);
	}

	out_table_begin(o, &res_table);
	for (i = 0; i < m->n; i++) {
		double f = fit_model_time(fm, (enum coll_op)m->op, m->ranks, S[i]);
		double fa = fit_model_time(fab, (enum coll_op)m->op, m->ranks, S[i]);
		char rg[24];
		struct cell r[] = { { NULL, S[i] }, { NULL, T[i] }, { rg, 0 }, { NULL, f },
				    { NULL, fit_rel_err(f, T[i]) }, { NULL, fa }, { NULL, fit_rel_err(fa, T[i]) },
				    { NULL, ab->alpha }, { NULL, ab->beta } };

		fit_regime_of(fm, S[i], rg, sizeof(rg));
		out_row(o, r);
	}
	out_table_end(o);
}

/* A plain fit, of one log on one link: the options it takes and refuses. */
static void S_plain(int force, const char *check, const char *regimes, struct fit_opts *fo)
{
	if (force)
		die_usage("--force: only with --system and --save");
	if (check)
		die_usage("--check: only with --system (a plain fit: compare LOG --preset FILE)");
	if (regimes && strcmp(regimes, "auto"))
		fo->regimes = (int)opt_quantity_range("--regimes", Q_COUNT, regimes,
						      1, FIT_REGIMES_MAX);
}

/* The options that need a machine to model: --machine or a system. */
static void S_check_machine(const struct ctx *ctx, const char *switches)
{
	if (ctx->machine.nccl_algo && !switches && !ctx->machine.have_system)
		die_usage("--nccl-algo: only with --machine or a system");
	if (ctx->machine.nccl_version && !switches && !ctx->machine.have_system)
		die_usage("--nccl-version: only with --machine or a system");
	if (global_args.proto && !switches && !ctx->machine.have_system)
		die_usage("--proto: only with --machine or a system");
}

/*
 * The fits of the log: plain alpha-beta, the regime model, the held-out
 * accuracy when asked, and the alpha-beta line as a model to compare.
 */
static void S_fit(const struct meas *m, int in_place, const struct fit_opts *fo,
		  const struct link_coeffs *co, int holdout, double **S, double **T,
		  struct ab_fit *ab, struct fit_model *fm, struct fit_model *fab,
		  struct holdout *h)
{
	struct errbuf eb;
	struct link l;

	fit_meas_rows(m, in_place, S, T);
	if (fit_ab(*S, *T, m->n, co, fo->robust, ab, &eb) < 0 ||
	    fit_model_fit(*S, *T, m->n, (enum coll_op)m->op, m->ranks, fo, fm, &eb) < 0)
		die("%s: %s", m->path, eb.msg);
	if (holdout && fit_holdout(*S, *T, m->n, (enum coll_op)m->op, m->ranks, fo, h, &eb) < 0)
		die("%s: %s", m->path, eb.msg);
	l = (struct link){ ab->alpha, ab->beta, 0 };
	fit_model_from_link(fab, (enum coll_op)m->op, fo->algo, m->ranks, &l);
}

int cmd_fit(int argc, char **argv, struct ctx *ctx)
{
	struct fit_opts fo = { .algo = ALGO_RING };
	const char *base_steps = NULL, *check = NULL;
	int npos;
	const char *save_path = NULL, *name = NULL;
	struct meas_args ma = MEAS_ARGS_INIT;
	const char *regimes = NULL, *switches = NULL;
	struct system sw_sys;
	struct nccl_cost sw_nc;
	struct cost_model sw_model;
	int holdout = 0, force = 0;
	double line_from_machine = 0;
	char *save_name = NULL;
	struct meas m;
	struct errbuf eb;
	struct link_coeffs co;
	struct ab_fit ab;
	struct fit_model fm, fab;
	struct holdout h;
	struct out *o;
	double *S, *T;

	struct opt options[] = {
		OPTS_MEASUREMENT(&ma, ctx_algo_model(ctx)),
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
		{ .type = OPT_STRING, .long_name = "machine", .argh = "SYSTEM",
		  .value = &switches, .complete = "presets:system",
		  .help = "the system the log was measured on: regimes split where\n"
			  "NCCL's model there switches protocol (LL, LL128,\n"
			  "Simple) and never across such a switch; the spec's\n"
			  "bandwidth for a last regime that ends below its n1/2;\n"
			  "on one node, no bandwidth above the intra line rate" },
		OPT_FILE_("check", "LOG", &check,
			  "with --system: a log to predict, not fitted (held out)"),
		OPT_FLAG_("holdout", &holdout,
			  "report accuracy on held-out sizes: fit the even rows and\n"
			  "predict the odd ones, then the reverse"),
		OPT_FILE_("save", "FILE", &save_path,
			  "save the fit as a link preset (use with --preset FILE)"),
		OPT_STRING_("name", "NAME", &name,
			    "name inside the saved preset (default: FILE's base name;\n"
			    "a FILE.preset carries its file's name)"),
		OPT_FLAG_("force", &force,
			  "with --system --save: save even when the calibrated system\n"
			  "misses its own logs by more than the uncalibrated one"),
		OPT_END_()
	};

	for (npos = 1; npos < argc && strcmp(argv[npos], "--"); npos++)
		if (!strcmp(argv[npos], "--trace"))
			return cmd_fit_trace(argc, argv, ctx);   /* compare_trace_fit.c */
	npos = opts_parse(argc, argv, options, &usage, ctx->machine.have_system ? 64 : 1);
	if (npos < 1)
		die_usage("fit needs a measurement file; see 'commtime fit --help'");
	fo.algo = ma.algo;
	if (base_steps) {
		fo.base_steps = opt_quantity_range("--base-steps", Q_NUMBER, base_steps, 0, 1e6);
		if (fo.base_steps == 0)
			fo.base_steps = -1;
	}
	if (ctx->machine.have_system)
		return fit_system(argv, (size_t)npos, check, &ma, &fo, save_path, force, ctx);
	S_plain(force, check, regimes, &fo);
	if (save_path)
		save_name = S_save_name(ctx, save_path, name);
	meas_args_load(&ma, argv[0], &m);
	if (fit_link_coeffs((enum coll_op)m.op, fo.algo, m.ranks, &co, &eb) < 0)
		die("%s: %s", m.path, eb.msg);
	S_check_machine(ctx, switches);
	if (switches)
		S_machine(ctx, switches, &m, &co, &fo, &sw_sys, &sw_nc, &sw_model,
			  &line_from_machine);
	S_fit(&m, ma.in_place, &fo, &co, holdout, &S, &T, &ab, &fm, &fab, &h);
	if (save_path)
		fit_save_link(save_path, &m, &ab, &fm, holdout ? &h : NULL, ma.in_place, save_name);

	o = ctx_out_open(ctx);
	S_echo(ctx, o, &m, &ma, &fo, &co, &fm, switches, line_from_machine);
	S_tables(o, &m, S, T, &ab, &fm, &fab, holdout ? &h : NULL);
	if (save_path)
		out_text(o, "saved the fit as link preset '%s'", save_path);
	fit_figure(ctx, &m, S, T, &ab, &fm, &fab, ma.in_place);
	ctx_out_close(ctx, o);

	free(S);
	free(T);
	free(save_name);
	if (switches)
		system_release(&sw_sys);
	meas_release(&m);
	return 0;
}
