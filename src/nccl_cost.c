/*
 * NCCL's cost model behind the core's cost_coll(): the system as NCCL
 * sees it, NCCL's choice per call, and the point-to-point collectives
 * (all-to-all, send/recv), for which NCCL has no tuning model, through the
 * tier model.  models/nccl.md.
 */
#include <math.h>
#include <string.h>

#include "nccl_cost.h"

int nccl_func_of(enum coll_op op)
{
	switch (op) {
	case OP_ALLREDUCE: return NCCL_ALLREDUCE;
	case OP_ALLGATHER: return NCCL_ALLGATHER;
	case OP_REDUCESCATTER: return NCCL_REDUCESCATTER;
	case OP_BROADCAST: return NCCL_BROADCAST;
	case OP_REDUCE: return NCCL_REDUCE;
	default: return -1;
	}
}

enum coll_algo nccl_algo_to_coll(enum nccl_algo a)
{
	switch (a) {
	case NCCL_TREE: return ALGO_TREE;
	case NCCL_RING: return ALGO_RING;
	case NCCL_COLLNET_DIRECT:
	case NCCL_COLLNET_CHAIN: return ALGO_COLLNET;
	case NCCL_NVLS: return ALGO_NVLS;
	case NCCL_NVLS_TREE: return ALGO_NVLSTREE;
	case NCCL_PAT: return ALGO_PAT;
	default: return ALGO_AUTO;
	}
}

unsigned nccl_algo_bits(enum coll_algo a)
{
	switch (a) {
	case ALGO_AUTO: return ~0u;
	case ALGO_TREE: return 1u << NCCL_TREE;
	case ALGO_RING: return 1u << NCCL_RING;
	case ALGO_COLLNET: return 1u << NCCL_COLLNET_DIRECT | 1u << NCCL_COLLNET_CHAIN;
	case ALGO_NVLS: return 1u << NCCL_NVLS;
	case ALGO_NVLSTREE: return 1u << NCCL_NVLS_TREE;
	case ALGO_PAT: return 1u << NCCL_PAT;
	default: return 0;
	}
}

void nccl_machine_mesh(const struct system *s, struct nccl_machine *m)
{
	int g = (int)s->gpus_per_node, i, j;
	const struct topo *t = s->topo;

	m->mesh = 0;
	if (s->nvswitch || g < 2 || g > NCCL_MAX_LOCAL)
		return;
	if (t && t->gpus == g && topo_nvswitch(t, (int)s->gpu.nvlink_links) == 0) {
		/* the NVLink graph as the topology file gives it */
		static const signed char path[TOPO_PATH_COUNT] = {
			NCCL_PATH_PIX, NCCL_PATH_PXB, NCCL_PATH_PHB, NCCL_PATH_PHB, NCCL_PATH_SYS
		};
		int most = 0;
		for (i = 0; i < g; i++) {
			if (topo_nvlinks(t, i) > most)
				most = topo_nvlinks(t, i);
			for (j = 0; j < g; j++) {
				m->nvl[i][j] = t->nvl[i][j];
				m->pci_path[i][j] = t->gpu_path[i][j] >= 0 ? path[t->gpu_path[i][j]] : 0;
			}
		}
		m->nvlinks = most;
		m->mesh = 1;
		return;
	}
	if (m->nvlinks >= g - 1) {
		/* no file: a full mesh, the GPU's links shared evenly among its peers */
		for (i = 0; i < g; i++)
			for (j = 0; j < g; j++)
				m->nvl[i][j] = (unsigned char)(i == j ? 0 : m->nvlinks / (g - 1));
		m->mesh = 1;
	}
}

int nccl_machine_from_system(const struct system *s, struct nccl_machine *m,
			     struct errbuf *eb)
{
	static const int sm[ARCH_COUNT] = {
		[ARCH_SM70] = 70, [ARCH_SM80] = 80, [ARCH_SM86] = 86, [ARCH_SM89] = 89,
		[ARCH_SM90] = 90, [ARCH_SM100] = 100, [ARCH_SM120] = 120,
	};
	static const enum nccl_path path[PCIE_PATH_COUNT] = {
		[PCIE_PIX] = NCCL_PATH_PIX, [PCIE_PXB] = NCCL_PATH_PXB,
		/* nvidia-smi's NODE crosses host bridges: NCCL's PHB */
		[PCIE_PHB] = NCCL_PATH_PHB, [PCIE_NODE] = NCCL_PATH_PHB,
		[PCIE_SYS] = NCCL_PATH_SYS,
	};

	memset(m, 0, sizeof *m);
	if (!s->gpu.name)
		return errbuf_set(eb, "NCCL model: the system names no GPU (NCCL's constants "
				  "depend on its architecture): give a system preset with a 'gpu' "
				  "key, or --model tiers");
	if ((unsigned)s->gpu.arch >= ARCH_COUNT || !sm[s->gpu.arch])
		return errbuf_set(eb, "NCCL model: GPU architecture of '%s' is unknown",
				  s->gpu.name);
	m->sm = sm[s->gpu.arch];
	m->gpus_per_node = (int)s->gpus_per_node;
	/* NCCL counts each NVLink at its own per-architecture rate
	 * (topo.h:19-24), not at the line rate of the GPU preset. */
	m->nvlinks = (int)s->gpu.nvlink_links;
	m->nvlink_bw = 0;
	m->nvswitch = s->nvswitch;
	m->nvls = s->nvls;
	m->pcie_gen = (int)s->gpu.pcie_gen;
	m->pcie_width = 16;
	m->pcie_path = (unsigned)s->pcie_path < PCIE_PATH_COUNT ? path[s->pcie_path] : NCCL_PATH_PIX;
	m->nic_path = (unsigned)s->nic_path < PCIE_PATH_COUNT ? path[s->nic_path] : NCCL_PATH_PIX;
	m->p2p = s->p2p;
	m->cpu = s->cpu == CPU_AMD ? NCCL_CPU_AMD : s->cpu == CPU_ARM ? NCCL_CPU_ARM : NCCL_CPU_INTEL;
	nccl_machine_mesh(s, m);
	if (s->have_inter && s->nics_per_node > 0) {
		unsigned ports = s->nic_ports > 1 && s->nics_per_node % s->nic_ports == 0 ?
				 s->nic_ports : 1;
		/* NCCL fuses the ports of one NIC device into one virtual NIC
		 * whose speed is the sum of the ports' (NCCL_NET_MERGE_LEVEL
		 * defaults to PORT, topo.cc:1738-1746; ports of one device are
		 * at that distance, topo.cc:1191-1208; speeds add up,
		 * transport/net_ib/init.cc:225); AWS's plugin does the same with
		 * the EFA rails beside a GPU.  A --nics-per-node override that
		 * the ports do not divide leaves the ports unmerged.  NCCL reads
		 * a NIC's speed in Mbit/s and divides by 8000 (topo.cc:418): the
		 * line rate in GB/s. */
		m->nics_per_node = (int)(s->nics_per_node / ports);
		m->nic_bw = ports * s->inter.beta_line / 1e9;
		/* props->latency of the network plugin, µs (search.cc:745) */
		m->net_latency = s->net_latency_s * 1e6;
	}
	return 0;
}

int nccl_cost_tune(const struct nccl_cost *nc, const struct group *g,
		   struct nccl_tune *t, struct errbuf *eb)
{
	struct nccl_machine m = nc->machine;
	unsigned long per = g->per_node ? g->per_node : g->ranks;

	if (per > (unsigned long)m.gpus_per_node)
		per = (unsigned long)m.gpus_per_node;
	if (per < (unsigned long)m.gpus_per_node) {
		/* Parallel groups share the node: this one gets its share of the NICs. */
		if (m.nics_per_node > 0) {
			int nics = (int)(m.nics_per_node * per / m.gpus_per_node);
			m.nics_per_node = nics > 0 ? nics : 1;
			if (nics == 0)
				m.nic_bw *= (double)m.nics_per_node * per / nc->machine.gpus_per_node;
		}
		m.gpus_per_node = (int)per;
	}
	return nccl_tune_init(t, &nc->params, &m, (int)g->ranks, nc->algo_mask,
			      nc->proto_mask, eb);
}

static int S_has_algo(const struct cost_model *cm, enum coll_op op, enum coll_algo a)
{
	const struct nccl_cost *nc = cm->impl;
	int f = nccl_func_of(op);

	if (a == ALGO_AUTO)
		return 1;
	if (f < 0) {
		struct cost_model tm;
		cost_model_tiers(&tm, nc->sys);
		return cost_algo_supported(&tm, op, a);
	}
	/* tuning.cc:294-298 */
	switch (f) {
	case NCCL_BROADCAST:
	case NCCL_REDUCE:
		return a == ALGO_RING;
	case NCCL_ALLGATHER:
	case NCCL_REDUCESCATTER:
		return a == ALGO_RING || a == ALGO_NVLS || a == ALGO_COLLNET || a == ALGO_PAT;
	default:
		return a == ALGO_RING || a == ALGO_TREE || a == ALGO_NVLS ||
		       a == ALGO_NVLSTREE || a == ALGO_COLLNET;
	}
}

static int S_coll(const struct cost_model *cm, enum coll_op op, enum coll_algo algo,
		  const struct group *g, double bytes, struct coll_cost *out,
		  struct errbuf *eb)
{
	const struct nccl_cost *nc = cm->impl;
	struct nccl_cost masked;
	struct nccl_tune t;
	struct nccl_choice c;
	int f = nccl_func_of(op);

	if (f < 0) {
		/* NCCL runs all-to-all and send/recv as grouped point-to-point
		 * transfers, outside its tuning model: the tier model answers. */
		struct cost_model tm;
		cost_model_tiers(&tm, nc->sys);
		return cost_coll(&tm, op, algo, g, bytes, out, eb);
	}
	masked = *nc;
	masked.algo_mask &= nccl_algo_bits(algo);
	if (nccl_cost_tune(&masked, g, &t, eb) < 0)
		return -1;
	memset(out, 0, sizeof *out);
	out->nodes = t.nodes;
	out->bound = t.nodes > 1 ? TIER_INTER : TIER_INTRA;
	if (g->ranks == 1) {
		out->algo = algo == ALGO_AUTO ? ALGO_RING : algo;
		out->proto = PROTO_SIMPLE;
		return 0;
	}
	if (nccl_rank(&t, &nc->params, f, bytes, &c, 1) < 1)
		return errbuf_set(eb, "NCCL model: no algorithm and protocol left for %s%s%s "
				  "on %lu ranks (NCCL_ALGO/NCCL_PROTO exclude every usable pair)",
				  coll_op_name(op), algo == ALGO_AUTO ? "" : " with ",
				  algo == ALGO_AUTO ? "" : coll_algo_name(algo), g->ranks);
	/* NCCL chooses by its tuning table; the call then runs with the
	 * channels and chunks its enqueue code sets (nccl_run_time). */
	out->time_s = nccl_run_time(&t, &nc->params, f, c.algo, c.proto, bytes, NULL);
	out->latency_s = c.lat_s;
	out->bandwidth_s = out->time_s - c.lat_s;
	out->algo = nccl_algo_to_coll(c.algo);
	out->proto = (enum coll_proto)c.proto;   /* same order: LL, LL128, Simple */
	return 0;
}

int nccl_cost_init(struct nccl_cost *nc, struct cost_model *cm, const struct system *s,
		   unsigned algo_mask, unsigned proto_mask, struct errbuf *eb)
{
	memset(nc, 0, sizeof *nc);
	nc->params = nccl_params_default;
	nc->algo_mask = algo_mask;
	nc->proto_mask = proto_mask;
	nc->sys = s;
	if (nccl_machine_from_system(s, &nc->machine, eb) < 0)
		return -1;
	memset(cm, 0, sizeof *cm);
	cm->kind = COST_NCCL;
	cm->sys = s;
	cm->coll = S_coll;
	cm->has_algo = S_has_algo;
	cm->impl = nc;
	return 0;
}
