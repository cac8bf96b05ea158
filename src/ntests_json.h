#ifndef COMMTIME_NTESTS_JSON_H
#define COMMTIME_NTESTS_JSON_H

#include <stddef.h>
#include "meas.h"

/*
 * Parser of the JSON file nccl-tests writes with -J FILE.json (NVIDIA
 * nccl-tests src/util.cu, "version": 3):
 *
 *   { "args": ["./all_reduce_perf", ...],
 *     "config": { "nthreads": 1, "ngpus": 4, ..., "devices": [ {...}, ... ] },
 *     "results": [ { "size": 8, "count": 2, ...,
 *                    "out_of_place": { "time": 17.29, "alg_bw": 0, "bus_bw": 0, ... },
 *                    "out_of_place_per_iter": { ... },
 *                    "in_place": { ... } }, ... ], ... }
 *
 * The collective comes from the program name args[0]; the rank count is
 * the number of "devices" entries (one per process) times nthreads × ngpus;
 * "time" (µs, or "cpu_time" with -C) and "bus_bw"/"alg_bw" (GB/s) of each
 * side become a row.  Other keys (per-iteration statistics, env) are read
 * past.  Times are converted to seconds, bandwidths to bytes/s.
 *
 * Returns 0 with rows appended to m, or -1 with "name:line: ..." in eb:
 * malformed JSON, a document without "results", a result without size or
 * time, a time that is not positive, sizes that do not increase.
 */
int nccljson_parse(const char *buf, size_t len, const char *name,
		   struct meas *m, struct errbuf *eb);

#endif
