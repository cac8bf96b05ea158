#ifndef COMMTIME_SEARCH_H
#define COMMTIME_SEARCH_H

#include <stddef.h>
#include "step.h"

/*
 * Search over parallel configurations: every factorisation of a GPU count
 * into tp·pp·dp·cp (with ep inside dp·cp) × ZeRO stage × micro-batch ×
 * pipeline schedule × recomputation that fits in memory, ranked by step
 * time, priced.  The rules of the enumeration and their sources are in
 * models/search.md.
 */

struct search_space {
	const struct workload *w;
	double seq;               /* tokens per sequence */
	double global_batch;      /* B: sequences per step */
	double gpu_memory;        /* B: memory of one GPU; a candidate must fit */
	unsigned long gpus_per_node;  /* placement; also the largest tp (0: 8) */
	unsigned long max_cp;     /* largest context-parallel size tried (1: none) */
	unsigned long max_mb;     /* largest micro-batch tried */
	unsigned long max_virt;   /* largest number of chunks for the interleaved schedule */
	double grad_bytes;        /* bytes per gradient value */
	double price;             /* per GPU-hour, any currency; NaN if unknown */
	double run_tokens;        /* tokens of the whole run; 0 if not asked */
};

/* Defaults: max_cp 8, max_mb 16, max_virt 4, fp32 gradients, no price. */
void search_space_init(struct search_space *sp, const struct workload *w);

struct search_cand {
	struct step_config c;
	double gpus;
	double memory_B;
	double step_s;
	double tokens_per_s;
	double mfu;
	double cost_per_Mtoken;   /* price × GPUs × step / 3600 / (tokens / 1e6); NaN without a price */
	double run_s;             /* run_tokens / tokens_per_s; NaN without run_tokens */
	double run_cost;          /* run_s / 3600 × GPUs × price */
	int pareto;               /* 1 on the front of step time against GPU time (search_pareto) */
};

struct search_result {
	struct search_cand *cand;   /* fitting candidates, ordered by step_s */
	size_t n, cap;
	size_t tried;               /* configurations evaluated */
	size_t valid;               /* of which valid (before the memory test) */
};

/*
 * Every valid configuration of `gpus` GPUs (each in gpus[], ngpus of
 * them) that fits in sp->gpu_memory, appended to r, then r sorted by
 * step_s (ties: less memory first).  cs must give a peak or a compute
 * time; cm prices the collectives.  Returns 0, or -1 with eb filled
 * (a collective the model cannot time).
 */
int search_run(const struct search_space *sp, const double *gpus, size_t ngpus,
	       const struct step_compute *cs, const struct cost_model *cm,
	       struct search_result *r, struct errbuf *eb);

/*
 * Mark the Pareto front of step time against GPU time per step
 * (gpus × step_s, which is cost per token at any one price, the global
 * batch being fixed): a candidate is on it when no other is at least as
 * fast and at least as cheap, and strictly better in one.  r must be
 * sorted by step_s.
 */
void search_pareto(struct search_result *r);

void search_release(struct search_result *r);

#endif
