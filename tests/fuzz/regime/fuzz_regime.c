/*
 * Fuzz target: the regime keys of a fitted link preset (regimes, alpha.k,
 * beta.k, from.k, to.k, fit.op, fit.algo, fit.ranks), read by
 * fit_model_from_preset(), the one reader that compare, plan and
 * `presets FILE` share.  The input follows a fixed head (name, kind =
 * link, alpha, beta) and is read as a preset file.  An accepted model has
 * 1 to FIT_REGIMES_MAX regimes with alpha in [0, 3600] s, beta in
 * [1, 1e18] B/s, sizes that increase, and predicts a finite, non-negative
 * time at every size from 1 B to 1 TiB; a refusal says why.
 *
 * Built by `make fuzz`; the unit tests run corpus/ through fuzz_regime().
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fit.h"
#include "preset.h"

#include "../fuzz_file.h"
#include "../fuzz_entry.h"

static const char *fuzz_regime(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("regime"), *why = NULL;
	struct fit_model m;
	struct preset p;
	struct errbuf eb;
	size_t k;
	int r;

	why = fuzz_file_write(path, "name = r\nkind = link\ndescription = fuzz\n"
			      "alpha = 5us\nbeta = 100GB/s\n", data, size);
	if (why)
		return why;
	if (preset_load_file(path, &p, &eb) < 0)
		return NULL;
	eb.msg[0] = '\0';
	r = fit_model_from_preset(&p, &m, &eb);
	if (r < 0 && !eb.msg[0])
		why = "fit_model_from_preset refused without a message";
	if (r == 1) {
		if (m.nreg < 1 || m.nreg > FIT_REGIMES_MAX)
			why = "a model with a regime count out of range";
		for (k = 0; !why && k < m.nreg; k++) {
			const struct regime *g = &m.reg[k];

			if (!(g->alpha >= 0 && g->alpha <= 3600) ||
			    !(g->beta >= 1 && g->beta <= 1e18))
				why = "a regime's alpha or beta out of bounds";
			else if (!(g->lo <= g->hi) || (k && !(g->lo > m.reg[k - 1].hi)))
				why = "regime sizes that do not increase";
		}
		for (k = 0; !why && k <= 40; k++) {
			double t = fit_model_time(&m, m.op, m.ranks, ldexp(1, (int)k));

			if (!(t >= 0) || !isfinite(t))
				why = "a model that predicts no finite time";
		}
	}
	preset_release(&p);
	return why;
}

FUZZ_ENTRY(fuzz_regime)
