/*
 * Where compare and plan take a prediction from (predict.h): the regimes
 * of a fitted preset when they were fitted for the algorithm asked, the
 * cost model otherwise, with each collective's own algorithm on one link.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "predict.h"

static const struct link seed = { 5e-6, 200e9, 0 };

void test_predict_link(void)
{
	struct cost_model m;
	struct predictor p = { .model = &m };
	struct coll_cost c;

	cost_model_link(&m, &seed);
	/* Ring all-reduce on 4 ranks, 1 GiB: 6·5 µs + 1.5·2^30 B / 200 GB/s = 8.083063680 ms. */
	DBL_NEAR(predictor_time(&p, OP_ALLREDUCE, ALGO_RING, 4, 1073741824.0, &c),
		 8.08306368e-3, 1e-12);
	CHECK(c.algo == ALGO_RING && c.proto == PROTO_NONE);
	/* All-to-all has no ring on a link: pairwise, 3·(5 µs + 1e6 B/(4·200 GB/s)) = 18.75 µs. */
	DBL_NEAR(predictor_time(&p, OP_ALLTOALL, ALGO_RING, 4, 1e6, &c), 18.75e-6, 1e-12);
	CHECK(c.algo == ALGO_PAIRWISE);
	/* One rank moves nothing. */
	CHECK(predictor_time(&p, OP_ALLREDUCE, ALGO_RING, 1, 1e6, NULL) == 0);
}

void test_predict_regimes(void)
{
	struct cost_model m;
	struct fit_model fm = {
		.op = OP_ALLREDUCE, .algo = ALGO_RING, .ranks = 4, .nreg = 1,
		.reg = { { .alpha = 10e-6, .beta = 100e9, .lo = 8, .hi = 1e9, .n = 10,
			   .alpha_ci = NAN, .beta_ci = NAN } },
	};
	struct predictor p = { .model = &m, .fm = &fm };
	struct coll_cost c;

	cost_model_link(&m, &seed);
	/* The regimes predict the algorithm they were fitted for ... */
	DBL_NEAR(predictor_time(&p, OP_ALLREDUCE, ALGO_RING, 4, 1e6, &c),
		 fit_model_time(&fm, OP_ALLREDUCE, 4, 1e6), 1e-15);
	CHECK(c.nodes == 1 && c.proto == PROTO_NONE);
	/* ... and not another: dbtree comes from the link, 4·5 µs + 2·1e6 B / 200 GB/s = 30 µs. */
	DBL_NEAR(predictor_time(&p, OP_ALLREDUCE, ALGO_DBTREE, 4, 1e6, NULL), 30e-6, 1e-12);
}

void test_predict_tiers_choice(void)
{
	struct system s = {
		.name = "test", .gpus_per_node = 4,
		.intra = { .name = "pcie", .link = { 3e-6, 25e9, 0 }, .beta_line = 31.5e9 },
		.p2p = 1, .price_per_gpu_hour = NAN,
	};
	struct cost_model m;
	struct predictor p = { .model = &m };
	struct coll_cost c;

	cost_model_tiers(&m, &s);
	/*
	 * One node is the single-link model on the intra link; the model's
	 * choice (ALGO_AUTO) names what it chose.  Ring all-gather of 128 MiB
	 * on 4 ranks: 3·3 µs + 0.75·2^27 B / 25 GB/s = 4.035596 ms
	 * (models/compare.md, "compare on a system").
	 */
	DBL_NEAR(predictor_time(&p, OP_ALLGATHER, ALGO_AUTO, 4, 134217728.0, &c),
		 9e-6 + 0.75 * 134217728.0 / 25e9, 1e-12);
	CHECK(c.algo == ALGO_RING || c.algo == ALGO_HIER);
	CHECK(c.nodes == 1);
	/* An algorithm the model has not for the collective: no answer. */
	CHECK(isnan(predictor_time(&p, OP_ALLGATHER, ALGO_DBTREE, 4, 1e6, NULL)));
}

void test_predict_choice_text(void)
{
	char buf[32];
	struct coll_cost c = { .time_s = 1e-5, .algo = ALGO_TREE, .proto = PROTO_LL };

	CHECK(!strcmp(predictor_choice(&c, buf, sizeof(buf)), "tree/LL"));
	c.proto = PROTO_NONE;
	c.algo = ALGO_HIER;
	CHECK(!strcmp(predictor_choice(&c, buf, sizeof(buf)), "hier"));
	c.time_s = NAN;
	CHECK(!strcmp(predictor_choice(&c, buf, sizeof(buf)), "-"));
}
