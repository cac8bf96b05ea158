/*
 * The predicted time of compare and plan: a fitted preset's regimes, or
 * the cost model of the machine.
 */
#include <math.h>
#include <stdio.h>

#include "predict.h"

double predictor_time(const struct predictor *p, enum coll_op op, enum coll_algo algo,
		      unsigned long ranks, double bytes, struct coll_cost *out)
{
	const struct cost_model *m = p->model;
	struct group g = { .ranks = ranks, .per_node = 0 };
	struct coll_cost c;

	if (p->fm && (op != OP_ALLREDUCE || algo == p->fm->algo)) {
		c = (struct coll_cost){ .time_s = fit_model_time(p->fm, op, ranks, bytes),
					.latency_s = NAN, .bandwidth_s = NAN, .bound = TIER_INTRA,
					.algo = algo, .proto = PROTO_NONE, .nodes = 1 };
	} else {
		/* A single link runs each collective's own algorithm (the
		 * seed's ring and tree exist for all-reduce only). */
		if (m->kind == COST_LINK && !cost_algo_supported(m, op, algo))
			algo = cost_algo_default(m, op);
		if (cost_coll(m, op, algo, &g, bytes, &c, NULL) < 0)
			return NAN;
	}
	if (out)
		*out = c;
	return c.time_s;
}

char *predictor_choice(const struct coll_cost *c, char *buf, size_t len)
{
	if (isnan(c->time_s))
		snprintf(buf, len, "-");
	else if (c->proto == PROTO_NONE)
		snprintf(buf, len, "%s", coll_algo_name(c->algo));
	else
		snprintf(buf, len, "%s/%s", coll_algo_name(c->algo), coll_proto_name(c->proto));
	return buf;
}
