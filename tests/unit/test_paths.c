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
