/*
 * commtime step: one training step of a workload under a parallel
 * configuration — the ledger of its collectives, step time and memory per
 * GPU (models/step.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_cmd.h"
#include "step.h"
#include "step_fig.h"
#include "workload.h"

static const char *const usage_lines[] = { "commtime step --workload NAME [options]", NULL };
static const struct opts_usage usage = {
	.cmd = "step",
	.lines = usage_lines,
	.about = "The collectives of one training step on one middle pipeline stage, one row\n"
		 "per kind (per micro-batch for tp, cp, ep, pp; per step for dp), the step\n"
		 "time when compute is known, and memory per GPU (models/step.md).  On a\n"
		 "system with NCCL's model, a step of all-reduces alone also gets step low\n"
		 "and high: every collective at either end of its stated error.\n",
};

/* The ledger: the eight columns of the contract, then the extras. */
enum { C_DIM, C_PHASE, C_OP, C_COUNT_, C_BYTES, C_TIER, C_TIME, C_EXPOSED, C_RANKS,
       C_PER_NODE, C_ONE, C_NCOLS };
static const struct column columns[C_NCOLS] = {
	[C_DIM]      = { .key = "dim", .label = "dim", .type = COL_STR, .width = 3 },
	[C_PHASE]    = { .key = "phase", .label = "phase", .type = COL_STR, .width = 9 },
	[C_OP]       = { .key = "op", .label = "collective", .type = COL_STR, .width = 14 },
	[C_COUNT_]   = { .key = "count", .label = "count", .type = COL_INT, .width = 5 },
	[C_BYTES]    = { .key = "bytes_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .width = 10 },
	[C_TIER]     = { .key = "tier", .label = "tier", .type = COL_STR, .width = 5 },
	[C_TIME]     = { .key = "time_s", .label = "time", .type = COL_NUM, .human = H_TIME, .prec = 4,
		  .width = 10 },
	[C_EXPOSED]  = { .key = "exposed_s", .label = "exposed", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[C_RANKS]    = { .key = "ranks", .label = "ranks", .type = COL_INT, .width = 5 },
	[C_PER_NODE] = { .key = "per_node", .label = "per node", .type = COL_INT, .width = 8,
		  .flags = COL_DATA_ONLY },
	[C_ONE]      = { .key = "one_s", .label = "each", .type = COL_NUM, .human = H_TIME, .prec = 4,
		  .width = 10 },
};

/* The first and last stages' own rows; secondary. */
enum { E_STAGE, E_DIM, E_PHASE, E_OP, E_COUNT, E_BYTES, E_TIER, E_TIME, E_NCOLS };
static const struct column ecols[E_NCOLS] = {
	[E_STAGE] = { .key = "stage", .label = "stage", .type = COL_STR, .width = 10 },
	[E_DIM]   = { .key = "dim", .label = "dim", .type = COL_STR, .width = 3 },
	[E_PHASE] = { .key = "phase", .label = "phase", .type = COL_STR, .width = 9 },
	[E_OP]    = { .key = "op", .label = "collective", .type = COL_STR, .width = 14 },
	[E_COUNT] = { .key = "count", .label = "count", .type = COL_INT, .width = 5 },
	[E_BYTES] = { .key = "bytes_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .width = 10 },
	[E_TIER]  = { .key = "tier", .label = "tier", .type = COL_STR, .width = 5 },
	[E_TIME]  = { .key = "time_s", .label = "time", .type = COL_NUM, .human = H_TIME, .prec = 4,
		  .width = 10 },
};

/* The step, one row; secondary (not in CSV). */
enum { T_COMPUTE, T_EXPOSED, T_BUBBLE, T_DP, T_STEP, T_TOKENS, T_MFU, T_STEP_LO, T_STEP_HI,
       T_NCOLS };
static const struct column tcols[T_NCOLS] = {
	[T_COMPUTE] = { .key = "compute_s", .label = "compute", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_EXPOSED] = { .key = "mb_exposed_s", .label = "comm/mb", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_BUBBLE]  = { .key = "bubble_s", .label = "bubble", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_DP]      = { .key = "dp_s", .label = "dp", .type = COL_NUM, .human = H_TIME, .prec = 4,
		  .width = 10 },
	[T_STEP]    = { .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4,
		  .width = 10 },
	[T_TOKENS]  = { .key = "tokens_per_s", .label = "tokens/s", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1, .width = 10 },
	[T_MFU]     = { .key = "mfu", .label = "MFU", .type = COL_NUM, .human = H_PERCENT, .prec = 1,
		  .width = 6 },
	/* with a stated error for every collective (errband.h) */
	[T_STEP_LO] = { .key = "step_lo_s", .label = "step low", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_STEP_HI] = { .key = "step_hi_s", .label = "step high", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
};

/* Memory per GPU of the most loaded stage, one row; secondary. */
enum { M_WEIGHTS, M_GRADS, M_OPTIM, M_ACT, M_TOTAL, M_CAP, M_FITS, M_NCOLS };
static const struct column mcols[M_NCOLS] = {
	[M_WEIGHTS] = { .key = "weights_B", .label = "weights", .type = COL_NUM, .human = H_SIZE, .width = 10 },
	[M_GRADS]   = { .key = "grads_B", .label = "grads", .type = COL_NUM, .human = H_SIZE, .width = 10 },
	[M_OPTIM]   = { .key = "optimizer_B", .label = "optimizer", .type = COL_NUM, .human = H_SIZE,
		  .width = 10 },
	[M_ACT]     = { .key = "activations_B", .label = "activations", .type = COL_NUM, .human = H_SIZE,
		  .width = 11 },
	[M_TOTAL]   = { .key = "memory_B", .label = "total", .type = COL_NUM, .human = H_SIZE, .width = 10 },
	[M_CAP]     = { .key = "gpu_memory_B", .label = "GPU", .type = COL_NUM, .human = H_SIZE, .width = 10 },
	[M_FITS]    = { .key = "fits", .label = "fits", .type = COL_STR, .width = 4 },
};


static void cb_zero(const struct opt *o, const char *arg)
{
	double x = opt_quantity("--zero", Q_NUMBER, arg);

	if (x != 0 && x != 1 && x != 2 && x != 3)
		die_usage("--zero: stage %s is not 0, 1, 2 or 3", arg);
	*(int *)o->value = (int)x;
}

static void cb_recompute(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (recompute_lookup(arg, o->value, &eb) < 0)
		die_usage("--recompute: %s", eb.msg);
}

static void cb_schedule(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (pp_schedule_lookup(arg, o->value, &eb) < 0)
		die_usage("--schedule: %s", eb.msg);
}

static void S_explain(struct out *o, const struct workload *w, const struct step_config *c,
		      const struct step_result *r)
{
	int i;

	out_text(o, "Ranks are placed as Megatron-LM places them: tp fastest, then cp, ep, dp, pp,");
	out_text(o, "so a tensor-parallel group stays inside one node when it fits.");
	out_text(o, "On one stage of %.15g layers, per micro-batch (dp: per step):", r->layers);
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
	struct errbuf eb;
	struct table lt = { "ledger", "one middle stage: tp, cp, ep, pp per micro-batch, dp per step",
			    columns, C_NCOLS, 0 };
	struct table tt = { "step", "step:", tcols, T_NCOLS, 1 };
	struct table mt = { "memory", "memory per GPU, first stage:", mcols, M_NCOLS, 1 };
	struct cell row[C_NCOLS], trow[T_NCOLS], mrow[M_NCOLS];
	struct step_band band[2] = { { 0 }, { 0 } };
	double step_band_s[2] = { NAN, NAN };
	int banded = 0;
	struct out *o;
	const char *workload_arg = NULL, *gpu_arg = NULL;
	struct ctx_gpu gpu;
	int have_gpu;
	double gpu_memory = 0;
	unsigned long mb = 1, gb = 0, seq = 0;
	int explain = 0, i, from_trace;
	char note[200];
	struct opt options[] = {
		OPT_GROUP_("the model"),
		{ .type = OPT_STRING, .long_name = "workload", .argh = "NAME", .value = &workload_arg,
		  .complete = "presets:workload",
		  .help = "model shape from a workload preset (gpt3-175b, ...)" },
		OPT_GROUP_("parallelism"),
		OPT_CALLBACK_("tp", "N", &c.tp, opt_cb_whole, "tensor-parallel size (default 1)"),
		OPT_CALLBACK_("pp", "N", &c.pp, opt_cb_whole, "pipeline-parallel size (default 1)"),
		OPT_CALLBACK_("dp", "N", &c.dp, opt_cb_whole, "data-parallel size (default 1)"),
		OPT_CALLBACK_("cp", "N", &c.cp, opt_cb_whole, "context-parallel size, ring attention (default 1)"),
		OPT_CALLBACK_("ep", "N", &c.ep, opt_cb_whole, "expert-parallel size, inside dp x cp (default 1)"),
		OPT_CALLBACK_("zero", "N", &c.zero, cb_zero,
			      "ZeRO stage 0-3 over the data-parallel ranks (default 0)"),
		OPT_FLAG_("sequence-parallel", &c.sp,
			  "Megatron sequence parallelism in the tensor-parallel group"),
		OPT_GROUP_("the batch"),
		OPT_CALLBACK_("micro-batch", "N", &mb, opt_cb_whole, "sequences per micro-batch (default 1)"),
		OPT_CALLBACK_("global-batch", "N", &gb, opt_cb_whole,
			      "sequences per step (default dp x micro-batch)"),
		OPT_CALLBACK_("seq", "N", &seq, opt_cb_whole, "sequence length (default the workload's)"),
		{ .type = OPT_CALLBACK, .long_name = "recompute", .argh = "MODE", .value = &c.recompute,
		  .cb = cb_recompute, .complete = "none selective full",
		  .help = "activation recomputation: none (default), selective, full" },
		{ .type = OPT_CALLBACK, .long_name = "schedule", .argh = "NAME", .value = &c.schedule,
		  .cb = cb_schedule, .complete = "1f1b gpipe interleaved",
		  .help = "pipeline schedule: 1f1b (default), gpipe, interleaved" },
		OPT_CALLBACK_("virtual-stages", "V", &c.virt, opt_cb_whole,
			      "model chunks per stage of the interleaved schedule (default 2)"),
		OPT_POSITIVE_("grad-bytes", "SIZE", Q_SIZE, &c.grad_bytes,
			      "bytes per gradient value reduced (default 4, fp32)"),
		OPT_POSITIVE_("capacity", "F", Q_NUMBER, &c.capacity, "MoE capacity factor (default 1)"),
		OPT_GROUP_("compute and memory"),
		{ .type = OPT_STRING, .long_name = "gpu", .argh = "NAME", .value = &gpu_arg,
		  .complete = "presets:gpu",
		  .help = "the GPU's peak and memory from a gpu preset (default the system's)" },
		OPT_POSITIVE_("compute", "TIME", Q_TIME, &cs.step_compute_s,
			      "compute of one step on one GPU (instead of a peak)"),
		OPT_POSITIVE_("peak", "RATE", Q_NUMBER, &cs.peak_flops,
			      "dense bf16 peak of one GPU in FLOP/s (989e12)"),
		OPT_POSITIVE_("mfu", "F", Q_NUMBER, &cs.mfu,
			      "share of the peak the math reaches (default 0.5)"),
		OPT_POSITIVE_("gpu-memory", "SIZE", Q_SIZE, &gpu_memory,
			      "memory of one GPU, to say whether the step fits (80GB)"),
		OPT_FLAG_("explain", &explain, "say where each row comes from and what overlaps"),
		OPT_END_()
	};

	step_config_init(&c);
	opts_parse(argc, argv, options, &usage, 0);
	c.micro_batch = (double)mb;
	c.global_batch = (double)gb;
	c.seq = (double)seq;
	if (!workload_arg)
		die_usage("step: give the model with --workload NAME");
	ctx_workload(ctx, workload_arg, &w);
	if (c.seq == 0)
		c.seq = w.seq;
	have_gpu = ctx_gpu(ctx, gpu_arg, NULL, &gpu);
	if (have_gpu && !cs.peak_flops)
		cs.peak_flops = gpu.peak_flops;
	if (have_gpu && !gpu_memory)
		gpu_memory = gpu.memory_B;
	if (ctx->have_system)
		c.gpus_per_node = ctx->system.gpus_per_node;
	if (cs.mfu > 1)
		die_usage("--mfu: must be at most 1, got %g", cs.mfu);
	from_trace = !opts_given(options, "mfu") && trace_calib_mfu(ctx, &cs, 0);   /* fit --trace */
	/* Interleaved takes 2 chunks per stage unless told; an explicit 1 is
	 * kept (the bubble of 1F1B, as 'pipeline --virtual 1' gives it). */
	if (c.schedule == PP_INTERLEAVED && !opts_given(options, "virtual-stages"))
		c.virt = 2;
	if (step_check(&w, &c, &eb) < 0)
		die_usage("step: %s", eb.msg);
	if (ctx->have_system &&
	    system_check_ranks(&ctx->system, c.tp * c.pp * c.dp * c.cp, &eb) < 0)
		die("step: %s", eb.msg);
	if (step_run(&w, &c, &cs, ctx_step_coll, ctx, &r, &eb) < 0)
		die("step: %s", eb.msg);
	/* The same step with every collective at the low, then the high end of its band. */
	if (ctx_has_errband(ctx, OP_ALLREDUCE) && !isnan(r.step_s)) {
		struct step_result rb;

		for (i = 0; i < 2; i++) {
			band[i] = (struct step_band){ .ctx = ctx, .hi = i };
			if (step_run(&w, &c, &cs, ctx_step_coll_band, &band[i], &rb, &eb) < 0)
				die("step: %s", eb.msg);
			step_band_s[i] = rb.step_s;
		}
		banded = !band[0].missing && !band[1].missing;
	}

	if (ctx_wants_figure(ctx))
		step_figure(ctx, &w, &c, &r);
	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	ctx_echo_workload(o, &w);
	snprintf(note, sizeof(note), "tp %lu, pp %lu, dp %lu, cp %lu, ep %lu = %.15g GPUs; ZeRO %d%s",
		 c.tp, c.pp, c.dp, c.cp, c.ep, r.gpus, c.zero,
		 c.sp && c.tp > 1 ? "; sequence parallel" : "");
	out_input_str(o, "parallel", "parallel", note);
	snprintf(note, sizeof(note), "global %.15g sequences of %.15g tokens, micro-batch %.15g, "
		 "m = %.15g per step", r.microbatches * c.micro_batch * (double)c.dp, c.seq,
		 c.micro_batch, r.microbatches);
	out_input_str(o, "batch", "batch", note);
	snprintf(note, sizeof(note), "%s, v = %lu, recompute %s, gradients reduced in %g-byte values",
		 pp_schedule_name(c.schedule), c.virt, recompute_name(c.recompute), c.grad_bytes);
	out_input_str(o, "schedule", "schedule", note);
	if (cs.step_compute_s > 0)
		snprintf(note, sizeof(note), "given: %g s per step on one GPU", cs.step_compute_s);
	else if (cs.peak_flops > 0)
		snprintf(note, sizeof(note), "%s%s%s%.4g TFLOP/s dense bf16 x MFU %g; %.4g PFLOP per step",
			 have_gpu && !opts_given(options, "peak") ? gpu.name : "",
			 have_gpu && !opts_given(options, "peak") ? " (" : "",
			 have_gpu && !opts_given(options, "peak") ? (strcmp(gpu.from, "system") ? "--gpu): " : "the system's GPU): ") : "",
			 cs.peak_flops / 1e12, cs.mfu, r.flops_hw / 1e15);
	else
		snprintf(note, sizeof(note), "unknown: give --gpu, --peak or --compute for the step time");
	out_input_str(o, "compute", "compute", note);

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
	trow[T_STEP_LO].x = step_band_s[0];
	trow[T_STEP_HI].x = step_band_s[1];
	if (!banded)
		tt.ncols = T_STEP_LO;
	out_table_begin(o, &tt);
	out_row(o, trow);
	out_table_end(o);
	if (banded)
		out_text(o, "step low, high: every collective at the low, then the high end of its "
			 "stated error");
	else if (band[0].missing)
		out_text(o, "no stated error for the step: its %s has none (the judged logs are "
			 "all-reduce; models/nccl.md, \"The stated error\")",
			 coll_op_name((enum coll_op)(band[0].missing - 1)));

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
	if (ctx_trace_calib(ctx))
		trace_calib_note(ctx, o, &w, &c, &cs, from_trace);
	if (explain)
		S_explain(o, &w, &c, &r);
	if (banded)
		ctx_errband_table(ctx, o, band[0].cells | band[1].cells);
	ctx_out_close(ctx, o);
	return EXIT_OK;
}
