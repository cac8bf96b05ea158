#ifndef COMMTIME_SERVE_CMD_H
#define COMMTIME_SERVE_CMD_H

/*
 * The parts of `commtime serve` in files of their own: cmd_serve.c parses
 * the options and writes the tables, serve_fig.c draws the figures.
 */
#include "cli.h"
#include "serve.h"

/* The link the KV cache crosses, with the name the output gives it. */
struct serve_link {
	struct link link;
	char name[128];
};

/*
 * The figure (--plot, --render): TPOT and its communication against the
 * TP size (every size that divides the heads and fits in the machine's
 * nodes), and the decode step's communication and TPOT against the batch
 * (1 to 1024), the layout and requests of p otherwise.
 */
void serve_figure(const struct ctx *ctx, const struct kernel_gpu *g, const struct workload *w,
		  const struct serve_params *p);

#endif
