/*
 * The explain entry of the cost core (cost_explain): what it explains is
 * what cost_coll answers, on every model.
 */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "cost.h"
#include "nccl_cost.h"
#include "preset.h"
#include "system.h"

/* dgx-h100 under NCCL's model; 0 when the preset cannot be read. */
static int S_dgx(struct system *s, struct nccl_cost *nc, struct cost_model *cm)
{
	struct preset_dirs d;
	struct errbuf eb;
	int ok;

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, NULL, NULL);
	ok = system_load(&d, "presets/dgx-h100.preset", s, &eb) == 0 &&
	     nccl_cost_init(nc, cm, s, ~0u, ~0u, &eb) == 0;
	preset_dirs_release(&d);
	return ok;
}

void test_explain_is_the_table(void)
{
	static const enum coll_op ops[] = { OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER,
					    OP_BROADCAST, OP_REDUCE, OP_ALLTOALL };
	static const unsigned long ranks[] = { 2, 8, 16, 64 };
	struct system s;
	struct nccl_cost nc;
	struct cost_model cm;
	struct errbuf eb;
	int bad = 0, n = 0;

	CHECK(S_dgx(&s, &nc, &cm));
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (size_t r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++)
			for (double S = 8; S <= 4e9; S *= 8) {
				struct group g = { .ranks = ranks[r] };
				struct cost_explain x;
				struct coll_cost c;

				if (cost_coll(&cm, ops[o], ALGO_AUTO, &g, S, &c, &eb) < 0 ||
				    cost_explain(&cm, ops[o], ALGO_AUTO, &g, S, &x, &eb) < 0 ||
				    x.n < 1) {
					bad++;
					continue;
				}
				n++;
				bad += x.cand[0].cost.time_s != c.time_s ||
				       x.cand[0].cost.algo != c.algo ||
				       x.cand[0].cost.proto != c.proto ||
				       x.cand[0].cost.nodes != c.nodes;
				/* runners-up in NCCL's order of preference */
				for (int i = 1; i < x.n; i++)
					bad += x.cand[i].rank_s < x.cand[i - 1].rank_s;
				bad += (ops[o] == OP_ALLTOALL) != (x.note != NULL);
			}
	INT_EQ(bad, 0);
	CHECK(n > 100);
	system_release(&s);
}

/*
 * 64 MiB on 16 ranks of dgx-h100: NCCL chooses NVLSTree/Simple by a
 * tuning time below the run time, which adds the pipeline's fill; the
 * explained time is the run time, and the terms end with it.
 */
void test_explain_run_time_not_tuning_time(void)
{
	struct system s;
	struct nccl_cost nc;
	struct cost_model cm;
	struct errbuf eb;
	struct group g = { .ranks = 16 };
	struct cost_explain x;
	struct coll_cost c;

	CHECK(S_dgx(&s, &nc, &cm));
	INT_EQ(cost_coll(&cm, OP_ALLREDUCE, ALGO_AUTO, &g, 67108864, &c, &eb), 0);
	INT_EQ(cost_explain(&cm, OP_ALLREDUCE, ALGO_AUTO, &g, 67108864, &x, &eb), 0);
	INT_EQ(x.cand[0].cost.algo, ALGO_NVLSTREE);
	INT_EQ(x.cand[0].cost.proto, PROTO_SIMPLE);
	CHECK(x.cand[0].rank_s < x.cand[0].cost.time_s);
	DBL_NEAR(x.cand[0].cost.time_s, c.time_s, 0);
	CHECK(x.nterms > 5);
	DBL_NEAR(x.term[x.nterms - 1].value * 1e-6, c.time_s, 1e-12);
	/* --algo ring: only the ring's protocols */
	INT_EQ(cost_explain(&cm, OP_ALLREDUCE, ALGO_RING, &g, 67108864, &x, &eb), 0);
	for (int i = 0; i < x.n; i++)
		INT_EQ(x.cand[i].cost.algo, ALGO_RING);
	/* NCCL_PROTO=LL128 on the tree: no pair left, no candidate */
	nc.algo_mask = 1u << NCCL_TREE;
	nc.proto_mask = 0;
	INT_EQ(cost_explain(&cm, OP_ALLREDUCE, ALGO_AUTO, &g, 67108864, &x, &eb), 0);
	INT_EQ(x.n, 0);
	system_release(&s);
}

/*
 * On a link every algorithm is a candidate, fastest first: 8 ranks,
 * α = 5 µs, β = 200 GB/s, S = 1 MB.  Ring 2·7·(5 µs + 1e6/8/200e9 s) =
 * 78.75 µs; the binomial tree 2·3·(5 µs + 5 µs) = 60 µs; recursive
 * doubling 3·(5 µs + 5 µs) = 30 µs, the fastest.
 */
void test_explain_link(void)
{
	struct link l = { .alpha = 5e-6, .beta = 200e9 };
	struct cost_model m;
	struct group g = { .ranks = 8 };
	struct cost_explain x;
	struct errbuf eb;
	int ring = -1;

	cost_model_link(&m, &l);
	INT_EQ(cost_explain(&m, OP_ALLREDUCE, ALGO_AUTO, &g, 1e6, &x, &eb), 0);
	INT_EQ(x.n, 5);
	INT_EQ(x.cand[0].cost.algo, ALGO_RD);
	DBL_NEAR(x.cand[0].cost.time_s, 30e-6, 1e-12);
	for (int i = 0; i < x.n; i++)
		if (x.cand[i].cost.algo == ALGO_RING)
			ring = i;
	CHECK(ring > 0);
	DBL_NEAR(x.cand[ring].cost.time_s, 78.75e-6, 1e-12);
	INT_EQ(x.nterms, 3);
	DBL_NEAR(x.term[0].value, 15, 1e-9);   /* µs: the α terms, 3 α */
	INT_EQ(cost_explain(&m, OP_ALLREDUCE, ALGO_RING, &g, 1e6, &x, &eb), 0);
	INT_EQ(x.n, 1);
	g.ranks = 1;
	INT_EQ(cost_explain(&m, OP_ALLREDUCE, ALGO_RING, &g, 1e6, &x, &eb), 0);
	DBL_NEAR(x.cand[0].cost.time_s, 0, 0);
	INT_EQ(x.nterms, 0);
}

/* 1 when the two tuning tables hold the same latencies and bandwidths. */
static int S_same_tune(const struct nccl_tune *a, const struct nccl_tune *b)
{
	for (int f = 0; f < NCCL_NFUNC; f++)
		for (int al = 0; al < NCCL_NALGO; al++)
			for (int p = 0; p < NCCL_NPROTO; p++)
				if (a->lat[f][al][p] != b->lat[f][al][p] ||
				    a->bw[f][al][p] != b->bw[f][al][p])
					return 0;
	return a->nodes == b->nodes;
}

/*
 * NCCL's view of a group's NICs (nccl_cost_tune, cost_nic_share): dgx-h100
 * with 2 NICs per node, groups of 2 ranks per node on 2 nodes.  Four such
 * groups share a node's 2 NICs, so NCCL's topology gives each group one
 * NIC at half its rate: the table of a 2-GPU node with 1 NIC of half the
 * line rate.  One NIC at a quarter (2/8, the share of a node with one
 * NIC) gives another table; the whole node keeps its 2 NICs at full rate.
 */
void test_explain_nccl_nic_share(void)
{
	struct system s;
	struct nccl_cost nc;
	struct cost_model cm;
	struct errbuf eb;
	struct group g = { .ranks = 4, .per_node = 2 };
	struct nccl_tune got, want;
	struct nccl_machine m;

	CHECK(S_dgx(&s, &nc, &cm));
	s.nics_per_node = 2;
	INT_EQ(nccl_cost_init(&nc, &cm, &s, ~0u, ~0u, &eb), 0);
	INT_EQ(nc.machine.nics_per_node, 2);
	INT_EQ(nccl_cost_tune(&nc, &g, &got, &eb), 0);
	m = nc.machine;
	m.gpus_per_node = 2;
	m.nics_per_node = 1;
	m.nic_bw = nc.machine.nic_bw * 0.5;
	INT_EQ(nccl_tune_init(&want, &nc.params, &m, 4, ~0u, ~0u, &eb), 0);
	CHECK(S_same_tune(&got, &want));
	m.nic_bw = nc.machine.nic_bw * 0.25;
	INT_EQ(nccl_tune_init(&want, &nc.params, &m, 4, ~0u, ~0u, &eb), 0);
	CHECK(!S_same_tune(&got, &want));
	/* packed: 16 ranks on 2 nodes of 8 GPUs and their 2 NICs */
	g = (struct group){ .ranks = 16, .per_node = 0 };
	INT_EQ(nccl_cost_tune(&nc, &g, &got, &eb), 0);
	INT_EQ(nccl_tune_init(&want, &nc.params, &nc.machine, 16, ~0u, ~0u, &eb), 0);
	CHECK(S_same_tune(&got, &want));
	system_release(&s);
}
