/*
 * What commtime compare says besides its rows: the echo of the inputs,
 * the summary, and the notes on the busbw check (the line rate, the
 * plateau, the likely cause of a low bus bandwidth on a system; what a
 * TUNING log adds is compare_nccl.c's).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "compare.h"
#include "errband.h"
#include "nccl_cost.h"

static const struct column sum_cols[] = {
	{ .key = "sizes", .label = "sizes", .type = COL_INT, .human = H_PLAIN },
	{ .key = "median_abs_rel_error", .label = "median |error|", .type = COL_NUM,
	  .human = H_PERCENT, .prec = 1, .width = 14 },
	{ .key = "worst_rel_error", .label = "worst", .type = COL_NUM, .human = H_PERCENT,
	  .prec = 1, .width = 7 },
	{ .key = "worst_size_B", .label = "at", .type = COL_NUM, .human = H_SIZE, .prec = 3,
	  .width = 8 },
	{ .key = "far", .label = "far", .type = COL_INT, .human = H_PLAIN },
	{ .key = "peak_busbw_Bps", .label = "large busbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "line_rate_Bps", .label = "line rate", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 10 },
	{ .key = "line_fraction", .label = "share", .type = COL_NUM, .human = H_PERCENT,
	  .width = 5 },
};
/* On a system the reference is the predicted busbw at the same size. */
static const struct column sys_ref_cols[] = {
	{ .key = "predicted_busbw_Bps", .label = "predicted", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 10 },
	{ .key = "predicted_fraction", .label = "share", .type = COL_NUM, .human = H_PERCENT,
	  .width = 5 },
	/* JSON only: the note's cause, for scripts */
	{ .key = "low_busbw_cause", .label = "cause", .type = COL_STR, .human = H_PLAIN,
	  .flags = COL_DATA_ONLY },
	/* JSON only: the sizes with a stated error, and those inside it */
	{ .key = "stated_sizes", .label = "stated", .type = COL_INT, .human = H_PLAIN,
	  .flags = COL_DATA_ONLY },
	{ .key = "stated_inside", .label = "inside", .type = COL_INT, .human = H_PLAIN,
	  .flags = COL_DATA_ONLY },
};
enum { NSYS_REF = sizeof(sys_ref_cols) / sizeof(sys_ref_cols[0]) };
enum { NSUM = sizeof(sum_cols) / sizeof(sum_cols[0]) };

/* The columns design.md pins, then the band of --range or the model's choice. */
static const struct column base_cols[] = {
	{ .key = "size_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .prec = 3, .width = 8 },
	{ .key = "measured_s", .label = "measured", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 9 },
	{ .key = "predicted_s", .label = "predicted", .type = COL_NUM, .human = H_TIME, .prec = 4,
	  .width = 9 },
	{ .key = "rel_error", .label = "error", .type = COL_NUM, .human = H_PERCENT, .prec = 1,
	  .width = 7 },
	{ .key = "measured_busbw_Bps", .label = "busbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "predicted_busbw_Bps", .label = "predicted", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "flag", .label = "flag", .type = COL_STR, .human = H_PLAIN },
};
enum { NBASE = sizeof(base_cols) / sizeof(base_cols[0]), COL_FLAG = NBASE - 1 };
static const struct column range_cols[] = {
	{ .key = "low_s", .label = "low", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "high_s", .label = "high", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 },
	{ .key = "in_band", .label = "in band", .type = COL_STR, .human = H_PLAIN },
};
static const struct column algo_col = {
	.key = "algo", .label = "algo", .type = COL_STR, .human = H_PLAIN
};


/*
 * The likely cause of a low large-message busbw on the system, as the
 * machine explains it (nccl_model.h), or NULL.
 */
static const char *low_busbw_cause(const struct comparison *c, double busbw)
{
	struct nccl_machine mach;
	struct errbuf eb;
	unsigned long nodes = system_nodes(&c->ctx->machine.system, c->ranks);

	if (nccl_machine_from_system(&c->ctx->machine.system, &mach, &eb) < 0)
		return NULL;
	return nccl_low_busbw_cause(&mach, (int)nodes, busbw);
}

/*
 * A log run with one host thread driving several GPUs (nccl-tests -g N,
 * nThread 1) times, in every iteration, that thread launching the N
 * GPUs' kernels one after another (nccl-tests src/common.cu: startColl
 * issues the N GPUs' collectives in one ncclGroupStart/End, and BenchTime
 * divides the host clock's time for the whole loop of iterations by
 * their number), which NCCL's model of the GPUs' own work does not hold.  When the smallest size takes more than
 * HOST_BOUND_RATIO times the prediction, say so, with what each GPU's
 * launch then costs the host; a job with one process per GPU does not
 * pay it.
 */
#define HOST_BOUND_RATIO 2.0
static void host_bound_note(const struct comparison *c, struct out *o)
{
	const struct cmp_row *r = &c->rows[0];
	unsigned long g = c->m->gpus_per_thread;
	char a[32], b[32], d[32], e[32];

	if (g < 2 || !(r->predicted > 0))
		return;
	if (c->ctx->machine.model.kind == COST_NCCL && c->ctx->machine.nccl.gpus_per_process == g &&
	    r->predicted <= g * c->ctx->machine.nccl.launch_s * (1 + 1e-9)) {
		/* the model priced the launches (--gpus-per-process, the banner) */
		out_text(o, "the smallest size is held by the host in the model: one host thread "
			 "launches %lu GPUs (nGpus %lu, nccl-tests -g), at least %lu x %s = %s a "
			 "call; measured %s, %s per GPU; a job with one process per GPU "
			 "(mpirun -np N ... -g 1) does not wait for it", g, g, g,
			 units_fmt_time(a, sizeof(a), c->ctx->machine.nccl.launch_s, 3),
			 units_fmt_time(b, sizeof(b), r->predicted, 3),
			 units_fmt_time(d, sizeof(d), r->measured, 3),
			 units_fmt_time(e, sizeof(e), r->measured / (double)g, 3));
		return;
	}
	if (!(r->measured > HOST_BOUND_RATIO * r->predicted))
		return;
	out_text(o, "the smallest size takes %s, %.1fx the model's %s: the log was run with "
		 "one host thread driving %lu GPUs (nGpus %lu, nccl-tests -g), so each "
		 "iteration also waits for that thread to launch %lu kernels, %s per GPU if "
		 "it sets the pace; a job with one process per GPU (mpirun -np N ... -g 1) "
		 "does not wait for it", units_fmt_time(a, sizeof(a), r->measured, 3),
		 r->measured / r->predicted, units_fmt_time(b, sizeof(b), r->predicted, 3), g, g, g,
		 units_fmt_time(d, sizeof(d), r->measured / (double)g, 3));
}

/* The verdict with no machine at all: nothing to judge against, and what to give. */
static void judge_no_machine(const struct comparison *c, const struct cmp_sum *sum,
			     struct cmp_verdict *v)
{
	char b[32];

	snprintf(v->line, sizeof(v->line), "verdict: NOT JUDGED: no machine was given, so "
		 "nothing says what this fabric should reach (large-message busbw %s)",
		 units_fmt_rate(b, sizeof(b), sum->peak, 4));
	if (!c->expected && !c->ctx->machine.link_given)
		snprintf(v->note[0], sizeof(v->note[0]), "the errors are against the default "
			 "link (alpha 5 us, beta 200 GB/s), not this machine: give --system "
			 "NAME (a machine) or --preset LINK (a link and its line rate)");
	else
		snprintf(v->note[0], sizeof(v->note[0]), "give --system NAME (a machine) or "
			 "--preset LINK (a link and its line rate) to judge the busbw");
	v->word = "not judged";
}

/*
 * What the busbw is held against, into e: a line rate is what the link
 * should carry; a link's β without one (--beta, a fitted preset) is
 * only what was given or measured before, and the verdict says so: the
 * words it adds, or "".
 */
static const char *judge_reference(const struct comparison *c, char *e, size_t len)
{
	if (c->on_system)
		snprintf(e, len, "what %s should give", c->ctx->machine.system.name);
	else if (c->ctx->machine.have_preset && preset_get(&c->ctx->machine.preset, "beta_line"))
		snprintf(e, len, "%s", "the line rate");
	else if (c->fm) {
		snprintf(e, len, "%s", "the fitted beta");
		return "; what the machine did when fitted, not a line rate";
	} else {
		snprintf(e, len, "%s", "beta");
		return "; no line rate given";
	}
	return "";
}

/*
 * The verdict: is the fabric fine, judged by the large-message busbw
 * against what the machine should give (on a system: the predicted
 * busbw; on a link: its line rate), and why.  With no machine at all
 * nothing is judged, and it says so on the terminal and on stderr: the
 * errors are then against the default link, not this machine.
 */
void compare_judge(const struct comparison *c, const struct cmp_sum *sum, int plateau,
		   double rise, double before, struct cmp_verdict *v)
{
	double largest = c->rows[c->m->n - 1].size;
	double share = sum->peak / sum->peak_ref;
	int low = plateau && !isnan(sum->peak_ref) && sum->peak < c->minbw * sum->peak_ref;
	char b[32], d[32], e[160];
	const char *q;

	memset(v, 0, sizeof(*v));
	v->cause = low && c->on_system ? low_busbw_cause(c, sum->peak) : NULL;
	if (!c->on_system && isnan(c->line_rate)) {
		judge_no_machine(c, sum, v);
		return;
	}
	if (!plateau) {
		snprintf(v->line, sizeof(v->line), "verdict: NOT JUDGED: the log ends at %s, before "
			 "the bandwidth plateau (busbw still rises %.0f %% from %s); measure to 1G "
			 "or more (-e 8G)", units_fmt_size(b, sizeof(b), largest), 100 * rise,
			 units_fmt_size(d, sizeof(d), before));
		v->word = "not judged";
		return;
	}
	q = judge_reference(c, e, sizeof(e));
	snprintf(v->line, sizeof(v->line), "verdict: the fabric is %s: large-message busbw is %s, "
		 "%.0f %% of %s (%s%s), %s %.0f %%", low ? "NOT fine" : "fine",
		 units_fmt_rate(b, sizeof(b), sum->peak, 4), 100 * share, e,
		 units_fmt_rate(d, sizeof(d), sum->peak_ref, 4), q, low ? "below" : "at least",
		 100 * c->minbw);
	if (low) {
		snprintf(v->note[0], sizeof(v->note[0]), "why: %s", v->cause ? v->cause :
			 c->on_system ? "check links, topology and fabric (nvidia-smi topo -m, "
			 "NCCL_DEBUG=INFO)" : "check links and topology (nvidia-smi topo -m, "
			 "NCCL_DEBUG=INFO)");
		v->word = "not fine";
		return;
	}
	if (sum->nfar)
		snprintf(v->note[0], sizeof(v->note[0]), "the times are another matter: %d of %zu "
			 "sizes are off the prediction by more than %.0f %% (below)", sum->nfar,
			 sum->nerr, 100 * c->tol);
	v->word = "fine";
}

/* The rows as a table: the pinned columns, the band of --range, the model's choice. */
void compare_rows_write(const struct comparison *c, struct out *o, int range)
{
	struct column cols[NBASE + 4];
	struct table t = { .name = "compare", .cols = cols, .ncols = NBASE,
			   .title = "measured against predicted (error = predicted/measured - 1)" };
	size_t i;

	memcpy(cols, base_cols, sizeof(base_cols));
	if (range) {
		t.title = "measured against predicted (error = predicted/measured - 1), with the band";
		cols[COL_FLAG].width = 14;
		memcpy(cols + NBASE, range_cols, sizeof(range_cols));
		t.ncols += sizeof(range_cols) / sizeof(range_cols[0]);
	}
	if (c->on_system)
		cols[t.ncols++] = algo_col;
	out_table_begin(o, &t);
	for (i = 0; i < c->m->n; i++) {
		const struct cmp_row *r = &c->rows[i];
		struct cell row[NBASE + 4];
		char alg[64];
		int k = NBASE;

		row[0] = (struct cell){ .x = r->size };
		row[1] = (struct cell){ .x = r->measured };
		row[2] = (struct cell){ .x = r->predicted };
		row[3] = (struct cell){ .x = fit_rel_err(r->predicted, r->measured) };
		row[4] = (struct cell){ .x = r->busbw };
		row[5] = (struct cell){ .x = r->pbusbw };
		row[COL_FLAG] = (struct cell){ .s = r->flag };
		if (range) {
			int in = r->measured >= r->lo && r->measured <= r->hi;

			row[k++] = (struct cell){ .x = r->lo };
			row[k++] = (struct cell){ .x = r->hi };
			row[k++] = (struct cell){ .s = in ? "inside" : r->measured < r->lo ? "below" :
						  "above" };
		}
		if (c->on_system)
			row[k++] = (struct cell){ .s = c->expected && !r->beyond_plan ? "-" :
						  c->fm ? "-" : cost_choice_text(&r->cc, alg, sizeof(alg)) };
		out_row(o, row);
	}
	out_table_end(o);
}

/* The summary table and the notes under it (the verdict leads the output). */
void compare_summary(const struct comparison *c, struct out *o, const struct cmp_sum *sum,
		     const struct cmp_verdict *v, int range)
{
	const struct meas *m = c->m;
	double largest = c->rows[m->n - 1].size;
	double med = gsl_stats_median_from_sorted_data(sum->err, 1, sum->nerr);
	struct column cols[NSUM - 2 + NSYS_REF + 1];
	struct cell all[NSUM - 2 + NSYS_REF + 1];
	/* JSON only: the verdict, for scripts ("fine", "not fine", "not judged") */
	static const struct column verdict_col = { .key = "verdict", .label = "verdict",
						   .type = COL_STR, .human = H_PLAIN,
						   .flags = COL_DATA_ONLY };
	struct table t = { .name = "summary", .title = "summary", .cols = cols, .ncols = NSUM,
			   .secondary = 1 };
	struct cell row[] = { { .x = (double)sum->nerr }, { .x = med }, { .x = sum->worst },
			      { .x = sum->worst_size }, { .x = (double)sum->nfar },
			      { .x = sum->peak }, { .x = sum->peak_ref },
			      { .x = sum->peak / sum->peak_ref }, { .s = v->cause ? v->cause : "" },
			      { .x = sum->nstated }, { .x = sum->nstated_inside } };
	char b[32];

	out_text(o, "%s", "");
	out_text(o, "%s", v->line);
	if (v->note[0][0])
		out_text(o, "%s", v->note[0]);
	memcpy(cols, sum_cols, sizeof(sum_cols));
	if (c->on_system) {
		memcpy(cols + NSUM - 2, sys_ref_cols, sizeof(sys_ref_cols));
		t.ncols = NSUM - 2 + NSYS_REF;
	}
	memcpy(all, row, t.ncols * sizeof(*all));
	cols[t.ncols] = verdict_col;
	all[t.ncols++] = (struct cell){ .s = v->word };
	out_table_begin(o, &t);
	out_row(o, all);
	out_table_end(o);
	if (sum->nfar)
		out_text(o, "%d of %zu sizes are off the prediction by more than %.0f %%",
			 sum->nfar, sum->nerr, 100 * c->tol);
	if (range)
		out_text(o, "%d of %d sizes fall inside the band", sum->ninside, sum->nband);
	if (sum->nstated) {
		out_text(o, "%d of %d sizes fall inside the stated error: low to high times the "
			 "prediction, drawn", sum->nstated_inside, sum->nstated);
		out_text(o, "so that a machine left out of %u public logs falls inside 80 %% of the "
			 "time (commtime --system S allreduce shows the bands)", errband_logs);
	}
	if (largest < c->large)
		out_text(o, "no size reaches %s; the bandwidth check uses the largest",
			 units_fmt_size(b, sizeof(b), c->large));
	if (c->on_system) {
		host_bound_note(c, o);
		compare_nccl_notes(c, o);
	}
}

/* The echo of the inputs. */
void compare_inputs(const struct comparison *c, struct out *o, const struct meas_args *ma)
{
	const struct ctx *ctx = c->ctx;
	const struct meas *m = c->m;
	char fmt[64];

	/* said before any output, so it leads on a terminal and in a file alike */
	if (!c->on_system && isnan(c->line_rate))
		warning("compare: no machine given (--system NAME or --preset LINK): the "
			"fabric is not judged");
	out_input_str(o, "file", "file", m->path);
	snprintf(fmt, sizeof(fmt), "%s (detected)", meas_format_name(m->format));
	out_input_str(o, "format", "format", fmt);
	out_input_str(o, "op", "collective", coll_op_name(c->op));
	if (m->op_inferred && ma->op == OP_COUNT)
		out_input_str(o, "op_from", "collective told from",
			      "every row's redop 'sum' and busbw/algbw = 2(n-1)/n (all_reduce_perf)");
	out_input(o, "ranks", "ranks", (double)m->ranks, H_PLAIN, 10, ma->ranks ? "from --ranks" :
		  m->format == MEAS_NCCL_TEXT ? "from the log's '# Rank' lines" : "from the file");
	if (c->on_system)
		out_input(o, "nodes", "nodes", (double)system_nodes(&ctx->machine.system, c->ranks),
			  H_PLAIN, 10, "ranks / GPUs per node, rounded up");
	if (c->expected) {
		out_input_str(o, "expected", "expected", c->expected_path);
		if (c->plan_nccl[0])
			out_input_str(o, "expected_nccl_version", "the plan's NCCL version",
				      c->plan_nccl);
		if (c->beyond_plan) {
			char note[256];

			snprintf(note, sizeof(note), "%zu of %zu sizes, which the plan does not "
				 "hold: predicted by the %s model%s%s", c->beyond_plan, m->n,
				 cost_kind_name(ctx->machine.model.kind), c->on_system ? " of " : "",
				 c->on_system ? ctx->machine.system.name : "");
			out_input_str(o, "beyond_plan", "beyond the plan", note);
		}
	} else {
		ctx_echo_link_values(ctx, o);
		out_input_str(o, "algo", "algorithm", c->fm ? "the preset's regimes" :
			      c->algo == ALGO_AUTO ? "the model's choice at each size" :
			      coll_algo_name(c->algo));
	}
	if (c->on_system)
		out_input_str(o, "busbw_reference", "busbw judged against",
			      "the predicted busbw at each size");
	else if (isnan(c->line_rate))
		out_input_str(o, "line_rate_Bps", "line rate",
			      "unknown: give --preset LINK or --beta RATE for the busbw check");
	else
		out_input(o, "line_rate_Bps", "line rate", c->line_rate, H_RATE, 4,
			  ctx->machine.have_preset && preset_get(&ctx->machine.preset, "beta_line") ?
			  "beta_line of the preset" : "beta");
}
