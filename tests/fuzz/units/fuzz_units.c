/*
 * Fuzz target: the quantity parsers of src/units.h.  Every input is given,
 * as a C string, to units_parse for each kind of quantity and to the
 * parser of that kind; they must agree, and either succeed with a value
 * the header promises (finite; not negative for times, sizes, rates and
 * counts; counts whole) or fail with a message.
 *
 * Built by `make fuzz` with clang -fsanitize=fuzzer,address,undefined.
 * The unit tests include this file with FUZZ_NO_MAIN defined and run
 * every file of corpus/ through fuzz_units() (tests/unit/test_fuzzcorpus.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "../fuzz_entry.h"

/* A message was written: not empty, and ends inside the buffer. */
static int fuzz_msg_ok(const struct errbuf *eb)
{
	return eb->msg[0] != '\0' && memchr(eb->msg, '\0', sizeof(eb->msg)) != NULL;
}

/* The value meets what units.h promises for quantity q. */
static const char *fuzz_value_ok(enum quantity q, double x)
{
	if (!isfinite(x))
		return "a parser returned a value that is not finite";
	if ((q == Q_TIME || q == Q_SIZE || q == Q_RATE || q == Q_COUNT) && x < 0)
		return "a parser returned a negative time, size, rate or count";
	if (q == Q_COUNT && (x != floor(x) || x > 9007199254740992.0))
		return "a count is not a whole number up to 2^53";
	return NULL;
}

/* The parser of one kind, as units.h names it; NULL for Q_COUNT. */
static int (*const fuzz_single[])(const char *, double *, struct errbuf *) = {
	[Q_NUMBER] = units_parse_number,
	[Q_COUNT] = NULL,
	[Q_TIME] = units_parse_time,
	[Q_SIZE] = units_parse_size,
	[Q_RATE] = units_parse_rate,
	[Q_FRACTION] = units_parse_fraction,
};

static const char *fuzz_units(const uint8_t *data, size_t size)
{
	static const enum quantity kinds[] = {
		Q_NUMBER, Q_COUNT, Q_TIME, Q_SIZE, Q_RATE, Q_FRACTION
	};
	const char *why = NULL;
	char *s = malloc(size + 1);
	size_t i;

	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !why; i++) {
		enum quantity q = kinds[i];
		struct errbuf eb, eb2;
		double x = -1, y = -1;
		int r, r2;

		eb.msg[0] = eb2.msg[0] = '\0';
		r = units_parse(q, s, &x, &eb);
		if (r == 0)
			why = fuzz_value_ok(q, x);
		else if (r != -1 || !fuzz_msg_ok(&eb))
			why = "units_parse failed without -1 and a message";
		if (why || !fuzz_single[q])
			continue;
		r2 = fuzz_single[q](s, &y, &eb2);
		if (r2 != r || (r == 0 && memcmp(&x, &y, sizeof(x)) != 0) ||
		    (r != 0 && strcmp(eb.msg, eb2.msg) != 0))
			why = "units_parse and the parser of its kind disagree";
	}
	free(s);
	return why;
}

FUZZ_ENTRY(fuzz_units)
