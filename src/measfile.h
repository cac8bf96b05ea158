#ifndef COMMTIME_MEASFILE_H
#define COMMTIME_MEASFILE_H

#include <stddef.h>
#include "meas.h"
#include "model.h"

/*
 * Measurement files: the rows of one collective (meas.h) read from an
 * nccl-tests log (ntests_text.h), its JSON (ntests_json.h), OSU or IMB output
 * (mpilog.h) or a CSV file (this module).  The formats accepted are
 * described in models/nccl-tests.md.
 */

/* Size limit of an input file read into memory. */
#define MEAS_FILE_MAX (64u << 20)

/*
 * Read a measurement file, telling its format from its content (the
 * first match wins):
 *   - JSON when the first character that is not blank is '{' (nccl-tests -J);
 *   - OSU micro-benchmarks when a line starts "# OSU ";
 *   - Intel MPI Benchmarks when a line starts "# Benchmarking " or holds
 *     "MPI Benchmarks";
 *   - CSV when the first line that is neither blank nor a '#' comment is a
 *     header naming a size column and holding a comma;
 *   - otherwise an nccl-tests log.
 * Sets m->format.  Fills m (released by the caller also on error) and
 * returns 0, or -1 with "file:line: ..." (or "file: ...") in eb.
 */
int meas_load_file(const char *path, struct meas *m, struct errbuf *eb);

/*
 * Parse CSV text with libcsv.  Lines starting with '#' before the header
 * are comments (a script's description of its run).  A header row names
 * the columns; recognised
 * (case-insensitive) are a size column (size, size_B, bytes, size_KB,
 * size_KiB, size_MB, size_MiB, size_GB, size_GiB), a time column (time,
 * time_s, time_ms, time_us, time_ns, or expected_time_s as `plan` writes),
 * and optionally ranks, op and algo; other columns are ignored.  When a
 * "check" column is present (the CSV of `plan`), only its "busbw" rows are
 * read: the others are not points of a curve.  name is used in messages.
 */
int meas_parse_csv(const char *buf, size_t len, const char *name,
		   struct meas *m, struct errbuf *eb);

/*
 * Settle the collective and rank count and check the rows.  op (an enum
 * coll_op, or -1) and ranks (or 0) come from the command line.  For a log
 * they override what the log says (its "# Rank" lines may miss remote
 * ranks); for a CSV they fill rows that do not say and select the rows of
 * that collective and rank count.  Then the rows must agree on one op and
 * one rank count, there must be at least one, and sizes must increase
 * strictly.  op is OP_COUNT and ranks 0 when not given.  Sets m->op (-1
 * when still unknown) and m->ranks (0 when still unknown).  Returns 0, or
 * -1 with "file: ..." or "file:line: ..." in eb.
 */
int meas_select(struct meas *m, enum coll_op op, unsigned long ranks, struct errbuf *eb);

/* Read a whole file into a NUL-terminated buffer (freed by the caller). */
int meas_read_file(const char *path, char **buf, size_t *len, struct errbuf *eb);

#endif
