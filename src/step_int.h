#ifndef COMMTIME_STEP_INT_H
#define COMMTIME_STEP_INT_H

#include "model.h"
#include "util.h"
#include "workload.h"

/* Declared in step.h, which each file of the model includes first; this
 * header, included by step.c, never includes step.h back (no circle). */
struct step_config;
struct step_compute;
struct step_pricing;
struct step_result;
struct kernel_gpu;
struct expect_params;

/*
 * The inside of the step model, shared by its files (the table at the
 * top of models/step.md): step.c checks a configuration and runs the
 * phases below in order over one struct run; step_shape.c finds the
 * stage's layers, the FLOPs and the compute; step_ledger.c prices the collectives and writes
 * the ledger's rows, dimension by dimension; step_overlap.c says what of
 * each row hides behind compute, by framework; step_sched.c holds the
 * pipeline schedule (micro-batches in flight, the bubble, the step);
 * step_memory.c the memory per GPU; step_expect.c turns the best case into
 * the expected step.  Nothing outside these files and their
 * unit tests includes this header.
 */

/*
 * One configuration's run through the step model, the values every phase
 * of S_run reads: the sizes as doubles, the stage, the micro-batches, the
 * per-layer and per-micro-batch compute the overlap rules hide behind.
 */
struct run {
	const struct workload *w;
	const struct step_config *c;
	const struct step_compute *cs;
	struct step_pricing *prp;
	struct step_result *r;
	const struct kernel_gpu *kg;
	struct layer_params lp;
	double t, p, d, cp, e, v, b, s, h, l, hkv, E, k;
	double hq;                 /* the queries' width a·d (h without head_dim) */
	double L, Lf, Lm, Ll, m, sr, A, rate, sms;
	/* Dense layers (the workload's first dense_layers) in the ledger's
	 * stage, the first stage, the first and last middle stages, the last
	 * stage (step_stage_dense); 0 in a model without them. */
	double Ld, Ldf, Ldm, Ldm2, Ldl;
	double fwd_l, bwd_l, fwd_mb, bwd_mb;
	double rec_mb;             /* the forward bwd_mb runs again (recomputation) */
	double dual_bubble_s;      /* the DualPipe bubble (step_dualpipe.c), else NaN */
	double dense, expert, zd, ze;
	double mods[8];            /* DeepSpeed's ZeRO-3 modules of a layer, parameters */
	int nmod;
	unsigned long G;
	int full, moe, megatron_layers;
	int first_tp, first_cp, first_ep, first_pp, first_dp;   /* each dimension's first row */
};

/* step_shape.c: the FLOPs of the step, then the compute (by kernel, flat or
 * given) and what the overlap rules hide behind. */
void step_shape_flops(struct run *u);
/* The dense layers each stage holds (u->Ld...): the first layers of the
 * model are on the first stage (virtual chunks aside). */
void step_stage_dense(struct run *u);
/* One GPU's dense (not expert) parameters of a stage of n layers, nd of
 * them dense first layers: attention, norms and router, a dense layer's
 * MLP, an MoE layer's shared experts, split over t (norms and router
 * whole).  Linears alone (no norms, no router) with lin. */
double step_stage_dense_params(const struct run *u, double n, double nd);
double step_stage_dense_linears(const struct run *u, double n, double nd);
/* Parameters of the matmuls a layer of w recomputes under
 * alternate-matmul-outputs (one GPU's share is this / t). */
double step_alt_matmul_params(const struct workload *w);
/* Parameters of latent attention's up projections, which a layer of w
 * recomputes under norm-and-swiglu-inputs (0 without latent attention). */
double step_up_proj_params(const struct workload *w);
int step_shape_compute(struct run *u, struct errbuf *eb);

/* A layer's kernels of one shape: the layer, the output layer, and the
 * dense layer of a model with dense first layers (zero without), kept in
 * m by shape (src/step_kmemo.c): the kept ones, or with m NULL timed into
 * k.  NULL on error.  A kept entry lives until m grows or is released. */
struct step_kernels {
	struct kernel_layer layer, dense;
	double output_s;
};
const struct step_kernels *step_kernels_of(struct step_memo *m, const struct kernel_gpu *g,
					   const struct workload *w, const struct kernel_shape *sh,
					   struct step_kernels *k, struct errbuf *eb);

/* step_ledger.c: one collective's time on the pricing's model (memo, band);
 * ctas may be NULL. */
int step_price(struct step_pricing *pr, enum coll_op op, unsigned long ranks,
	       unsigned long per_node, double bytes, double *t, const char **tier,
	       int *ctas, struct errbuf *eb);
/* step_route.c: one expert all-to-all of `bytes` (one rank's copies) under
 * --moe-route-nodes, its two legs priced and the slower taken; the plain
 * price when the group is inside a node. */
int step_price_route(struct run *u, double bytes, unsigned long ranks,
		     unsigned long per_node, double *t, const char **tier, struct errbuf *eb);
/* The rows of each dimension, appended to u->r, all exposed; each notes its
 * first row in u (first_tp, ...).  edges: the first and last stages' own. */
int step_ledger_tp(struct run *u, struct errbuf *eb);
int step_ledger_cp(struct run *u, struct errbuf *eb);
int step_ledger_ep(struct run *u, struct errbuf *eb);
int step_ledger_pp(struct run *u, struct errbuf *eb);
int step_ledger_dp(struct run *u, struct errbuf *eb);
int step_ledger_edges(struct run *u, struct errbuf *eb);

/* step_overlap.c: what of each dimension's rows hides, and behind what. */
void step_overlap_tp(struct run *u);
void step_overlap_cp(struct run *u);
void step_overlap_pp(struct run *u);
/* ep: the all-to-all behind the other micro-batch's compute under
 * --overlap-moe-expert-parallel-comm (Megatron-Core's combined 1F1B). */
void step_overlap_ep(struct run *u);
/* dp: by framework, then the SMs' share, then r->dp_exposed_s. */
int step_overlap_dp(struct run *u, struct errbuf *eb);
/* Megatron's interleaved schedule, v chunks of p stages: the gradient
 * reduction (red s in all) exposed past the end of the backward (bwd s a
 * micro-batch), chunk by chunk; the parameter gather (gat s, its last bucket
 * last s) exposed before the forwards (fwd s a micro-batch). */
double step_grad_chunks(double red, double v, double p, double bwd);
double step_gather_chunks(double gat, double last, double v, double p, double fwd);
/* Rows from `first` on: exposed at least their time × ctas/sms. */
void step_overlap_sm_share(struct step_result *r, int first, double sms);

/* step_dualpipe.c: DeepSeek's DualPipe (models/step-teams.md, "DualPipe"): one
 * pair's time of compute k and communication c on a GPU of sms SMs, the
 * pairs of the ranks with the fewest, the bubble of Table 2; the
 * micro-batch's rows under the schedule and u->dual_bubble_s. */
double step_dualpipe_pair_s(double k, double c, double sms);
double step_dualpipe_pairs(double p, double m);
double step_dualpipe_bubble_s(double p, double fb, double b, double w);
void step_overlap_dualpipe(struct run *u);

/* step_sched.c: micro-batches whose activations the stage of pipeline rank
 * `rank` holds; the update, the bubble and the step time. */
double step_sched_inflight(const struct step_config *c, double rank, double m);
double step_vp_group(const struct step_config *c, double m);
int step_sched_step(struct run *u, struct errbuf *eb);

/* step_memory.c: the memory of each stage, the most loaded kept in r->mem;
 * the saved activations of the only stage's first n layers, one
 * micro-batch (what --offload-activations n sends to the host). */
void step_memory_stages(struct run *u);
double step_memory_offload_B(const struct run *u, double n);

/* step_offload.c: --offload-activations against the configuration
 * (Megatron-Core's refusals), and its bytes and wait in u->r->offload. */
int step_offload_check(const struct workload *w, const struct step_config *c,
		       struct errbuf *eb);
void step_offload_time(struct run *u);

/*
 * step_expect.c: make r's step the expected one (models/step.md, "The
 * expected step"): keep the best case in step_best_s, compute_best_s,
 * mb_compute_best_s, bubble_best_s and mfu_best; set step_s, compute_s,
 * mb_compute_s, bubble_s, tokens_per_s and mfu to the expected ones under
 * p (NULL: EXPECT_FITTED) on kernel GPU kg (NULL: compute not by kernel)
 * at clock share power_share (0: no cap), and step_lo_s, step_hi_s to its
 * band.  peak (FLOP/s, 0 if unknown) counts the MFU.  A result without a
 * step time keeps NaN.
 */
void step_expect(const struct workload *w, const struct step_config *c,
		 const struct kernel_gpu *kg, double power_share, double peak,
		 const struct expect_params *p, struct step_result *r);

#endif
