#ifndef COMMTIME_PIPELINE_CMD_H
#define COMMTIME_PIPELINE_CMD_H

/*
 * The parts of `commtime pipeline` that live in files of their own:
 * cmd_pipeline.c parses the options and writes the bubble table,
 * pipeline_sched.c the simulated schedule (--timeline), and
 * pipeline_fig.c the figures.
 */
#include "cli.h"
#include "pipeline.h"

/* Everything the command line asked for. */
struct pipeline_args {
	struct dlist stages, micro;
	enum pp_schedule scheds[PP_COUNT];
	int nsched;
	unsigned long virt;
	int virt_given;
	double tf, tb;      /* seconds, or 1 and 2 when in units of tf */
	int seconds;        /* --tf or --tb given */
	int tf_given, tb_given;
	int timeline;
};

/* Most operations drawn as boxes: beyond this they are thinner than a pixel. */
#define PIPELINE_FIG_OPS_MAX 10000UL

/*
 * The configuration of schedule sched with stages stages and micro
 * microbatches (pipeline_sched.c, with the other pieces the command and
 * its figures share; no helper calls into cmd_pipeline.c).
 */
struct pp_config pipeline_config(const struct pipeline_args *a, enum pp_schedule sched,
				 unsigned long stages, unsigned long micro);
/* Element i of --stages, j of --microbatches and k of --schedule. */
struct pp_config pipeline_config_of(const struct pipeline_args *a, size_t i, size_t j, int k);

/*
 * Without --tf or --tb the times are multiples of tf: the time columns of
 * cols say so in their keys ("step_tf") and print as plain numbers.
 */
void pipeline_cols_in_tf(struct column *cols, size_t n);

/* A time for a line of text: "12.00 ms" (seconds), or "12 tf" in units of tf. */
const char *pipeline_fmt_time(char *buf, size_t len, double x, int seconds);

/*
 * The simulated schedule t of one configuration (r: its formula): a table
 * of what each stage did (the seed's experiment: its idle time against
 * the formula), then every operation.
 */
void pipeline_write_timeline(const struct pp_timeline *t, const struct pp_result *r,
			     const struct pipeline_args *a, struct out *o);

/* The bubble's share of the step against the microbatch count (--plot, --render). */
void pipeline_figure_bubble(const struct ctx *ctx, const struct pipeline_args *a);

/* The Gantt chart of the simulated schedule t (--plot, --render with --timeline). */
void pipeline_figure_timeline(const struct ctx *ctx, const struct pipeline_args *a,
			      const struct pp_timeline *t);

#endif
