/*
 * What compare says of a log run with NCCL_DEBUG_SUBSYS=TUNING, on NCCL's
 * model: NCCL's own choice per size against the model's, NCCL's own
 * tuning table against the model's with the system changes that bring
 * them together, and the choice rule checked on NCCL's table
 * (models/nccl.md, "After the run").  The analysis is nccl_table.c's,
 * nccl_tune.c's and nccl_model.c's; this file only says it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "nccl_cost.h"
#include "nccl_table.h"

/*
 * NCCL's own choices, when the log holds its TUNING lines
 * (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING; meas.h, struct meas_tuned),
 * against the model's at the same sizes: how many agree, the first sizes
 * that differ, and sizes where NCCL itself chose differently from one
 * call to another.  Only for NCCL's model (the choice has a protocol).
 */
#define TUNED_LISTED 4

/*
 * The model's time of the pair NCCL ran at size (s), on the table's time
 * definition (cost_explain's candidates), NaN when the model has none.
 */
static double tuned_pair_time(const struct comparison *c, const struct meas_tuned *t,
			      double size)
{
	struct group g = { .ranks = c->ranks };
	struct cost_explain x;
	struct errbuf eb;
	enum coll_algo a = nccl_algo_to_coll(t->algo);

	if (c->ctx->machine.model.kind != COST_NCCL ||
	    cost_explain(&c->ctx->machine.model, c->op, a, &g, size, &x, &eb) < 0 || x.note)
		return NAN;
	for (int i = 0; i < x.n; i++)
		if (x.cand[i].cost.algo == a && x.cand[i].cost.proto == (enum coll_proto)t->proto)
			return x.cand[i].cost.time_s;
	return NAN;
}

/*
 * NCCL's logged choice at row r, with that choice as a coll_cost in *nc
 * (for cost_choice_text); NULL when the log has none there or the model
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
		out_row(o, (struct cell[]){ { .x = r->size }, { .s = cost_choice_text(&nc, a, sizeof(a)) },
					    { .s = cost_choice_text(&r->cc, b, sizeof(b)) },
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
				 cost_choice_text(&nc, a, sizeof(a)),
				 isnan(pt) ? "-" : units_fmt_time(t1, sizeof(t1), pt, 3),
				 cost_choice_text(&r->cc, b, sizeof(b)),
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
 * agree (nccl_table.h): the best three, or that none does.
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
	int n = ncclt_variants(&c->ctx->machine.system, &c->ctx->machine.nccl, g, &c->m->ncclt, f, v,
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
	struct nccl_tune t;
	char list[TUNED_LISTED * 80] = "", a[32], b[32], sz[32];
	int n = 0, same = 0;

	ncclt_as_model(&c->m->ncclt, model, (enum nccl_func)f, &t);
	for (size_t i = 0; i < c->m->n; i++) {
		double size = c->rows[i].size;
		const struct meas_tuned *tu = meas_tuned_find(c->m, (int)c->op, size);
		struct coll_cost x, y;

		if (!tu || nccl_cost_rule(&c->ctx->machine.nccl, &t, c->op, size, &x) < 0)
			continue;
		if (x.algo == nccl_algo_to_coll(tu->algo) && x.proto == (enum coll_proto)tu->proto) {
			same++, n++;
			continue;
		}
		if (n++ - same < TUNED_LISTED) {
			y = (struct coll_cost){ .algo = nccl_algo_to_coll(tu->algo),
						.proto = (enum coll_proto)tu->proto };
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s (rule %s, NCCL %s)", n - same > 1 ? ", " : "",
				 units_fmt_size(sz, sizeof(sz), size), cost_choice_text(&x, a, sizeof(a)),
				 cost_choice_text(&y, b, sizeof(b)));
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

	if (!nt->have || f < 0 || c->ctx->machine.model.kind != COST_NCCL || c->fm || c->expected ||
	    nccl_cost_tune(&c->ctx->machine.nccl, &g, &t, &eb) < 0)
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

void compare_nccl_notes(const struct comparison *c, struct out *o)
{
	tuned_note(c, o);
	ncclt_table(c, o);
}
