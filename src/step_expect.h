#ifndef COMMTIME_STEP_EXPECT_H
#define COMMTIME_STEP_EXPECT_H

#include "step.h"

/*
 * The expected step of a step_run result: the terms expect.h takes, read
 * off the best case (models/step.md, "The expected step").
 */

/*
 * Kernels one transformer layer launches for one micro-batch, forward
 * and backward, as Megatron-Core with Transformer Engine runs it (models/
 * step.md counts them): recomputation adds the forward again (full) or the
 * attention core's (selective).
 */
double expect_layer_kernels(const struct workload *w, int fused, enum recompute rc);

/*
 * The terms of r (a step_run result of configuration c of workload w on
 * kernel GPU kg, NULL when the compute was not by kernel), with power_share
 * from expect_power_share.  A hidden collective of `bytes` taking one_s
 * moves about 3 x bytes through each GPU's HBM (NCCL reads its input,
 * writes its output, and reads the local chunk it reduces): the
 * memory-bound share of the compute beside it slows by that share of the
 * HBM's streaming rate.
 */
void expect_terms_of(const struct workload *w, const struct step_config *c,
		     const struct step_result *r, const struct kernel_gpu *kg,
		     double power_share, struct expect_terms *t);

/*
 * The kinds of EXPECT_LEAN configuration c is of, bit k for kind k: FSDP
 * with PyTorch's attention (--attention auto or flash2) on sequences of
 * 16384 tokens or more; FSDP without recomputation; DeepSpeed's ZeRO-3 of
 * 2021.
 */
unsigned step_expect_leans(const struct step_config *c);

#endif
