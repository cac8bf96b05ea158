/*
 * The cost-model core: every collective formula of commtime, on one link
 * and on the tiers of a system.  Derivations and sources:
 * models/allreduce.md (all-reduce on a link), models/collectives.md (the
 * other collectives on a link), models/system.md (tiers).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bisect.h"
#include "cost.h"

static const char *const kind_names[COST_KIND_COUNT] = {
	[COST_LINK] = "link", [COST_TIERS] = "tiers", [COST_NCCL] = "nccl", [COST_FIT] = "fit",
};

const char *cost_kind_name(enum cost_kind k)
{
	return (unsigned)k < COST_KIND_COUNT ? kind_names[k] : "?";
}

int cost_kind_lookup(const char *name, enum cost_kind *k, struct errbuf *eb)
{
	if (!strcmp(name, "tiers")) {
		*k = COST_TIERS;
		return 0;
	}
	if (!strcmp(name, "nccl")) {
		*k = COST_NCCL;
		return 0;
	}
	return errbuf_set(eb, "unknown model '%s' (choose from tiers, nccl)", name);
}

static const char *const proto_names[PROTO_COUNT] = {
	[PROTO_LL] = "LL", [PROTO_LL128] = "LL128", [PROTO_SIMPLE] = "Simple",
};

const char *coll_proto_name(enum coll_proto p)
{
	return (unsigned)p < PROTO_COUNT ? proto_names[p] : "-";
}

void cost_model_link(struct cost_model *m, const struct link *l)
{
	*m = (struct cost_model){ .kind = COST_LINK, .link = *l };
}

void cost_model_tiers(struct cost_model *m, const struct system *s)
{
	*m = (struct cost_model){ .kind = COST_TIERS, .sys = s };
}

/* errbuf_set that accepts eb = NULL (cost_time wants no message). */
static int fail(struct errbuf *eb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct errbuf *eb, const char *fmt, ...)
{
	va_list ap;

	if (eb) {
		va_start(ap, fmt);
		vsnprintf(eb->msg, sizeof(eb->msg), fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- which model has which algorithm ---- */

#define BIT(a) (1u << (a))

/* Algorithms per collective, in the order a default is taken and listed. */
static const enum coll_algo link_algos[OP_COUNT][6] = {
	[OP_ALLREDUCE] = { ALGO_RING, ALGO_TREE, ALGO_DBTREE, ALGO_RD, ALGO_RABENSEIFNER, ALGO_AUTO },
	[OP_ALLGATHER] = { ALGO_RING, ALGO_RD, ALGO_AUTO },
	[OP_REDUCESCATTER] = { ALGO_RING, ALGO_RD, ALGO_AUTO },
	[OP_ALLTOALL] = { ALGO_PAIRWISE, ALGO_AUTO },
	[OP_BROADCAST] = { ALGO_RING, ALGO_TREE, ALGO_AUTO },
	[OP_REDUCE] = { ALGO_RING, ALGO_TREE, ALGO_AUTO },
	[OP_SENDRECV] = { ALGO_P2P, ALGO_AUTO },
};

static const enum coll_algo tier_algos[OP_COUNT][6] = {
	[OP_ALLREDUCE] = { ALGO_RING, ALGO_HIER, ALGO_HIERHD, ALGO_AUTO },
	[OP_ALLGATHER] = { ALGO_RING, ALGO_HIER, ALGO_AUTO },
	[OP_REDUCESCATTER] = { ALGO_RING, ALGO_HIER, ALGO_AUTO },
	[OP_ALLTOALL] = { ALGO_PAIRWISE, ALGO_AUTO },
	[OP_BROADCAST] = { ALGO_RING, ALGO_HIER, ALGO_AUTO },
	[OP_REDUCE] = { ALGO_RING, ALGO_HIER, ALGO_AUTO },
	[OP_SENDRECV] = { ALGO_P2P, ALGO_AUTO },
};

static const enum coll_algo nccl_algos[] = {
	ALGO_RING, ALGO_TREE, ALGO_NVLS, ALGO_NVLSTREE, ALGO_COLLNET, ALGO_PAT, ALGO_AUTO
};

/* The list of algorithms m may have for op, ended by ALGO_AUTO. */
static const enum coll_algo *algo_list(const struct cost_model *m, enum coll_op op)
{
	if ((unsigned)op >= OP_COUNT)
		return nccl_algos + 6;
	switch (m->kind) {
	case COST_LINK:
	case COST_FIT:
		return link_algos[op];
	case COST_TIERS:
		return tier_algos[op];
	default:
		return nccl_algos;
	}
}

int cost_algo_supported(const struct cost_model *m, enum coll_op op, enum coll_algo a)
{
	const enum coll_algo *l;

	if (a == ALGO_AUTO)
		return 1;
	if (m->kind == COST_NCCL && m->has_algo)
		return m->has_algo(m, op, a);
	for (l = algo_list(m, op); *l != ALGO_AUTO; l++)
		if (*l == a)
			return 1;
	return 0;
}

const char *cost_algo_describe(const struct cost_model *m, enum coll_algo a)
{
	static const char *const link_text[ALGO_COUNT] = {
		[ALGO_RING] = "ring: 2(n-1) steps, each moving S/n (Patarasuk & Yuan 2009)",
		[ALGO_TREE] = "the seed's binomial tree, not pipelined: 2 ceil(log2 n) steps "
			      "of the whole buffer",
		[ALGO_DBTREE] = "pipelined double binary tree (Sanders, Speck & Traff 2009; "
				"NCCL 2.4)",
		[ALGO_RD] = "recursive doubling (Thakur, Rabenseifner & Gropp 2005)",
		[ALGO_RABENSEIFNER] = "reduce-scatter by halving, all-gather by doubling "
				      "(Rabenseifner 2004)",
		[ALGO_PAIRWISE] = "n-1 pairwise exchanges",
		[ALGO_P2P] = "one transfer to a peer",
	};
	static const char *const tier_text[ALGO_COUNT] = {
		[ALGO_RING] = "one ring through all ranks, at the slower of NVLink and the "
			      "node's NICs",
		[ALGO_HIER] = "inside the node, across nodes over all its NICs, inside again",
		[ALGO_HIERHD] = "reduce inside the node, halving-doubling across nodes, "
				"broadcast inside (Gloo; Goyal et al. 2017)",
		[ALGO_PAIRWISE] = "pairwise exchanges, the node's outgoing share through its NICs",
		[ALGO_P2P] = "one transfer through one NIC port",
	};
	static const char *const nccl_text[ALGO_COUNT] = {
		[ALGO_RING] = "NCCL's ring, one per channel through every GPU",
		[ALGO_TREE] = "NCCL's tree: a chain inside each node, a pipelined double "
			      "binary tree across nodes",
		[ALGO_NVLS] = "NVLink SHARP: the reduction done in the NVSwitch",
		[ALGO_NVLSTREE] = "NVLS inside each node, NCCL's tree across nodes",
		[ALGO_COLLNET] = "CollNet: the reduction done in the network switches",
		[ALGO_PAT] = "PAT: parallel aggregated trees, one GPU per node",
	};
	const char *const *t = m->kind == COST_LINK || m->kind == COST_FIT ? link_text :
			       m->kind == COST_TIERS ? tier_text : nccl_text;

	if (a == ALGO_AUTO)
		return m->kind == COST_NCCL ? "NCCL's own choice per size" :
		       "the fastest of the model's algorithms";
	if ((unsigned)a >= ALGO_COUNT || !t[a])
		return "not modelled";
	return t[a];
}

enum coll_algo cost_algo_default(const struct cost_model *m, enum coll_op op)
{
	const enum coll_algo *l;

	if (m->kind == COST_FIT && op == OP_ALLREDUCE)
		return m->fit_algo;

	for (l = algo_list(m, op); *l != ALGO_AUTO; l++)
		if (cost_algo_supported(m, op, *l))
			return *l;
	return ALGO_AUTO;
}

enum coll_algo cost_algo_preferred(const struct cost_model *m, enum coll_op op)
{
	return m->kind == COST_LINK || m->kind == COST_FIT ? cost_algo_default(m, op) : ALGO_AUTO;
}

enum coll_algo cost_algo_for(const struct cost_model *m, enum coll_op op, enum coll_algo algo)
{
	if ((m->kind == COST_LINK || m->kind == COST_FIT) && !cost_algo_supported(m, op, algo))
		return cost_algo_default(m, op);
	return algo;
}

char *cost_choice_text(const struct coll_cost *c, char *buf, size_t len)
{
	if (isnan(c->time_s))
		snprintf(buf, len, "-");
	else if (c->proto == PROTO_NONE)
		snprintf(buf, len, "%s", coll_algo_name(c->algo));
	else
		snprintf(buf, len, "%s/%s", coll_algo_name(c->algo), coll_proto_name(c->proto));
	return buf;
}

const char *cost_algo_label(const struct cost_model *m, enum coll_algo a)
{
	if (a != ALGO_AUTO)
		return coll_algo_name(a);
	return m->kind == COST_NCCL ? "NCCL's choice per size" : "the fastest per size";
}

int cost_algo_lookup(const struct cost_model *m, enum coll_op op, const char *name,
		     enum coll_algo *a, struct errbuf *eb)
{
	const enum coll_algo *l;
	char choices[160];
	size_t used = 0;

	for (l = algo_list(m, op); *l != ALGO_AUTO; l++)
		if (cost_algo_supported(m, op, *l) && !strcmp(name, coll_algo_name(*l))) {
			*a = *l;
			return 0;
		}
	choices[0] = '\0';
	for (l = algo_list(m, op); *l != ALGO_AUTO; l++)
		if (cost_algo_supported(m, op, *l) && used < sizeof(choices))
			used += (size_t)snprintf(choices + used, sizeof(choices) - used, "%s%s",
						 used ? ", " : "", coll_algo_name(*l));
	return errbuf_set(eb, "unknown algorithm '%s' for %s %s (choose from %s)", name,
			  coll_op_name(op), m->kind == COST_LINK || m->kind == COST_FIT ? "on a link" :
			  m->kind == COST_TIERS ? "in the tiers model" : "in NCCL's model",
			  choices);
}

/* What cost_algo_lookup needs besides the name. */
struct algo_of {
	const struct cost_model *m;
	enum coll_op op;
};

static int S_lookup(const void *arg, const char *name, enum coll_algo *a, struct errbuf *eb)
{
	const struct algo_of *w = arg;

	return cost_algo_lookup(w->m, w->op, name, a, eb);
}

int cost_algo_parse_list(const struct cost_model *m, enum coll_op op, const char *s,
			 enum coll_algo *algos, struct errbuf *eb)
{
	struct algo_of w = { .m = m, .op = op };

	return algo_parse_list(s, S_lookup, &w, algos, eb);
}

/* ---- one link ---- */

/*
 * The formulas keep the exact order of operations they had in the seed's
 * script and the first versions of commtime, so that the seed's tables
 * and every CSV stay the same to the last digit.
 */

/* 2(n-1)(α + S/(nβ)), plus the reduction of (n-1)/n of the buffer. */
static double ring_ar(const struct link *l, double n, double S)
{
	return 2 * (n - 1) * (l->alpha + S / n / l->beta) + (n - 1) / n * S * l->gamma;
}

/*
 * The seed's binomial tree, not pipelined: a reduce up and a broadcast down,
 * ⌈log2 n⌉ steps each, every step carrying the whole buffer.
 */
static double tree_ar(const struct link *l, unsigned long n, double S)
{
	double L = ceil_log2(n);

	return 2 * L * (l->alpha + S / l->beta) + L * S * l->gamma;
}

/*
 * Pipelined double binary tree: the latency of going up and down a tree of
 * depth ⌈log2 n⌉, and the bandwidth of moving the buffer once up and once
 * down through each rank's link (each tree carries half of it, and a rank
 * is inner in at most one of the two trees).
 */
static double dbtree_ar(const struct link *l, unsigned long n, double S)
{
	double L = ceil_log2(n);

	return 2 * L * l->alpha + 2 * S / l->beta + S * l->gamma;
}

/*
 * Recursive doubling (Thakur, Rabenseifner & Gropp 2005): log2 p steps,
 * each exchanging and reducing the whole buffer.  When p is not a power
 * of two, the r = p - p' extra ranks first hand their buffer to a partner
 * (one step, with a reduction) and get the result back at the end (one
 * step): two more steps of α + S/β.
 */
static double rd_ar(const struct link *l, unsigned long n, double S)
{
	double k = floor_log2(n);
	int extra = (n & (n - 1)) != 0;
	double steps = k + 2 * extra;

	return steps * (l->alpha + S / l->beta) + (k + extra) * S * l->gamma;
}

/*
 * Rabenseifner: reduce-scatter by recursive halving, all-gather by
 * recursive doubling, 2 log2 p' steps moving 2(p'-1)/p' of the buffer;
 * the same two extra steps as rd when p is not a power of two.
 */
static double rabenseifner_ar(const struct link *l, unsigned long n, double S)
{
	unsigned long p2 = 1UL << floor_log2(n);
	double k = floor_log2(n), f = (double)(p2 - 1) / (double)p2;
	int extra = p2 != n;

	return (2 * k + 2 * extra) * l->alpha + (2 * f + 2 * extra) * S / l->beta +
	       (f + extra) * S * l->gamma;
}

/*
 * Recursive doubling all-gather and recursive halving reduce-scatter
 * (Thakur et al. 2005): log2 p steps moving (p-1)/p of the buffer; when
 * p is not a power of two, the all-gather takes ⌈log2 p⌉ steps and the
 * same volume (Bruck's dissemination pattern), which is what is charged.
 */
static double rd_ag(const struct link *l, unsigned long n, double S, int reduce)
{
	double L = ceil_log2(n), nn = (double)n;

	return L * l->alpha + (nn - 1) / nn * S / l->beta +
	       (reduce ? (nn - 1) / nn * S * l->gamma : 0);
}

/* Time on one link; NaN for an algorithm the link has not for op. */
static double link_time(enum coll_op op, enum coll_algo a, const struct link *l,
			unsigned long ranks, double bytes)
{
	double n = (double)ranks;

	if (ranks <= 1)
		return 0;
	switch (op) {
	case OP_ALLREDUCE:
		switch (a) {
		case ALGO_RING:
			return ring_ar(l, n, bytes);
		case ALGO_TREE:
			return tree_ar(l, ranks, bytes);
		case ALGO_DBTREE:
			return dbtree_ar(l, ranks, bytes);
		case ALGO_RD:
			return rd_ar(l, ranks, bytes);
		case ALGO_RABENSEIFNER:
			return rabenseifner_ar(l, ranks, bytes);
		default:
			return NAN;
		}
	case OP_REDUCESCATTER:
		/* ring: (n-1)(α + S/(nβ)) + (n-1)/n·S·γ, S the whole input */
		if (a == ALGO_RING)
			return (n - 1) * (l->alpha + bytes / n / l->beta) +
			       (n - 1) / n * bytes * l->gamma;
		return a == ALGO_RD ? rd_ag(l, ranks, bytes, 1) : NAN;
	case OP_ALLGATHER:
		/* ring: (n-1)(α + S/(nβ)), S the whole output */
		if (a == ALGO_RING)
			return (n - 1) * (l->alpha + bytes / n / l->beta);
		return a == ALGO_RD ? rd_ag(l, ranks, bytes, 0) : NAN;
	case OP_ALLTOALL:
		/* pairwise: n-1 exchanges of S/n, S one rank's send buffer */
		return a == ALGO_PAIRWISE ? (n - 1) * (l->alpha + bytes / (n * l->beta)) : NAN;
	case OP_BROADCAST:
	case OP_REDUCE:
		/* ring: a pipelined chain, n-1 hops of latency, the buffer once */
		if (a == ALGO_RING)
			return (n - 1) * l->alpha + bytes / l->beta +
			       (op == OP_REDUCE ? bytes * l->gamma : 0);
		/* tree: binomial, ⌈log2 n⌉ steps each carrying the buffer */
		if (a == ALGO_TREE)
			return ceil_log2(ranks) * (l->alpha + bytes / l->beta +
						   (op == OP_REDUCE ? bytes * l->gamma : 0));
		return NAN;
	case OP_SENDRECV:
		return a == ALGO_P2P ? l->alpha + bytes / l->beta : NAN;
	default:
		return NAN;
	}
}

int cost_link_coeffs(enum coll_op op, enum coll_algo algo, unsigned long ranks,
		     struct link_coeffs *c, struct errbuf *eb)
{
	/* Every link model is affine in S: read a off at S = 0, b with α = 0,
	 * c as what γ = 1 adds to b. */
	const struct link unit_alpha = { .alpha = 1, .beta = 1, .gamma = 0 };
	const struct link unit_beta = { .alpha = 0, .beta = 1, .gamma = 0 };
	const struct link unit_bg = { .alpha = 0, .beta = 1, .gamma = 1 };
	if (ranks < 1)
		return fail(eb, "a group needs at least one rank, got %lu", ranks);
	c->a = link_time(op, algo, &unit_alpha, ranks, 0);
	c->b = link_time(op, algo, &unit_beta, ranks, 1);
	c->c = link_time(op, algo, &unit_bg, ranks, 1) - c->b;
	if (isnan(c->a) || isnan(c->b))
		return fail(eb, "algorithm '%s' is not modelled for %s on a link",
			    coll_algo_name(algo), coll_op_name(op));
	return 0;
}

static int link_coll(const struct link *l, enum coll_op op, enum coll_algo a,
		     unsigned long ranks, double bytes, struct coll_cost *out,
		     struct errbuf *eb)
{
	double t = link_time(op, a, l, ranks, bytes), lat = link_time(op, a, l, ranks, 0);

	if (isnan(t))
		return fail(eb, "algorithm '%s' is not modelled for %s on a link",
			       coll_algo_name(a), coll_op_name(op));
	*out = (struct coll_cost){
		.time_s = t, .latency_s = lat, .bandwidth_s = t - lat,
		.bound = TIER_INTRA, .algo = a, .proto = PROTO_NONE, .nodes = 1,
	};
	return 0;
}

/* ---- tiers ---- */

void cost_nic_share(unsigned nics_per_node, unsigned long per_node, unsigned long gpus_per_node,
		    struct nic_share *s)
{
	if (!per_node || per_node > gpus_per_node)
		per_node = gpus_per_node;
	s->nics = gpus_per_node ? (double)nics_per_node * (double)per_node / (double)gpus_per_node : 0;
	s->whole = (unsigned)floor(s->nics);
	s->scale = 1;
	if (nics_per_node && s->whole == 0) {
		s->whole = 1;
		s->scale = s->nics;
	}
}

/*
 * One node: the single-link model on the intra link, with the tier
 * algorithms that have no single-link meaning (hier, hierhd) taken as the
 * ring.
 */
static enum coll_algo one_node_algo(enum coll_op op, enum coll_algo a)
{
	(void)op;
	return a == ALGO_HIER || a == ALGO_HIERHD ? ALGO_RING : a;
}

/* Split the time into the two tiers' shares and say which is larger. */
static void tier_finish(const struct system *s, struct coll_cost *o, double lat_i,
			double lat_e, double bw_i, double bw_e, double bw)
{
	/* Calibrated tiers' per-call base latencies (0 for specs), paid once. */
	o->latency_s = s->intra.base + s->inter.base + lat_i + lat_e;
	o->bandwidth_s = bw;
	o->time_s = o->latency_s + o->bandwidth_s;
	o->bound = lat_e + bw_e > lat_i + bw_i ? TIER_INTER : TIER_INTRA;
}

/* What every algorithm of the tiers model reads: the two tiers' α and β,
 * the group's NIC bandwidth, its ranks, ranks per node and nodes. */
struct tier_in {
	const struct system *s;
	enum coll_op op;
	double S, ai, bi, ae, be, Be, nn, GG, NN;
	unsigned long N;
};

/* Ring: 0, or 1 when the op is not modelled so. */
static int tiers_ring(const struct tier_in *t, struct coll_cost *out)
{
	enum coll_op op = t->op;
	double S = t->S, ai = t->ai, bi = t->bi, ae = t->ae, Be = t->Be, nn = t->nn, NN = t->NN;

	/*
	 * One ring through all ranks (NCCL runs one per NIC): of its
	 * steps, those that cross a node boundary pay the NIC's α; the
	 * bandwidth is that of the slower of the intra link and the
	 * node's NICs together.  Steps: 2(n-1) for all-reduce, n-1 for
	 * the others; of them 2(N-1), resp. N-1, cross nodes.
	 */
	double steps = op == OP_ALLREDUCE ? 2 : 1;
	double vol = op == OP_ALLREDUCE ? 2 * (nn - 1) / nn :
		     op == OP_BROADCAST || op == OP_REDUCE ? 1 : (nn - 1) / nn;
	double slow = bi < Be ? bi : Be, bw = vol * S / slow;

	if (op == OP_ALLTOALL || op == OP_SENDRECV)
		return 1;
	tier_finish(t->s, out, steps * (nn - NN) * ai, steps * (NN - 1) * ae,
		    bi <= Be ? bw : 0, bi <= Be ? 0 : bw, bw);
	return 0;
}

/* Hierarchical, tier by tier: 0, or 1 when the op is not modelled so. */
static int tiers_hier(const struct tier_in *t, struct coll_cost *out)
{
	enum coll_op op = t->op;
	double S = t->S, ai = t->ai, bi = t->bi, ae = t->ae, Be = t->Be, GG = t->GG, NN = t->NN;

	/*
	 * All-reduce: reduce-scatter inside the node, all-reduce of
	 * each GPU's 1/G across nodes over the node's NICs, all-gather
	 * inside.  All-gather and reduce-scatter: one phase of each
	 * tier.  Broadcast and reduce: a chain across nodes, then one
	 * inside (the reverse for reduce).
	 */
	double li, le, wi, we;

	if (op == OP_ALLREDUCE) {
		li = 2 * (GG - 1) * ai;
		wi = 2 * (GG - 1) / GG * S / bi;
		le = 2 * (NN - 1) * ae;
		we = 2 * (NN - 1) / NN * S / Be;
	} else if (op == OP_ALLGATHER || op == OP_REDUCESCATTER) {
		li = (GG - 1) * ai;
		wi = (GG - 1) / GG * S / bi;
		le = (NN - 1) * ae;
		we = (NN - 1) / NN * S / Be;
	} else if (op == OP_BROADCAST || op == OP_REDUCE) {
		li = (GG - 1) * ai;
		wi = S / bi;
		le = (NN - 1) * ae;
		we = S / Be;
	} else {
		return 1;
	}
	tier_finish(t->s, out, li, le, wi, we, wi + we);
	return 0;
}

/* Gloo's hierarchical all-reduce: 0, or 1 for another op. */
static int tiers_hierhd(const struct tier_in *t, struct coll_cost *out)
{
	enum coll_op op = t->op;
	double S = t->S, ai = t->ai, bi = t->bi, ae = t->ae, Be = t->Be, GG = t->GG;

	/*
	 * All-reduce in three phases, as Gloo's hierarchical
	 * all-reduce (Goyal et al. 2017, §4; gloo docs/algorithms.md):
	 * reduce the node's G buffers into one (a pipelined chain,
	 * (G-1)α_i + S/β_i), all-reduce the N node buffers by
	 * recursive halving and doubling over the node's NICs
	 * (Thakur, Rabenseifner & Gropp 2005: 2 log2 N steps moving
	 * 2(N-1)/N of S; two more steps of S when N is not a power of
	 * two, as rabenseifner_ar), broadcast back inside the node.
	 */
	unsigned long N = t->N, p2 = 1UL << floor_log2(N);
	double k = floor_log2(N), f = (double)(p2 - 1) / (double)p2;
	int extra = p2 != N;
	double wi = 2 * S / bi, we = (2 * f + 2 * extra) * S / Be;

	if (op != OP_ALLREDUCE)
		return 1;
	tier_finish(t->s, out, 2 * (GG - 1) * ai, (2 * k + 2 * extra) * ae, wi, we, wi + we);
	return 0;
}

/* Pairwise all-to-all: 0, or 1 for another op. */
static int tiers_pairwise(const struct tier_in *t, struct coll_cost *out)
{
	enum coll_op op = t->op;
	double S = t->S, ai = t->ai, bi = t->bi, ae = t->ae, Be = t->Be, nn = t->nn, GG = t->GG;

	/*
	 * All-to-all: each GPU sends S/n to every other rank, G-1 of
	 * them inside its node and n-G outside; the node's G GPUs push
	 * G·S·(n-G)/n through its NICs while each GPU moves
	 * S·(G-1)/n over the intra link, both at once.
	 */
	double wi = S * (GG - 1) / nn / bi, we = GG * S * (nn - GG) / nn / Be;

	if (op != OP_ALLTOALL)
		return 1;
	tier_finish(t->s, out, (GG - 1) * ai, (nn - GG) * ae, wi, we, wi > we ? wi : we);
	return 0;
}

/* A group within one node: the intra tier's link alone. */
static int tiers_one_node(const struct system *s, enum coll_op op, enum coll_algo a,
			  unsigned long n, double S, struct coll_cost *out, struct errbuf *eb)
{
	if (link_coll(&s->intra.link, op, one_node_algo(op, a), n, S, out, eb) < 0)
		return -1;
	/* A calibrated tier's per-call base latency (0 for a spec). */
	if (n > 1) {
		out->latency_s += s->intra.base;
		out->time_s += s->intra.base;
	}
	out->algo = a;
	return 0;
}

static int tiers_coll(const struct system *s, enum coll_op op, enum coll_algo a,
		      const struct group *g, double S, struct coll_cost *out,
		      struct errbuf *eb)
{
	unsigned long n = g->ranks, G = g->per_node, N;
	struct nic_share K;
	struct tier_in t;
	int r = 1;

	if (!G)
		G = n < s->gpus_per_node ? n : s->gpus_per_node;
	if (G > s->gpus_per_node)
		return fail(eb, "%lu ranks per node asked, but a node of %s has %lu GPUs",
			    G, s->name, s->gpus_per_node);
	if (G > n)
		G = n;
	N = (n + G - 1) / G;
	if (N <= 1)
		return tiers_one_node(s, op, a, n, S, out, eb);
	if (system_check_ranks(s, N * s->gpus_per_node, eb) < 0)
		return -1;
	/* The group's share of the node's NICs, when other groups run beside it. */
	cost_nic_share(s->nics_per_node, G, s->gpus_per_node, &K);
	t = (struct tier_in){ s, op, S, s->intra.link.alpha, s->intra.link.beta,
			      s->inter.link.alpha, s->inter.link.beta,
			      K.nics * s->inter.link.beta, (double)n, (double)G, (double)N, N };
	*out = (struct coll_cost){ .algo = a, .proto = PROTO_NONE, .nodes = N };

	switch (a) {
	case ALGO_RING:
		r = tiers_ring(&t, out);
		break;
	case ALGO_HIER:
		r = tiers_hier(&t, out);
		break;
	case ALGO_HIERHD:
		r = tiers_hierhd(&t, out);
		break;
	case ALGO_PAIRWISE:
		r = tiers_pairwise(&t, out);
		break;
	case ALGO_P2P:
		/* Send/recv between nodes: one transfer through one NIC port. */
		if (op == OP_SENDRECV) {
			tier_finish(s, out, 0, t.ae, 0, S / t.be, S / t.be);
			r = 0;
		}
		break;
	default:
		break;
	}
	if (r == 0)
		return 0;
	return fail(eb, "algorithm '%s' is not modelled for %s in the tiers model",
		       coll_algo_name(a), coll_op_name(op));
}

/* ---- the one entry point ---- */

/*
 * A group that spans nodes on a system without NICs cannot run in any
 * model: say so as system.c does, with the preset's file:line and key.
 */
static int check_nics(const struct system *s, const struct group *g, struct errbuf *eb)
{
	unsigned long G = g->per_node, N;
	struct errbuf tmp;

	if (!G || G > s->gpus_per_node)
		G = g->ranks < s->gpus_per_node ? g->ranks : s->gpus_per_node;
	if (G > g->ranks)
		G = g->ranks;
	N = G ? (g->ranks + G - 1) / G : 1;
	if (N <= 1)
		return 0;
	if (system_check_ranks(s, g->per_node ? N * s->gpus_per_node : g->ranks,
			       eb ? eb : &tmp) < 0)
		return -1;
	return 0;
}

static int coll_one(const struct cost_model *m, enum coll_op op, enum coll_algo a,
		    const struct group *g, double bytes, struct coll_cost *out,
		    struct errbuf *eb)
{
	switch (m->kind) {
	case COST_LINK:
		return link_coll(&m->link, op, a, g->ranks, bytes, out, eb);
	case COST_TIERS:
		if (!m->sys)
			return fail(eb, "the tiers model needs a system");
		if (check_nics(m->sys, g, eb) < 0)
			return -1;
		return tiers_coll(m->sys, op, a, g, bytes, out, eb);
	case COST_NCCL:
		if (!m->coll)
			return fail(eb, "NCCL's cost model is not available");
		if (m->sys && check_nics(m->sys, g, eb) < 0)
			return -1;
		return m->coll(m, op, a, g, bytes, out, eb);
	case COST_FIT:
		if (!m->coll)
			return fail(eb, "the fitted regimes are not available");
		return m->coll(m, op, a, g, bytes, out, eb);
	default:
		return fail(eb, "unknown cost model");
	}
}

/* ---- a model calibrated by a trace ---- */

int cost_calib_cell(int inter, double bytes)
{
	int band = bytes < 1048576.0 ? 0 : bytes < 64.0 * 1048576 ? 1 : 2;
	return 3 * (inter ? 1 : 0) + band;
}

void cost_model_calib(struct cost_model *m, const struct cost_model *inner,
		      const double ratio[COST_CALIB_CELLS])
{
	*m = *inner;
	m->calib_of = inner;
	memcpy(m->calib, ratio, sizeof(m->calib));
}

const char *cost_model_label(const struct cost_model *m)
{
	static const char *const calibrated[COST_KIND_COUNT] = {
		"link, calibrated by a trace", "tiers, calibrated by a trace",
		"nccl, calibrated by a trace", "fit, calibrated by a trace" };

	return m->calib_of && (unsigned)m->kind < COST_KIND_COUNT ? calibrated[m->kind] :
		cost_kind_name(m->kind);
}

static void explain_term(struct cost_explain *x, const char *name, double value,
			 const char *unit, const char *source);

/* The ratio of c's cell; 1 for a cell the trace did not measure. */
static double calib_ratio(const struct cost_model *m, const struct coll_cost *c, double bytes)
{
	double f = m->calib[cost_calib_cell(c->nodes > 1, bytes)];
	return isnan(f) ? 1 : f;
}

static void calib_scale(struct coll_cost *c, double f)
{
	c->time_s *= f;
	c->latency_s *= f;
	c->bandwidth_s *= f;
}

static int calib_explain(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
			 const struct group *g, double bytes, struct cost_explain *x,
			 struct errbuf *eb)
{
	double f;
	int i;

	if (cost_explain(m->calib_of, op, algo, g, bytes, x, eb) < 0)
		return -1;
	if (x->n == 0)
		return 0;
	f = calib_ratio(m, &x->cand[0].cost, bytes);
	for (i = 0; i < x->n; i++) {
		calib_scale(&x->cand[i].cost, f);
		x->cand[i].rank_s *= f;
	}
	if (g->ranks > 1) {
		explain_term(x, "measured/predicted of the trace's cell", f, "x",
			     "fit --trace: the system preset's trace_coll_* keys (models/trace.md)");
		explain_term(x, "calibrated time", x->cand[0].cost.time_s * 1e6, "us",
			     "time above x the ratio");
	}
	return 0;
}

int cost_coll(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
	      const struct group *g, double bytes, struct coll_cost *out,
	      struct errbuf *eb)
{
	const enum coll_algo *l;
	int found = 0;

	if (m->calib_of) {
		if (cost_coll(m->calib_of, op, algo, g, bytes, out, eb) < 0)
			return -1;
		calib_scale(out, calib_ratio(m, out, bytes));
		return 0;
	}

	if (g->ranks < 1)
		return fail(eb, "a group needs at least one rank");
	if (!(bytes >= 0))
		return fail(eb, "a message size must be 0 or more bytes");
	/* NCCL's model chooses itself; fitted regimes answer for their own algorithm. */
	if (algo != ALGO_AUTO || m->kind == COST_NCCL || m->kind == COST_FIT) {
		if (algo != ALGO_AUTO && !cost_algo_supported(m, op, algo))
			return fail(eb, "algorithm '%s' is not modelled for %s in the %s model",
				       coll_algo_name(algo), coll_op_name(op),
				       cost_kind_name(m->kind));
		return coll_one(m, op, algo, g, bytes, out, eb);
	}
	/* Choose: the fastest of the model's algorithms; the first on a tie. */
	for (l = algo_list(m, op); *l != ALGO_AUTO; l++) {
		struct coll_cost c;

		if (coll_one(m, op, *l, g, bytes, &c, eb) < 0)
			return -1;
		if (!found || c.time_s < out->time_s)
			*out = c;
		found = 1;
	}
	if (!found)
		return fail(eb, "no algorithm for %s in the %s model", coll_op_name(op),
			       cost_kind_name(m->kind));
	return 0;
}

/* ---- why a time is what it is ---- */

/* Insert c into x's candidates, kept in the order of rank_s (stable on a tie). */
static void explain_add(struct cost_explain *x, const struct cost_candidate *c)
{
	int i;

	if (x->n >= COST_CANDIDATES_MAX)
		return;
	for (i = x->n; i > 0 && x->cand[i - 1].rank_s > c->rank_s; i--)
		x->cand[i] = x->cand[i - 1];
	x->cand[i] = *c;
	x->n++;
}

static void explain_term(struct cost_explain *x, const char *name, double value,
			 const char *unit, const char *source)
{
	if (x->nterms < COST_TERMS_MAX)
		x->term[x->nterms++] = (struct cost_term){ name, value, unit, source };
}

/* The α-β models: every algorithm a candidate, the two terms of the chosen one. */
static int explain_ab(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		      const struct group *g, double bytes, struct cost_explain *x,
		      struct errbuf *eb)
{
	const char *doc = m->kind == COST_TIERS ? "models/system.md" :
			  m->kind == COST_FIT ? "models/fit.md" :
			  op == OP_ALLREDUCE ? "models/allreduce.md" : "models/collectives.md";
	const enum coll_algo *l;
	struct cost_candidate c = { .bw_Bps = NAN };

	if (cost_coll(m, op, algo, g, bytes, &c.cost, eb) < 0)
		return -1;
	c.rank_s = c.cost.time_s;
	explain_add(x, &c);
	if (algo == ALGO_AUTO)
		for (l = algo_list(m, op); *l != ALGO_AUTO; l++) {
			if (*l == x->cand[0].cost.algo || coll_one(m, op, *l, g, bytes, &c.cost, eb) < 0)
				continue;
			/* the insertion is stable: on a tie cost_coll's choice stays first */
			c.rank_s = c.cost.time_s;
			explain_add(x, &c);
		}
	if (g->ranks > 1) {
		explain_term(x, "latency (the alpha terms)", x->cand[0].cost.latency_s * 1e6, "us", doc);
		explain_term(x, "size terms (beta, gamma)", x->cand[0].cost.bandwidth_s * 1e6, "us",
			     doc);
		explain_term(x, "time", x->cand[0].cost.time_s * 1e6, "us", "latency + size terms");
	}
	return 0;
}

int cost_explain(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		 const struct group *g, double bytes, struct cost_explain *x,
		 struct errbuf *eb)
{
	memset(x, 0, sizeof *x);
	if (m->calib_of)
		return calib_explain(m, op, algo, g, bytes, x, eb);
	if (m->explain)
		return m->explain(m, op, algo, g, bytes, x, eb);
	return explain_ab(m, op, algo, g, bytes, x, eb);
}

double cost_predict(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		    unsigned long ranks, double bytes, struct coll_cost *out)
{
	struct group g = { .ranks = ranks, .per_node = 0 };
	struct coll_cost c;

	if (cost_coll(m, op, cost_algo_for(m, op, algo), &g, bytes, &c, NULL) < 0)
		c = (struct coll_cost){ .time_s = NAN, .latency_s = NAN, .bandwidth_s = NAN,
					.algo = algo, .proto = PROTO_NONE };
	if (out)
		*out = c;
	return c.time_s;
}

double cost_time(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		 unsigned long ranks, double bytes)
{
	struct group g = { .ranks = ranks, .per_node = 0 };
	struct coll_cost c;

	if (cost_coll(m, op, algo, &g, bytes, &c, NULL) < 0)
		return NAN;
	return c.time_s;
}

int cost_affine(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		const struct group *g, double *latency_s, double *per_byte_s,
		struct errbuf *eb)
{
	/* A size large enough that the latency's rounding does not matter. */
	const double S = 1099511627776.0;
	struct coll_cost c0, c1;

	/* NCCL's protocol switches, the regimes' and a calibration's cells are not affine. */
	if (m->kind == COST_NCCL || m->kind == COST_FIT || m->calib_of || algo == ALGO_AUTO)
		return 0;
	if (cost_coll(m, op, algo, g, 0, &c0, eb) < 0 ||
	    cost_coll(m, op, algo, g, S, &c1, eb) < 0)
		return -1;
	*latency_s = c0.time_s;
	*per_byte_s = (c1.time_s - c0.time_s) / S;
	return 1;
}

double cost_n_half(double a, double alpha, double beta, double b)
{
	/* the order of the seed's header, α·β, and of fit's a·α·β/b */
	return a * alpha * beta / b;
}

/* bisect_log's property for cost_coll_n_half: below half the bandwidth at S. */
struct half_probe {
	const struct cost_model *m;
	enum coll_op op;
	enum coll_algo algo;
	const struct group *g;
	double bw;                 /* B/s: algbw at 1 PiB */
	struct errbuf *eb;
};

static int below_half(double S, void *arg)
{
	const struct half_probe *h = arg;
	struct coll_cost c;

	if (cost_coll(h->m, h->op, h->algo, h->g, S, &c, h->eb) < 0)
		return -1;
	return S / c.time_s < h->bw / 2;
}

int cost_coll_n_half(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		     const struct group *g, double *n_half, struct errbuf *eb)
{
	const double hi = 1125899906842624.0;   /* 1 PiB */
	struct coll_cost c;
	struct half_probe h = { .m = m, .op = op, .algo = algo, .g = g, .eb = eb };
	double lat, per_byte, x0 = 1, x1 = hi;
	int r;

	if (g->ranks < 2)
		return fail(eb, "one rank moves nothing: no half-bandwidth size");
	if (m->kind == COST_LINK) {
		struct link_coeffs k;

		if (cost_link_coeffs(op, algo, g->ranks, &k, eb) < 0)
			return -1;
		*n_half = cost_n_half(k.a, m->link.alpha, m->link.beta,
				      k.b + k.c * m->link.gamma * m->link.beta);
		return 0;
	}
	r = cost_affine(m, op, algo, g, &lat, &per_byte, eb);
	if (r < 0)
		return -1;
	if (r == 1) {
		*n_half = cost_n_half(1, lat, 1 / per_byte, 1);
		return 0;
	}
	/* Not affine: half of the bandwidth at 1 PiB, by bisection in log S. */
	if (cost_coll(m, op, algo, g, hi, &c, eb) < 0)
		return -1;
	h.bw = hi / c.time_s;
	if (bisect_log(&x0, &x1, 1e-12, below_half, &h) < 0)
		return -1;
	*n_half = x1;
	return 0;
}
