#ifndef COMMTIME_BOUND_H
#define COMMTIME_BOUND_H

#include <stddef.h>

/*
 * The bounds every number read from a file passes before it is cast to
 * an integer or used as a count, a size or a time.  A reader calls
 * bound_check() once per value with the value's kind, never a check of
 * its own, so "1e308 elements" and "a rank of 1e300" are refused the
 * same way in every reader (docs/safety.md, "One number reader").
 *
 *   BOUND_COUNT  elements or calls: whole, 0 <= x < 1e18
 *   BOUND_SIZE   bytes: 0 <= x < 1e18 (the largest size commtime's
 *                tables print whole; 888 PiB, past any GPU's memory)
 *   BOUND_TIME   seconds: 0 <= x <= 1e6 (11.6 days, past any one
 *                collective or step)
 *   BOUND_RANKS  a group size: whole, 1 <= x <= RANKS_MAX (model.h)
 *   BOUND_RANK   a rank: whole, 0 <= x < RANKS_MAX
 *   BOUND_RATIO  a calibration ratio (measured / predicted): 1e-6 <= x <= 1e6
 */
enum bound { BOUND_COUNT, BOUND_SIZE, BOUND_TIME, BOUND_RANKS, BOUND_RANK, BOUND_RATIO };

/* 0 when x is finite and within the bounds of its kind, else -1. */
int bound_check(enum bound b, double x);

/* The bounds in words, for a message: "a whole count from 0 to 1e18". */
const char *bound_what(enum bound b);

/*
 * Bytes of a UTF-8 byte order mark at the start of buf (3), else 0.
 * Every reader of a text file skips it with this, and only this.
 */
size_t bound_bom(const char *buf, size_t len);

#endif
