/*
 * Machines beyond NVIDIA's data-centre nodes: AMD's xGMI boards read with
 * RCCL's constants, NVLink domains across hosts, NCCL's no-graph fallback
 * and the NVLS arity limit, each against values worked by hand from the
 * sources named in src/nccl_graph.c, src/nccl_tune.c, src/nccl_model.c and
 * src/system.c.
 */
#include <stdlib.h>

#include "harness.h"
#include "nccl_cost.h"
#include "nccl_model.h"
#include "preset.h"
#include "system.h"

/* A shipped system preset and NCCL's view of it; 0 when it cannot be read. */
static int S_load(const char *path, struct system *s, struct nccl_machine *m)
{
	struct preset_dirs d;
	struct errbuf eb;
	int ok;

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, NULL, NULL);
	ok = system_load(&d, path, s, &eb) == 0 && nccl_machine_from_system(s, m, &eb) == 0;
	preset_dirs_release(&d);
	return ok;
}

void test_machines_no_graph_fallback(void)
{
	/* 8 sm120 GPUs on PCIe 5 across two AMD sockets: every channel
	 * crosses the 16 GB/s socket link (AMD_BW, topo.h), below the
	 * slowest speed Blackwell's search tries (18, search.cc:1063), so
	 * NCCL keeps its fallback, 1 channel of 0.1 GB/s; the run moves 16. */
	struct nccl_machine m = { .sm = 120, .gpus_per_node = 8, .pcie_gen = 5,
		.pcie_path = NCCL_PATH_SYS, .p2p = 1, .cpu = NCCL_CPU_AMD };
	struct nccl_graph g[NCCL_NALGO];
	struct nccl_tune t;
	struct nccl_run r;
	struct errbuf eb;
	double s = 134217728, busbw;

	nccl_graphs(&m, 1, g);
	INT_EQ(g[NCCL_RING].nchannels, 1);
	DBL_NEAR(g[NCCL_RING].bw_intra, 0.1, 0);
	DBL_NEAR(g[NCCL_RING].run_bw, 16.0, 0);
	/* the run of ring/Simple at 128 MiB: the tuning bandwidth times
	 * 16 / 0.1; bus bandwidth 2·7/8 · S / time, the Simple ring's 16 GB/s
	 * less the latency: between 15 and 16 GB/s */
	INT_EQ(nccl_tune_init(&t, &nccl_params_default, &m, 8, ~0u, ~0u, &eb), 0);
	CHECK(nccl_run_time(&t, &nccl_params_default, NCCL_ALLREDUCE, NCCL_RING, NCCL_SIMPLE, s,
			    &r) > 0);
	DBL_NEAR(r.xfer_s, s / (r.bw_Bps * 160), 1e-12);
	busbw = 2.0 * 7 / 8 * s / r.time_s / 1e9;
	CHECK(busbw > 15 && busbw < 16);
	/* sm89 tries 15 GB/s, which fits: a graph, no fallback */
	m.sm = 89;
	nccl_graphs(&m, 1, g);
	DBL_NEAR(g[NCCL_RING].bw_intra, 15.0, 0);
	DBL_NEAR(g[NCCL_RING].run_bw, 0, 0);
}

void test_machines_amd_xgmi(void)
{
	/* 8 MI300X, each with one xGMI link to each peer, counted at RCCL's
	 * 48 GB/s (GFX94X_XGMI_WIDTH): rings of one link each at RCCL's
	 * first speed, 48.  The complete graph of 8 holds 7 edge-disjoint
	 * directed rings; the search takes rings one by one, depth first,
	 * and the rings it took first leave no 7th within its time limit:
	 * 6 or 7.  Not duplicated (48 < 50 with more than 4 channels,
	 * search.cc ncclTopoDupChannels). */
	struct system s;
	struct nccl_machine m;
	struct nccl_graph g[NCCL_NALGO];
	struct nccl_tune t;
	struct errbuf eb;

	CHECK(S_load("presets/azure-nd-mi300x-v5.preset", &s, &m));
	INT_EQ(m.amd, 1);
	DBL_NEAR(m.nvlink_bw, 48.0, 0);
	INT_EQ(m.mesh, 1);
	INT_EQ(m.nvl[0][1], 1);
	INT_EQ(m.nvl[3][7], 1);
	nccl_graphs(&m, 1, g);
	CHECK(g[NCCL_RING].nchannels >= 6 && g[NCCL_RING].nchannels <= 7);
	DBL_NEAR(g[NCCL_RING].bw_intra, 48.0, 0);
	/* RCCL: no LL128 by default off gfx90a, Simple's base latency 17 us */
	INT_EQ(nccl_tune_init(&t, &nccl_params_default, &m, 8, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.bw[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL128], 0, 0);
	CHECK(t.lat[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE] > 17);
	system_release(&s);
}

void test_machines_rccl_mi300_latency(void)
{
	/* Two nodes of 8 MI300X (16 ranks), RCCL 2.22.3 on an Intel host:
	 * RCCL's tuning_model_5 (src/nccl_rccl.c), by hand:
	 *   Tree/LL    12 + 2 (7 x 0.9 + 1 x 10.5)              =   45.6 us
	 *   Ring/LL    12 + 26 x max(0.8, 1) + 4 x 9.5          =   76 us
	 *   Tree/Simple 17 + 2 (7 x 2.3 + 1 x 25)               =   99.2 us
	 *   Ring/Simple 17 + 26 x max(2.1, 3 x 1) + 4 x 320     = 1375 us
	 * (2 x 2 network steps before NCCL 2.23, network overhead 1 us,
	 * thrice for Simple); the 8-byte all-reduce takes Tree/LL, 45.6 us. */
	struct system s;
	struct nccl_machine m;
	struct nccl_params p;
	struct nccl_tune t;
	struct nccl_choice c;
	struct errbuf eb;

	CHECK(S_load("tests/data/nccl/systems/aac10-mi300x.preset", &s, &m));
	INT_EQ(m.amd, 1);
	INT_EQ(nccl_params_version("2.22.3", &p, &eb), 0);
	INT_EQ(nccl_tune_init(&t, &p, &m, 16, ~0u, ~0u, &eb), 0);
	INT_EQ(t.nodes, 2);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_LL], 45.6, 1e-9);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_RING][NCCL_LL], 76.0, 1e-9);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_SIMPLE], 99.2, 1e-9);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_RING][NCCL_SIMPLE], 1375.0, 1e-9);
	CHECK(nccl_rank(&t, &p, NCCL_ALLREDUCE, 8, &c, 1) == 1);
	INT_EQ(c.algo, NCCL_TREE);
	INT_EQ(c.proto, NCCL_LL);
	DBL_NEAR(c.time_s, 45.6e-6, 1e-4);   /* + 8 B at 19.5 GB/s, 0.4 ns */
	/* NVIDIA keeps NCCL's own: Tree/LL on the network 5 us a step */
	m.amd = 0;
	INT_EQ(nccl_tune_init(&t, &p, &m, 16, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.lat[NCCL_ALLREDUCE][NCCL_TREE][NCCL_LL], 6.8 + 2 * (7 * 0.6 + 5.0), 1e-9);
	system_release(&s);
}

void test_machines_nvlink_domain(void)
{
	/* GB200 NVL72: 18 hosts of 4 in one domain: NCCL's node is the
	 * domain, 72 GPUs, 18 × 4 = 72 NICs. */
	struct system s;
	struct nccl_machine m;
	struct nccl_tune t;
	struct errbuf eb;

	CHECK(S_load("presets/gb200-nvl72.preset", &s, &m));
	INT_EQ((int)s.gpus_per_node, 72);
	INT_EQ((int)s.host_gpus, 4);
	INT_EQ((int)s.nics_per_node, 72);
	INT_EQ(m.gpus_per_node, 72);
	INT_EQ((int)system_nodes(&s, 144), 2);
	/* NVLS all-gather stops above 32 local ranks (enqueue.cc:2004-2006);
	 * all-reduce keeps it */
	INT_EQ(nccl_tune_init(&t, &nccl_params_default, &m, 72, ~0u, ~0u, &eb), 0);
	DBL_NEAR(t.bw[NCCL_ALLGATHER][NCCL_NVLS][NCCL_SIMPLE], 0, 0);
	CHECK(t.bw[NCCL_ALLREDUCE][NCCL_NVLS][NCCL_SIMPLE] > 0);
	INT_EQ(nccl_tune_init(&t, &nccl_params_default, &m, 32, ~0u, ~0u, &eb), 0);
	CHECK(t.bw[NCCL_ALLGATHER][NCCL_NVLS][NCCL_SIMPLE] > 0);
	system_release(&s);
}

void test_machines_socket_stages_through_host(void)
{
	/* net = socket: NCCL's socket transport takes host memory only
	 * (net_socket.cc:170), as gdr = no */
	struct system s;
	struct nccl_machine m;

	CHECK(S_load("presets/dgx-h100.preset", &s, &m));
	INT_EQ(m.no_gdr, 0);
	s.net = NET_SOCKET;
	INT_EQ(nccl_machine_from_system(&s, &m, NULL), 0);
	INT_EQ(m.no_gdr, 1);
	system_release(&s);
}

/*
 * The DGX and HGX systems added beside dgx-h100: each HGX name is its DGX
 * (like = dgx-...), resolved key for key; dgx-a100-40gb is hgx-a100 with
 * the 40 GB A100 (the DGX A100 320 GB); dgx-h200 is the H200 on H100's
 * NVLink 4; dgx-b300 is 8 B300 (sm103) with 8 ConnectX-8 ports of 800 Gb/s,
 * 100 GB/s each, 800 GB/s a node.
 */
void test_machines_dgx_hgx_presets(void)
{
	static const char *const pair[][2] = {
		{ "presets/hgx-h100.preset", "presets/dgx-h100.preset" },
		{ "presets/hgx-h200.preset", "presets/dgx-h200.preset" },
		{ "presets/hgx-b200.preset", "presets/dgx-b200.preset" },
		{ "presets/hgx-b300.preset", "presets/dgx-b300.preset" },
	};
	struct system s, b;
	struct nccl_machine m;
	size_t i;

	for (i = 0; i < sizeof(pair) / sizeof(pair[0]); i++) {
		if (!S_load(pair[i][0], &s, &m) || !S_load(pair[i][1], &b, &m)) {
			CHECK(0);
			continue;
		}
		STR_EQ(s.gpu.name, b.gpu.name);
		STR_EQ(s.intra.name, b.intra.name);
		STR_EQ(s.inter.name, b.inter.name);
		INT_EQ((int)s.nics_per_node, (int)b.nics_per_node);
		INT_EQ(s.nvls, b.nvls);
		INT_EQ((int)s.cpu, (int)b.cpu);
		system_release(&s);
		system_release(&b);
	}
	if (S_load("presets/dgx-a100-40gb.preset", &s, &m)) {
		STR_EQ(s.gpu.name, "a100-sxm-40gb");
		DBL_NEAR(s.gpu.memory_B, 40.0 * 1024 * 1024 * 1024, 0);
		STR_EQ(s.intra.name, "a100-nvlink3");
		STR_EQ(s.inter.name, "ib-hdr");
		INT_EQ((int)s.nics_per_node, 8);
		INT_EQ((int)s.cpu, (int)CPU_AMD);
		system_release(&s);
	}
	if (S_load("presets/dgx-h200.preset", &s, &m)) {
		STR_EQ(s.gpu.name, "h200");
		STR_EQ(s.intra.name, "h100-nvlink4");
		INT_EQ(s.nvls, 1);
		system_release(&s);
	}
	if (S_load("presets/dgx-b300.preset", &s, &m)) {
		INT_EQ((int)s.gpu.arch, (int)ARCH_SM103);
		STR_EQ(s.intra.name, "b200-nvlink5");
		INT_EQ((int)s.nics_per_node, 8);
		DBL_NEAR(s.inter.beta_line, 100e9, 1e-12);
		DBL_NEAR(s.nics_per_node * s.inter.beta_line, 800e9, 1e-12);
		system_release(&s);
	}
}
