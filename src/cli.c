/*
 * Helpers the commands share: option values, output, the echo of inputs.
 * Like the commands, this file talks to the user and may exit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

const char global_usage[] =
	"global options (before or after the command):\n"
	"  --alpha TIME         latency of one step (default 5us)\n"
	"  --beta RATE          bandwidth of one link direction (default 200GB/s)\n"
	"  --gamma X            reduction cost in seconds per byte (default 0)\n"
	"  --preset NAME|FILE   link preset; --alpha/--beta override its values\n"
	"  --presets-dir DIR    search DIR first for presets\n"
	"  --format FMT         table (default), csv or json\n"
	"  -o, --output FILE    write to FILE (atomically) instead of stdout\n"
	"  --plot FILE.gp       also write a self-contained gnuplot script\n"
	"  --render FILE        also render the figure (.png, .svg or .pdf) with gnuplot\n";

void usage_exit(const char *usage, int status)
{
	FILE *f = status ? stderr : stdout;

	fputs(usage, f);
	fputc('\n', f);
	fputs(global_usage, f);
	if (!status) {
		fflush(stdout);
		if (ferror(stdout)) {
			fputs("commtime: error: cannot write standard output\n", stderr);
			exit(EXIT_DATA);
		}
	}
	exit(status);
}

double opt_quantity(const char *opt, enum quantity q, const char *arg)
{
	struct errbuf eb;
	double x;

	if (units_parse(q, arg, &x, &eb) < 0)
		die_usage("%s: %s", opt, eb.msg);
	return x;
}

double opt_quantity_range(const char *opt, enum quantity q, const char *arg,
			  double lo, double hi)
{
	double x = opt_quantity(opt, q, arg);

	if (x < lo || x > hi)
		die_usage("%s: '%s' is out of range [%g, %g]", opt, arg, lo, hi);
	return x;
}

void opt_list(const char *opt, enum quantity q, const char *arg, struct dlist *l)
{
	struct errbuf eb;

	dlist_release(l);
	if (units_parse_list(q, arg, l, &eb) < 0)
		die_usage("%s: %s", opt, eb.msg);
}

void opt_ranks(const char *opt, const char *arg, struct dlist *l, unsigned long min)
{
	size_t i;

	opt_list(opt, Q_COUNT, arg, l);
	for (i = 0; i < l->n; i++) {
		if (l->v[i] < (double)min)
			die_usage("%s: rank count %.17g in '%s' is below %lu", opt,
				  l->v[i], arg, min);
		if (l->v[i] > (double)RANKS_MAX)
			die_usage("%s: rank count %.17g in '%s' is above the limit %lu",
				  opt, l->v[i], arg, RANKS_MAX);
	}
}

void no_more_args(int argc, char **argv, int optind_, const char *usage)
{
	if (optind_ < argc) {
		fprintf(stderr, "commtime: error: unexpected argument '%s'\n", argv[optind_]);
		usage_exit(usage, EXIT_USAGE);
	}
}

struct out *ctx_out_open(const struct ctx *ctx)
{
	struct errbuf eb;
	struct out *o = out_open(ctx->format, ctx->output, &eb);

	if (!o)
		die("%s", eb.msg);
	return o;
}

void ctx_out_close(const struct ctx *ctx, struct out *o)
{
	struct errbuf eb;

	if (out_close(o, &eb) < 0)
		die("%s", eb.msg);
}

void ctx_echo_link(const struct ctx *ctx, struct out *o)
{
	const char *pname = ctx->have_preset ? ctx->preset.name : NULL;
	char note[160];

	if (pname)
		out_input_str(o, "preset", "preset", pname);
	snprintf(note, sizeof(note), "%s", !strcmp(ctx->alpha_src, "preset") && pname ?
		 "from the preset" : !strcmp(ctx->alpha_src, "default") ?
		 "default; set with --alpha or --preset" : "");
	out_input(o, "alpha_s", "alpha", ctx->link.alpha, H_TIME, 3, note[0] ? note : NULL);
	snprintf(note, sizeof(note), "%s", !strcmp(ctx->beta_src, "preset") && pname ?
		 "from the preset" : !strcmp(ctx->beta_src, "default") ?
		 "default; set with --beta or --preset" : "");
	out_input(o, "beta_Bps", "beta", ctx->link.beta, H_RATE, 4, note[0] ? note : NULL);
	if (ctx->link.gamma > 0)
		out_input(o, "gamma_sPerB", "gamma", ctx->link.gamma, H_PLAIN, 4, "s/B");
}
