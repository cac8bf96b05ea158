/*
 * The rental sheet of commtime plan: the human table, one heading a
 * nccl-tests run with the few sizes a person checks under it.
 */
#include <math.h>
#include <stdio.h>

#include "plan.h"

static const struct column sheet_cols[] = {
	{ .key = "size_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .prec = 3, .width = 9 },
	{ .key = "expected_time_s", .label = "time", .type = COL_NUM, .human = H_TIME,
	  .prec = 4, .width = 10 },
	{ .key = "expected_algbw_Bps", .label = "algbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "expected_busbw_Bps", .label = "busbw", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	/* on a system: what the model chose, as NCCL_DEBUG=INFO would say */
	{ .key = "choice", .label = "algorithm/protocol", .type = COL_STR, .human = H_PLAIN },
	/* with a stated error (errband.h): the busbw of the band's high and low times */
	{ .key = "expected_busbw_lo_Bps", .label = "busbw low", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
	{ .key = "expected_busbw_hi_Bps", .label = "busbw high", .type = COL_NUM, .human = H_RATE,
	  .prec = 4, .width = 11 },
};
enum { NSHEET = sizeof(sheet_cols) / sizeof(sheet_cols[0]) };

/*
 * The sizes a person checks in a run: all of them when there are few,
 * else SHEET_SIZES spread evenly over the sweep, its ends included (8 B,
 * 512 B, 32 KiB, 2 MiB, 128 MiB, 8 GiB for the default 8:8G:x2).
 */
static int sheet_size(const struct dlist *sizes, size_t i)
{
	size_t k;

	if (sizes->n <= SHEET_SIZES + 2)
		return 1;
	for (k = 0; k < SHEET_SIZES; k++)
		if (i == (k * (sizes->n - 1) + (SHEET_SIZES - 1) / 2) / (SHEET_SIZES - 1))
			return 1;
	return 0;
}

void sheet_curve(struct out *o, const struct planner *pl, enum coll_op op, enum coll_algo algo,
		 unsigned long ranks, const struct dlist *sizes, int *nrun)
{
	char run[1024], title[1100], choice[64];
	enum coll_algo a = algo != ALGO_AUTO || pl->ctx->machine.have_system ? algo : ALGO_RING;
	int system = pl->ctx->machine.have_system;
	int band = plan_has_errband(pl, op);
	struct table t = { .name = "run", .title = title, .cols = sheet_cols,
			   .ncols = band ? NSHEET : system ? NSHEET - 2 : NSHEET - 3,
			   .secondary = 1 };
	size_t i;

	plan_run_line(pl, run, sizeof(run), op, algo, ranks, sizes);
	snprintf(title, sizeof(title), "run %d: %s", ++*nrun, run);
	out_table_begin(o, &t);
	for (i = 0; i < sizes->n; i++) {
		struct coll_cost cc = { .time_s = NAN };
		double S = sizes->v[i], tm = plan_predict(pl, op, a, ranks, S, &cc);
		struct cell row[] = { { .x = S }, { .x = tm }, { .x = S / tm },
				      { .x = S / tm * busbw_factor(op, ranks) }, { .s = choice },
				      { .x = NAN }, { .x = NAN } };

		cost_choice_text(&cc, choice, sizeof(choice));
		if (sheet_size(sizes, i))
			plan_busbw_band(pl, op, ranks, S, tm, &row[5].x, &row[6].x);
		if (sheet_size(sizes, i))
			out_row(o, row);
	}
	out_table_end(o);
}

void sheet_crossover(struct out *o, const struct planner *pl, unsigned long ranks)
{
	const char *a = coll_algo_name(pl->cross_a), *b = coll_algo_name(pl->cross_b);
	struct crossing c;
	char sz[32], t[32], text[128];
	double tc;

	plan_crossover(pl, ranks, &c, &tc);
	plan_crossover_text(pl, &c, 0, text, sizeof(text));
	out_text(o, "%s", "");
	if (c.result != CROSS_FOUND) {
		out_text(o, "all_reduce %s and %s on %lu ranks: %s", a, b, ranks, text);
		return;
	}
	units_fmt_size(sz, sizeof(sz), c.bytes);
	units_fmt_time(t, sizeof(t), tc, 4);
	out_text(o, "all_reduce %s and %s on %lu ranks take equal time at %s (%s): "
		 "%s faster below, %s above", a, b, ranks, sz, t,
		 c.below ? b : a, c.below ? a : b);
}
