/*
 * The cost-model core: the single-link collectives against hand values,
 * the tier models of a system against hand values (to 1e-6 and better),
 * and the rule that one node is exactly the single-link model.
 */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "cost.h"

static const struct link seed = { 5e-6, 200e9, 0 };

/* An 8-GPU node like a DGX H100: NVLink 4 (4 µs, 370 GB/s), 8 NDR ports (4 µs, 48 GB/s). */
static struct system dgx(void)
{
	return (struct system){
		.name = "test", .gpus_per_node = 8,
		.intra = { .name = "nvl", .link = { 4e-6, 370e9, 0 }, .beta_line = 450e9 },
		.nics_per_node = 8, .have_inter = 1,
		.inter = { .name = "ib", .link = { 4e-6, 48e9, 0 }, .beta_line = 50e9 },
		.p2p = 1, .price_per_gpu_hour = NAN,
	};
}

static double tcoll(const struct cost_model *m, enum coll_op op, enum coll_algo a,
		    unsigned long n, unsigned long per_node, double S)
{
	struct group g = { .ranks = n, .per_node = per_node };
	struct coll_cost c;
	struct errbuf eb;

	if (cost_coll(m, op, a, &g, S, &c, &eb) < 0)
		return NAN;
	return c.time_s;
}

void test_cost_link_collectives(void)
{
	struct cost_model m;
	const double S = 1e6;

	cost_model_link(&m, &seed);
	/* all-reduce ring, the seed: 2(n-1)(α + S/(nβ)) */
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_RING, 4, 0, 4096), 30.03072e-6, 1e-12);
	/* all-gather and reduce-scatter ring: (n-1)(α + S/(nβ)) = 7(5 µs + 0.625 µs) */
	DBL_NEAR(tcoll(&m, OP_ALLGATHER, ALGO_RING, 8, 0, S), 7 * 5.625e-6, 1e-12);
	DBL_NEAR(tcoll(&m, OP_REDUCESCATTER, ALGO_RING, 8, 0, S), 7 * 5.625e-6, 1e-12);
	/* all-to-all pairwise: (n-1)(α + S/(nβ)), S one rank's send buffer */
	DBL_NEAR(tcoll(&m, OP_ALLTOALL, ALGO_PAIRWISE, 8, 0, S), 7 * 5.625e-6, 1e-12);
	/* broadcast and reduce, pipelined ring: (n-1)α + S/β = 35 + 5 µs */
	DBL_NEAR(tcoll(&m, OP_BROADCAST, ALGO_RING, 8, 0, S), 40e-6, 1e-12);
	DBL_NEAR(tcoll(&m, OP_REDUCE, ALGO_RING, 8, 0, S), 40e-6, 1e-12);
	/* binomial tree broadcast: ⌈log2 8⌉(α + S/β) = 3·10 µs */
	DBL_NEAR(tcoll(&m, OP_BROADCAST, ALGO_TREE, 8, 0, S), 30e-6, 1e-12);
	/* send/recv: α + S/β */
	DBL_NEAR(tcoll(&m, OP_SENDRECV, ALGO_P2P, 2, 0, S), 10e-6, 1e-12);
	/* recursive-doubling all-gather: log2 8·α + 7/8·S/β = 15 + 4.375 µs */
	DBL_NEAR(tcoll(&m, OP_ALLGATHER, ALGO_RD, 8, 0, S), 19.375e-6, 1e-12);
	/* one rank costs nothing */
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_RING, 1, 0, S), 0, 0);
	/* algorithms that the link has not for a collective are refused */
	CHECK(isnan(tcoll(&m, OP_ALLTOALL, ALGO_RING, 8, 0, S)));
	CHECK(isnan(tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 8, 0, S)));
}

void test_cost_link_terms(void)
{
	struct cost_model m;
	struct group g = { .ranks = 8 };
	struct coll_cost c;
	struct errbuf eb;
	struct link_coeffs k;

	cost_model_link(&m, &seed);
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_RING, &g, 1e6, &c, &eb), 0);
	DBL_NEAR(c.latency_s, 14 * 5e-6, 1e-12);
	DBL_NEAR(c.bandwidth_s, 14 * 1e6 / 8 / 200e9, 1e-9);
	INT_EQ(c.bound, TIER_INTRA);
	INT_EQ(c.algo, ALGO_RING);
	INT_EQ(c.proto, PROTO_NONE);
	/* choose: at 4 KiB on 64 ranks a log-depth algorithm is fastest; at 1 GiB
	 * Rabenseifner (126 α of the ring against its 12, the same volume) */
	g.ranks = 64;
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_AUTO, &g, 4096, &c, &eb), 0);
	CHECK(c.algo != ALGO_RING);
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_AUTO, &g, 1 << 30, &c, &eb), 0);
	INT_EQ(c.algo, ALGO_RABENSEIFNER);
	/* coefficients: ring all-reduce a = 2(n-1), b = 2(n-1)/n, c = (n-1)/n */
	INT_EQ(cost_link_coeffs(OP_ALLREDUCE, ALGO_RING, 8, &k, &eb), 0);
	DBL_NEAR(k.a, 14, 1e-15);
	DBL_NEAR(k.b, 1.75, 1e-15);
	DBL_NEAR(k.c, 0.875, 1e-12);
	INT_EQ(cost_link_coeffs(OP_ALLTOALL, ALGO_RING, 8, &k, &eb), -1);
}

void test_cost_algo_names(void)
{
	struct cost_model m;
	struct system s = dgx();
	enum coll_algo a[ALGO_COUNT];
	struct errbuf eb;

	cost_model_link(&m, &seed);
	INT_EQ(cost_algo_parse_list(&m, OP_ALLREDUCE, "ring,tree,dbtree", a, &eb), 3);
	INT_EQ(cost_algo_parse_list(&m, OP_ALLREDUCE, "hier", a, &eb), -1);
	STR_EQ(eb.msg, "unknown algorithm 'hier' for all_reduce on a link "
	       "(choose from ring, tree, dbtree, rd, rabenseifner)");
	INT_EQ(cost_algo_default(&m, OP_ALLTOALL), ALGO_PAIRWISE);
	INT_EQ(cost_algo_default(&m, OP_SENDRECV), ALGO_P2P);
	cost_model_tiers(&m, &s);
	INT_EQ(cost_algo_parse_list(&m, OP_ALLREDUCE, "ring,hier", a, &eb), 2);
	/* "tree" will mean NCCL's tree on a system: the tiers model has none */
	INT_EQ(cost_algo_parse_list(&m, OP_ALLREDUCE, "tree", a, &eb), -1);
	STR_EQ(eb.msg, "unknown algorithm 'tree' for all_reduce in the tiers model "
	       "(choose from ring, hier, hierhd)");
	/* hierhd is an all-reduce only */
	INT_EQ(cost_algo_parse_list(&m, OP_ALLGATHER, "hierhd", a, &eb), -1);
}

void test_cost_tiers_hand_values(void)
{
	struct system s = dgx();
	struct cost_model m;
	const double S = 1073741824.0;

	cost_model_tiers(&m, &s);
	/*
	 * hier, 2 nodes of 8: 2·7·4 µs + 2·7/8·S/370 GB/s + 2·1·4 µs
	 * + 2·1/2·S/(8·48 GB/s), computed by hand (models/system.md).
	 */
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 16, 0, S), 0.007938711293693694, 1e-9);
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 64, 0, S), 0.010083863293693693, 1e-9);
	/* ring, 2 nodes: 2(n-N)α_i + 2(N-1)α_e + 2(n-1)/n·S/min(β_i, Kβ_e) */
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_RING, 16, 0, S), 0.005561259243243244, 1e-9);
	/* pairwise all-to-all, 2 nodes: the half of each GPU's data that leaves the node */
	DBL_NEAR(tcoll(&m, OP_ALLTOALL, ALGO_PAIRWISE, 16, 0, S), 0.011244810666666665, 1e-9);
	/* one rank per node (tensor parallel 8): one NIC per group */
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 16, 1, S), 0.04206304, 1e-9);
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_RING, 16, 1, S), 0.04206304, 1e-9);
}

void test_cost_tiers_one_node(void)
{
	struct system s = dgx();
	struct cost_model m, l;
	const double sizes[] = { 0, 8, 4096, 1e6, 1073741824.0, 8e9 };
	unsigned long n;
	size_t i;
	int op;

	cost_model_tiers(&m, &s);
	cost_model_link(&l, &s.intra.link);
	/* One node is exactly the single-link model on the intra link, bit for bit. */
	for (n = 1; n <= 8; n++)
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			for (op = 0; op < OP_COUNT; op++) {
				enum coll_algo a = cost_algo_default(&m, (enum coll_op)op);
				double t = tcoll(&m, (enum coll_op)op, a, n, 0, sizes[i]);

				CHECK(t == tcoll(&l, (enum coll_op)op, a, n, 0, sizes[i]));
			}
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_RING, 8, 0, 1073741824.0), 0.005134508627027027, 1e-12);
	CHECK(tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 8, 0, 1e6) ==
	      tcoll(&l, OP_ALLREDUCE, ALGO_RING, 8, 0, 1e6));
}

void test_cost_tiers_bound(void)
{
	struct system s = dgx();
	struct cost_model m;
	struct group g = { .ranks = 16 };
	struct coll_cost c;
	struct errbuf eb;

	/* Slow NICs: 4 ports of 12.5 GB/s.  Latency-bound sizes sit on NVLink's
	 * 14 steps, large ones on the NICs. */
	s.nics_per_node = 4;
	s.inter.link.beta = 12.5e9;
	cost_model_tiers(&m, &s);
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_HIER, &g, 8, &c, &eb), 0);
	INT_EQ(c.bound, TIER_INTRA);
	INT_EQ((long long)c.nodes, 2);
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_HIER, &g, 1 << 30, &c, &eb), 0);
	INT_EQ(c.bound, TIER_INTER);
	DBL_NEAR(c.time_s, c.latency_s + c.bandwidth_s, 1e-15);
	/* the 16-rank group needs the NICs: none, an error naming the system */
	s.nics_per_node = 0;
	s.have_inter = 0;
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_HIER, &g, 8, &c, &eb), -1);
	STR_EQ(eb.msg, "system 'test' has no NICs (nics_per_node 0) but 16 ranks need "
	       "2 nodes of 8 GPUs");
	/* more ranks per node than the node has */
	g.per_node = 9;
	INT_EQ(cost_coll(&m, OP_ALLREDUCE, ALGO_HIER, &g, 8, &c, &eb), -1);
}

void test_cost_two_nodes_slower(void)
{
	struct system s = dgx();
	struct cost_model m;
	const double G = 13476831232.0;   /* Llama-2-7B gradient, bf16 */

	cost_model_tiers(&m, &s);
	CHECK(tcoll(&m, OP_ALLREDUCE, ALGO_RING, 16, 0, G) >
	      tcoll(&m, OP_ALLREDUCE, ALGO_RING, 8, 0, G));
	CHECK(tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 16, 0, G) >
	      tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 8, 0, G));
}

/* A stand-in for NCCL's model with a protocol switch at 100 kB:
 * 10 µs + S/(10 GB/s) below, 20 µs + S/(20 GB/s) from there on. */
static int two_protocols(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
			 const struct group *g, double bytes, struct coll_cost *out,
			 struct errbuf *eb)
{
	(void)m, (void)op, (void)g, (void)eb;
	*out = (struct coll_cost){ .algo = algo, .proto = PROTO_NONE, .nodes = 1 };
	out->time_s = bytes < 1e5 ? 10e-6 + bytes / 10e9 : 20e-6 + bytes / 20e9;
	return 0;
}

void test_cost_n_half(void)
{
	const struct link gl = { 5e-6, 200e9, 1e-11 };
	struct system s = dgx();
	struct cost_model m;
	struct group g8 = { .ranks = 8 }, g16 = { .ranks = 16 }, g1 = { .ranks = 1 };
	struct errbuf eb;
	double nh, u;
	int a;

	/* one transfer on the seed's link: αβ = 1 MB, as the seed's header prints it */
	DBL_NEAR(cost_n_half(1, seed.alpha, seed.beta, 1), 1e6, 1e-15);
	CHECK(cost_n_half(1, seed.alpha, seed.beta, 1) == seed.alpha * seed.beta);
	cost_model_link(&m, &seed);
	CHECK(cost_coll_n_half(&m, OP_SENDRECV, ALGO_P2P, &(struct group){ .ranks = 2 },
			       &nh, &eb) == 0);
	DBL_NEAR(nh, 1e6, 1e-15);
	/* ring all-reduce on n ranks: 2(n-1)α·β / (2(n-1)/n) = nαβ = 8 MB */
	CHECK(cost_coll_n_half(&m, OP_ALLREDUCE, ALGO_RING, &g8, &nh, &eb) == 0);
	DBL_NEAR(nh, 8e6, 1e-12);
	/* the seed's tree: 2Lα·β / 2L = αβ; the double binary tree: 2Lα·β/2 = 3 MB */
	CHECK(cost_coll_n_half(&m, OP_ALLREDUCE, ALGO_TREE, &g8, &nh, &eb) == 0);
	DBL_NEAR(nh, 1e6, 1e-12);
	CHECK(cost_coll_n_half(&m, OP_ALLREDUCE, ALGO_DBTREE, &g8, &nh, &eb) == 0);
	DBL_NEAR(nh, 3e6, 1e-12);
	/* the definition: at n½ algbw is half of its limit, for every link algorithm */
	for (a = ALGO_RING; a < ALGO_LINK_AR_COUNT; a++) {
		struct link_coeffs k;

		CHECK(cost_coll_n_half(&m, OP_ALLREDUCE, (enum coll_algo)a, &g16, &nh, &eb) == 0);
		CHECK(cost_link_coeffs(OP_ALLREDUCE, (enum coll_algo)a, 16, &k, &eb) == 0);
		DBL_NEAR(nh / tcoll(&m, OP_ALLREDUCE, (enum coll_algo)a, 16, 0, nh),
			 seed.beta / k.b / 2, 1e-12);
	}
	/* γ lowers the limit: ring on 8, 14α = 70 µs over 1.75/β + 0.875γ = 17.5 ps/B: 4 MB */
	cost_model_link(&m, &gl);
	CHECK(cost_coll_n_half(&m, OP_ALLREDUCE, ALGO_RING, &g8, &nh, &eb) == 0);
	DBL_NEAR(nh, 4e6, 1e-12);
	/* one rank moves nothing: an error, not a number */
	CHECK(cost_coll_n_half(&m, OP_ALLREDUCE, ALGO_RING, &g1, &nh, &eb) < 0);
	/* tiers, hier on 2 nodes of 8: L = 2·7·4 µs + 2·1·4 µs = 64 µs,
	 * u = 1.75/370 GB/s + 1/(8·48 GB/s) */
	cost_model_tiers(&m, &s);
	u = 1.75 / 370e9 + 1 / 384e9;
	CHECK(cost_coll_n_half(&m, OP_ALLREDUCE, ALGO_HIER, &g16, &nh, &eb) == 0);
	DBL_NEAR(nh, 64e-6 / u, 1e-9);
	/* a model that is not affine, solved: 20 µs · 20 GB/s = 400 kB */
	m = (struct cost_model){ .kind = COST_NCCL, .coll = two_protocols };
	CHECK(cost_coll_n_half(&m, OP_ALLREDUCE, ALGO_RING, &g8, &nh, &eb) == 0);
	DBL_NEAR(nh, 4e5, 1e-6);
}

/* A run across nodes of a system without NICs: every model says so with
 * the preset's file:line and key, never a message of its own. */
void test_cost_no_nics_message(void)
{
	struct system s = dgx();
	struct cost_model m;
	struct group g = { .ranks = 16 }, split = { .ranks = 4, .per_node = 2 };
	struct coll_cost c;
	struct errbuf eb;

	s.nics_per_node = 0;
	s.have_inter = 0;
	s.path = "sys.preset";
	s.nics_line = 7;
	cost_model_tiers(&m, &s);
	CHECK(cost_coll(&m, OP_ALLREDUCE, ALGO_AUTO, &g, 1e6, &c, &eb) < 0);
	STR_EQ(eb.msg, "sys.preset:7: nics_per_node: no NICs, but 16 ranks need 2 nodes of 8 GPUs");
	CHECK(cost_coll(&m, OP_ALLGATHER, ALGO_HIER, &g, 1e6, &c, &eb) < 0);
	STR_EQ(eb.msg, "sys.preset:7: nics_per_node: no NICs, but 16 ranks need 2 nodes of 8 GPUs");
	/* 2 ranks per node: 4 ranks span 2 nodes */
	CHECK(cost_coll(&m, OP_ALLREDUCE, ALGO_RING, &split, 1e6, &c, &eb) < 0);
	CHECK(strstr(eb.msg, "sys.preset:7: nics_per_node: no NICs") == eb.msg);
	/* one node needs no NIC */
	CHECK(cost_coll(&m, OP_ALLREDUCE, ALGO_RING, &(struct group){ .ranks = 8 }, 1e6, &c, &eb) == 0);
	/* NCCL's model is asked only once the group fits the machine */
	m = (struct cost_model){ .kind = COST_NCCL, .sys = &s, .coll = two_protocols };
	CHECK(cost_coll(&m, OP_ALLREDUCE, ALGO_AUTO, &g, 1e6, &c, &eb) < 0);
	STR_EQ(eb.msg, "sys.preset:7: nics_per_node: no NICs, but 16 ranks need 2 nodes of 8 GPUs");
	CHECK(cost_coll(&m, OP_ALLREDUCE, ALGO_AUTO, &(struct group){ .ranks = 8 }, 1e6, &c, &eb) == 0);
}

/*
 * hierhd, by hand on the DGX-like system: reduce into one buffer per node
 * and broadcast back, (G-1)α_i + S/β_i each; recursive halving and
 * doubling across N nodes over the node's 8 NICs (B_e = 384 GB/s),
 * 2 log2 N·α_e + 2(N-1)/N·S/B_e, two more steps of S when N is not a
 * power of two.
 */
void test_cost_tiers_hierhd(void)
{
	struct system s = dgx();
	struct cost_model m;
	const double S = 1073741824.0, Be = 8 * 48e9;
	struct group g6 = { .ranks = 48 };
	struct coll_cost c;
	struct errbuf eb;

	cost_model_tiers(&m, &s);
	/* 2 nodes: 2·7·4 µs + 2S/370 GB/s + 2·1·4 µs + 2·1/2·S/384 GB/s = 8664.21 µs */
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_HIERHD, 16, 0, S),
		 56e-6 + 2 * S / 370e9 + 8e-6 + S / Be, 1e-12);
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_HIERHD, 16, 0, S), 8664.2125e-6, 1e-7);
	/* 8 nodes: log2 8 = 3, 6 steps of α_e, 2·7/8 of S */
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_HIERHD, 64, 0, S),
		 56e-6 + 2 * S / 370e9 + 24e-6 + 1.75 * S / Be, 1e-12);
	/* 6 nodes: 4 + 2 steps of α_e, (2·3/4 + 2)·S through the NICs */
	CHECK(cost_coll(&m, OP_ALLREDUCE, ALGO_HIERHD, &g6, S, &c, &eb) == 0);
	DBL_NEAR(c.time_s, 56e-6 + 2 * S / 370e9 + 24e-6 + 3.5 * S / Be, 1e-12);
	DBL_NEAR(c.latency_s, 56e-6 + 24e-6, 1e-12);
	/* the NICs' 24 µs + 9.79 ms outweigh NVLink's 56 µs + 5.80 ms */
	INT_EQ(c.bound, TIER_INTER);
	/* latency: on 8 nodes hierhd pays 3 NIC steps each way where hier pays 7 */
	CHECK(tcoll(&m, OP_ALLREDUCE, ALGO_HIERHD, 64, 0, 1024) <
	      tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 64, 0, 1024));
	/* one node: the single-link ring on the intra link, as hier */
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_HIERHD, 8, 0, S),
		 t_link(OP_ALLREDUCE, ALGO_RING, &s.intra.link, 8, S), 0);
	/* only all-reduce */
	CHECK(isnan(tcoll(&m, OP_ALLGATHER, ALGO_HIERHD, 16, 0, S)));
}

/*
 * The NICs a group gets (cost_nic_share): 8 NICs and 8 GPUs, a group of 2
 * per node gets 2 whole NICs; 2 NICs shared by four groups of 2 give each
 * half a NIC: the tiers model charges 0.5 NIC of bandwidth, NCCL's
 * topology sees 1 NIC at half its rate; 4 NICs for a group of 3 of 8
 * GPUs: 1.5 NICs of bandwidth, 1 whole NIC for NCCL.
 */
void test_cost_nic_share(void)
{
	struct nic_share k;

	cost_nic_share(8, 2, 8, &k);
	DBL_NEAR(k.nics, 2, 0);
	INT_EQ(k.whole, 2);
	DBL_NEAR(k.scale, 1, 0);
	cost_nic_share(2, 2, 8, &k);
	DBL_NEAR(k.nics, 0.5, 0);
	INT_EQ(k.whole, 1);
	DBL_NEAR(k.scale, 0.5, 0);
	cost_nic_share(4, 3, 8, &k);
	DBL_NEAR(k.nics, 1.5, 0);
	INT_EQ(k.whole, 1);
	DBL_NEAR(k.scale, 1, 0);
	cost_nic_share(1, 4, 8, &k);
	INT_EQ(k.whole, 1);
	DBL_NEAR(k.scale, 0.5, 0);
	/* the whole node, and a node without NICs */
	cost_nic_share(8, 0, 8, &k);
	INT_EQ(k.whole, 8);
	DBL_NEAR(k.nics, 8, 0);
	cost_nic_share(8, 16, 8, &k);
	INT_EQ(k.whole, 8);
	cost_nic_share(0, 2, 8, &k);
	INT_EQ(k.whole, 0);
	DBL_NEAR(k.nics, 0, 0);
}

/*
 * The γ term of recursive halving reduce-scatter (Thakur, Rabenseifner &
 * Gropp 2005): each rank reduces (n-1)/n of the buffer, 7/8 on 8 ranks
 * and, when n is not a power of two, the same volume: 5/6 on 6 ranks.
 * On a link of α = 0, β = 1 TB/s, γ = 1 ns/B, 8 MB on 8 ranks costs
 * 7/8·8e6/1e12 s + 7/8·8e6·1e-9 s = 7 µs + 7 ms.
 */
void test_cost_rd_reducescatter_gamma(void)
{
	struct link l = { .alpha = 0, .beta = 1e12, .gamma = 1e-9 };
	struct link_coeffs c;
	struct cost_model m;
	struct errbuf eb;

	INT_EQ(cost_link_coeffs(OP_REDUCESCATTER, ALGO_RD, 8, &c, &eb), 0);
	DBL_NEAR(c.a, 3, 1e-15);
	DBL_NEAR(c.b, 0.875, 1e-15);
	DBL_NEAR(c.c, 0.875, 1e-12);
	INT_EQ(cost_link_coeffs(OP_REDUCESCATTER, ALGO_RD, 6, &c, &eb), 0);
	DBL_NEAR(c.a, 3, 1e-15);
	DBL_NEAR(c.c, 5.0 / 6, 1e-12);
	/* all-gather moves the same and reduces nothing */
	INT_EQ(cost_link_coeffs(OP_ALLGATHER, ALGO_RD, 8, &c, &eb), 0);
	DBL_NEAR(c.c, 0, 0);
	cost_model_link(&m, &l);
	DBL_NEAR(cost_time(&m, OP_REDUCESCATTER, ALGO_RD, 8, 8e6), 7e-6 + 7e-3, 1e-12);
}

/*
 * A group of 3 ranks per node of 8 GPUs with 4 NICs gets 1.5 NICs of
 * bandwidth in the tiers model (cost_nic_share's fractional share, not
 * NCCL's one whole NIC): hier all-reduce on 6 ranks, 2 nodes,
 * S = 1 GiB: 2·2·4 µs + 2·2/3·S/370 GB/s + 2·1·4 µs + 2·1/2·S/(1.5·48 GB/s).
 */
void test_cost_tiers_nic_share(void)
{
	struct system s = dgx();
	struct cost_model m;
	const double S = 1073741824.0;

	s.nics_per_node = 4;
	cost_model_tiers(&m, &s);
	DBL_NEAR(tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 6, 3, S),
		 16e-6 + 4.0 / 3 * S / 370e9 + 8e-6 + S / (1.5 * 48e9), 1e-12);
}

/*
 * The binomial tree of broadcast and reduce takes ⌈log2 n⌉ steps of the
 * whole buffer: on 6 ranks 3 steps, 3·(5 µs + 1e6/200e9 s) = 30 µs, and
 * reduce adds the reduction of the buffer at each step, 3·1e6·1e-12 s.
 */
void test_cost_bcast_tree_steps(void)
{
	struct link l = { 5e-6, 200e9, 1e-12 };
	struct cost_model m;
	struct link_coeffs c;
	struct errbuf eb;

	cost_model_link(&m, &l);
	DBL_NEAR(cost_time(&m, OP_BROADCAST, ALGO_TREE, 6, 1e6), 30e-6, 1e-12);
	DBL_NEAR(cost_time(&m, OP_REDUCE, ALGO_TREE, 6, 1e6), 30e-6 + 3e-6, 1e-12);
	INT_EQ(cost_link_coeffs(OP_BROADCAST, ALGO_TREE, 5, &c, &eb), 0);
	DBL_NEAR(c.a, 3, 0);
	DBL_NEAR(c.b, 3, 0);
}

/*
 * The γ terms of the pipelined double binary tree (the buffer reduced
 * once: c = 1) and of Rabenseifner on 6 ranks (halving over 4 ranks
 * reduces 3/4 of it, the extra ranks' exchange all of it once more:
 * 1.75), as the second check beside their time tests.
 */
void test_cost_gamma_coeffs(void)
{
	struct link_coeffs c;
	struct errbuf eb;

	INT_EQ(cost_link_coeffs(OP_ALLREDUCE, ALGO_DBTREE, 8, &c, &eb), 0);
	DBL_NEAR(c.c, 1, 1e-12);
	INT_EQ(cost_link_coeffs(OP_ALLREDUCE, ALGO_RABENSEIFNER, 6, &c, &eb), 0);
	DBL_NEAR(c.a, 6, 0);
	DBL_NEAR(c.c, 1.75, 1e-12);
	INT_EQ(cost_link_coeffs(OP_ALLREDUCE, ALGO_RABENSEIFNER, 8, &c, &eb), 0);
	DBL_NEAR(c.c, 0.875, 1e-12);
}

/*
 * A calibrated system's per-call base latencies are paid once, the intra
 * tier's and the inter tier's (tier_finish): 1 µs and 2 µs add 3 µs to
 * any collective across nodes, and only 1 µs inside one node.
 */
void test_cost_tiers_base_latency(void)
{
	struct system s = dgx();
	struct cost_model m;
	double t0, t1, u0, u1;

	cost_model_tiers(&m, &s);
	t0 = tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 16, 0, 1e6);
	u0 = tcoll(&m, OP_ALLREDUCE, ALGO_RING, 8, 0, 1e6);
	s.intra.base = 1e-6;
	s.inter.base = 2e-6;
	t1 = tcoll(&m, OP_ALLREDUCE, ALGO_HIER, 16, 0, 1e6);
	u1 = tcoll(&m, OP_ALLREDUCE, ALGO_RING, 8, 0, 1e6);
	DBL_NEAR(t1 - t0, 3e-6, 1e-9);
	DBL_NEAR(u1 - u0, 1e-6, 1e-9);
}

/*
 * Pairwise all-to-all across 2 nodes of 8 (n = 16, G = 8): the node's
 * 8 GPUs push 8·S·8/16 through its 8 NICs while each GPU moves S·7/16
 * over NVLink; the NICs are slower: 8·1e9·0.5/(8·48e9) s plus the
 * latencies 7·4 µs + 8·4 µs.
 */
void test_cost_tiers_pairwise_hand(void)
{
	struct system s = dgx();
	struct cost_model m;

	cost_model_tiers(&m, &s);
	DBL_NEAR(tcoll(&m, OP_ALLTOALL, ALGO_PAIRWISE, 16, 0, 1e9),
		 28e-6 + 32e-6 + 8 * 1e9 * 0.5 / (8 * 48e9), 1e-12);
}

/*
 * A model calibrated by a trace: the seed's link, ring all-reduce on 8
 * ranks, T(S) = 14(α + S/(8β)).  4 MiB is in the cell intra_medium:
 * T = 14 × (5e-6 + 4194304 / 1.6e12) = 1.0670016e-4 s, × 3 measured/
 * predicted = 3.2010048e-4 s, latency and size terms alike.  512 B is
 * in intra_small, not measured (NaN): the model's own 14 × (5e-6 +
 * 3.2e-10) = 7.000448e-5 s.  explain's chosen candidate is cost_coll's answer.
 */
void test_cost_calibrated(void)
{
	struct link l = { 5e-6, 200e9, 0 };
	struct cost_model inner, m;
	struct group g = { 8, 0 };
	struct coll_cost c;
	struct cost_explain x;
	double ratio[COST_CALIB_CELLS] = { NAN, 3, NAN, NAN, NAN, NAN }, a, b;

	CHECK(cost_calib_cell(0, 4194304) == 1);
	CHECK(cost_calib_cell(1, 512) == 3);
	CHECK(cost_calib_cell(1, 64.0 * 1048576) == 5);
	cost_model_link(&inner, &l);
	cost_model_calib(&m, &inner, ratio);
	CHECK(cost_coll(&m, OP_ALLREDUCE, ALGO_RING, &g, 4194304, &c, NULL) == 0);
	DBL_NEAR(c.time_s, 3.2010048e-4, 1e-12);
	DBL_NEAR(c.latency_s, 3 * 14 * 5e-6, 1e-12);
	DBL_NEAR(c.bandwidth_s, 3 * 14 * 2.62144e-6, 1e-12);
	CHECK(cost_coll(&m, OP_ALLREDUCE, ALGO_RING, &g, 512, &c, NULL) == 0);
	DBL_NEAR(c.time_s, 7.000448e-5, 1e-12);
	CHECK(cost_explain(&m, OP_ALLREDUCE, ALGO_RING, &g, 4194304, &x, NULL) == 0);
	DBL_NEAR(x.cand[0].cost.time_s, 3.2010048e-4, 1e-12);
	CHECK(cost_affine(&m, OP_ALLREDUCE, ALGO_RING, &g, &a, &b, NULL) == 0);
	CHECK(!strcmp(cost_model_label(&m), "link, calibrated by a trace"));
	CHECK(!strcmp(cost_model_label(&inner), "link"));
}
