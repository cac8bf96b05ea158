/*
 * NCCL's cost model (src/nccl_tune.c, src/nccl_model.c) against values
 * computed by hand from NCCL 2.30.7's src/graph/tuning.cc, search.cc and
 * topo.h (the lines are named in src/nccl_tune.c and src/nccl_model.c; the
 * derivations in models/nccl.md).
 */
#include "harness.h"
#include "nccl_model.h"
#include "nccl_cost.h"

#define P (&nccl_params_default)

/* DGX/HGX H100: 18 NVLinks per GPU to NVSwitch, PCIe 5, 8 NDR NICs. */
static const struct nccl_machine h100 = {
	.sm = 90, .gpus_per_node = 8, .nvlinks = 18, .nvswitch = 1, .nvls = 1,
	.pcie_gen = 5, .pcie_path = NCCL_PATH_PIX, .p2p = 1, .cpu = NCCL_CPU_INTEL,
	.nics_per_node = 8, .nic_bw = 50,
};

/* HGX A100: 12 NVLinks, PCIe 4, 8 HDR NICs, AMD hosts. */
static const struct nccl_machine a100 = {
	.sm = 80, .gpus_per_node = 8, .nvlinks = 12, .nvswitch = 1,
	.pcie_gen = 4, .pcie_path = NCCL_PATH_PIX, .p2p = 1, .cpu = NCCL_CPU_AMD,
	.nics_per_node = 8, .nic_bw = 25,
};

static struct nccl_tune tune(const struct nccl_machine *m, int ranks, unsigned am, unsigned pm)
{
	struct nccl_tune t;
	struct errbuf eb;
	int rc = nccl_tune_init(&t, P, m, ranks, am, pm, &eb);
	CHECK(rc == 0);
	return t;
}

void test_nccl_constants(void)
{
	DBL_NEAR(nccl_nvlink_bw(90), 20.6, 0);     /* topo.h:22 */
	DBL_NEAR(nccl_nvlink_bw(100), 40.1, 0);    /* topo.h:24 */
	DBL_NEAR(nccl_nvlink_bw(80), 20.0, 0);
	DBL_NEAR(nccl_pcie_bw(3, 16), 12.0, 0);    /* = PCI_BW, topo.h:25 */
	DBL_NEAR(nccl_pcie_bw(4, 16), 24.0, 0);    /* 16 × 120 / 80 */
	DBL_NEAR(nccl_pcie_bw(5, 16), 48.0, 0);
	DBL_NEAR(P->base_lat[NCCL_RING][NCCL_LL], 6.6, 0);
	DBL_NEAR(P->hw_lat[NCCL_HW_NET][NCCL_RING][NCCL_SIMPLE], 14.0, 0);
}

void test_nccl_graphs_one_node(void)
{
	struct nccl_graph g[NCCL_NALGO];

	/* H100: 370.8 GB/s of NVLink; 60 GB/s fits 6 channels (360), no
	 * slower speed does better; duplicated to 12 × 30. */
	nccl_graphs(&h100, 1, g);
	INT_EQ(g[NCCL_RING].nchannels, 12);
	DBL_NEAR(g[NCCL_RING].bw_intra, 30.0, 0);
	/* NVLS: 8 heads, (8+1)·s <= 370.8 gives s = 40; bwInter climbs to 60. */
	INT_EQ(g[NCCL_NVLS].nchannels, 8);
	DBL_NEAR(g[NCCL_NVLS].bw_intra, 40.0, 0);
	DBL_NEAR(g[NCCL_NVLS].bw_inter, 60.0, 0);

	/* A100: 240 GB/s; 6 × 40 fills it, duplicated to 12 × 20. */
	nccl_graphs(&a100, 1, g);
	INT_EQ(g[NCCL_RING].nchannels, 12);
	DBL_NEAR(g[NCCL_RING].bw_intra, 20.0, 0);
	INT_EQ(g[NCCL_NVLS].nchannels, 0);

	/* B200: 18 × 40.1 = 721.8; 8 × 90 first, duplicated to 16 × 45. */
	{
		struct nccl_machine b = h100;
		b.sm = 100;
		nccl_graphs(&b, 1, g);
		INT_EQ(g[NCCL_RING].nchannels, 16);
		DBL_NEAR(g[NCCL_RING].bw_intra, 45.0, 0);
	}
	/* PCIe 4 through an Intel host bridge: 24 × 5/6 = 20 GB/s, 1 channel at 20. */
	{
		struct nccl_machine l = { .sm = 89, .gpus_per_node = 4, .pcie_gen = 4,
			.pcie_path = NCCL_PATH_PHB, .p2p = 1, .cpu = NCCL_CPU_INTEL };
		nccl_graphs(&l, 1, g);
		INT_EQ(g[NCCL_RING].nchannels, 1);
		DBL_NEAR(g[NCCL_RING].bw_intra, 20.0, 0);
		/* under one switch: 24 GB/s, 2 × 12 */
		l.pcie_path = NCCL_PATH_PIX;
		nccl_graphs(&l, 1, g);
		INT_EQ(g[NCCL_RING].nchannels, 2);
		DBL_NEAR(g[NCCL_RING].bw_intra, 12.0, 0);
		/* across AMD sockets: the 16 GB/s socket link, 1 × 15 */
		l.pcie_path = NCCL_PATH_SYS;
		l.cpu = NCCL_CPU_AMD;
		nccl_graphs(&l, 1, g);
		INT_EQ(g[NCCL_RING].nchannels, 1);
		DBL_NEAR(g[NCCL_RING].bw_intra, 15.0, 0);
		/* across Intel sockets, taken as Sapphire Rapids (SRP_QPI_BW 22,
		 * topo.h:29): the fastest speed under 22 is 20, 1 × 20 */
		l.cpu = NCCL_CPU_INTEL;
		nccl_graphs(&l, 1, g);
		INT_EQ(g[NCCL_RING].nchannels, 1);
		DBL_NEAR(g[NCCL_RING].bw_intra, 20.0, 0);
		/* P2P off under one switch: diverted through the CPU
		 * (paths.cc:761-772), a PHB path with Intel's 6/5: 1 × 20 */
		l.pcie_path = NCCL_PATH_PIX;
		l.p2p = 0;
		nccl_graphs(&l, 1, g);
		INT_EQ(g[NCCL_RING].nchannels, 1);
		DBL_NEAR(g[NCCL_RING].bw_intra, 20.0, 0);
	}
}

void test_nccl_graphs_two_nodes(void)
{
	struct nccl_graph g[NCCL_NALGO];

	/* H100 over 8 NDR: 48 GB/s (min of PCIe 5 and the NIC) per channel,
	 * one per NIC; 8 × 48 = 384 >= 370.8 stops the search; not
	 * duplicated (sm90, 48 < 50, 8 > 4). */
	nccl_graphs(&h100, 2, g);
	INT_EQ(g[NCCL_RING].nchannels, 8);
	DBL_NEAR(g[NCCL_RING].bw_inter, 48.0, 0);
	/* NVLS: 9·48, 9·45, 9·42 exceed 370.8; 40 fits; bwInter up to 48. */
	DBL_NEAR(g[NCCL_NVLS].bw_intra, 40.0, 0);
	DBL_NEAR(g[NCCL_NVLS].bw_inter, 48.0, 0);

	/* A100 over 8 HDR: 24 GB/s (PCIe 4) per channel, 8 channels; the
	 * tree raises bwIntra to 30 (below 2 × 24, fits 240 × 8/7). */
	nccl_graphs(&a100, 2, g);
	INT_EQ(g[NCCL_RING].nchannels, 8);
	DBL_NEAR(g[NCCL_RING].bw_intra, 24.0, 0);
	DBL_NEAR(g[NCCL_TREE].bw_intra, 30.0, 0);
}

void test_nccl_tune_h100_one_node(void)
{
	struct nccl_tune t = tune(&h100, 8, ~0u, ~0u);
	const enum nccl_func ar = NCCL_ALLREDUCE;

	/* Ring/LL: 6.6 + 14 × 0.6 µs; min(141, 12·30·0.5) × 8/14 GB/s */
	DBL_NEAR(t.lat[ar][NCCL_RING][NCCL_LL], 15.0, 1e-12);
	DBL_NEAR(t.bw[ar][NCCL_RING][NCCL_LL], 141.0 * 8 / 14, 1e-12);
	/* Ring/Simple: 8.4 + 14 × 3.4; 360 × 8/14 */
	DBL_NEAR(t.lat[ar][NCCL_RING][NCCL_SIMPLE], 56.0, 1e-12);
	DBL_NEAR(t.bw[ar][NCCL_RING][NCCL_SIMPLE], 360.0 * 8 / 14, 1e-12);
	/* Ring/LL128: 14 + 14 × 1.9; min(360 × .92, 12 × 36.7) × 8/14 */
	DBL_NEAR(t.lat[ar][NCCL_RING][NCCL_LL128], 40.6, 1e-12);
	DBL_NEAR(t.bw[ar][NCCL_RING][NCCL_LL128], 331.2 * 8 / 14, 1e-12);
	/* Tree (a chain in one node): 6.8 + 2 × 7 × 0.6; LL: min(331.2/3.8, 141) × .5 */
	DBL_NEAR(t.lat[ar][NCCL_TREE][NCCL_LL], 15.2, 1e-12);
	DBL_NEAR(t.bw[ar][NCCL_TREE][NCCL_LL], 331.2 / 3.8 * .5, 1e-12);
	/* NVLS: 25 µs; min(40 × .85 × 7/8 × 2, 60) × 8 × 8/14 */
	DBL_NEAR(t.lat[ar][NCCL_NVLS][NCCL_SIMPLE], 25.0, 1e-12);
	DBL_NEAR(t.bw[ar][NCCL_NVLS][NCCL_SIMPLE], 59.5 * 8 * 8 / 14, 1e-6);
	/* no NVLS tree on one node, no LL on NVLS */
	DBL_NEAR(t.bw[ar][NCCL_NVLS_TREE][NCCL_SIMPLE], 0, 0);
	DBL_NEAR(t.bw[ar][NCCL_NVLS][NCCL_LL], 0, 0);
	/* all-gather ring: 7 steps, 8.4 + 7 × 3.4; 360 × 8/7 */
	DBL_NEAR(t.lat[NCCL_ALLGATHER][NCCL_RING][NCCL_SIMPLE], 32.2, 1e-12);
	DBL_NEAR(t.bw[NCCL_ALLGATHER][NCCL_RING][NCCL_SIMPLE], 360.0 * 8 / 7, 1e-12);
	/* all-gather NVLS: 40 × .85 × 7/8 × 7/8 × 8 channels, no conversion */
	DBL_NEAR(t.bw[NCCL_ALLGATHER][NCCL_NVLS][NCCL_SIMPLE], 40 * .85 * 7 / 8 * 7 / 8 * 8, 1e-6);
}

void test_nccl_choice_8_bytes_ring_ll(void)
{
	struct nccl_tune t = tune(&h100, 8, ~0u, ~0u);
	struct nccl_choice c[4];
	int k = nccl_rank(&t, P, NCCL_ALLREDUCE, 8, c, 4);

	/* Ring/LL 15.0 µs beats Tree/LL 15.2 µs and NVLS 25 µs. */
	CHECK(k == 4);
	INT_EQ(c[0].algo, NCCL_RING);
	INT_EQ(c[0].proto, NCCL_LL);
	DBL_NEAR(c[0].time_s, (15.0 + 8 / (1000 * 141.0 * 8 / 14)) * 1e-6, 1e-12);
	INT_EQ(c[1].algo, NCCL_TREE);
	INT_EQ(c[1].proto, NCCL_LL);
	/* At 1 GiB NVLS wins, ring/Simple next. */
	k = nccl_rank(&t, P, NCCL_ALLREDUCE, 1073741824.0, c, 2);
	INT_EQ(c[0].algo, NCCL_NVLS);
	INT_EQ(c[1].algo, NCCL_RING);
	INT_EQ(c[1].proto, NCCL_SIMPLE);
	DBL_NEAR(c[1].time_s, (56.0 + 1073741824.0 / (1000 * 360.0 * 8 / 14)) * 1e-6, 1e-12);
}

void test_nccl_tree_correction(void)
{
	struct nccl_tune t = tune(&h100, 8, ~0u, ~0u);
	double lat, bw;
	/* 64 KiB: log2(65536 >> 6) = 10, LL factor .6 */
	double s = nccl_time(&t, P, NCCL_ALLREDUCE, NCCL_TREE, NCCL_LL, 65536, &lat, &bw);
	DBL_NEAR(bw, 331.2 / 3.8 * .5 * .6 * 1e9, 1e-9);
	DBL_NEAR(s, (15.2 + 65536 / (1000 * 331.2 / 3.8 * .5 * .6)) * 1e-6, 1e-12);
	/* below 64 B no correction */
	nccl_time(&t, P, NCCL_ALLREDUCE, NCCL_TREE, NCCL_LL, 32, &lat, &bw);
	DBL_NEAR(bw, 331.2 / 3.8 * .5 * 1e9, 1e-12);
}

void test_nccl_two_nodes(void)
{
	struct nccl_tune t = tune(&a100, 16, ~0u, ~0u);
	double lat, bw, s;

	/* Ring/Simple: 30 steps, 2 through the NICs; AMD net overhead
	 * 2 × 3 = 6 µs > 3.4: 8.4 + 28 × 6 + 2 × 14 = 204.4 µs; 8 × 24 × 16/30. */
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 204.4, 1e-12);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 102.4, 1e-12);
	/* Ring/LL on AMD hosts, 2 nodes: llMaxBw 22.5 */
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL], 22.5 * 16 / 30, 1e-12);
	/* Tree/Simple: 8.4 + 2 (7 × 4.0 + 1 × 14) (an NVLink chain, then the
	 * NICs); min(8 × 30 × .92, 8 × 23.6) × .5 */
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 92.4, 1e-12);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 8 * 23.6 * .5, 1e-12);
	/* the ring plateau: latency × 1.4 once S/(channels × ranks) >= 64 B */
	s = nccl_time(&t, P, NCCL_ALLREDUCE, NCCL_RING, NCCL_SIMPLE, 1 << 30, &lat, &bw);
	DBL_NEAR(lat, 204.4 * 1.4e-6, 1e-12);
	DBL_NEAR(s, (204.4 * 1.4 + 1073741824.0 / (1000 * 102.4)) * 1e-6, 1e-12);

	/* H100, 2 nodes: NVLS tree at 1 GiB, above the 400 GB/s of the NICs:
	 * min(40 × .85 × 7/8 × 2, 2 × 48, 57.7) × 8 × 16/30 */
	t = tune(&h100, 16, ~0u, ~0u);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE], 57.7 * 8 * 16 / 30, 1e-6);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE], 25 + 2 * 20.9, 1e-12);
	{
		struct nccl_choice c[1];
		nccl_rank(&t, P, NCCL_ALLREDUCE, 1 << 30, c, 1);
		INT_EQ(c[0].algo, NCCL_NVLS_TREE);
	}
}

void test_nccl_masks(void)
{
	struct errbuf eb;
	unsigned m;
	struct nccl_tune t;
	struct nccl_choice c[1];

	CHECK(nccl_algo_mask("ring", &m, &eb) == 0 && m == 1u << NCCL_RING);
	CHECK(nccl_algo_mask("Ring,TREE", &m, &eb) == 0 && m == (1u << NCCL_RING | 1u << NCCL_TREE));
	CHECK(nccl_algo_mask("^nvls", &m, &eb) == 0 && !(m >> NCCL_NVLS & 1) && (m >> NCCL_RING & 1));
	CHECK(nccl_proto_mask("simple", &m, &eb) == 0 && m == 1u << NCCL_SIMPLE);
	CHECK(nccl_algo_mask("rign", &m, &eb) == -1);
	STR_EQ(eb.msg, "unknown NCCL algorithm 'rign' (choices: tree, ring, collnetdirect, "
	       "collnetchain, nvls, nvlstree, pat)");
	CHECK(nccl_proto_mask("LL,", &m, &eb) == -1);

	/* NCCL_ALGO=ring at 1 GiB: ring/Simple, no NVLS */
	nccl_algo_mask("ring", &m, &eb);
	t = tune(&h100, 8, m, ~0u);
	nccl_rank(&t, P, NCCL_ALLREDUCE, 1 << 30, c, 1);
	INT_EQ(c[0].algo, NCCL_RING);
	INT_EQ(c[0].proto, NCCL_SIMPLE);
	/* Nothing usable: NVLS only, on PCIe (no NVLink SHARP) */
	{
		struct nccl_machine l = { .sm = 89, .gpus_per_node = 4, .pcie_gen = 4,
			.pcie_path = NCCL_PATH_PIX, .p2p = 1 };
		nccl_algo_mask("nvls", &m, &eb);
		t = tune(&l, 4, m, ~0u);
		INT_EQ(nccl_rank(&t, P, NCCL_ALLREDUCE, 1 << 20, c, 1), 0);
	}
}

void test_nccl_limits(void)
{
	struct nccl_tune t;
	struct errbuf eb;
	struct nccl_machine one = h100;

	/* 1 rank: no time */
	CHECK(nccl_tune_init(&t, P, &h100, 1, ~0u, ~0u, &eb) == 0);
	DBL_NEAR(nccl_time(&t, P, NCCL_ALLREDUCE, NCCL_RING, NCCL_SIMPLE, 1e6, NULL, NULL), 0, 0);
	CHECK(nccl_tune_init(&t, P, &h100, 0, ~0u, ~0u, &eb) == -1);
	one.nics_per_node = 0;
	CHECK(nccl_tune_init(&t, P, &one, 16, ~0u, ~0u, &eb) == -1);
	/* 2 ranks of a node: both GPUs' NVLinks, 14 steps become 2 */
	t = tune(&h100, 2, ~0u, ~0u);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL], 6.6 + 2 * 0.6, 1e-12);
}

void test_nccl_terms(void)
{
	struct nccl_tune t = tune(&h100, 8, ~0u, ~0u);
	struct nccl_term terms[32];
	int n = nccl_terms(&t, P, NCCL_ALLREDUCE, NCCL_RING, NCCL_LL, 8, terms, 32), i;
	int seen = 0;

	CHECK(n > 5);
	for (i = 0; i < n; i++) {
		CHECK(terms[i].source && terms[i].source[0]);
		if (strcmp(terms[i].name, "base latency") == 0) {
			DBL_NEAR(terms[i].value, 6.6, 0);
			seen++;
		}
		if (strcmp(terms[i].name, "latency") == 0) {
			DBL_NEAR(terms[i].value, 15.0, 1e-12);
			seen++;
		}
		if (strcmp(terms[i].name, "LL cap") == 0) {
			DBL_NEAR(terms[i].value, 141.0, 0);
			seen++;
		}
	}
	INT_EQ(seen, 3);
	/* not usable: no terms */
	INT_EQ(nccl_terms(&t, P, NCCL_ALLREDUCE, NCCL_NVLS, NCCL_LL, 8, terms, 32), 0);
}

void test_nccl_low_busbw_cause(void)
{
	struct nccl_machine pcie = { .sm = 89, .gpus_per_node = 4, .pcie_gen = 4,
		.pcie_path = NCCL_PATH_SYS, .p2p = 1 };
	const char *c;

	/* 2 nodes of 8 NDR ports at 156 GB/s: more than one NIC, less than half of eight */
	c = nccl_low_busbw_cause(&h100, 2, 156e9);
	CHECK(c && strstr(c, "every NIC"));
	c = nccl_low_busbw_cause(&h100, 2, 20e9);
	CHECK(c && strstr(c, "GPUDirect RDMA"));
	CHECK(nccl_low_busbw_cause(&h100, 2, 300e9) == NULL);
	c = nccl_low_busbw_cause(&h100, 1, 20e9);
	CHECK(c && strstr(c, "NVLink"));
	c = nccl_low_busbw_cause(&pcie, 1, 5e9);
	CHECK(c && strstr(c, "sockets"));
	pcie.p2p = 0;
	c = nccl_low_busbw_cause(&pcie, 1, 5e9);
	CHECK(c && strstr(c, "P2P"));
}

void test_nccl_net_latency(void)
{
	/* The network plugin's latency (props->latency, here AWS's 75 µs)
	 * joins every step through the NICs, twice for Simple (tuning.cc:
	 * 389-391).  HGX A100, 2 nodes, AMD hosts: */
	struct nccl_machine m = a100;
	struct nccl_tune t;

	m.net_latency = 75;
	t = tune(&m, 16, ~0u, ~0u);
	/* Tree/LL: 6.8 + 2 (7 × 0.6 + 1 × (5.0 + 75)) */
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_LL], 175.2, 1e-12);
	/* Tree/Simple: 8.4 + 2 (7 × 4.0 + 1 × (14 + 2 × 75)) */
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 392.4, 1e-12);
	/* Ring/Simple: 8.4 + 28 × max(3.4, 2 × 3) + 2 × (14 + 150) */
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 504.4, 1e-12);
	/* one node: no NIC, no change */
	t = tune(&m, 8, ~0u, ~0u);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_LL], 6.8 + 2 * 7 * 0.6, 1e-12);
}

void test_nccl_nic_ports_merge(void)
{
	/* OCI BM.GPU.H100.8: 16 ports of 200 Gb/s on 8 dual-port NICs.  NCCL
	 * fuses the two ports of a NIC (topo.cc:1738-1746, net_ib/init.cc:225):
	 * 8 NICs of 50 GB/s, the machine of a DGX H100 with 8 NDR ports. */
	struct system s = {
		.name = "oci", .gpus_per_node = 8,
		.gpu = { .name = "h100", .arch = ARCH_SM90, .nvlink_links = 18, .pcie_gen = 5 },
		.intra = { .name = "nvl", .link = { 4e-6, 370e9, 0 }, .beta_line = 450e9 },
		.nics_per_node = 16, .nic_ports = 2, .have_inter = 1,
		.inter = { .name = "roce", .link = { 5e-6, 25e9, 0 }, .beta_line = 25e9 },
		.nvls = 1, .nvswitch = 1, .p2p = 1, .net_latency_s = 0,
	};
	struct nccl_machine m;
	struct errbuf eb;
	struct nccl_tune t;
	struct nccl_choice c[1];

	CHECK(nccl_machine_from_system(&s, &m, &eb) == 0);
	INT_EQ(m.nics_per_node, 8);
	DBL_NEAR(m.nic_bw, 50.0, 1e-12);
	t = tune(&m, 16, ~0u, ~0u);
	nccl_rank(&t, P, NCCL_ALLREDUCE, 1 << 30, c, 1);
	INT_EQ(c[0].algo, NCCL_NVLS_TREE);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE], 57.7 * 8 * 16 / 30, 1e-6);
	/* unmerged, 16 ports of 25 GB/s cap the NVLS heads' network side and
	 * NCCL's model prefers the ring */
	s.nic_ports = 1;
	CHECK(nccl_machine_from_system(&s, &m, &eb) == 0);
	INT_EQ(m.nics_per_node, 16);
	DBL_NEAR(m.nic_bw, 25.0, 1e-12);
	t = tune(&m, 16, ~0u, ~0u);
	nccl_rank(&t, P, NCCL_ALLREDUCE, 1 << 30, c, 1);
	INT_EQ(c[0].algo, NCCL_RING);
	/* the plugin latency reaches the machine in µs */
	s.net_latency_s = 75e-6;
	CHECK(nccl_machine_from_system(&s, &m, &eb) == 0);
	DBL_NEAR(m.net_latency, 75.0, 1e-9);
}

void test_nccl_nvlstree_correction_x86_only(void)
{
	/* Blackwell NVLSTree takes the tree's size correction on x86 hosts
	 * only (tuning.cc:643-646): at 1 MiB, 2^20 >> 6 = 2^14, Simple's
	 * factor 0.5.  On an ARM host (Grace) the bandwidth is the table's. */
	struct nccl_machine b = h100;
	struct nccl_tune t;
	double bw_x86, bw_arm, lat;

	b.sm = 100;
	t = tune(&b, 16, ~0u, ~0u);
	CHECK(nccl_time(&t, P, NCCL_ALLREDUCE, NCCL_NVLS_TREE, NCCL_SIMPLE, 1 << 20, &lat, &bw_x86) > 0);
	b.cpu = NCCL_CPU_ARM;
	t = tune(&b, 16, ~0u, ~0u);
	CHECK(nccl_time(&t, P, NCCL_ALLREDUCE, NCCL_NVLS_TREE, NCCL_SIMPLE, 1 << 20, &lat, &bw_arm) > 0);
	DBL_NEAR(bw_arm, t.bw[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE] * 1e9, 1e-3);
	DBL_NEAR(bw_x86, 0.5 * bw_arm, 1e-3);
}

void test_nccl_run_nvls_fill(void)
{
	/* 1 GiB all-reduce, one node of 8 H100, NVLS/Simple.  Tuning: 8 heads
	 * × min(40 × 0.85 × 7/8 × 2, 60) = 476 GB/s bus, × 8/14 = 272 GB/s,
	 * latency 25 µs.  The run: 16 CTAs (nvls.cc:155), all given work;
	 * 64 MiB per CTA is not below 64 × 8 × 128 KiB, so the chunk stays
	 * 128 KiB (enqueue.cc:2272); 2 stages, fill = 1 × 128 KiB / (272/16 GB/s). */
	struct nccl_tune t = tune(&h100, 8, ~0u, ~0u);
	struct nccl_run r;
	double bw = 272e9, S = 1 << 30;
	double want = 25e-6 + S / bw + 131072 / (bw / 16);

	DBL_NEAR(nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_NVLS, NCCL_SIMPLE, S, &r), want, 1e-9);
	INT_EQ(r.channels, 16);
	INT_EQ(r.channels_used, 16);
	DBL_NEAR(r.chunk_B, 131072, 0);
	INT_EQ(r.stages, 2);
	DBL_NEAR(r.fill_s, 131072 / (bw / 16), 1e-9);
	DBL_NEAR(r.tune_s, 25e-6 + S / bw, 1e-9);
	/* 128 MiB: 8 MiB per CTA < 64 × 8 × 128 KiB: 64 KiB chunks */
	nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_NVLS, NCCL_SIMPLE, 128 << 20, &r);
	DBL_NEAR(r.chunk_B, 65536, 0);
}

void test_nccl_run_nvlstree_fill(void)
{
	/* 16 MiB on 2 nodes of 8 H100, NVLSTree/Simple: 1 MiB per CTA;
	 * 128 KiB chunks (the tree's cap is the chunk size below 4 nodes,
	 * nvls.cc:226-227) halved to 64 KiB as 1 MiB < 4 × 8 × 128 KiB
	 * (enqueue.cc:2284); stages: NVLS reduce, one tree level up and
	 * down, multicast = 4; fill = 3 × 64 KiB / (bw / 16). */
	struct nccl_tune t = tune(&h100, 16, ~0u, ~0u);
	struct nccl_run r;
	double bw = t.bw[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE] * 1e9;
	double S = 16 << 20;

	CHECK(bw > 0);
	nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_NVLS_TREE, NCCL_SIMPLE, S, &r);
	DBL_NEAR(r.chunk_B, 65536, 0);
	INT_EQ(r.stages, 4);
	DBL_NEAR(r.fill_s, 3 * 65536 / (bw / 16), 1e-9);
	DBL_NEAR(r.time_s, r.lat_s + S / bw + r.fill_s, 1e-9);
	/* 4 nodes: 64 KiB from the start (nvls.cc:226), 6 stages */
	t = tune(&h100, 32, ~0u, ~0u);
	nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_NVLS_TREE, NCCL_SIMPLE, S, &r);
	DBL_NEAR(r.chunk_B, 65536, 0);
	INT_EQ(r.stages, 6);
}

void test_nccl_run_channels(void)
{
	/* 512 KiB, one node of 8 H100, Ring/Simple: 24 CTAs of 512 threads
	 * (360 GB/s > PCI_BW); 524288 < nc × 512 × 64 while nc > 16: 16 CTAs
	 * (enqueue.cc:2093); 1 MiB of traffic gives 32 cells, so all 16 get
	 * work.  The transfer runs at the tuning bandwidth whatever the CTAs
	 * given work: 56 µs + S / 205.71 GB/s; no fill. */
	struct nccl_tune t = tune(&h100, 8, ~0u, ~0u);
	struct nccl_run r;
	double bw = 360e9 * 8 / 14, S = 512 << 10;

	DBL_NEAR(nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_RING, NCCL_SIMPLE, S, &r),
		 56e-6 + S / bw, 1e-9);
	INT_EQ(r.channels, 24);
	INT_EQ(r.threads, 512);
	INT_EQ(r.channels_algo, 16);
	INT_EQ(r.channels_used, 16);
	DBL_NEAR(r.fill_s, 0, 0);
	INT_EQ(r.stages, 0);
	/* 64 KiB: the size check leaves 2 CTAs (65536 < 2 × 32768 is false);
	 * 128 KiB of traffic would fill 4 */
	nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_RING, NCCL_SIMPLE, 64 << 10, &r);
	INT_EQ(r.channels_algo, 2);
	INT_EQ(r.channels_used, 2);
	/* Tree/Simple at 1 MiB: 1048576 >= 24 × 512 × 64 and 2 MiB of
	 * traffic is 64 cells: all 24 CTAs run, and the tree has no fill */
	nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_TREE, NCCL_SIMPLE, 1 << 20, &r);
	INT_EQ(r.channels_used, 24);
	DBL_NEAR(r.fill_s, 0, 0);
}

void test_nccl_run_small_keeps_choice(void)
{
	/* 8 B on one node of 8 H100: Ring/LL is chosen by the tuning (15.0
	 * µs) and runs on one CTA (LL threshold 8 × 8 ranks per thread; 64 B
	 * of LL traffic): 15.0 µs + 8 B / 80.57 GB/s. */
	struct nccl_tune t = tune(&h100, 8, ~0u, ~0u);
	struct nccl_choice c[1];
	struct nccl_run r;
	double bw = 141e9 * 8 / 14;

	nccl_rank(&t, P, NCCL_ALLREDUCE, 8, c, 1);
	INT_EQ(c[0].algo, NCCL_RING);
	INT_EQ(c[0].proto, NCCL_LL);
	DBL_NEAR(nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_RING, NCCL_LL, 8, &r),
		 15.0e-6 + 8 / bw, 1e-9);
	INT_EQ(r.channels_used, 1);
	/* A ring no faster than PCI_BW starts 256 Simple threads
	 * (tuning.cc:244-245): PCIe Gen3 through a host bridge, 1 × 10 GB/s */
	{
		struct nccl_machine l = { .sm = 89, .gpus_per_node = 4, .pcie_gen = 3,
			.pcie_path = NCCL_PATH_PHB, .p2p = 1, .cpu = NCCL_CPU_INTEL };
		t = tune(&l, 4, ~0u, ~0u);
		nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_RING, NCCL_SIMPLE, 1 << 20, &r);
		INT_EQ(r.threads, 256);
	}
	/* an unusable pair stays unusable */
	CHECK(nccl_run_time(&t, P, NCCL_ALLREDUCE, NCCL_NVLS, NCCL_SIMPLE, 1 << 20, &r) < 0);
}

void test_nccl_run_monotone(void)
{
	/* A larger all-reduce never takes less time than a smaller one with
	 * the same algorithm and protocol: checked from 8 B to 1 GiB in steps
	 * of 1/16 octave on one and two nodes of 8 H100.  The ring is strict.
	 * NVLS and NVLSTree may dip by less than 1 %, where the CTAs given
	 * work step up and a head's share of the first chunk shrinks.  The
	 * tree is left out: NCCL's own treeCorrectionFactor (tuning.cc:639-
	 * 650) falls from one power of two to the next, and the model keeps
	 * NCCL's tuning as it is. */
	static const unsigned long ranks[] = { 8, 16 };
	static const enum nccl_algo algos[] = { NCCL_RING, NCCL_NVLS, NCCL_NVLS_TREE };
	size_t k, i;

	for (k = 0; k < sizeof(ranks) / sizeof(ranks[0]); k++) {
		struct nccl_tune t = tune(&h100, ranks[k], ~0u, ~0u);

		for (i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
			double slack = algos[i] == NCCL_RING ? 1 : 0.99;
			int pr;

			for (pr = 0; pr < NCCL_NPROTO; pr++) {
				double S, prev = 0;
				int ok = 1;

				for (S = 8; S <= 1 << 30; S *= 1.0442737824274138) {
					double x = nccl_run_time(&t, P, NCCL_ALLREDUCE, algos[i],
								 (enum nccl_proto)pr, S, NULL);
					if (x < 0)
						break;
					if (x < prev * slack)
						ok = 0;
					prev = x;
				}
				CHECK(ok);
			}
		}
	}
}

/*
 * LL128 across nodes needs the NICs at PXB or closer (typeInter,
 * tuning.cc:518-536): with every GPU's nearest NIC behind the host bridge
 * (ALCF Polaris), Ring/LL128 and Tree/LL128 have no bandwidth on 2 nodes;
 * one node does not use the NICs and keeps them.  A100 on 2 nodes, PIX:
 * Ring/LL128 min(0.92 × 8 × 24, 8 × 20) × 16/30.
 */
void test_nccl_ll128_nic_path(void)
{
	struct nccl_machine m = a100;
	struct nccl_tune t;

	m.nic_path = NCCL_PATH_PIX;
	t = tune(&m, 16, ~0u, ~0u);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128], 160.0 * 16 / 30, 1e-9);
	m.nic_path = NCCL_PATH_PXB;
	t = tune(&m, 16, ~0u, ~0u);
	CHECK(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128] > 0);
	m.nic_path = NCCL_PATH_PHB;
	t = tune(&m, 16, ~0u, ~0u);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128], 0, 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_TREE][NCCL_LL128], 0, 0);
	CHECK(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL] > 0);
	t = tune(&m, 8, ~0u, ~0u);
	CHECK(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128] > 0);
}

/*
 * A NCCL_PROTO that names LL128 (or excludes only others) turns it on
 * without the default's checks (tuning.cc parseList; pEnable 1): on PCIe,
 * and across nodes whatever the NICs' path.
 */
void test_nccl_ll128_forced(void)
{
	struct nccl_machine m = a100, l = { .sm = 89, .gpus_per_node = 4, .pcie_gen = 4,
					    .pcie_path = NCCL_PATH_PIX, .p2p = 1,
					    .cpu = NCCL_CPU_INTEL };
	unsigned only_ll128 = 0, no_ll = 0;
	struct errbuf eb;
	struct nccl_tune t;

	INT_EQ(nccl_proto_mask("LL128", &only_ll128, &eb), 0);
	INT_EQ(nccl_proto_mask("^LL", &no_ll, &eb), 0);
	m.nic_path = NCCL_PATH_PHB;
	t = tune(&m, 16, ~0u, only_ll128);
	CHECK(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128] > 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 0, 0);
	t = tune(&l, 4, ~0u, ~0u);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128], 0, 0);
	t = tune(&l, 4, ~0u, no_ll);
	CHECK(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128] > 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL], 0, 0);
}

/*
 * --nccl-version: earlier tunings, by hand from tuning.cc at each tag.
 * A100, 2 nodes of 8, AMD hosts (the machine of test_nccl_two_nodes):
 * - 2.21.5: Tree/Simple 0 + 2 (7 × 28 + 1 × 28) = 448 µs (v2.21.5 :57-75);
 *   the ring crosses 2 × 2 = 4 network steps (:161): 8.4 + 26 × 6 + 4 × 14
 *   = 220.4 µs (AMD net overhead 2 × 3 = 6 > 3.4).
 * - 2.23.4: the tree as 2.30.7 (92.4 µs), the ring 204.4 µs; PAT × .85.
 * H100, 2 nodes, NVLSTree before 2.28: min(bwIntra, bwInter) × channels
 * × 5/6 = 40 × 8 × 5/6 (v2.27.7 :275, :324); its network latency is 14 µs
 * until 2.28 (v2.28.3 :165): 0 + 25 + 2 × 14 = 53 µs.
 */
void test_nccl_versions(void)
{
	struct nccl_params v;
	struct errbuf eb;
	struct nccl_tune t;

	INT_EQ(nccl_params_version("2.21.5", &v, &eb), 0);
	INT_EQ(v.version, 221);
	INT_EQ(nccl_tune_init(&t, &v, &a100, 16, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 448, 1e-9);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 220.4, 1e-9);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 102.4, 1e-12);

	INT_EQ(nccl_params_version("2.23", &v, &eb), 0);
	INT_EQ(nccl_tune_init(&t, &v, &a100, 16, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 92.4, 1e-9);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 204.4, 1e-9);

	INT_EQ(nccl_params_version("2.26.2", &v, &eb), 0);
	INT_EQ(nccl_tune_init(&t, &v, &h100, 16, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE], 40 * 8 * 5.0 / 6, 1e-9);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE], 25 + 2 * 14, 1e-9);
	INT_EQ(nccl_params_version("2.28.3", &v, &eb), 0);
	INT_EQ(nccl_tune_init(&t, &v, &h100, 16, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE], 57.7 * 8 * 16 / 30, 1e-6);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE], 25 + 2 * 14, 1e-9);
	INT_EQ(nccl_params_version("2.30.7", &v, &eb), 0);
	INT_EQ(v.version, 230);
	INT_EQ(nccl_tune_init(&t, &v, &h100, 16, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_NVLS_TREE][NCCL_SIMPLE], 25 + 2 * 20.9, 1e-9);

	INT_EQ(nccl_params_version("2.18", &v, &eb), -1);
	STR_EQ(eb.msg, "NCCL 2.18 is not modelled (2.19 to 2.31)");
	INT_EQ(nccl_params_version("2.21.x", &v, &eb), -1);
	STR_EQ(eb.msg, "cannot read NCCL version '2.21.x' (want 2.MINOR or 2.MINOR.PATCH, "
	       "e.g. 2.21.5)");
	INT_EQ(nccl_params_version("3.0", &v, &eb), -1);
	/* Blackwell's constants begin with 2.29 in this model */
	{
		struct nccl_machine b = h100;
		b.sm = 100;
		INT_EQ(nccl_params_version("2.26", &v, &eb), 0);
		INT_EQ(nccl_tune_init(&t, &v, &b, 16, ~0u, ~0u, &eb), -1);
		STR_EQ(eb.msg, "NCCL model: Blackwell (sm100) is modelled with NCCL 2.29 and "
		       "later, not 2.26");
	}
}
