/*
 * commtime crossover: for each rank count, the message size where two
 * all-reduce algorithms take equal time (GSL's Brent solver on the
 * difference of their costs), or which one wins at every size.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char usage[] =
	"usage: commtime [global options] crossover [options]\n"
	"\n"
	"For each rank count, the message size where two all-reduce algorithms take\n"
	"equal time, searched over [1 B, 1 PiB]; where one algorithm is faster at\n"
	"every size, says so instead of inventing a number.\n"
	"\n"
	"  --ranks LIST   rank counts (default 2:1024:x2)\n"
	"  --algo A,B     the algorithms to compare (default ring,tree); with more\n"
	"                 than two, every pair\n"
	"  -h, --help     show this help\n";

static const struct option options[] = {
	{ "ranks", required_argument, NULL, 'r' },
	{ "algo", required_argument, NULL, 'a' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int cmd_crossover(int argc, char **argv, struct ctx *ctx)
{
	struct dlist ranks = { 0 };
	enum ar_algo algos[AR_COUNT] = { AR_RING, AR_TREE };
	int nalgo = 2, c;
	struct errbuf eb;
	struct out *o;

	opt_ranks("--ranks", "2:1024:x2", &ranks, 1);
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 'r':
			opt_ranks("--ranks", optarg, &ranks, 1);
			break;
		case 'a':
			nalgo = ar_algo_parse_list(optarg, algos, &eb);
			if (nalgo < 0)
				die_usage("--algo: %s", eb.msg);
			if (nalgo < 2)
				die_usage("--algo: need two algorithms to compare, got '%s'", optarg);
			break;
		case 'h':
			usage_exit(usage, 0);
		default:
			usage_exit(usage, EXIT_USAGE);
		}
	}
	no_more_args(argc, argv, optind, usage);

	o = ctx_out_open(ctx);
	ctx_echo_link(ctx, o);
	out_input(o, "n_half_B", "half-bandwidth size n\xc2\xbd = alpha*beta",
		  ctx->link.alpha * ctx->link.beta, H_SIZE, 4,
		  "below it one link is latency-bound");
	write_crossovers(o, ctx, &ranks, algos, nalgo, 0);
	ctx_out_close(ctx, o);
	dlist_release(&ranks);
	return 0;
}
