/*
 * The simulated schedule of commtime pipeline --timeline: what each stage
 * did, then every operation.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_cmd.h"

static struct column stage_cols[] = {
	{ .key = "stage", .label = "stage", .type = COL_INT },
	{ .key = "busy_s", .label = "busy", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "idle_s", .label = "idle", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "idle_fraction", .label = "idle/step", .type = COL_NUM, .human = H_PERCENT, .prec = 1 },
	{ .key = "first_start_s", .label = "first start", .type = COL_NUM, .human = H_TIME, .prec = 4 },
	{ .key = "last_end_s", .label = "last end", .type = COL_NUM, .human = H_TIME, .prec = 4 },
	{ .key = "window_idle_s", .label = "idle inside", .type = COL_NUM, .human = H_TIME, .prec = 4 },
	{ .key = "inflight", .label = "in flight", .type = COL_NUM, .prec = 4 },
};
#define NSTAGE (sizeof(stage_cols) / sizeof(stage_cols[0]))

static struct column timeline_cols[] = {
	{ .key = "stage", .label = "stage", .type = COL_INT },
	{ .key = "microbatch", .label = "microbatch", .type = COL_INT },
	{ .key = "pass", .label = "pass", .type = COL_STR, .width = 8 },
	{ .key = "chunk", .label = "chunk", .type = COL_INT },
	{ .key = "start_s", .label = "start", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "end_s", .label = "end", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
};
#define NTIMELINE (sizeof(timeline_cols) / sizeof(timeline_cols[0]))

void pipeline_cols_in_tf(struct column *cols, size_t n)
{
	static char keys[16][24], labels[16][24];
	static size_t used;
	size_t i, len;

	for (i = 0; i < n; i++) {
		if (cols[i].human != H_TIME || used == sizeof(keys) / sizeof(keys[0]))
			continue;
		len = strlen(cols[i].key);
		snprintf(keys[used], sizeof(keys[used]), "%.*s_tf", (int)(len - 2), cols[i].key);
		snprintf(labels[used], sizeof(labels[used]), "%s (tf)", cols[i].label);
		cols[i].key = keys[used];
		cols[i].label = labels[used++];
		cols[i].human = H_PLAIN;
		cols[i].prec = 6;
	}
}

const char *pipeline_fmt_time(char *buf, size_t len, double x, int seconds)
{
	if (seconds)
		return units_fmt_time(buf, len, x, 4);
	snprintf(buf, len, "%.6g tf", x);
	return buf;
}

/* Every operation of the simulated schedule, in its order: one row each. */
static void write_ops(const struct pp_timeline *t, struct out *o)
{
	static const struct table timeline_t = {
		"timeline", "simulated schedule", timeline_cols, NTIMELINE, 0
	};
	size_t i;

	out_table_begin(o, &timeline_t);
	for (i = 0; i < t->nops; i++) {
		const struct pp_op *op = &t->ops[i];
		struct cell row[NTIMELINE];

		memset(row, 0, sizeof(row));
		row[0].x = (double)op->stage;
		row[1].x = (double)op->microbatch;
		row[2].s = op->pass == PP_FORWARD ? "forward" : "backward";
		row[3].x = (double)op->chunk;
		row[4].x = op->start;
		row[5].x = op->end;
		out_row(o, row);
	}
	out_table_end(o);
}

void pipeline_write_timeline(const struct pp_timeline *t, const struct pp_result *r,
			   const struct pipeline_args *a, struct out *o)
{
	static const struct table stages_t = {
		"stages", "simulated, per stage", stage_cols, NSTAGE, 1
	};
	char sim[40], formula[40];
	double lo = INFINITY, hi = -INFINITY;
	unsigned long s;

	if (!a->seconds) {
		pipeline_cols_in_tf(stage_cols, NSTAGE);
		pipeline_cols_in_tf(timeline_cols, NTIMELINE);
	}
	out_table_begin(o, &stages_t);
	for (s = 0; s < t->stages; s++) {
		struct pp_stage_stats st;
		struct cell row[NSTAGE];

		pp_stage_stats(t, s, &st);
		lo = fmin(lo, st.idle / t->makespan);
		hi = fmax(hi, st.idle / t->makespan);
		memset(row, 0, sizeof(row));
		row[0].x = (double)s;
		row[1].x = st.busy;
		row[2].x = st.idle;
		row[3].x = st.idle / t->makespan;
		row[4].x = st.first_start;
		row[5].x = st.last_end;
		row[6].x = st.window_idle;
		row[7].x = (double)st.peak_inflight / (double)t->virt;
		out_row(o, row);
	}
	out_table_end(o);
	out_text(o, "simulated step %s (formula %s)",
		 pipeline_fmt_time(sim, sizeof(sim), t->makespan, a->seconds),
		 pipeline_fmt_time(formula, sizeof(formula), r->step, a->seconds));
	if (hi - lo <= 1e-9)
		out_text(o, "every stage idles %.1f %% of the step (formula %.1f %%)",
			 100 * hi, 100 * r->bubble_fraction);
	else
		out_text(o, "the stages idle %.1f to %.1f %% of the step (formula %.1f %%)",
			 100 * lo, 100 * hi, 100 * r->bubble_fraction);

	write_ops(t, o);
}

struct pp_config pipeline_config(const struct pipeline_args *a, enum pp_schedule sched,
				 unsigned long stages, unsigned long micro)
{
	return pp_config_make(sched, stages, micro, a->virt, a->tf, a->tb);
}

struct pp_config pipeline_config_of(const struct pipeline_args *a, size_t i, size_t j, int k)
{
	return pipeline_config(a, a->scheds[k], (unsigned long)a->stages.v[i],
			       (unsigned long)a->micro.v[j]);
}
