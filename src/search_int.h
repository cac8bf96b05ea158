/*
 * Inside the search (src/search.c walks one layout; src/search_run.c
 * splits the space into layouts, walks them on as many threads as the
 * machine has and joins what they found in the order of the walk).
 */
#ifndef COMMTIME_SEARCH_INT_H
#define COMMTIME_SEARCH_INT_H

#include <stddef.h>

#include "step.h"

struct search_space;
struct search_result;

/* One layout of the walk: t·p of N GPUs; the rest is walked below it. */
struct search_unit {
	double N, t, p;
};

/* What one walker keeps across its layouts: the collectives' prices and
 * the layers' kernels (step_run_memo). */
struct search_memo {
	const struct cost_model *m;
	struct step_memo prices;
};

/* The layouts of N GPUs in the order of the walk, at most cap of them
 * into u; returns how many there are. */
size_t search_units(const struct search_space *sp, double N, struct search_unit *u, size_t cap);

/* Every configuration of one layout into r (its fitting candidates in the
 * order found, the refused counted by reason).  -1 on a model error. */
int search_walk(const struct search_space *sp, const struct search_unit *un,
		const struct step_compute *cs, struct search_memo *memo, struct search_result *r,
		struct errbuf *eb);

/* n configurations refused with message msg, into its group of r. */
void search_refused(struct search_result *r, const char *msg, size_t n);

#endif
