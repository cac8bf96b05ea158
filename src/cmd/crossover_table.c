/*
 * The crossover table allreduce and crossover print: the sizes where one
 * algorithm overtakes another, for each rank count.
 */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "crossover.h"

static const struct column cross_cols[] = {
	{ .key = "ranks", .label = "ranks", .type = COL_INT, .width = 5 },
	{ .key = "algo_a", .label = "a", .type = COL_STR },
	{ .key = "algo_b", .label = "b", .type = COL_STR },
	{ .key = "size_B", .label = "crossover", .type = COL_NUM, .human = H_SIZE, .width = 9 },
	{ .key = "time_s", .label = "time there", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 10 },
	{ .key = "note", .label = "note", .type = COL_STR },
};

/*
 * The row of algorithms a and b on v ranks: the size where one overtakes
 * the other, the time there, and a note; CSV has the note before the time.
 */
static void write_pair(struct out *o, const struct ctx *ctx, enum coll_op op, double v,
		       enum coll_algo a, enum coll_algo b)
{
	unsigned long n = (unsigned long)v;
	const char *na = coll_algo_name(a), *nb = coll_algo_name(b);
	struct crossing c;
	struct errbuf eb;
	struct cell cells[6];
	char note[96];
	double tc = NAN;
	struct group g = { .ranks = n };

	if (crossover_coll(&ctx->machine.model, op, a, b, &g,
			   CROSS_LO, CROSS_HI, &c, &eb) < 0)
		die("%d ranks, %s vs %s: %s", (int)n, na, nb, eb.msg);
	switch (c.result) {
	case CROSS_FOUND:
		snprintf(note, sizeof(note), "%s faster below, %s above",
			 c.below ? nb : na, c.below ? na : nb);
		tc = cost_time(&ctx->machine.model, op, a, n, c.bytes);
		break;
	case CROSS_A_ALWAYS:
		snprintf(note, sizeof(note), "%s always faster", na);
		break;
	case CROSS_B_ALWAYS:
		snprintf(note, sizeof(note), "%s always faster", nb);
		break;
	case CROSS_EQUAL:
		snprintf(note, sizeof(note), n <= 1 ?
			 "no communication on 1 rank" : "equal at every size");
		break;
	}
	cells[0] = (struct cell){ NULL, v };
	cells[1] = (struct cell){ na, 0 };
	cells[2] = (struct cell){ nb, 0 };
	if (ctx->format == FMT_TABLE) {
		cells[3] = (struct cell){ NULL, c.bytes };
		cells[4] = (struct cell){ NULL, tc };
		cells[5] = (struct cell){ note, 0 };
	} else {
		cells[3] = (struct cell){ NULL, c.bytes };
		cells[4] = (struct cell){ note, 0 };
		cells[5] = (struct cell){ NULL, tc };
	}
	out_row(o, cells);
}

void write_crossovers(struct out *o, const struct ctx *ctx, enum coll_op op,
		      const struct dlist *ranks, const enum coll_algo *algos, int nalgo,
		      int secondary)
{
	struct table t = { "crossover",
			   "crossover sizes: where two algorithms take equal time",
			   cross_cols, sizeof(cross_cols) / sizeof(cross_cols[0]), secondary };
	/* The CSV contract is ranks,algo_a,algo_b,size_B, then extras. */
	static const struct column csv_cols[] = {
		{ .key = "ranks", .label = "ranks", .type = COL_INT },
		{ .key = "algo_a", .label = "a", .type = COL_STR },
		{ .key = "algo_b", .label = "b", .type = COL_STR },
		{ .key = "size_B", .label = "crossover", .type = COL_NUM, .human = H_SIZE },
		{ .key = "note", .label = "note", .type = COL_STR },
		{ .key = "time_s", .label = "time there", .type = COL_NUM, .human = H_TIME, .prec = 4 },
	};
	struct column cols[sizeof(cross_cols) / sizeof(cross_cols[0])];
	size_t i;
	int a, b;

	/* CSV holds the first table only: solve nothing it would not print. */
	if (secondary && ctx->format == FMT_CSV)
		return;

	/* The names are as wide as the longest chosen, so the rows line up. */
	memcpy(cols, cross_cols, sizeof(cols));
	for (a = 0; a < nalgo; a++) {
		int w = (int)strlen(coll_algo_name(algos[a]));

		if (w > cols[1].width)
			cols[1].width = cols[2].width = w;
	}
	t.cols = ctx->format == FMT_TABLE ? cols : csv_cols;
	out_table_begin(o, &t);
	for (i = 0; i < ranks->n; i++)
		for (a = 0; a < nalgo; a++)
			for (b = a + 1; b < nalgo; b++)
				write_pair(o, ctx, op, ranks->v[i], algos[a], algos[b]);
	out_table_end(o);
}
