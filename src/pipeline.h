#ifndef COMMTIME_PIPELINE_H
#define COMMTIME_PIPELINE_H

#include <stddef.h>
#include "util.h"

/*
 * Pipeline parallelism: the bubble of a schedule, in closed form, and the
 * schedule itself, simulated from its dependencies.  Formulas, sources
 * and the assumptions behind them are in models/pipeline.md.
 *
 * Symbols: P stages, M microbatches per step, v model chunks per stage
 * (interleaved schedule only, 1 otherwise), tf and tb the forward and
 * backward time of one microbatch on one whole stage (seconds, or any
 * unit of time: nothing here depends on the unit).  Communication between
 * stages is taken as free, as in the papers' formulas.
 */

enum pp_schedule {
	PP_GPIPE,        /* all forwards, then all backwards (Huang et al. 2019) */
	PP_1F1B,         /* PipeDream-Flush, one forward one backward (Narayanan et al.) */
	PP_INTERLEAVED,  /* Megatron-LM's interleaved 1F1B, v chunks per stage */
	PP_COUNT,
	/*
	 * DeepSeek's DualPipe (DeepSeek-V3 report, arXiv:2412.19437,
	 * section 3.2.1): the step model's alone (commtime step --schedule
	 * dualpipe, models/step-teams.md, "DualPipe"); the formulas, the
	 * simulation and the lookup below do not know it.
	 */
	PP_DUALPIPE = PP_COUNT
};

/* Name used on the command line and in CSV: "gpipe", "1f1b", "interleaved"
 * (and "dualpipe" for PP_DUALPIPE). */
const char *pp_schedule_name(enum pp_schedule s);

/* Look up a name; returns 0, or -1 with eb naming the value and the choices. */
int pp_schedule_lookup(const char *name, enum pp_schedule *s, struct errbuf *eb);

/*
 * Parse "gpipe,1f1b" into scheds (at most PP_COUNT, duplicates rejected).
 * Returns the number of schedules, or -1 with eb filled.
 */
int pp_schedule_parse_list(const char *s, enum pp_schedule *scheds, struct errbuf *eb);

/* Largest stage count, microbatch count and chunk count accepted. */
#define PP_STAGES_MAX (1UL << 20)
#define PP_MICROBATCHES_MAX (1UL << 30)
#define PP_VIRTUAL_MAX 1024UL

struct pp_config {
	enum pp_schedule schedule;
	unsigned long stages;        /* P >= 1 */
	unsigned long microbatches;  /* M >= 1 */
	unsigned long virt;          /* v: 1 for gpipe and 1f1b, >= 1 for interleaved */
	double tf;                   /* forward time of one microbatch on one stage, > 0 */
	double tb;                   /* backward time of one microbatch on one stage, > 0 */
};

/*
 * The configuration of schedule s on P = stages stages with M = micro
 * microbatches of tf and tb seconds (or multiples of tf): v = virt chunks
 * per stage for the interleaved schedule, 1 for every other (a --virtual
 * given to several schedules holds for the interleaved one only).
 */
struct pp_config pp_config_make(enum pp_schedule s, unsigned long stages, unsigned long micro,
				unsigned long virt, double tf, double tb);

/*
 * Check a configuration: counts within their limits, v = 1 unless the
 * schedule is interleaved, M a multiple of P for the interleaved schedule
 * (Megatron-LM requires it), times positive and finite.  Returns 0, or -1
 * with eb saying which value is wrong and why.
 */
int pp_check(const struct pp_config *c, struct errbuf *eb);

/*
 * 1 when the schedule is defined for these counts, 0 when it is not: the
 * interleaved schedule with M not a multiple of P.  A sweep skips such
 * rows instead of failing on them.
 */
int pp_defined(const struct pp_config *c);

struct pp_result {
	double bubble_fraction;  /* bubble / step: (P-1)/(vM+P-1) */
	double bubble_ratio;     /* bubble / ideal: (P-1)/(vM), Megatron's measure */
	double ideal;            /* M (tf + tb): the work of one stage */
	double bubble;           /* (P-1)(tf + tb)/v: idle time of each stage */
	double step;             /* ideal + bubble: time of one step */
	double inflight;         /* peak microbatches whose activations the first
				    stage holds (chunk activations count 1/v) */
};

/*
 * The closed forms (Huang et al. 2019; Narayanan et al. 2021, section 2.2):
 * with v = 1 for gpipe and 1f1b,
 *	bubble = (P-1)(tf+tb)/v, ideal = M(tf+tb), step = ideal + bubble,
 *	bubble_fraction = (P-1)/(vM+P-1), bubble_ratio = (P-1)/(vM);
 * in-flight activations on the first stage: gpipe M, 1f1b min(P, M),
 * interleaved P + (P-1)/v (or M when M = P; Korthikanti et al. 2022).
 * Times come out in the unit of tf and tb.  Returns 0, or -1 with eb
 * filled when pp_check() fails.
 */
int pp_bubble(const struct pp_config *c, struct pp_result *r, struct errbuf *eb);

/* The schedule as simulated: one operation of one stage. */
enum pp_pass { PP_FORWARD, PP_BACKWARD };

struct pp_op {
	unsigned long stage;       /* 0 .. P-1 */
	unsigned long microbatch;  /* 0 .. M-1 */
	unsigned long chunk;       /* 0 .. v-1: model chunk on this stage */
	enum pp_pass pass;
	double start, end;         /* in the unit of tf and tb, from 0 */
};

struct pp_timeline {
	unsigned long stages;
	unsigned long virt;
	struct pp_op *ops;     /* stage by stage, each in its execution order */
	size_t nops;           /* 2 P M v */
	size_t *first;         /* ops of stage s: ops[first[s]] .. ops[first[s+1]-1] */
	double makespan;       /* end of the last operation: the step time */
};

/* Most operations pp_simulate() accepts (2 P M v), to bound memory. */
#define PP_SIM_OPS_MAX 1000000UL

/*
 * Number of operations of a configuration's timeline, 2 P M v, saturated
 * at SIZE_MAX; the caller compares it with PP_SIM_OPS_MAX.
 */
size_t pp_sim_ops(const struct pp_config *c);

/*
 * Simulate one step of the schedule.  Each stage runs its operations in
 * the schedule's order (gpipe: all forwards, then the backwards in
 * reverse microbatch order; 1f1b: P-s-1 warm-up forwards on stage s,
 * then one forward one backward, then the remaining backwards;
 * interleaved: the order of Megatron-LM's
 * forward_backward_pipelining_with_interleaving).  An operation starts
 * when its stage is free and its inputs exist: the forward of microbatch
 * m on virtual stage q needs the forward of m on q-1; the backward needs
 * the backward of m on q+1 and the forward of m on q.  Forward chunks
 * take tf/v, backward chunks tb/v; sending between stages takes no time.
 * The times are computed from these dependencies, not from the formulas.
 *
 * Fills t (release it with pp_timeline_release) and returns 0, or
 * returns -1 with eb filled when the configuration is invalid, too large
 * (more than PP_SIM_OPS_MAX operations) or the order deadlocks.
 */
int pp_simulate(const struct pp_config *c, struct pp_timeline *t, struct errbuf *eb);
void pp_timeline_release(struct pp_timeline *t);

/* What one stage did during the simulated step. */
struct pp_stage_stats {
	double busy;         /* total time of its operations */
	double idle;         /* makespan - busy: its share of the bubble */
	double first_start;  /* start of its first operation */
	double last_end;     /* end of its last operation */
	double window_idle;  /* idle time between first_start and last_end */
	unsigned long peak_inflight;  /* most chunk forwards whose backward has
					 not yet run, at any time */
};

/* Statistics of stage s (< t->stages) of a simulated timeline. */
void pp_stage_stats(const struct pp_timeline *t, unsigned long s, struct pp_stage_stats *st);

#endif
