/*
 * CollNet (SHARP in the network switches, NCCL's CollNet plugin): the
 * graphs, the tuning and the choice of NCCL 2.30.7 (src/nccl_graph.c
 * S_collnet, src/nccl_tune.c S_collnet_bus, src/nccl_model.c), against values worked by hand in
 * models/nccl.md, "CollNet".
 *
 * HGX A100 with 8 HDR NICs (PCIe 4: 24 GB/s to a NIC), AMD hosts, on 8
 * nodes.  Direct: 8 heads at bwInter 24; bwIntra climbs the speed list
 * (28, 30, 48) while below twice 24, the NVLinks carrying 48 x (1 + 7/7) =
 * 96 of 240: 48.  Bus 8 x 48, one GPU a NIC (factor 1), sm80 (no 0.85),
 * half of it algorithm bandwidth: 192 GB/s; latency 2 (3.7 + 7 x 0.4) + 31
 * = 44 us.  Chain: the tree's graph, 8 x 30 (bwIntra raised to 30, 240 /
 * 30 = 8 channels fit): 120 GB/s; 2 x 7 x 2.8 + 30 = 69.2 us.  1 MiB:
 * Direct, 44 + 1048576 / 192000 = 49.4613 us.
 */
#include "harness.h"
#include "nccl_model.h"

#define P (&nccl_params_default)
#define AR NCCL_ALLREDUCE
#define S NCCL_SIMPLE

static const struct nccl_machine a100_sharp = {
	.sm = 80, .gpus_per_node = 8, .nvlinks = 12, .nvswitch = 1,
	.pcie_gen = 4, .pcie_path = NCCL_PATH_PIX, .p2p = 1, .cpu = NCCL_CPU_AMD,
	.nics_per_node = 8, .nic_bw = 25, .collnet = 1,
};

static const struct nccl_machine h100_sharp = {
	.sm = 90, .gpus_per_node = 8, .nvlinks = 18, .nvswitch = 1, .nvls = 1,
	.pcie_gen = 5, .pcie_path = NCCL_PATH_PIX, .p2p = 1, .cpu = NCCL_CPU_INTEL,
	.nics_per_node = 8, .nic_bw = 50, .collnet = 1,
};

static struct nccl_tune tune(const struct nccl_machine *m, int ranks)
{
	struct nccl_tune t;
	struct errbuf eb;
	CHECK(nccl_tune_init(&t, P, m, ranks, ~0u, ~0u, &eb) == 0);
	return t;
}

void test_collnet_graphs(void)
{
	struct nccl_graph g[NCCL_NALGO];
	struct nccl_machine b = h100_sharp;

	nccl_graphs(&a100_sharp, 8, g);
	INT_EQ(g[NCCL_COLLNET_DIRECT].nchannels, 8);
	DBL_NEAR(g[NCCL_COLLNET_DIRECT].bw_inter, 24.0, 0);
	DBL_NEAR(g[NCCL_COLLNET_DIRECT].bw_intra, 48.0, 0);
	INT_EQ(g[NCCL_COLLNET_CHAIN].nchannels, 8);
	DBL_NEAR(g[NCCL_COLLNET_CHAIN].bw_intra, 30.0, 0);
	/* one node: no CollNet graph */
	nccl_graphs(&a100_sharp, 1, g);
	INT_EQ(g[NCCL_COLLNET_DIRECT].nchannels, 0);
	/* H100: 48 is the top of sm90's list across nodes, bwIntra stays 48 */
	nccl_graphs(&h100_sharp, 8, g);
	DBL_NEAR(g[NCCL_COLLNET_DIRECT].bw_intra, 48.0, 0);
	/* B200 (sm100 list 96 86 80 48 ...): from 48 to 80, 86, 96 = 2 x 48 */
	b.sm = 100;
	nccl_graphs(&b, 8, g);
	DBL_NEAR(g[NCCL_COLLNET_DIRECT].bw_inter, 48.0, 0);
	DBL_NEAR(g[NCCL_COLLNET_DIRECT].bw_intra, 96.0, 0);
	/* 4 NICs for 8 GPUs: 4 heads */
	b = a100_sharp;
	b.nics_per_node = 4;
	nccl_graphs(&b, 8, g);
	INT_EQ(g[NCCL_COLLNET_DIRECT].nchannels, 4);
	/* no NVSwitch: no Direct (tuning.cc:508-509), Chain stays */
	b = a100_sharp;
	b.nvswitch = 0;
	b.mesh = 0;
	nccl_graphs(&b, 8, g);
	INT_EQ(g[NCCL_COLLNET_DIRECT].nchannels, 0);
	CHECK(g[NCCL_COLLNET_CHAIN].nchannels > 0);
}

void test_collnet_tune_a100(void)
{
	struct nccl_tune t = tune(&a100_sharp, 64);
	double lat, bw, s;

	DBL_NEAR(t.bw[AR][NCCL_COLLNET_DIRECT][S], 192.0, 1e-9);
	DBL_NEAR(t.lat[AR][NCCL_COLLNET_DIRECT][S], 44.0, 1e-9);
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_CHAIN][S], 120.0, 1e-9);
	DBL_NEAR(t.lat[AR][NCCL_COLLNET_CHAIN][S], 69.2, 1e-9);
	/* Simple only; all-reduce only */
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_DIRECT][NCCL_LL], 0, 0);
	DBL_NEAR(t.bw[NCCL_ALLGATHER][NCCL_COLLNET_DIRECT][S], 0, 0);
	/* the choice at 1 MiB: Direct, 49.4613 us */
	{
		struct nccl_choice c[4];
		INT_EQ(nccl_rank(&t, P, AR, 1048576, c, 4) > 0, 1);
		INT_EQ(c[0].algo, NCCL_COLLNET_DIRECT);
		INT_EQ(c[0].proto, S);
		DBL_NEAR(c[0].time_s * 1e6, 49.4613, 1e-4);
		s = nccl_run_time(&t, P, AR, NCCL_COLLNET_DIRECT, S, 1048576, NULL);
		DBL_NEAR(s * 1e6, 49.4613, 1e-4);
		(void)lat;
		(void)bw;
	}
	/* 4 heads for 8 GPUs: a NIC serves 2, counted 1.5: 4 x 48 / 1.5 x 0.5 = 64 */
	{
		struct nccl_machine m = a100_sharp;
		m.nics_per_node = 4;
		t = tune(&m, 64);
		DBL_NEAR(t.bw[AR][NCCL_COLLNET_DIRECT][S], 64.0, 1e-9);
	}
}

void test_collnet_off(void)
{
	struct nccl_machine m = a100_sharp;
	struct nccl_tune t;

	/* one node: the node threshold (init.cc:1468-1475) */
	t = tune(&a100_sharp, 8);
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_DIRECT][S], 0, 0);
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_CHAIN][S], 0, 0);
	/* no SHARP */
	m.collnet = 0;
	t = tune(&m, 64);
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_DIRECT][S], 0, 0);
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_CHAIN][S], 0, 0);
	/* more than 8 GPUs a node (enqueue.cc:2000-2003) */
	m = h100_sharp;
	m.gpus_per_node = 16;
	m.nics_per_node = 16;
	t = tune(&m, 64);
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_DIRECT][S], 0, 0);
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_CHAIN][S], 0, 0);
}

/* H100 with SHARP on 8 nodes: NVLS across nodes runs (it reduces through
 * CollNet, tuning.cc:503-506): 8 heads at 40 GB/s inside (9 x 40 <= 370.8),
 * bwInter raised to 48; a channel min(40 x 0.85 x 7/8 x 2 = 59.5, 48) =
 * 48, bus 384, times 64 / 126: 195.048 GB/s, latency 25 + 18 = 43 us.
 * Direct: 8 x 48 x 0.85 x 0.5 = 163.2 GB/s.  NVLS is chosen at 4 GiB. */
void test_collnet_h100_nvls(void)
{
	struct nccl_tune t = tune(&h100_sharp, 64);
	struct nccl_machine m = h100_sharp;
	struct nccl_choice c[2];

	DBL_NEAR(t.bw[AR][NCCL_NVLS][S], 384.0 * 64 / 126, 1e-9);
	DBL_NEAR(t.lat[AR][NCCL_NVLS][S], 43.0, 1e-9);
	DBL_NEAR(t.bw[AR][NCCL_COLLNET_DIRECT][S], 163.2, 1e-9);
	INT_EQ(nccl_rank(&t, P, AR, 4294967296.0, c, 2) > 0, 1);
	INT_EQ(c[0].algo, NCCL_NVLS);
	/* without SHARP NVLS stays on one node */
	m.collnet = 0;
	t = tune(&m, 64);
	DBL_NEAR(t.bw[AR][NCCL_NVLS][S], 0, 0);
	/* NVLS all-gather across nodes needs the plugin's own: off */
	t = tune(&h100_sharp, 64);
	DBL_NEAR(t.bw[NCCL_ALLGATHER][NCCL_NVLS][S], 0, 0);
}

/* The run of CollNet Direct at 1 MiB on the A100 of above (enqueue.cc:
 * 2073-2082): 16 CTAs (the 8 ring channels doubled), 640 threads, 8 heads,
 * 512 B: 16 × 640 × 8 × 512 = 41.9 MB > 1 MiB, so down to 16, then 8 (the
 * threshold halved to 256 at 12), 4 (128 at 6), 2 (64 at 3); at 2, 2 × 640
 * × 8 × 64 = 655360 B is below 1 MiB: 2 CTAs.  At 64 MiB all 16 stay. */
void test_collnet_run_ctas(void)
{
	struct nccl_tune t = tune(&a100_sharp, 64);
	struct nccl_run r;

	CHECK(nccl_run_time(&t, P, AR, NCCL_COLLNET_DIRECT, S, 1048576, &r) > 0);
	INT_EQ(r.threads, 640);
	INT_EQ(r.channels, 16);
	INT_EQ(r.channels_algo, 2);
	CHECK(nccl_run_time(&t, P, AR, NCCL_COLLNET_DIRECT, S, 67108864, &r) > 0);
	INT_EQ(r.channels_algo, 16);
	/* Chain: the ring's loop with 512 B a thread: 16 × 640 × 512 = 5 MiB,
	 * so 1 MiB keeps 3 CTAs (3 × 327680 = 983040 < 1048576 <= 4 × 327680) */
	CHECK(nccl_run_time(&t, P, AR, NCCL_COLLNET_CHAIN, S, 1048576, &r) > 0);
	INT_EQ(r.channels_algo, 3);
}
