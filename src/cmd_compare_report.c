/*
 * What commtime compare says besides its rows: the echo of the inputs,
 * the summary, and the notes on the busbw check (the line rate, the
 * plateau, the likely cause of a low bus bandwidth on a system).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "compare.h"
#include "nccl_cost.h"
#include "ncclt.h"

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
};
enum { NSUM = sizeof(sum_cols) / sizeof(sum_cols[0]) };

/*
 * The likely cause of a low large-message busbw on the system, as the
 * machine explains it (nccl.h), or NULL.
 */
static const char *low_busbw_cause(const struct comparison *c, double busbw)
{
	struct nccl_machine mach;
	struct errbuf eb;
	unsigned long nodes = system_nodes(&c->ctx->system, c->ranks);

	if (nccl_machine_from_system(&c->ctx->system, &mach, &eb) < 0)
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
	char a[32], b[32], d[32];

	if (g < 2 || !(r->predicted > 0) || !(r->measured > HOST_BOUND_RATIO * r->predicted))
		return;
	out_text(o, "the smallest size takes %s, %.1fx the model's %s: the log was run with "
		 "one host thread driving %lu GPUs (nGpus %lu, nccl-tests -g), so each "
		 "iteration also waits for that thread to launch %lu kernels, %s per GPU if "
		 "it sets the pace; a job with one process per GPU (mpirun -np N ... -g 1) "
		 "does not wait for it", units_fmt_time(a, sizeof(a), r->measured, 3),
		 r->measured / r->predicted, units_fmt_time(b, sizeof(b), r->predicted, 3), g, g, g,
		 units_fmt_time(d, sizeof(d), r->measured / (double)g, 3));
}

/*
 * NCCL's own choices, when the log holds its TUNING lines
 * (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING; meas.h, struct meas_tuned),
 * against the model's at the same sizes: how many agree, the first sizes
 * that differ, and sizes where NCCL itself chose differently from one
 * call to another.  Only for NCCL's model (the choice has a protocol).
 */
#define TUNED_LISTED 4

/* The model's time of the pair NCCL ran at size (s), NaN when it has none. */
static double tuned_pair_time(const struct comparison *c, const struct meas_tuned *t,
			      double size)
{
	struct group g = { .ranks = c->ranks };
	struct nccl_tune tune;
	struct errbuf eb;
	int f = nccl_func_of(c->op);
	double s;

	if (f < 0 || nccl_cost_tune(&c->ctx->nccl, &g, &tune, &eb) < 0)
		return NAN;
	s = nccl_run_time(&tune, &c->ctx->nccl.params, (enum nccl_func)f, t->algo, t->proto,
			  size, NULL);
	return s > 0 ? s : NAN;
}

/*
 * NCCL's logged choice at row r, with that choice as a coll_cost in *nc
 * (for predictor_choice); NULL when the log has none there or the model
 * has no protocol (not NCCL's model).
 */
static const struct meas_tuned *tuned_at(const struct comparison *c, const struct cmp_row *r,
					 struct coll_cost *nc)
{
	const struct meas_tuned *t = meas_tuned_find(c->m, (int)c->op, r->size);

	if (!t || isnan(r->cc.time_s) || r->cc.proto == PROTO_NONE)
		return NULL;
	*nc = (struct coll_cost){ .time_s = 0, .algo = nccl_algo_to_coll(t->algo),
				  .proto = (enum coll_proto)t->proto };  /* same order */
	return t;
}

static const struct column tuned_cols[] = {
	{ .key = "size_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .prec = 4 },
	{ .key = "nccl_choice", .label = "NCCL", .type = COL_STR, .human = H_PLAIN },
	{ .key = "model_choice", .label = "model", .type = COL_STR, .human = H_PLAIN },
	{ .key = "nccl_choice_predicted_s", .label = "NCCL's pair", .type = COL_NUM,
	  .human = H_TIME, .prec = 4 },
	{ .key = "predicted_s", .label = "predicted", .type = COL_NUM, .human = H_TIME, .prec = 4 },
	{ .key = "measured_s", .label = "measured", .type = COL_NUM, .human = H_TIME, .prec = 4 },
	{ .key = "mixed", .label = "mixed", .type = COL_INT, .human = H_PLAIN },
};

/*
 * CSV has one table, the table format the note below; JSON gets every
 * size NCCL logged as rows of "nccl_choice", for scripts.
 */
static void tuned_table(const struct comparison *c, struct out *o)
{
	struct table t = { .name = "nccl_choice", .title = "NCCL's choice (the log's TUNING lines)",
			   .cols = tuned_cols, .ncols = sizeof(tuned_cols) / sizeof(tuned_cols[0]),
			   .secondary = 1 };
	int begun = 0;
	char a[32], b[32];

	for (size_t i = 0; i < c->m->n; i++) {
		const struct cmp_row *r = &c->rows[i];
		struct coll_cost nc;
		const struct meas_tuned *tu = tuned_at(c, r, &nc);

		if (!tu)
			continue;
		if (!begun++)
			out_table_begin(o, &t);
		out_row(o, (struct cell[]){ { .x = r->size }, { .s = predictor_choice(&nc, a, sizeof(a)) },
					    { .s = predictor_choice(&r->cc, b, sizeof(b)) },
					    { .x = tuned_pair_time(c, tu, r->size) },
					    { .x = r->cc.time_s }, { .x = r->measured },
					    { .x = tu->mixed } });
	}
	if (begun)
		out_table_end(o);
}

static void tuned_note(const struct comparison *c, struct out *o)
{
	char list[TUNED_LISTED * 160] = "", a[32], b[32], sz[32], t1[32], t2[32], t3[32];
	int n = 0, same = 0, differ = 0, mixed = 0;
	double first_mixed = NAN;

	if (out_get_format(o) == FMT_JSON) {
		tuned_table(c, o);
		return;
	}
	for (size_t i = 0; i < c->m->n; i++) {
		const struct cmp_row *r = &c->rows[i];
		struct coll_cost nc;
		const struct meas_tuned *t = tuned_at(c, r, &nc);

		if (!t)
			continue;
		n++;
		if (t->mixed && mixed++ == 0)
			first_mixed = r->size;
		if (nc.algo == r->cc.algo && nc.proto == r->cc.proto) {
			same++;
			continue;
		}
		if (differ++ < TUNED_LISTED) {
			double pt = tuned_pair_time(c, t, r->size);

			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s (NCCL %s, %s in the model; model %s, %s; measured %s)",
				 differ > 1 ? ", " : "", units_fmt_size(sz, sizeof(sz), r->size),
				 predictor_choice(&nc, a, sizeof(a)),
				 isnan(pt) ? "-" : units_fmt_time(t1, sizeof(t1), pt, 3),
				 predictor_choice(&r->cc, b, sizeof(b)),
				 units_fmt_time(t2, sizeof(t2), r->cc.time_s, 3),
				 units_fmt_time(t3, sizeof(t3), r->measured, 3));
		}
	}
	if (n == 0)
		return;
	if (!differ)
		out_text(o, "NCCL's own choice (the log's TUNING lines) is the model's at all %d "
			 "sizes it names", n);
	else
		out_text(o, "NCCL's own choice (the log's TUNING lines) is the model's at %d of %d "
			 "sizes; it differs at %s%s", same, n, list,
			 differ > TUNED_LISTED ? " and more" : "");
	if (mixed == 1)
		out_text(o, "NCCL chose differently from one call to another at %s: its first "
			 "line is taken", units_fmt_size(sz, sizeof(sz), first_mixed));
	else if (mixed)
		out_text(o, "NCCL chose differently from one call to another at %d sizes, the "
			 "first %s: its first line is taken", mixed,
			 units_fmt_size(sz, sizeof(sz), first_mixed));
}

/*
 * NCCL's tuning table from the log (meas.h, struct meas_ncclt) against
 * the model's for the log's collective and ranks: latency and bandwidth
 * of every pair either side can run, and whether they agree within
 * NCCLT_TOL (plus the 0.05 that NCCL's one decimal rounds away).  A
 * difference points at the machine description (channels, bandwidth per
 * channel, links) rather than at the time model.
 */
static const struct column ncclt_cols[] = {
	{ .key = "pair", .label = "algorithm/protocol", .type = COL_STR, .human = H_PLAIN,
	  .width = 18 },
	{ .key = "nccl_latency_s", .label = "NCCL lat", .type = COL_NUM, .human = H_TIME,
	  .prec = 3, .width = 9 },
	{ .key = "model_latency_s", .label = "model lat", .type = COL_NUM, .human = H_TIME,
	  .prec = 3, .width = 9 },
	{ .key = "nccl_bw_Bps", .label = "NCCL bw", .type = COL_NUM, .human = H_RATE, .prec = 3,
	  .width = 10 },
	{ .key = "model_bw_Bps", .label = "model bw", .type = COL_NUM, .human = H_RATE, .prec = 3,
	  .width = 10 },
	{ .key = "differs", .label = "differs", .type = COL_STR, .human = H_PLAIN },
};

/*
 * Which one change of the system file would make more of the tables
 * agree (ncclt.h): the best three, or that none does.
 */
#define VARIANTS_LISTED 3
static const struct column variant_cols[] = {
	{ .key = "key", .label = "key", .type = COL_STR, .human = H_PLAIN },
	{ .key = "value", .label = "value", .type = COL_STR, .human = H_PLAIN },
	{ .key = "pairs_agreeing", .label = "agreeing", .type = COL_INT, .human = H_PLAIN },
	{ .key = "pairs", .label = "pairs", .type = COL_INT, .human = H_PLAIN },
};

static void variants_note(const struct comparison *c, struct out *o, const struct group *g,
			  enum nccl_func f)
{
	struct ncclt_variant v[VARIANTS_LISTED];
	char list[VARIANTS_LISTED * 80] = "";
	int n = ncclt_variants(&c->ctx->system, &c->ctx->nccl, g, &c->m->ncclt, f, v,
			       VARIANTS_LISTED);

	if (out_get_format(o) == FMT_JSON) {
		/* for scripts: the changes, best first (none: an empty list) */
		struct table t = { .name = "nccl_system_changes", .cols = variant_cols,
				   .ncols = sizeof(variant_cols) / sizeof(variant_cols[0]),
				   .secondary = 1 };

		out_table_begin(o, &t);
		for (int i = 0; i < n; i++)
			out_row(o, (struct cell[]){ { .s = v[i].key }, { .s = v[i].value },
						    { .x = v[i].count.agree },
						    { .x = v[i].count.pairs } });
		out_table_end(o);
		return;
	}
	if (n == 0) {
		out_text(o, "no one change of the system (nics_per_node, nvls, p2p, pcie_path, "
			 "nic_path, cpu) brings the tables closer");
		return;
	}
	for (int i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s = %s (%d of %d)",
			 i ? "; " : "", v[i].key, v[i].value, v[i].count.agree, v[i].count.pairs);
	/* the one key with a global override to try it with */
	if (!strcmp(v[0].key, "nics_per_node"))
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "; try it: --nics-per-node %s", v[0].value);
	out_text(o, "one change of the system that brings the tables closer (pairs agreeing): %s",
		 list);
}

/*
 * The choice rule alone: NCCL's own table (the log's) in place of the
 * model's, then the model's rule (time = latency + S / bandwidth after
 * the size corrections, the fastest pair; nccl_rank) at each size NCCL's
 * TUNING lines name.  Where it gives NCCL's choice, the model's choice
 * differs only through its table, that is through the machine description.
 */
static void rule_note(const struct comparison *c, struct out *o, const struct nccl_tune *model,
		      int f)
{
	const struct meas_ncclt *nt = &c->m->ncclt;
	struct nccl_tune t = *model;
	char list[TUNED_LISTED * 80] = "", a[32], b[32], sz[32];
	int n = 0, same = 0;

	for (int al = 0; al < NCCL_NALGO; al++)
		for (int p = 0; p < NCCL_NPROTO; p++)
			if (nt->seen[f][al][p]) {
				t.lat[f][al][p] = nt->lat[f][al][p];
				t.bw[f][al][p] = nt->bw[f][al][p];
			}
	for (size_t i = 0; i < c->m->n; i++) {
		double size = c->rows[i].size;
		const struct meas_tuned *tu = meas_tuned_find(c->m, (int)c->op, size);
		struct nccl_choice ch;
		struct coll_cost x, y;

		if (!tu || nccl_rank(&t, &c->ctx->nccl.params, (enum nccl_func)f, size, &ch, 1) < 1)
			continue;
		if (ch.algo == tu->algo && ch.proto == tu->proto) {
			same++, n++;
			continue;
		}
		if (n++ - same < TUNED_LISTED) {
			x = (struct coll_cost){ .algo = nccl_algo_to_coll(ch.algo),
						.proto = (enum coll_proto)ch.proto };
			y = (struct coll_cost){ .algo = nccl_algo_to_coll(tu->algo),
						.proto = (enum coll_proto)tu->proto };
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s (rule %s, NCCL %s)", n - same > 1 ? ", " : "",
				 units_fmt_size(sz, sizeof(sz), size), predictor_choice(&x, a, sizeof(a)),
				 predictor_choice(&y, b, sizeof(b)));
		}
	}
	if (n == 0)
		return;
	out_text(o, "with NCCL's own tuning table in place of the model's, the model's choice "
		 "rule gives NCCL's choice at %d of %d sizes%s%s%s", same, n,
		 same < n ? ": not at " : "", list, n - same > TUNED_LISTED ? " and more" : "");
}

static void ncclt_table(const struct comparison *c, struct out *o)
{
	const struct meas_ncclt *nt = &c->m->ncclt;
	int f = nccl_func_of(c->op);
	struct ncclt_count cnt;
	struct group g = { .ranks = c->ranks };
	struct table tab = { .name = "nccl_tuning_table", .cols = ncclt_cols,
			     .ncols = sizeof(ncclt_cols) / sizeof(ncclt_cols[0]), .secondary = 1 };
	struct nccl_tune t;
	struct errbuf eb;
	char title[160];

	if (!nt->have || f < 0 || c->ctx->model.kind != COST_NCCL || c->pr.fm || c->expected ||
	    nccl_cost_tune(&c->ctx->nccl, &g, &t, &eb) < 0)
		return;
	snprintf(title, sizeof(title), "NCCL's tuning table (the log's, from line %d) against the "
		 "model's, %s on %lu ranks", nt->line, coll_op_name(c->op), c->ranks);
	tab.title = title;
	out_table_begin(o, &tab);
	for (int a = 0; a < NCCL_NALGO; a++)
		for (int p = 0; p < NCCL_NPROTO; p++) {
			double nb = nt->bw[f][a][p], mb = t.bw[f][a][p];
			char pair[40], d[16];
			const char *diff = ncclt_pair(nt, &t, (enum nccl_func)f, (enum nccl_algo)a,
						      (enum nccl_proto)p, d, sizeof(d));

			if (!diff)
				continue;
			snprintf(pair, sizeof(pair), "%s/%s", nccl_algo_name((enum nccl_algo)a),
				 nccl_proto_name((enum nccl_proto)p));
			out_row(o, (struct cell[]){ { .s = pair }, { .x = nt->lat[f][a][p] * 1e-6 },
						    { .x = mb > 0 ? t.lat[f][a][p] * 1e-6 : NAN },
						    { .x = nb > 0 ? nb * 1e9 : 0 }, { .x = mb * 1e9 },
						    { .s = diff } });
		}
	out_table_end(o);
	cnt = ncclt_compare(nt, &t, (enum nccl_func)f);
	out_text(o, "the model's tuning table agrees with NCCL's at %d of %d pairs (within %.0f %% "
		 "in latency and bandwidth); where not, the system description (GPU, links, "
		 "NICs, paths) differs from the machine NCCL found", cnt.agree, cnt.pairs,
		 100 * NCCLT_TOL);
	if (cnt.agree < cnt.pairs)
		variants_note(c, o, &g, (enum nccl_func)f);
	rule_note(c, o, &t, f);
}

/* The summary table and the notes under it. */
void compare_summary(const struct comparison *c, struct out *o, const struct cmp_sum *sum,
		     int range, int plateau, double rise, double before)
{
	const struct meas *m = c->m;
	double largest = c->rows[m->n - 1].size;
	double med = gsl_stats_median_from_sorted_data(sum->err, 1, sum->nerr);
	struct column cols[NSUM + 1];
	struct table t = { .name = "summary", .title = "summary", .cols = cols, .ncols = NSUM,
			   .secondary = 1 };
	int low = plateau && !isnan(sum->peak_ref) && sum->peak < c->minbw * sum->peak_ref;
	const char *cause = low && c->on_system ? low_busbw_cause(c, sum->peak) : NULL;
	struct cell row[] = { { .x = (double)sum->nerr }, { .x = med }, { .x = sum->worst },
			      { .x = sum->worst_size }, { .x = (double)sum->nfar },
			      { .x = sum->peak }, { .x = sum->peak_ref },
			      { .x = sum->peak / sum->peak_ref }, { .s = cause ? cause : "" } };
	char b[32], d[32];

	memcpy(cols, sum_cols, sizeof(sum_cols));
	if (c->on_system) {
		memcpy(cols + NSUM - 2, sys_ref_cols, sizeof(sys_ref_cols));
		t.ncols = NSUM + 1;
	}
	out_table_begin(o, &t);
	out_row(o, row);
	out_table_end(o);
	if (sum->nfar)
		out_text(o, "%d of %zu sizes are off the prediction by more than %.0f %%",
			 sum->nfar, sum->nerr, 100 * c->tol);
	if (range)
		out_text(o, "%d of %d sizes fall inside the band", sum->ninside, sum->nband);
	if (largest < c->large)
		out_text(o, "no size reaches %s; the bandwidth check uses the largest",
			 units_fmt_size(b, sizeof(b), c->large));
	if (!plateau)
		out_text(o, "the log ends at %s, before the bandwidth plateau: busbw still "
			 "rises %.0f %% from %s; busbw is not judged (measure to 1G or more, "
			 "-e 8G)", units_fmt_size(b, sizeof(b), largest), 100 * rise,
			 units_fmt_size(d, sizeof(d), before));
	else if (isnan(c->line_rate) && !c->on_system)
		out_text(o, "no link given: busbw is not judged against a line rate "
			 "(--preset LINK or --beta RATE)");
	if (c->on_system) {
		host_bound_note(c, o);
		tuned_note(c, o);
		ncclt_table(c, o);
	}
	if (!low)
		return;
	if (!c->on_system) {
		out_text(o, "large-message busbw is %.0f %% of the line rate, below %.0f %%: "
			 "check links and topology (nvidia-smi topo -m, NCCL_DEBUG=INFO)",
			 100 * sum->peak / sum->peak_ref, 100 * c->minbw);
		return;
	}
	out_text(o, "large-message busbw is %.0f %% of what %s should give (%s), below "
		 "%.0f %%: %s", 100 * sum->peak / sum->peak_ref, c->ctx->system.name,
		 units_fmt_rate(b, sizeof(b), sum->peak_ref, 4), 100 * c->minbw,
		 cause ? cause : "check links, topology and fabric (nvidia-smi topo -m, "
		 "NCCL_DEBUG=INFO)");
}

/* The echo of the inputs. */
void compare_inputs(const struct comparison *c, struct out *o, const struct meas_args *ma)
{
	const struct ctx *ctx = c->ctx;
	const struct meas *m = c->m;
	char fmt[64];

	out_input_str(o, "file", "file", m->path);
	snprintf(fmt, sizeof(fmt), "%s (detected)", meas_format_name(m->format));
	out_input_str(o, "format", "format", fmt);
	out_input_str(o, "op", "collective", coll_op_name(c->op));
	out_input(o, "ranks", "ranks", (double)m->ranks, H_PLAIN, 10, ma->ranks ? "from --ranks" :
		  m->format == MEAS_NCCL_TEXT ? "from the log's '# Rank' lines" : "from the file");
	if (c->on_system)
		out_input(o, "nodes", "nodes", (double)system_nodes(&ctx->system, c->ranks),
			  H_PLAIN, 10, "ranks / GPUs per node, rounded up");
	if (c->expected) {
		out_input_str(o, "expected", "expected", c->expected_path);
	} else {
		ctx_echo_link(ctx, o);
		out_input_str(o, "algo", "algorithm", c->pr.fm ? "the preset's regimes" :
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
			  ctx->have_preset && preset_get(&ctx->preset, "beta_line") ?
			  "beta_line of the preset" : "beta");
}
