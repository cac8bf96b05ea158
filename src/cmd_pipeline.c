/*
 * commtime pipeline: the bubble of pipeline-parallel schedules, one row
 * per stage count × microbatch count × schedule, and with --timeline the
 * simulated schedule of one configuration.  Formulas and simulation live
 * in pipeline.c; models/pipeline.md explains them.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pipeline.h"

static const char usage[] =
	"usage: commtime pipeline --stages LIST --microbatches LIST [options]\n"
	"\n"
	"Bubble of a pipeline-parallel step: the share of the step each stage\n"
	"idles, (P-1)/(vM+P-1), and Megatron's bubble/ideal ratio (P-1)/(vM),\n"
	"for P stages, M microbatches and v chunks per stage (interleaved).\n"
	"\n"
	"  --stages LIST         pipeline stages P, e.g. 4,8 or 2:16:x2 (required)\n"
	"  --microbatches LIST   microbatches per step M, e.g. 8:64:x2 (required)\n"
	"  --schedule LIST       gpipe, 1f1b (default) or interleaved, comma-separated\n"
	"  --virtual V           model chunks per stage of the interleaved schedule\n"
	"                        (default 2; alone, it selects interleaved)\n"
	"  --tf TIME             forward time of one microbatch on one stage\n"
	"  --tb TIME             backward time (default 2 tf); without either,\n"
	"                        times are in units of tf\n"
	"  --timeline            simulate the schedule and print when each forward\n"
	"                        and backward starts and ends on each stage (one\n"
	"                        stage count, microbatch count and schedule); in CSV\n"
	"                        the timeline is the table\n"
	"  -h, --help            show this text\n";

enum { O_STAGES = 256, O_MICRO, O_SCHEDULE, O_VIRTUAL, O_TF, O_TB, O_TIMELINE };

static const struct option options[] = {
	{ "stages",       required_argument, NULL, O_STAGES },
	{ "microbatches", required_argument, NULL, O_MICRO },
	{ "schedule",     required_argument, NULL, O_SCHEDULE },
	{ "virtual",      required_argument, NULL, O_VIRTUAL },
	{ "tf",           required_argument, NULL, O_TF },
	{ "tb",           required_argument, NULL, O_TB },
	{ "timeline",     no_argument,       NULL, O_TIMELINE },
	{ "help",         no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Everything the command line asked for. */
struct args {
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

/* The summary table; the time columns are chosen by units_of_tf(). */
static struct column summary_cols[] = {
	{ "stages", "stages", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "microbatches", "microbatches", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "schedule", "schedule", COL_STR, H_PLAIN, 0, NULL, 0, 11, 0 },
	{ "bubble_fraction", "bubble/step", COL_NUM, H_PERCENT, 0, NULL, 1, 0, 0 },
	{ "bubble_ratio", "bubble/ideal", COL_NUM, H_PLAIN, 0, NULL, 4, 0, 0 },
	{ "virtual", "v", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "ideal_s", "ideal", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "bubble_s", "bubble", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "step_s", "step", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "inflight", "in flight", COL_NUM, H_PLAIN, 0, NULL, 4, 0, 0 },
};
#define NSUMMARY (sizeof(summary_cols) / sizeof(summary_cols[0]))

static struct column stage_cols[] = {
	{ "stage", "stage", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "busy_s", "busy", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "idle_s", "idle", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "idle_fraction", "idle/step", COL_NUM, H_PERCENT, 0, NULL, 1, 0, 0 },
	{ "first_start_s", "first start", COL_NUM, H_TIME, 0, NULL, 4, 0, 0 },
	{ "last_end_s", "last end", COL_NUM, H_TIME, 0, NULL, 4, 0, 0 },
	{ "window_idle_s", "idle inside", COL_NUM, H_TIME, 0, NULL, 4, 0, 0 },
	{ "inflight", "in flight", COL_NUM, H_PLAIN, 0, NULL, 4, 0, 0 },
};
#define NSTAGE (sizeof(stage_cols) / sizeof(stage_cols[0]))

static struct column timeline_cols[] = {
	{ "stage", "stage", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "microbatch", "microbatch", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "pass", "pass", COL_STR, H_PLAIN, 0, NULL, 0, 8, 0 },
	{ "chunk", "chunk", COL_INT, H_PLAIN, 0, NULL, 0, 0, 0 },
	{ "start_s", "start", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
	{ "end_s", "end", COL_NUM, H_TIME, 0, NULL, 4, 9, 0 },
};
#define NTIMELINE (sizeof(timeline_cols) / sizeof(timeline_cols[0]))

/*
 * Without --tf or --tb the times are multiples of tf: the columns say so
 * in their keys ("step_tf") and print as plain numbers.
 */
static void units_of_tf(struct column *cols, size_t n)
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

/* A count list: integers from 1 to max; dies with exit 2 naming the option. */
static void count_list(const char *opt, const char *what, const char *arg,
		       struct dlist *l, unsigned long max)
{
	size_t i;

	opt_list(opt, Q_COUNT, arg, l);
	for (i = 0; i < l->n; i++) {
		char val[128];

		/* Name the element when the list has several. */
		if (l->n == 1)
			snprintf(val, sizeof(val), "'%.60s'", arg);
		else
			snprintf(val, sizeof(val), "%.17g in '%.60s'", l->v[i], arg);
		if (l->v[i] < 1)
			die_usage("%s: %s must be at least 1, got %s", opt, what, val);
		if (l->v[i] > (double)max)
			die_usage("%s: %s %s is above the limit %lu", opt, what, val, max);
	}
}

static double positive_time(const char *opt, const char *arg)
{
	double x = opt_quantity(opt, Q_TIME, arg);

	if (!(x > 0))
		die_usage("%s: time must be positive, got '%s'", opt, arg);
	return x;
}

static void parse_args(int argc, char **argv, struct args *a)
{
	struct errbuf eb;
	double x;
	int c, have_stages = 0, have_micro = 0, have_sched = 0, i;

	memset(a, 0, sizeof(*a));
	a->scheds[0] = PP_1F1B;
	a->nsched = 1;
	a->virt = 2;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
		switch (c) {
		case O_STAGES:
			count_list("--stages", "stage count", optarg, &a->stages, PP_STAGES_MAX);
			have_stages = 1;
			break;
		case O_MICRO:
			count_list("--microbatches", "microbatch count", optarg, &a->micro,
				   PP_MICROBATCHES_MAX);
			have_micro = 1;
			break;
		case O_SCHEDULE:
			a->nsched = pp_schedule_parse_list(optarg, a->scheds, &eb);
			if (a->nsched < 0)
				die_usage("--schedule: %s", eb.msg);
			have_sched = 1;
			break;
		case O_VIRTUAL:
			x = opt_quantity("--virtual", Q_COUNT, optarg);
			if (x < 1 || x > (double)PP_VIRTUAL_MAX)
				die_usage("--virtual: chunks per stage must be from 1 to %lu, got '%s'",
					  PP_VIRTUAL_MAX, optarg);
			a->virt = (unsigned long)x;
			a->virt_given = 1;
			break;
		case O_TF:
			a->tf = positive_time("--tf", optarg);
			a->tf_given = 1;
			break;
		case O_TB:
			a->tb = positive_time("--tb", optarg);
			a->tb_given = 1;
			break;
		case O_TIMELINE:
			a->timeline = 1;
			break;
		case 'h':
			usage_exit(usage, 0);
		case ':':
			fprintf(stderr, "commtime: error: option '%s' needs a value\n", argv[optind - 1]);
			usage_exit(usage, EXIT_USAGE);
		default:
			fprintf(stderr, "commtime: error: unknown option '%s'\n", argv[optind - 1]);
			usage_exit(usage, EXIT_USAGE);
		}
	}
	no_more_args(argc, argv, optind, usage);
	if (!have_stages || !have_micro)
		die_usage("pipeline needs --stages and --microbatches; see 'commtime pipeline --help'");

	/* --virtual only means something to the interleaved schedule. */
	if (a->virt_given && !have_sched) {
		a->scheds[0] = PP_INTERLEAVED;
	} else if (a->virt_given) {
		for (i = 0; i < a->nsched && a->scheds[i] != PP_INTERLEAVED; i++)
			;
		if (i == a->nsched)
			die_usage("--virtual: chunks per stage need the interleaved schedule; "
				  "add --schedule interleaved");
	}

	/* The papers' default proportion: a backward costs two forwards. */
	a->seconds = a->tf_given || a->tb_given;
	if (!a->tf_given)
		a->tf = a->tb_given ? a->tb / 2 : 1;
	if (!a->tb_given)
		a->tb = 2 * a->tf;

	if (a->timeline && (a->stages.n != 1 || a->micro.n != 1 || a->nsched != 1))
		die_usage("--timeline: simulates one schedule; give one value each to "
			  "--stages, --microbatches and --schedule");
}

static struct pp_config config_of(const struct args *a, size_t i, size_t j, int k)
{
	struct pp_config c;

	c.schedule = a->scheds[k];
	c.stages = (unsigned long)a->stages.v[i];
	c.microbatches = (unsigned long)a->micro.v[j];
	c.virt = c.schedule == PP_INTERLEAVED ? a->virt : 1;
	c.tf = a->tf;
	c.tb = a->tb;
	return c;
}

static void echo_inputs(const struct args *a, struct out *o)
{
	int i;

	if (a->seconds) {
		out_input(o, "tf_s", "tf", a->tf, H_TIME, 4, a->tf_given ? NULL :
			  "tb/2, the default proportion");
		out_input(o, "tb_s", "tb", a->tb, H_TIME, 4, a->tb_given ? NULL :
			  "2 tf, the default proportion");
	} else {
		out_input(o, "tb_per_tf", "tb/tf", a->tb / a->tf, H_PLAIN, 4,
			  "default; times are in units of tf, set --tf or --tb for seconds");
	}
	for (i = 0; i < a->nsched; i++)
		if (a->scheds[i] == PP_INTERLEAVED)
			out_input(o, "virtual", "chunks per stage", (double)a->virt, H_PLAIN, 4,
				  a->virt_given ? "interleaved schedule" :
				  "interleaved schedule; default, set with --virtual");
}

/* A time for a line of text: "12.00 ms", or "12 tf" in units of tf. */
static const char *fmt_time(char *buf, size_t len, double x, int seconds)
{
	if (seconds)
		return units_fmt_time(buf, len, x, 4);
	snprintf(buf, len, "%.6g tf", x);
	return buf;
}

/*
 * The simulated schedule of one configuration: a table of what each
 * stage did (the seed's experiment: its idle time against the formula),
 * then every operation.
 */
static void write_timeline(const struct pp_timeline *t, const struct pp_result *r,
			   const struct args *a, struct out *o)
{
	static const struct table stages_t = {
		"stages", "simulated, per stage", stage_cols, NSTAGE, 1
	};
	static const struct table timeline_t = {
		"timeline", "simulated schedule", timeline_cols, NTIMELINE, 0
	};
	char sim[40], formula[40];
	double lo = INFINITY, hi = -INFINITY;
	unsigned long s;
	size_t i;

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
	out_text(o, "simulated step %s (formula %s)", fmt_time(sim, sizeof(sim), t->makespan, a->seconds),
		 fmt_time(formula, sizeof(formula), r->step, a->seconds));
	if (hi - lo <= 1e-9)
		out_text(o, "every stage idles %.1f %% of the step (formula %.1f %%)",
			 100 * hi, 100 * r->bubble_fraction);
	else
		out_text(o, "the stages idle %.1f to %.1f %% of the step (formula %.1f %%)",
			 100 * lo, 100 * hi, 100 * r->bubble_fraction);

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

int cmd_pipeline(int argc, char **argv, struct ctx *ctx)
{
	struct table summary = { "pipeline", NULL, summary_cols, NSUMMARY, 0 };
	struct args a;
	struct out *o;
	struct errbuf eb;
	struct pp_config c;
	struct pp_result r;
	struct pp_timeline t = { 0 };
	size_t i, j;
	int k;

	parse_args(argc, argv, &a);
	if (ctx->plot || ctx->render)
		warning("pipeline: --plot and --render are not available for this command yet");
	if (!a.seconds) {
		units_of_tf(summary_cols, NSUMMARY);
		units_of_tf(stage_cols, NSTAGE);
		units_of_tf(timeline_cols, NTIMELINE);
	}

	/* Check every row before the first byte goes out. */
	for (i = 0; i < a.stages.n; i++)
		for (j = 0; j < a.micro.n; j++)
			for (k = 0; k < a.nsched; k++) {
				c = config_of(&a, i, j, k);
				if (pp_check(&c, &eb) < 0)
					die_usage("%s", eb.msg);
			}
	if (a.timeline) {
		c = config_of(&a, 0, 0, 0);
		if (pp_sim_ops(&c) > PP_SIM_OPS_MAX)
			die_usage("--timeline: %zu operations (2PMv with P = %lu, M = %lu, "
				  "v = %lu) are more than the %lu that can be simulated",
				  pp_sim_ops(&c), c.stages, c.microbatches, c.virt,
				  PP_SIM_OPS_MAX);
		if (pp_simulate(&c, &t, &eb) < 0)
			die("%s", eb.msg);
		summary.secondary = 1;
	}

	o = ctx_out_open(ctx);
	echo_inputs(&a, o);
	out_table_begin(o, &summary);
	for (i = 0; i < a.stages.n; i++) {
		for (j = 0; j < a.micro.n; j++) {
			for (k = 0; k < a.nsched; k++) {
				struct cell row[NSUMMARY];

				c = config_of(&a, i, j, k);
				if (pp_bubble(&c, &r, &eb) < 0) {
					out_abort(o);
					die("%s", eb.msg);
				}
				memset(row, 0, sizeof(row));
				row[0].x = (double)c.stages;
				row[1].x = (double)c.microbatches;
				row[2].s = pp_schedule_name(c.schedule);
				row[3].x = r.bubble_fraction;
				row[4].x = r.bubble_ratio;
				row[5].x = (double)c.virt;
				row[6].x = r.ideal;
				row[7].x = r.bubble;
				row[8].x = r.step;
				row[9].x = r.inflight;
				out_row(o, row);
			}
		}
	}
	out_table_end(o);
	if (a.timeline)
		write_timeline(&t, &r, &a, o);
	ctx_out_close(ctx, o);
	pp_timeline_release(&t);
	dlist_release(&a.stages);
	dlist_release(&a.micro);
	return EXIT_OK;
}
