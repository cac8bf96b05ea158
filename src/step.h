#ifndef COMMTIME_STEP_H
#define COMMTIME_STEP_H

#include "util.h"
#include "cost.h"
#include "pipeline.h"
#include "workload.h"
#include "kernel.h"
#include "expect.h"

/*
 * One training step of a transformer under tensor, pipeline, data,
 * context and expert parallelism: the ledger of every collective it runs,
 * the step time and the memory per GPU.  The core never prints; formulas,
 * sources and worked examples are in models/step.md.
 *
 * Symbols: t tensor, p pipeline, d data, c context, e expert parallel
 * sizes; b micro-batch (sequences), B global batch (sequences), s sequence
 * length, h hidden size, l layers, m = B/(d·b) micro-batches per step.
 * Sizes in bytes, times in seconds.
 */

/*
 * The collective times come from the cost model (cost.h): every collective
 * of a step is cost_coll of the model's preferred algorithm on its group.
 * On NCCL's model a step can be priced again with every all-reduce at the
 * low or high end of its stated error (errband.h).
 */
enum step_band { STEP_BAND_NONE, STEP_BAND_LO, STEP_BAND_HI };

/* What overlaps with what: the framework that runs the step (models/step.md). */
/* FW_DEEPSPEED_2021: DeepSpeed's ZeRO-3 as released in 2021 (v0.3.14-v0.5.4),
 * before its gathers and reduce-scatters moved to flat buffers. */
enum step_framework { FW_MEGATRON, FW_DEEPSPEED, FW_FSDP, FW_DEEPSPEED_2021, FW_COUNT };
/* 1 for DeepSpeed of any time. */
int step_framework_deepspeed(enum step_framework f);
/* 1 when the framework runs Megatron's layers, which --tp-comm-overlap needs. */
int step_framework_megatron_layers(enum step_framework f);
/* The bytes of a gradient value the framework reduces by default: DeepSpeed
 * the model's 16-bit type (2), the others fp32 (4; models/ddp.md). */
double step_framework_grad_bytes(enum step_framework f);
const char *step_framework_name(enum step_framework f);   /* "megatron", ... */
int step_framework_lookup(const char *name, enum step_framework *f, struct errbuf *eb);

/* Context parallelism: ring attention, or Llama 3's all-gather of K and V. */
enum step_cp_form { CP_RING, CP_ALLGATHER, CP_FORM_COUNT };
const char *step_cp_form_name(enum step_cp_form f);       /* "ring", "allgather" */
int step_cp_form_lookup(const char *name, enum step_cp_form *f, struct errbuf *eb);

enum step_dim { DIM_TP, DIM_CP, DIM_EP, DIM_PP, DIM_DP, DIM_COUNT };
enum step_phase { PH_FORWARD, PH_BACKWARD, PH_OPTIMIZER, PH_COUNT };
/*
 * Activation recomputation, named for what the forward keeps
 * (models/step.md, "Recomputation"): none; selective (Megatron: all but
 * the attention core's scores); full (each layer's input); matmul-outputs
 * (the outputs of every matmul and of the attention kernel, the rest
 * recomputed); alternate-matmul-outputs (torchtitan's per-op policy: the
 * same with every second matmul of a layer recomputed too);
 * norm-and-swiglu-inputs (DeepSeek-V3's: each norm's input and SwiGLU's
 * inputs kept; norms, latent attention's up projections and SwiGLU's
 * output recomputed).
 */
enum recompute { RC_NONE, RC_SELECTIVE, RC_FULL, RC_MATMUL, RC_ALT_MATMUL, RC_NORM_SWIGLU,
		 RC_COUNT };

/* The precision of the linears' GEMMs: bf16, or FP8 as Transformer Engine runs it. */
enum step_precision { PREC_BF16, PREC_FP8, PREC_COUNT };
const char *step_precision_name(enum step_precision p);   /* "bf16", "fp8" */
int step_precision_lookup(const char *name, enum step_precision *p, struct errbuf *eb);

const char *step_dim_name(enum step_dim d);       /* "tp", "cp", ... */
const char *step_phase_name(enum step_phase p);   /* "forward", ... */
const char *recompute_name(enum recompute r);     /* "none", "selective", "full", ... */
/* What each level keeps and recomputes, one line for --help and the echo. */
const char *recompute_about(enum recompute r);
int recompute_lookup(const char *name, enum recompute *r, struct errbuf *eb);

/*
 * Adam's moments in `bytes` each (4: fp32, the default; 2: BF16, as
 * DeepSeek-V3 keeps them, arXiv:2412.19437, §3.3.3, with the master
 * weights fp32): the optimizer's state is the fp32 master 4 + 2·bytes a
 * parameter, 12 or 8.
 */
struct step_config;
void step_config_moments(struct step_config *c, double bytes);

/* Defaults (models/step.md says why). */
#define STEP_GRAD_BYTES 4.0     /* fp32 gradient reduction (Megatron, PyTorch AMP) */
/* The calculators' gradients: bf16, as the ZeRO paper counts them (Rajbhandari
 * et al. 2020, sec. 3: 2 bytes a gradient, 16 a parameter at stage 0) and as
 * the seed's DDP section reduces them (7B parameters, 14 GB). */
#define ZERO_GRAD_BYTES 2.0     /* zero: the paper's fp16/bf16 gradients */
/* Bytes a parameter DeepSpeed's bf16 optimizer moves each micro-batch adding
 * its gradient into the fp32 one (bf16_optimizer.py, update_hp_grads). */
#define STEP_DS_BF16_ACC_B 18.0
#define DDP_GRAD_BYTES 2.0      /* ddp, plan: the seed's bf16 gradients */
#define STEP_PARAM_BYTES 2.0    /* bf16 weights */
#define STEP_OPTIM_BYTES 12.0   /* Adam: fp32 master copy, momentum, variance */
#define STEP_MOMENT_BYTES 4.0   /* each of Adam's two moments, fp32 */
#define STEP_ACT_BYTES 2.0      /* bf16 activations */
#define STEP_CAPACITY 1.0       /* MoE capacity factor */
/* The host link when no GPU says: PCIe Gen5 x16 as copies reach it,
 * nvbandwidth's host-to-device 52 GB/s on ND_H200_v5 (Azure/
 * AI-benchmarking-guide; system_host_link_Bps) */
#define STEP_HOST_LINK_BPS 52e9
#define STEP_MFU 0.5            /* --mfu: the flat share of the peak, when no kernel model */
/*
 * Memory no model term holds: the CUDA context, NCCL's buffers and
 * cuBLAS's workspace (models/step-memory.md, "Reserve").
 */
#define STEP_RESERVE_B (2.0 * 1024 * 1024 * 1024)
/*
 * Above this share of the GPU's memory a configuration fits by the count
 * but with less to spare than PyTorch's caching allocator took beyond it
 * in torchtitan's logged runs (7 GB of an 80 GiB GPU's 85.9 GB; models/
 * step-memory.md, "Reserve"): step and search say so, the verdict stays.
 */
#define STEP_MEM_TIGHT 0.92

struct step_config {
	unsigned long tp, pp, dp, cp, ep;
	int zero;                  /* 0-3 */
	int sp;                    /* Megatron sequence parallelism (needs tp > 1 to matter) */
	int tp_overlap;            /* --tp-comm-overlap: forward TP collectives behind their GEMMs (needs sp) */
	int eager;                 /* 1: elementwise work an operator a kernel, as eager PyTorch runs it
				      (--elementwise eager; the default with --framework fsdp); 2: fused
				      by torch.compile a block, the loss outside it eager
				      (--elementwise blocks); 0: fused */
	double micro_batch;        /* b: sequences */
	double global_batch;       /* B: sequences; 0 = d·b (one micro-batch) */
	double seq;                /* s: tokens per sequence */
	enum recompute recompute;
	enum pp_schedule schedule;
	unsigned long virt;        /* v: model chunks per stage (interleaved) */
	double grad_bytes, param_bytes, optim_bytes, act_bytes;
	double moment_bytes;       /* each Adam moment: 4 (fp32) or 2 (BF16, DeepSeek-V3's);
				      optim_bytes counts them (step_config_moments) */
	double capacity;           /* MoE capacity factor (with capacity_given; else dropless) */
	int capacity_given;        /* 1: each expert padded to capacity x the mean, the busiest
				      expert's surplus dropped; 0: dropless, the busiest runs
				      moe_imbalance x the mean */
	double moe_imbalance;      /* the busiest expert's tokens / the mean (>= 1; default 1) */
	unsigned long etp;         /* expert tensor-parallel size (0: tp, Megatron's default) */
	int ep_overlap;            /* --overlap-moe-expert-parallel-comm: the EP all-to-all of one
				      micro-batch behind another's compute (Megatron-Core) */
	unsigned long route_nodes; /* --moe-route-nodes M: node-limited routing, a token's copies
				      sent once per node it reaches (at most M) and forwarded
				      inside it (DeepSeek-V3, §3.2.2); 0: off */
	int dispatch_fp8;          /* --moe-dispatch-fp8: the all-to-alls toward the experts in
				      FP8 with a scale every 128 values (STEP_DISPATCH_FP8_BYTES),
				      the ones back in act_bytes (DeepSeek-V3, §3.3.3) */
	unsigned long offload;     /* --offload-activations N: the saved activations of the
				      stage's first N layers to host memory after their forward,
				      back before their backward (Megatron-Core's
				      cpu_offloading_num_layers, Transformer Engine's
				      cpu_offload.py); 0: off */
	unsigned long dp_replicate; /* hybrid sharding: ZeRO within dp/N ranks, N replicas (1) */
	enum step_precision precision;   /* default bf16 */
	unsigned long gpus_per_node;  /* for placing ranks; 0 = every group in one node */
	enum step_framework framework;   /* default megatron */
	enum attention_kind attention;   /* auto: fused where the GPU has it */
	enum step_cp_form cp_form;       /* default ring */
	double layers_first, layers_last; /* layers on the first and last stage;
					     0: even, or Megatron/Llama 3's uneven split */
};

/*
 * 1 when fused attention runs at FlashAttention-2's rates: --attention
 * flash2, or by default (auto) PyTorch's SDPA under --framework fsdp, in
 * bf16 and fp8 alike (torchao's Float8 converts the linears alone);
 * --attention fused names the GPU's fastest fused kernel, Transformer
 * Engine's (models/step.md, "Attention").
 */
int step_attention_flash2(const struct step_config *c);

/*
 * Bytes a value of an FP8 dispatch: the E4M3 value and one 4-byte scale
 * every 128 values (DeepSeek-V3, arXiv:2412.19437, §3.3.2: activations
 * scaled per 1x128 tile; DeepEP's FP8 dispatch takes the tiles' float
 * scales beside the values).  Megatron-Core's MXFP8 dispatch, one 1-byte
 * E8M0 scale every 32 values (transformer_config.py,
 * moe_dispatch_fwd_dtype), comes to the same 1 + 1/32.
 */
#define STEP_DISPATCH_FP8_BYTES (1.0 + 4.0 / 128.0)

/*
 * Node-limited routing: the expected number of distinct nodes among a
 * token's k experts, E experts spread evenly over N nodes, the token
 * restricted to M of them (M clamped to N) and its k experts uniform
 * among the experts of those M nodes:
 *   D = M (1 - C(M e - e, k) / C(M e, k)),   e = E / N,
 * each of the M nodes missed with the probability that all k picks fall
 * among the other nodes' (M - 1) e experts.  NaN when k exceeds M e.
 */
double step_route_nodes_expected(double E, double k, double N, double M);

/*
 * An expert all-to-all of `ranks`, `per_node` of them a node, under
 * node-limited routing (c->route_nodes), E experts of which a token picks
 * k: the nodes the group spans (*N) and the expected distinct nodes a
 * token reaches (returned; NaN when the capped nodes hold fewer experts
 * than a token picks).
 */
double step_route_row_nodes(const struct step_config *c, double E, double k,
			    unsigned long ranks, unsigned long per_node, double *N);

/* tp = pp = dp = cp = ep = 1, zero 0, no SP, b = 1, 1F1B, the defaults above. */
void step_config_init(struct step_config *c);

/* The expert tensor-parallel size: etp, or tp when not given. */
unsigned long step_etp(const struct step_config *c);

/*
 * Tokens the busiest expert computes over the mean: the capacity factor
 * when experts are padded to it (capacity_given), else the imbalance.
 */
double step_moe_load(const struct step_config *c);

/* Share of the busiest expert's tokens dropped: 1 - capacity/imbalance when
 * a capacity is given below the imbalance, else 0. */
double step_moe_dropped(const struct step_config *c);

/*
 * Check a configuration against a workload: sizes >= 1, pp dividing the
 * layers (by v chunks too), tp dividing the heads and key/value heads,
 * cp dividing s, ep dividing the experts and ep·etp dividing t·c·d (the
 * experts folded over their own grid, as Megatron-Core folds them), B a
 * multiple of d·b, dp_replicate dividing d with ZeRO, v = 1 unless
 * interleaved and m a multiple of p for it.  Returns 0, or -1 with eb saying which.
 */
int step_check(const struct workload *w, const struct step_config *c, struct errbuf *eb);

/*
 * step_check in its parts, run in this order; each reads only the fields
 * its part names, so a search can check a part once for every
 * configuration that shares them:
 *   CHECK_LAYOUT    sizes >= 1; pp and the layers, tp and the heads,
 *                   --tp-comm-overlap, the sequence length
 *                   (tp, pp, layers_first/last, sp, tp_overlap, framework, seq)
 *   CHECK_CP        cp dividing s, and cp 1 with sliding-window layers (cp, seq)
 *   CHECK_EXPERTS   ep, etp (ep, etp, tp, cp, dp, sp, moe_imbalance, capacity_given,
 *                   route_nodes, dispatch_fp8)
 *   CHECK_SHARDING  ZeRO stage and --dp-replicate (zero, pp, framework, dp_replicate, dp)
 *   CHECK_BATCH     b whole, B a multiple of d·b (micro_batch, global_batch, dp)
 *   CHECK_SCHEDULE  v and the interleaved schedule, bytes per value, the
 *                   recompute level and --offload-activations (schedule, virt, pp,
 *                   layers_first/last, global_batch, dp, micro_batch, recompute,
 *                   offload, framework)
 * step_check is every part in order: the first part that refuses says why.
 */
enum step_check_part { CHECK_LAYOUT, CHECK_CP, CHECK_EXPERTS, CHECK_SHARDING, CHECK_BATCH,
	CHECK_SCHEDULE, CHECK_PARTS };
int step_check_part(const struct workload *w, const struct step_config *c,
		    enum step_check_part part, struct errbuf *eb);

/*
 * Layers on the first, a middle and the last pipeline stage.  Even when p
 * divides l; else as given in c (layers_first, layers_last), or as Llama 3
 * split 126 layers over 16 stages (one layer fewer on the first and the
 * last): middle stages ceil(l/p), the rest shared by the first and last.
 * Returns 0, or -1 when the layers cannot be split so.
 */
int step_stage_layers(const struct workload *w, const struct step_config *c, double *first,
		      double *middle, double *last, struct errbuf *eb);

/* One row of the ledger: one kind of collective in one phase. */
struct step_row {
	enum step_dim dim;
	enum step_phase phase;
	enum coll_op op;
	double count;          /* per micro-batch (tp, cp, ep, pp) or per step (dp) */
	double bytes;          /* B: one collective, nccl-tests' size */
	unsigned long ranks, per_node;
	const char *tier;
	double one_s;          /* s: one collective */
	int ctas;              /* SMs its kernel holds while it runs (0: not known) */
	double sms;            /* > 0: the SMs of the GPU when those CTAs bound what hides */
	double time_s;         /* s: count × one_s */
	double exposed_s;      /* s: the part not hidden behind compute */
	double hidden_s;       /* s: time_s - exposed_s */
	const char *overlap;   /* what it hides behind, or NULL when exposed */
	const char *stage;     /* edges only: "first", "last", "first+last" */
};

#define STEP_ROWS_MAX 24

struct step_memory {
	double weights_B, grads_B, optim_B, act_B;
	double act_layer_B;    /* one layer, one micro-batch */
	double inflight;       /* micro-batches whose activations are held */
	double reserve_B;      /* CUDA context, NCCL buffers (STEP_RESERVE_B) */
	double fp8_weights_B;  /* part of weights_B: FP8 copies of the linears' weights */
	double offload_B;      /* activations sent to host memory instead (not in act_B) */
	double total_B;        /* all of the above */
	const char *stage;     /* "first", "middle", "last", "only": the most loaded */
	double stage_layers;   /* its layers */
};

/*
 * Activation offload (--offload-activations; models/step-teams.md,
 * "Activation offload"): per micro-batch, one layer's saved activations go out after
 * its forward and come back before its backward over the host link.
 */
struct step_offload {
	double layers;         /* N: layers offloaded on the stage */
	double layer_B;        /* one layer's saved activations, one micro-batch */
	double host_B;         /* on the host at once: N layers of one micro-batch */
	double moved_B;        /* over the host link a step, both ways: 2 N layer_B m */
	double link_Bps;       /* the host link, one direction */
	double xfer_s;         /* one layer, one way: layer_B / link_Bps */
	double exposed_s;      /* per micro-batch: what the step waits for (NaN: no compute) */
};

/*
 * The wait of one micro-batch under Transformer Engine's offload of the
 * first N of L layers (L > N >= 1), each layer's forward f and backward b
 * seconds, a layer's copy x seconds each way, one copy stream (TE's
 * DefaultOffloadSynchronizer): layer i goes out once its forward ends and
 * must be out before layer L - N + i's forward; it comes back from the
 * start of layer L - 1 - N + i's backward and must be back before its
 * own.  Returns the seconds the compute waits; NaN for bad input.
 */
double step_offload_wait_s(double L, double N, double f, double b, double x);

struct step_result {
	struct step_row rows[STEP_ROWS_MAX];
	int nrows;
	/* The first and last stages' own traffic: embedding and output layer. */
	struct step_row edges[STEP_ROWS_MAX];
	int nedges;
	double layers;          /* transformer layers on one stage: l/p */
	double microbatches;    /* m */
	double gpus;            /* t·p·d·c */
	double tokens;          /* B·s per step */
	double flops_model;     /* FLOPs per step, all GPUs: 6NT + attention */
	double flops_hw;        /* the same with recomputation */
	double stage_params;    /* parameters of one GPU on a middle stage (unsharded by ZeRO) */
	/* Per micro-batch on one stage. */
	double mb_comm_s;       /* tp, cp, ep, pp collectives */
	double mb_exposed_s;
	/* Per step. */
	double dp_comm_s, dp_exposed_s;
	/* Known only with compute (NaN otherwise).  The step, its compute,
	 * bubble, tokens/s and MFU are the expected ones (models/step.md,
	 * "The expected step"); the best case's are kept beside them. */
	double compute_s;       /* all micro-batches' forward and backward on one GPU */
	double mb_compute_s;
	double bubble_s;
	double step_s;
	double tokens_per_s;
	double mfu;             /* model FLOPs / (step · GPUs · peak); NaN without a peak */
	double step_best_s, compute_best_s, mb_compute_best_s, bubble_best_s, mfu_best;
	double step_lo_s, step_hi_s;  /* the step's stated error (EXPECT_BAND_LO, _HI) */
	struct expect_terms expect_terms;  /* what the expected step is computed from */
	struct expect_out expect;          /* its terms */
	unsigned leans;         /* bit k: the step is of kind k of EXPECT_LEAN (expect.h) */
	double kernel_eff;      /* FLOPs the kernels run / (compute · GPUs · peak) */
	double optim_s;         /* the optimizer's update (kernel model only) */
	double optim_acc_s;     /* of it, DeepSpeed's bf16 optimizer adding each micro-batch's
				   gradients into fp32 (models/step.md, "DeepSpeed's bf16
				   optimizer") */
	double layers_first, layers_last;   /* uneven stages (= layers when even) */
	int kernels;            /* 1: compute by kernel; 0: a flat share of the peak */
	struct kernel_layer layer;   /* one layer's kernels (kernel model) */
	double output_s;        /* the last stage's output layer, one micro-batch */
	int fused;              /* fused attention */
	/* The band: all-reduces at the low or high end of their stated error. */
	int band_missing;       /* 0, or 1 + the op of a collective without a band */
	unsigned band_cells;    /* errband_cell_bit of every banded collective */
	struct step_memory mem; /* the most loaded stage */
	struct step_offload offload; /* --offload-activations (zero when off) */
};

/*
 * How compute time is found: by kernel (kgpu), from a flat share of a
 * peak, or given.
 */
struct step_compute {
	double peak_flops;      /* FLOP/s of one GPU (dense bf16); 0 if unknown */
	double mfu;             /* flat: share of the peak every FLOP runs at, (0, 1] */
	double step_compute_s;  /* s: compute of one step on one GPU, given; 0 if not */
	const struct kernel_gpu *kgpu;  /* the kernel model; NULL: flat */
	double power_share;     /* the clock's share against the fitted one: under a power
				   cap, expect_power_share, times the SKU's against its die
				   family's reference (system.h, gpu_family); 0: neither */
	double host_link_Bps;   /* B/s: the GPU's link to host memory, one direction
				   (system_host_link_Bps); 0: PCIe Gen5's default */
};

/*
 * The ledger, memory and (when cs gives a peak or a time) the step time
 * of configuration c of workload w; coll gives every collective's time.
 * Returns 0, or -1 with eb filled (a bad configuration, a failing
 * collective).
 */
int step_run(const struct workload *w, const struct step_config *c,
	     const struct step_compute *cs, const struct cost_model *m, enum step_band band,
	     struct step_result *r, struct errbuf *eb);

/* A step's stated error with its collectives' (step_run_stated). */
struct step_stated {
	double lo_s, hi_s;      /* s: the step's stated error (step_lo_s, step_hi_s), every
				   collective at the low, then the high end of its band */
	double coll_lo_s, coll_hi_s; /* s: the step itself (step_s) priced so, without the
				   step's own band */
	unsigned cells;         /* errband_cell_bit of every banded collective */
	int missing;            /* 0, or 1 + the op of the first collective without a band */
	int banded;             /* 1: priced with the collectives' bands, none missing */
};

/*
 * step_run, then, when band is set (NCCL's model, whose all-reduces carry
 * a stated error, errband.h) and the step has a time, priced twice more
 * with every collective at the low, then the high end of its stated
 * error, the overlap rules unchanged (models/step.md, "The step's stated
 * error"); r's step_lo_s and step_hi_s become that band, so that every
 * view of the step states one.  Without band st holds r's own.
 * Returns 0, or -1 with eb filled.
 */
int step_run_stated(const struct workload *w, const struct step_config *c,
		    const struct step_compute *cs, const struct cost_model *m, int band,
		    struct step_result *r, struct step_stated *st, struct errbuf *eb);

/*
 * Activation memory of one transformer layer for one micro-batch, bytes,
 * Korthikanti et al. 2022, Table 2 (16-bit activations), s the tokens of
 * one rank's sequence chunk (s/c), a the heads:
 *   none, no SP:       sbh (10 + 24/t + 5as/(ht))
 *   none, SP:          sbh (34 + 5as/h) / t
 *   selective, no SP:  sbh (10 + 24/t)
 *   selective, SP:     sbh · 34/t
 *   full:              2sbh (the layer's input), /t with SP
 */
double step_act_layer(double s, double b, double h, double a, double t, int sp,
		      enum recompute rc);

/*
 * The same for any layer of w, term by term (models/step.md): GPT with
 * dropout as above, the scores' 5as²b only without fused attention;
 * Llama (RMSNorm, grouped-query attention, SwiGLU, no dropout); an MoE
 * layer's experts on the k·capacity routed copies of each token.
 */
double step_act_layer_w(const struct workload *w, double s, double b, double t, int sp,
			enum recompute rc, int fused, double capacity);

/*
 * step_act_layer_w with the precision and the expert grid: fp8 keeps each
 * linear's input as its FP8 copy (Transformer Engine), etp the experts'
 * tensor-parallel size (0: t); `capacity` is the busiest expert's load
 * over the mean (step_moe_load).  The per-operator levels
 * (matmul-outputs, alternate-matmul-outputs) count what they keep, term
 * by term (models/step.md, "Recomputation").
 */
struct step_act_opts {
	int fp8;
	double etp;
};
double step_act_layer_x(const struct workload *w, double s, double b, double t, int sp,
			enum recompute rc, int fused, double capacity,
			const struct step_act_opts *o);

/*
 * Bytes a logit of the last stage holds at the top of backward: 4 (the
 * fp32 softmax a fused cross-entropy keeps), or 12 with c->eager 1 or 2 (eager
 * PyTorch's log_softmax output, its incoming and its outgoing fp32
 * gradient; torchtitan's loss on logits upcast to fp32).  models/step-memory.md.
 */
double step_logit_bytes(const struct step_config *c);

/*
 * How a step's collectives are priced: the model, the algorithm (ALGO_AUTO:
 * the model's preferred one for each collective, or a named one where the
 * model has it for the collective), the band.
 */
struct step_memo;
struct step_pricing {
	const struct cost_model *m;
	enum coll_algo algo;
	enum step_band band;
	int missing;            /* out: 1 + op of a collective without a band */
	unsigned cells;         /* out: cells of the banded collectives */
	struct step_memo *memo; /* NULL, or where prices are kept (no band) */
};

/*
 * Prices kept for many steps on one cost model (the search asks the same
 * collectives thousands of times): each distinct collective (op, ranks,
 * per node, bytes) is priced once.  Zero-initialise; release with
 * step_memo_release.
 */
struct step_memo_ent;
struct step_kmemo_ent;
struct step_memo {
	struct step_memo_ent *t;
	size_t cap, n;          /* cap a power of two */
	size_t calls, evals;    /* collectives asked, and priced by the cost model */
	/* a layer's kernels by shape (step_kmemo.c): a search's hundreds of
	 * thousands of configurations share a few thousand shapes */
	struct step_kmemo_ent *k;
	size_t kcap, kn;        /* kcap a power of two */
};
void step_memo_release(struct step_memo *m);

/* step_run without a band, its collectives' prices kept in memo. */
int step_run_memo(const struct workload *w, const struct step_config *c,
		  const struct step_compute *cs, const struct cost_model *m,
		  struct step_memo *memo, struct step_result *r, struct errbuf *eb);

/*
 * step_run_memo for a search: when the memory of the most loaded stage
 * (r->mem, which reads the sizes alone) is above memory_B, nothing is
 * priced and 1 is returned with only r->mem and the sizes filled.  Returns
 * 0 priced, 1 too large, -1 on error.  memory_B <= 0: no limit.
 */
int step_run_fit(const struct workload *w, const struct step_config *c,
		 const struct step_compute *cs, const struct cost_model *m,
		 struct step_memo *memo, double memory_B, struct step_result *r, struct errbuf *eb);

/*
 * The ranks ZeRO shards over: zd = d·c / dp_replicate for the dense
 * weights, ze = t·d·c / (etp·e) for the experts' (models/step-memory.md).
 */
void step_zero_ranks(const struct step_config *c, double *zd, double *ze);

/*
 * Data-parallel and ZeRO collectives of one step for `params` parameters
 * per GPU on `ranks` data-parallel ranks (per_node of them in one node),
 * `layers` layers among which they divide (ZeRO-3 gathers one layer at a
 * time; 1 = the whole model at once) and m micro-batches:
 *   stage 0: all-reduce of the gradients, once per step;
 *   stage 1: reduce-scatter of the gradients and all-gather of the
 *            updated parameters, once per step;
 *   stage 2: reduce-scatter every micro-batch (gradients stay sharded),
 *            all-gather once per step;
 *   stage 3: per layer and micro-batch an all-gather of the parameters in
 *            forward and again in backward, and a reduce-scatter of the
 *            gradients.
 * Appends its rows to r (dim dp) and adds their time to r->dp_comm_s.
 * Returns 0 or -1 (eb filled).
 */
int step_dp_rows(double params, double layers, double m, int zero, unsigned long ranks,
		 unsigned long per_node, double grad_bytes, double param_bytes,
		 struct step_pricing *pr, struct step_result *r, struct errbuf *eb);

/*
 * DeepSpeed ZeRO-3: gathers of module j (0 = the first in forward order)
 * of a layer whose nmod modules hold mods[] parameters, in that layer's
 * backward: 2 under full recomputation when the parameters used between
 * its recomputed forward and its backward, 2·sum_{k>j} mods[k], reach
 * stage3_max_reuse_distance = 10^9; else 1 (models/step.md).
 */
int step_ds_backward_gathers(const double *mods, int nmod, int j, int full);

/*
 * Members of one node in a group of n ranks whose neighbours are `stride`
 * ranks apart (Megatron's order: tp fastest, then cp, ep, dp, pp), with G
 * GPUs per node (0: one node): min(n, G/stride) when stride < G, else 1.
 */
unsigned long step_per_node(unsigned long n, unsigned long stride, unsigned long G);

#endif
