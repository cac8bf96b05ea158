/*
 * commtime --system S fit --trace FILE... --save FILE: what a trace
 * measured — each collective's time against the model, gathered by tier
 * and size, and the step's kernel efficiency — saved as keys of a system
 * preset, and their reading back for step and search (models/trace.md,
 * "Carrying a trace forward").
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit_cmd.h"
#include "outfile.h"
#include "trace_cmd.h"

const struct trace_calib *ctx_trace_calib(const struct ctx *ctx)
{
	return ctx->machine.have_system && ctx->machine.calib.have ? &ctx->machine.calib : NULL;
}

int trace_calib_mfu(const struct ctx *ctx, struct step_compute *cs, int which)
{
	const struct trace_calib *c = ctx_trace_calib(ctx);
	double v;

	if (!c || isnan(c->mfu))
		return 0;
	v = which == 1 ? c->mfu_lo : which == 2 ? c->mfu_hi : c->mfu;
	cs->mfu = v;
	return 1;
}

void trace_fit_compute(const struct ctx *ctx, struct step_compute *cs)
{
	trace_calib_mfu(ctx, cs, 0);
}

/*
 * The step at both ends of what the trace measured: the fast end with every
 * collective at its cell's low ratio and the kernel efficiency at its high,
 * the slow end the reverse.
 */
void trace_calib_note(struct ctx *ctx, struct out *o, const struct workload *w,
		      const struct step_config *c, const struct step_compute *cs_used, int mfu_from_trace)
{
	const struct trace_calib *tc = ctx_trace_calib(ctx);
	struct step_result r;
	struct step_compute cs = *cs_used;
	struct errbuf eb;
	double ends[2] = { NAN, NAN };
	int i, ncell = 0;
	char a[32], b[32];

	if (!tc)
		return;
	for (i = 0; i < TRACE_CELLS; i++)
		ncell += !isnan(tc->coll[i][0]);
	{
		char cells[160] = "";
		size_t len = 0;
		for (i = 0; i < TRACE_CELLS; i++)
			if (!isnan(tc->coll[i][0]) && len < sizeof(cells) - 40)
				len += (size_t)snprintf(cells + len, sizeof(cells) - len, "%s%s x%.3g",
							len ? ", " : "", trace_calib_cell_name(i), tc->coll[i][0]);
		out_text(o, "started from a trace (%s; fit --trace):", tc->from);
		if (mfu_from_trace)
			out_text(o, "  compute at the kernel efficiency it measured, %.3g (%.3g to %.3g)",
				 tc->mfu, tc->mfu_lo, tc->mfu_hi);
		else if (!isnan(tc->mfu))
			out_text(o, "  its kernel efficiency %.3g not used: --mfu given", tc->mfu);
		out_text(o, "  collectives x measured/predicted of their cell: %s",
			 ncell ? cells : "none measured");
		out_text(o, "  (cells not measured keep the model's time)");
	}
	for (i = 0; i < 2; i++) {
		struct cost_model end;
		double ratio[TRACE_CELLS];

		/* The same calibrated model at one end of each cell's range. */
		trace_calib_ratios(tc, i + 1, ratio);
		if (ctx->machine.model.calib_of)
			cost_model_calib(&end, ctx->machine.model.calib_of, ratio);
		else
			end = ctx->machine.model;
		if (mfu_from_trace)
			cs.mfu = i == 0 ? tc->mfu_hi : tc->mfu_lo;
		if (step_run(w, c, &cs, &end, STEP_BAND_NONE, &r, &eb) == 0)
			ends[i] = r.step_s;
	}
	if (!isnan(ends[0]) && !isnan(ends[1])) {
		units_fmt_time(a, sizeof(a), ends[0], 4);
		units_fmt_time(b, sizeof(b), ends[1], 4);
		out_text(o, "the step over the trace's range: %s (fast end) to %s (slow end)", a, b);
	}
}

/* ---- fit --trace ---- */

static const char *const usage_lines[] = {
	"commtime --system S fit --trace FILE... [--workload W --tp N ...] [--save FILE]",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "fit",
	.lines = usage_lines,
	.about = "What a profiler trace measured, to start later predictions from: each\n"
		 "collective's median time against the system's model, gathered by tier\n"
		 "(intra, inter) and size (below 1 MiB, to 64 MiB, above), as the median,\n"
		 "lowest and highest ratio measured/predicted; with --workload and the run's\n"
		 "configuration, the step's kernel efficiency (FLOPs of the step on one GPU /\n"
		 "(peak x the union of its compute kernels)), median and range over steps and\n"
		 "ranks.  --save writes the system preset with these keys added; step and\n"
		 "search on that system then start from them and say so (models/trace.md).\n",
};

static const struct column ccols[] = {
	{ .key = "what", .label = "what", .type = COL_STR, .width = 24 },
	{ .key = "kinds", .label = "kinds", .type = COL_INT, .width = 5 },
	{ .key = "calls", .label = "calls", .type = COL_INT, .width = 6 },
	{ .key = "median", .label = "median", .type = COL_NUM, .human = H_PLAIN, .prec = 4, .width = 7 },
	{ .key = "low", .label = "low", .type = COL_NUM, .human = H_PLAIN, .prec = 4, .width = 7 },
	{ .key = "high", .label = "high", .type = COL_NUM, .human = H_PLAIN, .prec = 4, .width = 7 },
	{ .key = "key", .label = "saved as", .type = COL_STR },
};

static int S_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double S_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), S_dcmp);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct fit_cell {
	double *r;         /* measured/predicted of each kind, weighted by calls: one per kind */
	size_t n;
	double calls;
};

/* Each cell's measured/predicted of the collective kinds the trace timed. */
static void S_cells(const struct ctx *ctx, const struct cost_model *spec, const struct trace *t,
		    struct fit_cell *cells)
{
	size_t k;

	memset(cells, 0, TRACE_CELLS * sizeof(*cells));
	for (k = 0; k < t->nkinds; k++) {
		const struct trace_kind *kd = &t->kinds[k];
		double med = trace_kind_median(kd);
		struct group g = { .ranks = kd->ranks, .per_node = 0 };
		struct coll_cost cc;
		struct errbuf eb;
		int cell;

		if (kd->coll < 0 || !kd->ranks || isnan(kd->size_B) || isnan(med) || med <= 0 ||
		    kd->ranks < 2)
			continue;
		if (kd->stride && ctx->machine.system.gpus_per_node)
			g.per_node = step_per_node(kd->ranks, kd->stride, ctx->machine.system.gpus_per_node);
		if (cost_coll(spec, (enum coll_op)kd->coll,
			      cost_algo_preferred(spec, (enum coll_op)kd->coll), &g, kd->size_B,
			      &cc, &eb) < 0 || !(cc.time_s > 0))
			continue;
		cell = cost_calib_cell(cc.nodes > 1, kd->size_B);
		cells[cell].r = xrealloc(cells[cell].r, (cells[cell].n + 1) * sizeof(double));
		cells[cell].r[cells[cell].n++] = med / cc.time_s;
		cells[cell].calls += kd->count;
	}
}

/*
 * The kernel efficiency of each profiler step against the workload's
 * FLOPs: its median, low and high in mfu[0..2]; returns the step count.
 */
static size_t S_kernel_eff(struct ctx *ctx, const struct opt *options,
			   const struct cost_model *spec, struct trace_run *run,
			   const struct trace *t, double mfu[3])
{
	double *eff;
	size_t neff = 0, k;
	struct workload w;
	struct step_result r;
	struct step_compute cs = { 0, STEP_MFU, 0, NULL, 0, 0 };
	struct ctx_gpu gpu;
	struct errbuf eb;

	ctx_workload(ctx, run->workload, &w);
	trace_run_settle(ctx, run, &w, t, opts_given(options, "dp") != NULL);
	if (!ctx_gpu(ctx, NULL, NULL, &gpu) || !(gpu.peak_flops > 0))
		die("fit --trace: the system's GPU has no peak; the kernel efficiency needs one");
	cs.peak_flops = gpu.peak_flops;
	if (step_run(&w, &run->c, &cs, spec, STEP_BAND_NONE, &r, &eb) < 0)
		die("fit --trace: %s", eb.msg);
	eff = xmalloc((t->nsteps + 1) * sizeof(*eff));
	for (k = 0; k < t->nsteps; k++)
		if (t->steps[k].compute_s > 0)
			eff[neff++] = r.flops_hw / r.gpus / (gpu.peak_flops * t->steps[k].compute_s);
	if (neff == 0)
		die("fit --trace: no profiler step with compute kernels; the kernel efficiency "
		    "needs ProfilerStep annotations");
	mfu[0] = S_median(eff, neff);
	mfu[1] = eff[0];
	mfu[2] = eff[neff - 1];
	if (mfu[2] > 1)
		die("fit --trace: a kernel efficiency of %.3g is above 1: is --workload the model "
		    "the run trained, with its batch (--global-batch, --micro-batch, --seq)?",
		    mfu[2]);
	free(eff);
	return neff;
}

/* The trace's files and the table: each cell, then the kernel efficiency. */
static void S_table(const struct ctx *ctx, struct out *o, const struct trace *t,
		    const struct fit_cell *cells, const double mfu[3], size_t neff)
{
	struct table ct = { "trace_calibration", "measured against the model (time measured/predicted; "
			    "kernel efficiency)", ccols, sizeof(ccols) / sizeof(ccols[0]), 0 };
	int i;

	ctx_echo_link(ctx, o);
	for (i = 0; i < (int)t->nfiles && i < 16; i++) {
		static char keys[16][16];
		snprintf(keys[i], sizeof(keys[i]), i ? "trace_%d" : "trace", i);
		out_input_str(o, keys[i], "trace", t->files[i].path);
	}
	out_table_begin(o, &ct);
	for (i = 0; i < TRACE_CELLS; i++) {
		struct cell row[7];
		char key[64];

		if (cells[i].n == 0)
			continue;
		snprintf(key, sizeof(key), "trace_coll_%s", trace_calib_cell_name(i));
		memset(row, 0, sizeof(row));
		row[0].s = trace_calib_cell_name(i);
		row[1].x = (double)cells[i].n;
		row[2].x = cells[i].calls;
		row[3].x = S_median(cells[i].r, cells[i].n);
		row[4].x = cells[i].r[0];
		row[5].x = cells[i].r[cells[i].n - 1];
		row[6].s = key;
		out_row(o, row);
	}
	if (!isnan(mfu[0])) {
		struct cell row[7];
		memset(row, 0, sizeof(row));
		row[0].s = "kernel_efficiency";
		row[1].x = NAN;
		row[2].x = (double)neff;
		row[3].x = mfu[0];
		row[4].x = mfu[1];
		row[5].x = mfu[2];
		row[6].s = "trace_kernel_efficiency";
		out_row(o, row);
	}
	out_table_end(o);
	out_text(o, "collectives: median time measured/predicted of the kinds in each cell "
		 "(low, high: the extremes); kernel efficiency: per step and GPU");
}

/* The system saved as a preset with what the trace measured. */
static void S_save(const struct ctx *ctx, struct out *o, const char *save_path,
		   const char *save_name, const struct trace *t, int nfiles,
		   const struct fit_cell *cells, const double mfu[3])
{
	struct preset_kv kv[1 + 3 * TRACE_CELLS + 3];
	char val[1 + 3 * TRACE_CELLS + 3][200], comment[300];
	size_t n = 0;
	struct errbuf eb;
	int i;

#define KV(k, ...) (snprintf(val[n], sizeof(val[n]), __VA_ARGS__), \
	    kv[n].key = (char *)(k), kv[n].value = val[n], kv[n].line = 0, n++)
	static char keys[3 * TRACE_CELLS][48];
	static const char *const suf[3] = { "", "_lo", "_hi" };
	char *src = preset_text_clean(t->files[0].path, 150);

	KV("trace_source", "%d file%s, first %s", nfiles, nfiles == 1 ? "" : "s", src);
	free(src);
	for (i = 0; i < TRACE_CELLS; i++) {
		double v[3];
		int j;

		if (cells[i].n == 0)
			continue;
		v[0] = S_median(cells[i].r, cells[i].n);
		v[1] = cells[i].r[0];
		v[2] = cells[i].r[cells[i].n - 1];
		for (j = 0; j < 3; j++) {
			snprintf(keys[3 * i + j], sizeof(keys[0]), "trace_coll_%s%s",
				 trace_calib_cell_name(i), suf[j]);
			KV(keys[3 * i + j], "%.6g", v[j]);
		}
	}
	if (!isnan(mfu[0])) {
		KV("trace_kernel_efficiency", "%.6g", mfu[0]);
		KV("trace_kernel_efficiency_lo", "%.6g", mfu[1]);
		KV("trace_kernel_efficiency_hi", "%.6g", mfu[2]);
	}
#undef KV
	snprintf(comment, sizeof(comment), "%s calibrated by commtime fit --trace "
		 "(models/trace.md); every value resolved\n", ctx->machine.system.name);
	if (system_preset_write(save_path, save_name, &ctx->machine.system, comment, kv, n, &eb) < 0)
		die("%s", eb.msg);
	out_text(o, "saved the system with what the trace measured as '%s'", save_path);
}

int cmd_fit_trace(int argc, char **argv, struct ctx *ctx)
{
	struct trace t;
	struct trace_run run;
	const char *save_path = NULL, *name = NULL;
	int trace_flag = 0, nfiles, i;
	struct fit_cell cells[TRACE_CELLS];
	double mfu[3] = { NAN, NAN, NAN };
	size_t neff = 0;
	struct out *o;
	struct opt options[] = {
		OPT_GROUP_("the trace"),
		OPT_FLAG_("trace", &trace_flag, "read profiler traces, Inspector JSON or NCCL INFO lines"),
		OPT_FILE_("save", "FILE", &save_path,
			  "save the system preset with what the trace measured"),
		OPT_STRING_("name", "NAME", &name,
			    "name inside the saved preset (default: FILE's base name)"),
		OPTS_TRACE_RUN(&run),
		OPT_END_()
	};
	char *save_name = NULL;
	/* A trace is measured against the system's own model, never a calibration of it. */
	const struct cost_model *spec = ctx->machine.model.calib_of ? ctx->machine.model.calib_of : &ctx->machine.model;

	trace_run_init(&run);
	nfiles = opts_parse(argc, argv, options, &usage, 65536);
	if (nfiles < 1)
		die_usage("fit --trace needs trace files; see 'commtime fit --trace --help'");
	if (!ctx->machine.have_system)
		die_usage("fit --trace: give the system the run ran on (--system S)");
	if (save_path) {
		save_name = name ? xstrdup(name) : fit_preset_name_of(save_path);
		if (!preset_name_valid(save_name))
			die_usage("--save: '%s' is not a valid preset name (letters, digits, '-', '_', '.'); "
				  "give --name", save_name);
		if (!ctx->machine.system.path)
			die_usage("fit --trace --save: the system must come from a preset file, not options");
	}
	trace_init(&t);
	trace_cmd_load(&t, nfiles, argv, -1, NULL, NULL);
	S_cells(ctx, spec, &t, cells);
	if (run.workload)
		neff = S_kernel_eff(ctx, options, spec, &run, &t, mfu);

	o = ctx_out_open(ctx);
	S_table(ctx, o, &t, cells, mfu, neff);
	if (save_path)
		S_save(ctx, o, save_path, save_name, &t, nfiles, cells, mfu);
	ctx_out_close(ctx, o);
	for (i = 0; i < TRACE_CELLS; i++)
		free(cells[i].r);
	free(save_name);
	trace_release(&t);
	return EXIT_OK;
}
