#ifndef COMMTIME_CLI_H
#define COMMTIME_CLI_H

#include "util.h"
#include "units.h"
#include "cost.h"
#include "nccl_cost.h"
#include "preset.h"
#include "fit.h"
#include "machine.h"
#include "table.h"
#include "plot.h"
#include "opts.h"
#include "step.h"
#include "kernel.h"

/*
 * What main.c hands every command: the global options, already parsed
 * wherever they stood on the command line, and the link they resolve to.
 */
struct ctx {
	/*
	 * The machine every command asks for collective times (machine.h):
	 * the cost model, the system, where each value came from
	 * (ctx->machine.model, ctx->machine.system, ...), which
	 * machine_resolve() fills.
	 */
	struct machine machine;
	struct preset_dirs dirs;   /* preset search path */
	enum out_format format;    /* --format */
	const char *output;        /* -o FILE, or NULL for stdout */
	const char *plot;          /* --plot FILE.gp, or NULL */
	const char *render;        /* --render FILE.png|svg|pdf, or NULL */
	const char *time_unit;     /* --time-unit: ns, us, ms, s; NULL for auto */
	int fig_width, fig_height; /* --size WxH in pixels, 0 for the figure's own */
	const char *fig_title;     /* --title, or NULL for the figure's own */
};

/* The seed's link: α = 5 µs, β = 200 GB/s. */
#define DEFAULT_ALPHA MACHINE_ALPHA
#define DEFAULT_BETA MACHINE_BETA

/*
 * How to add a command:
 *  1. write src/cmd/cmd_NAME.c exporting cmd_NAME() and nothing else, with its
 *     usage string just above its struct option array;
 *  2. declare it below;
 *  3. add a line to commands[] in main.c (name, function, summary);
 *  4. add golden tests in tests/golden/ and bad input lines in tests/bad/;
 *  5. document it in README.md and commtime.1.
 */
int cmd_allreduce(int argc, char **argv, struct ctx *ctx);
int cmd_allgather(int argc, char **argv, struct ctx *ctx);
int cmd_reducescatter(int argc, char **argv, struct ctx *ctx);
int cmd_alltoall(int argc, char **argv, struct ctx *ctx);
int cmd_broadcast(int argc, char **argv, struct ctx *ctx);
int cmd_reduce(int argc, char **argv, struct ctx *ctx);
int cmd_sendrecv(int argc, char **argv, struct ctx *ctx);
int cmd_crossover(int argc, char **argv, struct ctx *ctx);
int cmd_ddp(int argc, char **argv, struct ctx *ctx);
int cmd_zero(int argc, char **argv, struct ctx *ctx);
int cmd_pipeline(int argc, char **argv, struct ctx *ctx);
int cmd_speedup(int argc, char **argv, struct ctx *ctx);
int cmd_presets(int argc, char **argv, struct ctx *ctx);
int cmd_fit(int argc, char **argv, struct ctx *ctx);
int cmd_compare(int argc, char **argv, struct ctx *ctx);
int cmd_plan(int argc, char **argv, struct ctx *ctx);
int cmd_step(int argc, char **argv, struct ctx *ctx);
int cmd_search(int argc, char **argv, struct ctx *ctx);
int cmd_tuner(int argc, char **argv, struct ctx *ctx);
int cmd_serve(int argc, char **argv, struct ctx *ctx);

/*
 * Helpers shared by the commands (cli_*.c: values, loading, output and
 * the echo of inputs, figures, the cost model).  They talk to the user: a
 * value that does not parse is a usage error (exit 2) naming the option.
 */

/*
 * The global options, as given: they may stand before or after the
 * command, main.c takes them out of the command line and resolves them.
 * To add one: a field here, a line in global_options[] (cli.c), its use
 * in main.c.
 */
struct global_args {
	const char *alpha, *beta, *gamma, *preset, *presets_dir;
	const char *system, *model, *gpus_per_node, *nics_per_node, *intra, *inter, *proto;
	const char *topo;           /* --topo FILE: the node's topology file */
	const char *nccl_algo, *nccl_version, *gpus_per_process;
	const char *format, *output, *time_unit, *plot, *render, *size, *title;
};
extern struct global_args global_args;
extern struct opt global_options[];

/*
 * Option groups several commands share, defined once.  Each fills a
 * struct the command declares; the callbacks below parse the values.
 */

/* The algorithms of a list option (--algo ring,tree). */
struct algo_set {
	enum coll_algo v[ALGO_COUNT];
	int n;
};
/*
 * The algorithm options' callbacks take the names of the cost model in
 * the option's .arg (a const struct cost_model *): ctx_algo_model(ctx),
 * the system's model, or NULL on a single link, whose names they are then.
 */
const struct cost_model *ctx_algo_model(const struct ctx *ctx);
opt_cb opt_cb_algo;    /* value: enum coll_algo *, one algorithm */
opt_cb opt_cb_algos;   /* value: struct algo_set *, a list without repeats */
opt_cb opt_cb_meas_algo;  /* value: enum coll_algo *, one algorithm of any collective */
opt_cb opt_cb_op;      /* value: enum coll_op * */
opt_cb opt_cb_count2;  /* value: unsigned long *, a rank count >= 2 */
opt_cb opt_cb_ranks2;  /* value: struct dlist *, rank counts >= 2 */
opt_cb opt_cb_whole;   /* value: unsigned long *, a whole number >= 1 */

/* A measurement file and what was measured (fit, compare). */
struct meas_args {
	enum coll_op op;        /* OP_COUNT: the log's */
	unsigned long ranks;    /* 0: the log's */
	enum coll_algo algo;      /* all-reduce algorithm of the model */
	int in_place;           /* use the in-place times */
};
#define MEAS_ARGS_INIT { .op = OP_COUNT, .ranks = 0, .algo = ALGO_RING, .in_place = 0 }
/* model: ctx_algo_model(ctx), whose names --algo takes */
#define OPTS_MEASUREMENT(m, model) \
	OPT_GROUP_("measurement"), \
	{ .type = OPT_CALLBACK, .long_name = "op", .argh = "NAME", .value = &(m)->op, \
	  .cb = opt_cb_op, .complete = "all_reduce all_gather reduce_scatter alltoall " \
	  "broadcast reduce sendrecv", \
	  .help = "collective: all_reduce, all_gather, reduce_scatter,\n" \
		  "alltoall, broadcast, reduce, sendrecv (default: the log's)" }, \
	OPT_CALLBACK_("ranks", "N", &(m)->ranks, opt_cb_count2, \
		      "rank count (default: the log's '# Rank' lines)"), \
	{ .type = OPT_CALLBACK, .long_name = "algo", .argh = "NAME", .value = &(m)->algo, \
	  .cb = opt_cb_meas_algo, .arg = (model), .complete = "ring tree dbtree rd rabenseifner hier nvls nvlstree " \
	  "collnet pat", \
	  .help = "algorithm of the model (default ring): tree, dbtree, rd,\n" \
		  "rabenseifner for all-reduce on a link; on a system NCCL's\n" \
		  "ring, tree, nvls, nvlstree, collnet, pat (--model tiers:\n" \
		  "ring, hier)" }, \
	OPT_FLAG_("in-place", &(m)->in_place, "use the in-place times instead of the out-of-place ones")

/*
 * Load a measurement file and select what m asks for; dies (exit 1) when
 * the file cannot be read or does not say the collective or rank count.
 */
struct meas;
struct errband;
void meas_args_load(const struct meas_args *a, const char *path, struct meas *m);

/* A model given by a workload preset or a parameter count (ddp, zero, plan). */
struct workload_args {
	const char *workload;   /* --workload NAME */
	const char *params_arg; /* --params N, as given */
	double params;          /* its value */
};
opt_cb opt_cb_params;      /* value: struct workload_args * */
#define OPTS_WORKLOAD(w) \
	{ .type = OPT_STRING, .long_name = "workload", .argh = "NAME", .value = &(w)->workload, \
	  .complete = "presets:workload", \
	  .help = "the model of a workload preset (llama2-7b, ...)" }, \
	OPT_CALLBACK_("params", "N", (w), opt_cb_params, "parameter count (7.5e9, 6.74B, 124M)")

/*
 * The parameter count of w: from the preset (loaded into *wl, which the
 * caller may read when w->workload is set) or --params; dies on an
 * unreadable preset (exit 1) or a count that does not parse (exit 2).
 */
struct workload;
double workload_args_params(const struct ctx *ctx, const struct workload_args *w,
			    struct workload *wl);

/*
 * A shape from the command line: each given value overrides the workload
 * preset's, or without a preset they make the workload (--layers,
 * --hidden, --heads and --vocab needed; --arch gpt by default, --ffn 4h
 * for gpt, needed for llama; --kv-heads = --heads).
 */
struct shape_args {
	unsigned long layers, hidden, heads, kv_heads, ffn, vocab;
	const char *arch;
};
#define OPTS_SHAPE(sa) \
	OPT_CALLBACK_("layers", "N", &(sa)->layers, opt_cb_whole, "transformer layers (overrides the workload's)"), \
	OPT_CALLBACK_("hidden", "N", &(sa)->hidden, opt_cb_whole, "hidden size"), \
	OPT_CALLBACK_("heads", "N", &(sa)->heads, opt_cb_whole, "attention heads"), \
	OPT_CALLBACK_("kv-heads", "N", &(sa)->kv_heads, opt_cb_whole, \
		      "key/value heads, grouped-query attention (default --heads)"), \
	OPT_CALLBACK_("ffn", "N", &(sa)->ffn, opt_cb_whole, "MLP inner size (GPT default 4 x hidden)"), \
	OPT_CALLBACK_("vocab", "N", &(sa)->vocab, opt_cb_whole, "vocabulary size"), \
	{ .type = OPT_STRING, .long_name = "arch", .argh = "NAME", .value = &(sa)->arch, \
	  .complete = "gpt llama", \
	  .help = "layer type without a workload preset: gpt (default) or llama" }
/*
 * The workload of --workload NAME (may be NULL) with the shape options
 * applied; dies (exit 2) when they make no model.
 */
void ctx_workload_shape(const struct ctx *ctx, const char *name, const struct shape_args *sa,
			struct workload *wl);

/* The workload preset name, into *wl; dies (exit 1) when it cannot be read. */
void ctx_workload(const struct ctx *ctx, const char *name, struct workload *wl);

/*
 * Load the preset named by option opt, which takes presets of kind; dies
 * with a "did you mean" toward a preset of that kind, or toward the option
 * that takes a preset of another kind ('--preset dgx-h100' is a system:
 * did you mean '--system dgx-h100'?).
 */
void ctx_preset_kind(const struct ctx *ctx, const char *opt, const char *name,
		     const char *kind, struct preset *p);
/* Echo the workload w as inputs: its name, and its parameter count described. */
void ctx_echo_workload(struct out *o, const struct workload *w);

/*
 * Warn on stderr when arg, a value of opt as quantity q, is a bare number
 * almost surely missing its unit ('--beta 200' is 200 B/s); what does not
 * parse is left to the parser.  opt_quantity() does it for every value.
 */
void opt_warn_bare(const char *opt, enum quantity q, const char *arg);

/* The value parsers of the options (opt_quantity, opt_list, ...) are in opts.h. */

/* The unit of the times of a human table. */
struct time_unit {
	const char *name;     /* "ms" */
	double scale;         /* seconds per unit */
	const char *suffix;   /* printed after the number: "ms", "µs" */
	int prec;             /* decimals */
};

/* 1 when name is a unit --time-unit accepts (ns, us, µs, ms, s, auto). */
int time_unit_known(const char *name);

/*
 * The unit for times from tmin to tmax (s): --time-unit when given; else
 * by rule, the largest unit in which tmin reads at least 1
 * (UNIT_BY_SMALLEST: no row of an all-reduce table loses its digits), or
 * the smallest in which tmax reads below 10000 (UNIT_BY_LARGEST: a step
 * and its parts); a larger one when tmax would need seven digits before
 * the point.  Decimals: one; two when tmin reads below 10, three below 1.
 */
enum unit_rule { UNIT_BY_SMALLEST, UNIT_BY_LARGEST };
void ctx_time_unit(const struct ctx *ctx, double tmin, double tmax, enum unit_rule rule,
		   struct time_unit *u);

/* Give a H_FIXED time column the unit u. */
void column_time_unit(struct column *c, const struct time_unit *u);

/* Open the output chosen by -o/--format; dies (exit 1) when it cannot. */
/*
 * Exit 2 when two outputs of one run lead to one file (outfile_same):
 * paths[i] comes from option opts[i]; NULL paths are skipped.  "-o same.gp
 * --plot same.gp" would otherwise let the second overwrite the first.
 */
void outputs_distinct(const char *const *paths, const char *const *opts, size_t n);

struct out *ctx_out_open(const struct ctx *ctx);

/* Close it; dies (exit 1) on a write error, leaving no file behind. */
void ctx_out_close(const struct ctx *ctx, struct out *o);

/* On a system, die (exit 1) when a rank count needs NICs the system has not. */
void ctx_check_ranks(const struct ctx *ctx, const struct dlist *ranks);

/*
 * Echo α, β (and γ when set) with where they came from; on a system, its
 * tiers; and "model: the preset's regimes" when a fitted preset predicts.
 * ctx_echo_link_values leaves that line to a command that says it itself.
 */
void ctx_echo_link(const struct ctx *ctx, struct out *o);
void ctx_echo_link_values(const struct ctx *ctx, struct out *o);

/*
 * Give nc (NCCL's model of ctx, or another, such as fit's --machine) what
 * a log says its run had, each unless its option was given: the tuning
 * of the NCCL version (m->nccl_version; --nccl-version), and the
 * NCCL_ALGO and NCCL_PROTO NCCL read (m->nccl_algo, m->nccl_proto;
 * --nccl-algo, --proto), as those variables restrict it; say each in
 * ctx's echo.
 */
struct meas;
struct errband;
void ctx_nccl_from_log(struct ctx *ctx, const struct meas *m, struct nccl_cost *nc);

/*
 * The NCCL version NCCL's model of ctx prices when no log says one: the
 * global --nccl-version, else the model's own (NCCL_PARAMS_DEFAULT_NAME).
 * ctx_nccl_say_default makes the echo of a system name it in the second
 * case too (plan and compare, whose numbers a reader holds side by side).
 */
const char *ctx_nccl_priced(const struct ctx *ctx);
void ctx_nccl_say_default(struct ctx *ctx);

/*
 * Write the figure as a gnuplot script (--plot) and/or render it (--render)
 * by running gnuplot without a shell, the script on its standard input.
 * Does nothing when neither option was given.  Dies (exit 1) when a file
 * cannot be written or gnuplot is missing or fails; the --plot script is
 * written first, so it stays even when rendering fails.  --size and
 * --title replace the figure's own size and title.
 */
void ctx_figure(const struct ctx *ctx, struct figure *f);

/*
 * A size as the size axes of figures write it, in binary units ("1.795
 * MiB", "4 KiB"), so a label reads in the units of the axis beside it.
 */
char *fig_size_text(char *buf, size_t len, double bytes);

/* "16 ranks (2 nodes of 8 GPUs)", "8 and 64 ranks" on a link: a title's who. */
void fig_ranks_text(const struct ctx *ctx, const struct dlist *ranks, char *buf, size_t len);

/*
 * A log y axis spanning less than a decade gets one tic or none: widen it
 * to powers of ten around the data of p's series, with room for the key.
 */
void fig_whole_decades(struct panel *p);

/*
 * The image a --plot script names in "set output" (--render's file, or
 * the script's name with .svg for .gp), as plot_output_name() makes it;
 * exits 2 when it holds a control character.  The caller frees it.
 */
char *ctx_script_image(const struct ctx *ctx);

/* 1 when --plot or --render asks for a figure: only then build one. */
int ctx_wants_figure(const struct ctx *ctx);

/*
 * The link's half-bandwidth size n½ (models/crossover.md): one transfer
 * (send/recv on 2 ranks) of ctx's link through the cost core, αβ for an
 * α-β link; NaN when the model cannot say.  (cli_cost.c)
 */
double ctx_link_n_half(const struct ctx *ctx);

/*
 * --explain: NCCL's choice for op on `ranks` ranks at `bytes` bytes, its
 * runners-up and the terms of its formula with their sources, as text
 * lines on o (the table format only).  algo restricts the choice as the
 * table's column does (as NCCL_ALGO would); ALGO_AUTO leaves it free.
 * Dies when the system cannot hold that many ranks.
 */
void ctx_explain(const struct ctx *ctx, struct out *o, enum coll_op op, enum coll_algo algo,
		 unsigned long ranks, double bytes);

/*
 * The stated error of a prediction (errband.h, src/cmd/cli_errband.c): the band
 * of NCCL's model for an all-reduce on `ranks` ranks of `bytes` bytes, NULL
 * when there is none to state (another model or collective, too few logs).
 * ctx_errband_cell adds the cell of such a prediction to *cells (a set of
 * errband_cell_bit); ctx_errband_table writes where the bands of those
 * cells come from, as the secondary table "stated_error" (human table and
 * JSON; nothing when cells is empty).
 */
const struct errband *ctx_errband(const struct ctx *ctx, enum coll_op op, unsigned long ranks,
				  double bytes);
int ctx_has_errband(const struct ctx *ctx, enum coll_op op);
void ctx_errband_cell(const struct ctx *ctx, enum coll_op op, unsigned long ranks, double bytes,
		      unsigned *cells);
void ctx_errband_table(const struct ctx *ctx, struct out *o, unsigned cells);

/*
 * "α = 5.00 µs, β = 200 GB/s" (and the preset's name) for figure titles;
 * on a system "dgx-h100 (nccl model)".
 */
char *ctx_link_text(const struct ctx *ctx, char *buf, size_t len);

/*
 * The crossover table (cmd_crossover, and below the all-reduce table):
 * for each rank count and each pair of algorithms (a before b in algos),
 * the size where they take equal time, or a note when one always wins.
 * secondary: 1 to keep it out of CSV.
 */
void write_crossovers(struct out *o, const struct ctx *ctx, enum coll_op op,
		      const struct dlist *ranks, const enum coll_algo *algos, int nalgo,
		      int secondary);

/*
 * The collective times of the training step (step, search): one
 * collective on a group of `ranks` ranks, per_node of them on one node, on
 * the machine the global options describe (a step_coll_fn; arg is the ctx).
 * A link runs its default algorithm for op (ring for all-reduce, all-gather
 * and reduce-scatter); a system lets its model choose the fastest.
 */
/*
 * The GPU a training command computes with: the gpu preset `name` when
 * given (--gpu), else the system's GPU, else the preset `fallback` (NULL:
 * none).  from is "option", "system" or "default".  Returns 1 with g
 * filled, 0 when there is none; dies (exit 1) on a preset that cannot be
 * read or is not a gpu.
 */
struct ctx_gpu {
	char name[64];
	double peak_flops;   /* FLOP/s: dense bf16 peak */
	double memory_B;     /* B */
	const char *from;
	enum gpu_arch arch;  /* ARCH_UNKNOWN when no preset */
	double power_w;      /* W: the board power as sold (gpu key power_w; 0: not given) */
	double family_share; /* sustained clock against its die family's reference
				(gpu key power_ref, gpu_family; 0: none) */
	char power_ref[PRESET_NAME_MAX + 1];  /* that reference ("" none) */
	double cap_share;    /* the clock's share under --power-cap (expect_power_share;
				0: no cap), set by ctx_gpu_as_rented */
	double host_link_Bps;  /* B/s: the link to host memory, one direction
				  (system_host_link_Bps) */
	int host_link_given;   /* 1: the preset's host_link; 0: the PCIe default */
	struct kernel_gpu kernel;   /* its kernel model (kernel.h); kernel.fp8_peak its
				       dense FP8 peak, 0 without FP8 */
};
int ctx_gpu(const struct ctx *ctx, const char *name, const char *fallback, struct ctx_gpu *g);

/*
 * The GPU as rented (step and search): --hbm-bandwidth hbm_Bps (> 0) in
 * place of the preset's, and --power-cap cap_w (> 0) as the clock share
 * expect_power_share gives against the preset's power_w, set in cs, with
 * the GPU's share against its family's reference (family_share).  Dies
 * (exit 1) when a cap is asked of a GPU whose preset gives no power_w.
 */
struct step_compute;
void ctx_gpu_as_rented(struct ctx_gpu *g, double cap_w, double hbm_Bps, struct step_compute *cs);

#endif
