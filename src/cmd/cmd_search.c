/*
 * commtime search: the parallel configurations of a workload that fit in
 * memory on each GPU count, fastest first, priced (models/search.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "search.h"
#include "workload.h"

/* The GPU of a search on a single link when --gpu is not given. */
#define SEARCH_DEFAULT_GPU "h100-sxm"

static const char *const usage_lines[] = {
	"commtime search --workload NAME --gpus LIST --global-batch N [options]", NULL
};
static const struct opts_usage usage = {
	.cmd = "search",
	.lines = usage_lines,
	.about = "Every tp x pp x dp x cp (x ep) factorisation of each GPU count, with ZeRO\n"
		 "stage, micro-batch, pipeline schedule and recomputation, that fits in GPU\n"
		 "memory, ordered by step time; the table shows the best few, CSV and JSON\n"
		 "every one (models/search.md).\n",
};

/* The eleven columns of the contract, then the extras. */
enum { C_TP, C_PP, C_DP, C_CP, C_EP, C_ZERO, C_MB, C_MEM, C_STEP, C_TOK, C_COST, C_GPUS,
       C_SCHED, C_VIRT, C_RC, C_MFU, C_PARETO, C_RUN_S, C_RUN_COST, C_NCOLS };
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
	row[C_TP].x = (double)k->c.tp;
	row[C_PP].x = (double)k->c.pp;
	row[C_DP].x = (double)k->c.dp;
	row[C_CP].x = (double)k->c.cp;
	row[C_EP].x = (double)k->c.ep;
	row[C_ZERO].x = k->c.zero;
	row[C_MB].x = k->c.micro_batch;
	row[C_MEM].x = k->memory_B;
	row[C_STEP].x = k->step_s;
	row[C_TOK].x = k->tokens_per_s;
	row[C_COST].x = k->cost_per_Mtoken;
	row[C_GPUS].x = k->gpus;
	row[C_SCHED].s = pp_schedule_name(k->c.schedule);
	row[C_VIRT].x = (double)k->c.virt;
	row[C_RC].s = recompute_name(k->c.recompute);
	row[C_MFU].x = k->mfu;
	row[C_PARETO].s = k->pareto ? "yes" : "";
	row[C_RUN_S].x = k->run_s;
	row[C_RUN_COST].x = k->run_cost;
}

/* Why the best wins: its step, and the ledger lines that cost the most. */
static void S_why(struct out *o, const struct search_space *sp, const struct search_cand *k,
		  const struct step_compute *cs, struct ctx *ctx)
{
	struct step_result r;
	struct errbuf eb;
	char a[32], b[32], c[32], d[32];
	int i, j, order[STEP_ROWS_MAX];

	if (step_run(sp->w, &k->c, cs, &ctx->model, STEP_BAND_NONE, &r, &eb) < 0)
		return;
	units_fmt_time(a, sizeof(a), r.compute_s, 4);
	units_fmt_time(b, sizeof(b), r.microbatches * r.mb_exposed_s, 4);
	units_fmt_time(c, sizeof(c), r.bubble_s, 4);
	units_fmt_time(d, sizeof(d), r.dp_exposed_s, 4);
	out_text(o, "The fastest, tp %lu pp %lu dp %lu cp %lu ep %lu ZeRO %d micro-batch %.15g "
		 "(%s, recompute %s):", k->c.tp, k->c.pp, k->c.dp, k->c.cp, k->c.ep, k->c.zero,
		 k->c.micro_batch, pp_schedule_name(k->c.schedule), recompute_name(k->c.recompute));
	out_text(o, "  compute %s, exposed per-micro-batch communication %s, bubble %s, dp %s;",
		 a, b, c, d);
	for (i = 0; i < r.nrows; i++)
		order[i] = i;
	/* The rows by exposed time per step, largest first (a short insertion sort). */
	for (i = 1; i < r.nrows; i++)
		for (j = i; j > 0; j--) {
			const struct step_row *x = &r.rows[order[j]], *y = &r.rows[order[j - 1]];
			double ex = x->exposed_s * (x->dim == DIM_DP ? 1 : r.microbatches);
			double ey = y->exposed_s * (y->dim == DIM_DP ? 1 : r.microbatches);
			int t;

			if (!(ex > ey))
				break;
			t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < r.nrows && i < 3; i++) {
		const struct step_row *x = &r.rows[order[i]];
		double per_step = x->exposed_s * (x->dim == DIM_DP ? 1 : r.microbatches);

		units_fmt_time(a, sizeof(a), per_step, 4);
		units_fmt_size(b, sizeof(b), x->bytes);
		out_text(o, "  %s %s %s: %.15g x %s on %lu ranks (%s), %s exposed per step",
			 step_dim_name(x->dim), step_phase_name(x->phase), coll_op_name(x->op),
			 x->count * (x->dim == DIM_DP ? 1 : r.microbatches), b, x->ranks, x->tier, a);
	}
}

/*
 * The figure: step time against cost per million tokens (GPU-hours per
 * million tokens without a price), one colour per GPU count, the Pareto
 * front drawn through the configurations no other beats on both.
 */
static void S_figure(const struct ctx *ctx, const struct workload *w, const struct search_result *r,
		     const struct dlist *gpus, double price)
{
	struct figure f = { 0 };
	struct panel *pn;
	struct plot_series *s;
	char title[300], name[64];
	size_t i, g;
	int priced = !isnan(price);

	snprintf(title, sizeof(title), "%s: configurations that fit, step time against %s",
		 w->name, priced ? "cost per million tokens" : "GPU-hours per million tokens");
	f.title = xstrdup(title);
	f.comment = xstrdup("commtime search: every fitting configuration, the Pareto front marked");
	f.width = 900;
	f.height = 560;
	pn = plot_add_panel(&f, NULL, priced ? "cost per million tokens" :
			    "GPU-hours per million tokens", "step time");
	pn->xaxis = AX_PLAIN;
	pn->yaxis = AX_TIME;
	pn->logx = pn->logy = 1;
	pn->xmin = pn->xmax = pn->ymin = pn->ymax = NAN;
	pn->key = xstrdup("top right");
	for (g = 0; g < gpus->n; g++) {
		snprintf(name, sizeof(name), "%.15g GPUs", gpus->v[g]);
		s = plot_add_series(pn, name, PS_POINTS);
		for (i = 0; i < r->n; i++) {
			const struct search_cand *k = &r->cand[i];
			double x = priced ? k->cost_per_Mtoken : k->gpus * k->step_s / 3600 /
				(k->tokens_per_s * k->step_s / 1e6);

			if (k->gpus == gpus->v[g])
				plot_xy(s, x, k->step_s);
		}
	}
	s = plot_add_series(pn, "Pareto front", PS_LINESPOINTS);
	s->color = 7;
	for (i = r->n; i-- > 0;) {
		const struct search_cand *k = &r->cand[i];

		if (k->pareto)
			plot_xy(s, priced ? k->cost_per_Mtoken : k->gpus * k->step_s / 3600 /
				(k->tokens_per_s * k->step_s / 1e6), k->step_s);
	}
	ctx_figure(ctx, &f);
	plot_release(&f);
}

int cmd_search(int argc, char **argv, struct ctx *ctx)
{
	struct search_space sp;
	struct step_compute cs = { 0, STEP_MFU, 0, NULL };
	struct search_result r = { 0 };
	struct workload w;
	struct errbuf eb;
	struct dlist gpus = { 0 };
	struct table t = { "search", NULL, columns, C_NCOLS, 0 };
	struct cell row[C_NCOLS];
	struct out *o;
	const char *workload_arg = NULL, *gpu_arg = NULL;
	struct ctx_gpu gpu;
	struct shape_args shape = { 0 };
	double seq = 0, gb = 0, price = 0, tokens = 0, gpu_memory = 0, grad_bytes = STEP_GRAD_BYTES;
	unsigned long max_cp = 8, max_mb = 16, top = 10, seq_n = 0, gb_n = 0;
	size_t i, shown;
	char note[200];
	struct opt options[] = {
		OPT_GROUP_("the model and the run"),
		{ .type = OPT_STRING, .long_name = "workload", .argh = "NAME", .value = &workload_arg,
		  .complete = "presets:workload",
		  .help = "model shape from a workload preset (llama3-70b, ...)" },
		OPTS_SHAPE(&shape),
		OPT_RANKS_("gpus", &gpus, "GPU counts (64, 64,128,256, 64:1024:x2)"),
		OPT_CALLBACK_("global-batch", "N", &gb_n, opt_cb_whole, "sequences per step"),
		OPT_CALLBACK_("seq", "N", &seq_n, opt_cb_whole, "sequence length (default the workload's)"),
		OPT_CALLBACK_("tokens", "N", &tokens, cb_tokens,
			      "tokens of the whole run (15T): its time and cost"),
		OPT_GROUP_("the GPU"),
		{ .type = OPT_STRING, .long_name = "gpu", .argh = "NAME", .value = &gpu_arg,
		  .complete = "presets:gpu",
		  .help = "peak and memory from a gpu preset (default: the system's GPU;\n"
			  "on a single link " SEARCH_DEFAULT_GPU ")" },
		OPT_POSITIVE_("peak", "RATE", Q_NUMBER, &cs.peak_flops,
			      "dense bf16 peak of one GPU in FLOP/s (989e12)"),
		OPT_POSITIVE_("mfu", "F", Q_NUMBER, &cs.mfu,
			      "every FLOP at this flat share of the peak, in place of\n"
			      "the kernel model (as before it; not the all-in MFU printed)"),
		OPT_POSITIVE_("gpu-memory", "SIZE", Q_SIZE, &gpu_memory, "memory of one GPU (80GB)"),
		OPT_POSITIVE_("price", "X", Q_NUMBER, &price, "price of one GPU-hour"),
		OPT_GROUP_("the search"),
		OPT_POSITIVE_("grad-bytes", "SIZE", Q_SIZE, &grad_bytes,
			      "bytes per gradient value reduced (default 4, fp32)"),
		OPT_CALLBACK_("max-cp", "N", &max_cp, opt_cb_whole,
			      "largest context-parallel size tried (default 8)"),
		OPT_CALLBACK_("max-micro-batch", "N", &max_mb, opt_cb_whole,
			      "largest micro-batch tried (default 16)"),
		OPT_CALLBACK_("top", "N", &top, opt_cb_whole, "rows of the table (default 10; CSV and JSON: all)"),
		OPT_END_()
	};

	opts_parse(argc, argv, options, &usage, 0);
	seq = (double)seq_n;
	gb = (double)gb_n;
	if (!opts_given(options, "price"))
		price = NAN;
	if (cs.mfu > 1)
		die_usage("--mfu: must be at most 1, got %g", cs.mfu);
	if (!workload_arg && !shape.layers)
		die_usage("search: give the model with --workload NAME");
	if (!gpus.n)
		die_usage("search: give the GPU counts with --gpus LIST");
	if (!gb)
		die_usage("search: give the global batch with --global-batch N");
	ctx_gpu(ctx, gpu_arg, SEARCH_DEFAULT_GPU, &gpu);
	if (!opts_given(options, "peak"))
		cs.peak_flops = gpu.peak_flops;
	if (!opts_given(options, "gpu-memory"))
		gpu_memory = gpu.memory_B;
	/* Compute by kernel, as step does, unless a flat --mfu is given. */
	gpu.kernel.peak = cs.peak_flops;
	if (!opts_given(options, "mfu"))
		cs.kgpu = &gpu.kernel;
	if (isnan(price) && ctx->have_system)
		price = ctx->system.price_per_gpu_hour;
	ctx_workload_shape(ctx, workload_arg, &shape, &w);
	if (!workload_arg && !seq)
		die_usage("search: a shape without a workload preset needs --seq");

	search_space_init(&sp, &w);
	if (seq)
		sp.seq = seq;
	sp.global_batch = gb;
	sp.gpu_memory = gpu_memory;
	sp.max_cp = max_cp;
	sp.max_mb = max_mb;
	sp.grad_bytes = grad_bytes;
	sp.price = price;
	sp.run_tokens = tokens;
	if (ctx->have_system) {
		sp.gpus_per_node = ctx->system.gpus_per_node;
		for (i = 0; i < gpus.n; i++)
			if (system_check_ranks(&ctx->system, (unsigned long)gpus.v[i], &eb) < 0)
				die("search: %s", eb.msg);
	}
	if (search_run(&sp, gpus.v, gpus.n, &cs, &ctx->model, &r, &eb) < 0)
		die("search: %s", eb.msg);

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	ctx_echo_workload(o, &w);
	snprintf(note, sizeof(note), "%.15g sequences of %.15g tokens", gb, sp.seq);
	out_input_str(o, "batch", "global batch", note);
	snprintf(note, sizeof(note), "%s (%s%s): %.4g TFLOP/s dense bf16 x %s, %.4g GB",
		 gpu.name, !strcmp(gpu.from, "default") ? "default; set with --gpu" :
		 !strcmp(gpu.from, "system") ? "the system's" : "--gpu",
		 opts_given(options, "peak") || opts_given(options, "gpu-memory") ?
		 ", overridden" : "", cs.peak_flops / 1e12,
		 cs.kgpu ? "kernels by shape" : "a flat --mfu", gpu_memory / 1e9);
	out_input_str(o, "gpu", "GPU", note);
	if (!isnan(price))
		out_input(o, "price", "price per GPU-hour", price, H_PLAIN, 6, NULL);
	snprintf(note, sizeof(note), "%zu configurations, %zu valid, %zu fit in memory",
		 r.tried, r.valid, r.n);
	out_input_str(o, "searched", "searched", note);

	out_table_begin(o, &t);
	shown = out_get_format(o) == FMT_TABLE && r.n > top ? top : r.n;
	for (i = 0; i < shown; i++) {
		S_fill(row, &r.cand[i]);
		out_row(o, row);
	}
	out_table_end(o);
	if (shown < r.n)
		out_text(o, "(%zu more; --format csv lists every one)", r.n - shown);
	if (r.n)
		S_why(o, &sp, &r.cand[0], &cs, ctx);
	else
		out_text(o, "No configuration fits in %.4g GB.", gpu_memory / 1e9);
	if (ctx_wants_figure(ctx))
		S_figure(ctx, &w, &r, &gpus, price);
	ctx_out_close(ctx, o);
	search_release(&r);
	dlist_release(&gpus);
	return EXIT_OK;
}
