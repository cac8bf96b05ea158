#ifndef COMMTIME_COST_H
#define COMMTIME_COST_H

#include "util.h"
#include "model.h"
#include "system.h"

/*
 * The one question every command asks: how long does collective C, with
 * algorithm A, on a group of n ranks, take for S bytes on this machine?
 *
 * The machine is a cost model:
 *   COST_LINK   one α-β(-γ) link between every pair of ranks: the seed's
 *               model and the single-link mode (--alpha/--beta/--preset);
 *               models/allreduce.md, models/collectives.md
 *   COST_TIERS  a system (system.h): α-β per tier, intra-node link and the
 *               node's NICs; models/system.md
 *   COST_NCCL   NCCL's own cost model; implemented elsewhere and reached
 *               through the coll hook below, so this file does not depend on it
 *   COST_FIT    the regimes a fit measured (fit.h, a preset written by 'fit')
 *               over the preset's single link: the link's algorithms, the
 *               regimes' time for the algorithm they were fitted for;
 *               implemented in fit.c through the same hook; models/fit.md
 *
 * Any of these may be calibrated by a trace (cost_model_calib below): the
 * model keeps its kind, every answer of cost_coll() and cost_explain() is
 * its uncalibrated model's times the ratio measured/predicted that
 * fit --trace saved for the collective's cell (models/trace.md).
 *
 * S is nccl-tests' size column for the collective (all-reduce, reduce,
 * broadcast: the buffer; all-gather: the whole output buffer;
 * reduce-scatter: the whole input buffer; all-to-all: one rank's send
 * buffer; send/recv: the message).
 */

enum cost_kind {
	COST_LINK,
	COST_TIERS,
	COST_NCCL,
	COST_FIT,
	COST_KIND_COUNT
};

/* "link", "tiers", "nccl", "fit". */
const char *cost_kind_name(enum cost_kind k);
/* "tiers" or "nccl" (what --model accepts); 0, or -1 with eb. */
int cost_kind_lookup(const char *name, enum cost_kind *k, struct errbuf *eb);

/*
 * The model a system uses when --model is not given.  One place to change
 * it: NCCL's model becomes the default once it exists (design.md).
 */
#define COST_SYSTEM_DEFAULT COST_NCCL

/*
 * A group of ranks running one collective.  per_node is how many of its
 * ranks share one node; 0 means packed densely, min(ranks, gpus_per_node).
 * When per_node < gpus_per_node the node's other GPUs are taken to run the
 * same collective at the same time in parallel groups (as the data-parallel
 * groups of tensor × data parallelism do), so the group gets
 * nics_per_node · per_node / gpus_per_node of the node's NICs.
 * On a single link per_node is ignored.
 */
struct group {
	unsigned long ranks;      /* n >= 1 */
	unsigned long per_node;   /* ranks of the group on one node; 0: packed */
};

/*
 * The share of a node's NICs a group gets when the node's other GPUs run
 * parallel groups of the same collective at once (struct group): the
 * node's nics_per_node NICs shared by gpus_per_node / per_node groups.
 * Two views of one share, decided here once:
 *   nics   nics_per_node · per_node / gpus_per_node, fractional: the
 *          bandwidth the group's traffic gets, what the tiers model
 *          charges (models/system.md);
 *   whole  the NICs NCCL's topology hands the group's GPUs, whole
 *          devices: ⌊nics⌋, and at least one (NCCL's search builds its
 *          channels over whole NICs, models/nccl.md);
 *   scale  the part of each whole NIC's rate the group gets: 1, or nics
 *          when the group has less than one NIC of its own (a NIC shared
 *          by 1/nics groups runs at nics of its rate for each).
 * per_node 0 or at least gpus_per_node: the whole node (nics_per_node,
 * scale 1).  No NICs: all 0.
 */
struct nic_share {
	double nics;
	unsigned whole;
	double scale;
};
void cost_nic_share(unsigned nics_per_node, unsigned long per_node, unsigned long gpus_per_node,
		    struct nic_share *s);

/* The protocols of NCCL's model; PROTO_NONE for the α-β models. */
enum coll_proto {
	PROTO_NONE = -1,
	PROTO_LL,
	PROTO_LL128,
	PROTO_SIMPLE,
	PROTO_COUNT
};
const char *coll_proto_name(enum coll_proto p);   /* "LL", "LL128", "Simple", "-" */

/* What a cost model answers. */
struct coll_cost {
	double time_s;            /* s: latency_s + bandwidth_s */
	double latency_s;         /* s: the α terms (size-independent) */
	double bandwidth_s;       /* s: the size terms (β, and γ on a link) */
	enum tier_id bound;       /* tier that takes the larger share of time_s (TIER_INTRA on a link) */
	enum coll_algo algo;      /* the algorithm used (the fastest when ALGO_AUTO was asked) */
	enum coll_proto proto;    /* protocol chosen, PROTO_NONE for α-β models */
	unsigned long nodes;      /* nodes the group spans (1 on a link) */
	int ctas;                 /* CTAs the collective's kernel holds while it runs (NCCL's
				     channels at this size); 0 when the model does not say */
};

struct cost_model;
struct cost_explain;

#define COST_CALIB_CELLS 6   /* tiers intra, inter x sizes below 1 MiB, to 64 MiB, above */

/*
 * The hook of COST_NCCL: fills out for op, algo (ALGO_AUTO: choose) on g
 * for bytes, or returns -1 with eb filled.  Set by the code that builds an
 * NCCL cost model, with whatever it needs in `impl`.
 */
typedef int (*cost_coll_fn)(const struct cost_model *m, enum coll_op op,
			    enum coll_algo algo, const struct group *g, double bytes,
			    struct coll_cost *out, struct errbuf *eb);

/* The other hook of COST_NCCL: 1 if the model has algo for op (optional). */
typedef int (*cost_algo_fn)(const struct cost_model *m, enum coll_op op,
			    enum coll_algo algo);

/* The third hook of COST_NCCL: cost_explain() for it (optional). */
typedef int (*cost_explain_fn)(const struct cost_model *m, enum coll_op op,
			       enum coll_algo algo, const struct group *g, double bytes,
			       struct cost_explain *x, struct errbuf *eb);

struct cost_model {
	enum cost_kind kind;
	struct link link;             /* COST_LINK: α (s), β (B/s), γ (s/B) */
	const struct system *sys;     /* COST_TIERS, COST_NCCL: the machine (not owned) */
	cost_coll_fn coll;            /* COST_NCCL, COST_FIT: the model's function */
	cost_algo_fn has_algo;        /* COST_NCCL: its algorithms (NULL: ring, tree,
	                                 nvls, nvlstree, collnet, pat for every op) */
	cost_explain_fn explain;      /* COST_NCCL: its explanation (NULL: the α-β one) */
	const void *impl;             /* COST_NCCL, COST_FIT: its state (not owned) */
	enum coll_algo fit_algo;      /* COST_FIT: the all-reduce algorithm of the regimes */
	const struct cost_model *calib_of;  /* calibrated: the model it corrects (not
	                                       owned); NULL: not calibrated */
	double calib[COST_CALIB_CELLS];     /* calibrated: measured/predicted time of each
	                                       cell (cost_calib_cell); NaN: 1 */
};

/*
 * The cells of a trace calibration: the tier a collective crosses (0
 * inside a node, 1 across nodes) times its size band (below 1 MiB, to
 * 64 MiB, above): 3·inter + band; trace_calib_cell_name() (trace_calib.h)
 * names them as the keys of a system preset.
 */
int cost_calib_cell(int inter, double bytes);

/*
 * m becomes inner (copied) calibrated by ratio[cell] (NaN: 1, the cell
 * not measured); inner must outlive m and be uncalibrated itself.
 * cost_coll(m) is cost_coll(inner) with time, latency and size terms
 * times the ratio of the answer's cell (nodes > 1: inter); cost_explain(m)
 * is inner's with every candidate scaled alike and the ratio as a term;
 * cost_affine(m) is 0 (the ratio steps between cells).
 */
void cost_model_calib(struct cost_model *m, const struct cost_model *inner,
		      const double ratio[COST_CALIB_CELLS]);

/* What to print for m's model: "nccl", or "nccl, calibrated by a trace". */
const char *cost_model_label(const struct cost_model *m);

/* A single-link model of l. */
void cost_model_link(struct cost_model *m, const struct link *l);
/* The tier model of s (s must outlive m). */
void cost_model_tiers(struct cost_model *m, const struct system *s);

/*
 * Time of one collective.  m: the machine; op: the collective; algo: an
 * algorithm the model accepts for op, or ALGO_AUTO for the fastest;
 * g: the group (ranks >= 1; 1 rank costs 0 s); bytes: S in B (>= 0, the
 * size column of nccl-tests).  Returns 0 with *out filled, or -1 with eb
 * filled (eb may be NULL): an algorithm the model has not for op, a group
 * that needs the NICs on a system without them, a per_node above
 * gpus_per_node.  Formulas: models/allreduce.md, models/collectives.md,
 * models/system.md.
 */
int cost_coll(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
	      const struct group *g, double bytes, struct coll_cost *out,
	      struct errbuf *eb);

/*
 * Why a time is what it is.  A candidate is one way the model could run
 * the call (an algorithm, with NCCL's model an algorithm and protocol);
 * a term is one number of the chosen candidate's formula with where it
 * comes from.
 */
struct cost_candidate {
	struct coll_cost cost;   /* time_s: the run time, as cost_coll() gives it */
	double rank_s;           /* s: the time the model ranks candidates by (NCCL's
				    tuning time; time_s in the α-β models) */
	double bw_Bps;           /* B/s: the algorithm bandwidth the ranking used
				    (NaN in the α-β models) */
};

struct cost_term {
	const char *name;
	double value;            /* in unit */
	const char *unit;
	const char *source;      /* file and lines of the formula, or how it was derived */
};

#define COST_CANDIDATES_MAX 24
#define COST_TERMS_MAX 48

struct cost_explain {
	int n;                   /* candidates; cand[0] is the chosen one */
	struct cost_candidate cand[COST_CANDIDATES_MAX];
	int nterms;
	struct cost_term term[COST_TERMS_MAX];
	const char *note;        /* NULL, or a sentence on who answers instead (NCCL's
				    all-to-all and send/recv: the tier model) */
};

/*
 * The explain entry: what cost_coll() chooses for op, algo on g at
 * bytes, and why.  cand[0].cost is exactly cost_coll()'s answer, every
 * runner-up (cand[1..n-1], in the model's order of preference) carries
 * its run time on that same definition, and the terms are the chosen
 * candidate's.  On a link and in the tiers model the candidates are the
 * model's algorithms for op (only algo when one is asked), fastest
 * first, and the terms its latency and size terms; NCCL's model lists
 * every usable algorithm and protocol in the order of its tuning time,
 * and the terms of nccl_terms() with NCCL's source lines (n = 0 when
 * NCCL_ALGO and NCCL_PROTO leave no pair, where cost_coll() fails).  A
 * group of one rank has one candidate of 0 s and no terms.  Returns 0, or
 * -1 with eb as cost_coll().
 */
int cost_explain(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		 const struct group *g, double bytes, struct cost_explain *x,
		 struct errbuf *eb);

/*
 * What compare and plan predict: cost_coll() of op with cost_algo_for()'s
 * algorithm on a packed group of `ranks`, in s; out (may be NULL)
 * receives the answer.  NaN (and out->time_s NaN) when the model has
 * none (an algorithm it has not for op, a machine too small).
 */
double cost_predict(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		    unsigned long ranks, double bytes, struct coll_cost *out);

/* cost_coll's time_s on a packed group of `ranks`, or NaN on error. */
double cost_time(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		 unsigned long ranks, double bytes);

/*
 * 1 if model m has algorithm a for op (ALGO_AUTO always), else 0.
 * Single link: all-reduce ring, tree, dbtree, rd, rabenseifner; all-gather
 * and reduce-scatter ring, rd; all-to-all pairwise; broadcast and reduce
 * ring, tree; send/recv p2p.  Tiers: ring and hier for every collective
 * but all-to-all (pairwise) and send/recv (p2p); hierhd for all-reduce.
 */
int cost_algo_supported(const struct cost_model *m, enum coll_op op, enum coll_algo a);

/*
 * The algorithm a command uses for op when the user names none: on a link
 * the first the model lists (ring, the seed's default); on a system
 * ALGO_AUTO, the model's own choice per size (NCCL's choice under the NCCL
 * model, the fastest tier form under the tiers model).
 */
enum coll_algo cost_algo_preferred(const struct cost_model *m, enum coll_op op);

/*
 * What to print for algorithm a on model m: its name, or for ALGO_AUTO
 * what chooses ("NCCL's choice per size", "the fastest per size").
 */
const char *cost_algo_label(const struct cost_model *m, enum coll_algo a);

/*
 * What algorithm a means in model m, one line for a table's header:
 * "the seed's binomial tree, not pipelined" on a link, "NCCL's tree: a
 * chain inside each node, a double binary tree across nodes" in NCCL's
 * model, so two commands that name the same pair say which tree they
 * compare.  Never NULL.
 */
const char *cost_algo_describe(const struct cost_model *m, enum coll_algo a);

/* The algorithm used when none is asked for: the first supported one above
 * (with fitted regimes, the all-reduce algorithm they were fitted for). */
enum coll_algo cost_algo_default(const struct cost_model *m, enum coll_op op);

/*
 * The algorithm m runs for op when a command names one algorithm for
 * every collective alike (compare's and plan's --algo, which name the
 * all-reduce's): algo when m has it for op; on a link and its fitted
 * regimes otherwise op's own single-link algorithm (the seed's ring and
 * tree exist for all-reduce only: ring all-gather, pairwise all-to-all,
 * p2p send/recv); on a system algo as it is (cost_coll says what is wrong).
 */
enum coll_algo cost_algo_for(const struct cost_model *m, enum coll_op op, enum coll_algo algo);

/*
 * What a model chose, as NCCL_DEBUG=INFO would say it, into buf:
 * "tree/LL" (algorithm/protocol), "ring" for an α-β model, "-" when c
 * holds no answer (time_s NaN).  Returns buf.
 */
char *cost_choice_text(const struct coll_cost *c, char *buf, size_t len);

/*
 * Look a name up among m's algorithms for op.  Returns 0, or -1 with eb
 * naming the value and the choices: "unknown algorithm 'x' for all_reduce
 * on a link (choose from ring, tree, dbtree, rd, rabenseifner)".
 */
int cost_algo_lookup(const struct cost_model *m, enum coll_op op, const char *name,
		     enum coll_algo *a, struct errbuf *eb);

/*
 * Parse "ring,tree" into algos (at most ALGO_COUNT, duplicates rejected).
 * Returns the number of algorithms, or -1 with eb filled.
 */
int cost_algo_parse_list(const struct cost_model *m, enum coll_op op, const char *s,
			 enum coll_algo *algos, struct errbuf *eb);

/*
 * The affine form T(S) = latency_s + S·per_byte_s of op, algo on g, for
 * the models where it is affine in S (COST_LINK, COST_TIERS): returns 1
 * with the two coefficients; 0 when the model is not affine (NCCL's
 * protocol switches); -1 with eb on error.  The crossover solver and the
 * fits use it.
 */
int cost_affine(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		const struct group *g, double *latency_s, double *per_byte_s,
		struct errbuf *eb);

/*
 * Coefficients of the single-link model: T(S) = a·α + b·S/β + c·S·γ.
 * Returns 0, or -1 with eb (algorithm not modelled for op, ranks < 1).
 * 1 rank gives a = b = c = 0.
 */
struct link_coeffs {
	double a;   /* number of α paid (steps on the critical path) */
	double b;   /* bytes through the busiest link per byte of S */
	double c;   /* bytes reduced per byte of S (γ) */
};
int cost_link_coeffs(enum coll_op op, enum coll_algo algo, unsigned long ranks,
		     struct link_coeffs *c, struct errbuf *eb);

/*
 * Hockney's half-performance length n½ of an operation whose time is
 * T(S) = a·α + b·S/β: the size at which its algorithm bandwidth S/T(S)
 * reaches half of its asymptotic value β/b, n½ = a·α·β/b (B).  a: the α
 * paid, α in s, β in B/s, b: bytes through the busiest link per byte of
 * S (> 0).  One transfer on a link (a = b = 1) gives the link's n½ = αβ;
 * ring all-reduce on n ranks (a = 2(n−1), b = 2(n−1)/n) gives nαβ.
 * R. W. Hockney, "The communication challenge for MPP", Parallel
 * Computing 20 (1994); models/crossover.md.
 */
double cost_n_half(double a, double alpha, double beta, double b);

/*
 * n½ of a collective on a cost model: the size S at which algbw = S/T(S)
 * of op, algo on g reaches half of its limit for S → ∞.  Affine models
 * (a link, the tiers) give cost_n_half() of their coefficients; NCCL's
 * model, whose protocol switches make T piecewise, is solved by
 * bisection in log S over [1 B, 1 PiB] (algbw grows with S) for half
 * the bandwidth it reaches at 1 PiB.  With γ on a link the limit is
 * 1/(b/β + c·γ).  Returns 0 with *n_half in B, or -1 with
 * eb (the model's errors; a collective that moves nothing, 1 rank).
 */
int cost_coll_n_half(const struct cost_model *m, enum coll_op op, enum coll_algo algo,
		     const struct group *g, double *n_half, struct errbuf *eb);

#endif
