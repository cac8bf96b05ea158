#ifndef COMMTIME_OPTS_STEP_H
#define COMMTIME_OPTS_STEP_H

#include "opts.h"
#include "step.h"

/*
 * The configuration flags step and search share: one definition of each
 * option, one callback, one check, so the two commands cannot drift
 * apart.  A command puts OPTS_STEP_RUN and OPTS_STEP_GPU in its option
 * table, parses, then calls step_opts_check.
 */
struct step_opts {
	enum step_framework framework;  /* --framework (default megatron) */
	int tp_overlap;                 /* --tp-comm-overlap */
	int elementwise;                /* --elementwise: 0 by framework, 1 fused, 2 eager */
	double grad_bytes;              /* --grad-bytes; the framework's default when not given */
	const char *gpu;                /* --gpu NAME, or NULL */
	double peak;                    /* --peak FLOP/s; 0: the GPU's */
	double kernel_eff;              /* --kernel-efficiency; 0: by shape */
	double mfu;                     /* --mfu: the flat model; 0: not given */
	double gpu_memory;              /* --gpu-memory B; 0: the GPU's */
	enum step_precision precision;  /* --precision (default bf16) */
	unsigned long etp;              /* --etp; 0: not given (tp) */
	double moe_imbalance;           /* --moe-imbalance (default 1) */
	unsigned long dp_replicate;     /* --dp-replicate; 0: not given (1) */
	double power_cap;               /* --power-cap W; 0: the preset's power */
	double hbm_Bps;                 /* --hbm-bandwidth B/s; 0: the preset's */
};

/* megatron, no overlap, nothing given. */
void step_opts_init(struct step_opts *so);

/* Callbacks of the options only step takes (value: the step_config field). */
opt_cb step_opts_cb_zero;       /* int *: 0-3 */
opt_cb step_opts_cb_recompute;  /* enum recompute * */
opt_cb step_opts_cb_schedule;   /* enum pp_schedule * */
opt_cb step_opts_cb_attention;  /* enum attention_kind * */
opt_cb step_opts_cb_cp_form;    /* enum step_cp_form * */
opt_cb step_opts_cb_framework;  /* enum step_framework * */
opt_cb step_opts_cb_precision;  /* enum step_precision * */
opt_cb step_opts_cb_elementwise; /* int *: 1 fused, 2 eager */
opt_cb step_opts_cb_moments;    /* struct step_config *: bf16 or fp32 Adam moments */
opt_cb step_opts_cb_offload;    /* unsigned long *: layers offloaded, a whole number >= 0 */

/* --help of step's --optimizer-moments and --offload-activations. */
#define STEP_OPTS_MOMENTS_HELP \
	"Adam's two moments in fp32 (default; 12 bytes a parameter\n" \
	"with the fp32 master) or bf16 (8; DeepSeek-V3's, its\n" \
	"report's section 3.3.3)"
#define STEP_OPTS_OFFLOAD_HELP \
	"the saved activations of the first N layers to host\n" \
	"memory after their forward, back before their backward,\n" \
	"as Megatron-Core's cpu_offloading_num_layers (default 0:\n" \
	"off; no pipeline, --recompute none)"

/* --help of --recompute: every level and what it keeps, one a line. */
#define STEP_OPTS_RECOMPUTE_HELP \
	"activation recomputation, named for what the forward keeps:\n" \
	"none (default): every activation backward needs\n" \
	"selective: all but the attention core's scores (Megatron)\n" \
	"full: each layer's input, the whole forward recomputed\n" \
	"matmul-outputs: every matmul's and the attention kernel's\n" \
	"  output; norms, activation functions, elementwise recomputed\n" \
	"alternate-matmul-outputs: as matmul-outputs, every second\n" \
	"  matmul of a layer recomputed too (torchtitan's per-op policy)\n" \
	"norm-and-swiglu-inputs: each norm's and SwiGLU's inputs; norms,\n" \
	"  MLA's up projections and SwiGLU's output recomputed\n" \
	"  (DeepSeek-V3's; with fp8 its FP8 and E5M6 caches)\n" \
	"(models/step.md, \"Recomputation\")"
#define STEP_OPTS_RECOMPUTE_WORDS "none selective full matmul-outputs alternate-matmul-outputs " \
	"norm-and-swiglu-inputs"

#define OPTS_STEP_RUN(so) \
	{ .type = OPT_CALLBACK, .long_name = "framework", .argh = "NAME", \
	  .value = &(so)->framework, .cb = step_opts_cb_framework, \
	  .complete = "megatron deepspeed fsdp deepspeed-2021", \
	  .help = "what overlaps with what: megatron (default), deepspeed, fsdp,\n" \
		  "deepspeed-2021 (ZeRO-3 as DeepSpeed ran it in 2021); read too:\n" \
		  "torchtitan, torchtune, fsdp1, fsdp2, llm-foundry, composer,\n" \
		  "fairscale, metaseq as fsdp; nemo, mcore, megatron-lm,\n" \
		  "megatron-core, megatron-bridge as megatron; megatron-deepspeed\n" \
		  "as deepspeed (models/step.md, \"Overlap\")" }, \
	OPT_FLAG_("tp-comm-overlap", &(so)->tp_overlap, \
		  "the forward TP all-gathers and reduce-scatters behind their\n" \
		  "GEMMs, in chunks (Megatron's --tp-comm-overlap; under\n" \
		  "--framework fsdp PyTorch's async TP, backward too; needs\n" \
		  "sequence parallelism, which search always has)"), \
	{ .type = OPT_CALLBACK, .long_name = "elementwise", .argh = "HOW", \
	  .value = &(so)->elementwise, .cb = step_opts_cb_elementwise, .complete = "fused eager blocks", \
	  .help = "norms, activations, rotary, residual adds: fused (Megatron's\n" \
		  "and Transformer Engine's kernels, or torch.compile) or eager\n" \
		  "(PyTorch without compile, an operator a kernel, the loss's\n" \
		  "logits 12 bytes each at its peak, not 4); blocks: fused by\n" \
		  "torch.compile a block, the loss eager; default eager with\n" \
		  "--framework fsdp, else fused (models/step.md)" }, \
	OPT_POSITIVE_("grad-bytes", "SIZE", Q_SIZE, &(so)->grad_bytes, \
		      "bytes per gradient value reduced (default 4, fp32; 2 with\n" \
		      "--framework deepspeed)"), \
	{ .type = OPT_CALLBACK, .long_name = "precision", .argh = "P", \
	  .value = &(so)->precision, .cb = step_opts_cb_precision, .complete = "bf16 fp8", \
	  .help = "the linears' GEMMs in bf16 (default) or fp8 as Transformer\n" \
		  "Engine runs them, at the GPU's FP8 peak (tflops_fp8); the\n" \
		  "attention core and output layer stay bf16; MFU still counts\n" \
		  "against the dense bf16 peak; fp8 also as fp8-cs, fp8-ds,\n" \
		  "fp8-mx, mxfp8 (the recipes of frameworks' tables)" }, \
	OPT_CALLBACK_("etp", "N", &(so)->etp, opt_cb_whole, \
		      "expert tensor-parallel size: experts folded over their own\n" \
		      "grid as Megatron-Core folds them, ep x etp dividing\n" \
		      "tp x cp x dp (default tp; search: tp, and 1 where that\n" \
		      "lets a larger ep run)"), \
	OPT_POSITIVE_("moe-imbalance", "F", Q_NUMBER, &(so)->moe_imbalance, \
		      "the busiest expert's tokens over the mean (default 1): its\n" \
		      "GEMMs and the all-to-all that feeds it take F times as long"), \
	OPT_CALLBACK_("dp-replicate", "N", &(so)->dp_replicate, opt_cb_whole, \
		      "hybrid sharding: ZeRO-3/FSDP within groups of dp x cp / N\n" \
		      "ranks, gradients all-reduced across the N replicas (HSDP;\n" \
		      "needs --zero 3; search: one node's ranks a group too)")

#define OPTS_STEP_GPU(so) \
	{ .type = OPT_STRING, .long_name = "gpu", .argh = "NAME", .value = &(so)->gpu, \
	  .complete = "presets:gpu", \
	  .help = "the GPU's peak and memory from a gpu preset (default the\n" \
		  "system's GPU; search on a single link: h100-sxm)" }, \
	OPT_POSITIVE_("peak", "RATE", Q_NUMBER, &(so)->peak, \
		      "dense bf16 peak of one GPU in FLOP/s (989e12)"), \
	OPT_POSITIVE_("kernel-efficiency", "F", Q_NUMBER, &(so)->kernel_eff, \
		      "every GEMM at this share of the dense peak, in place of\n" \
		      "the shape model (attention and memory-bound work stay)"), \
	OPT_POSITIVE_("mfu", "F", Q_NUMBER, &(so)->mfu, \
		      "the old flat model: every FLOP at this share of the peak\n" \
		      "(no kernel model, nothing by shape); not the all-in MFU\n" \
		      "printed, which counts bubble and communication too"), \
	OPT_POSITIVE_("gpu-memory", "SIZE", Q_SIZE, &(so)->gpu_memory, \
		      "memory of one GPU, to say whether the step fits\n" \
		      "(80GiB: an H100's or A100's \"80 GB\" is binary)"), \
	OPT_POSITIVE_("power-cap", "W", Q_NUMBER, &(so)->power_cap, \
		      "the GPU run at this board power: its clock as the cube\n" \
		      "root of cap / the preset's power_w (models/step.md)"), \
	OPT_POSITIVE_("hbm-bandwidth", "RATE", Q_RATE, &(so)->hbm_Bps, \
		      "the GPU's memory bandwidth as rented, in place of its\n" \
		      "preset's (e.g. 2.4TB/s)")

/*
 * After parsing: the shares at most 1, one compute model, the gradient
 * bytes of the framework when not given.  Dies with a usage error naming cmd ("step").
 */
void step_opts_check(const struct opt *options, struct step_opts *so, const char *cmd);

/*
 * --precision fp8 on the GPU resolved: dies (exit 2) when no GPU preset
 * is known, (exit 1) when the GPU has no FP8 tensor cores (sm80 and
 * older) or its preset no tflops_fp8.
 */
struct ctx_gpu;
void step_opts_fp8_gpu(const struct step_opts *so, const struct ctx_gpu *gpu, int have_gpu,
		       const char *cmd);

/* 1 when the elementwise work runs eager: --elementwise, or by the framework
 * (fsdp eager, the others fused). */
int step_opts_eager(const struct step_opts *so);

/* The options into a step configuration: framework, overlap, gradient
 * bytes, precision, etp, imbalance, replicas. */
void step_opts_config(const struct step_opts *so, struct step_config *c);

#endif
