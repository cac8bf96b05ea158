#ifndef COMMTIME_TRACE_CMD_H
#define COMMTIME_TRACE_CMD_H

/*
 * What the commands that read profiler traces share (compare --trace,
 * fit --trace): reading the files with a progress line, and the options
 * of the run's configuration.
 */
#include "cli.h"
#include "step.h"
#include "trace.h"
#include "workload.h"

/*
 * Read every file into t (dying with "file:line: ..." on bad input), then
 * analyse the steps; for step `number` (-1: none) fn receives the
 * intervals.  A progress line goes to stderr for a read of more than a
 * second.
 */
void trace_cmd_load(struct trace *t, int nfiles, char **files, long number,
		    trace_interval_fn fn, void *arg);

/* The run's configuration, as step takes it. */
struct trace_run {
	const char *workload;
	struct step_config c;
	unsigned long mb, gb, seq;
};
void trace_run_init(struct trace_run *r);
#define OPTS_TRACE_RUN(r) \
	OPT_GROUP_("the run's configuration (as 'step' takes it)"), \
	{ .type = OPT_STRING, .long_name = "workload", .argh = "NAME", .value = &(r)->workload, \
	  .complete = "presets:workload", \
	  .help = "the model the run trained: lay the trace next to step's ledger" }, \
	OPT_CALLBACK_("tp", "N", &(r)->c.tp, opt_cb_whole, "tensor-parallel size (default 1)"), \
	OPT_CALLBACK_("pp", "N", &(r)->c.pp, opt_cb_whole, "pipeline-parallel size (default 1)"), \
	OPT_CALLBACK_("dp", "N", &(r)->c.dp, opt_cb_whole, "data-parallel size (default: the trace's world / tp·pp·cp)"), \
	OPT_CALLBACK_("cp", "N", &(r)->c.cp, opt_cb_whole, "context-parallel size (default 1)"), \
	OPT_CALLBACK_("ep", "N", &(r)->c.ep, opt_cb_whole, "expert-parallel size (default 1)"), \
	OPT_FLAG_("sequence-parallel", &(r)->c.sp, "Megatron sequence parallelism"), \
	OPT_CALLBACK_("micro-batch", "N", &(r)->mb, opt_cb_whole, "sequences per micro-batch (default 1)"), \
	OPT_CALLBACK_("global-batch", "N", &(r)->gb, opt_cb_whole, "sequences per step (default dp x micro-batch)"), \
	OPT_CALLBACK_("seq", "N", &(r)->seq, opt_cb_whole, "sequence length (default the workload's)"), \
	OPT_POSITIVE_("grad-bytes", "SIZE", Q_SIZE, &(r)->c.grad_bytes, \
		      "bytes per gradient value reduced (default 4, fp32)")

/*
 * Settle the configuration against workload w (loaded by the caller):
 * dp from the trace's world size when not given, the sequence length,
 * the system's GPUs per node; dies with a usage error when step refuses
 * it.  Returns the GPU count.
 */
double trace_run_settle(const struct ctx *ctx, struct trace_run *r, const struct workload *w,
			const struct trace *t, int dp_given);

/* The world size the trace's files state, else their count. */
long trace_world(const struct trace *t);

/* Steps per file (the largest count of ProfilerStep annotations of one file). */
double trace_steps_per_file(const struct trace *t);

/* Median over t->steps of one field (offset of a double in struct trace_step). */
double trace_steps_median(const struct trace *t, size_t offset);

int cmd_compare_trace(int argc, char **argv, struct ctx *ctx);
int cmd_fit_trace(int argc, char **argv, struct ctx *ctx);

/*
 * What a trace measured, as fit --trace saved it in the system's preset
 * (trace_calib.h), or NULL when the system holds none of its keys.  The
 * collectives' ratios are already in ctx->machine.model: machine_resolve() built
 * the calibrated model once, so every view prices on it.
 */
const struct trace_calib *ctx_trace_calib(const struct ctx *ctx);
/*
 * Set cs->mfu from the system's trace_kernel_efficiency (the caller skips
 * it when --mfu was given); which = 0 median, 1 low, 2 high.  Returns 1
 * when it did.
 */
int trace_calib_mfu(const struct ctx *ctx, struct step_compute *cs, int which);
/* The lines step and search print when they start from a trace, and the step at its range's ends. */
void trace_calib_note(struct ctx *ctx, struct out *o, const struct workload *w,
		      const struct step_config *c, const struct step_compute *cs, int mfu_from_trace);
/* Kept for compare --trace: the system's measured efficiency, if any. */
void trace_fit_compute(const struct ctx *ctx, struct step_compute *cs);

#endif
