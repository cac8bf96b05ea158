#ifndef COMMTIME_STEP_H
#define COMMTIME_STEP_H

#include "util.h"
#include "cost.h"
#include "pipeline.h"
#include "workload.h"

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

/* The collective times come from the cost model, through this callback. */
struct step_coll {
	double time_s;       /* s: one collective */
	const char *tier;    /* the tier that bounds it: "link", "intra", "inter" */
};

/*
 * Time of one collective `op` of `bytes` (nccl-tests' meaning of size) on
 * a group of `ranks` ranks of which `per_node` share one node.  Returns 0,
 * or -1 with eb filled.
 */
typedef int (*step_coll_fn)(void *arg, enum coll_op op, unsigned long ranks,
			    unsigned long per_node, double bytes, struct step_coll *out,
			    struct errbuf *eb);

enum step_dim { DIM_TP, DIM_CP, DIM_EP, DIM_PP, DIM_DP, DIM_COUNT };
enum step_phase { PH_FORWARD, PH_BACKWARD, PH_OPTIMIZER, PH_COUNT };
enum recompute { RC_NONE, RC_SELECTIVE, RC_FULL, RC_COUNT };

const char *step_dim_name(enum step_dim d);       /* "tp", "cp", ... */
const char *step_phase_name(enum step_phase p);   /* "forward", ... */
const char *recompute_name(enum recompute r);     /* "none", "selective", "full" */
int recompute_lookup(const char *name, enum recompute *r, struct errbuf *eb);

/* Defaults (models/step.md says why). */
#define STEP_GRAD_BYTES 4.0     /* fp32 gradient reduction (Megatron, PyTorch AMP) */
#define STEP_PARAM_BYTES 2.0    /* bf16 weights */
#define STEP_OPTIM_BYTES 12.0   /* Adam: fp32 master copy, momentum, variance */
#define STEP_ACT_BYTES 2.0      /* bf16 activations */
#define STEP_CAPACITY 1.0       /* MoE capacity factor */
#define STEP_MFU 0.5            /* share of the dense bf16 peak the math runs at */

struct step_config {
	unsigned long tp, pp, dp, cp, ep;
	int zero;                  /* 0-3 */
	int sp;                    /* Megatron sequence parallelism (needs tp > 1 to matter) */
	double micro_batch;        /* b: sequences */
	double global_batch;       /* B: sequences; 0 = d·b (one micro-batch) */
	double seq;                /* s: tokens per sequence */
	enum recompute recompute;
	enum pp_schedule schedule;
	unsigned long virt;        /* v: model chunks per stage (interleaved) */
	double grad_bytes, param_bytes, optim_bytes, act_bytes;
	double capacity;           /* MoE capacity factor */
	unsigned long gpus_per_node;  /* for placing ranks; 0 = every group in one node */
};

/* tp = pp = dp = cp = ep = 1, zero 0, no SP, b = 1, 1F1B, the defaults above. */
void step_config_init(struct step_config *c);

/*
 * Check a configuration against a workload: sizes >= 1, pp dividing the
 * layers (by v chunks too), tp dividing the heads and key/value heads,
 * cp dividing s, ep dividing the experts and d·c, B a multiple of d·b,
 * ZeRO 2-3 only without pipeline parallelism, v = 1 unless interleaved
 * and m a multiple of p for it.  Returns 0, or -1 with eb saying which.
 */
int step_check(const struct workload *w, const struct step_config *c, struct errbuf *eb);

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
	double time_s;         /* s: count × one_s */
	double exposed_s;      /* s: the part not hidden behind compute; NaN if unknown */
	const char *stage;     /* edges only: "first", "last", "first+last" */
};

#define STEP_ROWS_MAX 16

struct step_memory {
	double weights_B, grads_B, optim_B, act_B;
	double act_layer_B;    /* one layer, one micro-batch */
	double inflight;       /* micro-batches whose activations are held */
	double total_B;
};

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
	/* Known only with compute (NaN otherwise). */
	double compute_s;       /* all micro-batches' forward and backward on one GPU */
	double mb_compute_s;
	double bubble_s;
	double step_s;
	double tokens_per_s;
	double mfu;             /* model FLOPs / (step · GPUs · peak); NaN without a peak */
	struct step_memory mem; /* the most loaded stage */
};

/* How compute time is found: from a peak, or given. */
struct step_compute {
	double peak_flops;      /* FLOP/s of one GPU (dense bf16); 0 if unknown */
	double mfu;             /* share of it the math reaches, (0, 1] */
	double step_compute_s;  /* s: compute of one step on one GPU, given; 0 if not */
};

/*
 * The ledger, memory and (when cs gives a peak or a time) the step time
 * of configuration c of workload w; coll gives every collective's time.
 * Returns 0, or -1 with eb filled (a bad configuration, a failing
 * collective).
 */
int step_run(const struct workload *w, const struct step_config *c,
	     const struct step_compute *cs, step_coll_fn coll, void *arg,
	     struct step_result *r, struct errbuf *eb);

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
		 step_coll_fn coll, void *arg, struct step_result *r, struct errbuf *eb);

/*
 * Members of one node in a group of n ranks whose neighbours are `stride`
 * ranks apart (Megatron's order: tp fastest, then cp, ep, dp, pp), with G
 * GPUs per node (0: one node): min(n, G/stride) when stride < G, else 1.
 */
unsigned long step_per_node(unsigned long n, unsigned long stride, unsigned long G);

#endif
