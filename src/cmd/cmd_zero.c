/*
 * commtime zero: ZeRO stage 0-3 model-state memory per rank,
 * communication volume and time per step (models/zero.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "step.h"
#include "train.h"
#include "workload.h"

static const char *const usage_lines[] = {
	"commtime zero (--params N | --weights SIZE | --workload NAME) [options]", NULL
};
static const struct opts_usage usage = {
	.cmd = "zero",
	.lines = usage_lines,
	.about = "Model-state memory per rank (mixed-precision Adam), communication volume\n"
		 "and time per step of ZeRO stages 0 (plain data parallel), 1 (optimizer\n"
		 "states sharded), 2 (+ gradients) and 3 (+ parameters).\n",
};

enum { C_RANKS, C_STAGE, C_SHARDS, C_MEMORY, C_MEMORY_GIB, C_COMM_B, C_COMM_S, C_RATIO,
       C_PARAM_B, C_GRAD_B, C_OPTIM_B, C_COUNT };
static const struct column columns[C_COUNT] = {
	[C_RANKS]      = { .key = "ranks", .label = "ranks", .type = COL_INT, .width = 5 },
	[C_STAGE]      = { .key = "stage", .label = "stage", .type = COL_INT, .width = 5 },
	[C_SHARDS]     = { .key = "sharded", .label = "sharded", .type = COL_STR, .width = 12,
		  .flags = COL_TABLE_ONLY },
	[C_MEMORY]     = { .key = "memory_B", .label = "memory", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1e9, .suffix = "GB", .prec = 2, .width = 10 },
	[C_MEMORY_GIB] = { .key = "memory_GiB", .label = "memory", .type = COL_NUM, .human = H_FIXED,
			   .scale = 1073741824.0, .suffix = "GiB", .prec = 2, .width = 10,
			   .flags = COL_TABLE_ONLY },
	[C_COMM_B]     = { .key = "comm_B", .label = "volume", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1e9, .suffix = "GB", .prec = 2, .width = 9 },
	[C_COMM_S]     = { .key = "comm_s", .label = "comm time", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1e-3, .suffix = "ms", .prec = 1, .width = 10 },
	[C_RATIO]      = { .key = "comm_ratio", .label = "vs stage 0", .type = COL_NUM, .human = H_FIXED,
		  .scale = 1, .suffix = "x", .prec = 2, .width = 10 },
	[C_PARAM_B]    = { .key = "param_B", .label = "params", .type = COL_NUM, .human = H_SIZE,
		  .flags = COL_DATA_ONLY },
	[C_GRAD_B]     = { .key = "grad_B", .label = "grads", .type = COL_NUM, .human = H_SIZE,
		  .flags = COL_DATA_ONLY },
	[C_OPTIM_B]    = { .key = "optim_B", .label = "optimizer", .type = COL_NUM, .human = H_SIZE,
		  .flags = COL_DATA_ONLY },
};

static const char *const shards[ZERO_STAGES] = {
	"nothing", "optimizer", "+ gradients", "+ parameters"
};

/* Bytes per value: a size > 0 (optimizer bytes may be 0). */
/* One curve of the figure: the stages that draw it, and its values. */
struct S_curve {
	int stages[ZERO_STAGES];
	int nstages;
	double *y;
};

/*
 * Group the stages whose values agree at every rank count of the grid into
 * one curve: with the ring, stages 0, 1 and 2 move the same bytes in the
 * same steps, and three curves on top of each other would hide two.
 */
static int S_group(const struct dlist *stages, double *const *y, size_t n,
		   struct S_curve *curves)
{
	size_t i, k;
	int nc = 0, c;

	for (i = 0; i < stages->n; i++) {
		for (c = 0; c < nc; c++) {
			for (k = 0; k < n; k++)
				if (fabs(curves[c].y[k] - y[i][k]) > 1e-12 * fabs(y[i][k]))
					break;
			if (k == n)
				break;
		}
		if (c == nc) {
			curves[nc].nstages = 0;
			curves[nc++].y = y[i];
		}
		curves[c].stages[curves[c].nstages++] = (int)stages->v[i];
	}
	return nc;
}

/* "stage 3 (+ parameters)", or "stages 0, 1, 2" for a group. */
static char *S_curve_title(char *buf, size_t len, const struct S_curve *c)
{
	size_t o;
	int i;

	static const char *const what[ZERO_STAGES] = {
		"stage 0: plain data parallel", "stage 1: optimizer sharded",
		"stage 2: + gradients", "stage 3: + parameters"
	};

	if (c->nstages == 1)
		snprintf(buf, len, "%s", what[c->stages[0]]);
	else {
		o = (size_t)snprintf(buf, len, "stages %d", c->stages[0]);
		for (i = 1; i < c->nstages && o < len; i++)
			o += (size_t)snprintf(buf + o, len - o, ", %d", c->stages[i]);
		if (o < len)
			snprintf(buf + o, len - o, " (equal)");
	}
	return buf;
}

/*
 * One panel: a curve per group of stages over the grid, in the colour of
 * its first stage, and a point at each asked rank count.
 */
static void S_panel(struct panel *pn, const struct zero_params *p, const struct ctx *ctx,
		    const struct dlist *ranks, const struct dlist *stages, const double *grid,
		    size_t n, int memory)
{
	struct S_curve curves[ZERO_STAGES];
	double *y[ZERO_STAGES];
	char text[96];
	size_t i, k;
	int nc, c;

	for (i = 0; i < stages->n; i++) {
		y[i] = xmalloc(n * sizeof(double));
		for (k = 0; k < n; k++) {
			struct zero_cost z;

			zero_cost_model(p, &ctx->machine.model, (unsigned long)grid[k], (int)stages->v[i], &z);
			y[i][k] = memory ? z.memory_B : z.comm_s;
		}
	}
	nc = S_group(stages, y, n, curves);
	for (c = 0; c < nc; c++) {
		struct plot_series *s = plot_add_series(pn, S_curve_title(text, sizeof(text), &curves[c]),
							PS_LINES);

		s->color = curves[c].stages[0];
		for (k = 0; k < n; k++)
			if (curves[c].y[k] > 0)
				plot_xy(s, grid[k], curves[c].y[k]);
	}
	/* The rows of the table, one point per stage and asked rank count. */
	for (c = 0; c < nc; c++) {
		struct plot_series *s = plot_add_series(pn, NULL, PS_POINTS);

		s->color = curves[c].stages[0];
		for (i = 0; i < ranks->n; i++) {
			struct zero_cost z;

			zero_cost_model(p, &ctx->machine.model, (unsigned long)ranks->v[i], curves[c].stages[0], &z);
			if ((memory ? z.memory_B : z.comm_s) > 0)
				plot_xy(s, ranks->v[i], memory ? z.memory_B : z.comm_s);
		}
	}
	for (i = 0; i < stages->n; i++)
		free(y[i]);
}

/* The lowest and highest y of the panel's series (INFINITY and 0 when empty). */
static void S_yrange(const struct panel *pn, double *lo, double *hi)
{
	size_t i, k;

	*lo = INFINITY;
	*hi = 0;
	for (i = 0; i < pn->nseries; i++)
		for (k = 0; k < pn->series[i].n; k++) {
			*lo = fmin(*lo, pn->series[i].data[2 * k + 1]);
			*hi = fmax(*hi, pn->series[i].data[2 * k + 1]);
		}
}

/* The stages once each, in their order: --stage 1,1 asks for one curve. */
static void S_distinct(const struct dlist *stages, struct dlist *once)
{
	size_t i, j;

	for (i = 0; i < stages->n; i++) {
		for (j = 0; j < once->n && once->v[j] != stages->v[i]; j++)
			;
		if (j == once->n)
			dlist_push(once, stages->v[i]);
	}
}

/* The ranks of the figure: the asked ones, widened 4 times each way when close. */
static void S_xrange(const struct dlist *ranks, double *lo, double *hi)
{
	size_t i;

	*lo = INFINITY;
	*hi = 0;
	for (i = 0; i < ranks->n; i++) {
		*lo = fmin(*lo, ranks->v[i]);
		*hi = fmax(*hi, ranks->v[i]);
	}
	if (*hi < 4 * *lo) {
		*lo = *lo / 4 < 1 ? 1 : floor(*lo / 4);
		*hi *= 4;
	}
}

/* The figure's title (the model, its bytes, the algorithm, the link), comment and size. */
static void S_heading(struct figure *f, const struct ctx *ctx, const struct zero_params *p)
{
	char title[400], link[128], count[64];

	snprintf(title, sizeof(title),
		 "ZeRO per rank: %s parameters, %g+%g+%g bytes per parameter, %s; %s",
		 workload_fmt_count(count, sizeof(count), p->params), p->param_bytes,
		 p->grad_bytes, p->optim_bytes, cost_algo_label(&ctx->machine.model, p->algo),
		 ctx_link_text(ctx, link, sizeof(link)));
	f->title = xstrdup(title);
	f->comment = xstrdup("commtime zero: model-state memory and communication time per rank "
			     "of ZeRO stages against ranks");
	f->width = 1000;
	f->height = 430;
}

/*
 * The figure, two panels against data-parallel rank count: model-state
 * memory per rank (log scale: stage 3 divides it by n) and communication
 * time per step, one curve per stage.  One rank communicates nothing, so
 * the time panel starts at two.
 */
static void S_figure(const struct ctx *ctx, const struct zero_params *p,
		     const struct dlist *ranks, const struct dlist *stages)
{
	struct figure f = { 0 };
	struct panel *pn;
	struct dlist once = { 0 };
	double lo, hi, grid[200], tlo = INFINITY, thi = 0;
	size_t n;
	int logx;

	S_distinct(stages, &once);
	stages = &once;
	S_xrange(ranks, &lo, &hi);
	logx = hi >= 8 * lo;
	n = plot_rank_grid(lo, hi, sizeof(grid) / sizeof(grid[0]), grid);
	S_heading(&f, ctx, p);

	pn = plot_add_panel(&f, "model-state memory per rank", "data-parallel ranks",
			    "memory per rank");
	pn->xaxis = AX_PLAIN;
	pn->yaxis = AX_SIZE;
	pn->logx = logx;
	pn->logy = 1;
	pn->xmin = lo;
	pn->xmax = hi;
	pn->key = xstrdup("bottom left");
	S_panel(pn, p, ctx, ranks, stages, grid, n, 1);
	/* Room below the curves for the key, above them for the top one. */
	S_yrange(pn, &tlo, &thi);
	if (tlo <= thi) {
		pn->ymin = tlo / 12;
		pn->ymax = thi * 1.6;
	}
	pn = plot_add_panel(&f, "communication time per step", "data-parallel ranks",
			    "time per step");
	pn->xaxis = AX_PLAIN;
	pn->yaxis = AX_TIME;
	pn->logx = logx;
	pn->xmin = lo < 2 ? 2 : lo;
	pn->xmax = hi;
	pn->key = xstrdup("top left");
	S_panel(pn, p, ctx, ranks, stages, grid, n, 0);
	/* Log only when the times span decades (latency-bound at large n). */
	S_yrange(pn, &tlo, &thi);
	if (thi > 30 * tlo)
		pn->logy = 1;
	else {
		pn->ymin = 0;
		pn->ymax = thi * 1.3;
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
	dlist_release(&once);
}

/* The inputs above the table: the link, the model and its bytes, the collectives. */
static void S_echo(const struct ctx *ctx, struct out *o, const struct zero_params *p,
		   const struct workload_args *wa, const struct workload *w,
		   const char *weights_arg)
{
	char note[160];

	ctx_echo_link(ctx, o);
	if (wa->workload) {
		ctx_echo_workload(o, w);
	} else if (weights_arg) {
		snprintf(note, sizeof(note), "%s of weights / %g B", weights_arg, p->param_bytes);
		out_input(o, "params", "parameters", p->params, H_PLAIN, 12, note);
	} else
		out_input(o, "params", "parameters", p->params, H_PLAIN, 12,
			  workload_fmt_count(note, sizeof(note), p->params));
	snprintf(note, sizeof(note), "bytes per parameter: %g param + %g grad + %g optimizer",
		 p->param_bytes, p->grad_bytes, p->optim_bytes);
	out_input_str(o, "bytes", "model states", note);
	out_input_str(o, "algo", "collectives", cost_algo_label(&ctx->machine.model, p->algo));
	if (p->layers > 1) {
		snprintf(note, sizeof(note), "stage 3 gathers layer by layer: %.15g layers, "
			 "3 collectives each per step", p->layers);
		out_input_str(o, "zero3", "ZeRO-3", note);
	}
}

/* One unit for the comm times, from the fastest to the slowest. */
static void S_units(const struct ctx *ctx, const struct zero_params *p,
		    const struct dlist *ranks, const struct dlist *stages, struct column *cols)
{
	struct time_unit u;
	double tmin = INFINITY, tmax = 0;
	size_t i, j;

	memcpy(cols, columns, sizeof(columns));
	for (i = 0; i < ranks->n; i++)
		for (j = 0; j < stages->n; j++) {
			struct zero_cost z;

			zero_cost_model(p, &ctx->machine.model, (unsigned long)ranks->v[i],
					(int)stages->v[j], &z);
			if (z.comm_s > 0)
				tmin = fmin(tmin, z.comm_s);
			tmax = fmax(tmax, z.comm_s);
		}
	ctx_time_unit(ctx, tmin, tmax, UNIT_BY_LARGEST, &u);
	column_time_unit(&cols[C_COMM_S], &u);
}

/* The table: one row per rank count and stage, with the ratio to stage 0. */
static void S_rows(const struct ctx *ctx, struct out *o, const struct zero_params *p,
		   const struct dlist *ranks, const struct dlist *stages, const struct table *t)
{
	size_t i, j;

	out_table_begin(o, t);
	for (i = 0; i < ranks->n; i++) {
		unsigned long n = (unsigned long)ranks->v[i];
		struct zero_cost base;

		zero_cost_model(p, &ctx->machine.model, n, 0, &base);
		for (j = 0; j < stages->n; j++) {
			struct zero_cost z;
			struct cell row[C_COUNT];

			zero_cost_model(p, &ctx->machine.model, n, (int)stages->v[j], &z);
			memset(row, 0, sizeof(row));
			row[C_RANKS].x = (double)n;
			row[C_STAGE].x = z.stage;
			row[C_SHARDS].s = shards[z.stage];
			row[C_MEMORY].x = z.memory_B;
			row[C_MEMORY_GIB].x = z.memory_B;
			row[C_COMM_B].x = z.comm_B;
			row[C_COMM_S].x = z.comm_s;
			row[C_RATIO].x = base.comm_s > 0 ? z.comm_s / base.comm_s : NAN;
			row[C_PARAM_B].x = z.param_B;
			row[C_GRAD_B].x = z.grad_B;
			row[C_OPTIM_B].x = z.optim_B;
			out_row(o, row);
		}
	}
	out_table_end(o);
}

int cmd_zero(int argc, char **argv, struct ctx *ctx)
{
	struct zero_params p;
	struct dlist ranks = { 0 }, stages = { 0 };
	struct workload w;
	struct errbuf eb;
	struct column cols[C_COUNT];
	struct table t = { "zero", NULL, cols, C_COUNT, 0 };
	struct out *o;
	struct workload_args wa = { 0 };
	const char *weights_arg;
	double weights = 0;
	size_t i;
	struct opt options[] = {
		OPT_GROUP_("the model"),
		OPTS_WORKLOAD(&wa),
		OPT_POSITIVE_("weights", "SIZE", Q_SIZE, &weights,
			      "size of the parameters instead: Psi = SIZE / --param-bytes (14G)"),
		OPT_POSITIVE_("param-bytes", "SIZE", Q_SIZE, &p.param_bytes,
			      "bytes per parameter (default 2, bf16)"),
		OPT_POSITIVE_("grad-bytes", "SIZE", Q_SIZE, &p.grad_bytes,
			      "bytes per gradient value reduced (default 2: bf16, as the\n"
			      "ZeRO paper and DeepSpeed reduce them; models/zero.md)"),
		OPT_NUMBER_("optim-bytes", "SIZE", Q_SIZE, &p.optim_bytes,
			    "optimizer bytes per parameter, K (default 12: fp32 copy,\n"
			    "momentum and variance of Adam)"),
		OPT_GROUP_("the run"),
		OPT_RANKS_("ranks", &ranks, "data-parallel rank counts (default 1,4,16,64,256,1024)"),
		OPT_LIST_("stage", "LIST", Q_NUMBER, &stages, "stages to show, 0 to 3 (default 0,1,2,3)"),
		{ .type = OPT_CALLBACK, .long_name = "algo", .argh = "NAME", .value = &p.algo,
		  .cb = opt_cb_algo, .arg = ctx_algo_model(ctx), .complete = "ring tree dbtree rd rabenseifner",
		  .help = "collective algorithm: ring (default), tree, dbtree, rd,\n"
			  "rabenseifner; reduce-scatter and all-gather use it where the\n"
			  "model has it for them, else ring (models/zero.md); on a system\n"
			  "the model's names, and by default its own choice" },
		OPT_END_()
	};

	zero_params_init(&p);
	p.grad_bytes = ZERO_GRAD_BYTES;
	p.algo = cost_algo_preferred(&ctx->machine.model, OP_ALLREDUCE);
	opts_parse(argc, argv, options, &usage, 0);
	for (i = 0; i < stages.n; i++)
		if (stages.v[i] != floor(stages.v[i]) || stages.v[i] < 0 ||
		    stages.v[i] >= ZERO_STAGES)
			die_usage("--stage: stage %g is not 0, 1, 2 or 3", stages.v[i]);
	weights_arg = opts_given(options, "weights");
	if (!!wa.params_arg + !!weights_arg + !!wa.workload != 1)
		die_usage("zero: give the model with exactly one of --params, --weights or --workload");
	if (weights_arg)
		p.params = weights / p.param_bytes;
	else
		p.params = workload_args_params(ctx, &wa, &w);
	/* A workload's layer count lets ZeRO-3 gather layer by layer, as it does. */
	if (wa.workload)
		p.layers = w.layers;
	if (zero_check(&p, &eb) < 0)
		die_usage("zero: %s", eb.msg);
	if (!ranks.n) {
		static const double table1[] = { 1, 4, 16, 64, 256, 1024 };

		for (i = 0; i < sizeof(table1) / sizeof(table1[0]); i++)
			dlist_push(&ranks, table1[i]);
	}
	ctx_check_ranks(ctx, &ranks);
	if (!stages.n)
		for (i = 0; i < ZERO_STAGES; i++)
			dlist_push(&stages, (double)i);

	o = ctx_out_open(ctx);
	S_echo(ctx, o, &p, &wa, &w, weights_arg);
	S_units(ctx, &p, &ranks, &stages, cols);
	S_rows(ctx, o, &p, &ranks, &stages, &t);
	if (ctx_wants_figure(ctx))
		S_figure(ctx, &p, &ranks, &stages);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	dlist_release(&stages);
	return EXIT_OK;
}
