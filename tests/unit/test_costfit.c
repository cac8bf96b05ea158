/*
 * What compare and plan predict (cost_predict) and the fitted regimes as a
 * cost model (COST_FIT, fit_cost_init): the regimes for the algorithm
 * they were fitted for, the link otherwise, with each collective's own
 * algorithm on one link.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "cost.h"
#include "fit.h"

static const struct link seed = { 5e-6, 200e9, 0 };

void test_costfit_link(void)
{
	struct cost_model m;
	struct coll_cost c;

	cost_model_link(&m, &seed);
	/* Ring all-reduce on 4 ranks, 1 GiB: 6·5 µs + 1.5·2^30 B / 200 GB/s = 8.083063680 ms. */
	DBL_NEAR(cost_predict(&m, OP_ALLREDUCE, ALGO_RING, 4, 1073741824.0, &c),
		 8.08306368e-3, 1e-12);
	CHECK(c.algo == ALGO_RING && c.proto == PROTO_NONE);
	/* All-to-all has no ring on a link: pairwise, 3·(5 µs + 1e6 B/(4·200 GB/s)) = 18.75 µs. */
	DBL_NEAR(cost_predict(&m, OP_ALLTOALL, ALGO_RING, 4, 1e6, &c), 18.75e-6, 1e-12);
	CHECK(c.algo == ALGO_PAIRWISE);
	/* One rank moves nothing. */
	CHECK(cost_predict(&m, OP_ALLREDUCE, ALGO_RING, 1, 1e6, NULL) == 0);
}

void test_costfit_regimes(void)
{
	struct cost_model m;
	struct fit_model fm = {
		.op = OP_ALLREDUCE, .algo = ALGO_RING, .ranks = 4, .nreg = 1,
		.reg = { { .alpha = 10e-6, .beta = 100e9, .lo = 8, .hi = 1e9, .n = 10,
			   .alpha_ci = NAN, .beta_ci = NAN } },
	};
	struct coll_cost c;

	fit_cost_init(&m, &fm, &seed);
	/* The regimes predict the algorithm they were fitted for ... */
	DBL_NEAR(cost_predict(&m, OP_ALLREDUCE, ALGO_RING, 4, 1e6, &c),
		 fit_model_time(&fm, OP_ALLREDUCE, 4, 1e6), 1e-15);
	CHECK(c.nodes == 1 && c.proto == PROTO_NONE);
	/* ... and not another: dbtree comes from the link, 4·5 µs + 2·1e6 B / 200 GB/s = 30 µs. */
	DBL_NEAR(cost_predict(&m, OP_ALLREDUCE, ALGO_DBTREE, 4, 1e6, NULL), 30e-6, 1e-12);
}

void test_costfit_tiers_choice(void)
{
	struct system s = {
		.name = "test", .gpus_per_node = 4,
		.intra = { .name = "pcie", .link = { 3e-6, 25e9, 0 }, .beta_line = 31.5e9 },
		.p2p = 1, .price_per_gpu_hour = NAN,
	};
	struct cost_model m;
	struct coll_cost c;

	cost_model_tiers(&m, &s);
	/*
	 * One node is the single-link model on the intra link; the model's
	 * choice (ALGO_AUTO) names what it chose.  Ring all-gather of 128 MiB
	 * on 4 ranks: 3·3 µs + 0.75·2^27 B / 25 GB/s = 4.035596 ms
	 * (models/compare.md, "compare on a system").
	 */
	DBL_NEAR(cost_predict(&m, OP_ALLGATHER, ALGO_AUTO, 4, 134217728.0, &c),
		 9e-6 + 0.75 * 134217728.0 / 25e9, 1e-12);
	CHECK(c.algo == ALGO_RING || c.algo == ALGO_HIER);
	CHECK(c.nodes == 1);
	/* An algorithm the model has not for the collective: no answer. */
	CHECK(isnan(cost_predict(&m, OP_ALLGATHER, ALGO_DBTREE, 4, 1e6, NULL)));
}

void test_costfit_choice_text(void)
{
	char buf[32];
	struct coll_cost c = { .time_s = 1e-5, .algo = ALGO_TREE, .proto = PROTO_LL };

	CHECK(!strcmp(cost_choice_text(&c, buf, sizeof(buf)), "tree/LL"));
	c.proto = PROTO_NONE;
	c.algo = ALGO_HIER;
	CHECK(!strcmp(cost_choice_text(&c, buf, sizeof(buf)), "hier"));
	c.time_s = NAN;
	CHECK(!strcmp(cost_choice_text(&c, buf, sizeof(buf)), "-"));
}

/*
 * Regimes fitted for the tree on 8 ranks, with a base latency of κ = 2
 * steps: the tree is the all-reduce default, ALGO_AUTO takes it, and its
 * time on 4 ranks is (κ + 2·2)·α + 2·2·S/β (the seed's binomial tree,
 * 2 ⌈log2 4⌉ steps of the whole buffer): (2 + 4)·10 µs + 4·1e6/100e9 s
 * = 100 µs; its latency part 60 µs.  All-gather runs its own ring through
 * the same regimes: (2 + 3)·10 µs + 0.75·1e6/100e9 s = 57.5 µs.
 */
void test_costfit_kind(void)
{
	struct cost_model m;
	struct fit_model fm = {
		.op = OP_ALLREDUCE, .algo = ALGO_TREE, .ranks = 8, .nreg = 1, .base_steps = 2,
		.reg = { { .alpha = 10e-6, .beta = 100e9, .lo = 8, .hi = 1e9, .n = 10,
			   .alpha_ci = NAN, .beta_ci = NAN } },
	};
	struct group g = { .ranks = 4 };
	struct coll_cost c;
	struct errbuf eb;

	fit_cost_init(&m, &fm, &seed);
	INT_EQ(m.kind, COST_FIT);
	STR_EQ(cost_kind_name(m.kind), "fit");
	INT_EQ(cost_algo_default(&m, OP_ALLREDUCE), ALGO_TREE);
	INT_EQ(cost_algo_preferred(&m, OP_ALLREDUCE), ALGO_TREE);
	INT_EQ(cost_algo_default(&m, OP_ALLTOALL), ALGO_PAIRWISE);
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_AUTO, &g, 1e6, &c, &eb), 0);
	INT_EQ(c.algo, ALGO_TREE);
	DBL_NEAR(c.time_s, 100e-6, 1e-12);
	DBL_NEAR(c.latency_s, 60e-6, 1e-12);
	DBL_NEAR(c.time_s, fit_model_time(&fm, OP_ALLREDUCE, 4, 1e6), 1e-15);
	INT_EQ(cost_coll(&m, OP_ALLGATHER, ALGO_RING, &g, 1e6, &c, &eb), 0);
	DBL_NEAR(c.time_s, 57.5e-6, 1e-12);
	/* the ring was not fitted: the seed's link, 6·5 µs + 1.5·1e6/200e9 s = 37.5 µs */
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_RING, &g, 1e6, &c, &eb), 0);
	DBL_NEAR(c.time_s, 37.5e-6, 1e-12);
	/* not affine (regimes switch), one rank costs nothing, unknown algorithms refused */
	{
		double lat, pb;

		INT_EQ(cost_affine(&m, OP_ALLREDUCE, ALGO_TREE, &g, &lat, &pb, &eb), 0);
	}
	g.ranks = 1;
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_AUTO, &g, 1e6, &c, &eb), 0);
	DBL_NEAR(c.time_s, 0, 0);
	g.ranks = 4;
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_NVLS, &g, 1e6, &c, &eb), -1);
}
