/*
 * The all-reduce cost models against hand-computed values (the seed's
 * table among them), their limits, and properties every model must keep.
 */
#include <math.h>

#include "harness.h"
#include "cost.h"
#include "crossover.h"

static const struct link seed = { 5e-6, 200e9, 0 };

void test_model_seed_table(void)
{
	/* commtime.py's table, computed by hand from its two formulas. */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &seed, 4, 4096), 6 * (5e-6 + 1024 / 200e9), 1e-15);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &seed, 4, 4096), 30.03072e-6, 1e-12);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_TREE, &seed, 4, 4096), 20.08192e-6, 1e-12);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &seed, 64, 1 << 30), 126 * 8.888608e-5, 1e-12);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_TREE, &seed, 64, 1 << 30), 0.06448450944, 1e-12);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &seed, 16, 4 << 20), 30 * (5e-6 + 262144 / 200e9), 1e-12);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_TREE, &seed, 16, 4 << 20), 8 * (5e-6 + 4194304 / 200e9), 1e-12);
	/* the seed prints 189.3 µs and 207.8 µs for these two */
	CHECK(fabs(t_link(OP_ALLREDUCE, ALGO_RING, &seed, 16, 4 << 20) * 1e6 - 189.3) < 0.05);
	CHECK(fabs(t_link(OP_ALLREDUCE, ALGO_TREE, &seed, 16, 4 << 20) * 1e6 - 207.8) < 0.05);
}

void test_model_other_algorithms(void)
{
	const double S = 1e6;

	/* dbtree: 2⌈log2 8⌉α + 2S/β = 30 µs + 10 µs */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_DBTREE, &seed, 8, S), 40e-6, 1e-12);
	/* n = 5: ⌈log2 5⌉ = 3 */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_DBTREE, &seed, 5, S), 6 * 5e-6 + 10e-6, 1e-12);
	/* recursive doubling, power of two: 3(α + S/β) */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RD, &seed, 8, S), 3 * (5e-6 + 5e-6), 1e-12);
	/* p = 6: p' = 4, 2 steps + 2 extra = 4(α + S/β) */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RD, &seed, 6, S), 4 * 10e-6, 1e-12);
	/* Rabenseifner, p = 8: 6α + 2·7/8·S/β = 30 µs + 8.75 µs */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RABENSEIFNER, &seed, 8, S), 38.75e-6, 1e-12);
	/* p = 6: (2·2 + 2)α + (2·3/4 + 2)S/β = 30 µs + 17.5 µs */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RABENSEIFNER, &seed, 6, S), 47.5e-6, 1e-12);
	/* p = 2: ring, rd and Rabenseifner coincide at α... */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RABENSEIFNER, &seed, 2, S), 2 * 5e-6 + S / 200e9, 1e-12);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &seed, 2, S), 2 * 5e-6 + S / 200e9, 1e-12);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RD, &seed, 2, S), 5e-6 + S / 200e9, 1e-12);
}

void test_model_gamma(void)
{
	struct link g = { 5e-6, 200e9, 1e-10 };
	const double S = 1e6;

	/* ring reduces (n-1)/n of the buffer: + 7/8 · 1e6 · 1e-10 = 87.5 µs */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &g, 8, S) - t_link(OP_ALLREDUCE, ALGO_RING, &seed, 8, S), 87.5e-6, 1e-9);
	/* recursive doubling reduces the whole buffer log2 p times */
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RD, &g, 8, S) - t_link(OP_ALLREDUCE, ALGO_RD, &seed, 8, S), 3e-4, 1e-9);
	/* reduce-scatter carries the ring's γ; all-gather none */
	DBL_NEAR(t_link(OP_REDUCESCATTER, ALGO_RING, &g, 8, S) - t_link(OP_REDUCESCATTER, ALGO_RING, &seed, 8, S), 87.5e-6, 1e-9);
	DBL_NEAR(t_link(OP_ALLGATHER, ALGO_RING, &g, 8, S), t_link(OP_ALLGATHER, ALGO_RING, &seed, 8, S), 1e-15);
}

void test_model_limits(void)
{
	struct link fast = { 5e-6, INFINITY, 0 };
	int a;

	for (a = 0; a < ALGO_LINK_AR_COUNT; a++) {
		/* one rank communicates nothing */
		DBL_NEAR(t_link(OP_ALLREDUCE, (enum coll_algo)a, &seed, 1, 1e9), 0, 0);
		/* β → ∞ leaves the latency term alone */
		CHECK(isfinite(t_link(OP_ALLREDUCE, (enum coll_algo)a, &fast, 8, 1e9)));
	}
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &fast, 8, 1e9), 14 * 5e-6, 1e-12);
	DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_TREE, &fast, 8, 1e9), 6 * 5e-6, 1e-12);
	INT_EQ(ceil_log2(1), 0);
	INT_EQ(ceil_log2(2), 1);
	INT_EQ(ceil_log2(5), 3);
	INT_EQ(ceil_log2(1UL << 30), 30);
	INT_EQ(ceil_log2((1UL << 30) + 1), 31);
	INT_EQ(floor_log2(1), 0);
	INT_EQ(floor_log2(6), 2);
	INT_EQ(floor_log2(1UL << 40), 40);
}

void test_model_ring_halves(void)
{
	/* a ring all-reduce is a reduce-scatter followed by an all-gather */
	struct link g = { 3e-6, 50e9, 2e-11 };
	unsigned long n;

	for (n = 2; n < 300; n = n * 3 / 2 + 1)
		DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &g, n, 123456789.0),
			 t_link(OP_REDUCESCATTER, ALGO_RING, &g, n, 123456789.0) + t_link(OP_ALLGATHER, ALGO_RING, &g, n, 123456789.0), 1e-13);
}

void test_model_properties(void)
{
	/* finite, positive and non-decreasing in size; busbw of the
	 * bandwidth-optimal algorithms stays under the link's β */
	static const unsigned long ranks[] = { 2, 3, 4, 7, 8, 64, 1000, 1UL << 30 };
	size_t i;
	int a;

	for (a = 0; a < ALGO_LINK_AR_COUNT; a++)
		for (i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
			double S, prev = 0;

			for (S = 1; S <= 1125899906842624.0; S *= 4) {
				double t = t_link(OP_ALLREDUCE, (enum coll_algo)a, &seed, ranks[i], S);
				double busbw = S / t * busbw_factor(OP_ALLREDUCE, ranks[i]);

				CHECK(isfinite(t) && t > 0);
				CHECK(t >= prev);
				if (a == ALGO_RING || a == ALGO_DBTREE || a == ALGO_RABENSEIFNER)
					CHECK(busbw <= seed.beta * (1 + 1e-12));
				prev = t;
			}
		}
	/* ring's busbw tends to β at large sizes */
	DBL_NEAR(1125899906842624.0 / t_link(OP_ALLREDUCE, ALGO_RING, &seed, 8, 1125899906842624.0) *
		 busbw_factor(OP_ALLREDUCE, 8), 200e9, 1e-6);
}

void test_model_busbw_factor(void)
{
	DBL_NEAR(busbw_factor(OP_ALLREDUCE, 8), 1.75, 1e-15);
	DBL_NEAR(busbw_factor(OP_ALLGATHER, 8), 0.875, 1e-15);
	DBL_NEAR(busbw_factor(OP_REDUCESCATTER, 4), 0.75, 1e-15);
	DBL_NEAR(busbw_factor(OP_ALLTOALL, 2), 0.5, 1e-15);
	DBL_NEAR(busbw_factor(OP_BROADCAST, 8), 1, 0);
	DBL_NEAR(busbw_factor(OP_SENDRECV, 2), 1, 0);
}

void test_model_names(void)
{
	struct errbuf eb;
	enum coll_algo algos[ALGO_COUNT];
	enum coll_op op;
	enum coll_algo a;

	INT_EQ(ar_algo_parse_list("ring,tree", algos, &eb), 2);
	INT_EQ(algos[0], ALGO_RING);
	INT_EQ(algos[1], ALGO_TREE);
	INT_EQ(ar_algo_parse_list("ring,dbtree,rd,rabenseifner,tree", algos, &eb), 5);
	INT_EQ(ar_algo_parse_list("ring,ring", algos, &eb), -1);
	STR_EQ(eb.msg, "algorithm 'ring' given twice");
	INT_EQ(ar_algo_parse_list("ring,", algos, &eb), -1);
	INT_EQ(ar_algo_lookup("bogus", &a, &eb), -1);
	STR_EQ(eb.msg, "unknown algorithm 'bogus' (choose from ring, tree, dbtree, rd, rabenseifner)");
	/* A plan CSV's algo column may name any algorithm commtime writes. */
	INT_EQ(coll_algo_lookup("nvlstree", &a, &eb), 0);
	INT_EQ(a, ALGO_NVLSTREE);
	INT_EQ(coll_algo_lookup("hierhd", &a, &eb), 0);
	INT_EQ(a, ALGO_HIERHD);
	INT_EQ(coll_algo_lookup("ring", &a, &eb), 0);
	INT_EQ(a, ALGO_RING);
	INT_EQ(coll_algo_lookup("Ring", &a, &eb), -1);
	STR_EQ(eb.msg, "unknown algorithm 'Ring' (choose from ring, tree, dbtree, rd, "
	       "rabenseifner, pairwise, p2p, hier, nvls, nvlstree, collnet, pat, hierhd)");
	INT_EQ(coll_op_lookup("all_reduce_perf", &op, &eb), 0);
	INT_EQ(op, OP_ALLREDUCE);
	INT_EQ(coll_op_lookup("allgather", &op, &eb), 0);
	INT_EQ(op, OP_ALLGATHER);
	INT_EQ(coll_op_lookup("alltoall_perf", &op, &eb), 0);
	INT_EQ(op, OP_ALLTOALL);
	INT_EQ(coll_op_lookup("reduce", &op, &eb), 0);
	INT_EQ(op, OP_REDUCE);
	INT_EQ(coll_op_lookup("gather", &op, &eb), -1);
	/* nccl-tests built with MPI=1 names its binaries *_perf_mpi */
	INT_EQ(coll_op_lookup("broadcast_perf_mpi", &op, &eb), 0);
	INT_EQ(op, OP_BROADCAST);
	INT_EQ(coll_op_lookup("broadcast_mpi", &op, &eb), -1);
}

void test_crossover_closed_form(void)
{
	/* Brent on the difference agrees with S* = αβ(n−1−L)/(L−(n−1)/n) */
	static const struct link links[] = {
		{ 5e-6, 200e9, 0 }, { 1e-6, 25e9, 0 }, { 2e-3, 5e6, 0 }, { 1e-9, 1e15, 0 }
	};
	size_t i;
	unsigned long n;

	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		for (n = 4; n <= 1024; n++) {
			struct crossing c;
			struct errbuf eb;
			double want = crossover_ring_tree(&links[i], n);

			if (isnan(want) || want < CROSS_LO || want > CROSS_HI)
				continue;
			INT_EQ(crossover_allreduce(ALGO_RING, ALGO_TREE, &links[i], n,
						   CROSS_LO, CROSS_HI, &c, &eb), 0);
			INT_EQ(c.result, CROSS_FOUND);
			DBL_NEAR(c.bytes, want, 1e-9);
			INT_EQ(c.below, 1);   /* tree is faster below */
			DBL_NEAR(t_link(OP_ALLREDUCE, ALGO_RING, &links[i], n, c.bytes),
				 t_link(OP_ALLREDUCE, ALGO_TREE, &links[i], n, c.bytes), 1e-9);
		}
}

void test_crossover_hand_values(void)
{
	struct crossing c;
	struct errbuf eb;

	/* n = 4: L = 2, S* = αβ·1/1.25 = 0.8 · 1e6 B */
	DBL_NEAR(crossover_ring_tree(&seed, 4), 800000, 1e-12);
	/* n = 64: L = 6, S* = 1e6 · 57/(6 − 63/64) = 1e6 · 57 · 64/321 */
	DBL_NEAR(crossover_ring_tree(&seed, 64), 1e6 * 57 * 64 / 321, 1e-12);
	/* n = 2 and 3: ring is never slower */
	CHECK(isnan(crossover_ring_tree(&seed, 2)));
	CHECK(isnan(crossover_ring_tree(&seed, 3)));
	INT_EQ(crossover_allreduce(ALGO_RING, ALGO_TREE, &seed, 2, CROSS_LO, CROSS_HI, &c, &eb), 0);
	INT_EQ(c.result, CROSS_A_ALWAYS);
	INT_EQ(crossover_allreduce(ALGO_TREE, ALGO_RING, &seed, 3, CROSS_LO, CROSS_HI, &c, &eb), 0);
	INT_EQ(c.result, CROSS_B_ALWAYS);
	/* one rank: both cost nothing */
	INT_EQ(crossover_allreduce(ALGO_RING, ALGO_TREE, &seed, 1, CROSS_LO, CROSS_HI, &c, &eb), 0);
	INT_EQ(c.result, CROSS_EQUAL);
	/* an algorithm against itself */
	INT_EQ(crossover_allreduce(ALGO_RD, ALGO_RD, &seed, 8, CROSS_LO, CROSS_HI, &c, &eb), 0);
	INT_EQ(c.result, CROSS_EQUAL);
	/* a crossover outside the bracket is not invented */
	INT_EQ(crossover_allreduce(ALGO_RING, ALGO_TREE, &seed, 64, 1, 1000, &c, &eb), 0);
	INT_EQ(c.result, CROSS_B_ALWAYS);
	CHECK(isnan(c.bytes));
	/* bad brackets */
	INT_EQ(crossover_allreduce(ALGO_RING, ALGO_TREE, &seed, 64, 0, 1000, &c, &eb), -1);
	INT_EQ(crossover_allreduce(ALGO_RING, ALGO_TREE, &seed, 64, 10, 1, &c, &eb), -1);
}

void test_crossover_dbtree_ring(void)
{
	/* ring: 2(n−1)α + 2(n−1)S/(nβ); dbtree: 2Lα + 2S/β.  Equal where
	 * S = αβ n (n−1−L)/1 ... solve by hand: 2(n−1)α − 2Lα = S(2/β − 2(n−1)/(nβ))
	 * = 2S/(nβ), so S* = αβ n (n−1−L). */
	struct crossing c;
	struct errbuf eb;

	INT_EQ(crossover_allreduce(ALGO_RING, ALGO_DBTREE, &seed, 8, CROSS_LO, CROSS_HI, &c, &eb), 0);
	INT_EQ(c.result, CROSS_FOUND);
	DBL_NEAR(c.bytes, 5e-6 * 200e9 * 8 * (7 - 3), 1e-9);
	INT_EQ(c.below, 1);
}
