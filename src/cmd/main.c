/*
 * commtime: predict the communication cost of distributed training from
 * the α-β model.  main() parses the global options wherever they stand,
 * resolves the link (defaults, --preset, --alpha/--beta) and hands the
 * rest of the command line to one command from the table below.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct ctx *ctx);
	const char *summary;
};

/* See cli.h for how to add a command. */
static const struct command commands[] = {
	{ "allreduce", cmd_allreduce, "time of one all-reduce per rank count, size and algorithm (default)" },
	{ "allgather", cmd_allgather, "time of one all-gather (size: the whole output buffer)" },
	{ "reducescatter", cmd_reducescatter, "time of one reduce-scatter (size: the whole input buffer)" },
	{ "alltoall",  cmd_alltoall,  "time of one all-to-all (size: one rank's send buffer)" },
	{ "broadcast", cmd_broadcast, "time of one broadcast" },
	{ "reduce",    cmd_reduce,    "time of one reduce" },
	{ "sendrecv",  cmd_sendrecv,  "time of one send/recv between neighbouring ranks" },
	{ "crossover", cmd_crossover, "message size where two algorithms take equal time" },
	{ "ddp",       cmd_ddp,       "gradient all-reduce per step and its share of the step" },
	{ "zero",      cmd_zero,      "ZeRO stage 0-3 memory per rank, volume and time per step" },
	{ "pipeline",  cmd_pipeline,  "pipeline bubble of GPipe, 1F1B and interleaved schedules" },
	{ "speedup",   cmd_speedup,   "speedup N/(1+a(N-1)) and efficiency; fit a from measurements" },
	{ "fit",       cmd_fit,       "fit alpha and beta to nccl-tests logs or CSV measurements" },
	{ "compare",   cmd_compare,   "compare measurements with the prediction" },
	{ "plan",      cmd_plan,      "expected results of the runs that start a GPU rental" },
	{ "step",      cmd_step,      "one training step: every collective, step time, memory per GPU" },
	{ "search",    cmd_search,    "parallel configurations that fit, fastest first, priced" },
	{ "tuner",     cmd_tuner,     "the CSV of NCCL's example tuner plugin, from logs or a system" },
	{ "presets",   cmd_presets,   "list link and workload presets, or show one" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char main_usage_head[] =
	"usage: commtime [global options] [command] [command options]\n"
	"\n"
	"Predicts the time of collective communication in distributed training\n"
	"from the alpha-beta model: alpha, the fixed cost of one step (s), and\n"
	"beta, the bandwidth of one link direction (bytes/s).\n"
	"\n"
	"commands:\n";

static const char main_usage_tail[] =
	"\n"
	"'commtime help COMMAND' or 'commtime COMMAND --help' shows a command's options.\n"
	"Units: times 5us 0.005ms; sizes 4K=4KiB=4096, 4KB=4000; rates 200GB/s 400Gbps.\n";

static void print_main_usage(FILE *f)
{
	size_t i;

	fputs(main_usage_head, f);
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("  help       show this text, or a command's options\n\n", f);
	opts_print_help(f, global_options);
	fputs(main_usage_tail, f);
}

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/*
 * The presets of the tree this binary was built in: "DIR/presets" when
 * the running binary is DIR/commtime and DIR/presets exists, so a binary
 * that was never installed finds its presets from any directory.
 */
static const char *build_presets(void)
{
	static char path[4096];
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - sizeof("/presets"));
	char *slash;

	if (n <= 0)
		return NULL;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	strcpy(slash, "/presets");
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return path;
}

static void resolve_link(struct ctx *ctx, const struct global_args *g)
{
	struct errbuf eb;

	ctx->model.link.alpha = DEFAULT_ALPHA;
	ctx->model.link.beta = DEFAULT_BETA;
	ctx->model.link.gamma = 0;
	ctx->alpha_src = ctx->beta_src = ctx->gamma_src = "default";
	preset_dirs_init(&ctx->dirs, g->presets_dir, build_presets());

	if (g->preset) {
		if (preset_load(&ctx->dirs, g->preset, &ctx->preset, &eb) < 0)
			die("%s", eb.msg);
		if (preset_link(&ctx->preset, &ctx->model.link, &eb) < 0)
			die("%s", eb.msg);
		ctx->have_preset = 1;
		/* A preset written by 'fit' holds regimes: they predict. */
		ctx->have_fit = fit_model_from_preset(&ctx->preset, &ctx->fit, &eb);
		if (ctx->have_fit < 0)
			die("%s", eb.msg);
		ctx->alpha_src = ctx->beta_src = "preset";
		if (preset_get(&ctx->preset, "gamma"))
			ctx->gamma_src = "preset";
		ctx->link_given = 1;
	}
	if (g->alpha) {
		ctx->model.link.alpha = opt_quantity_range("--alpha", Q_TIME, g->alpha, 0, LINK_ALPHA_MAX);
		ctx->alpha_src = "option";
		ctx->link_given = 1;
	}
	if (g->beta) {
		ctx->model.link.beta = opt_quantity_range("--beta", Q_RATE, g->beta, BETA_MIN, LINK_BETA_MAX);
		if (ctx->model.link.beta <= 0)
			die_usage("--beta: bandwidth must be positive, got '%s'", g->beta);
		ctx->beta_src = "option";
		ctx->link_given = 1;
	}
	if (g->gamma) {
		/* γ is a time per byte; written as a plain number of s/B. */
		ctx->model.link.gamma = opt_quantity_range("--gamma", Q_NUMBER, g->gamma, 0, LINK_GAMMA_MAX);
		ctx->gamma_src = "option";
	}
}

/*
 * The machine as a system: --system, then the overrides on top of it (or,
 * without --system, a system made of the overrides alone, which then need
 * --gpus-per-node and --intra).  The cost model is --model, by default
 * COST_SYSTEM_DEFAULT.  --nccl-algo and --proto restrict NCCL's model as
 * NCCL_ALGO and NCCL_PROTO do; fit (fit: 1) takes --nccl-algo for the
 * system of its --machine as well.
 */
static void resolve_system(struct ctx *ctx, const struct global_args *g, int fit)
{
	struct system *s = &ctx->system;
	enum cost_kind kind = COST_SYSTEM_DEFAULT;
	struct errbuf eb;
	double x;

	ctx->nccl_algo_mask = ~0u;
	ctx->nccl_algo = g->nccl_algo;
	ctx->nccl_proto = g->proto;
	ctx->nccl_params = nccl_params_default;
	ctx->nccl_version = g->nccl_version;
	if (g->nccl_version && nccl_params_version(g->nccl_version, &ctx->nccl_params, &eb) < 0)
		die_usage("--nccl-version: %s", eb.msg);
	/* They are written back into plan's run lines: keep them short. */
	if (g->nccl_algo && strlen(g->nccl_algo) > NCCL_LIST_MAX)
		die_usage("--nccl-algo: longer than %d characters", NCCL_LIST_MAX);
	if (g->proto && strlen(g->proto) > NCCL_LIST_MAX)
		die_usage("--proto: longer than %d characters", NCCL_LIST_MAX);
	if (g->nccl_algo && nccl_algo_mask(g->nccl_algo, &ctx->nccl_algo_mask, &eb) < 0)
		die_usage("--nccl-algo: %s", eb.msg);
	if (!g->system && !g->gpus_per_node && !g->nics_per_node &&
	    !g->intra && !g->inter && !g->topo) {
		if (g->model)
			die_usage("--model: needs a system (--system NAME|FILE)");
		if (g->proto && !fit)
			die_usage("--proto: needs a system (--system NAME|FILE) and NCCL's model, "
				  "or fit --machine");
		if (g->nccl_algo && !fit)
			die_usage("--nccl-algo: needs a system (--system NAME|FILE) and NCCL's "
				  "model, or fit --machine");
		if (g->nccl_version && !fit)
			die_usage("--nccl-version: needs a system (--system NAME|FILE) and NCCL's "
				  "model, or fit --machine");
		if (g->gpus_per_process && !fit)
			die_usage("--gpus-per-process: needs a system (--system NAME|FILE) and "
				  "NCCL's model, or fit --machine");
		if (ctx->have_fit)
			fit_cost_init(&ctx->model, &ctx->fit, &ctx->model.link);
		else
			cost_model_link(&ctx->model, &ctx->model.link);
		return;
	}
	if (g->preset || g->alpha || g->beta)
		die_usage("--system and its options describe the machine; --preset, --alpha "
			  "and --beta describe one link: give one or the other");
	if (g->gamma)
		die_usage("--gamma: the reduction cost is modelled on a single link only, "
			  "not on a system");
	if (g->system) {
		if (system_load(&ctx->dirs, g->system, s, &eb) < 0)
			die("%s", eb.msg);
	} else {
		if ((!g->gpus_per_node && !g->topo) || !g->intra)
			die_usage("a system without --system needs at least --intra and "
				  "--gpus-per-node (or --topo)");
		*s = (struct system){ .name = xstrdup("custom"),
				      .description = xstrdup("from the command line"),
				      .p2p = 1, .pcie_path = PCIE_PIX, .nic_path = PCIE_PIX,
				      .cpu = CPU_INTEL,
				      .price_per_gpu_hour = NAN };
	}
	if (g->gpus_per_node) {
		x = opt_quantity_range("--gpus-per-node", Q_COUNT, g->gpus_per_node, 1, 1e6);
		s->gpus_per_node = (unsigned long)x;
		s->given |= SYS_GIVEN_GPN;
	}
	if (g->nics_per_node)
		s->given |= SYS_GIVEN_NICS;

	if (g->nics_per_node) {
		x = opt_quantity_range("--nics-per-node", Q_COUNT, g->nics_per_node, 0, 1024);
		s->nics_per_node = (unsigned)x;
		s->nics_line = 0;
		free(s->path);
		s->path = NULL;
	}
	if (g->intra) {
		free(s->intra.name);
		if (tier_load(&ctx->dirs, g->intra, NULL, &s->intra, &eb) < 0)
			die("--intra: %s", eb.msg);
	}
	if (g->inter) {
		free(s->inter.name);
		if (tier_load(&ctx->dirs, g->inter, NULL, &s->inter, &eb) < 0)
			die("--inter: %s", eb.msg);
		s->have_inter = 1;
		if (!s->nics_per_node && !g->nics_per_node && !g->topo)
			die_usage("--inter: say how many such ports a node has with --nics-per-node");
	}
	if (g->topo && system_set_topo(s, g->topo, &eb) < 0)
		die("--topo: %s", eb.msg);
	if (s->nics_per_node && !s->have_inter)
		die_usage("--nics-per-node: the NICs need a link preset, --inter LINK");
	if (g->model && cost_kind_lookup(g->model, &kind, &eb) < 0)
		die_usage("--model: %s", eb.msg);
	/* A calibrated system asks for the model its values belong to. */
	if (!g->model && s->model == SYSTEM_MODEL_TIERS)
		kind = COST_TIERS;
	ctx->have_system = 1;
	switch (kind) {
	case COST_TIERS:
		cost_model_tiers(&ctx->model, s);
		break;
	case COST_NCCL:
	default: {
		unsigned protos = ~0u;
		if (g->proto && nccl_proto_mask(g->proto, &protos, &eb) < 0)
			die_usage("--proto: %s", eb.msg);
		if (nccl_cost_init(&ctx->nccl, &ctx->model, s, ctx->nccl_algo_mask, protos, &eb) < 0)
			die("%s", eb.msg);
		ctx->nccl.params = ctx->nccl_params;
		if (g->gpus_per_process) {
			static char said[48];
			x = opt_quantity_range("--gpus-per-process", Q_COUNT, g->gpus_per_process,
					       1, 1024);
			ctx->nccl.gpus_per_process = (unsigned)x;
			snprintf(said, sizeof(said), "%u", ctx->nccl.gpus_per_process);
			ctx->gpus_per_process = said;
		}
		break;
	}
	}
	if (g->proto && ctx->model.kind != COST_NCCL)
		die_usage("--proto: protocols belong to NCCL's model (--model nccl)");
	if (g->nccl_algo && ctx->model.kind != COST_NCCL)
		die_usage("--nccl-algo: NCCL's algorithms belong to NCCL's model (--model nccl)");
	if (g->nccl_version && ctx->model.kind != COST_NCCL)
		die_usage("--nccl-version: belongs to NCCL's model (--model nccl)");
	if (g->gpus_per_process && ctx->model.kind != COST_NCCL)
		die_usage("--gpus-per-process: belongs to NCCL's model (--model nccl)");
}

/*
 * Commands that compute no communication time: a link or system given to
 * them would be ignored, so it is refused (their --help leaves it out).
 */
static int uses_link(const char *name)
{
	return strcmp(name, "pipeline") && strcmp(name, "speedup");
}

/* Commands that ask the cost model (not only the link) and so run on a system. */
static int system_ready(const char *name)
{
	static const char *const ready[] = {
		"presets", "pipeline", "speedup", "fit", "allreduce", "allgather", "plan",
		"reducescatter", "alltoall", "broadcast", "reduce", "sendrecv", "crossover",
		"ddp", "zero", "step", "search", "compare", "tuner",
	};
	size_t i;

	for (i = 0; i < sizeof(ready) / sizeof(ready[0]); i++)
		if (!strcmp(name, ready[i]))
			return 1;
	return 0;
}

static int finish_stdout(int status)
{
	/*
	 * A write error on stdout (a full disk, a closed pipe) is a failure;
	 * closing a stdout that was closed from the start (>&-) and never
	 * written to is not: -o FILE did all the writing.
	 */
	if (fflush(stdout) || ferror(stdout) || (fclose(stdout) && errno != EBADF)) {
		if (status == 0) {
			fprintf(stderr, "commtime: error: cannot write standard output: %s\n",
				strerror(errno ? errno : EIO));
			return EXIT_DATA;
		}
	}
	return status;
}

int main(int argc, char **argv)
{
	const struct global_args *g = &global_args;
	const struct command *cmd = NULL;
	struct ctx ctx;
	char **rest;
	int nrest = 0, i = 1, status, want_help = 0;
	struct errbuf eb;

	memset(&ctx, 0, sizeof(ctx));
	rest = xmalloc(sizeof(*rest) * ((size_t)argc + 2));

	/*
	 * Global options may stand before or after the command name; pull
	 * them out and keep the rest, in order, for the command.  After "--"
	 * everything belongs to the command.
	 */
	while (i < argc) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				rest[1 + nrest++] = argv[i++];
			break;
		}
		if (opts_take(global_options, argc, argv, &i, NULL))
			continue;
		if (!cmd && argv[i][0] != '-') {
			if (!strcmp(argv[i], "help")) {
				if (i + 1 < argc && argv[i + 1][0] != '-') {
					cmd = find_command(argv[i + 1]);
					if (!cmd)
						die_usage("unknown command '%s'; see 'commtime --help'", argv[i + 1]);
					want_help = 1;
					i += 2;
					continue;
				}
				print_main_usage(stdout);
				free(rest);
				return finish_stdout(0);
			}
			cmd = find_command(argv[i]);
			if (cmd) {
				i++;
				continue;
			}
			/*
			 * "commtime --ranks 8" runs the default command: a word
			 * after one of its options is that option's value.
			 */
			if (!(nrest > 0 && rest[nrest][0] == '-' && !strchr(rest[nrest], '=')))
				die_usage("unknown command '%s'; see 'commtime --help'", argv[i]);
		}
		if (!cmd && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
			print_main_usage(stdout);
			free(rest);
			return finish_stdout(0);
		}
		/* for the completion scripts: the commands, then the global options */
		if (!cmd && !strcmp(argv[i], "--help-commands")) {
			size_t k;

			for (k = 0; k < NCOMMANDS; k++)
				printf("%s\t%s\n", commands[k].name, commands[k].summary);
			free(rest);
			return finish_stdout(0);
		}
		if (!cmd && !strcmp(argv[i], "--help-complete")) {
			opts_print_complete(stdout, global_options);
			free(rest);
			return finish_stdout(0);
		}
		if (!cmd && !strcmp(argv[i], "--help-roff")) {
			opts_print_roff(stdout, global_options);
			free(rest);
			return finish_stdout(0);
		}
		if (!cmd && !strcmp(argv[i], "--version")) {
			puts("commtime " COMMTIME_VERSION);
			free(rest);
			return finish_stdout(0);
		}
		rest[1 + nrest++] = argv[i++];
	}
	if (!cmd)
		cmd = &commands[0];
	if (want_help)
		rest[1 + nrest++] = "--help";
	rest[0] = (char *)cmd->name;
	rest[1 + nrest] = NULL;

	if (g->format && out_format_parse(g->format, &ctx.format, &eb) < 0)
		die_usage("--format: %s", eb.msg);
	ctx.output = g->output;
	/* "-o expected.csv" with no --format means CSV; likewise .json. */
	if (!g->format && ctx.output) {
		size_t n = strlen(ctx.output);

		if (n > 4 && !strcmp(ctx.output + n - 4, ".csv"))
			ctx.format = FMT_CSV;
		else if (n > 5 && !strcmp(ctx.output + n - 5, ".json"))
			ctx.format = FMT_JSON;
	}
	/* "-o fig.png" would write the text table into an image file. */
	if (ctx.output && plot_terminal_for(ctx.output))
		die_usage("-o: '%s' names an image, and -o writes the table; "
			  "draw the figure with --render %s", ctx.output, ctx.output);
	if (ctx.output) {
		size_t n = strlen(ctx.output);

		if (n > 3 && !strcmp(ctx.output + n - 3, ".gp"))
			die_usage("-o: '%s' names a gnuplot script, and -o writes the table; "
				  "write the script with --plot %s", ctx.output, ctx.output);
	}
	if (g->time_unit && !time_unit_known(g->time_unit))
		die_usage("--time-unit: unknown unit '%s' (choose from auto, ns, us, ms, s)",
			  g->time_unit);
	ctx.time_unit = g->time_unit && strcmp(g->time_unit, "auto") ? g->time_unit : NULL;
	ctx.plot = g->plot;
	ctx.render = g->render;
	if (g->size) {
		char *end;
		long w = strtol(g->size, &end, 10), h = 0;

		if (*end == 'x')
			h = strtol(end + 1, &end, 10);
		if (*end || w < 100 || h < 100 || w > 10000 || h > 10000)
			die_usage("--size: want WIDTHxHEIGHT in pixels, 100 to 10000 each, got '%s'",
				  g->size);
		ctx.fig_width = (int)w;
		ctx.fig_height = (int)h;
	}
	ctx.fig_title = g->title;
	if ((g->size || g->title) && !ctx.plot && !ctx.render)
		die_usage("%s: only with --plot or --render", g->size ? "--size" : "--title");
	if (ctx.render && !plot_terminal_for(ctx.render))
		die_usage("--render: cannot tell the image format of '%s' "
			  "(use a name ending in .png, .svg or .pdf)", ctx.render);
	{
		const char *paths[] = { ctx.output, ctx.plot, ctx.render };
		static const char *const opts[] = { "-o", "--plot", "--render" };

		outputs_distinct(paths, opts, 3);
	}
	/* A script that cannot name its image is refused before any work. */
	if (ctx.plot)
		free(ctx_script_image(&ctx));
	if (!uses_link(cmd->name)) {
		const struct opt *o;
		int help = 0, k, tagged = 0;

		for (k = 1; k <= nrest; k++)
			help |= !strcmp(rest[k], "-h") || !strcmp(rest[k], "--help");
		for (o = global_options; o->type != OPT_END && !help; o++) {
			if (o->type == OPT_GROUP)
				tagged = (o->tag & OPT_TAG_LINK) != 0;
			/* the search path harms nothing; the link itself would be ignored */
			else if (tagged && o->given && strcmp(o->long_name, "presets-dir"))
				die_usage("--%s: '%s' computes no communication time and uses no "
					  "link or system", o->long_name, cmd->name);
		}
	}
	resolve_link(&ctx, g);
	resolve_system(&ctx, g, !strcmp(cmd->name, "fit"));
	if (ctx.have_system && !system_ready(cmd->name))
		die_usage("%s: not available on a system yet; describe one link with "
			  "--preset, --alpha and --beta", cmd->name);

	opt_model = ctx.have_system ? &ctx.model : NULL;
	status = cmd->fn(1 + nrest, rest, &ctx);

	if (ctx.have_preset)
		preset_release(&ctx.preset);
	if (ctx.have_system)
		system_release(&ctx.system);
	preset_dirs_release(&ctx.dirs);
	free(rest);
	return finish_stdout(status);
}
