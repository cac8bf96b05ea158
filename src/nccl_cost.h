#ifndef COMMTIME_NCCL_COST_H
#define COMMTIME_NCCL_COST_H

/*
 * NCCL's cost model (nccl_model.h) as a cost model of the core (cost.h, kind
 * COST_NCCL): a system (system.h) becomes the machine NCCL's topology
 * detection would see, and cost_coll() asks NCCL's tuning for the time.
 */

#include "cost.h"
#include "nccl_model.h"
#include "system.h"

/* The state behind one COST_NCCL model; it must outlive the model. */
struct nccl_cost {
	struct nccl_params params;     /* NCCL 2.30.7's constants, adjustable */
	struct nccl_machine machine;   /* the system as NCCL sees it */
	unsigned algo_mask;            /* NCCL_ALGO: bit per enum nccl_algo */
	unsigned proto_mask;           /* NCCL_PROTO: bit per enum nccl_proto */
	const struct system *sys;      /* for all-to-all and send/recv (tiers) */
	unsigned gpus_per_process;     /* GPUs one host thread launches (nccl-tests -g); 1 */
	double launch_s;               /* host time to launch one GPU's part of a call */
};

/*
 * One host thread launching the collective on N GPUs (nccl-tests -g N, or
 * a framework driving several GPUs from one process) issues N launches per
 * call, one after another (nccl-tests src/common.cu startColl: one
 * ncclGroupStart/End around the N calls; NCCL src/group.cc doLaunches:
 * per communicator cudaSetDevice, ncclLaunchPrepare, one kernel launch,
 * ncclLaunchFinish).  Calls are asynchronous, so a loop of them takes
 * max(the GPUs' time, N × the launch) per call.  The launch is one CUDA
 * kernel launch on the host, 4-6 µs as measured on a current GPU and
 * driver (RTX 5070 Ti, CUDA 13: susun-blog.com, "pegainfer (3): From
 * Launch Overhead to CUDA Graph"); the middle is taken, NCCL's own host
 * work around the launch is not counted (a lower bound).  models/nccl.md,
 * "The launch".
 */
#define NCCL_LAUNCH_S 5e-6

/* The time of one call of the GPUs' time_s when a host thread launches it on
 * gpus_per_process GPUs at launch_s each: the larger of the two. */
double nccl_host_bound(const struct nccl_cost *nc, double time_s);

/*
 * What NCCL would see of s: architecture, NVLinks (counted at NCCL's own
 * per-link rate, topo.h), NVSwitch, NVLS, PCIe generation and path, P2P,
 * CPU vendor, NICs per node and the line rate of one NIC port
 * (beta_line).  Returns 0, or -1 with eb (an architecture NCCL's model
 * has no constants for).
 */
/*
 * m->mesh and m->nvl from s (nccl_machine_from_system calls it): on a
 * system without NVSwitch, the NVLinks of each GPU pair from its topology
 * file, or without one a full mesh sharing the GPU's links evenly (when
 * there are at least as many links as peers).
 */
void nccl_machine_mesh(const struct system *s, struct nccl_machine *m);

int nccl_machine_from_system(const struct system *s, struct nccl_machine *m,
			     struct errbuf *eb);

/*
 * Fill nc for s with NCCL's default constants and algo_mask / proto_mask
 * (~0u: NCCL's defaults), and point cm at it.  Returns 0 or -1 with eb.
 */
int nccl_cost_init(struct nccl_cost *nc, struct cost_model *cm, const struct system *s,
		   unsigned algo_mask, unsigned proto_mask, struct errbuf *eb);

/*
 * The tuning table NCCL would build for group g of nc's system (ranks
 * packed on nodes of g->per_node GPUs, with that share of the NICs).
 * Returns 0 or -1 with eb.
 */
int nccl_cost_tune(const struct nccl_cost *nc, const struct group *g,
		   struct nccl_tune *t, struct errbuf *eb);

/*
 * NCCL's choice rule alone, on a tuning table t that need not be the
 * model's (compare puts NCCL's own logged table in its place): the
 * fastest usable pair by tuning time, as the run time of nc's
 * parameters into out.  Returns 0, or -1 when t has no usable pair for
 * op (all-to-all and send/recv have none).
 */
int nccl_cost_rule(const struct nccl_cost *nc, const struct nccl_tune *t, enum coll_op op,
		   double bytes, struct coll_cost *out);

/* The NCCL collective behind op; -1 for all-to-all and send/recv (point-to-point). */
int nccl_func_of(enum coll_op op);

/* The core's name for an NCCL algorithm, and back (ALGO_AUTO: none). */
enum coll_algo nccl_algo_to_coll(enum nccl_algo a);

/* The NCCL algorithms (bits 1 << enum nccl_algo) one of the core's names
 * stands for: all for ALGO_AUTO, none for a name NCCL has not (hier). */
unsigned nccl_algo_bits(enum coll_algo a);

#endif
