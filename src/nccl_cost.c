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

/* The NICs of a node with an inter-node tier as NCCL counts them. */
static void S_machine_nics(const struct system *s, struct nccl_machine *m)
{
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
	/* SHARP in the switches, NCCL's CollNet plugin loaded */
	m->collnet = s->collnet;
}

int nccl_machine_from_system(const struct system *s, struct nccl_machine *m,
			     struct errbuf *eb)
{
	static const int sm[ARCH_COUNT] = {
		[ARCH_SM70] = 70, [ARCH_SM75] = 75, [ARCH_SM80] = 80, [ARCH_SM86] = 86,
		[ARCH_SM89] = 89, [ARCH_SM90] = 90, [ARCH_SM100] = 100, [ARCH_SM103] = 103,
		[ARCH_SM120] = 120, [ARCH_SM121] = 121,
		/* RCCL reports no compute capability NCCL's tables know; its
		 * tuning reads the Hopper column (tuning.cc compCapIndex) */
		[ARCH_GFX942] = 90, [ARCH_GFX950] = 90,
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
	m->amd = gpu_arch_amd(s->gpu.arch);
	/* RCCL counts every xGMI link of gfx94x and gfx95x at 48 GB/s
	 * (rccl src/graph/topo.h GFX94X_XGMI_WIDTH, GFX95X_XGMI_WIDTH) */
	if (m->amd && m->nvlinks > 0)
		m->nvlink_bw = 48.0;
	m->nvswitch = s->nvswitch;
	m->nvls = s->nvls;
	m->pcie_gen = (int)s->gpu.pcie_gen;
	m->pcie_width = 16;
	m->pcie_path = (unsigned)s->pcie_path < PCIE_PATH_COUNT ? path[s->pcie_path] : NCCL_PATH_PIX;
	m->nic_path = (unsigned)s->nic_path < PCIE_PATH_COUNT ? path[s->nic_path] : NCCL_PATH_PIX;
	m->p2p = s->p2p;
	/* NCCL's socket transport takes host memory only (ptrSupport
	 * NCCL_PTR_HOST, transport/net_socket.cc:170): every byte is staged
	 * through the host as with gdr = no */
	m->no_gdr = s->gdr_off || s->net == NET_SOCKET;
	m->cpu = s->cpu == CPU_AMD ? NCCL_CPU_AMD : s->cpu == CPU_ARM ? NCCL_CPU_ARM : NCCL_CPU_INTEL;
	nccl_machine_mesh(s, m);
	if (s->have_inter && s->nics_per_node > 0)
		S_machine_nics(s, m);
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
		/* Parallel groups share the node: this one gets whole NICs of its
		 * share, or one NIC at its part of the rate (cost_nic_share). */
		struct nic_share k;

		cost_nic_share((unsigned)m.nics_per_node, per, (unsigned long)m.gpus_per_node, &k);
		m.nics_per_node = (int)k.whole;
		m.nic_bw *= k.scale;
		m.gpus_per_node = (int)per;
	}
	return nccl_tune_init(t, &nc->params, &m, (int)g->ranks, nc->algo_mask,
			      nc->proto_mask, eb);
}

double nccl_host_bound(const struct nccl_cost *nc, double time_s)
{
	double host = (nc->gpus_per_process > 1 ? nc->gpus_per_process : 1) * nc->launch_s;

	return host > time_s ? host : time_s;
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

/*
 * The tuning table for op on g with algo's bits only (ALGO_AUTO: the
 * model's mask), and the coll_cost fields every answer shares.  Returns
 * NCCL's function, -1 with eb, or -2 for all-to-all and send/recv.
 */
static int S_tune(const struct nccl_cost *nc, enum coll_op op, enum coll_algo algo,
		  const struct group *g, struct nccl_tune *t, struct coll_cost *base,
		  struct errbuf *eb)
{
	struct nccl_cost masked = *nc;
	int f = nccl_func_of(op);

	if (f < 0)
		return -2;
	masked.algo_mask &= nccl_algo_bits(algo);
	if (nccl_cost_tune(&masked, g, t, eb) < 0)
		return -1;
	*base = (struct coll_cost){ .nodes = (unsigned long)t->nodes,
				    .bound = t->nodes > 1 ? TIER_INTER : TIER_INTRA,
				    .algo = algo == ALGO_AUTO ? ALGO_RING : algo,
				    .proto = PROTO_SIMPLE };
	return f;
}

/*
 * NCCL chooses by its tuning table; the call then runs with the channels
 * and chunks its enqueue code sets (nccl_run_time): one pair as a candidate.
 */
static void S_candidate(const struct nccl_cost *nc, const struct nccl_tune *t, int f,
			const struct nccl_choice *ch, double bytes, const struct coll_cost *base,
			struct cost_candidate *out)
{
	struct nccl_run run;

	out->cost = *base;
	out->cost.time_s = nccl_run_time(t, &nc->params, (enum nccl_func)f, ch->algo, ch->proto,
					 bytes, &run);
	out->cost.ctas = run.channels_algo;
	out->cost.latency_s = ch->lat_s;
	out->cost.bandwidth_s = out->cost.time_s - ch->lat_s;
	{	/* the host's launches set the pace: the wait is latency */
		double host = nccl_host_bound(nc, out->cost.time_s);

		out->cost.latency_s += host - out->cost.time_s;
		out->cost.time_s = host;
	}
	out->cost.algo = nccl_algo_to_coll(ch->algo);
	out->cost.proto = (enum coll_proto)ch->proto;   /* same order: LL, LL128, Simple */
	out->rank_s = ch->time_s;
	out->bw_Bps = ch->bw_Bps;
}

static int S_none_left(enum coll_op op, enum coll_algo algo, const struct group *g,
		       struct errbuf *eb)
{
	return errbuf_set(eb, "NCCL model: no algorithm and protocol left for %s%s%s "
			  "on %lu ranks (NCCL_ALGO/NCCL_PROTO exclude every usable pair)",
			  coll_op_name(op), algo == ALGO_AUTO ? "" : " with ",
			  algo == ALGO_AUTO ? "" : coll_algo_name(algo), g->ranks);
}

/*
 * NCCL runs all-to-all and send/recv as grouped point-to-point transfers,
 * outside its tuning model: the tier model answers.
 */
static const char S_p2p_note[] = "NCCL runs it as point-to-point transfers, outside its "
				 "tuning model; the tier model answers";

static int S_explain(const struct cost_model *cm, enum coll_op op, enum coll_algo algo,
		     const struct group *g, double bytes, struct cost_explain *x,
		     struct errbuf *eb)
{
	const struct nccl_cost *nc = cm->impl;
	struct nccl_choice ch[NCCL_NALGO * NCCL_NPROTO];
	struct nccl_term terms[COST_TERMS_MAX];
	struct nccl_tune t;
	struct coll_cost base;
	int f = S_tune(nc, op, algo, g, &t, &base, eb), k, i;

	if (f == -2) {
		struct cost_model tm;

		cost_model_tiers(&tm, nc->sys);
		if (cost_explain(&tm, op, algo, g, bytes, x, eb) < 0)
			return -1;
		x->note = S_p2p_note;
		return 0;
	}
	if (f < 0)
		return -1;
	if (g->ranks == 1) {
		x->cand[0] = (struct cost_candidate){ .cost = base, .bw_Bps = NAN };
		x->n = 1;
		return 0;
	}
	k = nccl_rank(&t, &nc->params, (enum nccl_func)f, bytes, ch, NCCL_NALGO * NCCL_NPROTO);
	for (i = 0; i < k && i < COST_CANDIDATES_MAX; i++)
		S_candidate(nc, &t, f, &ch[i], bytes, &base, &x->cand[i]);
	x->n = i;
	if (k < 1)
		return 0;   /* the masks leave nothing: no candidate */
	x->nterms = nccl_terms(&t, &nc->params, (enum nccl_func)f, ch[0].algo, ch[0].proto, bytes,
			       terms, COST_TERMS_MAX);
	for (i = 0; i < x->nterms; i++)
		x->term[i] = (struct cost_term){ terms[i].name, terms[i].value, terms[i].unit,
						 terms[i].source };
	return 0;
}

static int S_coll(const struct cost_model *cm, enum coll_op op, enum coll_algo algo,
		  const struct group *g, double bytes, struct coll_cost *out,
		  struct errbuf *eb)
{
	const struct nccl_cost *nc = cm->impl;
	struct nccl_tune t;
	struct nccl_choice ch;
	struct cost_candidate c;
	int f = S_tune(nc, op, algo, g, &t, out, eb);

	if (f == -2) {
		struct cost_model tm;

		cost_model_tiers(&tm, nc->sys);
		return cost_coll(&tm, op, algo, g, bytes, out, eb);
	}
	if (f < 0 || g->ranks == 1)
		return f < 0 ? -1 : 0;
	if (nccl_rank(&t, &nc->params, (enum nccl_func)f, bytes, &ch, 1) < 1)
		return S_none_left(op, algo, g, eb);
	S_candidate(nc, &t, f, &ch, bytes, out, &c);
	*out = c.cost;
	return 0;
}

int nccl_cost_rule(const struct nccl_cost *nc, const struct nccl_tune *t, enum coll_op op,
		   double bytes, struct coll_cost *out)
{
	struct coll_cost base = { .nodes = (unsigned long)t->nodes,
				  .bound = t->nodes > 1 ? TIER_INTER : TIER_INTRA };
	struct nccl_choice ch;
	struct cost_candidate c;
	int f = nccl_func_of(op);

	if (f < 0 || nccl_rank(t, &nc->params, (enum nccl_func)f, bytes, &ch, 1) < 1)
		return -1;
	S_candidate(nc, t, f, &ch, bytes, &base, &c);
	*out = c.cost;
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
	nc->gpus_per_process = 1;
	nc->launch_s = NCCL_LAUNCH_S;
	if (nccl_machine_from_system(s, &nc->machine, eb) < 0)
		return -1;
	memset(cm, 0, sizeof *cm);
	cm->kind = COST_NCCL;
	cm->sys = s;
	cm->coll = S_coll;
	cm->has_algo = S_has_algo;
	cm->explain = S_explain;
	cm->impl = nc;
	return 0;
}
