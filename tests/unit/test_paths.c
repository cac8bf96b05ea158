/*
 * The paths to the NIC as NCCL's path model prices them (GPUDirect RDMA
 * off, a NIC behind the host bridge or across the sockets), and the host's
 * launches of one thread driving several GPUs: values worked by hand from
 * NCCL 2.30.7's paths.cc, search.cc and topo.h (models/nccl.md, "Paths to
 * the NIC" and "The launch").
 */
#include "harness.h"
#include "nccl_model.h"
#include "nccl_cost.h"

#define P (&nccl_params_default)

/* DGX/HGX H100: 18 NVLinks per GPU to NVSwitch, PCIe 5, 8 NDR NICs, Intel. */
static const struct nccl_machine h100 = {
	.sm = 90, .gpus_per_node = 8, .nvlinks = 18, .nvswitch = 1, .nvls = 1,
	.pcie_gen = 5, .pcie_path = NCCL_PATH_PIX, .p2p = 1, .cpu = NCCL_CPU_INTEL,
	.nics_per_node = 8, .nic_bw = 50,
};

void test_paths_gdr_off(void)
{
	struct nccl_machine m = h100;
	struct nccl_graph g[NCCL_NALGO];
	struct nccl_tune t;
	struct errbuf eb;

	/* With GDR: min(PCIe 48, NIC 50) = 48 a channel, 8 channels. */
	nccl_graphs(&m, 2, g);
	INT_EQ(g[NCCL_RING].nchannels, 8);
	DBL_NEAR(g[NCCL_RING].bw_inter, 48.0, 0);
	/* Without: through the Intel root complex, 48 × 5/6 = 40 a channel;
	 * 40 fits one channel a NIC (50 / 40), 8 in all. */
	m.no_gdr = 1;
	nccl_graphs(&m, 2, g);
	INT_EQ(g[NCCL_RING].nchannels, 8);
	DBL_NEAR(g[NCCL_RING].bw_inter, 40.0, 0);
	DBL_NEAR(g[NCCL_NVLS].bw_inter, 40.0, 0);   /* NVLS heads reach the NICs the same way */
	/* The path is PHB, past PXN: LL128 is off across nodes (typeInter,
	 * tuning.cc:518-536), on with GDR */
	CHECK(nccl_tune_init(&t, P, &m, 16, ~0u, ~0u, &eb) == 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128], 0, 0);
	/* Ring/Simple bus bandwidth 8 × 40 = 320, algorithm 320 × 16/30 */
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 320.0 * 16 / 30, 1e-12);
	m.no_gdr = 0;
	CHECK(nccl_tune_init(&t, P, &m, 16, ~0u, ~0u, &eb) == 0);
	CHECK(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128] > 0);
	m.no_gdr = 1;
	/* one node does not touch the NICs */
	nccl_graphs(&m, 1, g);
	INT_EQ(g[NCCL_RING].nchannels, 12);
	DBL_NEAR(g[NCCL_RING].bw_intra, 30.0, 0);
}

void test_paths_nic_phb_amd(void)
{
	struct nccl_machine m = h100;
	struct nccl_graph g[NCCL_NALGO];

	/* AMD root complexes carry P2P at full rate (the 6/5 is Intel's). */
	m.cpu = NCCL_CPU_AMD;
	m.nic_path = NCCL_PATH_PHB;
	nccl_graphs(&m, 2, g);
	DBL_NEAR(g[NCCL_RING].bw_inter, 48.0, 0);
	INT_EQ(g[NCCL_RING].nchannels, 8);
	/* Intel: 40, as with GDR off (NCCL turns GDR off itself beyond PXB) */
	m.cpu = NCCL_CPU_INTEL;
	nccl_graphs(&m, 2, g);
	DBL_NEAR(g[NCCL_RING].bw_inter, 40.0, 0);
}

void test_paths_nic_sys(void)
{
	struct nccl_machine m = h100;
	struct nccl_graph g[NCCL_NALGO];

	/* Every NIC on the other socket: each channel crosses the one
	 * Sapphire Rapids socket link (22 GB/s, topo.h:29) each way, shared:
	 * 22 fits one channel; 12 one (0.545 of the best, tried); 6 would be 3
	 * × 6 = 18 but is below half of 22, where the search stops. */
	m.nic_path = NCCL_PATH_SYS;
	nccl_graphs(&m, 2, g);
	INT_EQ(g[NCCL_RING].nchannels, 1);
	DBL_NEAR(g[NCCL_RING].bw_inter, 22.0, 0);
	/* AMD's 16 GB/s (topo.h:33): 15 a channel, one channel */
	m.cpu = NCCL_CPU_AMD;
	nccl_graphs(&m, 2, g);
	INT_EQ(g[NCCL_RING].nchannels, 1);
	DBL_NEAR(g[NCCL_RING].bw_inter, 15.0, 0);
}

void test_paths_launch(void)
{
	struct nccl_cost nc = { .gpus_per_process = 1, .launch_s = NCCL_LAUNCH_S };

	DBL_NEAR(NCCL_LAUNCH_S, 5e-6, 0);
	/* one GPU a thread: NCCL's smallest times (15 µs) are above one launch */
	DBL_NEAR(nccl_host_bound(&nc, 15e-6), 15e-6, 0);
	DBL_NEAR(nccl_host_bound(&nc, 2e-6), 5e-6, 0);
	/* nccl-tests -g 8: 8 launches of 5 µs, 40 µs, hold a 15 µs call */
	nc.gpus_per_process = 8;
	DBL_NEAR(nccl_host_bound(&nc, 15e-6), 40e-6, 1e-12);
	/* and leave a 4 ms one */
	DBL_NEAR(nccl_host_bound(&nc, 4e-3), 4e-3, 0);
	/* -g 4 (the L40S logs): 20 µs */
	nc.gpus_per_process = 4;
	DBL_NEAR(nccl_host_bound(&nc, 12.6e-6), 20e-6, 1e-12);
}

/* HGX A100 for the tree: 12 NVLinks, PCIe 4, 8 HDR NICs, AMD hosts. */
static const struct nccl_machine a100 = {
	.sm = 80, .gpus_per_node = 8, .nvlinks = 12, .nvswitch = 1,
	.pcie_gen = 4, .pcie_path = NCCL_PATH_PIX, .p2p = 1, .cpu = NCCL_CPU_AMD,
	.nics_per_node = 8, .nic_bw = 25,
};

void test_versions_before_221(void)
{
	struct nccl_params v;
	struct nccl_tune t;
	struct errbuf eb;
	int nearest;

	/* 2.20 on one node of 8 H100 (12 ring channels x 30 GB/s): Ring/LL
	 * takes 1/4 of 360 for all-reduce, 90, capped at Hopper's 87.7 of
	 * then (v2.20.5 tuning.cc:89, 181): 87.7 x 8/14 of algorithm bandwidth */
	INT_EQ(nccl_params_version("2.20.5", &v, &eb), 0);
	INT_EQ(v.version, 220);
	INT_EQ(nccl_tune_init(&t, &v, &h100, 8, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL], 87.7 * 8 / 14, 1e-12);
	/* all-gather: 1/3 of 360 = 120, capped at 87.7, x 8/7 */
	DBL_NEAR(t.bw[NCCL_ALLGATHER][NCCL_RING][NCCL_LL], 87.7 * 8 / 7, 1e-12);
	/* NVLS on NVLink: 23 us, not 25 (v2.20.5 tuning.cc:69) */
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_NVLS][NCCL_SIMPLE], 23, 0);
	/* 2.30: 0.5 x 360 = 180, capped at 141 */
	INT_EQ(nccl_tune_init(&t, P, &h100, 8, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL], 141.0 * 8 / 14, 1e-12);
	/* 2.19 tunes as 2.20 */
	INT_EQ(nccl_params_version("2.19.4", &v, &eb), 0);
	DBL_NEAR(v.ll_max_bw[NCCL_HOPPER][0], 87.7, 0);

	/* A log of 2.18 or older takes 2.19's tuning, the nearest modelled */
	INT_EQ(nccl_params_version("2.18.3", &v, &eb), -1);
	INT_EQ(nccl_params_nearest("2.18.3", &v, &nearest, &eb), 0);
	INT_EQ(nearest, 219);
	INT_EQ(v.version, 219);
	INT_EQ(nccl_params_nearest("2.12.12", &v, &nearest, &eb), 0);
	INT_EQ(nearest, 219);
	/* one newer than 2.31, the newest */
	INT_EQ(nccl_params_nearest("2.33.1", &v, &nearest, &eb), 0);
	INT_EQ(nearest, 231);
	/* a modelled one is itself */
	INT_EQ(nccl_params_nearest("2.26.2", &v, &nearest, &eb), 0);
	INT_EQ(nearest, 0);
	INT_EQ(v.version, 226);
	/* what does not read is refused, with the parser's message */
	INT_EQ(nccl_params_nearest("2.x", &v, &nearest, &eb), -1);
}

void test_versions_231_tree(void)
{
	struct nccl_params v;
	struct nccl_tune t;
	struct errbuf eb;

	/* 2 nodes of HGX A100: ring 8 x 24 GB/s (a NIC port reached at PCIe
	 * Gen4's 24), the tree's intra speed raised to 30 (8 channels of 30 fit
	 * 240 GB/s of NVLink).  2.30 rates the 2-node tree at bwIntra: Tree/Simple
	 * bus min(8 x 30 x 0.92, 8 x 23.6) = 188.8, algorithm x 0.5 = 94.4 GB/s;
	 * 2.31 at the slower of the two (2.31.0a7 src/tuning/tree.cc:28):
	 * min(8 x 24 x 0.92, 188.8) = 176.64, x 0.5 = 88.32. */
	INT_EQ(nccl_tune_init(&t, P, &a100, 16, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.graph[NCCL_TREE].bw_intra, 30, 0);
	DBL_NEAR(t.graph[NCCL_TREE].bw_inter, 24, 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 94.4, 1e-12);
	INT_EQ(nccl_params_version("2.31", &v, &eb), 0);
	INT_EQ(v.version, 231);
	INT_EQ(nccl_tune_init(&t, &v, &a100, 16, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 88.32, 1e-12);
	/* the ring is 2.30's */
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 192.0 * 16 / 30, 1e-12);
}
