/*
 * commtime ddp: how much of a data-parallel training step is gradient
 * all-reduce (models/ddp.md).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "train.h"
#include "workload.h"

static const char usage[] =
	"usage: commtime ddp (--grad SIZE | --params N | --workload NAME) --compute TIME [options]\n"
	"\n"
	"Time of the gradient all-reduce of one data-parallel step and its share\n"
	"of the step: share = exposed / (compute + exposed).\n"
	"\n"
	"  --grad SIZE            gradient reduced per step (14G = 14 GiB)\n"
	"  --params N             parameter count (7.5e9, 6.74B); gradient = N x --grad-bytes\n"
	"  --grad-bytes SIZE      bytes per gradient value with --params/--workload (default 2, bf16)\n"
	"  --workload NAME        parameter count from a workload preset (llama2-7b, ...)\n"
	"  --compute TIME         forward + backward time of one step on one rank\n"
	"  --ranks LIST           rank counts (default 8,16,64,256)\n"
	"  --algo NAME            all-reduce algorithm: ring (default), tree, dbtree, rd, rabenseifner\n"
	"  --bucket SIZE          reduce in buckets of SIZE (PyTorch DDP default: 25MiB)\n"
	"  --overlap F            share of backward that communication can hide behind,\n"
	"                         0 to 1 or a percentage (default 0: nothing hidden)\n"
	"  --backward-share F     backward's share of the compute time (default 2/3)\n"
	"  --target SHARE         also solve for the bandwidth that brings the share to SHARE (10%)\n"
	"  -h, --help             show this text\n";

enum { O_GRAD = 256, O_PARAMS, O_GRAD_BYTES, O_WORKLOAD, O_COMPUTE, O_RANKS, O_ALGO,
       O_BUCKET, O_OVERLAP, O_BACKWARD, O_TARGET };

static const struct option options[] = {
	{ "grad", required_argument, NULL, O_GRAD },
	{ "params", required_argument, NULL, O_PARAMS },
	{ "grad-bytes", required_argument, NULL, O_GRAD_BYTES },
	{ "workload", required_argument, NULL, O_WORKLOAD },
	{ "compute", required_argument, NULL, O_COMPUTE },
	{ "ranks", required_argument, NULL, O_RANKS },
	{ "algo", required_argument, NULL, O_ALGO },
	{ "bucket", required_argument, NULL, O_BUCKET },
	{ "overlap", required_argument, NULL, O_OVERLAP },
	{ "backward-share", required_argument, NULL, O_BACKWARD },
	{ "target", required_argument, NULL, O_TARGET },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
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

/* A share: "0.5" or "50%"; dies (exit 2) outside [lo, hi]. */
static double S_share(const char *opt, const char *arg, double lo, double hi)
{
	struct errbuf eb;
	double x;

	if (units_parse_fraction(arg, &x, &eb) < 0)
		die_usage("%s: %s", opt, eb.msg);
	if (!(x >= lo && x <= hi))
		die_usage("%s: '%s' is out of range [%g, %g]", opt, arg, lo, hi);
	return x;
}

/* Parameter count of a workload preset, echoing it. */
static double S_workload(struct ctx *ctx, const char *name, struct workload *w)
{
	struct errbuf eb;
	struct preset p;

	if (preset_load(&ctx->dirs, name, &p, &eb) < 0)
		die("--workload: %s", eb.msg);
	if (workload_from_preset(&p, w, &eb) < 0) {
		preset_release(&p);
		die("--workload: %s", eb.msg);
	}
	preset_release(&p);
	return workload_params(w);
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
	const char *grad_arg = NULL, *params_arg = NULL, *workload_arg = NULL;
	double params = 0, grad_bytes = 2, target = 0;
	int c, have_compute = 0, unreachable = 0;
	size_t i;
	char note[160], label[40];

	ddp_params_init(&p);
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case O_GRAD:
			grad_arg = optarg;
			p.grad_bytes = opt_quantity("--grad", Q_SIZE, optarg);
			if (!(p.grad_bytes > 0))
				die_usage("--grad: gradient size must be positive, got '%s'", optarg);
			break;
		case O_PARAMS:
			params_arg = optarg;
			if (workload_parse_count(optarg, &params, &eb) < 0)
				die_usage("--params: %s", eb.msg);
			break;
		case O_GRAD_BYTES:
			grad_bytes = opt_quantity("--grad-bytes", Q_SIZE, optarg);
			if (!(grad_bytes > 0))
				die_usage("--grad-bytes: must be positive, got '%s'", optarg);
			break;
		case O_WORKLOAD:
			workload_arg = optarg;
			break;
		case O_COMPUTE:
			p.compute = opt_quantity("--compute", Q_TIME, optarg);
			if (!(p.compute > 0))
				die_usage("--compute: compute time must be positive, got '%s'", optarg);
			have_compute = 1;
			break;
		case O_RANKS:
			opt_ranks("--ranks", optarg, &ranks, 1);
			break;
		case O_ALGO:
			if (ar_algo_lookup(optarg, &p.algo, &eb) < 0)
				die_usage("--algo: %s", eb.msg);
			break;
		case O_BUCKET:
			p.bucket = opt_quantity("--bucket", Q_SIZE, optarg);
			if (!(p.bucket > 0))
				die_usage("--bucket: bucket size must be positive, got '%s'", optarg);
			break;
		case O_OVERLAP:
			p.overlap = S_share("--overlap", optarg, 0, 1);
			break;
		case O_BACKWARD:
			p.backward_share = S_share("--backward-share", optarg, 0, 1);
			if (!(p.backward_share > 0))
				die_usage("--backward-share: must be above 0, got '%s'", optarg);
			break;
		case O_TARGET:
			target = S_share("--target", optarg, 0, 1);
			if (!(target > 0 && target < 1))
				die_usage("--target: share must be between 0 and 100%%, got '%s'", optarg);
			break;
		case 'h':
			usage_exit(usage, 0);
		default:
			usage_exit(usage, 2);
		}
	}
	no_more_args(argc, argv, optind, usage);
	if (ctx->plot || ctx->render)
		warning("ddp: --plot and --render are not available for this command yet");
	if (!!grad_arg + !!params_arg + !!workload_arg != 1)
		die_usage("ddp: give the gradient with exactly one of --grad, --params or --workload");
	if (!have_compute)
		die_usage("ddp: give the compute time of one step with --compute (e.g. 300ms)");
	if (workload_arg)
		params = S_workload(ctx, workload_arg, &w);
	if (!grad_arg)
		p.grad_bytes = params * grad_bytes;
	if (!ranks.n) {
		static const double seed[] = { 8, 16, 64, 256 };

		for (i = 0; i < sizeof(seed) / sizeof(seed[0]); i++)
			dlist_push(&ranks, seed[i]);
	}
	if (ddp_check(&p, &eb) < 0)
		die_usage("ddp: %s", eb.msg);

	memcpy(cols, columns, sizeof(cols));
	if (p.bucket > 0) {
		cols[C_BUCKETS].flags = cols[C_BUCKET_B].flags = COL_ALL;
		cols[C_BUCKET_S].flags = COL_ALL;
	}
	if (!(target > 0))
		t.ncols = C_TARGET;

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	if (workload_arg) {
		out_input_str(o, "workload", "workload", w.name);
		out_input(o, "params", "parameters", params, H_PLAIN, 12,
			  workload_describe(note, sizeof(note), &w));
	} else if (params_arg)
		out_input(o, "params", "parameters", params, H_PLAIN, 12,
			  workload_fmt_count(note, sizeof(note), params));
	if (!grad_arg) {
		snprintf(note, sizeof(note), "%.12g parameters x %g B", params, grad_bytes);
		out_input(o, "grad_B", "gradient", p.grad_bytes, H_SIZE, 4, note);
	} else
		out_input(o, "grad_B", "gradient", p.grad_bytes, H_SIZE, 4, NULL);
	out_input(o, "compute_s", "compute", p.compute, H_TIME, 4, "forward + backward, one step");
	out_input_str(o, "algo", "all-reduce", ar_algo_name(p.algo));
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

		ddp_step(&p, &ctx->link, n, &s);
		if (target > 0) {
			if (ddp_target_beta(&p, &ctx->link, n, target, &tr, &beta, &eb) < 0) {
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
			struct link inf = ctx->link;
			struct ddp_step s;
			enum target_result tr;
			double beta;

			if (ddp_target_beta(&p, &ctx->link, (unsigned long)ranks.v[i], target,
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
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	return EXIT_OK;
}
