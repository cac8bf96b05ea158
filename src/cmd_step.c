/*
 * commtime step: one training step of a workload under a parallel
 * configuration — the ledger of its collectives, step time and memory per
 * GPU (models/step.md).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "step.h"
#include "workload.h"

static const char usage[] =
	"usage: commtime step --workload NAME [options]\n"
	"\n"
	"The collectives of one training step on one middle pipeline stage, one row\n"
	"per kind (per micro-batch for tp, cp, ep, pp; per step for dp), the step\n"
	"time when compute is known, and memory per GPU.\n"
	"\n"
	"  --workload NAME        model shape from a workload preset (gpt3-175b, ...)\n"
	"  --tp N --pp N --dp N   tensor, pipeline, data-parallel sizes (default 1)\n"
	"  --cp N --ep N          context-parallel (ring attention) and expert-parallel sizes\n"
	"  --zero N               ZeRO stage 0-3 over the data-parallel ranks (default 0)\n"
	"  --sequence-parallel    Megatron sequence parallelism in the tensor-parallel group\n"
	"  --micro-batch N        sequences per micro-batch (default 1)\n"
	"  --global-batch N       sequences per step (default dp x micro-batch)\n"
	"  --seq N                sequence length (default the workload's)\n"
	"  --recompute MODE       activation recomputation: none (default), selective, full\n"
	"  --schedule NAME        pipeline schedule: 1f1b (default), gpipe, interleaved\n"
	"  --virtual-stages V     model chunks per stage of the interleaved schedule\n"
	"  --grad-bytes SIZE      bytes per gradient value reduced (default 4, fp32)\n"
	"  --capacity F           MoE capacity factor (default 1)\n"
	"  --compute TIME         compute of one step on one GPU (instead of a peak)\n"
	"  --peak RATE            dense bf16 peak of one GPU in FLOP/s (312e12)\n"
	"  --mfu F                share of the peak the math reaches (default 0.5)\n"
	"  --gpu-memory SIZE      memory of one GPU, to say whether the step fits (80GB)\n"
	"  --explain              say where each row comes from and what overlaps\n"
	"  -h, --help             show this text\n";

enum { O_WORKLOAD = 256, O_TP, O_PP, O_DP, O_CP, O_EP, O_ZERO, O_SP, O_MB, O_GB, O_SEQ,
       O_RECOMPUTE, O_SCHEDULE, O_VIRT, O_GRAD_BYTES, O_CAPACITY, O_COMPUTE, O_PEAK, O_MFU,
       O_GPU_MEMORY, O_EXPLAIN };

static const struct option options[] = {
	{ "workload", required_argument, NULL, O_WORKLOAD },
	{ "tp", required_argument, NULL, O_TP },
	{ "pp", required_argument, NULL, O_PP },
	{ "dp", required_argument, NULL, O_DP },
	{ "cp", required_argument, NULL, O_CP },
	{ "ep", required_argument, NULL, O_EP },
	{ "zero", required_argument, NULL, O_ZERO },
	{ "sequence-parallel", no_argument, NULL, O_SP },
	{ "micro-batch", required_argument, NULL, O_MB },
	{ "global-batch", required_argument, NULL, O_GB },
	{ "seq", required_argument, NULL, O_SEQ },
	{ "recompute", required_argument, NULL, O_RECOMPUTE },
	{ "schedule", required_argument, NULL, O_SCHEDULE },
	{ "virtual-stages", required_argument, NULL, O_VIRT },
	{ "grad-bytes", required_argument, NULL, O_GRAD_BYTES },
	{ "capacity", required_argument, NULL, O_CAPACITY },
	{ "compute", required_argument, NULL, O_COMPUTE },
	{ "peak", required_argument, NULL, O_PEAK },
	{ "mfu", required_argument, NULL, O_MFU },
	{ "gpu-memory", required_argument, NULL, O_GPU_MEMORY },
	{ "explain", no_argument, NULL, O_EXPLAIN },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* The ledger: the eight columns of the contract, then the extras. */
enum { C_DIM, C_PHASE, C_OP, C_COUNT_, C_BYTES, C_TIER, C_TIME, C_EXPOSED, C_RANKS,
       C_PER_NODE, C_ONE, C_NCOLS };
static const struct column columns[C_NCOLS] = {
	[C_DIM]      = { "dim", "dim", COL_STR, H_PLAIN, 0, NULL, 0, 3, COL_ALL },
	[C_PHASE]    = { "phase", "phase", COL_STR, H_PLAIN, 0, NULL, 0, 9, COL_ALL },
	[C_OP]       = { "op", "collective", COL_STR, H_PLAIN, 0, NULL, 0, 14, COL_ALL },
	[C_COUNT_]   = { "count", "count", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	[C_BYTES]    = { "bytes_B", "size", COL_NUM, H_SIZE, 0, NULL, 0, 10, COL_ALL },
	[C_TIER]     = { "tier", "tier", COL_STR, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	[C_TIME]     = { "time_s", "time", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
	[C_EXPOSED]  = { "exposed_s", "exposed", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
	[C_RANKS]    = { "ranks", "ranks", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	[C_PER_NODE] = { "per_node", "per node", COL_INT, H_PLAIN, 0, NULL, 0, 8, COL_DATA_ONLY },
	[C_ONE]      = { "one_s", "each", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
};

/* The first and last stages' own rows; secondary. */
enum { E_STAGE, E_DIM, E_PHASE, E_OP, E_COUNT, E_BYTES, E_TIER, E_TIME, E_NCOLS };
static const struct column ecols[E_NCOLS] = {
	[E_STAGE] = { "stage", "stage", COL_STR, H_PLAIN, 0, NULL, 0, 10, COL_ALL },
	[E_DIM]   = { "dim", "dim", COL_STR, H_PLAIN, 0, NULL, 0, 3, COL_ALL },
	[E_PHASE] = { "phase", "phase", COL_STR, H_PLAIN, 0, NULL, 0, 9, COL_ALL },
	[E_OP]    = { "op", "collective", COL_STR, H_PLAIN, 0, NULL, 0, 14, COL_ALL },
	[E_COUNT] = { "count", "count", COL_INT, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	[E_BYTES] = { "bytes_B", "size", COL_NUM, H_SIZE, 0, NULL, 0, 10, COL_ALL },
	[E_TIER]  = { "tier", "tier", COL_STR, H_PLAIN, 0, NULL, 0, 5, COL_ALL },
	[E_TIME]  = { "time_s", "time", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
};

/* The step, one row; secondary (not in CSV). */
enum { T_COMPUTE, T_EXPOSED, T_BUBBLE, T_DP, T_STEP, T_TOKENS, T_MFU, T_NCOLS };
static const struct column tcols[T_NCOLS] = {
	[T_COMPUTE] = { "compute_s", "compute", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
	[T_EXPOSED] = { "mb_exposed_s", "comm/mb", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
	[T_BUBBLE]  = { "bubble_s", "bubble", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
	[T_DP]      = { "dp_s", "dp", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
	[T_STEP]    = { "step_s", "step", COL_NUM, H_TIME, 0, NULL, 4, 10, COL_ALL },
	[T_TOKENS]  = { "tokens_per_s", "tokens/s", COL_NUM, H_FIXED, 1, NULL, 0, 10, COL_ALL },
	[T_MFU]     = { "mfu", "MFU", COL_NUM, H_PERCENT, 0, NULL, 1, 6, COL_ALL },
};

/* Memory per GPU of the most loaded stage, one row; secondary. */
enum { M_WEIGHTS, M_GRADS, M_OPTIM, M_ACT, M_TOTAL, M_CAP, M_FITS, M_NCOLS };
static const struct column mcols[M_NCOLS] = {
	[M_WEIGHTS] = { "weights_B", "weights", COL_NUM, H_SIZE, 0, NULL, 0, 10, COL_ALL },
	[M_GRADS]   = { "grads_B", "grads", COL_NUM, H_SIZE, 0, NULL, 0, 10, COL_ALL },
	[M_OPTIM]   = { "optimizer_B", "optimizer", COL_NUM, H_SIZE, 0, NULL, 0, 10, COL_ALL },
	[M_ACT]     = { "activations_B", "activations", COL_NUM, H_SIZE, 0, NULL, 0, 11, COL_ALL },
	[M_TOTAL]   = { "memory_B", "total", COL_NUM, H_SIZE, 0, NULL, 0, 10, COL_ALL },
	[M_CAP]     = { "gpu_memory_B", "GPU", COL_NUM, H_SIZE, 0, NULL, 0, 10, COL_ALL },
	[M_FITS]    = { "fits", "fits", COL_STR, H_PLAIN, 0, NULL, 0, 4, COL_ALL },
};

/* The collective times, from the machine the global options describe. */
static int S_coll(void *arg, enum coll_op op, unsigned long ranks, unsigned long per_node,
		  double bytes, struct step_coll *out, struct errbuf *eb)
{
	const struct ctx *ctx = arg;

	(void)per_node;
	out->tier = "link";
	switch (op) {
	case OP_ALLREDUCE:
		out->time_s = ar_time(AR_RING, &ctx->link, ranks, bytes);
		return 0;
	case OP_ALLGATHER:
		out->time_s = ag_ring_time(&ctx->link, ranks, bytes);
		return 0;
	case OP_REDUCESCATTER:
		out->time_s = rs_ring_time(&ctx->link, ranks, bytes);
		return 0;
	default:
		return errbuf_set(eb, "no model of %s yet", coll_op_name(op));
	}
}

/* A whole number >= lo for a size option. */
static unsigned long S_count(const char *opt, const char *arg, double lo)
{
	double x = opt_quantity_range(opt, Q_NUMBER, arg, lo, 1e15);

	if (x != floor(x))
		die_usage("%s: expected a whole number, got '%s'", opt, arg);
	return (unsigned long)x;
}

static void S_explain(struct out *o, const struct workload *w, const struct step_config *c,
		      const struct step_result *r)
{
	int i;

	out_text(o, "Ranks are placed as Megatron-LM places them: tp fastest, then cp, ep, dp, pp,");
	out_text(o, "so a tensor-parallel group stays inside one node when it fits.");
	out_text(o, "Per micro-batch on one stage of %.15g layers:", r->layers);
	for (i = 0; i < r->nrows; i++) {
		const struct step_row *row = &r->rows[i];
		char one[32], tot[32], sz[32];

		units_fmt_time(one, sizeof(one), row->one_s, 4);
		units_fmt_time(tot, sizeof(tot), row->time_s, 4);
		units_fmt_size(sz, sizeof(sz), row->bytes);
		out_text(o, "  %s %s: %.15g x %s of %s on %lu ranks (%lu per node, %s) = %s",
			 step_dim_name(row->dim), step_phase_name(row->phase), row->count,
			 coll_op_name(row->op), sz, row->ranks, row->per_node, row->tier, tot);
		(void)one;
	}
	out_text(o, "Overlap: tp, ep and pp collectives and the dp collectives are exposed;");
	out_text(o, "each cp ring step hides behind the attention of one block.");
	if (!isnan(r->step_s)) {
		char a[32], b[32], d[32], s[32];

		units_fmt_time(a, sizeof(a), r->mb_compute_s, 4);
		units_fmt_time(b, sizeof(b), r->mb_exposed_s, 4);
		units_fmt_time(d, sizeof(d), r->dp_exposed_s, 4);
		units_fmt_time(s, sizeof(s), r->step_s, 4);
		out_text(o, "step = (m + (p-1)/v) x (compute + exposed comm per micro-batch) + dp");
		out_text(o, "     = (%.15g + %.15g) x (%s + %s) + %s = %s", r->microbatches,
			 (double)(c->pp - 1) / (double)(c->pp > 1 ? c->virt : 1), a, b, d, s);
	}
	(void)w;
}

int cmd_step(int argc, char **argv, struct ctx *ctx)
{
	struct step_config c;
	struct step_compute cs = { 0, STEP_MFU, 0 };
	struct step_result r;
	struct workload w;
	struct preset pr;
	struct errbuf eb;
	struct table lt = { "ledger", "one middle stage: tp, cp, ep, pp per micro-batch, dp per step",
			    columns, C_NCOLS, 0 };
	struct table tt = { "step", "step:", tcols, T_NCOLS, 1 };
	struct table mt = { "memory", "memory per GPU, first stage:", mcols, M_NCOLS, 1 };
	struct cell row[C_NCOLS], trow[T_NCOLS], mrow[M_NCOLS];
	struct out *o;
	const char *workload_arg = NULL;
	double gpu_memory = 0;
	int opt, explain = 0, i;
	char note[200];

	step_config_init(&c);
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case O_WORKLOAD: workload_arg = optarg; break;
		case O_TP: c.tp = S_count("--tp", optarg, 1); break;
		case O_PP: c.pp = S_count("--pp", optarg, 1); break;
		case O_DP: c.dp = S_count("--dp", optarg, 1); break;
		case O_CP: c.cp = S_count("--cp", optarg, 1); break;
		case O_EP: c.ep = S_count("--ep", optarg, 1); break;
		case O_ZERO: c.zero = (int)S_count("--zero", optarg, 0);
			if (c.zero > 3)
				die_usage("--zero: stage %s is not 0, 1, 2 or 3", optarg);
			break;
		case O_SP: c.sp = 1; break;
		case O_MB: c.micro_batch = (double)S_count("--micro-batch", optarg, 1); break;
		case O_GB: c.global_batch = (double)S_count("--global-batch", optarg, 1); break;
		case O_SEQ: c.seq = (double)S_count("--seq", optarg, 1); break;
		case O_RECOMPUTE:
			if (recompute_lookup(optarg, &c.recompute, &eb) < 0)
				die_usage("--recompute: %s", eb.msg);
			break;
		case O_SCHEDULE:
			if (pp_schedule_lookup(optarg, &c.schedule, &eb) < 0)
				die_usage("--schedule: %s", eb.msg);
			break;
		case O_VIRT: c.virt = S_count("--virtual-stages", optarg, 1); break;
		case O_GRAD_BYTES: c.grad_bytes = opt_positive("--grad-bytes", Q_SIZE, optarg); break;
		case O_CAPACITY: c.capacity = opt_positive("--capacity", Q_NUMBER, optarg); break;
		case O_COMPUTE: cs.step_compute_s = opt_positive("--compute", Q_TIME, optarg); break;
		case O_PEAK: cs.peak_flops = opt_positive("--peak", Q_NUMBER, optarg); break;
		case O_MFU: cs.mfu = opt_quantity_range("--mfu", Q_NUMBER, optarg, 1e-6, 1); break;
		case O_GPU_MEMORY: gpu_memory = opt_positive("--gpu-memory", Q_SIZE, optarg); break;
		case O_EXPLAIN: explain = 1; break;
		case 'h': usage_exit(usage, 0);
		default: usage_exit(usage, 2);
		}
	}
	no_more_args(argc, argv, optind, usage);
	if (!workload_arg)
		die_usage("step: give the model with --workload NAME");
	if (preset_load(&ctx->dirs, workload_arg, &pr, &eb) < 0)
		die("--workload: %s", eb.msg);
	if (workload_from_preset(&pr, &w, &eb) < 0) {
		preset_release(&pr);
		die("--workload: %s", eb.msg);
	}
	preset_release(&pr);
	if (c.seq == 0)
		c.seq = w.seq;
	if (c.schedule == PP_INTERLEAVED && c.virt == 1)
		c.virt = 2;
	if (step_check(&w, &c, &eb) < 0)
		die_usage("step: %s", eb.msg);
	if (step_run(&w, &c, &cs, S_coll, ctx, &r, &eb) < 0)
		die("step: %s", eb.msg);

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	out_input_str(o, "workload", "workload", w.name);
	out_input(o, "params", "parameters", workload_params(&w), H_PLAIN, 12,
		  workload_describe(note, sizeof(note), &w));
	snprintf(note, sizeof(note), "tp %lu, pp %lu, dp %lu, cp %lu, ep %lu = %.15g GPUs; ZeRO %d%s",
		 c.tp, c.pp, c.dp, c.cp, c.ep, r.gpus, c.zero,
		 c.sp && c.tp > 1 ? "; sequence parallel" : "");
	out_input_str(o, "parallel", "parallel", note);
	snprintf(note, sizeof(note), "micro-batch %.15g x %.15g tokens, %.15g micro-batches, "
		 "global batch %.15g", c.micro_batch, c.seq, r.microbatches,
		 r.microbatches * c.micro_batch * (double)c.dp);
	out_input_str(o, "batch", "batch", note);
	snprintf(note, sizeof(note), "%s%s, recompute %s, gradients reduced in %g-byte values",
		 pp_schedule_name(c.schedule), c.schedule == PP_INTERLEAVED ? " (v chunks)" : "",
		 recompute_name(c.recompute), c.grad_bytes);
	out_input_str(o, "schedule", "schedule", note);

	out_table_begin(o, &lt);
	for (i = 0; i < r.nrows; i++) {
		const struct step_row *sr = &r.rows[i];

		memset(row, 0, sizeof(row));
		row[C_DIM].s = step_dim_name(sr->dim);
		row[C_PHASE].s = step_phase_name(sr->phase);
		row[C_OP].s = coll_op_name(sr->op);
		row[C_COUNT_].x = sr->count;
		row[C_BYTES].x = sr->bytes;
		row[C_TIER].s = sr->tier;
		row[C_TIME].x = sr->time_s;
		row[C_EXPOSED].x = sr->exposed_s;
		row[C_RANKS].x = (double)sr->ranks;
		row[C_PER_NODE].x = (double)sr->per_node;
		row[C_ONE].x = sr->one_s;
		out_row(o, row);
	}
	out_table_end(o);

	if (r.nedges) {
		struct table et = { "edges", "first and last stages, besides the above:", ecols,
				    E_NCOLS, 1 };
		struct cell erow[E_NCOLS];

		out_table_begin(o, &et);
		for (i = 0; i < r.nedges; i++) {
			const struct step_row *sr = &r.edges[i];

			memset(erow, 0, sizeof(erow));
			erow[E_STAGE].s = sr->stage;
			erow[E_DIM].s = step_dim_name(sr->dim);
			erow[E_PHASE].s = step_phase_name(sr->phase);
			erow[E_OP].s = coll_op_name(sr->op);
			erow[E_COUNT].x = sr->count;
			erow[E_BYTES].x = sr->bytes;
			erow[E_TIER].s = sr->tier;
			erow[E_TIME].x = sr->time_s;
			out_row(o, erow);
		}
		out_table_end(o);
	}

	memset(trow, 0, sizeof(trow));
	trow[T_COMPUTE].x = r.compute_s;
	trow[T_EXPOSED].x = r.mb_exposed_s;
	trow[T_BUBBLE].x = r.bubble_s;
	trow[T_DP].x = r.dp_exposed_s;
	trow[T_STEP].x = r.step_s;
	trow[T_TOKENS].x = r.tokens_per_s;
	trow[T_MFU].x = r.mfu;
	out_table_begin(o, &tt);
	out_row(o, trow);
	out_table_end(o);

	memset(mrow, 0, sizeof(mrow));
	mrow[M_WEIGHTS].x = r.mem.weights_B;
	mrow[M_GRADS].x = r.mem.grads_B;
	mrow[M_OPTIM].x = r.mem.optim_B;
	mrow[M_ACT].x = r.mem.act_B;
	mrow[M_TOTAL].x = r.mem.total_B;
	mrow[M_CAP].x = gpu_memory > 0 ? gpu_memory : NAN;
	mrow[M_FITS].s = gpu_memory > 0 ? (r.mem.total_B <= gpu_memory ? "yes" : "no") : "";
	out_table_begin(o, &mt);
	out_row(o, mrow);
	out_table_end(o);
	if (explain)
		S_explain(o, &w, &c, &r);
	ctx_out_close(ctx, o);
	return EXIT_OK;
}
