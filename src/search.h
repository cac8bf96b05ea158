#ifndef COMMTIME_SEARCH_H
#define COMMTIME_SEARCH_H

#include <stddef.h>
#include "step.h"

/*
 * Search over parallel configurations: every factorisation of a GPU count
 * into tp·pp·dp·cp (with ep inside dp·cp) × ZeRO stage × micro-batch ×
 * pipeline schedule and chunks × recomputation that the step model
 * accepts and that fits in memory, ranked by step time, priced.  The
 * rules of the enumeration and their sources are in models/search.md.
 */

/*
 * One configuration, or a family of them: a field left at its "any"
 * value (0 for sizes and the micro-batch, -1 for the ZeRO stage, the
 * schedule and the recomputation) matches every value.
 */
struct search_where {
	double gpus;
	unsigned long tp, pp, dp, cp, ep, virt;
	int zero;
	double micro_batch;
	int schedule;           /* enum pp_schedule, or -1 */
	int recompute;          /* enum recompute, or -1 */
	int cp_form;            /* enum step_cp_form, or -1 */
};

void search_where_init(struct search_where *wh);

/*
 * Parse "tp=8,pp=16,dp=64,..." (keys gpus, tp, pp, dp, cp, ep, zero, mb
 * or micro_batch, v or virtual_stages, schedule, recompute, cp_form; a key
 * at most once).  Returns 0, or -1 with eb naming the key or value at fault.
 */
int search_where_parse(const char *s, struct search_where *wh, struct errbuf *eb);

/*
 * 1 when configuration c of `gpus` GPUs is one that wh names.  When wh
 * names tp, pp and dp but not cp, cp is 1: "tp=8,pp=16,dp=64" is the
 * layout of 8192 GPUs, not one of 16384 with cp 2.
 */
int search_where_match(const struct search_where *wh, const struct step_config *c, double gpus);

/* "tp 8, pp 16, dp 64" with the fields wh fixes, into buf; returns buf. */
char *search_where_text(char *buf, size_t len, const struct search_where *wh);

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
	enum step_framework framework;  /* what overlaps with what (default megatron) */
	int tp_overlap;                 /* --tp-comm-overlap in every configuration with tp > 1 */
	int eager;                      /* the elementwise work as eager PyTorch runs it */
	enum step_precision precision;  /* every configuration's (default bf16) */
	double moe_imbalance;           /* the busiest expert's tokens over the mean (1) */
	unsigned long etp;              /* 0: tp, and 1 where only folding lets ep run */
	unsigned long dp_replicate;     /* 0: 1, and one node's ranks a group for ZeRO-3 */
	double price;             /* per GPU-hour, any currency; NaN if unknown */
	double run_tokens;        /* tokens of the whole run; 0 if not asked */
	const struct search_where *where;  /* a configuration to follow (search_named); NULL: none */
	unsigned threads;         /* threads the walk runs on (0: one a processor, at most
				     SEARCH_THREADS_MAX); the result is the same on any number */
};

/* The most threads a search walks on. */
#define SEARCH_THREADS_MAX 16

/* Defaults: max_cp search_max_cp(the workload's seq), max_mb 16, max_virt 8,
 * fp32 gradients, no price. */
void search_space_init(struct search_space *sp, const struct workload *w);

/*
 * The largest context-parallel size tried by default: 8, or as many ranks
 * as hold 8192 tokens each of a longer sequence (models/search.md).
 */
unsigned long search_max_cp(double seq);

/*
 * What a candidate sets of its configuration; the rest is the search's
 * (search_config_base).  A search keeps hundreds of thousands of them, so
 * they hold this and not the whole step_config.
 */
struct search_layout {
	unsigned long tp, pp, dp, cp, ep;
	unsigned long etp;            /* 0: tp */
	unsigned long dp_replicate, virt;
	double micro_batch;
	int zero, sp, tp_overlap;
	enum recompute recompute;
	enum pp_schedule schedule;
	enum step_cp_form cp_form;
};

struct search_cand {
	struct search_layout l;
	double gpus;
	double memory_B;
	double step_s;            /* the expected step (models/step.md, "The expected step") */
	double step_lo_s, step_hi_s;  /* its stated error */
	double tokens_per_s;
	double mfu;
	double cost_per_Mtoken;   /* price × GPUs × step / 3600 / (tokens / 1e6); NaN without a price */
	double cost_per_hour;     /* price × GPUs: the whole cluster for an hour; NaN without a price */
	double run_s;             /* run_tokens / tokens_per_s; NaN without run_tokens */
	double run_cost;          /* run_s / 3600 × GPUs × price */
	int pareto;               /* 1 on the front of step time against GPU time (search_pareto) */
};

/* The configuration every candidate of sp starts from: its workload's
 * batch, sequence, framework, precision and placement. */
void search_config_base(const struct search_space *sp, struct step_config *c);

/* A candidate's whole configuration: the base with its layout. */
void search_cand_config(const struct search_space *sp, const struct search_cand *k,
			struct step_config *c);

/* The layout of a configuration. */
void search_layout_of(const struct step_config *c, struct search_layout *l);

/* 1 when sp->where names the candidate (search_where_match). */
int search_cand_named(const struct search_space *sp, const struct search_cand *k);

/* A candidate's expert tensor-parallel size (step_etp's rule: 0 is tp). */
unsigned long search_cand_etp(const struct search_cand *k);

/*
 * The largest counts search takes, so that every search ends in seconds:
 * 2^24 GPUs in one run (16.8 million; the largest training runs published
 * use about 10^5) and 1024 model chunks per pipeline stage (Megatron's
 * interleaved schedule uses a few; more than a model's layers is refused
 * anyway).  A search of 2^24 GPUs takes about 0.4 s, 1024 chunks 1.4 s.
 */
#define SEARCH_GPUS_MAX 16777216.0
#define SEARCH_VIRT_MAX 1024

/*
 * Why candidates were refused by the step model (step_check), grouped by
 * the message with its numbers taken out: how many, and the first
 * message of the group as it was written.
 */
#define SEARCH_REASONS_MAX 16
struct search_reason {
	char key[512];            /* the message, each number written '#' */
	char example[512];       /* the first message of the group */
	size_t count;
	char last[512];          /* the group's latest message, to match the next one fast */
};

/* What became of the configurations search_space.where names. */
struct search_named {
	size_t tried, refused, unfit, fit;
	char refused_why[512];    /* the step model's reason for the first refused */
	double unfit_memory_B;    /* the least memory among those that do not fit; NaN if none */
	struct step_config unfit_c;   /* that configuration */
};

struct search_result {
	struct search_cand **cand;  /* fitting candidates, ordered by step_s (in store) */
	size_t n;
	struct search_cand **store; /* where they are kept: arrays, each owned */
	size_t nstore;
	struct search_cand *found;  /* while one layout is walked: its candidates as found */
	size_t nfound, capfound;
	size_t tried;               /* configurations evaluated */
	size_t valid;               /* of which the step model accepts (before the memory test) */
	struct search_reason reason[SEARCH_REASONS_MAX];
	size_t nreasons;
	size_t refused_other;       /* refused for a reason beyond SEARCH_REASONS_MAX groups */
	struct search_named named;  /* when sp->where is set */
	size_t coll_calls, coll_evals;  /* collectives asked, and priced by the cost model */
};

/*
 * Every configuration of `gpus` GPUs (each in gpus[], ngpus of them)
 * that the step model accepts and that fits in sp->gpu_memory, appended
 * to r, then r sorted by step_s (ties: less memory first).  cs must give
 * a peak or a compute time; cm prices the collectives (each distinct
 * collective is priced once: the answers are kept for the search).
 * Returns 0, or -1 with eb filled (a collective the model cannot time,
 * a price whose products overflow).
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

/*
 * The index of the runner-up: the fastest candidate after the first
 * whose layout (GPUs, tp, pp, dp, cp, ep) differs from the first's; r->n
 * when there is none.
 */
size_t search_runner_up(const struct search_result *r);

/*
 * A step split into terms that add up to it: compute, the pipeline
 * bubble, the exposed communication of each dimension (tp, cp, ep, pp
 * per micro-batch times the micro-batches; dp per step), the optimizer's
 * update, and `other`, whatever of step_s these leave (0 in the step
 * model of models/step.md, whose step is exactly their sum).
 */
struct search_terms {
	double compute_s, bubble_s;
	double exposed_s[DIM_COUNT];
	double optim_s;           /* the optimizer's update (the kernel model's; 0 otherwise) */
	double other_s, step_s, memory_B;
};

void search_terms_of(const struct step_result *r, struct search_terms *t);

void search_release(struct search_result *r);

/*
 * The smallest GPU count above `from` at which some configuration fits
 * (what search says when nothing fits at the counts asked): every
 * multiple of the node (sp->gpus_per_node, 8 when 0) up to 4 x from, then
 * from doubled until SEARCH_MIN_GPUS_MAX.  *gpus receives the count, 0 when
 * none up to there fits.  Returns 0, or -1 with eb filled (as search_run).
 */
#define SEARCH_MIN_GPUS_MAX 65536.0
int search_min_gpus(const struct search_space *sp, double from, const struct step_compute *cs,
		    const struct cost_model *cm, double *gpus, struct errbuf *eb);

#endif
