#ifndef COMMTIME_STEP_FIX_H
#define COMMTIME_STEP_FIX_H

/*
 * What the unit tests of the step model (tests/unit/test_step*.c) share:
 * links priced by the cost core, the A100 of the kernel model, GPT-3 175B,
 * and a row of a ledger by dimension, phase and collective.
 */
#include <math.h>
#include <string.h>

#include "cost.h"
#include "step.h"

/* A ring on one link of 300 GB/s and no latency, priced by the cost core. */
static inline struct link *ring_link(void)
{
	static struct link l = { 0, 300e9, 0 };

	return &l;
}

static inline struct cost_model ring_model(void)
{
	struct cost_model m;

	cost_model_link(&m, ring_link());
	return m;
}

/* The A100 SXM of the kernel model (312 TFLOP/s, 108 SMs, 2.039 TB/s, 0.859 of
 * the peak for a large GEMM), and a step timed by kernel on it. */
static inline struct step_compute a100_kernels(struct kernel_gpu *g)
{
	kernel_gpu_init(g, ARCH_SM80, 312e12, 108, 2039e9, 0.859);
	return (struct step_compute){ 312e12, 0.5, 0, g, 0, 0 };
}

/* A link where latency dominates: 1 ms a step, infinite bandwidth. */
static inline struct cost_model ms_model(void)
{
	static struct link ms_link = { 1e-3, INFINITY, 0 };
	struct cost_model m;

	cost_model_link(&m, &ms_link);
	return m;
}

/* Free communication: no latency, infinite bandwidth. */
static inline struct cost_model free_model(void)
{
	static struct link free_link = { 0, INFINITY, 0 };
	struct cost_model m;

	cost_model_link(&m, &free_link);
	return m;
}

/* GPT-3's shape on p stages, 8 micro-batches of 2048 tokens a step, with
 * 8 s of compute given: 1 s a micro-batch (the schedules' unit tests). */
static inline void sched_fixture(struct step_config *c, struct step_compute *cs,
				 unsigned long p)
{
	step_config_init(c);
	c->pp = p;
	c->seq = 2048;
	c->global_batch = 8;
	*cs = (struct step_compute){ 0, 0, 8, NULL, 0, 0 };
}

static inline struct workload gpt3(void)
{
	struct workload w;

	memset(&w, 0, sizeof(w));
	w.arch = WL_GPT;
	w.layers = 96;
	w.hidden = 12288;
	w.heads = w.kv_heads = 96;
	w.ffn = 4 * 12288;
	w.vocab = 50257;
	w.seq = 2048;
	w.tied = 1;
	w.experts = w.top_k = 1;
	return w;
}

static inline const struct step_row *find(const struct step_result *r, enum step_dim d,
					  enum step_phase ph, enum coll_op op)
{
	int i;

	for (i = 0; i < r->nrows; i++)
		if (r->rows[i].dim == d && r->rows[i].phase == ph && r->rows[i].op == op)
			return &r->rows[i];
	return NULL;
}

/* The four TP rows with SP: forward all-gather and reduce-scatter, then
 * backward's; 1 when all four are there. */
static inline int tp_rows(const struct step_result *r, const struct step_row *t[4])
{
	t[0] = find(r, DIM_TP, PH_FORWARD, OP_ALLGATHER);
	t[1] = find(r, DIM_TP, PH_FORWARD, OP_REDUCESCATTER);
	t[2] = find(r, DIM_TP, PH_BACKWARD, OP_ALLGATHER);
	t[3] = find(r, DIM_TP, PH_BACKWARD, OP_REDUCESCATTER);
	return t[0] && t[1] && t[2] && t[3];
}

/*
 * DeepSeek-V3's stages as the report lays them (pp 16, ep 8 over dp 8
 * here; 4 layers first, 4 a middle stage, 1 last), one sequence of 4096
 * tokens a micro-batch.
 */
static inline void ds_stages(struct step_config *c, double global_batch)
{
	step_config_init(c);
	c->pp = 16;
	c->dp = 8;
	c->ep = 8;
	c->micro_batch = 1;
	c->global_batch = global_batch;
	c->seq = 4096;
	c->layers_first = 4;
	c->layers_last = 1;
}

#endif
