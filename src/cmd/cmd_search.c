/*
 * commtime search: the parallel configurations of a workload that fit in
 * memory on each GPU count, fastest first, priced (models/search.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_cmd.h"
#include "search.h"
#include "search_fig.h"
#include "opts_step.h"
#include "workload.h"

/* The GPU of a search on a single link when --gpu is not given. */
#define SEARCH_DEFAULT_GPU "h100-sxm"

static const char *const usage_lines[] = {
	"commtime search --workload NAME --gpus LIST --global-batch N [options]", NULL
};
static const struct opts_usage usage = {
	.cmd = "search",
	.lines = usage_lines,
	.about = "Every tp x pp x dp x cp (x ep) factorisation of each GPU count (tp within a\n"
		 "node, with sequence parallelism; cp as ring attention and as the all-gather\n"
		 "of K and V), with ZeRO stage, micro-batch, pipeline schedule (interleaved,\n"
		 "v up to 8) and recomputation, that the step model accepts and that fits\n"
		 "in GPU memory, fastest first, priced; what is refused is counted by\n"
		 "reason.  Below the table: where the --where configuration ranks, and why\n"
		 "the best wins, term by term, against the runner-up.  The table shows the\n"
		 "best few, CSV and JSON every one; exit 1 when none fits\n"
		 "(models/search.md).\n",
};

/* The eleven columns of the contract, then the extras. */
enum { C_TP, C_PP, C_DP, C_CP, C_EP, C_ZERO, C_MB, C_MEM, C_STEP, C_TOK, C_COST, C_COST_H, C_GPUS,
       C_SCHED, C_VIRT, C_RC, C_MFU, C_PARETO, C_RUN_S, C_RUN_COST, C_CP_FORM, C_ETP, C_REPL,
       C_STEP_LO, C_STEP_HI, C_NCOLS };
static const struct column columns[C_NCOLS] = {
	[C_TP]       = { .key = "tp", .label = "tp", .type = COL_INT, .width = 2 },
	[C_PP]       = { .key = "pp", .label = "pp", .type = COL_INT, .width = 2 },
	[C_DP]       = { .key = "dp", .label = "dp", .type = COL_INT, .width = 4 },
	[C_CP]       = { .key = "cp", .label = "cp", .type = COL_INT, .width = 2 },
	[C_EP]       = { .key = "ep", .label = "ep", .type = COL_INT, .width = 2 },
	[C_ZERO]     = { .key = "zero", .label = "zero", .type = COL_INT, .width = 4 },
	[C_MB]       = { .key = "micro_batch", .label = "mb", .type = COL_INT, .width = 3 },
	[C_MEM]      = { .key = "memory_B", .label = "memory", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1e9, .suffix = "GB", .prec = 1, .width = 8 },
	[C_STEP]     = { .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4,
		  .width = 9 },
	[C_TOK]      = { .key = "tokens_per_s", .label = "tokens/s", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1, .width = 9 },
	[C_COST]     = { .key = "cost_per_Mtoken", .label = "per Mtoken", .type = COL_NUM,
		  .human = H_FIXED, .scale = 1, .prec = 4, .width = 10 },
	[C_COST_H]   = { .key = "cost_per_hour", .label = "per hour", .type = COL_NUM,
		  .human = H_FIXED, .scale = 1, .prec = 2, .width = 10 },
	[C_GPUS]     = { .key = "gpus", .label = "GPUs", .type = COL_INT, .width = 5 },
	[C_SCHED]    = { .key = "schedule", .label = "schedule", .type = COL_STR, .width = 11 },
	[C_VIRT]     = { .key = "virtual_stages", .label = "v", .type = COL_INT, .width = 1 },
	[C_RC]       = { .key = "recompute", .label = "recompute", .type = COL_STR, .width = 9 },
	[C_MFU]      = { .key = "mfu", .label = "MFU", .type = COL_NUM, .human = H_PERCENT, .prec = 1,
		  .width = 6 },
	[C_PARETO]   = { .key = "pareto", .label = "front", .type = COL_STR, .width = 5 },
	[C_RUN_S]    = { .key = "run_s", .label = "run", .type = COL_NUM, .human = H_FIXED,
		  .scale = 86400, .suffix = "days", .prec = 1, .width = 9 },
	[C_RUN_COST] = { .key = "run_cost", .label = "run cost", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1, .width = 10 },
	[C_CP_FORM]  = { .key = "cp_form", .label = "cp form", .type = COL_STR, .width = 9 },
	[C_ETP]      = { .key = "etp", .label = "etp", .type = COL_INT, .width = 3,
		  .flags = COL_DATA_ONLY },
	[C_REPL]     = { .key = "dp_replicate", .label = "replicas", .type = COL_INT, .width = 8,
		  .flags = COL_DATA_ONLY },
	/* the expected step's stated error (models/step.md, "The step's stated error") */
	[C_STEP_LO]  = { .key = "step_lo_s", .label = "step low", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 9, .flags = COL_DATA_ONLY },
	[C_STEP_HI]  = { .key = "step_hi_s", .label = "step high", .type = COL_NUM, .human = H_TIME,
		  .prec = 4, .width = 9, .flags = COL_DATA_ONLY },
};


static void cb_tokens(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (workload_parse_count(arg, o->value, &eb) < 0)
		die_usage("--tokens: %s", eb.msg);
}

static void S_fill(struct cell *row, const struct search_cand *k)
{
	memset(row, 0, C_NCOLS * sizeof(*row));
	row[C_TP].x = (double)k->l.tp;
	row[C_PP].x = (double)k->l.pp;
	row[C_DP].x = (double)k->l.dp;
	row[C_CP].x = (double)k->l.cp;
	row[C_EP].x = (double)k->l.ep;
	row[C_ZERO].x = k->l.zero;
	row[C_MB].x = k->l.micro_batch;
	row[C_MEM].x = k->memory_B;
	row[C_STEP].x = k->step_s;
	row[C_TOK].x = k->tokens_per_s;
	row[C_COST].x = k->cost_per_Mtoken;
	row[C_COST_H].x = k->cost_per_hour;
	row[C_GPUS].x = k->gpus;
	row[C_SCHED].s = pp_schedule_name(k->l.schedule);
	row[C_VIRT].x = (double)k->l.virt;
	row[C_RC].s = recompute_name(k->l.recompute);
	row[C_MFU].x = k->mfu;
	row[C_PARETO].s = k->pareto ? "yes" : "";
	row[C_RUN_S].x = k->run_s;
	row[C_RUN_COST].x = k->run_cost;
	row[C_CP_FORM].s = k->l.cp > 1 ? step_cp_form_name(k->l.cp_form) : "";
	row[C_ETP].x = (double)search_cand_etp(k);
	row[C_REPL].x = (double)k->l.dp_replicate;
	row[C_STEP_LO].x = k->step_lo_s;
	row[C_STEP_HI].x = k->step_hi_s;
}

/* Why candidates were refused (the step model's rules, the search's chunk rule); secondary. */
enum { R_COUNT, R_REASON, R_NCOLS };
static const struct column rcols[R_NCOLS] = {
	[R_COUNT]  = { .key = "count", .label = "count", .type = COL_INT, .width = 7 },
	[R_REASON] = { .key = "reason", .label = "refused, e.g.", .type = COL_STR,
		  .width = 1 },
};

/* The step of the best, the runner-up and the named configuration, term by term; secondary. */
enum { W_WHICH, W_RANK, W_TP, W_PP, W_DP, W_CP, W_EP, W_COMPUTE, W_BUBBLE, W_XTP, W_XCP, W_XEP,
       W_XPP, W_XDP, W_OPTIM, W_OTHER, W_STEP, W_GAP, W_MEM, W_NCOLS };
#define W_TIME(k, l) { .key = k, .label = l, .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 9 }
static const struct column wcols[W_NCOLS] = {
	[W_WHICH]   = { .key = "which", .label = "", .type = COL_STR, .width = 9 },
	[W_RANK]    = { .key = "rank", .label = "rank", .type = COL_INT, .width = 5 },
	[W_TP]      = { .key = "tp", .label = "tp", .type = COL_INT, .width = 2 },
	[W_PP]      = { .key = "pp", .label = "pp", .type = COL_INT, .width = 2 },
	[W_DP]      = { .key = "dp", .label = "dp", .type = COL_INT, .width = 4 },
	[W_CP]      = { .key = "cp", .label = "cp", .type = COL_INT, .width = 2 },
	[W_EP]      = { .key = "ep", .label = "ep", .type = COL_INT, .width = 2 },
	[W_COMPUTE] = W_TIME("compute_s", "compute"),
	[W_BUBBLE]  = W_TIME("bubble_s", "bubble"),
	[W_XTP]     = W_TIME("exposed_tp_s", "tp"),
	[W_XCP]     = W_TIME("exposed_cp_s", "cp"),
	[W_XEP]     = W_TIME("exposed_ep_s", "ep"),
	[W_XPP]     = W_TIME("exposed_pp_s", "pp"),
	[W_XDP]     = W_TIME("exposed_dp_s", "dp"),
	[W_OPTIM]   = W_TIME("optimizer_s", "update"),
	[W_OTHER]   = W_TIME("other_s", "other"),
	[W_STEP]    = W_TIME("step_s", "step"),
	[W_GAP]     = { .key = "behind", .label = "behind", .type = COL_NUM, .human = H_PERCENT,
		  .prec = 1, .width = 7 },
	[W_MEM]     = { .key = "memory_B", .label = "memory", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1e9, .suffix = "GB", .prec = 1, .width = 8 },
};
#undef W_TIME

/* What became of the --where configuration; JSON only (the table says it in a sentence). */
enum { N_WHERE, N_TRIED, N_REFUSED, N_UNFIT, N_FIT, N_RANK, N_BEHIND, N_WHY, N_NCOLS };
static const struct column ncols[N_NCOLS] = {
	[N_WHERE]   = { .key = "where", .label = "where", .type = COL_STR, .width = 1 },
	[N_TRIED]   = { .key = "tried", .label = "tried", .type = COL_INT, .width = 5 },
	[N_REFUSED] = { .key = "refused", .label = "refused", .type = COL_INT, .width = 5 },
	[N_UNFIT]   = { .key = "unfit", .label = "unfit", .type = COL_INT, .width = 5 },
	[N_FIT]     = { .key = "fit", .label = "fit", .type = COL_INT, .width = 5 },
	[N_RANK]    = { .key = "rank", .label = "rank", .type = COL_INT, .width = 5 },
	[N_BEHIND]  = { .key = "behind", .label = "behind", .type = COL_NUM, .human = H_PERCENT,
		  .prec = 1, .width = 7 },
	[N_WHY]     = { .key = "refused_why", .label = "why", .type = COL_STR, .width = 1 },
};

/* One configuration of the comparison: its rank (1 = best), its step in terms. */
struct S_entry {
	const char *which;
	size_t rank;
	const struct search_cand *k;
	struct search_terms t;
	int ok;
};

static int S_entry_of(struct S_entry *e, const char *which, const struct search_result *r,
		      size_t i, const struct search_space *sp, const struct step_compute *cs,
		      struct ctx *ctx)
{
	struct step_result s;
	struct step_config c;
	struct errbuf eb;

	memset(e, 0, sizeof(*e));
	e->which = which;
	e->rank = i + 1;
	e->k = r->cand[i];
	search_cand_config(sp, e->k, &c);
	if (step_run(sp->w, &c, cs, &ctx->machine.model, STEP_BAND_NONE, &s, &eb) < 0)
		return 0;
	search_terms_of(&s, &e->t);
	e->ok = 1;
	return 1;
}

/* "tp 8 pp 16 dp 64 cp 1 ep 1, ZeRO 1, micro-batch 1, interleaved v 2, recompute none" */
static char *S_config_text(char *buf, size_t len, const struct search_cand *k)
{
	char v[24] = "", etp[32] = "", repl[48] = "";

	if (k->l.schedule == PP_INTERLEAVED)
		snprintf(v, sizeof(v), " v %lu", k->l.virt);
	if (k->l.etp && k->l.etp != k->l.tp)
		snprintf(etp, sizeof(etp), " etp %lu", k->l.etp);
	if (k->l.dp_replicate > 1)
		snprintf(repl, sizeof(repl), " in %lu replicas", k->l.dp_replicate);
	snprintf(buf, len, "tp %lu pp %lu dp %lu cp %lu%s%s ep %lu%s on %.15g GPUs, ZeRO %d%s, "
		 "micro-batch %.15g, %s%s, recompute %s", k->l.tp, k->l.pp, k->l.dp, k->l.cp,
		 k->l.cp > 1 ? " as " : "", k->l.cp > 1 ? step_cp_form_name(k->l.cp_form) : "",
		 k->l.ep, etp, k->gpus, k->l.zero, repl, k->l.micro_batch,
		 pp_schedule_name(k->l.schedule), v, recompute_name(k->l.recompute));
	return buf;
}

/* A list of terms into buf: "bubble 1.2 s, exposed tp 300 ms"; side 1 the gains, 0 the losses. */
static void S_terms_list(char *buf, size_t len, const char *const *names, const double *d,
			 const int *idx, int nterm, double floor_s, int side)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < nterm && n < len; i++) {
		double v = d[idx[i]];
		char a[32];

		if (fabs(v) < floor_s || (v > 0) != side)
			continue;
		units_fmt_time(a, sizeof(a), fabs(v), 3);
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s", n ? ", " : "", names[idx[i]], a);
	}
}

/*
 * Where the best gains on another configuration: every term whose
 * difference is at least 0.5 % of the best's step, largest first, the
 * ones it gains on and the ones it loses on apart, and memory.
 */
static void S_versus(struct out *o, const struct S_entry *best, const struct S_entry *x)
{
	static const char *const names[] = { "compute", "bubble", "exposed tp", "exposed cp",
		"exposed ep", "exposed pp", "exposed dp", "optimizer update", "other" };
	enum { NT = 9 };
	double d[NT], floor_s = 0.005 * best->t.step_s;
	char gains[300], losses[300], a[32];
	int i, j, idx[NT];

	for (i = 0; i < NT; i++) {
		double bv = i == 0 ? best->t.compute_s : i == 1 ? best->t.bubble_s :
			    i == 7 ? best->t.optim_s : i == 8 ? best->t.other_s :
			    best->t.exposed_s[i - 2];
		double xv = i == 0 ? x->t.compute_s : i == 1 ? x->t.bubble_s :
			    i == 7 ? x->t.optim_s : i == 8 ? x->t.other_s : x->t.exposed_s[i - 2];

		d[i] = xv - bv;   /* > 0: the best spends less */
		idx[i] = i;
	}
	for (i = 1; i < NT; i++)
		for (j = i; j > 0 && fabs(d[idx[j]]) > fabs(d[idx[j - 1]]); j--) {
			int t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	S_terms_list(gains, sizeof(gains), names, d, idx, NT, floor_s, 1);
	S_terms_list(losses, sizeof(losses), names, d, idx, NT, floor_s, 0);
	units_fmt_time(a, sizeof(a), x->t.step_s - best->t.step_s, 4);
	if (!*gains && !*losses)
		out_text(o, "  against the %s (rank %zu): %s behind, no term apart by 0.5 %% of the "
			 "step; memory %.1f GB against %.1f GB", x->which, x->rank, a,
			 best->t.memory_B / 1e9, x->t.memory_B / 1e9);
	else
		out_text(o, "  against the %s (rank %zu): %s less per step; less on %s%s%s; memory "
			 "%.1f GB against %.1f GB", x->which, x->rank, a, *gains ? gains : "nothing",
			 *losses ? "; more on " : "", losses, best->t.memory_B / 1e9,
			 x->t.memory_B / 1e9);
}

static void S_entry_row(struct out *o, const struct S_entry *e, double best_s)
{
	struct cell row[W_NCOLS];

	memset(row, 0, sizeof(row));
	row[W_WHICH].s = e->which;
	row[W_RANK].x = (double)e->rank;
	row[W_TP].x = (double)e->k->l.tp;
	row[W_PP].x = (double)e->k->l.pp;
	row[W_DP].x = (double)e->k->l.dp;
	row[W_CP].x = (double)e->k->l.cp;
	row[W_EP].x = (double)e->k->l.ep;
	row[W_COMPUTE].x = e->t.compute_s;
	row[W_BUBBLE].x = e->t.bubble_s;
	row[W_XTP].x = e->t.exposed_s[DIM_TP];
	row[W_XCP].x = e->t.exposed_s[DIM_CP];
	row[W_XEP].x = e->t.exposed_s[DIM_EP];
	row[W_XPP].x = e->t.exposed_s[DIM_PP];
	row[W_XDP].x = e->t.exposed_s[DIM_DP];
	row[W_OPTIM].x = e->t.optim_s;
	row[W_OTHER].x = e->t.other_s;
	row[W_STEP].x = e->t.step_s;
	row[W_GAP].x = e->t.step_s / best_s - 1;
	row[W_MEM].x = e->t.memory_B;
	out_row(o, row);
}

/* The configuration --where names: its rank and gap, or why it is not in the table. */
static size_t S_named(struct out *o, const struct search_space *sp, const struct search_result *r,
		      double gpu_memory)
{
	char what[200], cfg[300];
	size_t i;

	search_where_text(what, sizeof(what), sp->where);
	for (i = 0; i < r->n; i++)
		if (search_cand_named(sp, r->cand[i]))
			break;
	if (out_get_format(o) == FMT_JSON) {
		struct table nt = { "named", NULL, ncols, N_NCOLS, 1 };
		struct cell row[N_NCOLS];

		memset(row, 0, sizeof(row));
		row[N_WHERE].s = what;
		row[N_TRIED].x = (double)r->named.tried;
		row[N_REFUSED].x = (double)r->named.refused;
		row[N_UNFIT].x = (double)r->named.unfit;
		row[N_FIT].x = (double)r->named.fit;
		row[N_RANK].x = i < r->n ? (double)(i + 1) : NAN;
		row[N_BEHIND].x = i < r->n ? r->cand[i]->step_s / r->cand[0]->step_s - 1 : NAN;
		row[N_WHY].s = r->named.refused ? r->named.refused_why : "";
		out_table_begin(o, &nt);
		out_row(o, row);
		out_table_end(o);
	}
	if (i < r->n) {
		char gap[32];

		units_fmt_time(gap, sizeof(gap), r->cand[i]->step_s - r->cand[0]->step_s, 4);
		out_text(o, "Named (%s): rank %zu of %zu, %s (%.1f %%) behind the best; its fastest "
			 "form is %s.", what, i + 1, r->n, gap,
			 100 * (r->cand[i]->step_s / r->cand[0]->step_s - 1),
			 S_config_text(cfg, sizeof(cfg), r->cand[i]));
		return i;
	}
	if (!r->named.tried)
		out_text(o, "Named (%s): not in the searched space (tp at most one node's GPUs; "
			 "GPUs from --gpus, tp x pp x dp x cp of them; micro-batches dividing the "
			 "global batch per data-parallel rank, up to --max-micro-batch; cp up to "
			 "--max-cp; v up to --max-virtual-stages).", what);
	else if (!r->named.fit && r->named.unfit) {
		struct search_cand k;

		memset(&k, 0, sizeof(k));
		search_layout_of(&r->named.unfit_c, &k.l);
		k.gpus = (double)(k.l.tp * k.l.pp * k.l.dp * k.l.cp);
		out_text(o, "Named (%s): none of its %zu forms fits in %.4g GB; the least memory, "
			 "%.1f GB, is %s.%s%s", what, r->named.tried, gpu_memory / 1e9,
			 r->named.unfit_memory_B / 1e9, S_config_text(cfg, sizeof(cfg), &k),
			 r->named.refused ? " Refused besides: " : "",
			 r->named.refused ? r->named.refused_why : "");
	} else
		out_text(o, "Named (%s): all %zu of its forms are refused, e.g.: %s.",
			 what, r->named.tried, r->named.refused_why);
	return r->n;
}

/*
 * Why the best wins: its step term by term beside the runner-up's (the
 * fastest with another layout) and the named configuration's, what it
 * gains on each, and the ledger rows that cost it the most.
 */
static void S_why(struct out *o, const struct search_space *sp, const struct search_result *r,
		  size_t named, const struct step_compute *cs, struct ctx *ctx)
{
	struct table wt = { "why", "the step in terms (exposed communication per step by dimension):",
			    wcols, W_NCOLS, 1 };
	struct S_entry e[3];
	struct step_result s;
	struct step_config c;
	struct errbuf eb;
	char cfg[300], a[32], b[32];
	size_t ru = search_runner_up(r), ne = 0;
	int i, j, order[STEP_ROWS_MAX];

	if (!S_entry_of(&e[ne], "best", r, 0, sp, cs, ctx))
		return;
	ne++;
	if (ru < r->n && S_entry_of(&e[ne], "runner-up", r, ru, sp, cs, ctx))
		ne++;
	if (named < r->n && named != 0 && named != ru && S_entry_of(&e[ne], "named", r, named, sp, cs, ctx))
		ne++;
	out_text(o, "Why the best wins: %s", S_config_text(cfg, sizeof(cfg), e[0].k));
	if (ru < r->n)
		out_text(o, "Runner-up, the fastest with another layout: %s",
			 S_config_text(cfg, sizeof(cfg), r->cand[ru]));
	out_table_begin(o, &wt);
	for (i = 0; i < (int)ne; i++)
		S_entry_row(o, &e[i], e[0].t.step_s);
	out_table_end(o);
	for (i = 1; i < (int)ne; i++)
		S_versus(o, &e[0], &e[i]);

	/* The best's ledger rows by exposed time per step, largest first. */
	search_cand_config(sp, e[0].k, &c);
	if (step_run(sp->w, &c, cs, &ctx->machine.model, STEP_BAND_NONE, &s, &eb) < 0)
		return;
	for (i = 0; i < s.nrows; i++)
		order[i] = i;
	for (i = 1; i < s.nrows; i++)
		for (j = i; j > 0; j--) {
			const struct step_row *x = &s.rows[order[j]], *y = &s.rows[order[j - 1]];
			double ex = x->exposed_s * (x->dim == DIM_DP ? 1 : s.microbatches);
			double ey = y->exposed_s * (y->dim == DIM_DP ? 1 : s.microbatches);
			int t;

			if (!(ex > ey))
				break;
			t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	if (s.nrows)
		out_text(o, "The best's costliest collectives, exposed time per step:");
	for (i = 0; i < s.nrows && i < 3; i++) {
		const struct step_row *x = &s.rows[order[i]];
		double per_step = x->exposed_s * (x->dim == DIM_DP ? 1 : s.microbatches);

		units_fmt_time(a, sizeof(a), per_step, 4);
		units_fmt_size(b, sizeof(b), x->bytes);
		out_text(o, "  %s %s %s: %.15g x %s on %lu ranks (%s), %s exposed",
			 step_dim_name(x->dim), step_phase_name(x->phase), coll_op_name(x->op),
			 x->count * (x->dim == DIM_DP ? 1 : s.microbatches), b, x->ranks, x->tier, a);
	}
}

/*
 * When the best holds more than STEP_MEM_TIGHT of the GPU's memory: the
 * fastest configuration with that much to spare, as step's memory line
 * says it (models/step-memory.md, "Reserve").
 */
static void S_tight(struct out *o, const struct search_result *r, double gpu_memory)
{
	char cfg[300];
	size_t i;

	if (!r->n || !(gpu_memory > 0) || !(r->cand[0]->memory_B > STEP_MEM_TIGHT * gpu_memory))
		return;
	for (i = 1; i < r->n && r->cand[i]->memory_B > STEP_MEM_TIGHT * gpu_memory; i++)
		;
	out_text(o, "Memory: the best holds %.1f of %.1f GB, fitting by the count with little to "
		 "spare for PyTorch's caching allocator (models/step-memory.md, \"Reserve\").",
		 r->cand[0]->memory_B / 1e9, gpu_memory / 1e9);
	if (i < r->n)
		out_text(o, "The fastest with %.0f %% of the memory to spare: rank %zu, %.1f %% behind: %s",
			 100 * (1 - STEP_MEM_TIGHT), i + 1,
			 100 * (r->cand[i]->step_s / r->cand[0]->step_s - 1),
			 S_config_text(cfg, sizeof(cfg), r->cand[i]));
}

static void cb_where(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (search_where_parse(arg, o->value, &eb) < 0)
		die_usage("--where: %s", eb.msg);
}

/* The inputs of the search, above its tables. */
static void S_echo(struct ctx *ctx, struct out *o, const struct workload *w,
		   const struct search_space *sp, const struct step_compute *cs,
		   const struct ctx_gpu *gpu, double gb, double price, double gpu_memory,
		   int overridden, int from_trace)
{
	char note[300];

	ctx_echo_link(ctx, o);
	ctx_echo_workload(o, w);
	snprintf(note, sizeof(note), "%.15g sequences of %.15g tokens", gb, sp->seq);
	out_input_str(o, "batch", "global batch", note);
	if (cs->kgpu)
		snprintf(note, sizeof(note), "%s (%s%s): %.4g TFLOP/s dense bf16, compute by kernel%s, "
			 "%.4g GB", gpu->name, !strcmp(gpu->from, "default") ? "default; set with --gpu" :
			 !strcmp(gpu->from, "system") ? "the system's" : "--gpu",
			 overridden ? ", overridden" : "", cs->peak_flops / 1e12,
			 cs->kgpu->fixed_eff > 0 ? " (every GEMM at --kernel-efficiency)" : "",
			 gpu_memory / 1e9);
	else
		snprintf(note, sizeof(note), "%s (%s%s): %.4g TFLOP/s dense bf16 x MFU %g, %.4g GB",
			 gpu->name, !strcmp(gpu->from, "default") ? "default; set with --gpu" :
			 !strcmp(gpu->from, "system") ? "the system's" : "--gpu",
			 overridden ?
			 ", overridden" : "", cs->peak_flops / 1e12, cs->mfu, gpu_memory / 1e9);
	out_input_str(o, "gpu", "GPU", note);
	if (ctx_trace_calib(ctx))
		out_text(o, "started from a trace (%s; fit --trace): %scollectives x the measured/"
			 "predicted time of their cell", ctx_trace_calib(ctx)->from,
			 from_trace ? "compute at the kernel efficiency it measured, " : "");
	if (!isnan(price))
		out_input(o, "price", "price per GPU-hour", price, H_PLAIN, 6, NULL);
}

/* What was refused and why, then the best configurations (CSV and JSON: all). */
/*
 * Nothing fits at the counts asked: say so, and the fewest GPUs at which
 * something would (search_min_gpus; 0: none up to its limit).
 */
static void S_needs(struct out *o, const struct workload *w, double gpu_memory, double need)
{
	if (need > 0)
		out_text(o, "No configuration fits in %.4g GB: %s needs at least %.0f GPUs "
			 "(search --gpus %.0f)", gpu_memory / 1e9, w->name, need, need);
	else
		out_text(o, "No configuration fits in %.4g GB, not even on %.0f GPUs.",
			 gpu_memory / 1e9, SEARCH_MIN_GPUS_MAX);
}

/*
 * The table's columns, each text column as wide as its widest cell among
 * the rows shown (a recompute level runs to 24 characters): the table
 * writer streams its rows and cannot measure them; CSV and JSON ignore
 * the widths.
 */
static void S_fit(struct column *cols, const struct search_result *r, size_t shown)
{
	struct cell row[C_NCOLS];
	size_t i, j, n;

	memcpy(cols, columns, sizeof(columns));
	for (i = 0; i < shown; i++) {
		S_fill(row, r->cand[i]);
		for (j = 0; j < C_NCOLS; j++)
			if (cols[j].type == COL_STR && row[j].s &&
			    (n = strlen(row[j].s)) > (size_t)cols[j].width)
				cols[j].width = (int)n;
	}
}

static void S_tables(struct out *o, const struct search_result *r, unsigned long top)
{
	struct column cols[C_NCOLS];
	struct table t = { "search", NULL, cols, C_NCOLS, 0 };
	struct table rt = { "refused", NULL, rcols, R_NCOLS, 1 };
	struct cell row[C_NCOLS];
	size_t i, shown;

	if (r->nreasons) {
		struct cell rrow[R_NCOLS] = { { 0 } };   /* .s NULL: a number */

		memset(rrow, 0, sizeof(rrow));
		out_table_begin(o, &rt);
		for (i = 0; i < r->nreasons; i++) {
			rrow[R_COUNT].x = (double)r->reason[i].count;
			rrow[R_REASON].s = r->reason[i].example;
			out_row(o, rrow);
		}
		if (r->refused_other) {
			rrow[R_COUNT].x = (double)r->refused_other;
			rrow[R_REASON].s = "(other reasons)";
			out_row(o, rrow);
		}
		out_table_end(o);
	}

	shown = out_get_format(o) == FMT_TABLE && r->n > top ? top : r->n;
	S_fit(cols, r, shown);
	out_table_begin(o, &t);
	for (i = 0; i < shown; i++) {
		S_fill(row, r->cand[i]);
		out_row(o, row);
	}
	out_table_end(o);
	if (shown < r->n)
		out_text(o, "(%zu more; --format csv lists every one)", r->n - shown);
}

/* The GPU counts: --gpus, or the one --where names; none too many. */
static void S_gpus(const struct opt *options, const struct search_where *where, struct dlist *gpus)
{
	size_t i;

	if (!gpus->n && opts_given(options, "where") && where->tp && where->pp && where->dp) {
		double n = (double)where->tp * (double)where->pp * (double)where->dp *
			   (double)(where->cp ? where->cp : 1);

		if (where->gpus && where->gpus != n)
			die_usage("--where: gpus=%.15g is not tp x pp x dp x cp = %.15g", where->gpus, n);
		gpus->v = xmalloc(sizeof(*gpus->v));
		gpus->v[0] = n;
		gpus->n = 1;
	} else if (!gpus->n && opts_given(options, "where") && where->gpus) {
		gpus->v = xmalloc(sizeof(*gpus->v));
		gpus->v[0] = where->gpus;
		gpus->n = 1;
	}
	if (!gpus->n)
		die_usage("search: give the GPU counts with --gpus LIST");
	for (i = 0; i < gpus->n; i++)
		if (gpus->v[i] > SEARCH_GPUS_MAX)
			die_usage("--gpus: %.15g GPUs is more than search takes (at most %.0f)",
				  gpus->v[i], SEARCH_GPUS_MAX);
}

/*
 * The limits of the space searched; the named configuration is always
 * in it.
 */
static void S_limits(const struct search_where *where, unsigned long max_cp,
		     unsigned long max_mb, unsigned long max_virt, struct search_space *sp)
{
	if (!max_cp)
		max_cp = search_max_cp(sp->seq);
	if (where->cp > max_cp)
		max_cp = where->cp;
	if (where->micro_batch > (double)max_mb)
		max_mb = (unsigned long)where->micro_batch;
	if (where->virt > max_virt)
		max_virt = where->virt;
	sp->max_cp = max_cp;
	sp->max_mb = max_mb;
	sp->max_virt = max_virt;
}

/* The GPU as rented and its compute, by kernel as step does unless a flat --mfu is given. */
static void S_compute(struct ctx *ctx, const struct opt *options, struct step_opts *so,
		      struct ctx_gpu *gpu, struct step_compute *cs)
{
	ctx_gpu(ctx, so->gpu, SEARCH_DEFAULT_GPU, gpu);
	step_opts_fp8_gpu(so, gpu, 1, "search");
	cs->peak_flops = so->peak > 0 ? so->peak : gpu->peak_flops;
	if (!so->gpu_memory)
		so->gpu_memory = gpu->memory_B;
	ctx_gpu_as_rented(gpu, so->power_cap, so->hbm_Bps, cs);
	/* Compute by kernel, as step does, unless a flat --mfu is given. */
	gpu->kernel.peak = cs->peak_flops;
	gpu->kernel.fixed_eff = so->kernel_eff;
	if (!opts_given(options, "mfu"))
		cs->kgpu = &gpu->kernel;
}

/* The space searched, from the options; on a system, every GPU count checked on it. */
static void S_space(const struct ctx *ctx, const struct opt *options, const struct step_opts *so,
		    const struct workload *w, double seq, double gb, double price, double tokens,
		    const struct dlist *gpus, struct search_where *where, struct search_space *sp)
{
	struct errbuf eb;
	size_t i;

	search_space_init(sp, w);
	if (seq)
		sp->seq = seq;
	sp->global_batch = gb;
	sp->gpu_memory = so->gpu_memory;
	sp->grad_bytes = so->grad_bytes;
	sp->framework = so->framework;
	sp->tp_overlap = so->tp_overlap;
	sp->eager = step_opts_eager(so);
	sp->precision = so->precision;
	sp->moe_imbalance = so->moe_imbalance;
	sp->etp = so->etp;
	sp->dp_replicate = so->dp_replicate;
	if ((so->etp || so->moe_imbalance != 1) && !(w->experts > 1))
		die_usage("search: --etp and --moe-imbalance describe experts; %s has none", w->name);
	if (so->tp_overlap && so->framework == FW_DEEPSPEED_2021)
		die_usage("--tp-comm-overlap: not with --framework deepspeed-2021 (no TP overlap then)");
	sp->price = price;
	sp->run_tokens = tokens;
	if (opts_given(options, "where"))
		sp->where = where;
	if (ctx->machine.have_system) {
		sp->gpus_per_node = ctx->machine.system.gpus_per_node;
		for (i = 0; i < gpus->n; i++)
			if (system_check_ranks(&ctx->machine.system, (unsigned long)gpus->v[i], &eb) < 0)
				die("search: %s", eb.msg);
	}
}

/* The count of configurations tried, refused and fitting; returns the refused. */
static size_t S_searched(struct out *o, const struct search_result *r, double gpu_memory)
{
	char note[300];
	size_t refused;

	refused = r->tried - r->valid;
	snprintf(note, sizeof(note), "%zu configurations, %zu refused, %zu fit in "
		 "%.4g GB", r->tried, refused, r->n, gpu_memory / 1e9);
	out_input_str(o, "searched", "searched", note);
	return refused;
}

/* None fits: the refusal, with the fewest GPUs that would fit when known. */
static void S_refuse(const struct workload *w, const struct search_result *r, double gpu_memory,
		     size_t refused, double need)
{
	if (need > 0)
		die("search: no configuration of %s fits in %.4g GB per GPU (%zu tried, %zu refused); "
		    "it needs at least %.0f GPUs", w->name, gpu_memory / 1e9, r->tried, refused, need);
	die("search: no configuration of %s fits in %.4g GB per GPU (%zu tried, %zu refused)",
	    w->name, gpu_memory / 1e9, r->tried, refused);
}

int cmd_search(int argc, char **argv, struct ctx *ctx)
{
	struct search_space sp;
	struct search_where where;
	struct step_compute cs = { 0, STEP_MFU, 0, NULL, 0, 0 };
	int from_trace;
	struct search_result r = { 0 };
	struct workload w;
	struct errbuf eb;
	struct dlist gpus = { 0 };
	struct out *o;
	const char *workload_arg = NULL;
	struct step_opts so;
	struct ctx_gpu gpu;
	struct shape_args shape = { 0 };
	double seq = 0, gb = 0, price = 0, tokens = 0;
	double need = 0;   /* need: the fewest GPUs that fit, when none does */
	unsigned long max_cp = 0, max_mb = 16, max_virt = 8, top = 10, seq_n = 0, gb_n = 0;
	size_t named = 0, refused;
	struct opt options[] = {
		OPT_GROUP_("the model and the run"),
		{ .type = OPT_STRING, .long_name = "workload", .argh = "NAME", .value = &workload_arg,
		  .complete = "presets:workload",
		  .help = "model shape from a workload preset (llama3-70b, ...)" },
		OPTS_SHAPE(&shape),
		OPT_RANKS_("gpus", &gpus, "GPU counts (64, 64,128,256, 64:1024:x2; default with\n"
			   "--where: its tp x pp x dp x cp)"),
		OPT_CALLBACK_("global-batch", "N", &gb_n, opt_cb_whole, "sequences per step"),
		OPT_CALLBACK_("seq", "N", &seq_n, opt_cb_whole, "sequence length (default the workload's)"),
		OPT_CALLBACK_("tokens", "N", &tokens, cb_tokens,
			      "tokens of the whole run (15T): its time and cost"),
		OPT_GROUP_("the GPU"),
		OPTS_STEP_GPU(&so),
		OPT_POSITIVE_("price", "X", Q_NUMBER, &price,
			      "price of one GPU-hour: cost per hour (all GPUs) and per Mtoken"),
		OPT_GROUP_("the search"),
		OPTS_STEP_RUN(&so),
		OPT_CALLBACK_("max-cp", "N", &max_cp, opt_cb_whole,
			      "largest context-parallel size tried (default 8, or seq / 8192\n"
			      "when larger: 8192 tokens a rank)"),
		OPT_CALLBACK_("max-micro-batch", "N", &max_mb, opt_cb_whole,
			      "largest micro-batch tried (default 16)"),
		OPT_CALLBACK_("max-virtual-stages", "V", &max_virt, opt_cb_whole,
			      "most model chunks per stage tried, interleaved (default 8)"),
		{ .type = OPT_CALLBACK, .long_name = "where", .argh = "K=V,...", .value = &where,
		  .cb = cb_where,
		  .help = "a configuration to place: its rank and gap to the best\n"
			  "(tp=8,pp=16,dp=64; keys gpus tp pp dp cp ep zero mb v\n"
			  "schedule recompute cp_form)" },
		OPT_CALLBACK_("top", "N", &top, opt_cb_whole, "rows of the table (default 10; CSV and JSON: all)"),
		OPT_END_()
	};

	search_where_init(&where);
	step_opts_init(&so);
	opts_parse(argc, argv, options, &usage, 0);
	step_opts_check(options, &so, "search");
	if (so.mfu > 0)
		cs.mfu = so.mfu;
	seq = (double)seq_n;
	gb = (double)gb_n;
	if (!opts_given(options, "price"))
		price = NAN;
	if (!workload_arg && !shape.layers)
		die_usage("search: give the model with --workload NAME");
	S_gpus(options, &where, &gpus);
	if (max_virt > SEARCH_VIRT_MAX)
		die_usage("--max-virtual-stages: %lu is more than search takes (at most %d)",
			  max_virt, SEARCH_VIRT_MAX);
	if (!gb)
		die_usage("search: give the global batch with --global-batch N");
	S_compute(ctx, options, &so, &gpu, &cs);
	if (isnan(price) && ctx->machine.have_system)
		price = ctx->machine.system.price_per_gpu_hour;
	ctx_workload_shape(ctx, workload_arg, &shape, &w);
	if (!workload_arg && !seq)
		die_usage("search: a shape without a workload preset needs --seq");

	S_space(ctx, options, &so, &w, seq, gb, price, tokens, &gpus, &where, &sp);
	S_limits(&where, max_cp, max_mb, max_virt, &sp);
	/* A system saved by fit --trace: the compute and collectives it measured. */
	from_trace = !opts_given(options, "mfu") && trace_calib_mfu(ctx, &cs, 0);
	if (from_trace)
		cs.kgpu = NULL;
	if (search_run(&sp, gpus.v, gpus.n, &cs, &ctx->machine.model, &r, &eb) < 0)
		die("search: %s", eb.msg);
	if (!r.n && search_min_gpus(&sp, gpus.v[gpus.n - 1], &cs, &ctx->machine.model, &need, &eb) < 0)
		die("search: %s", eb.msg);

	o = ctx_out_open(ctx);
	S_echo(ctx, o, &w, &sp, &cs, &gpu, gb, price, so.gpu_memory,
	       opts_given(options, "peak") || opts_given(options, "gpu-memory"), from_trace);
	refused = S_searched(o, &r, so.gpu_memory);

	S_tables(o, &r, top);
	if (sp.where)
		named = S_named(o, &sp, &r, so.gpu_memory);
	else
		named = r.n;
	if (r.n) {
		S_why(o, &sp, &r, named, &cs, ctx);
		S_tight(o, &r, so.gpu_memory);
	} else
		S_needs(o, &w, so.gpu_memory, need);
	if (ctx_wants_figure(ctx))
		search_figure(ctx, &w, &r, &gpus, price, so.gpu_memory, named, &sp, &cs);
	ctx_out_close(ctx, o);
	if (!r.n)
		S_refuse(&w, &r, so.gpu_memory, refused, need);
	search_release(&r);
	dlist_release(&gpus);
	return EXIT_OK;
}
