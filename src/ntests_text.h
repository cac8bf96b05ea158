#ifndef COMMTIME_NTESTS_TEXT_H
#define COMMTIME_NTESTS_TEXT_H

#include <stddef.h>
#include "meas.h"

/*
 * Parser of nccl-tests output (all_reduce_perf, all_gather_perf,
 * reduce_scatter_perf, alltoall_perf, broadcast_perf, ...) as it comes out
 * of a terminal.  The layouts it reads and how each test log was made are
 * in models/nccl-tests.md.
 *
 * What it looks for:
 *  - "# Collective test starting: X_perf" names the collective;
 *  - "#  Rank N ..." lines, one per rank, give the rank count (distinct N);
 *  - the column header ("size count type ... time algbw busbw ...") locates
 *    the columns; without one, the last eight fields of a row are taken as
 *    time, algbw, busbw, check, twice (every layout ends that way);
 *  - a data row is a line whose first two fields are whole numbers; all
 *    its fields must then be where the header says, or it is an error.
 *  - NCCL's lines ("host:pid:tid [dev] NCCL INFO ...") may split a row
 *    (NCCL_DEBUG=INFO writes to the same stdout between its three pieces):
 *    the pieces before them are joined to the next plain line and read as
 *    one row;
 *  - NCCL's TUNING lines ("... Bytes -> Algo X proto Y ...") go to
 *    m->tuned (meas.h).
 * Everything else (other NCCL lines, banners, comments) is skipped; a
 * launcher's tag ("0: " of srun --label, "[0] " of mpirun) is removed first.
 *
 * Times are converted from µs to s, bandwidths from GB/s to B/s.
 */

/*
 * Parse buf (len bytes, need not be NUL-terminated) into m, which the
 * caller has initialised with meas_init (rows are appended).  name is used
 * in messages.  Returns 0, or -1 with "name:line: ..." in eb: binary data,
 * a data row with fields missing or not numbers, a time that is zero,
 * negative or not a number, sizes that do not increase, a second test in
 * the same file, or no data rows at all.
 */
int nccllog_parse(const char *buf, size_t len, const char *name,
		  struct meas *m, struct errbuf *eb);

/* Longest line the parser reads; longer lines are an error. */
#define NCCLLOG_LINE_MAX 65536

#endif
