/*
 * commtime ddp: how much of a data-parallel training step is gradient
 * all-reduce (models/ddp.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "step.h"
#include "train.h"
#include "workload.h"

static const char *const usage_lines[] = {
	"commtime ddp (--grad SIZE | --params N | --workload NAME) [--compute TIME] [options]",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "ddp",
	.lines = usage_lines,
	.about = "Time of the gradient all-reduce of one data-parallel step and its share\n"
		 "of the step: share = exposed / (compute + exposed).\n",
};

/*
 * Columns: the five of the contract first, then the extras; the bucket
 * columns show in the table only with --bucket, the target one only with
 * --target.
 */
enum { C_RANKS, C_COMM, C_EXPOSED, C_STEP, C_FRACTION, C_BUCKETS, C_BUCKET_B, C_BUCKET_S,
       C_TARGET, C_COUNT };
static const struct column columns[C_COUNT] = {
	[C_RANKS]    = { "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	[C_BUCKETS]  = { "buckets", "buckets", COL_INT, H_PLAIN, 0, NULL, 0, 7, COL_DATA_ONLY },
	[C_BUCKET_B] = { "bucket_B", "bucket", COL_NUM, H_SIZE, 0, NULL, 0, 0, COL_DATA_ONLY },
	[C_BUCKET_S] = { "bucket_s", "per bucket", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_DATA_ONLY },
	[C_COMM]     = { "comm_s", "all-reduce", COL_NUM, H_FIXED, 1e-3, "ms", 1, 10, COL_ALL },
	[C_EXPOSED]  = { "exposed_s", "exposed", COL_NUM, H_FIXED, 1e-3, "ms", 1, 10, COL_ALL },
	[C_STEP]     = { "step_s", "step", COL_NUM, H_FIXED, 1e-3, "ms", 1, 10, COL_ALL },
	[C_FRACTION] = { "fraction", "comm share", COL_NUM, H_PERCENT, 0, NULL, 1, 10, COL_ALL },
	[C_TARGET]   = { "target_beta_Bps", "beta for target", COL_NUM, H_RATE, 0, NULL, 4, 15, COL_ALL },
};

/*
 * The rank counts the figure spans: those asked, widened when they are
 * few, and with room on the right for the label of the last one.
 */
static void S_rank_span(const struct dlist *ranks, double *lo, double *hi, int *logx)
{
	size_t i;

	*lo = INFINITY;
	*hi = 0;
	for (i = 0; i < ranks->n; i++) {
		*lo = ranks->v[i] < *lo ? ranks->v[i] : *lo;
		*hi = ranks->v[i] > *hi ? ranks->v[i] : *hi;
	}
	/* One or two close rank counts draw no curve: show the neighbourhood. */
	if (*hi < 4 * *lo) {
		*lo = *lo / 4 < 1 ? 1 : floor(*lo / 4);
		*hi = *hi * 4;
	}
	*logx = *hi >= 8 * *lo;
	if (*logx)
		*hi = ceil(*hi * fmax(1.5, pow(*hi / *lo, 0.15)));
	else
		*hi = ceil(*hi + 0.2 * (*hi - *lo));
}

/*
 * The figure, against rank count in two panels.  Left: the step's time,
 * its compute, the all-reduce and (with overlap) the exposed part of it.
 * Right: the exposed share of the step, the asked rank counts marked with
 * their value, the --target share as a line.  The models are drawn at
 * every whole rank count (or a few hundred of them), so the steps of
 * ⌈log₂ n⌉ in tree-like algorithms show.
 */
/* Without the compute time: the gradient all-reduce alone against ranks. */
static void figure_comm(const struct ctx *ctx, const struct ddp_params *p,
			const struct dlist *ranks)
{
	struct figure f = { 0 };
	struct panel *pt;
	struct plot_series *comm;
	char title[400], link[128], grad[32], text[64];
	double lo, hi, grid[200], tmax = 0;
	size_t i, n;
	int logx;

	S_rank_span(ranks, &lo, &hi, &logx);
	n = plot_rank_grid(lo, hi, sizeof(grid) / sizeof(grid[0]), grid);
	units_fmt_size(grad, sizeof(grad), p->grad_bytes);
	snprintf(title, sizeof(title), "DDP gradient all-reduce: %s, %s; %s", grad,
		 coll_algo_name(p->algo), ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime ddp: time of the gradient all-reduce against ranks");
	pt = plot_add_panel(&f, NULL, "ranks", "time of the all-reduce");
	pt->xaxis = AX_PLAIN;
	pt->yaxis = AX_TIME;
	pt->logx = logx;
	pt->xmin = lo;
	pt->xmax = hi;
	pt->ymin = 0;
	comm = plot_add_series(pt, "all-reduce", PS_LINES);
	comm->color = 0;
	for (i = 0; i < n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->model, (unsigned long)grid[i], &s);
		plot_xy(comm, grid[i], s.comm_s);
		tmax = fmax(tmax, s.comm_s);
	}
	for (i = 0; i < ranks->n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->model, (unsigned long)ranks->v[i], &s);
		units_fmt_time(text, sizeof(text), s.comm_s, 4);
		plot_add_label(pt, ranks->v[i], s.comm_s, ranks->n <= 8 ? text : "", 1);
	}
	pt->ymax = tmax * 1.3;
	ctx_figure(ctx, &f);
	plot_release(&f);
}

static void S_figure(const struct ctx *ctx, const struct ddp_params *p,
		     const struct dlist *ranks, double target)
{
	struct figure f = { 0 };
	struct panel *pt, *ps;
	struct plot_series *step, *compute, *comm, *exposed = NULL, *share;
	char title[400], link[128], grad[32], comp[32], bucket[32], text[160];
	double lo, hi, grid[200], top = 0, tmax = 0;
	size_t i, n;
	int logx;

	S_rank_span(ranks, &lo, &hi, &logx);
	n = plot_rank_grid(lo, hi, sizeof(grid) / sizeof(grid[0]), grid);
	units_fmt_size(grad, sizeof(grad), p->grad_bytes);
	units_fmt_time(comp, sizeof(comp), p->compute, 3);
	if (p->bucket > 0)
		snprintf(text, sizeof(text), " in %s buckets",
			 units_fmt_size(bucket, sizeof(bucket), p->bucket));
	else
		text[0] = '\0';
	if (p->overlap > 0)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 ", %.3g %% of backward overlapped", p->overlap * 100);
	snprintf(title, sizeof(title), "DDP step: %s gradient, %s compute, %s all-reduce%s; %s",
		 grad, comp, coll_algo_name(p->algo), text, ctx_link_text(ctx, link, sizeof(link)));
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime ddp: time and communication share of a data-parallel "
			    "step against ranks");
	f.width = 1000;
	f.height = 430;

	pt = plot_add_panel(&f, "time of one training step", "ranks", "time per step");
	pt->xaxis = AX_PLAIN;
	pt->yaxis = AX_TIME;
	pt->logx = logx;
	pt->xmin = lo;
	pt->xmax = hi;
	pt->ymin = 0;
	/* Series first, pointers after: adding a series may move the others. */
	plot_add_series(pt, "step", PS_LINES)->color = 6;
	compute = plot_add_series(pt, "compute", PS_LINES);
	compute->color = 2;
	compute->dash = 1;
	plot_add_series(pt, p->overlap > 0 ? "all-reduce" : "all-reduce (all exposed)",
			PS_LINES)->color = 0;
	if (p->overlap > 0) {
		plot_add_series(pt, "exposed all-reduce", PS_LINES)->color = 1;
		exposed = &pt->series[3];
	}
	step = &pt->series[0];
	compute = &pt->series[1];
	comm = &pt->series[2];

	/* the series arrays stay put when the panels move */
	ps = plot_add_panel(&f, "communication share of the step", "ranks",
			    "exposed all-reduce / step");
	ps->xaxis = AX_PLAIN;
	ps->yaxis = AX_PERCENT;
	ps->logx = logx;
	ps->xmin = lo;
	ps->xmax = hi;
	ps->ymin = 0;
	ps->key = xstrdup("bottom right");
	share = plot_add_series(ps, NULL, PS_LINES);
	share->color = 1;

	for (i = 0; i < n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->model, (unsigned long)grid[i], &s);
		plot_xy(step, grid[i], s.step_s);
		plot_xy(compute, grid[i], p->compute);
		plot_xy(comm, grid[i], s.comm_s);
		if (exposed)
			plot_xy(exposed, grid[i], s.exposed_s);
		plot_xy(share, grid[i], 100 * s.fraction);
		top = 100 * s.fraction > top ? 100 * s.fraction : top;
		tmax = fmax(tmax, fmax(s.step_s, s.comm_s));
	}
	/* Headroom above the curves for the key. */
	f.panels[0].ymax = tmax * 1.3;
	/* The asked rank counts, with the share the table prints. */
	for (i = 0; i < ranks->n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->model, (unsigned long)ranks->v[i], &s);
		snprintf(text, sizeof(text), "%.1f %%", 100 * s.fraction);
		plot_add_label(ps, ranks->v[i], 100 * s.fraction, ranks->n <= 8 ? text : "", 1);
	}
	if (target > 0) {
		snprintf(text, sizeof(text), "target %.3g %%", 100 * target);
		plot_add_hline(ps, 100 * target, text);
		top = 100 * target > top ? 100 * target : top;
	}
	/* Room above the highest value for its label; a share stays below 100 %. */
	ps->ymax = top * 1.25 > 100 ? 100 : top > 0 ? top * 1.25 : 1;
	ctx_figure(ctx, &f);
	plot_release(&f);
}

int cmd_ddp(int argc, char **argv, struct ctx *ctx)
{
	struct ddp_params p;
	struct dlist ranks = { 0 };
	struct workload w;
	struct errbuf eb;
	struct column cols[C_COUNT];
	struct table t = { "ddp", NULL, cols, C_COUNT, 0 };
	struct out *o;
	struct workload_args wa = { 0 };
	const char *grad_arg = NULL;
	double params = 0, grad_bytes = STEP_GRAD_BYTES, target = 0;
	int have_compute, unreachable = 0;
	size_t i;
	char note[160], label[40];
	struct opt options[] = {
		OPT_GROUP_("the model"),
		OPT_POSITIVE_("grad", "SIZE", Q_SIZE, &p.grad_bytes,
			      "gradient reduced per step (14G = 14 GiB)"),
		OPTS_WORKLOAD(&wa),
		OPT_POSITIVE_("grad-bytes", "SIZE", Q_SIZE, &grad_bytes,
			      "bytes per gradient value with --params/--workload (default 4:\n"
			      "fp32, as mixed precision reduces them; models/step.md)"),
		OPT_GROUP_("the step"),
		OPT_POSITIVE_("compute", "TIME", Q_TIME, &p.compute,
			      "forward + backward time of one step on one rank; without\n"
			      "it, the all-reduce alone"),
		OPT_RANKS_("ranks", &ranks, "rank counts (default 8,16,64,256)"),
		{ .type = OPT_CALLBACK, .long_name = "algo", .argh = "NAME", .value = &p.algo,
		  .cb = opt_cb_algo, .complete = "ring tree dbtree rd rabenseifner",
		  .help = "all-reduce algorithm: ring (default), tree, dbtree, rd, rabenseifner" },
		OPT_POSITIVE_("bucket", "SIZE", Q_SIZE, &p.bucket,
			      "reduce in buckets of SIZE (PyTorch DDP default: 25MiB)"),
		OPT_SHARE_("overlap", "F", &p.overlap,
			   "share of backward that communication can hide behind,\n"
			   "0 to 1 or a percentage (default 0: nothing hidden)"),
		OPT_SHARE_("backward-share", "F", &p.backward_share,
			   "backward's share of the compute time (default 2/3)"),
		OPT_SHARE_("target", "SHARE", &target,
			   "also solve for the bandwidth that brings the share to SHARE (10%)"),
		OPT_END_()
	};

	ddp_params_init(&p);
	opts_parse(argc, argv, options, &usage, 0);
	grad_arg = opts_given(options, "grad");
	have_compute = opts_given(options, "compute") != NULL;
	if (opts_given(options, "backward-share") && !(p.backward_share > 0))
		die_usage("--backward-share: must be above 0, got '%s'",
			  opts_given(options, "backward-share"));
	if (opts_given(options, "bucket") && p.bucket < 1)
		die_usage("--bucket: a bucket holds at least one byte, got '%s'",
			  opts_given(options, "bucket"));
	if (opts_given(options, "target") && !(target > 0 && target < 1))
		die_usage("--target: share must be between 0 and 100%%, got '%s'",
			  opts_given(options, "target"));
	if (!!grad_arg + !!wa.params_arg + !!wa.workload != 1)
		die_usage("ddp: give the gradient with exactly one of --grad, --params or --workload");
	/* Without the compute time there is no step: the all-reduce alone. */
	if (!have_compute && (opts_given(options, "overlap") || opts_given(options, "target")))
		die_usage("ddp: %s needs the compute time of one step; give --compute (e.g. 300ms)",
			  opts_given(options, "overlap") ? "--overlap" : "--target");
	if (wa.workload || wa.params_arg)
		params = workload_args_params(ctx, &wa, &w);
	if (!grad_arg)
		p.grad_bytes = params * grad_bytes;
	if (!ranks.n) {
		static const double seed[] = { 8, 16, 64, 256 };

		for (i = 0; i < sizeof(seed) / sizeof(seed[0]); i++)
			dlist_push(&ranks, seed[i]);
	}
	if (ddp_check(&p, &eb) < 0)
		die_usage("ddp: %s", eb.msg);
	if (ctx->have_system && target > 0)
		die_usage("--target: solves for the beta of one link; not on a system");
	ctx_check_ranks(ctx, &ranks);

	memcpy(cols, columns, sizeof(cols));
	if (p.bucket > 0) {
		cols[C_BUCKETS].flags = cols[C_BUCKET_B].flags = COL_ALL;
		cols[C_BUCKET_S].flags = COL_ALL;
	}
	if (!(target > 0))
		t.ncols = C_TARGET;
	if (!have_compute)
		cols[C_EXPOSED].flags = cols[C_STEP].flags = cols[C_FRACTION].flags = COL_DATA_ONLY;
	{
		/* one unit for the times of the table, from the fastest to the slowest */
		struct time_unit u;
		double tmin = INFINITY, tmax = 0;

		for (i = 0; i < ranks.n; i++) {
			struct ddp_step s;

			ddp_step_cost(&p, &ctx->model, (unsigned long)ranks.v[i], &s);
			if (s.exposed_s > 0)
				tmin = fmin(tmin, s.exposed_s);
			if (s.comm_s > 0)
				tmin = fmin(tmin, s.comm_s);
			tmax = fmax(tmax, have_compute ? s.step_s : s.comm_s);
		}
		ctx_time_unit(ctx, tmin, tmax, UNIT_BY_LARGEST, &u);
		column_time_unit(&cols[C_COMM], &u);
		column_time_unit(&cols[C_EXPOSED], &u);
		column_time_unit(&cols[C_STEP], &u);
	}

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	if (wa.workload) {
		ctx_echo_workload(o, &w);
	} else if (wa.params_arg)
		out_input(o, "params", "parameters", params, H_PLAIN, 12,
			  workload_fmt_count(note, sizeof(note), params));
	if (!grad_arg) {
		snprintf(note, sizeof(note), "%.12g parameters x %g B", params, grad_bytes);
		out_input(o, "grad_B", "gradient", p.grad_bytes, H_SIZE, 4, note);
	} else
		out_input(o, "grad_B", "gradient", p.grad_bytes, H_SIZE, 4, NULL);
	if (have_compute)
		out_input(o, "compute_s", "compute", p.compute, H_TIME, 4,
			  "forward + backward, one step");
	else
		out_input_str(o, "compute", "compute",
			      "not given: the all-reduce alone (--compute TIME for the step)");
	out_input_str(o, "algo", "all-reduce", coll_algo_name(p.algo));
	if (p.bucket > 0) {
		snprintf(note, sizeof(note), "%.0f buckets per step",
			 p.bucket < p.grad_bytes ? ceil(p.grad_bytes / p.bucket) : 1);
		out_input(o, "bucket_B", "bucket", p.bucket, H_SIZE, 4, note);
	}
	if (p.overlap > 0) {
		snprintf(note, sizeof(note), "of backward, %.4g ms hidden at most",
			 p.overlap * p.backward_share * p.compute * 1e3);
		out_input(o, "overlap", "overlap", p.overlap, H_PERCENT, 1, note);
		out_input(o, "backward_share", "backward share", p.backward_share, H_PERCENT, 1,
			  "of compute");
	}
	if (target > 0) {
		out_input(o, "target", "target share", target, H_PERCENT, 1, NULL);
		snprintf(label, sizeof(label), "beta for %.4g %%", target * 100);
		cols[C_TARGET].label = label;
	}

	out_table_begin(o, &t);
	for (i = 0; i < ranks.n; i++) {
		unsigned long n = (unsigned long)ranks.v[i];
		struct ddp_step s;
		struct cell row[C_COUNT];
		enum target_result tr = TARGET_FOUND;
		double beta = NAN;

		ddp_step_cost(&p, &ctx->model, n, &s);
		if (target > 0) {
			if (ddp_target_beta(&p, &ctx->model.link, n, target, &tr, &beta, &eb) < 0) {
				out_abort(o);
				die("ddp: %s", eb.msg);
			}
			if (tr == TARGET_UNREACHABLE) {
				beta = NAN;
				unreachable++;
			} else if (tr == TARGET_ANY)
				beta = TARGET_BETA_LO;
		}
		memset(row, 0, sizeof(row));
		row[C_RANKS].x = (double)n;
		row[C_BUCKETS].x = s.buckets;
		row[C_BUCKET_B].x = s.bucket_bytes;
		row[C_BUCKET_S].x = s.bucket_s;
		row[C_COMM].x = s.comm_s;
		row[C_EXPOSED].x = s.exposed_s;
		row[C_STEP].x = s.step_s;
		row[C_FRACTION].x = s.fraction;
		row[C_TARGET].x = beta;
		if (target > 0 && tr == TARGET_UNREACHABLE && out_get_format(o) == FMT_TABLE)
			row[C_TARGET].s = "unreachable";
		out_row(o, row);
	}
	out_table_end(o);

	if (unreachable) {
		/* Say why: with infinite bandwidth only the latency terms are left. */
		for (i = 0; i < ranks.n; i++) {
			struct link inf = ctx->model.link;
			struct ddp_step s;
			enum target_result tr;
			double beta;

			if (ddp_target_beta(&p, &ctx->model.link, (unsigned long)ranks.v[i], target,
					    &tr, &beta, &eb) < 0 || tr != TARGET_UNREACHABLE)
				continue;
			inf.beta = INFINITY;
			ddp_step(&p, &inf, (unsigned long)ranks.v[i], &s);
			out_text(o, "at %lu ranks no bandwidth reaches %.4g %%: latency alone "
				 "takes %.1f ms, %.1f %% of the step",
				 (unsigned long)ranks.v[i], target * 100, s.exposed_s * 1e3,
				 s.fraction * 100);
		}
	}
	if (ctx_wants_figure(ctx) && have_compute)
		S_figure(ctx, &p, &ranks, target);
	else if (ctx_wants_figure(ctx))
		figure_comm(ctx, &p, &ranks);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	return EXIT_OK;
}
