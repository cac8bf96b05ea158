#ifndef COMMTIME_TRACE_SPILL_H
#define COMMTIME_TRACE_SPILL_H

#include <stdio.h>
#include "util.h"

/*
 * Fixed-size records sorted in bounded memory: an external merge sort.
 * Records are gathered in a buffer of SPILL_BUF_RECS; a full buffer is
 * sorted and written to an unlinked temporary file (a run); reading back
 * merges the runs.  So sorting the kernels of a trace of any size needs
 * SPILL_BUF_RECS records of memory plus one stdio buffer per run.
 */
#define SPILL_BUF_RECS (1u << 18)

struct spill {
	size_t recsz;
	int (*cmp)(const void *, const void *);
	char *buf;
	size_t n, cap;
	FILE **runs;
	char *heads;        /* the next record of each run */
	int *live;          /* 1: heads[i] holds one */
	size_t nruns;
	size_t pos;         /* reading a buffer never spilled: next index */
	int reading;
	double count;       /* records added */
};

void spill_init(struct spill *s, size_t recsz, int (*cmp)(const void *, const void *));
/* Add one record (copied).  0, or -1 with eb (the temporary file). */
int spill_add(struct spill *s, const void *rec, struct errbuf *eb);
/* Switch to reading in sorted order.  0, or -1 with eb. */
int spill_sort(struct spill *s, struct errbuf *eb);
/* The next record into rec: 1, 0 at the end, -1 with eb. */
int spill_next(struct spill *s, void *rec, struct errbuf *eb);
void spill_release(struct spill *s);

#endif
