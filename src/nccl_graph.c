/*
 * The channel graphs of NCCL's search (src/graph/search.cc, paths.cc,
 * topo.cc of NCCL 2.30.7): what a channel may carry on NVLink, PCIe, the
 * socket link and the path to the NIC, the speeds the search tries, and
 * the ring, tree and NVLS graphs it leaves (nccl_graphs).  The tuning that
 * reads them is src/nccl_tune.c; the replay of the search on a direct
 * NVLink mesh is src/nccl_search.c.  models/nccl.md, "Channels".
 */
#include <math.h>
#include <string.h>

#include "nccl_model.h"
#include "nccl_search.h"

/* src/graph/topo.h:19-24 and ncclTopoNVLinkBw, topo.h:274-281 */
double nccl_nvlink_bw(int sm)
{
	return sm >= 100 ? 40.1 : sm >= 90 ? 20.6 : sm == 86 ? 12.0 :
	       sm >= 80 ? 20.0 : sm >= 70 ? 20.0 : sm >= 60 ? 18.0 : 20.0;
}

/*
 * topo.cc:545-556 gives each generation in units of 100 Mbit/s per lane
 * (15, 30, 60, 120, 240, 480) and topo.cc:657 bw = width × speed / 80.
 */
double nccl_pcie_bw(int gen, int width)
{
	static const double speed[] = { 0, 15, 30, 60, 120, 240, 480 };
	double s = gen >= 1 && gen <= 6 ? speed[gen] : 60;  /* 60: fallback, topo.cc:556 */
	return (width > 0 ? width : 16) * s / 80.0;
}

/* Bandwidth of the link between CPU sockets (topo.cc:60-83, topo.h:26-34).
 * The system names only the vendor: Intel is taken as Sapphire Rapids
 * (SRP_QPI_BW 22), the CPU of DGX/HGX H100. */
static double S_socket_bw(enum nccl_cpu cpu)
{
	return cpu == NCCL_CPU_AMD ? 16.0 : cpu == NCCL_CPU_ARM ? 6.0 : 22.0;
}

/* search.cc:1051-1067: the speeds (GB/s per channel) the search tries. */
static const double speed_intra[] = { 40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0 };
static const double speed_inter[] = { 48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
				      7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12 };
static const double sm90_intra[] = { 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0 };
static const double sm90_inter[] = { 48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
				     15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12 };
/* RCCL's speeds, the same inside and across nodes (rccl src/graph/search.cc:901-902) */
static const double rccl_speeds[] = { 48.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0,
				      4.0, 3.0, 2.4, 1.2, 0.24, 0.12 };
static const double sm100_intra[] = { 90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0 };
static const double sm100_inter[] = { 96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
				      20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12 };
/* S_speeds' name for RCCL's speed list */
#define NCCL_SM_RCCL (-1)
#define NELEM(a) ((int)(sizeof(a) / sizeof((a)[0])))

#define MAX_RING_CHANNELS 32   /* MAXCHANNELS/2: device.h:91, init.cc:1177 */
#define MAX_NVLS_ARITY 32      /* NCCL_MAX_NVLS_ARITY: device.h:213 */
#define MAX_DIRECT_HEADS 8     /* NCCL_MAX_DIRECT_ARITY + 1: device.h:199, search.cc:1129-1131 */

static double S_min(double a, double b) { return a < b ? a : b; }

/* What the search checks a channel against, per direction, in GB/s. */
struct caps {
	int gpus, nodes, nics;
	double intra;      /* one GPU's share of the intra-node links a ring uses */
	double gpu_net;    /* GPU-to-NIC path: min(PCIe, NIC) */
	double nic;
	double max_bw;     /* system->maxBw, search.cc:20-29 */
	double total_bw;   /* system->totalBw, search.cc:30-38 */
	double net_pci;    /* the PCIe bandwidth a NIC's channels share on the GPU's
			    * side, as the search charges it (after the 6/5) */
	double net_socket; /* > 0: every channel to a NIC crosses the CPU socket link of
			    * this bandwidth, which all of them share */
	int nvlink;
};

/*
 * The path from a GPU to its NIC as NCCL's path model prices it (the
 * bandwidth one channel may take; *socket the socket link every channel
 * shares when the path crosses it, else 0).  GPUDirect RDMA is used up to
 * PXB (NCCL_NET_GDR_LEVEL's default, paths.cc:511); a NIC further away, or
 * GDR off, diverts the traffic through the CPU local to the GPU
 * (paths.cc:844-856, addInterStep :210-228): the path is then PHB at best,
 * its bandwidth the smaller of GPU-CPU and CPU-NIC (both PCIe here).  A
 * GPU's send through an Intel root complex on a PHB path costs 6/5 of the
 * channel (followPath, search.cc:83-93, INTEL_P2P_OVERHEAD topo.h:39); a
 * SYS path also crosses the link between the sockets (topo.h:26-34), one
 * link each way that every channel through it shares.  *shared is the
 * PCIe bandwidth the channels of one NIC share (they enter or leave the
 * node at the GPU next to it).
 */
static double S_net_path_bw(const struct nccl_machine *m, double pci, double *shared,
			    double *socket)
{
	int path = m->nic_path;
	double bw = pci;

	*socket = 0;
	if (m->no_gdr && path < NCCL_PATH_PHB)
		path = NCCL_PATH_PHB;
	if (path == NCCL_PATH_PHB && m->cpu == NCCL_CPU_INTEL)
		bw = pci * 5 / 6;
	*shared = bw;
	if (path == NCCL_PATH_SYS) {
		*socket = S_socket_bw(m->cpu);
		if (*socket < bw)
			bw = *socket;
	}
	return bw;
}

static void S_caps(const struct nccl_machine *m, int nodes, struct caps *c)
{
	double link = m->nvlink_bw > 0 ? m->nvlink_bw : nccl_nvlink_bw(m->sm);
	double pci = nccl_pcie_bw(m->pcie_gen, m->pcie_width);
	int g = m->gpus_per_node;

	memset(c, 0, sizeof *c);
	c->gpus = g;
	c->nodes = nodes;
	c->nics = m->nics_per_node;
	c->nic = m->nic_bw;
	c->nvlink = m->nvlinks > 0 && g > 1;
	if (c->nvlink) {
		/* NVLinks to the same peer add up into one link (topo.cc
		 * ncclTopoConnectNodes): all of them to the NVSwitch, or
		 * nvlinks/(g-1) to each peer of a direct mesh. */
		int per = m->nvswitch ? m->nvlinks : m->nvlinks / (g - 1);
		c->intra = (per > 0 ? per : 1) * link;
		c->total_bw = m->nvlinks * link > pci ? m->nvlinks * link : pci;
		c->max_bw = c->intra;
	} else {
		/* PCIe: NCCL uses P2P up to PXB (paths.cc:356-368); further
		 * apart, or with P2P off, traffic goes through the CPU: a PHB
		 * path, on Intel with 6/5 of the bandwidth consumed
		 * (INTEL_P2P_OVERHEAD, topo.h:39; search.cc:86-91), and a SYS
		 * path also crosses the socket link. */
		int path = m->pcie_path;
		if (!m->p2p && path < NCCL_PATH_PHB)
			path = NCCL_PATH_PHB;
		c->intra = pci;
		if (path == NCCL_PATH_PHB && m->cpu == NCCL_CPU_INTEL)
			c->intra = pci * 5 / 6;
		if (path == NCCL_PATH_SYS && S_socket_bw(m->cpu) < c->intra)
			c->intra = S_socket_bw(m->cpu);
		c->total_bw = pci;
		c->max_bw = path == NCCL_PATH_SYS ? pci : c->intra;
	}
	c->gpu_net = S_net_path_bw(m, pci, &c->net_pci, &c->net_socket);
	if (c->nic < c->gpu_net)
		c->gpu_net = c->nic;
	if (nodes > 1)
		c->max_bw = c->gpu_net;   /* search.cc:50: paths to NET */
	if (g == 1 && nodes == 1)
		c->max_bw = c->total_bw = 5000.0;   /* LOC_BW, search.cc:43-46 */
}

/* How many channels of s GB/s a ring (or chain) can lay out. */
static int S_fit(const struct caps *c, double s)
{
	int ch = MAX_RING_CHANNELS;

	if (c->nodes > 1) {
		/* a NIC's channels share its bandwidth and the GPU's PCIe link to it */
		int per_nic = (int)floor(S_min(c->nic, c->net_pci) / s + 1e-9);
		if (s > c->gpu_net + 1e-9 || c->nics < 1)
			return 0;
		if (c->nics * per_nic < ch)
			ch = c->nics * per_nic;
		if (c->net_socket > 0) {
			/* every channel crosses the one socket link each way */
			int sock = (int)floor(c->net_socket / s + 1e-9);
			if (sock < ch)
				ch = sock;
		}
		if (c->gpus > 1) {
			/* A channel enters the node at one GPU and leaves at
			 * another: each GPU sends on NVLink in (g-1) of g
			 * channels. */
			double share = c->nvlink ? (double)c->gpus / (c->gpus - 1) : 1.0;
			int in = (int)floor(c->intra * share / s + 1e-9);
			if (in < ch)
				ch = in;
		}
		return ch;
	}
	if (c->gpus == 1)
		return ch;
	{
		int in = (int)floor(c->intra / s + 1e-9);
		return in < ch ? in : ch;
	}
}

static void S_speeds(int sm, int inter, const double **sp, int *n)
{
	if (sm == NCCL_SM_RCCL) {
		*sp = rccl_speeds;
		*n = NELEM(rccl_speeds);
	} else if (sm >= 100) {
		*sp = inter ? sm100_inter : sm100_intra;
		*n = inter ? NELEM(sm100_inter) : NELEM(sm100_intra);
	} else if (sm >= 90) {
		*sp = inter ? sm90_inter : sm90_intra;
		*n = inter ? NELEM(sm90_inter) : NELEM(sm90_intra);
	} else {
		*sp = inter ? speed_inter : speed_intra;
		*n = inter ? NELEM(speed_inter) : NELEM(speed_intra);
	}
}

/*
 * The ring search, search.cc:1162-1287: start at the fastest speed the
 * links allow, lower it while no better solution appears (down to half of
 * the best so far), keep the largest channels × speed (ties: the faster
 * speed found first, search.cc:457-461), duplicate channels
 * (ncclTopoDupChannels, search.cc:1036-1049), then try faster speeds at
 * that channel count (pass 2).
 */
static void S_ring(const struct nccl_machine *m, const struct caps *c, struct nccl_graph *g)
{
	const double *sp;
	int n, i = 0, best_ch = 0;
	double best = 0;

	S_speeds(m->amd ? NCCL_SM_RCCL : m->sm, c->nodes > 1, &sp, &n);
	while ((sp[i] > c->max_bw || sp[i] > c->total_bw) && i < n - 1)
		i++;
	for (; i < n; i++) {
		int ch;
		if (best_ch && !(sp[i] / best > .49))
			break;
		ch = S_fit(c, sp[i]);
		if (ch * sp[i] > best_ch * best) {
			best_ch = ch;
			best = sp[i];
		}
		if (best_ch == MAX_RING_CHANNELS || best_ch * best >= c->total_bw)
			break;
	}
	if (best_ch == 0) {     /* search.cc:1289-1296: the simple-order fallback */
		g->nchannels = 1;
		g->bw_intra = g->bw_inter = 0.1;
		g->nvlink = c->nvlink;
		g->run_bw = S_min(c->intra, c->nodes > 1 ? c->gpu_net : c->intra);
		return;
	}
	if (best >= 25.0 && !(m->sm > 80 && best < 50.0 && best_ch > 4)) {
		int dup = 2 * best_ch < MAX_RING_CHANNELS ? 2 * best_ch : MAX_RING_CHANNELS;
		best /= (dup + best_ch - 1) / best_ch;
		best_ch = dup;
	}
	for (i = 0; i < n - 1 && sp[i] > best; i++)
		;
	while (i > 0 && S_fit(c, sp[i - 1]) >= best_ch)
		best = sp[--i];
	g->nchannels = best_ch;
	g->bw_intra = g->bw_inter = best;
	g->nvlink = c->nvlink;
}

/*
 * NVLS graph (search.cc:1124-1138, 410-441; init.cc:1213): one channel per
 * GPU head (at most 32); each channel pulls s from every GPU and 2s from
 * its head, so a GPU's NVLinks carry (heads + 1)·s.  Pass 2 raises
 * bwInter while it stays below twice bwIntra (search.cc:1274-1278).
 */
static void S_nvls(const struct nccl_machine *m, const struct caps *c, struct nccl_graph *g)
{
	const double *sp;
	int n, i, heads;
	double link = m->nvlink_bw > 0 ? m->nvlink_bw : nccl_nvlink_bw(m->sm);
	double total = m->nvlinks * link;

	memset(g, 0, sizeof *g);
	if (m->sm < 90 || !m->nvswitch || !m->nvls || m->nvlinks < 1 || c->gpus < 2)
		return;
	heads = c->gpus < MAX_NVLS_ARITY ? c->gpus : MAX_NVLS_ARITY;
	if (c->nodes > 1 && c->nics < heads)
		heads = c->nics;
	if (heads < 1)
		return;
	S_speeds(m->amd ? NCCL_SM_RCCL : m->sm, c->nodes > 1, &sp, &n);
	/* across nodes every head reaches the network; through the socket
	 * link (nic_path = sys) all of them share it */
	for (i = 0; i < n - 1; i++)
		if (sp[i] <= c->max_bw && sp[i] * heads <= total && (heads + 1) * sp[i] <= total + 1e-9 &&
		    (c->nodes == 1 || !(c->net_socket > 0) || heads * sp[i] <= c->net_socket + 1e-9))
			break;
	g->nchannels = heads;
	g->bw_intra = g->bw_inter = sp[i];
	while (i > 0 && g->bw_inter < 2 * g->bw_intra &&
	       (c->nodes == 1 || (sp[i - 1] <= c->gpu_net + 1e-9 &&
				  (!(c->net_socket > 0) || heads * sp[i - 1] <= c->net_socket + 1e-9))))
		g->bw_inter = sp[--i];
	g->nvlink = 1;
}

/*
 * CollNet's graphs, on several nodes of a machine whose network reduces
 * (SHARP) and runs NCCL's CollNet plugin (init.cc:1189-1207).
 *
 * Chain: the tree pattern searched for the ring's channel count, through
 * NICs that can reduce (search.cc:738), bwIntra raised up to twice bwInter
 * in pass 2 (search.cc:1279-1282, "2 nodes or collnet"): the tree's graph
 * on several nodes, as nccl_graphs found it.
 *
 * Direct (NVSwitch only, tuning.cc:508-509): one channel per head, a GPU
 * next to a NIC, each NIC's GPU once, at most 8 (search.cc:754-770,
 * 1129-1131).  A channel at bwInter s through its NIC; inside the node its
 * head sends to and receives from every other GPU bwIntra / (g - 1)
 * (ncclTopoSearchTryCollnetDirect, search.cc:373-411), so a GPU's NVLinks
 * carry bwIntra (1 + (heads - 1)/(g - 1)) each way.  Pass 2 raises bwIntra
 * along the speed list while it stays below twice bwInter and the NVLinks
 * carry it (search.cc:1279-1282).
 */
static void S_collnet(const struct nccl_machine *m, const struct caps *c, struct nccl_graph g[NCCL_NALGO])
{
	const double *sp;
	int n, i, heads;
	double link = m->nvlink_bw > 0 ? m->nvlink_bw : nccl_nvlink_bw(m->sm), total, load;

	g[NCCL_COLLNET_CHAIN] = g[NCCL_TREE];
	memset(&g[NCCL_COLLNET_DIRECT], 0, sizeof g[0]);
	heads = c->gpus < c->nics ? c->gpus : c->nics;
	if (heads > MAX_DIRECT_HEADS)
		heads = MAX_DIRECT_HEADS;
	if (!m->nvswitch || m->nvlinks < 1 || c->gpus < 2 || heads < 1)
		return;
	total = m->nvlinks * link;
	load = 1 + (double)(heads - 1) / (c->gpus - 1);
	S_speeds(m->amd ? NCCL_SM_RCCL : m->sm, 1, &sp, &n);
	for (i = 0; i < n - 1; i++)
		if (sp[i] <= c->gpu_net + 1e-9 && sp[i] * load <= total + 1e-9 &&
		    (!(c->net_socket > 0) || heads * sp[i] <= c->net_socket + 1e-9))
			break;
	g[NCCL_COLLNET_DIRECT].nchannels = heads;
	g[NCCL_COLLNET_DIRECT].bw_intra = g[NCCL_COLLNET_DIRECT].bw_inter = sp[i];
	g[NCCL_COLLNET_DIRECT].nvlink = 1;
	while (i > 0 && g[NCCL_COLLNET_DIRECT].bw_intra < 2 * g[NCCL_COLLNET_DIRECT].bw_inter &&
	       sp[i - 1] * load <= total + 1e-9)
		g[NCCL_COLLNET_DIRECT].bw_intra = sp[--i];
}

/*
 * A direct NVLink graph (no NVSwitch): on one node, NCCL's search replayed
 * on it (nccl_search.c), the ring with init.cc:1175-1177's limits and the
 * tree with the ring's channel count (init.cc:1183-1186).  Returns 0 when
 * the graphs were set.  Across nodes the ring enters and leaves each node
 * through a NIC; that search is not replayed: the node's NVLinks count as
 * the ring search found them inside the node (models/nccl.md).
 */
static int S_mesh_graphs(const struct nccl_machine *m, int nodes, struct nccl_graph g[NCCL_NALGO],
			 double *intra_total)
{
	struct nccl_found ring, tree;

	if (!m->mesh || m->gpus_per_node < 2 ||
	    nccl_search_node(m, NCCL_PATTERN_RING, 1, MAX_RING_CHANNELS, &ring) < 0)
		return -1;
	*intra_total = ring.nchannels * ring.bw_intra;
	if (nodes > 1)
		return -1;
	if (nccl_search_node(m, NCCL_PATTERN_BALANCED_TREE, ring.nchannels, ring.nchannels, &tree) < 0)
		return -1;
	g[NCCL_RING].nchannels = ring.nchannels;
	g[NCCL_RING].bw_intra = g[NCCL_RING].bw_inter = ring.bw_intra;
	g[NCCL_RING].nvlink = ring.type_intra <= 2;   /* PATH_NVL, PATH_NVB */
	g[NCCL_TREE].nchannels = tree.nchannels;
	g[NCCL_TREE].bw_intra = tree.bw_intra;
	g[NCCL_TREE].bw_inter = tree.bw_inter;
	g[NCCL_TREE].nvlink = tree.type_intra <= 2;
	g[NCCL_PAT] = g[NCCL_TREE];          /* init.cc:980-981 */
	return 0;
}

void nccl_graphs(const struct nccl_machine *m, int nodes, struct nccl_graph g[NCCL_NALGO])
{
	struct caps c;
	double mesh_total = 0;

	memset(g, 0, NCCL_NALGO * sizeof g[0]);
	if (S_mesh_graphs(m, nodes, g, &mesh_total) == 0)
		return;
	S_caps(m, nodes, &c);
	if (mesh_total > 0)
		c.intra = mesh_total;
	S_ring(m, &c, &g[NCCL_RING]);
	/* Trees search for as many channels as rings (init.cc:1185) and,
	 * across nodes, raise bwIntra up to twice bwInter (search.cc:1279-1282). */
	g[NCCL_TREE] = g[NCCL_RING];
	if (nodes > 1) {
		const double *sp;
		int n, i;
		struct caps in = c;
		in.nodes = 1;
		S_speeds(m->amd ? NCCL_SM_RCCL : m->sm, 1, &sp, &n);
		for (i = 0; i < n - 1 && sp[i] > g[NCCL_TREE].bw_intra; i++)
			;
		while (i > 0 && sp[i - 1] < 2 * g[NCCL_TREE].bw_inter + 1e-9 &&
		       g[NCCL_TREE].bw_intra < 2 * g[NCCL_TREE].bw_inter &&
		       S_fit(&in, sp[i - 1]) >= g[NCCL_TREE].nchannels)
			g[NCCL_TREE].bw_intra = sp[--i];
	}
	g[NCCL_PAT] = g[NCCL_TREE];          /* init.cc:980-981 */
	S_nvls(m, &c, &g[NCCL_NVLS]);
	g[NCCL_NVLS_TREE] = g[NCCL_NVLS];    /* init.cc:980-981 */
	if (m->collnet && nodes > 1)
		S_collnet(m, &c, g);
}
