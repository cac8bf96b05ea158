/*
 * commtime serve: the communication of inference (models/serve.md).  One
 * prefill and one decode step of a workload on a system under a layout,
 * collective by collective; time to first token and per output token with
 * the communication's share; the memory fit; the KV hand-off between a
 * prefill and a decode instance.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_cmd.h"

static const char *const usage_lines[] = {
	"commtime --system NAME serve --workload W --tp T [--ep E] [--pp P] --batch B\n"
	"          [--prompt N] [--output N] [--precision bf16|fp8] [options]",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "serve",
	.lines = usage_lines,
	.about = "Serving a model on a system: the collectives of one prefill (the batch's\n"
		 "prompts) and one decode step (one token per request), the decode's\n"
		 "memory-bound compute (weights and KV cache read at HBM bandwidth), the\n"
		 "prefill's compute from the kernel model, time to first token (TTFT) and\n"
		 "per output token (TPOT) with the communication's share of TPOT, weights\n"
		 "and KV cache per GPU against its memory, and the KV cache handed from a\n"
		 "prefill to a decode instance over a link (models/serve.md).\n",
};

/* The main table: one row, the layout and what it gives. */
enum { C_TP, C_EP, C_PP, C_BATCH, C_TTFT, C_TPOT, C_SHARE, C_TOKS, C_MEM, C_GPUMEM, C_FITS,
       C_PROMPT, C_OUTPUT, C_GPUS, C_DCOMM, C_DCOMP, C_COUNT };
static const struct column columns[C_COUNT] = {
	[C_TP]     = { .key = "tp", .label = "tp", .type = COL_INT, .width = 3 },
	[C_EP]     = { .key = "ep", .label = "ep", .type = COL_INT, .width = 3 },
	[C_PP]     = { .key = "pp", .label = "pp", .type = COL_INT, .width = 3 },
	[C_BATCH]  = { .key = "batch", .label = "batch", .type = COL_INT, .width = 5 },
	[C_TTFT]   = { .key = "ttft_s", .label = "TTFT", .type = COL_NUM, .human = H_TIME,
		       .prec = 4, .width = 9 },
	[C_TPOT]   = { .key = "tpot_s", .label = "TPOT", .type = COL_NUM, .human = H_TIME,
		       .prec = 4, .width = 9 },
	[C_SHARE]  = { .key = "comm_share", .label = "comm share", .type = COL_NUM,
		       .human = H_PERCENT, .prec = 1, .width = 10 },
	[C_TOKS]   = { .key = "tokens_per_s", .label = "tokens/s", .type = COL_NUM,
		       .human = H_PLAIN, .prec = 4, .width = 8 },
	[C_MEM]    = { .key = "memory_B", .label = "memory/GPU", .type = COL_NUM, .human = H_SIZE,
		       .width = 10 },
	[C_GPUMEM] = { .key = "gpu_memory_B", .label = "of", .type = COL_NUM, .human = H_SIZE,
		       .width = 7 },
	[C_FITS]   = { .key = "fits", .label = "fits", .type = COL_STR, .width = 4 },
	[C_PROMPT] = { .key = "prompt", .label = "prompt", .type = COL_INT, .flags = COL_DATA_ONLY },
	[C_OUTPUT] = { .key = "output", .label = "output", .type = COL_INT, .flags = COL_DATA_ONLY },
	[C_GPUS]   = { .key = "gpus", .label = "gpus", .type = COL_INT, .flags = COL_DATA_ONLY },
	[C_DCOMM]  = { .key = "decode_comm_s", .label = "decode comm", .type = COL_NUM,
		       .human = H_TIME, .prec = 4, .flags = COL_DATA_ONLY },
	[C_DCOMP]  = { .key = "decode_compute_s", .label = "decode compute", .type = COL_NUM,
		       .human = H_TIME, .prec = 4, .flags = COL_DATA_ONLY },
};

/* The ledger: one row per kind of collective of each phase. */
enum { L_PHASE, L_DIM, L_WHAT, L_OP, L_COUNT, L_BYTES, L_IMPL, L_TIER, L_TIME, L_TOTAL,
       L_NCOLS };
static const struct column ledger_cols[L_NCOLS] = {
	[L_PHASE] = { .key = "phase", .label = "phase", .type = COL_STR, .width = 7 },
	[L_DIM]   = { .key = "dim", .label = "dim", .type = COL_STR, .width = 3 },
	[L_WHAT]  = { .key = "what", .label = "collective", .type = COL_STR, .width = 20 },
	[L_OP]    = { .key = "op", .label = "op", .type = COL_STR, .width = 9 },
	[L_COUNT] = { .key = "count", .label = "count", .type = COL_NUM, .human = H_PLAIN,
		      .prec = 6, .width = 5 },
	[L_BYTES] = { .key = "bytes_B", .label = "size", .type = COL_NUM, .human = H_SIZE,
		      .width = 10 },
	[L_IMPL]  = { .key = "impl", .label = "runs as", .type = COL_STR, .width = 20 },
	[L_TIER]  = { .key = "tier", .label = "tier", .type = COL_STR, .width = 5 },
	[L_TIME]  = { .key = "time_s", .label = "each", .type = COL_NUM, .human = H_TIME,
		      .prec = 4, .width = 9 },
	[L_TOTAL] = { .key = "total_s", .label = "total", .type = COL_NUM, .human = H_TIME,
		      .prec = 4, .width = 9 },
};

/* The KV hand-off of disaggregated serving. */
enum { K_TOKEN, K_REQ, K_LINK, K_TIME, K_RATE, K_BPS, K_SHARE, K_NCOLS };
static const struct column kv_cols[K_NCOLS] = {
	[K_TOKEN] = { .key = "per_token_B", .label = "per token", .type = COL_NUM, .human = H_SIZE,
		      .width = 9 },
	[K_REQ]   = { .key = "request_B", .label = "per request", .type = COL_NUM, .human = H_SIZE,
		      .width = 11 },
	[K_LINK]  = { .key = "link", .label = "link", .type = COL_STR, .width = 18 },
	[K_TIME]  = { .key = "time_s", .label = "hand-off", .type = COL_NUM, .human = H_TIME,
		      .prec = 4, .width = 9 },
	[K_RATE]  = { .key = "rate", .label = "requests/s", .type = COL_NUM, .human = H_PLAIN,
		      .prec = 4, .width = 10 },
	[K_BPS]   = { .key = "rate_Bps", .label = "traffic", .type = COL_NUM, .human = H_RATE,
		      .prec = 4, .width = 10 },
	[K_SHARE] = { .key = "link_share", .label = "link busy", .type = COL_NUM,
		      .human = H_PERCENT, .prec = 1, .width = 9 },
};

static void cb_precision(const struct opt *o, const char *arg)
{
	if (!strcmp(arg, "bf16"))
		*(enum serve_precision *)o->value = SERVE_BF16;
	else if (!strcmp(arg, "fp8"))
		*(enum serve_precision *)o->value = SERVE_FP8;
	else
		die_usage("--%s: expected bf16 or fp8, got '%s'", o->long_name, arg);
}

static void cb_impl(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (ar_impl_lookup(arg, (enum ar_impl *)o->value, &eb) < 0)
		die_usage("--impl: %s", eb.msg);
}

/*
 * The link the KV cache crosses: --kv-link, else one NIC port, else the
 * node's link; striped over `nics` ports (Mooncake's Transfer Engine and
 * NIXL split one transfer over several NICs), β times nics, α once.
 */
static void S_kv_link(const struct ctx *ctx, const char *name, unsigned long nics,
		      struct serve_link *kl)
{
	struct errbuf eb;
	struct tier t;
	const char *what;

	if (name) {
		if (tier_load(&ctx->dirs, name, NULL, &t, &eb) < 0)
			die("--kv-link: %s", eb.msg);
		kl->link = t.link;
		what = name;
		free(t.name);
	} else {
		t = ctx->machine.system.have_inter ? ctx->machine.system.inter : ctx->machine.system.intra;
		kl->link = t.link;
		what = t.name ? t.name : "?";
	}
	kl->link.beta *= (double)nics;
	if (nics > 1)
		snprintf(kl->name, sizeof(kl->name), "%lu x %s", nics, what);
	else
		snprintf(kl->name, sizeof(kl->name), "%s", what);
}

static void S_echo(const struct ctx *ctx, struct out *o, const struct workload *w,
		   const struct serve_params *p, const struct serve_result *r,
		   const struct serve_link *kl)
{
	char note[160];

	ctx_echo_link(ctx, o);
	ctx_echo_workload(o, w);
	snprintf(note, sizeof(note), "weights %s, KV cache %s", p->precision == SERVE_FP8 ?
		 "fp8" : "bf16", p->kv_bytes == 1 ? "fp8" : "bf16");
	out_input_str(o, "precision", "precision", note);
	snprintf(note, sizeof(note), "%.0f tokens of prompt, %.0f of output per request",
		 p->prompt, p->output);
	out_input_str(o, "lengths", "lengths", note);
	out_input_str(o, "impl", "all-reduce", p->impl == AR_VLLM ?
		      "vllm: its one-shot or two-shot kernel where it runs, NCCL elsewhere" :
		      ar_impl_name(p->impl));
	if (w->experts > 1) {
		snprintf(note, sizeof(note), "%.4g of %.0f experts a layer, at batch %.0f",
			 r->experts_touched, w->experts, p->batch);
		out_input(o, "experts_touched", "experts read", r->experts_touched, H_PLAIN, 4, note);
		if (p->ep > 1)
			out_input(o, "moe_imbalance", "MoE imbalance", p->imbalance, H_PLAIN, 4,
				  "busiest rank's tokens / the mean");
	}
	out_input(o, "decode_read_B", "decode reads", r->decode_weights_B + r->decode_kv_read_B,
		  H_SIZE, 4, "weights and KV cache per GPU per step");
	snprintf(note, sizeof(note), "memory-bound %.4g ms, FLOPs %.4g ms: a roofline",
		  r->decode_mem_s * 1e3, r->decode_flops_s * 1e3);
	out_input(o, "decode_compute_s", "decode compute", r->decode_compute_s, H_TIME, 4, note);
	out_input(o, "prefill_compute_s", "prefill compute", r->prefill_compute_s, H_TIME, 4,
		  "the kernel model, the batch's prompts in one pass");

	out_input(o, "kv_link_beta_Bps", "KV link", kl->link.beta, H_RATE, 4, kl->name);
}

static void S_main(struct out *o, const struct serve_params *p, const struct serve_result *r)
{
	struct table t = { "serve", "serving: time to first token, time per output token",
			   columns, C_COUNT, 0 };
	struct cell row[C_COUNT];

	memset(row, 0, sizeof(row));
	row[C_TP].x = (double)p->tp;
	row[C_EP].x = (double)p->ep;
	row[C_PP].x = (double)p->pp;
	row[C_BATCH].x = p->batch;
	row[C_TTFT].x = r->ttft_s;
	row[C_TPOT].x = r->tpot_s;
	row[C_SHARE].x = r->comm_share;
	row[C_TOKS].x = r->tokens_per_s;
	row[C_MEM].x = r->memory_B;
	row[C_GPUMEM].x = r->gpu_memory_B;
	row[C_FITS].s = r->fits ? "yes" : "no";
	row[C_PROMPT].x = p->prompt;
	row[C_OUTPUT].x = p->output;
	row[C_GPUS].x = r->gpus;
	row[C_DCOMM].x = r->decode_comm_s;
	row[C_DCOMP].x = r->decode_compute_s;
	out_table_begin(o, &t);
	out_row(o, row);
	out_table_end(o);
}

static void S_ledger(struct out *o, const struct serve_result *r)
{
	struct table t = { "ledger", "collectives of one prefill and one decode step (one GPU)",
			   ledger_cols, L_NCOLS, 1 };
	int i;

	out_table_begin(o, &t);
	for (i = 0; i < r->ncoll; i++) {
		const struct serve_coll *c = &r->coll[i];
		struct cell row[L_NCOLS];

		memset(row, 0, sizeof(row));
		row[L_PHASE].s = c->phase == SERVE_PREFILL ? "prefill" : "decode";
		row[L_DIM].s = c->dim;
		row[L_WHAT].s = c->what;
		row[L_OP].s = coll_op_name(c->op);
		row[L_COUNT].x = c->count;
		row[L_BYTES].x = c->bytes;
		row[L_IMPL].s = c->impl;
		row[L_TIER].s = tier_name(c->tier);
		row[L_TIME].x = c->time_s;
		row[L_TOTAL].x = c->count * c->time_s;
		out_row(o, row);
	}
	out_table_end(o);
}

static void S_kv(struct out *o, const struct serve_kv *kv, const struct serve_link *kl,
		 double rate)
{
	struct table t = { "kv", "KV cache handed from prefill to decode (disaggregated serving)",
			   kv_cols, K_NCOLS, 1 };
	struct cell row[K_NCOLS];

	memset(row, 0, sizeof(row));
	row[K_TOKEN].x = kv->per_token_B;
	row[K_REQ].x = kv->request_B;
	row[K_LINK].s = kl->name;
	row[K_TIME].x = kv->time_s;
	row[K_RATE].x = rate > 0 ? rate : NAN;
	row[K_BPS].x = rate > 0 ? kv->rate_Bps : NAN;
	row[K_SHARE].x = rate > 0 ? kv->link_share : NAN;
	out_table_begin(o, &t);
	out_row(o, row);
	out_table_end(o);
}

int cmd_serve(int argc, char **argv, struct ctx *ctx)
{
	struct serve_params p;
	struct serve_result r;
	struct serve_kv kv;
	struct serve_link kl;
	struct workload w;
	struct ctx_gpu gpu;
	struct errbuf eb;
	struct out *o;
	const char *workload_arg = NULL, *kv_link = NULL;
	unsigned long batch = 0, prompt = 1024, output = 256, kv_nics = 1;
	enum serve_precision kvp = SERVE_BF16;
	struct opt options[] = {
		OPT_GROUP_("the model and the layout"),
		{ .type = OPT_STRING, .long_name = "workload", .argh = "NAME", .value = &workload_arg,
		  .complete = "presets:workload",
		  .help = "the model of a workload preset (llama3-70b, mixtral-8x7b, ...)" },
		OPT_CALLBACK_("tp", "N", &p.tp, opt_cb_whole, "tensor-parallel size (divides the heads)"),
		OPT_CALLBACK_("ep", "N", &p.ep, opt_cb_whole,
			      "expert-parallel size, inside the TP group (default 1;\n"
			      "mixture-of-experts workloads)"),
		OPT_CALLBACK_("pp", "N", &p.pp, opt_cb_whole, "pipeline-parallel size (default 1)"),
		OPT_GROUP_("the requests"),
		OPT_CALLBACK_("batch", "N", &batch, opt_cb_whole, "requests decoded together"),
		OPT_CALLBACK_("prompt", "N", &prompt, opt_cb_whole, "prompt tokens per request (default 1024)"),
		OPT_CALLBACK_("output", "N", &output, opt_cb_whole,
			      "output tokens per request (default 256); after 'serve'\n"
			      "--output is this length: -o FILE writes to a file"),
		{ .type = OPT_CALLBACK, .long_name = "precision", .argh = "P", .value = &p.precision,
		  .cb = cb_precision, .complete = "bf16 fp8",
		  .help = "weights in bf16 (default) or fp8" },
		{ .type = OPT_CALLBACK, .long_name = "kv-precision", .argh = "P", .value = &kvp,
		  .cb = cb_precision, .complete = "bf16 fp8",
		  .help = "the KV cache in bf16 or fp8 (default --precision's)" },
		OPT_GROUP_("the communication"),
		{ .type = OPT_CALLBACK, .long_name = "impl", .argh = "NAME", .value = &p.impl,
		  .cb = cb_impl, .complete = "vllm nccl oneshot twoshot symm",
		  .help = "the all-reduce: vllm (default: its kernels where they run),\n"
			  "nccl, oneshot, twoshot, symm (NCCL 2.27's symmetric kernels)" },
		OPT_POSITIVE_("moe-imbalance", "F", Q_NUMBER, &p.imbalance,
			      "busiest rank's MoE tokens / the mean (default 1)"),
		{ .type = OPT_STRING, .long_name = "kv-link", .argh = "LINK", .value = &kv_link,
		  .complete = "presets:link",
		  .help = "link preset the KV cache crosses from prefill to decode\n"
			  "(default one NIC port of the system, else its node link)" },
		OPT_CALLBACK_("kv-nics", "N", &kv_nics, opt_cb_whole,
			      "NIC ports one hand-off is striped over (default 1)"),
		OPT_POSITIVE_("rate", "R", Q_NUMBER, &p.rate,
			      "requests per second for the KV hand-off's traffic"),
		OPT_END_()
	};

	serve_params_init(&p);
	opts_parse(argc, argv, options, &usage, 0);
	if (!ctx->machine.have_system)
		die_usage("serve: needs a machine; give --system (dgx-h100, ...)");
	if (!workload_arg)
		die_usage("serve: give the model with --workload NAME");
	if (!opts_given(options, "tp"))
		die_usage("serve: give the tensor-parallel size with --tp N");
	if (!batch)
		die_usage("serve: give the requests decoded together with --batch N");
	ctx_workload(ctx, workload_arg, &w);
	p.batch = (double)batch;
	p.prompt = (double)prompt;
	p.output = (double)output;
	if (!opts_given(options, "kv-precision"))
		kvp = p.precision;
	p.kv_bytes = kvp == SERVE_FP8 ? 1 : 2;
	if (serve_check(&w, &p, &eb) < 0)
		die_usage("serve: %s", eb.msg);
	if (system_check_ranks(&ctx->machine.system, p.tp * p.pp, &eb) < 0)
		die("serve: %s", eb.msg);
	ctx_gpu(ctx, NULL, NULL, &gpu);
	if (!(gpu.kernel.hbm_Bps > 0))
		die("serve: the gpu preset '%s' gives no hbm_bandwidth; decode reads weights at "
		    "it", gpu.name);
	if (serve_run(&ctx->machine.model, &ctx->machine.system, &gpu.kernel, &w, &p, &r, &eb) < 0)
		die("serve: %s", eb.msg);
	S_kv_link(ctx, kv_link, kv_nics, &kl);
	serve_kv_handoff(&w, p.kv_bytes, p.prompt, p.rate, &kl.link, &kv);

	if (ctx_wants_figure(ctx))
		serve_figure(ctx, &gpu.kernel, &w, &p);
	o = ctx_out_open(ctx);
	S_echo(ctx, o, &w, &p, &r, &kl);
	S_main(o, &p, &r);
	S_ledger(o, &r);
	S_kv(o, &kv, &kl, p.rate);
	ctx_out_close(ctx, o);
	return EXIT_OK;
}
