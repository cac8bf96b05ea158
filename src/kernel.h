#ifndef COMMTIME_KERNEL_H
#define COMMTIME_KERNEL_H

#include "system.h"
#include "workload.h"

/*
 * The compute of one transformer layer by kernel: each GEMM with its
 * M x N x K after tensor parallelism, the attention core (fused or not)
 * and the memory-bound work (norms, activations, residuals, dropout) from
 * the bytes it moves.  A GEMM runs at a share of the dense peak that
 * depends on its shape: the largest share a well-shaped GEMM reaches on
 * the GPU (a kernel benchmark), times tile and wave quantisation against
 * the SM count (NVIDIA, "Matrix Multiplication Background User's Guide",
 * 2023); memory-bound kernels run at a share of the HBM bandwidth
 * (a roofline).  Formulas and sources: models/step.md, "Compute by kernel".
 * Times in seconds, sizes in bytes.
 */

/* Defaults when a gpu preset does not say (models/step.md says why). */
#define KERNEL_GEMM_EFF 0.80     /* share of the peak a large bf16 GEMM reaches */
#define KERNEL_HBM_EFF 0.85      /* share of the HBM bandwidth a streaming kernel reaches */
/* Share of the FP8 peak a large FP8 GEMM reaches: 1,550 of H800's 1,979
 * dense TFLOP/s (DeepGEMM README, deepseek-ai/DeepGEMM, 2025: "up to 1550
 * TFLOPS on H800"); an 8192 x 8192 x 16384 FP8 GEMM on H800 reaches 1,523
 * (tile-ai/tilelang, benchmark/matmul_fp8/README.md). */
#define KERNEL_FP8_GEMM_EFF 0.78
/* Bytes a fused cast-transpose moves per element: it reads the bf16 value
 * (2) and writes its FP8 copy and the FP8 copy of the transpose (1 + 1),
 * its amax reduced on the way (Transformer Engine's cast_transpose
 * kernels; Hopper's FP8 GEMM takes only the TN layout, so the weight- and
 * data-gradient GEMMs need the transposes). */
#define KERNEL_FP8_CAST_BYTES 4
/* Bytes a bf16 token copy moves per element: read 2, write 2 (the MoE
 * dispatcher's permutations, kernel.c's S_moe_copy_bytes). */
#define KERNEL_COPY_BYTES 4
#define KERNEL_TILE_M 256        /* cuBLAS's largest bf16 tile, 256 x 128 */
#define KERNEL_TILE_N 128

/* flash2: fused, at FlashAttention-2's rates on Hopper (models/step.md, "Attention") */
enum attention_kind { ATTN_AUTO, ATTN_FUSED, ATTN_UNFUSED, ATTN_FLASH2, ATTN_COUNT };

int attention_lookup(const char *name, enum attention_kind *a, struct errbuf *eb);

/* What the kernels run on. */
struct kernel_gpu {
	double peak;          /* FLOP/s: dense bf16 peak, > 0 */
	double sms;           /* streaming multiprocessors; 0: no wave quantisation */
	double hbm_Bps;       /* B/s: HBM bandwidth; 0: memory-bound work is not timed */
	double gemm_eff;      /* share of the peak a large GEMM reaches */
	double hbm_eff;       /* share of hbm_Bps a streaming kernel reaches */
	double attn_fwd_eff;  /* fused attention forward: share of the peak */
	double attn_bwd_eff;  /* fused attention backward */
	double fa2_fwd_eff;   /* FlashAttention-2 forward, as PyTorch's SDPA runs it: share
				 of the peak (on sm90 below the Hopper kernels) */
	double fa2_bwd_eff;   /* FlashAttention-2 backward */
	int fused_ok;         /* the GPU runs fused (flash) attention: sm80 and newer */
	int fused_cudnn;      /* its fused kernel is cuDNN's (Transformer Engine on sm90
				 and newer), else FlashAttention-2's */
	double fixed_eff;     /* > 0: every GEMM at this share (--kernel-efficiency) */
	double fp8_peak;      /* FLOP/s: dense FP8 peak; 0: no FP8 */
	double fp8_gemm_eff;  /* share of fp8_peak a large FP8 GEMM reaches */
};

/*
 * The FP8 peak of the GPU (FLOP/s; 0: none), its large GEMMs at
 * KERNEL_FP8_GEMM_EFF of it, or at fixed_eff when that is set.
 */
void kernel_gpu_set_fp8(struct kernel_gpu *g, double fp8_peak);

/*
 * The kernel model of a gpu preset's values: arch, peak (FLOP/s), sms,
 * HBM bandwidth (B/s), the large-GEMM share (NaN or 0: KERNEL_GEMM_EFF).
 * Fused attention's shares: FlashAttention-2 on sm80/sm86/sm89,
 * FlashAttention-3 and cuDNN's Hopper kernels on sm90 and newer, and
 * FlashAttention-2's own on sm90, which PyTorch's SDPA runs
 * (models/step.md).
 */
void kernel_gpu_init(struct kernel_gpu *g, enum gpu_arch arch, double peak, double sms,
		     double hbm_Bps, double gemm_eff);

/*
 * Share of the peak a GEMM of M x N x K (batch of them) reaches:
 * gemm_eff x (useful / computed tile area) x (tiles / (waves x SMs)),
 * the better of a 256x128 and a 128x256 tile (or fixed_eff when set).
 */
double kernel_gemm_eff(const struct kernel_gpu *g, double M, double N, double batch);

/* Time of batch GEMMs of M x N x K in bf16: max(math, memory) (a roofline). */
double kernel_gemm_s(const struct kernel_gpu *g, double M, double N, double K, double batch);

/* Time of a memory-bound kernel that moves `bytes`. */
double kernel_mem_s(const struct kernel_gpu *g, double bytes);

/* One layer's shape on one GPU for one micro-batch. */
struct kernel_shape {
	double tokens;        /* T: tokens of the micro-batch on this rank, b·s/c */
	double seq;           /* s: whole sequence length (keys a query may see) */
	double cp;            /* c: context-parallel size (queries s/c against s keys) */
	double tp;            /* t */
	int sp;               /* sequence parallelism: elementwise work on T/t tokens */
	int fused;            /* fused attention */
	double ep;            /* e: expert-parallel size */
	double capacity;      /* MoE: tokens the busiest expert computes over the mean
				 (the capacity factor when padded to it, else the imbalance) */
	int fp8;              /* the linears' GEMMs in FP8 (Transformer Engine's recipe):
				 QKV, attention output, the MLP or the experts; the
				 router, the attention core and the output layer stay bf16 */
	double microbatches;  /* m: the FP8 weight copies are cast once per step (<= 1: 1) */
	double etp;           /* expert tensor-parallel size (0: t) */
	int eager;            /* elementwise work as eager PyTorch runs it, an operator a
				 kernel (FSDP without torch.compile) */
	int sdpa;             /* fused attention through PyTorch's SDPA: FlashAttention-2's
				 kernels (fa2_*_eff), not the Hopper ones Transformer
				 Engine calls */
	double attn_len;      /* keys one fused attention call sees a query tile through
				 (s; s/c a ring step of context parallelism; 0: s) */
};
/* Every field above is in the key of src/step_kmemo.c, which keeps a
 * layer's kernels by shape: a field added here goes there too (this size
 * says when one was). */
_Static_assert(sizeof(struct kernel_shape) == 96, "a kernel_shape field is not in step_kmemo.c's key");

/* The linears of a layer whose times kernel_layer keeps apart. */
#define KERNEL_LINEARS 4

/* Bytes Megatron's unfused cross-entropy moves per logit, forward and
 * backward (kernel_output_s). */
#define KERNEL_CE_BYTES 52

/* Keys at which a fused attention kernel runs at half its long-sequence share
 * (kernel.c, S_flash). */
#define KERNEL_ATTN_L0 300.0

/* A fused attention kernel's share of the peak at head dimension d against
 * its share at 128 (kernel.c; sdpa: FlashAttention-2's, else cuDNN's). */
double kernel_attn_head_share(int sdpa, double d);

/* One layer's compute, one micro-batch, one GPU. */

struct kernel_layer {
	double gemm_fwd_s;     /* the layer's GEMMs, forward */
	double gemm_bwd_s;     /* their data- and weight-gradient GEMMs */
	double wgrad_in_s;     /* weight-gradient GEMMs of QKV and the MLP's first matrix
				  (what Megatron hides the backward TP collective behind);
				  of QKV alone in an MoE layer, whose experts' input comes
				  by the dispatcher, not a TP collective */
	/* Each linear's forward and data-gradient GEMM, in the order QKV,
	 * attention output, the MLP's first (SwiGLU's gate and up), its
	 * last: what --tp-comm-overlap pairs a TP collective with. */
	double lin_fwd_s[KERNEL_LINEARS], lin_dgrad_s[KERNEL_LINEARS];
	double attn_fwd_s;     /* the attention core, forward (fused kernel or the
				  unfused GEMMs, softmax and dropout) */
	double attn_bwd_s;
	double mem_fwd_s;      /* memory-bound work outside the attention core */
	double mem_bwd_s;
	double cast_s;         /* FP8 casts of inputs, output gradients and weights
				  (part of mem_fwd_s and mem_bwd_s) */
	double copy_s;         /* an MoE layer's token copies of the dispatcher, one
				  way (part of mem_fwd_s and of mem_bwd_s) */
	double up_fwd_s;       /* latent attention's up projections, forward GEMMs
				  (part of gemm_fwd_s) */
	double fwd_s, bwd_s;   /* totals */
	double flops_fwd;      /* FLOPs the kernels run forward (causal attention counted as run) */
};

/*
 * The kernels of one layer of w with shape sh on g.  Returns 0, or -1
 * with eb filled (a shape that cannot be timed).
 */
int kernel_layer(const struct kernel_gpu *g, const struct workload *w,
		 const struct kernel_shape *sh, struct kernel_layer *k, struct errbuf *eb);

/*
 * The output layer and its cross-entropy on the last stage, forward and
 * backward, one micro-batch: the logits GEMM T x V/t x h, its two gradient
 * GEMMs, and the softmax over fp32 logits (memory-bound).
 */
double kernel_output_s(const struct kernel_gpu *g, const struct workload *w,
		       const struct kernel_shape *sh);

/*
 * Adam's update of `params` parameters (fp32 master weights, momentum,
 * variance and gradient read, the three written back, bf16 weights
 * written): 14 + 4·moment bytes per parameter through HBM, 30 with fp32
 * moments (moment 4), 22 with BF16 ones (2).
 */
double kernel_adam_bytes(double moment);
double kernel_adam_s(const struct kernel_gpu *g, double params, double moment);

#endif
