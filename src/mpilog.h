#ifndef COMMTIME_MPILOG_H
#define COMMTIME_MPILOG_H

#include <stddef.h>
#include "meas.h"

/*
 * Parsers of the two common MPI benchmark suites' text output.  The layouts
 * and the size conventions are in models/nccl-tests.md ("Other formats").
 *
 * OSU micro-benchmarks (osu_allreduce, osu_allgather, osu_reduce_scatter,
 * osu_alltoall, osu_bcast, osu_reduce, osu_latency): a title line
 * "# OSU MPI Allreduce Latency Test v7.5" names the collective, then rows
 * "SIZE  AVG_LATENCY_US [MIN MAX ITERATIONS]".  The output does not say
 * how many ranks ran, so rows carry ranks = 0 (give --ranks), except
 * osu_latency, a 2-rank ping-pong whose one-way latency is send/recv.
 *
 * Intel MPI Benchmarks (IMB-MPI1): sections "# Benchmarking Allreduce",
 * "# #processes = N", then a header "#bytes #repetitions t_min[usec]
 * t_max[usec] t_avg[usec]" (t_avg is read) or, for PingPong,
 * "#bytes #repetitions t[usec] Mbytes/sec".  One file may hold several
 * benchmarks and process counts; every row carries its own.  Rows of
 * 0 bytes (no data moved) are skipped.
 *
 * Both suites give all-gather and all-to-all sizes per rank (what one rank
 * contributes, or sends to one peer); those rows are marked size_per_rank
 * and meas_select multiplies them by the rank count, to nccl-tests'
 * convention (the whole output buffer; one rank's whole send buffer).
 *
 * Each returns 0 with rows appended, or -1 with "name:line: ..." in eb.
 */
int osulog_parse(const char *buf, size_t len, const char *name,
		 struct meas *m, struct errbuf *eb);
int imblog_parse(const char *buf, size_t len, const char *name,
		 struct meas *m, struct errbuf *eb);

#endif
