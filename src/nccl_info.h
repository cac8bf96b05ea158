#ifndef COMMTIME_NCCL_INFO_H
#define COMMTIME_NCCL_INFO_H

/*
 * NCCL's own lines in a log ("host:pid:tid [dev] NCCL INFO ..."), read
 * into the measurement (meas.h) as the log parser meets them:
 *  - the TUNING lines, "... Bytes -> Algo X proto Y ...", in every form
 *    NCCL 2.19-2.30 prints (m->tuned);
 *  - the tuning table printed at set-up, "Algorithm |" blocks of
 *    "latency/bandwidth" cells, the first communicator's (m->ncclt);
 *  - "NCCL_ALGO/NCCL_PROTO set by environment to X" and AWS's EFA plugin
 *    setting NCCL_PROTO (m->nccl_algo, m->nccl_proto).
 * They only inform compare and fit: a line that cannot be read is
 * skipped, never an error.
 */

#include "meas.h"

/* What carries from one line to the next: where the table reading is. */
struct nccllines {
	enum { TAB_NONE, TAB_BLOCK, TAB_DONE } tab;
	int tab_algo[3], tab_n;     /* the algorithms of the current block */
};

/* Read one line (line number lineno); st starts zeroed. */
void nccllines_read(struct nccllines *st, struct meas *m, const char *line, int lineno);

#endif
