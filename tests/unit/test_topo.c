/*
 * Topology files (src/topo.c) on real public matrices and dumps
 * (tests/data/topo/README names each source), the system key `topo`, and
 * NCCL's channel search on NVLink graphs without a switch
 * (src/nccl_search.c), against hand-worked values: models/nccl.md,
 * "Channels on NVLink without a switch".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "nccl_cost.h"
#include "nccl_search.h"
#include "system.h"
#include "topo.h"

void test_topo_dgx1_matrix(void)
{
	struct topo t;
	struct errbuf eb;
	int i, links = 0;

	INT_EQ(topo_read("tests/data/topo/dgx1-v100.txt", &t, &eb), 0);
	INT_EQ(t.format, TOPO_SMI);
	INT_EQ(t.gpus, 8);
	INT_EQ(t.nics, 4);
	INT_EQ(t.legend, 1);
	/* the hybrid cube mesh: GPU0 has NV1 to 1 and 2, NV2 to 3 and 4 */
	INT_EQ(t.nvl[0][1], 1);
	INT_EQ(t.nvl[0][2], 1);
	INT_EQ(t.nvl[0][3], 2);
	INT_EQ(t.nvl[0][4], 2);
	INT_EQ(t.nvl[0][5], 0);
	INT_EQ(t.nvl[4][7], 2);
	INT_EQ(t.gpu_path[0][5], TOPO_PATH_SYS);
	INT_EQ(t.gpu_path[0][3], TOPO_PATH_NONE);   /* NV2: no PCIe path printed */
	for (i = 0; i < 8; i++) {
		INT_EQ(topo_nvlinks(&t, i), 6);
		INT_EQ(t.nic_path[i], TOPO_PATH_PIX);   /* each GPU pair has its NIC */
		links += topo_nvlinks(&t, i);
	}
	INT_EQ(links, 48);
	INT_EQ(topo_nvswitch(&t, 6), 0);
	INT_EQ(topo_nvswitch(&t, 0), 0);
	INT_EQ(topo_widest_gpu_path(&t), TOPO_PATH_SYS);
}

/* The same matrix with blanks for tabs and without the legend reads the same. */
void test_topo_blanks(void)
{
	static const char m[] =
		"$ nvidia-smi topo -m\n"
		"        GPU0    GPU1    GPU2    GPU3    mlx5_0  CPU Affinity    NUMA Affinity\n"
		"GPU0     X      NV1     NV1     NV2     PIX     0-19,40-59      0\n"
		"GPU1    NV1      X      NV2     NV1     PIX     0-19,40-59      0\n"
		"GPU2    NV1     NV2      X      NV2     PHB     0-19,40-59      1\n"
		"GPU3    NV2     NV1     NV2      X      PHB     0-19,40-59      1\n"
		"mlx5_0  PIX     PIX     PHB     PHB      X\n";
	struct topo t;
	struct errbuf eb;

	INT_EQ(topo_parse(m, sizeof m - 1, "m", &t, &eb), 0);
	INT_EQ(t.gpus, 4);
	INT_EQ(t.nics, 1);
	INT_EQ(t.legend, 0);
	INT_EQ(t.nvl[2][3], 2);
	INT_EQ(t.numa[0], 0);
	INT_EQ(t.numa[3], 1);
	INT_EQ(t.nic_path[2], TOPO_PATH_PHB);
	INT_EQ(topo_widest_nic_path(&t), TOPO_PATH_PHB);
	INT_EQ(topo_widest_gpu_path(&t), TOPO_PATH_NONE);
}

/* An NVSwitch machine prints NV18 for every pair: 7 × 18 links is more than a GPU has. */
void test_topo_switch_matrix(void)
{
	static const char m[] =
		"\tGPU0\tGPU1\tGPU2\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
		"GPU0\t X \tNV18\tNV18\tPIX\t0-47\t0\t\tN/A\n"
		"GPU1\tNV18\t X \tNV18\tNODE\t0-47\t0\t\tN/A\n"
		"GPU2\tNV18\tNV18\t X \tSYS\t48-95\t1\t\tN/A\n"
		"NIC0\tPIX\tNODE\tSYS\t X \t\t\t\t\n\nNIC Legend:\n\n  NIC0: mlx5_0\n";
	struct topo t;
	struct errbuf eb;

	INT_EQ(topo_parse(m, sizeof m - 1, "m", &t, &eb), 0);
	INT_EQ(t.gpus, 3);
	INT_EQ(topo_nvswitch(&t, 18), 1);   /* 36 links of a GPU with 18 */
	INT_EQ(topo_nvswitch(&t, 0), 1);
	INT_EQ(t.nic_path[1], TOPO_PATH_NODE);
	INT_EQ(t.numa[2], 1);
}

/* Azure NDv4 (8 A100, AMD, 8 HDR NICs): a cloud XML of PCIe only. */
void test_topo_azure_ndv4(void)
{
	struct topo t;
	struct errbuf eb;
	int i;

	INT_EQ(topo_read("tests/data/topo/azure-ndv4-topo.xml", &t, &eb), 0);
	INT_EQ(t.format, TOPO_XML);
	INT_EQ(t.gpus, 8);
	INT_EQ(t.nics, 8);
	INT_EQ(t.cpu_vendor, 1);
	INT_EQ(topo_nvswitch(&t, 12), -1);      /* no NVLink in the file */
	/* two GPUs and two NICs under each bridge, a bridge per NUMA node */
	INT_EQ(t.gpu_path[0][1], TOPO_PATH_PIX);
	INT_EQ(t.gpu_path[0][2], TOPO_PATH_SYS);
	for (i = 0; i < 8; i++)
		INT_EQ(t.nic_path[i], TOPO_PATH_PIX);
	INT_EQ(t.numa[7], 3);
}

/* Azure NDv2 (8 V100): GPUs straight under each socket, one NIC on socket 0. */
void test_topo_azure_ndv2(void)
{
	struct topo t;
	struct errbuf eb;

	INT_EQ(topo_read("tests/data/topo/azure-ndv2-topo.xml", &t, &eb), 0);
	INT_EQ(t.gpus, 8);
	INT_EQ(t.nics, 1);
	INT_EQ(t.cpu_vendor, 0);
	INT_EQ(t.gpu_path[0][3], TOPO_PATH_PHB);
	INT_EQ(t.gpu_path[3][4], TOPO_PATH_SYS);
	INT_EQ(t.nic_path[0], TOPO_PATH_PHB);
	INT_EQ(t.nic_path[5], TOPO_PATH_SYS);
}

/* Azure NCv4 (4 A100 PCIe): <gpu> elements, NVLinks to themselves, a NIC under a CPU. */
void test_topo_azure_ncv4(void)
{
	struct topo t;
	struct errbuf eb;

	INT_EQ(topo_read("tests/data/topo/azure-ncv4-topo.xml", &t, &eb), 0);
	INT_EQ(t.gpus, 4);
	INT_EQ(t.sm, 80);
	INT_EQ(t.nics, 1);
	INT_EQ(t.ignored_links, 48);            /* 4 × 12 links whose target is the GPU itself */
	INT_EQ(topo_nvswitch(&t, 12), -1);
	DBL_NEAR(t.nic_speed_Bps, 12.5e9, 1e-12);   /* speed="100000" Mbit/s */
	INT_EQ(t.nic_path[0], TOPO_PATH_PHB);
	INT_EQ(t.nic_path[1], TOPO_PATH_SYS);
}

static void S_bad(const char *text, const char *want)
{
	struct topo t;
	struct errbuf eb;

	eb.msg[0] = '\0';
	INT_EQ(topo_parse(text, strlen(text), "f", &t, &eb), -1);
	if (!strstr(eb.msg, want))
		h_report(__FILE__, __LINE__, "message '%s' lacks '%s'", eb.msg, want);
	else
		h_pass++;
}

void test_topo_errors(void)
{
	struct topo t;
	struct errbuf eb;

	INT_EQ(topo_read("tests/data/topo/azure-ncv4-graph.xml", &t, &eb), -1);
	CHECK(strstr(eb.msg, "graph dump") != NULL);
	S_bad("GPU0 GPU1\nGPU0 X FOO\nGPU1 NV1 X\n", "f:2: row GPU0, column GPU1: 'FOO'");
	S_bad("GPU0 GPU1\nGPU0 X NV2\nGPU1 NV1 X\n", "disagree");
	S_bad("GPU0 GPU1\nGPU0 X NV2\n", "f:1: no row for GPU1");
	S_bad("GPU0 GPU1\nGPU0 NV1 X\nGPU1 X NV1\n", "diagonal");
	S_bad("GPU0 GPU2\n", "out of order");
	S_bad("hello\n", "neither an nvidia-smi");
	S_bad("GPU0 GPU1\nGPU0 X NV1\nGPU7 NV1 X\n", "f:3: row 'GPU7' names no column");
	S_bad("<system>\n<cpu>\n</system>\n", "f:3: </system> closes <cpu>");
	S_bad("<system>\n<cpu numaid=\"x\"/>\n</system>\n", "f:2: <cpu numaid=\"x\">");
	S_bad("<system version=\"1\"></system>", "no GPU");
	S_bad("<graphs/>", "graph dump");
	S_bad("<system><pci busid=\"0:1\" class=\"0x030200\"><gpu dev=\"0\">\n"
	      "<nvlink target=\"0:1\" count=\"2\" tclass=\"0x0123\"/></gpu></pci></system>",
	      "f:2: <nvlink tclass=\"0x0123\">");
	S_bad("<system a='1' a='2'/>", "given twice");
	S_bad("<system", "not closed");
}

/* A machine of n GPUs with the NVLinks of a matrix. */
static void S_mesh(struct nccl_machine *m, int sm, const struct topo *t)
{
	int i, j;

	memset(m, 0, sizeof *m);
	m->sm = sm;
	m->gpus_per_node = t->gpus;
	m->pcie_gen = 3;
	m->pcie_width = 16;
	m->pcie_path = NCCL_PATH_SYS;
	m->p2p = 1;
	m->mesh = 1;
	for (i = 0; i < t->gpus; i++)
		for (j = 0; j < t->gpus; j++) {
			m->nvl[i][j] = t->nvl[i][j];
			m->nvlinks += t->nvl[i][j];
		}
	m->nvlinks /= t->gpus;
}

/*
 * DGX-1 (V100), models/nccl.md: at 40 GB/s only the doubled links carry a
 * channel, and they form one 8-cycle, 0 3 2 1 5 6 7 4, usable both ways:
 * 2 x 40 = 80 < 120 (6 links x 20).  At 30 the same two rings, 60.  At 20
 * each doubled link carries 2 channels and each single link 1: the cycle
 * twice each way and the single-link cycle 0 1 3 7 5 4 6 2 once each way,
 * 6 x 20 = 120 = all the links: the search stops.  20 < 25: no duplication.
 */
void test_search_dgx1(void)
{
	static const int want[6][8] = {
		{ 0, 3, 2, 1, 5, 6, 7, 4 }, { 0, 3, 2, 1, 5, 6, 7, 4 },
		{ 0, 4, 7, 6, 5, 1, 2, 3 }, { 0, 4, 7, 6, 5, 1, 2, 3 },
		{ 0, 1, 3, 7, 5, 4, 6, 2 }, { 0, 2, 6, 4, 5, 7, 3, 1 },
	};
	struct topo t;
	struct errbuf eb;
	struct nccl_machine m;
	struct nccl_found f;
	struct nccl_graph g[NCCL_NALGO];
	int c, i, ok = 1;

	INT_EQ(topo_read("tests/data/topo/dgx1-v100.txt", &t, &eb), 0);
	S_mesh(&m, 70, &t);
	INT_EQ(nccl_search_node(&m, NCCL_PATTERN_RING, 1, 32, &f), 0);
	INT_EQ(f.nchannels, 6);
	DBL_NEAR(f.bw_intra, 20, 1e-9);
	INT_EQ(f.type_intra, 1);                /* PATH_NVL: every ring on whole links */
	for (c = 0; c < 6; c++)
		for (i = 0; i < 8; i++)
			ok &= f.order[c][i] == want[c][i];
	CHECK(ok);
	/* the tree: 6 chains, found at 20 on the first try of each */
	INT_EQ(nccl_search_node(&m, NCCL_PATTERN_BALANCED_TREE, 6, 6, &f), 0);
	INT_EQ(f.nchannels, 6);
	DBL_NEAR(f.bw_intra, 20, 1e-9);
	nccl_graphs(&m, 1, g);
	INT_EQ(g[NCCL_RING].nchannels, 6);
	DBL_NEAR(g[NCCL_RING].bw_intra, 20, 1e-9);
	INT_EQ(g[NCCL_TREE].nchannels, 6);
	INT_EQ(g[NCCL_RING].nvlink, 1);
	INT_EQ(g[NCCL_NVLS].nchannels, 0);
}

/*
 * Four GH200 in a full mesh of NV6 (sm90, 6 x 20.6 = 123.6 GB/s a pair):
 * at 60 each directed pair carries 2 channels and the 6 directed
 * Hamiltonian cycles of 4 GPUs use each directed pair twice: 6 x 60 = 360,
 * which 50, 40 (9 x 40) and 30 (12 x 30) only equal; duplicated (60 >= 50)
 * into 12 x 30.  Spreading the links evenly over one ring gave 4 x 30.
 */
void test_search_full_mesh(void)
{
	static const char k4[] =
		"GPU0 GPU1 GPU2 GPU3\nGPU0 X NV6 NV6 NV6\nGPU1 NV6 X NV6 NV6\n"
		"GPU2 NV6 NV6 X NV6\nGPU3 NV6 NV6 NV6 X\n";
	struct topo t;
	struct errbuf eb;
	struct nccl_machine m;
	struct nccl_found f;

	INT_EQ(topo_parse(k4, sizeof k4 - 1, "k4", &t, &eb), 0);
	S_mesh(&m, 90, &t);
	INT_EQ(nccl_search_node(&m, NCCL_PATTERN_RING, 1, 32, &f), 0);
	INT_EQ(f.nchannels, 12);
	DBL_NEAR(f.bw_intra, 30, 1e-9);
}

/*
 * Two A40 on an NVLink bridge of NV4 (sm86, 4 x 12 = 48 GB/s each way):
 * the ring 0 1 0 fits once at 40 (8 GB/s left), 20 x 2 only ties, so
 * 1 x 40, duplicated (40 >= 25, and sm86 duplicates below 50 up to 4
 * channels) into 2 x 20.  The tree searches for those 2 channels: its
 * chains use one direction each (0 1 and 1 0) and fit at 40: 2 x 40.
 */
void test_search_bridge(void)
{
	static const char br[] = "GPU0 GPU1\nGPU0 X NV4\nGPU1 NV4 X\n";
	struct topo t;
	struct errbuf eb;
	struct nccl_machine m;
	struct nccl_found f;

	INT_EQ(topo_parse(br, sizeof br - 1, "br", &t, &eb), 0);
	S_mesh(&m, 86, &t);
	INT_EQ(nccl_search_node(&m, NCCL_PATTERN_RING, 1, 32, &f), 0);
	INT_EQ(f.nchannels, 2);
	DBL_NEAR(f.bw_intra, 20, 1e-9);
	INT_EQ(nccl_search_node(&m, NCCL_PATTERN_BALANCED_TREE, 2, 2, &f), 0);
	INT_EQ(f.nchannels, 2);
	DBL_NEAR(f.bw_intra, 40, 1e-9);
	INT_EQ(f.order[0][0], 0);
	INT_EQ(f.order[1][0], 1);
}

/* Two searches found the same channels. */
static int S_same_found(const struct nccl_found *a, const struct nccl_found *b)
{
	return a->nchannels == b->nchannels && a->bw_intra == b->bw_intra &&
	       a->bw_inter == b->bw_inter && a->type_intra == b->type_intra &&
	       a->pattern == b->pattern && a->steps == b->steps &&
	       memcmp(a->order, b->order, sizeof a->order) == 0;
}

/*
 * A search asked again gives what it found the first time, after other
 * machines and other arguments were searched, and after more searches
 * than it remembers: the bridge's 2 x 20 and the full mesh's 12 x 30 of
 * the tests above, each whole.
 */
void test_search_remembered(void)
{
	static const char br[] = "GPU0 GPU1\nGPU0 X NV4\nGPU1 NV4 X\n";
	static const char k4[] =
		"GPU0 GPU1 GPU2 GPU3\nGPU0 X NV6 NV6 NV6\nGPU1 NV6 X NV6 NV6\n"
		"GPU2 NV6 NV6 X NV6\nGPU3 NV6 NV6 NV6 X\n";
	struct topo tb, tk;
	struct errbuf eb;
	struct nccl_machine mb, mk;
	struct nccl_found first, mesh, again;
	int k;

	INT_EQ(topo_parse(br, sizeof br - 1, "br", &tb, &eb), 0);
	INT_EQ(topo_parse(k4, sizeof k4 - 1, "k4", &tk, &eb), 0);
	S_mesh(&mb, 86, &tb);
	S_mesh(&mk, 90, &tk);
	INT_EQ(nccl_search_node(&mb, NCCL_PATTERN_RING, 1, 32, &first), 0);
	INT_EQ(first.nchannels, 2);
	DBL_NEAR(first.bw_intra, 20, 1e-9);
	INT_EQ(nccl_search_node(&mk, NCCL_PATTERN_RING, 1, 32, &mesh), 0);
	INT_EQ(mesh.nchannels, 12);
	DBL_NEAR(mesh.bw_intra, 30, 1e-9);
	INT_EQ(nccl_search_node(&mb, NCCL_PATTERN_RING, 1, 32, &again), 0);
	CHECK(S_same_found(&first, &again));
	/* the tree of the same machine is searched, not the ring given back */
	INT_EQ(nccl_search_node(&mb, NCCL_PATTERN_BALANCED_TREE, 2, 2, &again), 0);
	DBL_NEAR(again.bw_intra, 40, 1e-9);
	for (k = 1; k <= 8; k++)   /* more than are remembered */
		INT_EQ(nccl_search_node(&mk, NCCL_PATTERN_RING, 1, k, &again), 0);
	INT_EQ(nccl_search_node(&mb, NCCL_PATTERN_RING, 1, 32, &again), 0);
	CHECK(S_same_found(&first, &again));
	INT_EQ(nccl_search_node(&mk, NCCL_PATTERN_RING, 1, 32, &again), 0);
	CHECK(S_same_found(&mesh, &again));
	/* one link fewer is another machine */
	mk.nvl[0][1] = mk.nvl[1][0] = 5;
	INT_EQ(nccl_search_node(&mk, NCCL_PATTERN_RING, 1, 32, &again), 0);
	CHECK(!S_same_found(&mesh, &again));
}

/* The shipped DGX-1 system: everything about the node from its topo file. */
void test_system_topo_key(void)
{
	struct preset_dirs d;
	struct system s;
	struct errbuf eb;
	struct nccl_machine m;

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, NULL, NULL);
	INT_EQ(system_load(&d, "presets/dgx1-v100.preset", &s, &eb), 0);
	INT_EQ((long long)s.gpus_per_node, 8);
	INT_EQ(s.nvswitch, 0);
	INT_EQ((long long)s.nics_per_node, 4);
	INT_EQ(s.nic_path, PCIE_PIX);
	INT_EQ(s.pcie_path, PCIE_SYS);
	CHECK(s.topo != NULL);
	CHECK(s.topo->nvl[0][3] == 2);
	INT_EQ(nccl_machine_from_system(&s, &m, &eb), 0);
	INT_EQ(m.mesh, 1);
	INT_EQ(m.nvl[1][2], 2);
	INT_EQ(m.nvlinks, 6);
	system_release(&s);
	preset_dirs_release(&d);
}

/* The NVSwitch nodes of ml-engineering's examples: NV12 and NV18 for every pair. */
void test_topo_switch_examples(void)
{
	struct topo t;
	struct errbuf eb;

	INT_EQ(topo_read("tests/data/topo/dgx-a100.txt", &t, &eb), 0);
	INT_EQ(t.gpus, 8);
	INT_EQ(t.nics, 0);
	INT_EQ(t.nvl[3][6], 12);
	INT_EQ(t.numa[5], 1);
	INT_EQ(topo_nvswitch(&t, 12), 1);       /* 7 x 12 = 84 links of a GPU with 12 */
	INT_EQ(topo_read("tests/data/topo/dgx-h100.txt", &t, &eb), 0);
	INT_EQ(t.nvl[7][0], 18);
	INT_EQ(topo_nvswitch(&t, 18), 1);
	INT_EQ(topo_read("tests/data/topo/nvlink-bridge-2gpu.txt", &t, &eb), 0);
	INT_EQ(t.gpus, 2);
	INT_EQ(t.nvl[0][1], 2);
	INT_EQ(t.numa[0], -1);                  /* N/A */
	INT_EQ(topo_nvswitch(&t, 4), 0);        /* a bridge: 2 links, fewer than the GPU has */
}

/* An 8-GPU PCIe server: no NVLink, the paths as printed, the NIC on one socket. */
void test_topo_pcie_server(void)
{
	struct topo t;
	struct errbuf eb;

	INT_EQ(topo_read("tests/data/topo/pcie-8gpu-2socket.txt", &t, &eb), 0);
	INT_EQ(t.gpus, 8);
	INT_EQ(t.nics, 1);
	INT_EQ(topo_nvswitch(&t, 0), -1);
	INT_EQ(t.gpu_path[0][1], TOPO_PATH_PIX);
	INT_EQ(t.gpu_path[0][2], TOPO_PATH_PXB);
	INT_EQ(t.gpu_path[3][4], TOPO_PATH_SYS);
	INT_EQ(t.nic_path[0], TOPO_PATH_SYS);
	INT_EQ(t.nic_path[4], TOPO_PATH_PHB);
	INT_EQ(topo_widest_gpu_path(&t), TOPO_PATH_SYS);
	INT_EQ(topo_widest_nic_path(&t), TOPO_PATH_SYS);
}

/*
 * Four V100 in a full mesh of NV2 (Dell C4140; sm70, 40 GB/s a directed
 * pair, totalBw 120): at 40 and 30 a pair carries one channel each way, and
 * the 12 directed pairs of 4 GPUs hold only 2 disjoint directed rings (a
 * third would need 0 2 and 1 3 both ways: two 2-cycles), 2 x 40 = 80; at 20
 * a pair carries two, and the 6 directed rings of 4 GPUs use each pair
 * exactly twice: 6 x 20 = 120, all of the links.
 */
void test_search_v100_mesh(void)
{
	struct topo t;
	struct errbuf eb;
	struct nccl_machine m;
	struct nccl_found f;

	INT_EQ(topo_read("tests/data/topo/v100-4gpu-mesh.txt", &t, &eb), 0);
	INT_EQ(t.nics, 1);
	INT_EQ(t.nic_path[3], TOPO_PATH_NODE);
	INT_EQ(topo_nvswitch(&t, 6), 0);
	S_mesh(&m, 70, &t);
	INT_EQ(nccl_search_node(&m, NCCL_PATTERN_RING, 1, 32, &f), 0);
	INT_EQ(f.nchannels, 6);
	DBL_NEAR(f.bw_intra, 20, 1e-9);
}

/* A100 PCIe bridged in pairs: a ring of the first two GPUs stays on its NV12. */
void test_search_bridged_pairs(void)
{
	struct topo t;
	struct errbuf eb;
	struct nccl_machine m;
	struct nccl_found f;

	INT_EQ(topo_read("tests/data/topo/a100-pcie-nvlink-pairs.txt", &t, &eb), 0);
	INT_EQ(t.nvl[2][3], 12);
	INT_EQ(t.gpu_path[0][2], TOPO_PATH_NODE);
	INT_EQ(topo_nvswitch(&t, 12), 0);
	S_mesh(&m, 80, &t);
	m.gpus_per_node = 2;                    /* a communicator of GPUs 0 and 1 */
	INT_EQ(nccl_search_node(&m, NCCL_PATTERN_RING, 1, 32, &f), 0);
	/* 12 x 20 = 240 both ways: 6 x 40 fill it, duplicated (sm80 at 40) into 12 x 20 */
	INT_EQ(f.nchannels, 12);
	DBL_NEAR(f.bw_intra, 20, 1e-9);
	INT_EQ(f.type_intra, 1);
}
