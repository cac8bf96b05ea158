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
#include "opts_step.h"
#include "step_expect.h"
#include "workload.h"

static const char *const usage_lines[] = { "commtime step --workload NAME [options]", NULL };
static const struct opts_usage usage = {
	.cmd = "step",
	.lines = usage_lines,
	.about = "The collectives of one training step on one middle pipeline stage, one row\n"
		 "per kind (per micro-batch for tp, cp, ep, pp; per step for dp), the step\n"
		 "time when compute is known (models/step.md), and memory per GPU\n"
		 "(models/step-memory.md).  On a system with NCCL's model, a step of\n"
		 "all-reduces alone also gets step low and high: every collective at either\n"
		 "end of its stated error.\n",
};

/* The ledger: the eight columns of the contract, then the extras. */
enum { C_DIM, C_PHASE, C_OP, C_COUNT_, C_BYTES, C_TIER, C_TIME, C_EXPOSED, C_RANKS,
       C_PER_NODE, C_ONE, C_HIDDEN, C_NCOLS };
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
	[C_HIDDEN]   = { .key = "hidden_s", .label = "hidden", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
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
enum { T_COMPUTE, T_EXPOSED, T_BUBBLE, T_DP, T_OPTIM, T_STEP, T_TOKENS, T_MFU, T_KEFF,
       T_STEP_LO, T_STEP_HI, T_STEP_BEST, T_MFU_BEST, T_NCOLS };
static const struct column tcols[T_NCOLS] = {
	[T_COMPUTE] = { .key = "compute_s", .label = "compute", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_EXPOSED] = { .key = "mb_exposed_s", .label = "comm/mb", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_BUBBLE]  = { .key = "bubble_s", .label = "bubble", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_DP]      = { .key = "dp_s", .label = "dp", .type = COL_NUM, .human = H_TIME, .prec = 4,
		  .width = 10 },
	[T_OPTIM]   = { .key = "optimizer_s", .label = "update", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_STEP]    = { .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4,
		  .width = 10 },
	[T_TOKENS]  = { .key = "tokens_per_s", .label = "tokens/s", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1, .width = 10 },
	[T_MFU]     = { .key = "mfu", .label = "MFU", .type = COL_NUM, .human = H_PERCENT, .prec = 1,
		  .width = 6 },
	[T_KEFF]    = { .key = "kernel_efficiency", .label = "kernel eff", .type = COL_NUM,
		  .human = H_PERCENT, .prec = 1, .width = 10 },
	/* with a stated error for every collective (errband.h) */
	[T_STEP_LO] = { .key = "step_lo_s", .label = "step low", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	[T_STEP_HI] = { .key = "step_hi_s", .label = "step high", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 10 },
	/* the best case (models/step.md, "The expected step") */
	[T_STEP_BEST] = { .key = "step_best_s", .label = "best case", .type = COL_NUM,
		  .human = H_TIME, .prec = 4, .width = 10 },
	[T_MFU_BEST] = { .key = "mfu_best", .label = "MFU best", .type = COL_NUM, .human = H_PERCENT,
		  .prec = 1, .width = 8 },
};

/*
 * Memory per GPU of the most loaded stage, one row; secondary.  Every
 * column in decimal GB, as the GPU's memory is sold: a size that happens
 * to be a whole number of GiB would otherwise read "77.5 GiB" beside
 * "126.4 GB".
 */
#define MEM_GB .human = H_FIXED, .scale = 1e9, .suffix = "GB", .prec = 2
enum { M_WEIGHTS, M_GRADS, M_OPTIM, M_ACT, M_RESERVE, M_TOTAL, M_CAP, M_FITS, M_NCOLS };
static const struct column mcols[M_NCOLS] = {
	[M_WEIGHTS] = { .key = "weights_B", .label = "weights", .type = COL_NUM, MEM_GB, .width = 10 },
	[M_GRADS]   = { .key = "grads_B", .label = "grads", .type = COL_NUM, MEM_GB, .width = 10 },
	[M_OPTIM]   = { .key = "optimizer_B", .label = "optimizer", .type = COL_NUM, MEM_GB,
		  .width = 10 },
	[M_ACT]     = { .key = "activations_B", .label = "activations", .type = COL_NUM, MEM_GB,
		  .width = 11 },
	[M_RESERVE] = { .key = "reserve_B", .label = "reserve", .type = COL_NUM, MEM_GB, .width = 10 },
	[M_TOTAL]   = { .key = "memory_B", .label = "total", .type = COL_NUM, MEM_GB, .width = 10 },
	[M_CAP]     = { .key = "gpu_memory_B", .label = "GPU", .type = COL_NUM, MEM_GB, .width = 10 },
	[M_FITS]    = { .key = "fits", .label = "fits", .type = COL_STR, .width = 4 },
};


/* The step's sum, term by term. */
static void S_explain_step(struct out *o, const struct step_config *c,
			   const struct step_result *r)
{
	char a[32], b[32], d[32], s[32], u[32];

	if (isnan(r->step_s))
		return;
	units_fmt_time(a, sizeof(a), r->mb_compute_s, 4);
	units_fmt_time(b, sizeof(b), r->mb_exposed_s, 4);
	units_fmt_time(d, sizeof(d), r->dp_exposed_s, 4);
	units_fmt_time(s, sizeof(s), r->step_s, 4);
	units_fmt_time(u, sizeof(u), r->optim_s, 4);
	if (c->schedule == PP_DUALPIPE) {
		/* the bubble of DualPipe's Table 2 in micro-batch slots
		 * (models/step-teams.md, "DualPipe") */
		out_text(o, "step = (m + bubble slots) x (compute + exposed comm per "
			 "micro-batch) + dp + update");
		out_text(o, "     = (%.15g + %.4g) x (%s + %s) + %s + %s = %s", r->microbatches,
			 r->bubble_s / (r->mb_compute_s + r->mb_exposed_s), a, b, d, u, s);
	} else if (c->offload) {
		char w[32];

		units_fmt_time(w, sizeof(w), r->offload.exposed_s, 4);
		out_text(o, "step = m x (compute + exposed comm + offload wait per micro-batch) + "
			 "dp + update");
		out_text(o, "     = %.15g x (%s + %s + %s) + %s + %s = %s", r->microbatches, a, b, w,
			 d, u, s);
	} else {
		out_text(o, "step = (m + (p-1)/v) x (compute + exposed comm per micro-batch) + "
			 "dp + update");
		out_text(o, "     = (%.15g + %.15g) x (%s + %s) + %s + %s = %s", r->microbatches,
			 (double)(c->pp - 1) / (double)(c->pp > 1 ? c->virt : 1), a, b, d, u, s);
	}
}

/* Under --offload-activations: what went to the host, over what, behind what. */
static void S_explain_offload(struct out *o, const struct step_result *r)
{
	const struct step_offload *f = &r->offload;
	char lb[32], hb[32], mv[32], x[32], w[32];

	if (!(f->layers > 0))
		return;
	snprintf(lb, sizeof(lb), "%.4g GB", f->layer_B / 1e9);
	snprintf(hb, sizeof(hb), "%.4g GB", f->host_B / 1e9);
	snprintf(mv, sizeof(mv), "%.4g GB", f->moved_B / 1e9);
	units_fmt_time(x, sizeof(x), f->xfer_s, 4);
	units_fmt_time(w, sizeof(w), f->exposed_s, 4);
	out_text(o, "Activation offload (models/step-teams.md, \"Activation offload\"): the saved "
		 "activations of the first %.15g of %.15g layers, %s a layer, go to host memory",
		 f->layers, r->layers, lb);
	out_text(o, "  after each layer's forward and come back before its backward: %s a "
		 "micro-batch on the host,", hb);
	out_text(o, "  %s over the host link a step (both ways); none held on the GPU beyond "
		 "the other %.15g layers'", mv, r->layers - f->layers);
	out_text(o, "  one layer one way %s at %.4g GB/s; a copy out of layer i hides behind "
		 "the forward of layers", x, f->link_Bps / 1e9);
	out_text(o, "  i+1 to %.15g+i, a copy back behind the backward of layers %.15g+i down "
		 "to i+1, one copy at a time;", r->layers - f->layers - 1,
		 r->layers - f->layers - 1);
	out_text(o, "  the compute waits %s a micro-batch; host memory not checked (no preset "
		 "gives it)", w);
}

/* Under --moe-route-nodes, what an expert all-to-all row's time is made of. */
static void S_explain_route(struct out *o, const struct step_config *c,
			    const struct workload *w, const struct step_row *row)
{
	double N, D;

	if (!c->route_nodes || row->dim != DIM_EP || row->op != OP_ALLTOALL || !row->per_node ||
	    row->per_node >= row->ranks)
		return;
	D = step_route_row_nodes(c, w->experts, w->top_k, row->ranks, row->per_node, &N);
	out_text(o, "    routed: a token's %.15g copies reach %.4g of %.15g nodes (at most %lu), "
		 "once each over the network, each copy once over NVLink; the slower leg",
		 w->top_k, D, N, c->route_nodes);
}

static void S_explain(struct out *o, const struct workload *w, const struct step_config *c,
		      const struct step_result *r)
{
	int i;

	out_text(o, "Ranks are placed as Megatron-LM places them: tp fastest, then cp, ep, dp, pp,");
	out_text(o, "so a tensor-parallel group stays inside one node when it fits.");
	if (r->kernels) {
		const struct kernel_layer *k = &r->layer;
		char a[32], b[32], d[32], e[32], f[32], g[32], u[32];

		units_fmt_time(a, sizeof(a), k->gemm_fwd_s, 4);
		units_fmt_time(b, sizeof(b), k->gemm_bwd_s, 4);
		units_fmt_time(d, sizeof(d), k->attn_fwd_s, 4);
		units_fmt_time(e, sizeof(e), k->attn_bwd_s, 4);
		units_fmt_time(f, sizeof(f), k->mem_fwd_s, 4);
		units_fmt_time(g, sizeof(g), k->mem_bwd_s, 4);
		out_text(o, "One layer, one micro-batch, by kernel (models/step.md, \"Compute by kernel\"):");
		out_text(o, "  GEMMs %s forward, %s backward; attention (%s) %s forward, %s backward;",
			 a, b, r->fused ? "fused" : "unfused", d, e);
		out_text(o, "  norms, activations, residuals %s forward, %s backward", f, g);
		units_fmt_time(a, sizeof(a), r->output_s, 4);
		units_fmt_time(u, sizeof(u), r->optim_s, 4);
		out_text(o, "  the last stage's output layer and loss %s; the optimizer's update %s", a, u);
		out_text(o, "  kernel efficiency %.1f %% of the peak: the FLOPs run / (compute x GPUs x peak);",
			 100 * r->kernel_eff);
		out_text(o, "  MFU %.1f %%: the model's FLOPs / (step x GPUs x peak), everything counted",
			 100 * r->mfu);
	}
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
		S_explain_route(o, c, w, row);
		if (row->overlap) {
			units_fmt_time(one, sizeof(one), row->hidden_s, 4);
			if (row->sms > 0)
				out_text(o, "    %s hidden behind %s, less its %d CTAs' share "
					 "of the %.15g SMs", one, row->overlap, row->ctas, row->sms);
			else
				out_text(o, "    %s hidden behind %s", one, row->overlap);
		}
	}
	out_text(o, "Overlap (%s): a row hides only what its line above says; the rest is exposed.",
		 step_framework_name(c->framework));
	S_explain_offload(o, r);
	S_explain_step(o, c, r);
	(void)w;
}

/*
 * What a run configured today adds, only where it is not the default:
 * FP8, the experts' folded grid and their load, hybrid sharding.
 */
static void S_echo_configured(struct out *o, const struct workload *w,
			      const struct step_config *c, const struct step_result *r,
			      const struct ctx_gpu *gpu)
{
	char note[320];

	if (c->precision == PREC_FP8) {
		snprintf(note, sizeof(note), "fp8: the linears' GEMMs at the FP8 peak (%.4g TFLOP/s) "
			 "after Transformer Engine's casts%s; router, attention core and output layer "
			 "bf16; %s", gpu->kernel.fp8_peak / 1e12, r->kernels ? "" : " (given compute)",
			 step_framework_deepspeed(c->framework) ?
			 "FP8 weight copies beside the bf16 ones" :
			 "parameters held and gathered as FP8");
		out_input_str(o, "precision", "precision", note);
	}
	if (w->experts > 1) {
		unsigned long etp = step_etp(c);
		double edp = (double)c->tp * (double)c->cp * (double)c->dp /
			     ((double)etp * (double)c->ep);

		snprintf(note, sizeof(note), "ep %lu x etp %lu x expert dp %.15g over tp x cp x dp "
			 "= %lu; busiest expert %.4g x the mean (%s)", c->ep, etp, edp,
			 c->tp * c->cp * c->dp, step_moe_load(c),
			 c->capacity_given ? "padded to the capacity factor" : "dropless");
		out_input_str(o, "experts", "experts", note);
		if (c->route_nodes || c->dispatch_fp8) {
			char nodes[96] = "";

			if (c->route_nodes)
				snprintf(nodes, sizeof(nodes), "at most %lu nodes a token, sent once a "
					 "node and forwarded inside it; ", c->route_nodes);
			snprintf(note, sizeof(note), "%sdispatch %s, combine bf16", nodes,
				 c->dispatch_fp8 ? "fp8 (a scale every 128 values)" : "bf16");
			out_input_str(o, "routing", "routing", note);
		}
		if (step_moe_dropped(c) > 0) {
			snprintf(note, sizeof(note), "%.1f %% of the busiest expert's tokens (capacity "
				 "%g, imbalance %g)", 100 * step_moe_dropped(c), c->capacity,
				 c->moe_imbalance);
			out_input_str(o, "dropped", "dropped", note);
		}
	}
	if (c->offload) {
		snprintf(note, sizeof(note), "the saved activations of the first %lu layers to host "
			 "memory and back, %.4g GB/s each way (%s)", c->offload,
			 r->offload.link_Bps / 1e9, !gpu->name[0] ? "no GPU known: PCIe Gen5" :
			 gpu->host_link_given ? "the GPU preset's host_link" :
			 "the GPU's PCIe generation");
		out_input_str(o, "offload", "offload", note);
	}
	if (c->dp_replicate > 1) {
		snprintf(note, sizeof(note), "ZeRO-3 within %lu ranks, %lu replicas",
			 c->dp * c->cp / c->dp_replicate, c->dp_replicate);
		out_input_str(o, "sharding", "sharding", note);
	}
	if (c->cp > 1 && step_framework_deepspeed(c->framework))
		out_text(o, "cp: priced as %s; DeepSpeed shards the sequence with Ulysses' "
			 "all-to-all of the heads (deepspeed/sequence/layer.py), which is not "
			 "modelled", c->cp_form == CP_ALLGATHER ? "the all-gather of K and V" :
			 "ring attention");
}

/* A workload with DeepSeek's keys: its mix of layers and its attention. */
static void S_echo_layers(struct out *o, const struct workload *w)
{
	char note[512], dn[96] = "";

	if (!(w->dense_layers > 0 || w->shared > 0 || workload_mla(w)))
		return;
	if (w->dense_layers > 0)
		snprintf(dn, sizeof(dn), "%.15g dense (ffn %.15g, on the first stage), ",
			 w->dense_layers, w->dense_ffn);
	snprintf(note, sizeof(note), "%s%.15g %s (%.15g experts, top %.15g, %.15g shared); "
		 "attention %s", dn, w->layers - w->dense_layers,
		 w->experts > 1 ? "MoE" : "dense", w->experts, w->top_k, w->shared,
		 workload_mla(w) ? "latent (MLA)" : "multi-head");
	out_input_str(o, "layer_mix", "layers", note);
}

/* A workload with sliding-window layers: how many, over how many keys. */
static void S_echo_window(struct out *o, const struct workload *w)
{
	char note[160];

	if (!workload_windowed(w))
		return;
	snprintf(note, sizeof(note), "%.15g of %.15g layers over a sliding window of %.15g "
		 "keys, the rest over the whole sequence", w->window_layers, w->layers, w->window);
	out_input_str(o, "attention_window", "window", note);
}

/* The inputs the step was run with, above the tables. */
/* The compute line: given, by kernel on the GPU, the flat MFU, or unknown. */
static void S_compute_note(char *note, size_t size, const struct step_compute *cs,
			   const struct step_result *r, const struct ctx_gpu *gpu, int have_gpu,
			   int peak_given, double kernel_eff)
{
	if (cs->step_compute_s > 0)
		snprintf(note, size, "given: %g s per step on one GPU", cs->step_compute_s);
	else if (cs->peak_flops > 0 && r->kernels) {
		char gm[32];

		units_fmt_time(gm, sizeof(gm), r->layer.fwd_s + r->layer.bwd_s, 4);
		snprintf(note, size, "%s%s%.4g TFLOP/s dense bf16, by kernel: GEMMs at %s "
			 "of the peak%s, %d SMs, %.4g TB/s; one layer %s forward + backward; "
			 "%.4g PFLOP per step",
			 have_gpu && !peak_given ? gpu->name : "",
			 have_gpu && !peak_given ? ": " : "",
			 cs->peak_flops / 1e12, kernel_eff > 0 ? "--kernel-efficiency" : "a share by shape",
			 kernel_eff > 0 ? "" : " (models/step.md)", (int)gpu->kernel.sms,
			 gpu->kernel.hbm_Bps / 1e12, gm, r->flops_hw / 1e15);
		if (cs->power_share > 0 && gpu->family_share > 0) {
			size_t n = strlen(note);

			snprintf(note + n, size - n, "; sustained clock x %.4g of its family's "
				 "reference %s's (power per SM)", gpu->family_share, gpu->power_ref);
		}
		if (cs->power_share > 0 && gpu->cap_share > 0 && gpu->cap_share < 1) {
			size_t n = strlen(note);

			snprintf(note + n, size - n, "; power cap: clock x %.4g of the clock "
				 "at %g W", gpu->cap_share, gpu->power_w);
		}
		if (!(gpu->kernel.hbm_Bps > 0)) {
			size_t n = strlen(note);

			snprintf(note + n, size - n, "; no HBM bandwidth known (gpu key "
				 "hbm_bandwidth, or --hbm-bandwidth): memory-bound work not timed");
		}
	} else if (cs->peak_flops > 0)
		snprintf(note, size, "%s%s%s%.4g TFLOP/s dense bf16 x MFU %g; %.4g PFLOP per step",
			 have_gpu && !peak_given ? gpu->name : "",
			 have_gpu && !peak_given ? " (" : "",
			 have_gpu && !peak_given ? (strcmp(gpu->from, "system") ? "--gpu): " : "the system's GPU): ") : "",
			 cs->peak_flops / 1e12, cs->mfu, r->flops_hw / 1e15);
	else
		snprintf(note, size, "unknown: give --gpu, --peak or --compute for the step time");
}

static void S_echo(struct ctx *ctx, struct out *o, const struct workload *w,
		   const struct step_config *c, const struct step_compute *cs,
		   const struct step_result *r, const struct ctx_gpu *gpu, int have_gpu,
		   int peak_given, double kernel_eff)
{
	char note[400];

	ctx_echo_link(ctx, o);
	ctx_echo_workload(o, w);
	snprintf(note, sizeof(note), "tp %lu, pp %lu, dp %lu, cp %lu, ep %lu = %.15g GPUs; ZeRO %d%s%s%s",
		 c->tp, c->pp, c->dp, c->cp, c->ep, r->gpus, c->zero,
		 c->sp && c->tp > 1 ? "; sequence parallel" : "",
		 c->tp_overlap ? ", TP communication overlapped" : "",
		 c->ep_overlap ? ", EP all-to-all overlapped" : "");
	out_input_str(o, "parallel", "parallel", note);
	snprintf(note, sizeof(note), "global %.15g sequences of %.15g tokens, micro-batch %.15g, "
		 "m = %.15g per step", r->microbatches * c->micro_batch * (double)c->dp, c->seq,
		 c->micro_batch, r->microbatches);
	out_input_str(o, "batch", "batch", note);
	snprintf(note, sizeof(note), "%s, v = %lu, recompute %s, gradients reduced in %g-byte "
		 "values%s", pp_schedule_name(c->schedule), c->virt, recompute_name(c->recompute),
		 c->grad_bytes, c->moment_bytes == 2 ? ", Adam's moments bf16 (8 bytes a parameter "
		 "with the fp32 master)" : "");
	out_input_str(o, "schedule", "schedule", note);
	if (c->pp > 1 && (r->layers_first != r->layers || r->layers_last != r->layers)) {
		snprintf(note, sizeof(note), "first %.15g layers, %lu middle stages of %.15g, last %.15g",
			 r->layers_first, c->pp - 2, r->layers, r->layers_last);
		out_input_str(o, "stages", "stages", note);
	}
	S_echo_layers(o, w);
	S_echo_window(o, w);
	snprintf(note, sizeof(note), "%s; attention %s%s", step_framework_name(c->framework),
		 !r->fused ? "unfused (scores stored)" :
		 c->attention == ATTN_FLASH2 ? "fused (FlashAttention-2)" :
		 step_attention_flash2(c) ? "fused (PyTorch's SDPA: FlashAttention-2)" : "fused",
		 c->eager == 1 ? "; elementwise eager (an operator a kernel)" :
		 c->eager == 2 ? "; elementwise fused by torch.compile a block, the loss eager" : "");
	out_input_str(o, "framework", "framework", note);
	S_echo_configured(o, w, c, r, gpu);
	S_compute_note(note, sizeof(note), cs, r, gpu, have_gpu, peak_given, kernel_eff);
	out_input_str(o, "compute", "compute", note);
}

/* The ledger of one middle stage, then the first and last stages' extra rows. */
static void S_ledger(struct out *o, const struct step_result *r)
{
	struct table lt = { "ledger", "one middle stage: tp, cp, ep, pp per micro-batch, dp per step",
			    columns, C_NCOLS, 0 };
	struct cell row[C_NCOLS];
	int i;

	out_table_begin(o, &lt);
	for (i = 0; i < r->nrows; i++) {
		const struct step_row *sr = &r->rows[i];

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
		row[C_HIDDEN].x = sr->hidden_s;
		out_row(o, row);
	}
	out_table_end(o);

	if (r->nedges) {
		struct table et = { "edges", "first and last stages, besides the above:", ecols,
				    E_NCOLS, 1 };
		struct cell erow[E_NCOLS];

		out_table_begin(o, &et);
		for (i = 0; i < r->nedges; i++) {
			const struct step_row *sr = &r->edges[i];

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

}


/*
 * The kinds of step (EXPECT_LEAN) whose published runs leaned one way beyond
 * the band, when this step is of any: what their runs measured against the
 * expected step.
 */
enum { K_KIND, K_ABOUT, K_RUNS, K_SOURCES, K_LO, K_MED, K_HI, K_NCOLS };
#define KR(k, l) { .key = k, .label = l, .type = COL_NUM, .human = H_FIXED, .scale = 1, .prec = 3, \
		   .width = 6 }
static const struct column kcols[K_NCOLS] = {
	[K_KIND] = { .key = "kind", .label = "kind", .type = COL_STR, .flags = COL_DATA_ONLY },
	[K_ABOUT] = { .key = "about", .label = "kind", .type = COL_STR, .width = 46 },
	[K_RUNS] = { .key = "runs", .label = "runs", .type = COL_INT, .width = 4 },
	[K_SOURCES] = { .key = "sources", .label = "sources", .type = COL_INT, .width = 7 },
	[K_LO] = KR("low_ratio", "low"), [K_MED] = KR("median_ratio", "median"),
	[K_HI] = KR("high_ratio", "high"),
};

static void S_leans(struct out *o, unsigned leans)
{
	struct table kt = { "known_lean", "kinds whose published runs lean one way, published / "
			    "expected step (models/step-checks.md, \"Kinds that lean\"):", kcols,
			    K_NCOLS, 1 };
	struct cell row[K_NCOLS];
	int k;

	if (!leans)
		return;
	out_table_begin(o, &kt);
	for (k = 0; k < LEAN_COUNT; k++) {
		const struct expect_lean_kind *e = &EXPECT_LEAN[k];

		if (!(leans & 1u << k))
			continue;
		memset(row, 0, sizeof(row));
		row[K_KIND].s = e->kind;
		row[K_ABOUT].s = e->about;
		row[K_RUNS].x = e->runs;
		row[K_SOURCES].x = e->sources;
		row[K_LO].x = e->lo;
		row[K_MED].x = e->median;
		row[K_HI].x = e->hi;
		out_row(o, row);
	}
	out_table_end(o);
	out_text(o, "a step of these kinds is better read against the edge of the band they lean to");
}

/*
 * The expected step term by term (models/step.md, "The expected step"):
 * what each term adds to the best case; the data formats carry the terms
 * it is computed from too (bench/step-pool.py fits on them).
 */
enum { X_BEST, X_CLOCK, X_GAPS, X_INTERF, X_STRAG, X_HOUSE, X_STEP, X_MB, X_BOUND, X_KMB,
       X_KSTEP, X_IMB, X_IDP, X_SLOTS, X_M, X_RANKS, X_POWER, X_NCOLS };
#define XT(k, l, w) { .key = k, .label = l, .type = COL_NUM, .human = H_TIME, .prec = 4, .width = w }
#define XD(k) { .key = k, .label = k, .type = COL_NUM, .flags = COL_DATA_ONLY, .width = 10 }
static const struct column xcols[X_NCOLS] = {
	[X_BEST] = XT("step_best_s", "best case", 10),
	[X_CLOCK] = XT("clock_s", "+ clock", 10),
	[X_GAPS] = XT("gaps_s", "+ gaps", 10),
	[X_INTERF] = XT("interference_s", "+ interference", 14),
	[X_STRAG] = XT("straggler_s", "+ stragglers", 12),
	[X_HOUSE] = XT("housekeeping_s", "+ housekeeping", 14),
	[X_STEP] = XT("step_s", "= expected", 10),
	[X_MB] = XD("mb_best_s"), [X_BOUND] = XD("bound_share"), [X_KMB] = XD("kernels_mb"),
	[X_KSTEP] = XD("kernels_step"), [X_IMB] = XD("interference_mb_s"), [X_IDP] = XD("interference_dp_s"),
	[X_SLOTS] = XD("slots"), [X_M] = XD("microbatches"), [X_RANKS] = XD("ranks"),
	[X_POWER] = XD("power_share"),
};

static void S_expected(struct out *o, const struct step_result *r)
{
	struct table xt = { "expected", "expected step, term by term:", xcols, X_NCOLS, 1 };
	const struct expect_terms *t = &r->expect_terms;
	const struct expect_out *x = &r->expect;
	struct cell row[X_NCOLS];

	if (!r->kernels || isnan(r->step_s))
		return;
	memset(row, 0, sizeof(row));
	row[X_BEST].x = t->step_best_s;
	row[X_CLOCK].x = x->clock_s;
	row[X_GAPS].x = x->gaps_s;
	row[X_INTERF].x = x->interference_s;
	row[X_STRAG].x = x->straggler_s;
	row[X_HOUSE].x = x->house_s;
	row[X_STEP].x = x->step_s;
	row[X_MB].x = t->mb_s;
	row[X_BOUND].x = t->bound_share;
	row[X_KMB].x = t->kernels_mb;
	row[X_KSTEP].x = t->kernels_step;
	row[X_IMB].x = t->interf_mb_s;
	row[X_IDP].x = t->interf_dp_s;
	row[X_SLOTS].x = t->slots;
	row[X_M].x = t->m;
	row[X_RANKS].x = t->ranks;
	row[X_POWER].x = t->power_share;
	out_table_begin(o, &xt);
	out_row(o, row);
	out_table_end(o);
	S_leans(o, r->leans);
}

/* The memory of the most loaded stage; whether it fits in gpu_memory (bytes; 0: not known). */
static void S_memory(struct out *o, const struct step_result *r, double gpu_memory)
{
	struct table mt = { "memory", NULL, mcols, M_NCOLS, 1 };
	struct cell mrow[M_NCOLS];
	char mtitle[96];

	memset(mrow, 0, sizeof(mrow));
	mrow[M_WEIGHTS].x = r->mem.weights_B;
	mrow[M_GRADS].x = r->mem.grads_B;
	mrow[M_OPTIM].x = r->mem.optim_B;
	mrow[M_ACT].x = r->mem.act_B;
	mrow[M_RESERVE].x = r->mem.reserve_B;
	mrow[M_TOTAL].x = r->mem.total_B;
	mrow[M_CAP].x = gpu_memory > 0 ? gpu_memory : NAN;
	mrow[M_FITS].s = gpu_memory > 0 ? (r->mem.total_B <= gpu_memory ? "yes" : "no") : "";
	snprintf(mtitle, sizeof(mtitle), "memory per GPU, the most loaded stage (%s, %.15g layers):",
		 r->mem.stage ? r->mem.stage : "?", r->mem.stage_layers);
	mt.title = mtitle;
	out_table_begin(o, &mt);
	out_row(o, mrow);
	out_table_end(o);
	if (r->mem.offload_B > 0) {
		out_text(o, "activations: besides the above, %.2f GB of the first %.15g layers' on the "
			 "host (--offload-activations; host memory not checked)", r->mem.offload_B / 1e9,
			 r->offload.layers);
	}
	if (gpu_memory > 0 && r->mem.total_B <= gpu_memory &&
	    r->mem.total_B > STEP_MEM_TIGHT * gpu_memory)
		out_text(o, "memory: %.0f %% of the GPU's, fits by this count with %.2f GB spare; "
			 "PyTorch's caching allocator reserves beyond what it hands out (models/"
			 "step-memory.md, \"Reserve\"): a run this close may need its expandable "
			 "segments or more recomputation", 100 * r->mem.total_B / gpu_memory,
			 (gpu_memory - r->mem.total_B) / 1e9);
}

/* The step's terms (and its band) and the memory of the most loaded stage. */
static void S_totals(struct out *o, const struct step_result *r, const struct step_stated *st,
		     double gpu_memory)
{
	struct table tt = { "step", "step:", tcols, T_NCOLS, 1 };
	struct cell trow[T_NCOLS];

	memset(trow, 0, sizeof(trow));
	trow[T_COMPUTE].x = r->compute_s;
	trow[T_EXPOSED].x = r->mb_exposed_s;
	trow[T_BUBBLE].x = r->bubble_s;
	trow[T_DP].x = r->dp_exposed_s;
	trow[T_OPTIM].x = r->optim_s;
	trow[T_KEFF].x = r->kernel_eff;
	trow[T_STEP].x = r->step_s;
	trow[T_TOKENS].x = r->tokens_per_s;
	trow[T_MFU].x = r->mfu;
	trow[T_STEP_LO].x = r->step_lo_s;
	trow[T_STEP_HI].x = r->step_hi_s;
	trow[T_STEP_BEST].x = r->step_best_s;
	trow[T_MFU_BEST].x = r->mfu_best;
	if (isnan(r->step_s))
		tt.ncols = T_STEP_LO;
	out_table_begin(o, &tt);
	out_row(o, trow);
	out_table_end(o);
	if (isnan(r->step_s))
		;
	else if (st->banded)
		out_text(o, "step: expected; low, high: every collective at the low, then the high "
			 "end of its stated error, times %.3g and %.3g for the step's", EXPECT_BAND_LO,
			 EXPECT_BAND_HI);
	else
		out_text(o, "step: expected; low, high: %.3g and %.3g times it, the step's stated "
			 "error%s%s%s", EXPECT_BAND_LO, EXPECT_BAND_HI,
			 st->missing ? " (its " : "",
			 st->missing ? coll_op_name((enum coll_op)(st->missing - 1)) : "",
			 st->missing ? " has no band of its own: models/nccl-accuracy.md, \"The stated error\")"
				     : "");
	if (!isnan(r->step_s))
		out_text(o, "(the share of the pool's runs inside it, each predicted without its "
			 "source: %.0f %%; models/step.md, \"The step's stated error\")",
			 100 * EXPECT_BAND_INSIDE);
	S_memory(o, r, gpu_memory);
}

/*
 * The compute model: by kernel when the GPU is known and no flat --mfu
 * or given --compute is asked for; --peak alone keeps the flat model (no
 * SMs, no bandwidth), --kernel-efficiency alone a kernel model with every
 * GEMM at that share.  Returns 1 when a GPU preset is known.
 */
static int S_compute_model(struct ctx *ctx, const char *gpu_arg, double kernel_eff, int flat,
			   struct ctx_gpu *gpu, struct step_compute *cs)
{
	int have_gpu = ctx_gpu(ctx, gpu_arg, NULL, gpu);

	if (have_gpu && !cs->peak_flops)
		cs->peak_flops = gpu->peak_flops;
	if (have_gpu && !flat) {
		gpu->kernel.peak = cs->peak_flops;
		gpu->kernel.fixed_eff = kernel_eff;
		cs->kgpu = &gpu->kernel;
	} else if (kernel_eff > 0) {
		kernel_gpu_init(&gpu->kernel, ARCH_UNKNOWN, cs->peak_flops, 0, 0, kernel_eff);
		gpu->kernel.fixed_eff = kernel_eff;
		if (cs->peak_flops > 0)
			cs->kgpu = &gpu->kernel;
	}
	return have_gpu;
}

/* The run's configuration from the options once parsed and checked. */
static void S_config(const struct opt *options, struct step_opts *so, unsigned long mb,
		     unsigned long gb, unsigned long seq, double layers_first,
		     double layers_last, struct step_config *c, struct step_compute *cs)
{
	step_opts_check(options, so, "step");
	step_opts_config(so, c);
	c->capacity_given = opts_given(options, "capacity") != NULL;
	cs->peak_flops = so->peak;
	if (so->mfu > 0)
		cs->mfu = so->mfu;
	c->micro_batch = (double)mb;
	c->global_batch = (double)gb;
	c->seq = (double)seq;
	c->layers_first = layers_first;
	c->layers_last = layers_last;
	/* Interleaved takes 2 chunks per stage unless told; an explicit 1 is
	 * kept (the bubble of 1F1B, as 'pipeline --virtual 1' gives it). */
	if (c->schedule == PP_INTERLEAVED && !opts_given(options, "virtual-stages"))
		c->virt = 2;
}

/*
 * The compute of one step: the GPU's as rented, or a system's measured
 * one; returns whether it comes from a trace calibration.
 */
static int S_compute(struct ctx *ctx, const struct opt *options, struct step_opts *so,
		     struct step_config *c, struct ctx_gpu *gpu, int *have_gpu,
		     struct step_compute *cs)
{
	int from_trace;

	*have_gpu = S_compute_model(ctx, so->gpu, so->kernel_eff,
				    opts_given(options, "mfu") || opts_given(options, "compute"),
				    gpu, cs);
	step_opts_fp8_gpu(so, gpu, *have_gpu, "step");
	if (*have_gpu && !so->gpu_memory)
		so->gpu_memory = gpu->memory_B;
	if ((so->power_cap > 0 || so->hbm_Bps > 0) && !*have_gpu)
		die_usage("step: --power-cap and --hbm-bandwidth describe a GPU: give a system or --gpu");
	if (*have_gpu) {
		ctx_gpu_as_rented(gpu, so->power_cap, so->hbm_Bps, cs);
		cs->host_link_Bps = gpu->host_link_Bps;
	}
	if (ctx->machine.have_system)
		c->gpus_per_node = ctx->machine.system.gpus_per_node;
	/* A system saved by fit --trace: the compute it measured, flat (compare_trace_fit.c). */
	from_trace = !opts_given(options, "mfu") && !opts_given(options, "compute") &&
		     so->kernel_eff == 0 && trace_calib_mfu(ctx, cs, 0);
	if (from_trace)
		cs->kgpu = NULL;
	return from_trace;
}

/* The model: a workload preset, or a shape given whole; its sequence length. */
static void S_workload(const struct ctx *ctx, const char *workload_arg,
		       const struct shape_args *shape, struct workload *w, struct step_config *c)
{
	if (!workload_arg && !shape->layers)
		die_usage("step: give the model with --workload NAME");
	ctx_workload_shape(ctx, workload_arg, shape, w);
	if (c->seq == 0)
		c->seq = w->seq;
	if (c->seq == 0)
		die_usage("step: a shape without a workload preset needs --seq");
}

/* The configuration against the model, and its ranks against the system. */
static void S_check(const struct ctx *ctx, const struct workload *w, const struct step_config *c)
{
	struct errbuf eb;

	if (step_check(w, c, &eb) < 0)
		die_usage("step: %s", eb.msg);
	if (ctx->machine.have_system &&
	    system_check_ranks(&ctx->machine.system, c->tp * c->pp * c->dp * c->cp, &eb) < 0)
		die("step: %s", eb.msg);
}

int cmd_step(int argc, char **argv, struct ctx *ctx)
{
	struct step_config c;
	struct step_compute cs = { 0, STEP_MFU, 0, NULL, 0, 0 };
	struct step_result r;
	struct workload w;
	struct errbuf eb;
	struct step_stated st;
	struct shape_args shape = { 0 };
	double layers_first = 0, layers_last = 0;
	struct out *o;
	const char *workload_arg = NULL;
	struct step_opts so;
	struct ctx_gpu gpu;
	int have_gpu;
	unsigned long mb = 1, gb = 0, seq = 0;
	int explain = 0, from_trace;
	struct opt options[] = {
		OPT_GROUP_("the model"),
		{ .type = OPT_STRING, .long_name = "workload", .argh = "NAME", .value = &workload_arg,
		  .complete = "presets:workload",
		  .help = "model shape from a workload preset (gpt3-175b, ...)" },
		OPTS_SHAPE(&shape),
		OPT_GROUP_("parallelism"),
		OPT_CALLBACK_("tp", "N", &c.tp, opt_cb_whole, "tensor-parallel size (default 1)"),
		OPT_CALLBACK_("pp", "N", &c.pp, opt_cb_whole, "pipeline-parallel size (default 1)"),
		OPT_CALLBACK_("dp", "N", &c.dp, opt_cb_whole, "data-parallel size (default 1)"),
		OPT_CALLBACK_("cp", "N", &c.cp, opt_cb_whole, "context-parallel size, ring attention (default 1)"),
		OPT_CALLBACK_("ep", "N", &c.ep, opt_cb_whole, "expert-parallel size (default 1); ep x etp divides\n"
			      "tp x cp x dp"),
		OPT_CALLBACK_("zero", "N", &c.zero, step_opts_cb_zero,
			      "ZeRO stage 0-3 over the data-parallel ranks (default 0)"),
		OPT_FLAG_("sequence-parallel", &c.sp,
			  "Megatron sequence parallelism in the tensor-parallel group"),
		OPT_FLAG_("overlap-moe-expert-parallel-comm", &c.ep_overlap,
			  "the EP all-to-all of one micro-batch behind another's\n"
			  "compute, as Megatron-Core's flag of that name (needs ep\n"
			  "above 1; interleaved schedule when pipelined)"),
		{ .type = OPT_CALLBACK, .long_name = "cp-form", .argh = "FORM", .value = &c.cp_form,
		  .cb = step_opts_cb_cp_form, .complete = "ring allgather",
		  .help = "context parallelism as ring attention (default) or as\n"
			  "Llama 3's all-gather of K and V" },
		OPT_POSITIVE_("layers-first", "N", Q_NUMBER, &layers_first,
			      "layers on the first pipeline stage (default even, or\n"
			      "one fewer on the first and last when p does not divide l)"),
		OPT_POSITIVE_("layers-last", "N", Q_NUMBER, &layers_last,
			      "layers on the last pipeline stage (default --layers-first)"),
		OPTS_STEP_RUN(&so),
		OPT_GROUP_("the batch"),
		OPT_CALLBACK_("micro-batch", "N", &mb, opt_cb_whole, "sequences per micro-batch (default 1)"),
		OPT_CALLBACK_("global-batch", "N", &gb, opt_cb_whole,
			      "sequences per step (default dp x micro-batch)"),
		OPT_CALLBACK_("seq", "N", &seq, opt_cb_whole, "sequence length (default the workload's)"),
		{ .type = OPT_CALLBACK, .long_name = "recompute", .argh = "MODE", .value = &c.recompute,
		  .cb = step_opts_cb_recompute, .complete = STEP_OPTS_RECOMPUTE_WORDS,
		  .help = STEP_OPTS_RECOMPUTE_HELP },
		{ .type = OPT_CALLBACK, .long_name = "optimizer-moments", .argh = "P", .value = &c,
		  .cb = step_opts_cb_moments, .complete = "fp32 bf16",
		  .help = STEP_OPTS_MOMENTS_HELP },
		{ .type = OPT_CALLBACK, .long_name = "schedule", .argh = "NAME", .value = &c.schedule,
		  .cb = step_opts_cb_schedule, .complete = "1f1b gpipe interleaved dualpipe",
		  .help = "pipeline schedule: 1f1b (default), gpipe, interleaved,\n"
			  "dualpipe (DeepSeek-V3's: even pp, micro-batches even\n"
			  "and at least 2 x pp)" },
		OPT_CALLBACK_("offload-activations", "N", &c.offload, step_opts_cb_offload,
			      STEP_OPTS_OFFLOAD_HELP),
		OPT_CALLBACK_("virtual-stages", "V", &c.virt, opt_cb_whole,
			      "model chunks per stage of the interleaved schedule (default 2)"),
		OPT_CALLBACK_("moe-route-nodes", "M", &c.route_nodes, opt_cb_whole,
			      "node-limited routing as DeepSeek-V3's: a token's experts on\n"
			      "at most M nodes, sent once a node and forwarded over\n"
			      "NVLink inside it (M above the EP group's nodes: all of them)"),
		OPT_FLAG_("moe-dispatch-fp8", &c.dispatch_fp8,
			  "the all-to-alls toward the experts in FP8 (a scale every\n"
			  "128 values), the ones back in bf16, as DeepSeek-V3's"),
		OPT_POSITIVE_("capacity", "F", Q_NUMBER, &c.capacity,
			      "MoE capacity factor: each expert padded to F times the\n"
			      "mean, the busiest one's surplus dropped (default: dropless)"),
		{ .type = OPT_CALLBACK, .long_name = "attention", .argh = "KIND", .value = &c.attention,
		  .cb = step_opts_cb_attention, .complete = "auto fused unfused flash2",
		  .help = "auto (default): the framework's fused kernel (SDPA under fsdp);\n"
			  "fused: Transformer Engine's; flash2: FlashAttention-2's rates;\n"
			  "unfused: scores stored (models/step.md, \"Attention\")" },
		OPT_GROUP_("compute and memory"),
		OPTS_STEP_GPU(&so),
		OPT_POSITIVE_("compute", "TIME", Q_TIME, &cs.step_compute_s,
			      "compute of one step on one GPU (instead of a peak)"),
		OPT_FLAG_("explain", &explain, "say where each row comes from and what overlaps"),
		OPT_END_()
	};

	step_config_init(&c);
	step_opts_init(&so);
	opts_parse(argc, argv, options, &usage, 0);
	S_config(options, &so, mb, gb, seq, layers_first, layers_last, &c, &cs);
	S_workload(ctx, workload_arg, &shape, &w, &c);
	from_trace = S_compute(ctx, options, &so, &c, &gpu, &have_gpu, &cs);
	S_check(ctx, &w, &c);
	if (step_run_stated(&w, &c, &cs, &ctx->machine.model, ctx_has_errband(ctx, OP_ALLREDUCE),
			    &r, &st, &eb) < 0)
		die("step: %s", eb.msg);

	if (ctx_wants_figure(ctx))
		step_figure(ctx, &w, &c, &r);
	o = ctx_out_open(ctx);
	S_echo(ctx, o, &w, &c, &cs, &r, &gpu, have_gpu, opts_given(options, "peak") != NULL,
	       so.kernel_eff);
	S_ledger(o, &r);
	S_totals(o, &r, &st, so.gpu_memory);
	S_expected(o, &r);
	if (ctx_trace_calib(ctx))
		trace_calib_note(ctx, o, &w, &c, &cs, from_trace);
	if (explain)
		S_explain(o, &w, &c, &r);
	if (st.banded)
		ctx_errband_table(ctx, o, st.cells);
	ctx_out_close(ctx, o);
	return EXIT_OK;
}
