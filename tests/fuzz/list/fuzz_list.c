/*
 * Fuzz target: units_parse_list, the lists and ranges of every option that
 * takes several values ("4,8,16", "8:8G:x2", "1us:10us:+1us").  Every
 * input is parsed as a list of each kind of quantity; a success holds 1 to
 * UNITS_LIST_MAX values that the single-value parser would accept, a
 * failure leaves the list empty and says why.
 *
 * Built by `make fuzz`; the unit tests run corpus/ through fuzz_list().
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "../fuzz_entry.h"

static const char *fuzz_list(const uint8_t *data, size_t size)
{
	static const enum quantity kinds[] = {
		Q_NUMBER, Q_COUNT, Q_TIME, Q_SIZE, Q_RATE, Q_FRACTION
	};
	const char *why = NULL;
	char *s = malloc(size + 1);
	size_t i, j;

	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !why; i++) {
		enum quantity q = kinds[i];
		struct dlist l = { (double *)1, 7, 7 };  /* garbage: the parser sets it */
		struct errbuf eb;

		eb.msg[0] = '\0';
		if (units_parse_list(q, s, &l, &eb) < 0) {
			if (!eb.msg[0] || !memchr(eb.msg, '\0', sizeof(eb.msg)))
				why = "units_parse_list failed without a message";
			else if (l.v || l.n)
				why = "a failed units_parse_list left values behind";
			continue;
		}
		if (l.n < 1 || l.n > UNITS_LIST_MAX || !l.v)
			why = "units_parse_list succeeded with no values or too many";
		for (j = 0; j < l.n && !why; j++) {
			double x = l.v[j];

			if (!isfinite(x))
				why = "a list holds a value that is not finite";
			else if ((q == Q_TIME || q == Q_SIZE || q == Q_RATE || q == Q_COUNT) && x < 0)
				why = "a list of times, sizes, rates or counts holds a negative value";
			else if (q == Q_COUNT && (x != floor(x) || x > 9007199254740992.0))
				why = "a list of counts holds a value that is not a whole number up to 2^53";
		}
		dlist_release(&l);
	}
	free(s);
	return why;
}

FUZZ_ENTRY(fuzz_list)
