/*
 * commtime pipeline: the bubble of pipeline-parallel schedules, one row
 * per stage count × microbatch count × schedule, and with --timeline the
 * simulated schedule of one configuration.  Formulas and simulation live
 * in pipeline.c; models/pipeline.md explains them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline_cmd.h"

static const char *const usage_lines[] = {
	"commtime pipeline --stages LIST --microbatches LIST [options]", NULL
};
static const struct opts_usage usage = {
	.cmd = "pipeline",
	.hide = OPT_TAG_LINK,
	.lines = usage_lines,
	.about = "Bubble of a pipeline-parallel step: the share of the step each stage\n"
		 "idles, (P-1)/(vM+P-1), and Megatron's bubble/ideal ratio (P-1)/(vM),\n"
		 "for P stages, M microbatches and v chunks per stage (interleaved).\n",
};

/* The summary table; in units of tf by pipeline_cols_in_tf(). */
static struct column summary_cols[] = {
	{ .key = "stages", .label = "stages", .type = COL_INT },
	{ .key = "microbatches", .label = "microbatches", .type = COL_INT },
	{ .key = "schedule", .label = "schedule", .type = COL_STR, .width = 11 },
	{ .key = "bubble_fraction", .label = "bubble/step", .type = COL_NUM, .human = H_PERCENT, .prec = 1 },
	{ .key = "bubble_ratio", .label = "bubble/ideal", .type = COL_NUM, .prec = 4 },
	{ .key = "virtual", .label = "v", .type = COL_INT },
	{ .key = "ideal_s", .label = "ideal", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "bubble_s", .label = "bubble", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "inflight", .label = "in flight", .type = COL_NUM, .prec = 4 },
};
#define NSUMMARY (sizeof(summary_cols) / sizeof(summary_cols[0]))

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

static void cb_stages(const struct opt *o, const char *arg)
{
	count_list("--stages", "stage count", arg, o->value, PP_STAGES_MAX);
}

static void cb_micro(const struct opt *o, const char *arg)
{
	count_list("--microbatches", "microbatch count", arg, o->value, PP_MICROBATCHES_MAX);
}

static void cb_schedule(const struct opt *o, const char *arg)
{
	struct pipeline_args *a = o->value;
	struct errbuf eb;

	a->nsched = pp_schedule_parse_list(arg, a->scheds, &eb);
	if (a->nsched < 0)
		die_usage("--schedule: %s", eb.msg);
}

static void cb_virtual(const struct opt *o, const char *arg)
{
	double x = opt_quantity("--virtual", Q_COUNT, arg);

	if (x < 1 || x > (double)PP_VIRTUAL_MAX)
		die_usage("--virtual: chunks per stage must be from 1 to %lu, got '%s'",
			  PP_VIRTUAL_MAX, arg);
	*(unsigned long *)o->value = (unsigned long)x;
}

/*
 * --virtual only means something to the interleaved schedule: alone it
 * selects it; with --schedule that one must be among those given.
 */
static void virtual_schedule(struct pipeline_args *a, int have_sched)
{
	int i;

	if (!have_sched) {
		a->scheds[0] = PP_INTERLEAVED;
		return;
	}
	for (i = 0; i < a->nsched && a->scheds[i] != PP_INTERLEAVED; i++)
		;
	if (i == a->nsched)
		die_usage("--virtual: chunks per stage need the interleaved schedule; "
			  "add --schedule interleaved");
}

static void parse_args(int argc, char **argv, struct pipeline_args *a)
{
	int have_stages, have_micro, have_sched;
	struct opt options[] = {
		OPT_CALLBACK_("stages", "LIST", &a->stages, cb_stages,
			      "pipeline stages P, e.g. 4,8 or 2:16:x2 (required)"),
		OPT_CALLBACK_("microbatches", "LIST", &a->micro, cb_micro,
			      "microbatches per step M, e.g. 8:64:x2 (required)"),
		{ .type = OPT_CALLBACK, .long_name = "schedule", .argh = "LIST", .value = a,
		  .cb = cb_schedule, .complete = "gpipe 1f1b interleaved",
		  .help = "gpipe, 1f1b (default) or interleaved, comma-separated" },
		OPT_CALLBACK_("virtual", "V", &a->virt, cb_virtual,
			      "model chunks per stage of the interleaved schedule\n"
			      "(default 2; alone, it selects interleaved)"),
		OPT_POSITIVE_("tf", "TIME", Q_TIME, &a->tf,
			      "forward time of one microbatch on one stage"),
		OPT_POSITIVE_("tb", "TIME", Q_TIME, &a->tb,
			      "backward time (default 2 tf); without either,\n"
			      "times are in units of tf"),
		OPT_FLAG_("timeline", &a->timeline,
			  "simulate the schedule and print when each forward\n"
			  "and backward starts and ends on each stage (one\n"
			  "stage count, microbatch count and schedule); in CSV\n"
			  "the timeline is the table"),
		OPT_END_()
	};

	memset(a, 0, sizeof(*a));
	a->scheds[0] = PP_1F1B;
	a->nsched = 1;
	a->virt = 2;
	opts_parse(argc, argv, options, &usage, 0);
	have_stages = opts_given(options, "stages") != NULL;
	have_micro = opts_given(options, "microbatches") != NULL;
	have_sched = opts_given(options, "schedule") != NULL;
	a->virt_given = opts_given(options, "virtual") != NULL;
	a->tf_given = opts_given(options, "tf") != NULL;
	a->tb_given = opts_given(options, "tb") != NULL;
	if (!have_stages || !have_micro)
		die_usage("pipeline needs --stages and --microbatches; see 'commtime pipeline --help'");

	if (a->virt_given)
		virtual_schedule(a, have_sched);

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

static void echo_inputs(const struct pipeline_args *a, struct out *o)
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

int cmd_pipeline(int argc, char **argv, struct ctx *ctx)
{
	struct table summary = { "pipeline", NULL, summary_cols, NSUMMARY, 0 };
	struct pipeline_args a;
	struct out *o;
	struct errbuf eb;
	struct pp_config c;
	struct pp_result r;
	struct pp_timeline t = { 0 };
	struct pp_config skipped;
	size_t i, j, nskipped = 0, nrows = 0;
	int k;

	parse_args(argc, argv, &a);
	if (!a.seconds) {
		pipeline_cols_in_tf(summary_cols, NSUMMARY);
	}

	/*
	 * Check every row before the first byte goes out.  In a sweep the
	 * interleaved schedule's rows with M not a multiple of P are left out
	 * with a note; they are an error only when nothing else is left.
	 */
	for (i = 0; i < a.stages.n; i++)
		for (j = 0; j < a.micro.n; j++)
			for (k = 0; k < a.nsched; k++) {
				c = pipeline_config_of(&a, i, j, k);
				if (!pp_defined(&c) && a.stages.n * a.micro.n > 1) {
					if (!nskipped++)
						skipped = c;
					continue;
				}
				if (pp_check(&c, &eb) < 0)
					die_usage("%s", eb.msg);
				nrows++;
			}
	if (!nrows) {
		pp_check(&skipped, &eb);
		die_usage("%s", eb.msg);
	}
	if (a.timeline) {
		c = pipeline_config_of(&a, 0, 0, 0);
		if (pp_sim_ops(&c) > PP_SIM_OPS_MAX)
			die_usage("--timeline: %zu operations (2PMv with P = %lu, M = %lu, "
				  "v = %lu) are more than the %lu that can be simulated",
				  pp_sim_ops(&c), c.stages, c.microbatches, c.virt,
				  PP_SIM_OPS_MAX);
		if ((ctx->plot || ctx->render) && pp_sim_ops(&c) > PIPELINE_FIG_OPS_MAX)
			die_usage("--timeline: %zu operations are too many to draw (at most %lu); "
				  "give fewer stages or microbatches, or leave out --plot and --render",
				  pp_sim_ops(&c), PIPELINE_FIG_OPS_MAX);
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

				c = pipeline_config_of(&a, i, j, k);
				if (!pp_defined(&c))
					continue;
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
	if (nskipped)
		out_text(o, "left out %zu row%s: the interleaved schedule needs microbatches "
			 "divisible by stages (first: M = %lu, P = %lu)", nskipped,
			 nskipped == 1 ? "" : "s", skipped.microbatches, skipped.stages);
	if (a.timeline) {
		pipeline_write_timeline(&t, &r, &a, o);
		if (ctx_wants_figure(ctx))
			pipeline_figure_timeline(ctx, &a, &t);
	} else if (ctx_wants_figure(ctx)) {
		pipeline_figure_bubble(ctx, &a);
	}
	ctx_out_close(ctx, o);
	pp_timeline_release(&t);
	dlist_release(&a.stages);
	dlist_release(&a.micro);
	return EXIT_OK;
}

