/*
 * commtime ddp: how much of a data-parallel training step is gradient
 * all-reduce (models/ddp.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ddp_cmd.h"
#include "step.h"
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
	[C_RANKS]    = { .key = "ranks", .label = "ranks", .type = COL_INT, .width = 5 },
	[C_BUCKETS]  = { .key = "buckets", .label = "buckets", .type = COL_INT, .width = 7,
		  .flags = COL_DATA_ONLY },
	[C_BUCKET_B] = { .key = "bucket_B", .label = "bucket", .type = COL_NUM, .human = H_SIZE,
		  .flags = COL_DATA_ONLY },
	[C_BUCKET_S] = { .key = "bucket_s", .label = "per bucket", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10, .flags = COL_DATA_ONLY },
	[C_COMM]     = { .key = "comm_s", .label = "all-reduce", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1e-3, .suffix = "ms", .prec = 1, .width = 10 },
	[C_EXPOSED]  = { .key = "exposed_s", .label = "exposed", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1e-3, .suffix = "ms", .prec = 1, .width = 10 },
	[C_STEP]     = { .key = "step_s", .label = "step", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1e-3, .suffix = "ms", .prec = 1, .width = 10 },
	[C_FRACTION] = { .key = "fraction", .label = "comm share", .type = COL_NUM, .human = H_PERCENT,
		  .prec = 1, .width = 10 },
	[C_TARGET]   = { .key = "target_beta_Bps", .label = "beta for target", .type = COL_NUM,
		  .human = H_RATE, .prec = 4, .width = 15 },
};

/* One unit for the times of the table, from the fastest to the slowest. */
static void S_units(const struct ctx *ctx, const struct ddp_params *p, const struct dlist *ranks,
		    int have_compute, struct column *cols)
{
	struct time_unit u;
	double tmin = INFINITY, tmax = 0;
	size_t i;

	for (i = 0; i < ranks->n; i++) {
		struct ddp_step s;

		ddp_step_cost(p, &ctx->machine.model, (unsigned long)ranks->v[i], &s);
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

/* What the step was given, above the table; the target column's label. */
static void S_echo(const struct ctx *ctx, struct out *o, const struct ddp_params *p,
		   const struct workload_args *wa, const struct workload *w, double params,
		   double grad_bytes, const char *grad_arg, int have_compute, double target,
		   struct column *cols, char *label, size_t llen)
{
	char note[160];

	ctx_echo_link(ctx, o);
	if (wa->workload) {
		ctx_echo_workload(o, w);
	} else if (wa->params_arg)
		out_input(o, "params", "parameters", params, H_PLAIN, 12,
			  workload_fmt_count(note, sizeof(note), params));
	if (!grad_arg) {
		snprintf(note, sizeof(note), "%.12g parameters x %g B", params, grad_bytes);
		out_input(o, "grad_B", "gradient", p->grad_bytes, H_SIZE, 4, note);
	} else
		out_input(o, "grad_B", "gradient", p->grad_bytes, H_SIZE, 4, NULL);
	if (have_compute)
		out_input(o, "compute_s", "compute", p->compute, H_TIME, 4,
			  "forward + backward, one step");
	else
		out_input_str(o, "compute", "compute",
			      "not given: the all-reduce alone (--compute TIME for the step)");
	out_input_str(o, "algo", "all-reduce", cost_algo_label(&ctx->machine.model, p->algo));
	if (p->bucket > 0) {
		snprintf(note, sizeof(note), "%.0f buckets per step",
			 p->bucket < p->grad_bytes ? ceil(p->grad_bytes / p->bucket) : 1);
		out_input(o, "bucket_B", "bucket", p->bucket, H_SIZE, 4, note);
	}
	if (p->overlap > 0) {
		snprintf(note, sizeof(note), "of backward, %.4g ms hidden at most",
			 p->overlap * p->backward_share * p->compute * 1e3);
		out_input(o, "overlap", "overlap", p->overlap, H_PERCENT, 1, note);
		out_input(o, "backward_share", "backward share", p->backward_share, H_PERCENT, 1,
			  "of compute");
	}
	if (target > 0) {
		out_input(o, "target", "target share", target, H_PERCENT, 1, NULL);
		snprintf(label, llen, "beta for %.4g %%", target * 100);
		cols[C_TARGET].label = label;
	}
}

/* Why a target share is out of reach: with infinite bandwidth only the latency is left. */
static void S_unreachable(const struct ctx *ctx, struct out *o, const struct ddp_params *p,
			  const struct dlist *ranks, double target)
{
	struct errbuf eb;
	size_t i;

	for (i = 0; i < ranks->n; i++) {
		struct link inf = ctx->machine.model.link;
		struct ddp_step s;
		enum target_result tr;
		double beta;

		if (ddp_target_beta(p, &ctx->machine.model.link, (unsigned long)ranks->v[i], target,
				    &tr, &beta, &eb) < 0 || tr != TARGET_UNREACHABLE)
			continue;
		inf.beta = INFINITY;
		ddp_step(p, &inf, (unsigned long)ranks->v[i], &s);
		out_text(o, "at %lu ranks no bandwidth reaches %.4g %%: latency alone "
			 "takes %.1f ms, %.1f %% of the step",
			 (unsigned long)ranks->v[i], target * 100, s.exposed_s * 1e3,
			 s.fraction * 100);
	}
}

/* The checks of the options among themselves, once parsed. */
static void S_check(const struct opt *options, const struct ddp_params *p,
		    const struct workload_args *wa, const char *grad_arg, int have_compute,
		    double target)
{
	if (opts_given(options, "backward-share") && !(p->backward_share > 0))
		die_usage("--backward-share: must be above 0, got '%s'",
			  opts_given(options, "backward-share"));
	if (opts_given(options, "bucket") && p->bucket < 1)
		die_usage("--bucket: a bucket holds at least one byte, got '%s'",
			  opts_given(options, "bucket"));
	if (opts_given(options, "target") && !(target > 0 && target < 1))
		die_usage("--target: share must be between 0 and 100%%, got '%s'",
			  opts_given(options, "target"));
	if (!!grad_arg + !!wa->params_arg + !!wa->workload != 1)
		die_usage("ddp: give the gradient with exactly one of --grad, --params or --workload");
	/* Without the compute time there is no step: the all-reduce alone. */
	if (!have_compute && (opts_given(options, "overlap") || opts_given(options, "target")))
		die_usage("ddp: %s needs the compute time of one step; give --compute (e.g. 300ms)",
			  opts_given(options, "overlap") ? "--overlap" : "--target");
}

/* Which columns show: the bucket ones with --bucket, the target one with --target. */
static void S_columns(const struct ctx *ctx, const struct ddp_params *p,
		      const struct dlist *ranks, int have_compute, double target,
		      struct column *cols, struct table *t)
{
	memcpy(cols, columns, sizeof(columns));
	if (p->bucket > 0) {
		cols[C_BUCKETS].flags = cols[C_BUCKET_B].flags = COL_ALL;
		cols[C_BUCKET_S].flags = COL_ALL;
	}
	if (!(target > 0))
		t->ncols = C_TARGET;
	if (!have_compute)
		cols[C_EXPOSED].flags = cols[C_STEP].flags = cols[C_FRACTION].flags = COL_DATA_ONLY;
	S_units(ctx, p, ranks, have_compute, cols);
}

/* The table, one row per rank count; returns how many miss the target share. */
static int S_rows(struct ctx *ctx, struct out *o, const struct ddp_params *p,
		  const struct dlist *ranks, double target, const struct table *t)
{
	struct errbuf eb;
	int unreachable = 0;
	size_t i;

	out_table_begin(o, t);
	for (i = 0; i < ranks->n; i++) {
		unsigned long n = (unsigned long)ranks->v[i];
		struct ddp_step s;
		struct cell row[C_COUNT];
		enum target_result tr = TARGET_FOUND;
		double beta = NAN;

		ddp_step_cost(p, &ctx->machine.model, n, &s);
		if (target > 0) {
			if (ddp_target_beta(p, &ctx->machine.model.link, n, target, &tr, &beta, &eb) < 0) {
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
	return unreachable;
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
	double params = 0, grad_bytes = DDP_GRAD_BYTES, target = 0;
	int have_compute, unreachable = 0;
	size_t i;
	char label[40];
	struct opt options[] = {
		OPT_GROUP_("the model"),
		OPT_POSITIVE_("grad", "SIZE", Q_SIZE, &p.grad_bytes,
			      "gradient reduced per step (14G = 14 GiB)"),
		OPTS_WORKLOAD(&wa),
		OPT_POSITIVE_("grad-bytes", "SIZE", Q_SIZE, &grad_bytes,
			      "bytes per gradient value with --params/--workload (default 2:\n"
			      "bf16, as the seed reduces them; models/ddp.md)"),
		OPT_GROUP_("the step"),
		OPT_POSITIVE_("compute", "TIME", Q_TIME, &p.compute,
			      "forward + backward time of one step on one rank; without\n"
			      "it, the all-reduce alone"),
		OPT_RANKS_("ranks", &ranks, "rank counts (default 8,16,64,256)"),
		{ .type = OPT_CALLBACK, .long_name = "algo", .argh = "NAME", .value = &p.algo,
		  .cb = opt_cb_algo, .arg = ctx_algo_model(ctx), .complete = "ring tree dbtree rd rabenseifner",
		  .help = "all-reduce algorithm: ring (default), tree, dbtree, rd,\n"
			  "rabenseifner; on a system the model's names, and by default\n"
			  "its own choice per size" },
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
	p.algo = cost_algo_preferred(&ctx->machine.model, OP_ALLREDUCE);
	opts_parse(argc, argv, options, &usage, 0);
	grad_arg = opts_given(options, "grad");
	have_compute = opts_given(options, "compute") != NULL;
	S_check(options, &p, &wa, grad_arg, have_compute, target);
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
	if (ctx->machine.have_system && target > 0)
		die_usage("--target: solves for the beta of one link; not on a system");
	ctx_check_ranks(ctx, &ranks);

	S_columns(ctx, &p, &ranks, have_compute, target, cols, &t);

	o = ctx_out_open(ctx);
	S_echo(ctx, o, &p, &wa, &w, params, grad_bytes, grad_arg, have_compute, target, cols,
	       label, sizeof(label));

	unreachable = S_rows(ctx, o, &p, &ranks, target, &t);

	if (unreachable)
		S_unreachable(ctx, o, &p, &ranks, target);
	if (ctx_wants_figure(ctx))
		ddp_figure(ctx, &p, &ranks, target, have_compute);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	return EXIT_OK;
}
