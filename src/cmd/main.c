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
	{ "serve",     cmd_serve,     "serving: TTFT, TPOT, the collectives of prefill and decode" },
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

/*
 * "unknown command 'allredcue'; did you mean 'allreduce'?": the nearest
 * command by edit distance, when at most a third of the name (at least
 * 2) is wrong; then the help.
 */
static void S_unknown_command(const char *name) __attribute__((noreturn));
static void S_unknown_command(const char *name)
{
	size_t i, best = (size_t)-1, max = strlen(name) / 3 > 2 ? strlen(name) / 3 : 2;
	const char *near = NULL;

	for (i = 0; i < NCOMMANDS; i++) {
		size_t d = text_distance(name, commands[i].name);

		if (d < best) {
			best = d;
			near = commands[i].name;
		}
	}
	if (near && best <= max)
		die_usage("unknown command '%s'; did you mean '%s'? see 'commtime --help'", name, near);
	die_usage("unknown command '%s'; see 'commtime --help'", name);
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

/*
 * A --preset or --system that did not load as its kind: an unknown name
 * or a preset of another kind says which preset or option was meant
 * (ctx_preset_kind dies with it); any other error is eb's.
 */
static void say_unloaded(const struct ctx *ctx, const struct global_args *g, struct errbuf *eb)
{
	struct preset p;

	if (!strcmp(ctx->machine.unloaded, "--preset")) {
		ctx_preset_kind(ctx, "--preset", g->preset, "link", &p);
		preset_release(&p);
		return;
	}
	if (!strncmp(eb->msg, "unknown preset '", 16) ||
	    preset_load_kind(&ctx->dirs, g->system, "system", &p, eb) == 1) {
		ctx_preset_kind(ctx, "--system", g->system, "system", &p);
		preset_release(&p);
	}
}

/*
 * The machine of the global options (machine.h): the link, or the system
 * and its cost model; fit (fit: 1) takes NCCL's options for the system
 * of its --machine as well.  To add a machine key: a field of
 * struct machine_args, one line here, its step in machine.c.
 */
static void resolve_machine(struct ctx *ctx, const struct global_args *g, int fit)
{
	const struct machine_args a = {
		.alpha = g->alpha, .beta = g->beta, .gamma = g->gamma, .preset = g->preset,
		.system = g->system, .model = g->model,
		.gpus_per_node = g->gpus_per_node, .nics_per_node = g->nics_per_node,
		.intra = g->intra, .inter = g->inter, .topo = g->topo,
		.proto = g->proto, .nccl_algo = g->nccl_algo, .nccl_version = g->nccl_version,
		.gpus_per_process = g->gpus_per_process,
		.fit = fit,
	};
	struct errbuf eb;
	int r;

	opt_warn_bare("--alpha", Q_TIME, g->alpha);
	opt_warn_bare("--beta", Q_RATE, g->beta);
	preset_dirs_init(&ctx->dirs, g->presets_dir, build_presets());
	r = machine_resolve(&ctx->machine, &a, &ctx->dirs, &eb);
	if (r == MACHINE_USAGE)
		die_usage("%s", eb.msg);
	if (r < 0 && ctx->machine.unloaded)
		say_unloaded(ctx, g, &eb);
	if (r < 0)
		die("%s", eb.msg);
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
		"ddp", "zero", "step", "search", "compare", "tuner", "serve",
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

/*
 * What commtime answers with no command: -h/--help, the lists for the
 * completion scripts and the man page, --version.  1 when arg was one
 * of them (printed), else 0.
 */
static int S_no_command(const char *arg)
{
	size_t k;

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		print_main_usage(stdout);
	else if (!strcmp(arg, "--help-commands"))
		/* for the completion scripts: the commands, then the global options */
		for (k = 0; k < NCOMMANDS; k++)
			printf("%s\t%s\n", commands[k].name, commands[k].summary);
	else if (!strcmp(arg, "--help-complete"))
		opts_print_complete(stdout, global_options);
	else if (!strcmp(arg, "--help-roff"))
		opts_print_roff(stdout, global_options);
	else if (!strcmp(arg, "--version"))
		puts("commtime " COMMTIME_VERSION);
	else
		return 0;
	return 1;
}

/*
 * "help", "help COMMAND", "help help" at argv[*i]: 1 when it printed
 * (the caller is done), 0 with *cmd set and *i past it for "help COMMAND".
 */
static int S_help(int argc, char **argv, int *i, const struct command **cmd)
{
	if (*i + 1 < argc && !strcmp(argv[*i + 1], "help")) {
		/* help on help: what it does, then the commands */
		printf("commtime help COMMAND: the options of COMMAND, as "
		       "'commtime COMMAND --help' prints them;\n"
		       "commtime help: the commands and the global options.\n\n");
		print_main_usage(stdout);
		return 1;
	}
	if (*i + 1 < argc && argv[*i + 1][0] != '-') {
		*cmd = find_command(argv[*i + 1]);
		if (!*cmd)
			S_unknown_command(argv[*i + 1]);
		*i += 2;
		return 0;
	}
	print_main_usage(stdout);
	return 1;
}

/*
 * A command's own option under the name of a global one: after the word
 * "serve", --output is the output length design.md pins (serve --output
 * N); -o FILE still names the output file there.
 */
static int S_shadowed(const struct command *cmd, const char *arg)
{
	return cmd && !strcmp(cmd->name, "serve") &&
	       (!strcmp(arg, "--output") || !strncmp(arg, "--output=", 9));
}

/*
 * Global options may stand before or after the command name; pull them
 * out and keep the rest, in order, for the command (rest[1..*nrest]).
 * After "--" everything belongs to the command.  Returns the command
 * (the default one when none is named), or NULL when a help or version
 * answer was printed and nothing is left to run.
 */
static const struct command *S_args(int argc, char **argv, char **rest, int *nrest)
{
	const struct command *cmd = NULL;
	int i = 1, want_help = 0;

	while (i < argc) {
		if (!strcmp(argv[i], "--")) {
			while (i < argc)
				rest[1 + (*nrest)++] = argv[i++];
			break;
		}
		if (S_shadowed(cmd, argv[i])) {
			int joined = strchr(argv[i], '=') != NULL;

			rest[1 + (*nrest)++] = argv[i++];
			if (!joined && i < argc)
				rest[1 + (*nrest)++] = argv[i++];
			continue;
		}
		if (opts_take(global_options, argc, argv, &i, NULL))
			continue;
		if (!cmd && argv[i][0] != '-') {
			if (!strcmp(argv[i], "help")) {
				if (S_help(argc, argv, &i, &cmd))
					return NULL;
				want_help = 1;
				continue;
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
			if (!(*nrest > 0 && rest[*nrest][0] == '-' && !strchr(rest[*nrest], '=')))
				S_unknown_command(argv[i]);
		}
		if (!cmd && S_no_command(argv[i]))
			return NULL;
		rest[1 + (*nrest)++] = argv[i++];
	}
	if (!cmd)
		cmd = &commands[0];
	if (want_help)
		rest[1 + (*nrest)++] = "--help";
	rest[0] = (char *)cmd->name;
	rest[1 + *nrest] = NULL;
	return cmd;
}

/* A name ending in suffix (".csv"). */
static int S_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

/* The output options: format, -o, the time unit, the figure's files and size. */
static void S_outputs(struct ctx *ctx, const struct global_args *g)
{
	struct errbuf eb;

	if (g->format && out_format_parse(g->format, &ctx->format, &eb) < 0)
		die_usage("--format: %s", eb.msg);
	ctx->output = g->output;
	/* "-o expected.csv" with no --format means CSV; likewise .json. */
	if (!g->format && ctx->output)
		ctx->format = S_ends(ctx->output, ".csv") ? FMT_CSV :
			      S_ends(ctx->output, ".json") ? FMT_JSON : ctx->format;
	/* "-o fig.png" would write the text table into an image file. */
	if (ctx->output && plot_terminal_for(ctx->output))
		die_usage("-o: '%s' names an image, and -o writes the table; "
			  "draw the figure with --render %s", ctx->output, ctx->output);
	if (ctx->output && S_ends(ctx->output, ".gp"))
		die_usage("-o: '%s' names a gnuplot script, and -o writes the table; "
			  "write the script with --plot %s", ctx->output, ctx->output);
	if (g->time_unit && !time_unit_known(g->time_unit))
		die_usage("--time-unit: unknown unit '%s' (choose from auto, ns, us, ms, s)",
			  g->time_unit);
	ctx->time_unit = g->time_unit && strcmp(g->time_unit, "auto") ? g->time_unit : NULL;
	ctx->plot = g->plot;
	ctx->render = g->render;
	if (g->size) {
		char *end;
		long w = strtol(g->size, &end, 10), h = 0;

		if (*end == 'x')
			h = strtol(end + 1, &end, 10);
		if (*end || w < 100 || h < 100 || w > 10000 || h > 10000)
			die_usage("--size: want WIDTHxHEIGHT in pixels, 100 to 10000 each, got '%s'",
				  g->size);
		ctx->fig_width = (int)w;
		ctx->fig_height = (int)h;
	}
	ctx->fig_title = g->title;
	if ((g->size || g->title) && !ctx->plot && !ctx->render)
		die_usage("%s: only with --plot or --render", g->size ? "--size" : "--title");
	if (ctx->render && !plot_terminal_for(ctx->render))
		die_usage("--render: cannot tell the image format of '%s' "
			  "(use a name ending in .png, .svg or .pdf)", ctx->render);
	{
		const char *paths[] = { ctx->output, ctx->plot, ctx->render };
		static const char *const opts[] = { "-o", "--plot", "--render" };

		outputs_distinct(paths, opts, 3);
	}
	/* A script that cannot name its image is refused before any work. */
	if (ctx->plot)
		free(ctx_script_image(ctx));
}

/* A link or system option given to a command that computes no communication time. */
static void S_no_link(const struct command *cmd, char **rest, int nrest)
{
	const struct opt *o;
	int help = 0, k, tagged = 0;

	if (uses_link(cmd->name))
		return;
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

int main(int argc, char **argv)
{
	const struct global_args *g = &global_args;
	const struct command *cmd;
	struct ctx ctx;
	char **rest;
	int nrest = 0, status;

	memset(&ctx, 0, sizeof(ctx));
	rest = xmalloc(sizeof(*rest) * ((size_t)argc + 2));
	cmd = S_args(argc, argv, rest, &nrest);
	if (!cmd) {
		free(rest);
		return finish_stdout(0);
	}
	S_outputs(&ctx, g);
	S_no_link(cmd, rest, nrest);
	resolve_machine(&ctx, g, !strcmp(cmd->name, "fit"));
	if (ctx.machine.have_system && !system_ready(cmd->name))
		die_usage("%s: not available on a system yet; describe one link with "
			  "--preset, --alpha and --beta", cmd->name);

	status = cmd->fn(1 + nrest, rest, &ctx);

	machine_release(&ctx.machine);
	preset_dirs_release(&ctx.dirs);
	free(rest);
	return finish_stdout(status);
}
