/*
 * The figure of commtime search (--plot): cost against step time across
 * GPU counts, memory against step time, and why the best wins, term by
 * term (models/search.md).
 */
#ifndef COMMTIME_SEARCH_FIG_H
#define COMMTIME_SEARCH_FIG_H

#include <stddef.h>

#include "cli.h"
#include "search.h"

void search_figure(const struct ctx *ctx, const struct workload *w, const struct search_result *r,
		   const struct dlist *gpus, double price, double gpu_memory, size_t named,
		   const struct search_space *sp, const struct step_compute *cs);

#endif
