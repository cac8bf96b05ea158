/*
 * commtime compare --trace FILE...: what a training run's profiler trace
 * (or NCCL Inspector output, or NCCL INFO lines) says it ran, against the
 * cost model, per step, and next to step's ledger (models/trace.md).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_cmd.h"
#include "compare_trace_fig.h"

static const char *const usage_lines[] = {
	"commtime --system S compare --trace FILE... [options]",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "compare",
	.lines = usage_lines,
	.about = "Reads what a training run recorded — PyTorch profiler (Kineto) traces, plain\n"
		 "or .gz, one per rank; NCCL Inspector JSON lines; NCCL_DEBUG=INFO logs — and\n"
		 "lists one row per kind of collective (op, size, group, dtype, process group):\n"
		 "its calls, the median time of one call (GPU kernel time) against the cost\n"
		 "model's prediction, and the bus bandwidth.  Per profiler step and GPU:\n"
		 "compute, communication, and the part of it no compute kernel on the same GPU\n"
		 "overlaps.  With --workload and the run's parallel sizes, step's ledger is\n"
		 "laid next to the trace: which rows the trace confirms, which it lacks, which\n"
		 "the ledger lacks (models/trace.md).\n",
	.footer = "size_B is the element count times the dtype's size, in nccl-tests' meaning\n"
		  "(all-gather: the whole output; reduce-scatter: the whole input); count is\n"
		  "every call in every file.  Exposed communication is measured as the length\n"
		  "of the union of NCCL-kernel intervals minus its intersection with the\n"
		  "union of compute-kernel intervals on the same GPU within one step.\n",
};

enum { K_OP, K_SIZE, K_RANKS, K_COUNT, K_MEAS, K_PRED, K_ERR, K_BUSBW, K_PBUSBW, K_FLAG,
       K_DTYPE, K_PG, K_SOURCE, K_ALGO, K_NCOLS };
static const struct column kcols[K_NCOLS] = {
	[K_OP]     = { .key = "op", .label = "collective", .type = COL_STR, .width = 14 },
	[K_SIZE]   = { .key = "size_B", .label = "size", .type = COL_NUM, .human = H_SIZE, .width = 10 },
	[K_RANKS]  = { .key = "ranks", .label = "ranks", .type = COL_INT, .width = 5 },
	[K_COUNT]  = { .key = "count", .label = "count", .type = COL_INT, .width = 6 },
	[K_MEAS]   = { .key = "measured_s", .label = "measured", .type = COL_NUM, .human = H_TIME,
		       .prec = 4, .width = 9 },
	[K_PRED]   = { .key = "predicted_s", .label = "predicted", .type = COL_NUM, .human = H_TIME,
		       .prec = 4, .width = 9 },
	[K_ERR]    = { .key = "rel_error", .label = "error", .type = COL_NUM, .human = H_PERCENT,
		       .prec = 1, .width = 7 },
	[K_BUSBW]  = { .key = "measured_busbw_Bps", .label = "busbw", .type = COL_NUM, .human = H_RATE,
		       .prec = 4, .width = 11 },
	[K_PBUSBW] = { .key = "predicted_busbw_Bps", .label = "predicted", .type = COL_NUM,
		       .human = H_RATE, .prec = 4, .width = 11 },
	[K_FLAG]   = { .key = "flag", .label = "flag", .type = COL_STR, .width = 4 },
	[K_DTYPE]  = { .key = "dtype", .label = "dtype", .type = COL_STR, .width = 8 },
	[K_PG]     = { .key = "process_group", .label = "group", .type = COL_STR, .width = 10 },
	[K_SOURCE] = { .key = "source", .label = "from", .type = COL_STR, .width = 6,
		       .flags = COL_DATA_ONLY },
	[K_ALGO]   = { .key = "algo", .label = "algo", .type = COL_STR },
};

enum { S_RANK, S_DEV, S_STEP, S_STEPT, S_COMPUTE, S_COMM, S_EXPOSED, S_HIDDEN, S_IDLE,
       S_KERNELS, S_NCOLS };
static const struct column scols[S_NCOLS] = {
	[S_RANK]    = { .key = "rank", .label = "rank", .type = COL_INT, .width = 4 },
	[S_DEV]     = { .key = "device", .label = "gpu", .type = COL_INT, .width = 3 },
	[S_STEP]    = { .key = "step", .label = "step", .type = COL_INT, .width = 4 },
	[S_STEPT]   = { .key = "step_s", .label = "step", .type = COL_NUM, .human = H_TIME, .prec = 4,
			.width = 9 },
	[S_COMPUTE] = { .key = "compute_s", .label = "compute", .type = COL_NUM, .human = H_TIME,
			.prec = 4, .width = 9 },
	[S_COMM]    = { .key = "comm_s", .label = "comm", .type = COL_NUM, .human = H_TIME, .prec = 4,
			.width = 9 },
	[S_EXPOSED] = { .key = "exposed_s", .label = "exposed", .type = COL_NUM, .human = H_TIME,
			.prec = 4, .width = 9 },
	[S_HIDDEN]  = { .key = "hidden_s", .label = "hidden", .type = COL_NUM, .human = H_TIME,
			.prec = 4, .width = 9 },
	[S_IDLE]    = { .key = "idle_s", .label = "idle", .type = COL_NUM, .human = H_TIME, .prec = 4,
			.width = 9 },
	[S_KERNELS] = { .key = "kernels", .label = "kernels", .type = COL_INT, .width = 7 },
};

enum { L_OP, L_RANKS, L_ROWS, L_LCALLS, L_TCALLS, L_LBYTES, L_TBYTES, L_LTIME, L_TTIME,
       L_STATUS, L_NCOLS };
static const struct column lcols[L_NCOLS] = {
	[L_OP]     = { .key = "op", .label = "collective", .type = COL_STR, .width = 14 },
	[L_RANKS]  = { .key = "ranks", .label = "ranks", .type = COL_INT, .width = 5 },
	[L_ROWS]   = { .key = "ledger_rows", .label = "ledger rows", .type = COL_STR, .width = 14 },
	[L_LCALLS] = { .key = "ledger_calls", .label = "calls", .type = COL_NUM, .human = H_PLAIN,
		       .prec = 4, .width = 6 },
	[L_TCALLS] = { .key = "trace_calls", .label = "traced", .type = COL_NUM, .human = H_PLAIN,
		       .prec = 4, .width = 6 },
	[L_LBYTES] = { .key = "ledger_bytes_B", .label = "bytes", .type = COL_NUM, .human = H_SIZE,
		       .width = 10 },
	[L_TBYTES] = { .key = "trace_bytes_B", .label = "traced", .type = COL_NUM, .human = H_SIZE,
		       .width = 10 },
	[L_LTIME]  = { .key = "ledger_time_s", .label = "time", .type = COL_NUM, .human = H_TIME,
		       .prec = 4, .width = 9 },
	[L_TTIME]  = { .key = "trace_time_s", .label = "traced", .type = COL_NUM, .human = H_TIME,
		       .prec = 4, .width = 9 },
	[L_STATUS] = { .key = "status", .label = "status", .type = COL_STR },
};

/* The ledger and the trace, gathered by (op, ranks), per step and rank. */
struct lgroup {
	int op;
	unsigned long ranks;
	char rows[64];
	double lcalls, lbytes, ltime;
	double tcalls, tbytes, ttime;
};

static struct lgroup *S_group(struct lgroup *g, size_t *n, int op, unsigned long ranks)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (g[i].op == op && g[i].ranks == ranks)
			return &g[i];
	memset(&g[*n], 0, sizeof(g[*n]));
	g[*n].op = op;
	g[*n].ranks = ranks;
	return &g[(*n)++];
}

#define LEDGER_TOL 0.10

/*
 * Into the groups g (*n of them): step's ledger rows r, each call times
 * its micro-batches, and the trace's kinds t per step and rank.
 */
static void S_gather(struct lgroup *g, size_t *n, const struct step_result *r,
		     const struct trace *t)
{
	double per = (double)t->nfiles * trace_steps_per_file(t);
	size_t i;

	for (i = 0; i < (size_t)r->nrows; i++) {
		const struct step_row *sr = &r->rows[i];
		struct lgroup *x = S_group(g, n, (int)sr->op, sr->ranks);
		double m = sr->dim == DIM_DP ? 1 : r->microbatches;
		size_t len = strlen(x->rows);

		snprintf(x->rows + len, sizeof(x->rows) - len, "%s%s/%s", len ? " " : "",
			 step_dim_name(sr->dim), step_phase_name(sr->phase));
		x->lcalls += sr->count * m;
		x->lbytes += sr->count * m * sr->bytes;
		x->ltime += sr->time_s * m;
	}
	for (i = 0; i < t->nkinds; i++) {
		const struct trace_kind *k = &t->kinds[i];
		struct lgroup *x;
		double med = trace_kind_median(k);

		if (k->coll < 0 || per <= 0)
			continue;
		x = S_group(g, n, k->coll, k->ranks);
		x->tcalls += k->count / per;
		if (!isnan(k->size_B))
			x->tbytes += k->count / per * k->size_B;
		if (!isnan(med))
			x->ttime += k->count / per * med;
	}
}

/* The table of the ng groups g, each with its status, and their count by status. */
static void S_ledger_table(struct out *o, const struct lgroup *g, size_t ng)
{
	struct table lt = { "ledger_vs_trace",
			    "step's ledger against the trace, per step and rank (calls, bytes, time)",
			    lcols, L_NCOLS, 1 };
	size_t i;
	int nconf = 0, nlack = 0, nextra = 0, ndiff = 0;

	out_table_begin(o, &lt);
	for (i = 0; i < ng; i++) {
		const struct lgroup *x = &g[i];
		struct cell row[L_NCOLS];
		const char *status;

		if (x->lcalls == 0) {
			status = "not in the ledger";
			nextra++;
		} else if (x->tcalls == 0) {
			status = "not in the trace";
			nlack++;
		} else if (fabs(x->tbytes / x->lbytes - 1) <= LEDGER_TOL) {
			status = "confirmed";
			nconf++;
		} else {
			status = x->tbytes > x->lbytes ? "more bytes traced" : "fewer bytes traced";
			ndiff++;
		}
		memset(row, 0, sizeof(row));
		row[L_OP].s = coll_op_name((enum coll_op)x->op);
		row[L_RANKS].x = x->ranks ? (double)x->ranks : NAN;
		row[L_ROWS].s = x->rows[0] ? x->rows : "-";
		row[L_LCALLS].x = x->lcalls ? x->lcalls : NAN;
		row[L_TCALLS].x = x->tcalls ? x->tcalls : NAN;
		row[L_LBYTES].x = x->lcalls ? x->lbytes : NAN;
		row[L_TBYTES].x = x->tcalls ? x->tbytes : NAN;
		row[L_LTIME].x = x->lcalls ? x->ltime : NAN;
		row[L_TTIME].x = x->tcalls ? x->ttime : NAN;
		row[L_STATUS].s = status;
		out_row(o, row);
	}
	out_table_end(o);
	out_text(o, "%d confirmed (bytes per step within %.0f %%), %d with other bytes, "
		 "%d not in the trace, %d not in the ledger", nconf, 100 * LEDGER_TOL, ndiff, nlack,
		 nextra);
}

static void S_ledger(const struct ctx *ctx, struct out *o, struct trace_run *run,
		     const struct trace *t, int dp_given, struct step_result *pr)
{
	struct workload w;
	struct step_result r;
	struct step_compute cs = { 0, STEP_MFU, 0, NULL, 0, 0 };
	struct ctx_gpu gpu;
	struct errbuf eb;
	struct lgroup *g;
	size_t ng = 0;
	double gpus;

	ctx_workload(ctx, run->workload, &w);
	gpus = trace_run_settle(ctx, run, &w, t, dp_given);
	if (ctx_gpu(ctx, NULL, NULL, &gpu))
		cs.peak_flops = gpu.peak_flops;
	trace_fit_compute(ctx, &cs);
	if (step_run(&w, &run->c, &cs, &ctx->machine.model, STEP_BAND_NONE, &r, &eb) < 0)
		die("compare --trace: %s", eb.msg);
	g = xmalloc((size_t)(r.nrows + (int)t->nkinds + 1) * sizeof(*g));
	S_gather(g, &ng, &r, t);
	{
		char note[160];
		snprintf(note, sizeof(note), "%s, tp %lu, pp %lu, dp %lu, cp %lu, ep %lu = %.15g GPUs; "
			 "m = %.15g micro-batches", run->workload, run->c.tp, run->c.pp, run->c.dp,
			 run->c.cp, run->c.ep, gpus, r.microbatches);
		out_text(o, "run: %s", note);
	}
	S_ledger_table(o, g, ng);
	free(g);
	*pr = r;
}

/* The kinds in a stable order: op, process group, size, ranks. */
static const struct trace *S_sort_t;
static int S_kcmp(const void *a, const void *b)
{
	const struct trace_kind *x = &S_sort_t->kinds[*(const size_t *)a];
	const struct trace_kind *y = &S_sort_t->kinds[*(const size_t *)b];
	int c = strcmp(x->op, y->op);

	if (c)
		return c;
	if ((c = strcmp(x->pg, y->pg)))
		return c;
	if (x->size_B != y->size_B)
		return isnan(x->size_B) ? 1 : isnan(y->size_B) ? -1 : x->size_B < y->size_B ? -1 : 1;
	if (x->ranks != y->ranks)
		return x->ranks < y->ranks ? -1 : 1;
	if ((c = strcmp(x->dtype, y->dtype)))
		return c;
	return strcmp(x->source, y->source);
}

/*
 * The model's time of one call of kind k into *p, on G GPUs a node (0:
 * none), and its algorithm (and protocol) into algo; returns 1.  Without
 * a prediction, says why in flag and returns 0.
 */
static int S_predict(const struct ctx *ctx, const struct trace_kind *k, unsigned long G,
		     double *p, char *algo, size_t alen, char *flag, size_t flen)
{
	struct coll_cost cc;
	struct errbuf eb;

	if (k->coll >= 0 && k->ranks >= 1 && !isnan(k->size_B)) {
		struct group gr = { .ranks = k->ranks, .per_node = 0 };
		enum coll_algo a = cost_algo_preferred(&ctx->machine.model, (enum coll_op)k->coll);

		if (G && k->stride)
			gr.per_node = step_per_node(k->ranks, k->stride, G);
		if (ctx->machine.have_system && G && gr.per_node == 0 && k->ranks > G * 1024)
			gr.per_node = 0;
		if (cost_coll(&ctx->machine.model, (enum coll_op)k->coll, a, &gr, k->size_B, &cc, &eb) == 0) {
			*p = cc.time_s;
			if (cc.proto != PROTO_NONE)
				snprintf(algo, alen, "%s/%s", coll_algo_name(cc.algo),
					 coll_proto_name(cc.proto));
			else
				snprintf(algo, alen, "%s", coll_algo_name(cc.algo));
			return 1;
		}
		snprintf(flag, flen, "no-model");
	} else if (k->coll < 0) {
		snprintf(flag, flen, "no-model");
	} else {
		snprintf(flag, flen, isnan(k->size_B) ? "no-size" : "no-ranks");
	}
	return 0;
}

static void S_kinds(const struct ctx *ctx, struct out *o, const struct trace *t, double tol)
{
	struct table kt = { "trace", "collectives: median GPU time of one call against the model",
			    kcols, K_NCOLS, 0 };
	size_t *idx = xmalloc((t->nkinds + 1) * sizeof(*idx)), i;
	int nfar = 0, npred = 0, ncmp = 0;   /* ncmp: predicted and measured */
	unsigned long G = ctx->machine.have_system ? ctx->machine.system.gpus_per_node : 0;

	for (i = 0; i < t->nkinds; i++)
		idx[i] = i;
	S_sort_t = t;
	qsort(idx, t->nkinds, sizeof(*idx), S_kcmp);
	out_table_begin(o, &kt);
	for (i = 0; i < t->nkinds; i++) {
		const struct trace_kind *k = &t->kinds[idx[i]];
		struct cell row[K_NCOLS];
		double med = trace_kind_median(k), p = NAN, f;
		char algo[48] = "", flag[32] = "";

		npred += S_predict(ctx, k, G, &p, algo, sizeof(algo), flag, sizeof(flag));
		ncmp += !isnan(p) && !isnan(med) && med > 0;
		if (!isnan(p) && !isnan(med) && med > 0 && fabs(p / med - 1) > tol) {
			snprintf(flag, sizeof(flag), "far");
			nfar++;
		}
		f = k->coll >= 0 && k->ranks ? busbw_factor((enum coll_op)k->coll, k->ranks) : NAN;
		memset(row, 0, sizeof(row));
		row[K_OP].s = k->op;
		row[K_SIZE].x = k->size_B;
		row[K_RANKS].x = k->ranks ? (double)k->ranks : NAN;
		row[K_COUNT].x = k->count;
		row[K_MEAS].x = med;
		row[K_PRED].x = p;
		row[K_ERR].x = !isnan(p) && med > 0 ? p / med - 1 : NAN;
		row[K_BUSBW].x = med > 0 ? k->size_B / med * f : NAN;
		row[K_PBUSBW].x = p > 0 ? k->size_B / p * f : NAN;
		row[K_FLAG].s = flag;
		row[K_DTYPE].s = k->dtype[0] ? k->dtype : "-";
		row[K_PG].s = k->pg[0] ? k->pg : "-";
		row[K_SOURCE].s = k->source;
		row[K_ALGO].s = algo[0] ? algo : "-";
		out_row(o, row);
	}
	out_table_end(o);
	if (ncmp)
		out_text(o, "%zu kinds of collective, %d predicted, %d of %d measured off the "
			 "prediction by more than %.0f %%", t->nkinds, npred, nfar, ncmp, 100 * tol);
	else
		out_text(o, "%zu kinds of collective, %d predicted, none with a measured time (the "
			 "input holds no kernel durations), so none is compared", t->nkinds, npred);
	free(idx);
}

/*
 * With --check: is the trace's median step inside the predicted step's
 * band?  The band is the step priced with every collective at the low and
 * the high end of its stated error (errband.h, step_run_stated's
 * coll_lo_s and coll_hi_s), widened to the tolerance around the step,
 * which stands for the compute's own uncertainty here: the trace
 * measured the compute, so the step's band drawn from published runs
 * (step_lo_s, step_hi_s) is not what judges it.  Says so, and returns 1
 * when it is outside (or nothing was measured).
 */
static int S_step_check(const struct ctx *ctx, struct out *o, const struct trace_run *run,
			const struct trace *t, const struct step_result *pred, double tol)
{
	double meas = t->nsteps ? trace_steps_median(t, offsetof(struct trace_step, step_s)) : NAN;
	double lo = pred->step_s * (1 - tol), hi = pred->step_s * (1 + tol);
	const char *band = "the tolerance";
	char a[32], b[32], c[32], d[32];
	int out;

	if (ctx_has_errband(ctx, OP_ALLREDUCE)) {
		struct workload w;
		struct step_compute cs = { 0, STEP_MFU, 0, NULL, 0, 0 };
		struct ctx_gpu gpu;
		struct step_result r;
		struct step_stated st;
		struct errbuf eb;

		ctx_workload(ctx, run->workload, &w);
		if (ctx_gpu(ctx, NULL, NULL, &gpu))
			cs.peak_flops = gpu.peak_flops;
		trace_fit_compute(ctx, &cs);
		if (step_run_stated(&w, &run->c, &cs, &ctx->machine.model, 1, &r, &st, &eb) < 0)
			die("compare --trace: %s", eb.msg);
		lo = fmin(lo, st.coll_lo_s);
		hi = fmax(hi, st.coll_hi_s);
		band = "the stated error of its collectives, at least the tolerance";
	}
	out = !(meas >= lo && meas <= hi);
	if (isnan(meas))
		out_text(o, "check: no profiler step was measured, so the step is not inside its band");
	else
		out_text(o, "check: the measured step (median) %s is %s the predicted %s's band, %s "
			 "to %s (%s)", units_fmt_time(a, sizeof(a), meas, 4),
			 out ? "outside" : "inside", units_fmt_time(b, sizeof(b), pred->step_s, 4),
			 units_fmt_time(c, sizeof(c), lo, 4), units_fmt_time(d, sizeof(d), hi, 4), band);
	return out;
}

static void S_steps(struct out *o, const struct trace *t, int pp)
{
	struct table st = { "steps", "per profiler step and GPU (GPU kernels launched in the step)",
			    scols, S_NCOLS, 1 };
	size_t i;

	if (t->nsteps == 0) {
		out_text(o, "no profiler step with GPU kernels (ProfilerStep#N annotations and "
			 "kernel events): no per-step figures");
		return;
	}
	out_table_begin(o, &st);
	for (i = 0; i < t->nsteps; i++) {
		const struct trace_step *s = &t->steps[i];
		struct cell row[S_NCOLS];

		memset(row, 0, sizeof(row));
		row[S_RANK].x = (double)s->rank;
		row[S_DEV].x = s->dev;
		row[S_STEP].x = (double)s->number;
		row[S_STEPT].x = s->step_s;
		row[S_COMPUTE].x = s->compute_s;
		row[S_COMM].x = s->comm_s;
		row[S_EXPOSED].x = s->exposed_s;
		row[S_HIDDEN].x = s->comm_s - s->exposed_s;
		row[S_IDLE].x = s->step_s > s->busy_s ? s->step_s - s->busy_s : 0;
		row[S_KERNELS].x = s->kernels;
		out_row(o, row);
	}
	out_table_end(o);
	{
		double step = trace_steps_median(t, offsetof(struct trace_step, step_s));
		double comp = trace_steps_median(t, offsetof(struct trace_step, compute_s));
		double comm = trace_steps_median(t, offsetof(struct trace_step, comm_s));
		double exp = trace_steps_median(t, offsetof(struct trace_step, exposed_s));

		/* No NCCL kernel, no share of it hidden: say so, not "nan %". */
		if (comm > 0)
			out_text(o, "median: step %.4g ms, compute %.4g ms, comm %.4g ms, exposed "
				 "%.4g ms (%.1f %% of comm hidden)", 1e3 * step, 1e3 * comp,
				 1e3 * comm, 1e3 * exp, 100 * (1 - exp / comm));
		else
			out_text(o, "median: step %.4g ms, compute %.4g ms; no NCCL kernel in "
				 "these steps, so no communication to hide", 1e3 * step, 1e3 * comp);
	}
	out_text(o, "idle: the step's length less the union of all kernels%s", pp > 1 ?
		 "; with pp > 1 it holds the pipeline bubble" : "");
}

/* Without --workload: an option of the run's shape means nothing, so refuse it (exit 2). */
static void S_no_shape(const struct opt *options)
{
	static const char *const shape[] = { "tp", "pp", "dp", "cp", "ep",
		"sequence-parallel", "micro-batch", "global-batch", "seq", "grad-bytes" };
	size_t k;

	for (k = 0; k < sizeof(shape) / sizeof(shape[0]); k++)
		if (opts_given(options, shape[k]))
			die_usage("compare --trace: --%s describes a run; give its "
				  "--workload", shape[k]);
}

/* The trace files read, one input each (the first 16), and then their count. */
static void S_echo_files(struct out *o, const struct trace *t)
{
	int i;

	for (i = 0; i < (int)t->nfiles && i < 16; i++) {
		static char keys[16][16];
		char note[300];
		const struct trace_file *f = &t->files[i];

		snprintf(keys[i], sizeof(keys[i]), i ? "trace_%d" : "trace", i);
		snprintf(note, sizeof(note), "%s (%s; rank %ld; %.15g kernels, %.15g of NCCL, %.15g steps)",
			 f->path, trace_format_name(f->format), f->rank, f->kernels, f->comm_kernels,
			 f->windows);
		out_input_str(o, keys[i], "trace", note);
	}
	if (t->nfiles > 16)
		out_input(o, "trace_files", "trace files", (double)t->nfiles, H_PLAIN, 6, NULL);
}

int cmd_compare_trace(int argc, char **argv, struct ctx *ctx)
{
	struct trace t;
	struct trace_run run;
	struct out *o;
	int trace_flag = 0, check = 0, nfiles, outside = 0;
	long step_number = -2;
	unsigned long stepn = 0;
	double tol = 0.25;
	struct trace_fig fig;
	struct step_result pred;
	struct opt options[] = {
		OPT_GROUP_("the trace"),
		OPT_FLAG_("trace", &trace_flag, "read profiler traces, Inspector JSON or NCCL INFO lines"),
		OPT_CALLBACK_("step", "N", &stepn, opt_cb_whole,
			      "the step of the figure (ProfilerStep#N; default the last)"),
		OPT_NUMBER_("tolerance", "FRAC", Q_FRACTION, &tol,
			    "flag errors larger than this (default 25%)"),
		OPT_FLAG_("check", &check,
			  "exit 1 when the measured step falls outside the band of\n"
			  "the predicted step (needs --workload)"),
		OPTS_TRACE_RUN(&run),
		OPT_END_()
	};

	trace_run_init(&run);
	nfiles = opts_parse(argc, argv, options, &usage, 65536);
	if (nfiles < 1)
		die_usage("compare --trace needs trace files; see 'commtime compare --help'");
	if (tol < 0)
		die_usage("--tolerance: '%s' is negative", opts_given(options, "tolerance"));
	if (!run.workload)
		S_no_shape(options);
	if (check && !run.workload)
		die_usage("compare --trace --check: the step's band needs the run: give --workload");
	trace_init(&t);
	trace_fig_init(&fig);
	if (opts_given(options, "step"))
		step_number = (long)stepn;
	trace_cmd_load(&t, nfiles, argv, ctx_wants_figure(ctx) ? step_number : -1,
		       trace_fig_interval, &fig);
	step_number = t.figure_step;

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	S_echo_files(o, &t);
	out_input(o, "tolerance", "tolerance", tol, H_PERCENT, 0, NULL);
	S_kinds(ctx, o, &t, tol);
	S_steps(o, &t, (int)run.c.pp);
	if (run.workload)
		S_ledger(ctx, o, &run, &t, opts_given(options, "dp") != NULL, &pred);
	if (check)
		outside = S_step_check(ctx, o, &run, &t, &pred, tol);
	if (ctx_wants_figure(ctx))
		trace_fig_write(ctx, &fig, &t, step_number, run.workload ? &pred : NULL);
	ctx_out_close(ctx, o);
	trace_fig_release(&fig);
	trace_release(&t);
	return outside ? EXIT_DATA : EXIT_OK;
}
