/*
 * NCCL's tuning table (ncclTopoTuneModel, src/graph/tuning.cc of NCCL
 * 2.30.7, tag v2.30.7-1): from the channel graphs of src/nccl_graph.c, the
 * bus bandwidth and the latency of every collective, algorithm and
 * protocol NCCL tunes, term by term (nccl_tune_init), and the factors of
 * it that src/nccl_model.c's nccl_time and nccl_terms read again
 * (nccl_int.h).  The constants are nccl_params, in src/nccl_model.c.
 * models/nccl.md, "The tuning table".
 */
#include <string.h>

#include "nccl_model.h"
#include "nccl_int.h"

int nccl_log2i(unsigned long long n)
{
	int l = -1;
	while (n) {
		l++;
		n >>= 1;
	}
	return l;
}

#define MAX_NVLS_LOCAL 32   /* NCCL_MAX_NVLS_ARITY, device.h:213 */

static double S_min(double a, double b) { return a < b ? a : b; }
static double S_max(double a, double b) { return a > b ? a : b; }

/*
 * Bus to algorithm bandwidth (tuning.cc:377-382): 1 and the factor in
 * *ratio, or 0 where NCCL keeps the bus bandwidth — the all-gather and
 * reduce-scatter of every algorithm but Ring, and before 2.23 of CollNet
 * Direct only; NVLS and NVLSTree took 5/6 before 2.28 (v2.21.5 :213-218,
 * v2.27.7 :321-326).
 */
int nccl_bus_ratio(const struct nccl_params *p, enum nccl_func f, enum nccl_algo a,
		   int ranks, int nsteps, double *ratio)
{
	int gather = f == NCCL_ALLGATHER || f == NCCL_REDUCESCATTER;
	int nvls = a == NCCL_NVLS || a == NCCL_NVLS_TREE;

	*ratio = 1;
	if (p->version < 223 ? a == NCCL_COLLNET_DIRECT && gather : a != NCCL_RING && gather)
		return 0;
	*ratio = nvls && p->version < 228 ? 5.0 / 6.0 :
		 a == NCCL_RING || nvls ? (double)ranks / nsteps : .5;
	return 1;
}

/* Ring/LL's share of the bus bandwidth: 0.5 (tuning.cc:327) from 2.21;
 * before, 1/4 across nodes or for all-reduce and reduce, 1/3 otherwise
 * (v2.20.5-1 tuning.cc:181). */
double nccl_ring_ll_factor(const struct nccl_params *p, enum nccl_func f, int nodes)
{
	if (p->version >= 221)
		return .5;
	return nodes > 1 || f == NCCL_ALLREDUCE || f == NCCL_REDUCE ? 1.0 / 4 : 1.0 / 3;
}

/* Network steps of a ring (tuning.cc:411-412): 2 × nodes for an
 * all-reduce before 2.23 (v2.21.5 :161), 2 × (nodes - 1) since. */
int nccl_inter_steps(const struct nccl_params *p, enum nccl_func f, int nodes)
{
	if (nodes == 1)
		return 0;
	if (f == NCCL_ALLREDUCE)
		return 2 * (nodes - (p->version < 223 ? 0 : 1));
	return nodes - 1;
}

/* NVLS and NVLSTree a channel before 2.28: min(bwIntra, bwInter),
 * NVLSTree's bwInter halved beyond 2 nodes; from 2.27 NVLS all-gather and
 * reduce-scatter min(bwIntra × (ppn - 1)/ppn, 0.9 bwInter) (v2.27.7
 * tuning.cc:267-275, v2.26.2 :251-252). */
double nccl_nvls_bw_old(const struct nccl_params *p, const struct nccl_graph *g,
			enum nccl_func f, enum nccl_algo a, int nodes, double ppn)
{
	if (a == NCCL_NVLS && f != NCCL_ALLREDUCE && p->version >= 227)
		return S_min(g->bw_intra * (ppn - 1) / ppn, g->bw_inter * 0.9);
	return S_min(g->bw_intra, a == NCCL_NVLS || nodes <= 2 ? g->bw_inter : g->bw_inter / 2);
}

/* What every entry of the table shares: the machine, the communicator's shape. */
struct tune_ctx {
	const struct nccl_params *p;
	const struct nccl_machine *m;
	int ranks, nodes, arch, idx1, idx2, hw_intra[NCCL_NALGO];
	unsigned algo_mask, proto_mask;
	double ppn;
};

/* CollNet runs up to 8 GPUs a node: NCCL_MAX_DIRECT_ARITY + 1 (device.h:199,
 * enqueue.cc:2000-2003) */
#define MAX_COLLNET_LOCAL 8

/*
 * CollNet's bus bandwidth from nchannels × bwIntra, bus (tuning.cc:305-306,
 * 338-350): Simple only; Direct divides it by how many GPUs share a NIC,
 * halfway (f = ppn / heads, then f - (f - 1)/2) and takes 0.85 of it from
 * sm90 on; Chain keeps it.  All-reduce alone: all-gather and reduce-scatter
 * through the network's reduction need the plugin's iallgather and
 * ireducescatter and a NIC per GPU (:351-373), not assumed.
 */
static double S_collnet_bus(const struct tune_ctx *c, const struct nccl_graph *g, int f, int a,
			    int pr, double bus)
{
	double factor;

	if (pr != NCCL_SIMPLE || f != NCCL_ALLREDUCE || c->ranks / c->nodes > MAX_COLLNET_LOCAL)
		return 0;
	if (a == NCCL_COLLNET_CHAIN)
		return bus;
	factor = c->ppn / g->nchannels;
	factor -= (factor - 1) / 2;
	return bus / factor * (c->m->sm >= 90 ? .85 : 1);
}

/* Whether NCCL tunes algorithm a for collective f at all (tuning.cc:294-298). */
static int S_tune_skip(const struct nccl_params *p, int f, int a)
{
	if ((f == NCCL_BROADCAST || f == NCCL_REDUCE) && a != NCCL_RING)
		return 1;                                   /* :294 */
	if ((f == NCCL_REDUCESCATTER || f == NCCL_ALLGATHER) &&
	    a != NCCL_PAT && a != NCCL_RING && a != NCCL_NVLS && a != NCCL_COLLNET_DIRECT)
		return 1;                                   /* :295-297 */
	if (f == NCCL_ALLREDUCE && a == NCCL_PAT)
		return 1;                                   /* :298 */
	if (a == NCCL_PAT && p->version < 223)
		return 1;                   /* PAT came with 2.23 */
	return 0;
}

/* bus times the bus to algorithm ratio, or 0 where NCCL turns the entry off. */
static double S_tune_gate(const struct tune_ctx *c, const struct nccl_graph *g, int f, int a, int pr,
			  double ratio, double bus)
{
	const struct nccl_machine *m = c->m;
	int ranks = c->ranks, nodes = c->nodes, collnet = a == NCCL_COLLNET_DIRECT || a == NCCL_COLLNET_CHAIN;
	unsigned algo_mask = c->algo_mask, proto_mask = c->proto_mask;
	/* CollNet needs a network that reduces (SHARP) and
	 * NCCL_COLLNET_ENABLE, on 2 nodes or more; NVLS across nodes
	 * reduces through it too (tuning.cc:503-506,
	 * NCCL_COLLNET_NODE_THRESHOLD init.cc:1468-1475); NVLS all-gather
	 * and reduce-scatter across nodes need the plugin's own (:351-373) */
	if ((collnet || (a == NCCL_NVLS && nodes > 1)) && !m->collnet)
		bus = 0;
	if (a == NCCL_NVLS && nodes > 1 && f != NCCL_ALLREDUCE)
		bus = 0;
	if (collnet)
		bus = S_collnet_bus(c, g, f, a, pr, bus);
	/* NVLS and NVLSTree reduce-scatter and all-gather stop
	 * at NCCL_MAX_NVLS_ARITY (32) local ranks: an NVLink
	 * domain of 72 runs them on rings (enqueue.cc:2004-2006,
	 * device.h:213) */
	if ((a == NCCL_NVLS || a == NCCL_NVLS_TREE) && f != NCCL_ALLREDUCE &&
	    ranks / nodes > MAX_NVLS_LOCAL)
		bus = 0;
	if (a == NCCL_NVLS_TREE && nodes == 1)
		bus = 0;                            /* :502 */
	bus *= ratio;
	/* LL128: only over NVLink (typeIntra <= NVB), and
	 * across nodes only when the inter-node graph reaches
	 * its NICs by PXN at worst on Hopper and later, PXB
	 * before (typeInter, :518-536).  A GPU whose nearest
	 * NIC is behind the host bridge (PHB) or further has
	 * no PXN route either: PXN relays through a peer GPU
	 * that reaches the NIC by P2C or better (paths.cc:
	 * 816-841), and every GPU is that far. */
	/* Those checks hold only for LL128's default: a
	 * NCCL_PROTO that enables it (a list naming it, or
	 * ^ of others) sets it on outright (parseList,
	 * :55-115, 452-456; pEnable 1, not 2). */
	/* Without GDR the path to the NIC goes through the
	 * CPU, PHB at best (paths.cc:844-856). */
	if (pr == NCCL_LL128 && proto_mask == ~0u &&
	    (!g->nvlink || (nodes > 1 && (m->nic_path > NCCL_PATH_PXB || m->no_gdr))))
		bus = 0;
	/* RCCL enables LL128 by default on gfx90a alone
	 * (rccl tuning.cc:512-514) */
	if (pr == NCCL_LL128 && m->amd && proto_mask == ~0u)
		bus = 0;
	if (!(algo_mask >> a & 1) || !(proto_mask >> pr & 1))
		bus = 0;
	return bus;
}

/* The bus bandwidth of (f, a, pr) on graph g, in *busp; 0 when NCCL leaves the entry unset. */
static int S_tune_bw(const struct tune_ctx *c, const struct nccl_graph *g, int f, int a, int pr,
		     int nsteps, double *busp)
{
	const struct nccl_params *p = c->p;
	int ranks = c->ranks, nodes = c->nodes, arch = c->arch, idx1 = c->idx1, idx2 = c->idx2;
	double ppn = c->ppn, bw, bus, ratio;
	int collnet = a == NCCL_COLLNET_DIRECT || a == NCCL_COLLNET_CHAIN;
	if ((a == NCCL_NVLS || a == NCCL_NVLS_TREE) && pr != NCCL_SIMPLE)
		return 0;                           /* :301 */
	/* PAT needs one GPU per node (tuning.cc:216-223, 302-304) */
	if (a == NCCL_PAT && (pr != NCCL_SIMPLE || nodes != ranks))
		return 0;
	if (g->nchannels == 0)
		return 0;
	bw = nodes <= 2 || collnet ? g->bw_intra : g->bw_inter;  /* :306 */
	/* 2.31's tree takes the slower of its two speeds
	 * (2.31.0a7 src/tuning/tree.cc:28) */
	if (a == NCCL_TREE && p->version >= 231)
		bw = S_min(g->bw_intra, g->bw_inter);
	if ((a == NCCL_NVLS || a == NCCL_NVLS_TREE) && p->version < 228) {
		bw = nccl_nvls_bw_old(p, g, f, a, nodes, ppn);
	} else if (a == NCCL_NVLS || a == NCCL_NVLS_TREE) {
		double ib, eb2;
		if (g->nchannels < 2)
			return 0;                   /* :309 */
		ib = g->bw_intra * p->nvls_eff[arch] * (g->nchannels - 1) / g->nchannels;
		ib *= f == NCCL_ALLREDUCE ? 2.0 : (ppn - 1) / ppn;   /* :314-318 */
		eb2 = g->bw_inter * (nodes <= 2 && a == NCCL_NVLS_TREE ? 2 : 1);  /* :320 */
		bw = S_min(ib, eb2);
		if (a == NCCL_NVLS_TREE)
			bw = S_min(bw, p->perch_nvls_tree[arch][idx2]);
	}
	bus = g->nchannels * bw;                    /* :324 */
	/* tuning.cc:327-337 */
	if (a == NCCL_RING && pr == NCCL_LL)
		bus = S_min(p->ll_max_bw[idx1][idx2], bus * nccl_ring_ll_factor(p, f, nodes));
	if (a == NCCL_RING && pr == NCCL_LL128)
		bus = S_min(bus * (p->version < 223 && ppn < 2 ? 0.7 : 0.92),  /* v2.21.5 :181 */
			    g->nchannels * p->perch_ring_ll128[arch][idx2]);
	if (a == NCCL_TREE && f == NCCL_ALLREDUCE)
		bus = S_min(bus * .92, g->nchannels * p->perch_tree[arch][idx2]);
	if (a == NCCL_TREE && pr == NCCL_LL)
		bus = S_min(bus * 1.0 / 3.8, p->ll_max_bw[idx1][idx2]);
	if (a == NCCL_TREE && pr == NCCL_LL128)
		bus = S_min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
			    g->nchannels * p->perch_tree_ll128[arch][idx2]);
	if (a == NCCL_PAT)
		bus *= p->version < 224 ? .85 : .75;   /* v2.23.4 :193 */
	nccl_bus_ratio(p, f, a, ranks, nsteps, &ratio);
	*busp = S_tune_gate(c, g, f, a, pr, ratio, bus);
	return 1;
}

/* The latency of (f, a, pr), tuning.cc:384-435. */
static double S_tune_lat(const struct tune_ctx *c, int f, int a, int pr, int nsteps)
{
	const struct nccl_params *p = c->p;
	const struct nccl_machine *m = c->m;
	int ranks = c->ranks, nodes = c->nodes;
	const int *hw_intra = c->hw_intra;
	double ppn = c->ppn, lat, intra_lat, inter_lat;

	/* latencies, tuning.cc:384-435 */
	lat = nccl_base_lat(p, m->amd, a, pr);
	intra_lat = nccl_hw_lat(p, m->amd, hw_intra[a], a, pr);
	/* one GPU a node takes Tree's network latency from 2.23
	 * (v2.21.5 :227) */
	inter_lat = ppn == 1 && p->version >= 223 ? nccl_hw_lat(p, m->amd, NCCL_HW_NET, NCCL_TREE, pr)
						  : nccl_hw_lat(p, m->amd, NCCL_HW_NET, a, pr);
	/* + the graph's latencyInter, the latency the network
	 * plugin reports (search.cc:745), once more for Simple,
	 * the flush (tuning.cc:389-391).  0 for NCCL's IB and
	 * socket transports; AWS's EFA plugin reports 75 µs. */
	inter_lat += m->net_latency * (pr == NCCL_SIMPLE ? 2 : 1);
	if (a == NCCL_RING) {
		int hw = nodes == 1 ? hw_intra[a] : NCCL_HW_NET;
		double l = nccl_hw_lat(p, m->amd, hw, a, pr);
		if (f == NCCL_REDUCE || f == NCCL_BROADCAST) {
			/* sameChannels = 1 is assumed: the ring search tries it first */
			lat += l;
		} else {
			double over = 0;
			int inter_steps;
			if (nodes > 1) {
				over = p->net_overhead[m->cpu];
				if (pr == NCCL_SIMPLE)
					over *= 3;
			}
			intra_lat = S_max(intra_lat, over);
			inter_steps = nccl_inter_steps(p, f, nodes);
			lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat;
		}
	} else if (a == NCCL_TREE) {
		if (f == NCCL_ALLREDUCE)
			lat += 2 * ((ranks / nodes - 1) * intra_lat + nccl_log2i(nodes) * inter_lat);
	} else if (a == NCCL_COLLNET_DIRECT) {
		/* to the head and back over NVLink, 0.4 µs a peer of its
		 * arity each way, and one trip to the switch (:418-421) */
		lat += 2 * (S_min(1, ranks / nodes - 1) * intra_lat + (ranks / nodes - 1) * 0.4) + inter_lat;
	} else if (a == NCCL_COLLNET_CHAIN) {
		lat += 2 * (ranks / nodes - 1) * intra_lat + inter_lat;   /* :422-423 */
	} else if (a == NCCL_NVLS) {
		lat = intra_lat + (nodes > 1 ? inter_lat : 0);
	} else if (a == NCCL_NVLS_TREE) {
		lat += intra_lat + 2 * nccl_log2i(nodes) * inter_lat;
	} else if (a == NCCL_PAT) {
		if (f == NCCL_ALLGATHER || f == NCCL_REDUCESCATTER)
			lat += nccl_log2i(nodes) * (inter_lat / 3.5) + ranks * 2.8;
	}
	return lat;
}

/* The graphs NCCL's search builds for the communicator, and what its
 * launch reads of them: the channels, NVLS's CTAs, Ring/Simple's threads. */
static void S_tune_graphs(struct nccl_tune *t, const struct nccl_machine *m, int ranks, int nodes)
{
	/* A machine with fewer ranks than GPUs per node uses only `ranks` of them. */
	{
		struct nccl_machine mm = *m;
		if (nodes == 1)
			mm.gpus_per_node = ranks;
		nccl_graphs(&mm, nodes, t->graph);
	}
	t->comm_channels = 2 * t->graph[NCCL_RING].nchannels;
	if (t->comm_channels > 64)
		t->comm_channels = 64;
	/* NVLS runs its own CTAs: 16 on sm90, 24 (one node) or 32 on sm100
	 * (transport/nvls.cc:155-157, 207-214). */
	if (t->graph[NCCL_NVLS].nchannels > 0)
		t->nvls_channels = m->sm >= 100 ? (nodes > 1 ? 32 : 24) : 16;
	/* Ring/Simple starts 256 threads when the ring is no faster than
	 * PCI_BW, 12 GB/s (tuning.cc:244-247, topo.h:25), else 512. */
	t->ring_simple_threads = t->graph[NCCL_RING].bw_intra * t->graph[NCCL_RING].nchannels <= 12.0 ?
				 256 : 512;
}

/* What every entry of t's table shares, in c (tuning.cc:267-286). */
static void S_tune_ctx(struct tune_ctx *c, const struct nccl_tune *t, const struct nccl_params *p,
		       const struct nccl_machine *m, unsigned algo_mask, unsigned proto_mask)
{
	int ranks = t->ranks, nodes = t->nodes, arch = t->arch;
	int idx2, idx1, hw_intra[NCCL_NALGO];
	double ppn;

	idx2 = nodes <= 2 ? nodes - 1 : 2;                  /* tuning.cc:267 */
	idx1 = nodes == 1 ? arch : m->cpu == NCCL_CPU_AMD ? 1 : 0;   /* tuning.cc:269-271 */
	ppn = (double)ranks / nodes;                        /* tuning.cc:281 */
	for (int a = 0; a < NCCL_NALGO; a++)
		hw_intra[a] = t->graph[a].nvlink ? NCCL_HW_NVLINK : NCCL_HW_PCI;  /* tuning.cc:283-286 */

	c->p = p;
	c->m = m;
	c->ranks = ranks;
	c->nodes = nodes;
	c->arch = arch;
	c->idx1 = idx1;
	c->idx2 = idx2;
	memcpy(c->hw_intra, hw_intra, sizeof c->hw_intra);
	c->algo_mask = algo_mask;
	c->proto_mask = proto_mask;
	c->ppn = ppn;
}

/* The bus bandwidth and the latency of every (f, a, pr) NCCL tunes, in t. */
static void S_tune_table(struct nccl_tune *t, const struct tune_ctx *c)
{
	const struct nccl_params *p = c->p;
	int ranks = c->ranks;

	for (int f = 0; f < NCCL_NFUNC; f++) {
		int nsteps = f == NCCL_ALLREDUCE ? 2 * (ranks - 1) :
			     f == NCCL_REDUCESCATTER || f == NCCL_ALLGATHER ? ranks - 1 : ranks;  /* :289-291 */
		for (int a = 0; a < NCCL_NALGO; a++) {
			if (S_tune_skip(p, f, a))
				continue;
			for (int pr = 0; pr < NCCL_NPROTO; pr++) {
				double bus;
				if (!S_tune_bw(c, &t->graph[a], f, a, pr, nsteps, &bus))
					continue;
				t->bw[f][a][pr] = bus;
				t->lat[f][a][pr] = S_tune_lat(c, f, a, pr, nsteps);
			}
		}
	}
}

int nccl_tune_init(struct nccl_tune *t, const struct nccl_params *p,
		   const struct nccl_machine *m, int ranks,
		   unsigned algo_mask, unsigned proto_mask, struct errbuf *eb)
{
	int nodes, arch;
	struct tune_ctx c;

	memset(t, 0, sizeof *t);
	if (ranks < 1)
		return errbuf_set(eb, "NCCL model: %d ranks", ranks);
	if (m->gpus_per_node < 1)
		return errbuf_set(eb, "NCCL model: %d GPUs per node", m->gpus_per_node);
	nodes = (ranks + m->gpus_per_node - 1) / m->gpus_per_node;
	if (nodes > 1 && (m->nics_per_node < 1 || !(m->nic_bw > 0)))
		return errbuf_set(eb, "NCCL model: %d nodes but no NIC", nodes);
	t->ranks = ranks;
	t->nodes = nodes;
	if (ranks == 1)
		return 0;   /* tuning.cc:261: nothing to tune */

	arch = m->sm >= 100 ? NCCL_BLACKWELL : m->sm >= 90 ? NCCL_HOPPER :
	       m->sm >= 80 ? NCCL_AMPERE : NCCL_VOLTA;      /* tuning.cc:263-266 */
	if (arch == NCCL_BLACKWELL && p->version < 229)
		return errbuf_set(eb, "NCCL model: Blackwell (sm%d) is modelled with NCCL "
				  "2.29 and later, not %d.%d", m->sm, p->version / 100,
				  p->version % 100);
	t->arch = arch;
	t->cpu = m->cpu;
	t->net_latency = m->net_latency;
	t->amd = m->amd;
	S_tune_graphs(t, m, ranks, nodes);
	S_tune_ctx(&c, t, p, m, algo_mask, proto_mask);
	S_tune_table(t, &c);
	return 0;
}
