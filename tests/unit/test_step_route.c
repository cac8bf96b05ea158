/*
 * Unit tests of node-limited routing and the FP8 dispatch
 * (src/step_route.c, src/step_ledger.c's expert rows): the expected
 * nodes a token reaches, the two legs of its all-to-all, the rows under
 * an FP8 dispatch and the refusals, against values worked by hand
 * (models/step-teams.md, "Node-limited routing and the FP8 dispatch").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "step_fix.h"
#include "preset.h"
#include "step.h"
#include "step_int.h"
#include "system.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/*
 * Distinct nodes among k experts.  4 experts on 2 nodes, top 2: of the 6
 * pairs 2 stay on one node and 4 reach both, (2 + 8)/6 = 5/3 nodes; the
 * formula 2 (1 - (2/4)(1/3)) = 5/3.  Capped at one node: 1.  DeepSeek-V3,
 * 256 experts on 8 nodes, top 8, at most 4 nodes: 32 experts a node,
 * 128 under the cap, 4 (1 - C(96,8)/C(128,8)) = 4 (1 - 71290869/768657340)
 * = 3.6290109; uncapped 8 (1 - C(224,8)/C(256,8)) = 5.2946520.  A cap
 * above the nodes is the nodes; 2 nodes of 2 experts cannot hold 8: NaN.
 */
void test_step_route_nodes(void)
{
	DBL_NEAR(step_route_nodes_expected(4, 2, 2, 2), 5.0 / 3, 1e-15);
	DBL_NEAR(step_route_nodes_expected(4, 2, 2, 1), 1, 0);
	DBL_NEAR(step_route_nodes_expected(256, 8, 8, 4),
		 4 * (1 - 71290869.0 / 768657340.0), 1e-14);
	DBL_NEAR(step_route_nodes_expected(256, 8, 8, 4), 3.6290109, 1e-7);
	DBL_NEAR(step_route_nodes_expected(256, 8, 8, 8), 5.2946520, 1e-7);
	DBL_NEAR(step_route_nodes_expected(256, 8, 8, 9), step_route_nodes_expected(256, 8, 8, 8),
		 0);
	CHECK(isnan(step_route_nodes_expected(16, 8, 8, 2)));
	CHECK(isnan(step_route_nodes_expected(16, 8, 8, 0)));
}

/* hgx-h800 on the tiers model: NVLink 4 µs, 160 GB/s; 8 NICs of 4 µs, 48 GB/s. */
static int S_h800(struct system *sys, struct cost_model *cm)
{
	struct preset_dirs d;
	struct errbuf eb;
	int ok;

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, NULL, NULL);
	ok = system_load(&d, "presets/hgx-h800.preset", sys, &eb) == 0;
	preset_dirs_release(&d);
	if (ok)
		cost_model_tiers(cm, sys);
	return ok;
}

/*
 * DeepSeek-V3's all-to-all of 469 762 048 B (8 copies of 4096 tokens of
 * 7168 bf16 values) over EP 64 on 8 nodes, at most 4 nodes a token: the
 * network leg among the 8 GPUs of one index, one NIC each, 3.6290109/8 of
 * the bytes: 7 (4 µs + 213 096 451 / (8 x 48 GB/s)) = 3.9126 ms; the
 * NVLink leg among 8 of the copies' bytes times G/k, G = 7.3594 the
 * expected distinct GPUs of the 32 on those 4 nodes (4 experts each):
 * 7 (4 µs + 432 144 095 / (8 x 160 GB/s)) = 2.3913 ms; the network's is
 * the time.  In FP8 (1 + 4/128 bytes a value, 242 221 056 B): 2.0310 and
 * 1.2466 ms.  One node: the NVLink leg alone.
 */
void test_step_route_price(void)
{
	struct system sys;
	struct cost_model cm;
	struct step_config c;
	struct step_pricing pr = { 0 };
	struct run u;
	struct errbuf eb;
	double S = 469762048.0, D = 4 * (1 - 71290869.0 / 768657340.0), t, plain;
	const char *tier;

	CHECK(S_h800(&sys, &cm));
	step_config_init(&c);
	c.route_nodes = 4;
	pr.m = &cm;
	pr.algo = ALGO_AUTO;
	memset(&u, 0, sizeof(u));
	u.c = &c;
	u.prp = &pr;
	u.E = 256;
	u.k = 8;
	CHECK(step_price_route(&u, S, 64, 8, &t, &tier, &eb) == 0);
	DBL_NEAR(t, 7 * (4e-6 + S * D / 8 / 8 / 48e9), 1e-12);
	DBL_NEAR(t, 3.9126e-3, 1e-4);
	CHECK(strcmp(tier, "inter") == 0);
	S = S / 2 * STEP_DISPATCH_FP8_BYTES;
	DBL_NEAR(S, 242221056.0, 0);
	CHECK(step_price_route(&u, S, 64, 8, &t, &tier, &eb) == 0);
	DBL_NEAR(t, 7 * (4e-6 + S * D / 8 / 8 / 48e9), 1e-12);
	DBL_NEAR(t, 2.0310e-3, 1e-4);
	/* 8 ranks on one node: nothing crosses the network; over NVLink a
	 * token goes once to each GPU holding any of its experts, 5.2946520
	 * of 8 expected (32 experts a GPU): the plain all-to-all of G/k of
	 * the bytes, 7 (4 us + 160 309 525 / (8 x 160 GB/s)) = 0.9047 ms */
	CHECK(step_price_route(&u, S, 8, 8, &t, &tier, &eb) == 0);
	CHECK(step_price(&pr, OP_ALLTOALL, 8, 8, S * 5.2946520 / 8, &plain, &tier, NULL, &eb) == 0);
	DBL_NEAR(t, plain, 1e-7);
	DBL_NEAR(t, 7 * (4e-6 + S * 5.2946520 / 8 / 8 / 160e9), 1e-7);
	DBL_NEAR(t, 0.9047e-3, 1e-4);
	/* 2 nodes of 2 experts at most, top 8 */
	c.route_nodes = 2;
	u.E = 16;
	CHECK(step_price_route(&u, S, 64, 8, &t, &tier, &eb) < 0);
	CHECK(strstr(eb.msg, "--moe-route-nodes 2: those nodes hold 4 experts") != NULL);
	system_release(&sys);
}

/* 16 experts of 4096 x 14336, top 4, 2 layers, ep 16 = dp 16 on 2 nodes of 8. */
static void S_moe(struct workload *w, struct step_config *c)
{
	memset(w, 0, sizeof(*w));
	w->arch = WL_LLAMA;
	w->layers = 2; w->hidden = 4096; w->heads = 32; w->kv_heads = 8; w->ffn = 14336;
	w->vocab = 32000; w->seq = 4096; w->experts = 16; w->top_k = 4;
	step_config_init(c);
	c->dp = 16; c->ep = 16; c->seq = 4096; c->gpus_per_node = 8;
}

/*
 * A rank's 4 copies of 4096 tokens of 4096 values: 134 217 728 B in bf16.
 * Plain: pairwise over 16 ranks, 8 a node, the node's 8 NICs sending
 * 8 x 8/16 of it: 7 x 4 + 8 x 4 µs + 8 S (8/16) / (8 x 48 GB/s) =
 * 1.45419 ms.  At most 1 node a token (a node holds 8 of the 16 experts):
 * one node reached, the network leg 4 µs + (S/4)/(2 x 48 GB/s) = 353.5 µs
 * under the NVLink leg 7 (4 µs + S/(8 x 160 GB/s)) = 762.0 µs.  With an
 * FP8 dispatch each phase has two rows of L = 2: the copies toward the
 * experts in S/2 x 1.03125 = 69 206 016 B, the ones back in S.
 */
void test_step_route_rows(void)
{
	struct system sys;
	struct cost_model cm;
	struct workload w;
	struct step_config c;
	struct step_result r;
	struct errbuf eb;
	const struct step_row *row;
	double S = 134217728.0, Sf = 69206016.0;
	int i, n = 0;

	CHECK(S_h800(&sys, &cm));
	S_moe(&w, &c);
	CHECK(step_run(&w, &c, NULL, &cm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_EP, PH_FORWARD, OP_ALLTOALL);
	CHECK(row != NULL && row->bytes == S && row->count == 4);
	DBL_NEAR(row->one_s, 60e-6 + 8 * S * 0.5 / (8 * 48e9), 1e-12);
	c.route_nodes = 1;
	CHECK(step_run(&w, &c, NULL, &cm, STEP_BAND_NONE, &r, &eb) == 0);
	row = find(&r, DIM_EP, PH_FORWARD, OP_ALLTOALL);
	CHECK(row != NULL && row->bytes == S && row->count == 4);
	DBL_NEAR(row->one_s, 7 * (4e-6 + S / 8 / 160e9), 1e-12);
	CHECK(strcmp(row->tier, "intra") == 0);
	c.dispatch_fp8 = 1;
	CHECK(step_run(&w, &c, NULL, &cm, STEP_BAND_NONE, &r, &eb) == 0);
	for (i = 0; i < r.nrows; i++) {
		const struct step_row *x = &r.rows[i];

		if (x->dim != DIM_EP)
			continue;
		n++;
		CHECK(x->count == 2 && (x->bytes == Sf || x->bytes == S));
		DBL_NEAR(x->one_s, 7 * (4e-6 + x->bytes / 8 / 160e9), 1e-12);
	}
	INT_EQ(n, 4);
	system_release(&sys);
}

/* Refused: either option without experts, or with ep 1. */
void test_step_route_refusals(void)
{
	struct workload w;
	struct step_config c;
	struct errbuf eb;

	S_moe(&w, &c);
	c.route_nodes = 4;
	CHECK(step_check(&w, &c, &eb) == 0);
	c.ep = 1;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "--moe-route-nodes shapes the expert-parallel all-to-all") != NULL);
	w = gpt3();
	step_config_init(&c);
	c.dispatch_fp8 = 1;
	c.seq = 2048;
	CHECK(step_check(&w, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "--moe-dispatch-fp8 shapes") != NULL && strstr(eb.msg, "no experts"));
}
