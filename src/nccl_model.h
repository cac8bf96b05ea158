#ifndef COMMTIME_NCCL_MODEL_H
#define COMMTIME_NCCL_MODEL_H

/*
 * NCCL's own cost model, as NCCL 2.30.7 computes it (tag v2.30.7-1 of
 * github.com/NVIDIA/nccl): for every collective, algorithm and protocol a
 * latency (µs) and a bandwidth (GB/s = bytes/ns), from which NCCL picks the
 * fastest pair per message size.  The constants live in nccl_params, each
 * with the file and line it comes from (src/nccl_model.c); models/nccl.md derives
 * the whole model and works examples.
 *
 * The model has three layers, as NCCL has:
 *   1. the machine facts NCCL's topology detection finds (struct nccl_machine);
 *   2. the channel graphs its search builds from them (struct nccl_graph:
 *      channels and the bandwidth of each, src/graph/search.cc);
 *   3. the tuning table (struct nccl_tune, src/graph/tuning.cc) and the time
 *      of one call, lat + S/bw (ncclTopoGetAlgoTime).
 * Internally NCCL's units are kept: µs and GB/s; nccl_time() returns seconds.
 */

#include "util.h"

enum nccl_algo {            /* NCCL's order (src/include/device.h) */
	NCCL_TREE, NCCL_RING, NCCL_COLLNET_DIRECT, NCCL_COLLNET_CHAIN,
	NCCL_NVLS, NCCL_NVLS_TREE, NCCL_PAT, NCCL_NALGO
};
enum nccl_proto { NCCL_LL, NCCL_LL128, NCCL_SIMPLE, NCCL_NPROTO };
enum nccl_func {            /* ncclFunc_t order */
	NCCL_BROADCAST, NCCL_REDUCE, NCCL_ALLGATHER, NCCL_REDUCESCATTER,
	NCCL_ALLREDUCE, NCCL_NFUNC
};
enum nccl_hw { NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET, NCCL_NHW };
enum nccl_arch { NCCL_VOLTA, NCCL_AMPERE, NCCL_HOPPER, NCCL_BLACKWELL, NCCL_NARCH };
enum nccl_cpu { NCCL_CPU_INTEL, NCCL_CPU_AMD, NCCL_CPU_ARM };

/* NCCL's path types (src/include/graph.h), as nvidia-smi topo -m names them. */
enum nccl_path {
	NCCL_PATH_NVL = 1, NCCL_PATH_NVB = 2, NCCL_PATH_PIX = 4,
	NCCL_PATH_PXB = 5, NCCL_PATH_PHB = 8, NCCL_PATH_SYS = 9
};

/*
 * Every tunable number of the model.  nccl_params_default holds NCCL
 * 2.30.7's values; a calibration may copy and adjust it.  Units: µs for
 * latencies, GB/s for bandwidths, factors are dimensionless.
 */
struct nccl_params {
	double base_lat[NCCL_NALGO][NCCL_NPROTO];             /* baseLatencies */
	double hw_lat[NCCL_NHW][NCCL_NALGO][NCCL_NPROTO];     /* hwLatencies */
	double ll_max_bw[NCCL_NARCH][3];          /* llMaxBws [arch or cpu][nodes 1,2,>2] */
	double perch_ring_ll128[NCCL_NARCH][3];   /* perChMaxRingLL128Bws */
	double perch_tree_ll128[NCCL_NARCH][3];   /* perChMaxTreeLL128Bws */
	double perch_tree[NCCL_NARCH][3];         /* perChMaxTreeBws */
	double perch_nvls_tree[NCCL_NARCH][3];    /* perChMaxNVLSTreeBws */
	double nvls_eff[NCCL_NARCH];              /* nvlsEfficiency */
	double tree_correction[NCCL_NPROTO][24];  /* treeCorrectionFactor, 64 B .. 256 MiB */
	double net_overhead[3];                   /* µs per network step: intel, amd, arm */
	/* 100 × major + minor of the NCCL whose tuning this is: 230 (2.30.7).
	 * Earlier versions' formulas are chosen by it in nccl_tune_init. */
	int version;
};

extern const struct nccl_params nccl_params_default;
/* The version nccl_params_default is, as a log names it. */
#define NCCL_PARAMS_DEFAULT_NAME "2.30.7"

/*
 * The constants and formulas of NCCL version s ("2.21", "2.21.5", ...,
 * "2.30.7"): nccl_params_default with what tuning.cc did otherwise before
 * each change, 2.19 to 2.31 (the channel graphs and the run stay
 * 2.30.7's).  Returns 0, or -1 with eb naming the value and the range.
 */
int nccl_params_version(const char *s, struct nccl_params *p, struct errbuf *eb);

/* GPUs of one node NCCL's search is replayed on (a direct NVLink graph). */
#define NCCL_MAX_LOCAL 32

/* The versions modelled, 100 × major + minor: 2.19 (as 2.20) to 2.31
 * (NCCL 2.31.0a7, the dev branch's pre-release: its tuning moved to
 * src/tuning/, models/nccl.md "NCCL versions"). */
#define NCCL_VERSION_MIN 219
#define NCCL_VERSION_MAX 231

/*
 * As nccl_params_version, but a version outside the modelled range takes
 * the nearest modelled one (*nearest: 219 or 231; 0 when s itself is
 * modelled), as a log of an older NCCL is still predicted.
 */
int nccl_params_nearest(const char *s, struct nccl_params *p, int *nearest, struct errbuf *eb);

/*
 * The machine as NCCL's topology detection sees it.  Zero means "NCCL's
 * default" where a default exists (nvlink_bw: the per-architecture value of
 * src/graph/topo.h; pcie_width: 16).
 */
struct nccl_machine {
	int sm;               /* compute capability × 10: 80, 89, 90, 100; 90 for AMD's */
	int amd;              /* 1: an AMD GPU run by RCCL: xGMI links as NVLink, RCCL's
			       * search speeds, no LL128 (models/nccl.md, "AMD GPUs and RCCL") */
	int gpus_per_node;
	int nvlinks;          /* NVLinks per GPU; 0: the GPUs talk over PCIe */
	double nvlink_bw;     /* GB/s per NVLink per direction, as NCCL counts it */
	int nvswitch;         /* 1: NVLinks go to NVSwitches; 0: a direct mesh */
	int nvls;             /* 1: NVLink SHARP (multicast) is available */
	int pcie_gen;         /* 3, 4, 5, 6 */
	int pcie_width;       /* lanes (16) */
	enum nccl_path pcie_path;  /* widest PCIe path between two GPUs of a node */
	enum nccl_path nic_path;   /* PCIe path from a GPU to its nearest NIC */
	int no_gdr;           /* 1: no GPUDirect RDMA, the network is staged through host
			       * memory (the path to the NIC goes through the GPU's CPU) */
	int p2p;              /* 0: P2P disabled, traffic staged through the host */
	enum nccl_cpu cpu;
	int nics_per_node;    /* NICs as NCCL counts them: ports of one device (or a plugin's rails) merged */
	double nic_bw;        /* GB/s per NIC: line rate in bit/s / 8e9, summed over merged ports */
	double net_latency;   /* µs: the latency the network plugin reports (props->latency) */
	int collnet;          /* 1: the network switches reduce (SHARP) and NCCL runs CollNet:
			       * its CollNet plugin loaded, NCCL_COLLNET_ENABLE=1 (system key
			       * collnet; models/nccl.md, "CollNet") */
	/* A direct NVLink graph (no NVSwitch): mesh = 1 and nvl[i][j] NVLinks
	 * from GPU i to GPU j; pci_path[i][j] the NCCL path type between GPUs
	 * that NVLink does not join (0: pcie_path).  nccl_search_node replays
	 * NCCL's search on it. */
	int mesh;
	unsigned char nvl[NCCL_MAX_LOCAL][NCCL_MAX_LOCAL];
	signed char pci_path[NCCL_MAX_LOCAL][NCCL_MAX_LOCAL];
};

/* One channel graph, as ncclTopoCompute leaves it. */
struct nccl_graph {
	int nchannels;
	double bw_intra;      /* GB/s per channel inside a node */
	double bw_inter;      /* GB/s per channel across nodes */
	int nvlink;           /* 1: typeIntra is NVLink (NCCL_HW_NVLINK latencies) */
	double run_bw;        /* > 0: the search found nothing and left its fallback (one
			       * channel, 0.1 GB/s, search.cc:1289-1296), which steers the
			       * choice; the channel still moves run_bw GB/s, its path's
			       * narrowest link (models/nccl.md, "No graph") */
};

/* The tuning table of one communicator: ranks on nodes of the machine. */
struct nccl_tune {
	int ranks, nodes;
	enum nccl_arch arch;
	struct nccl_graph graph[NCCL_NALGO];
	double lat[NCCL_NFUNC][NCCL_NALGO][NCCL_NPROTO];  /* µs */
	double bw[NCCL_NFUNC][NCCL_NALGO][NCCL_NPROTO];   /* GB/s of algorithm bandwidth; 0 = not usable */
	int comm_channels;    /* comm->nChannels: twice the ring channels, at most 64 */
	int nvls_channels;    /* comm->nvlsChannels: CTAs of NVLS and NVLSTree (0: no NVLS) */
	int ring_simple_threads;  /* maxThreads[Ring][Simple]: 256 on a PCIe-speed ring, else 512 */
	enum nccl_cpu cpu;
	double net_latency;   /* µs: the network plugin's latency (nccl_machine) */
	int amd;              /* 1: RCCL's latencies (nccl_machine.amd) */
};

/*
 * The per-step latency hwLat[hw][a][pr] and the base latency baseLat[a][pr]
 * of the tuning, µs: NCCL's (p) for an NVIDIA GPU; for an AMD one (amd 1)
 * RCCL's for Tree and Ring, CollNet taking RCCL's base latency with NCCL's
 * steps (src/nccl_rccl.c).
 */
double nccl_hw_lat(const struct nccl_params *p, int amd, int hw, int a, int pr);
double nccl_base_lat(const struct nccl_params *p, int amd, int a, int pr);

/* "tree", "ring", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat". */
const char *nccl_algo_name(enum nccl_algo a);
/* "LL", "LL128", "Simple". */
const char *nccl_proto_name(enum nccl_proto p);

/*
 * Parse an NCCL_ALGO / NCCL_PROTO style list ("ring,tree", "^nvls",
 * case-insensitive) into a bit mask of enabled algorithms / protocols.
 * Returns 0, or -1 with eb naming the bad element and the choices.
 */
int nccl_algo_mask(const char *s, unsigned *mask, struct errbuf *eb);
/* The longest --nccl-algo or --proto list accepted (they go into run lines). */
#define NCCL_LIST_MAX 80
int nccl_proto_mask(const char *s, unsigned *mask, struct errbuf *eb);

/*
 * The algorithm (protocol) named by the len bytes at s, as NCCL's logs
 * write them: any case, '_' ignored ("Tree", "RING", "NVLS_TREE",
 * "SIMPLE"); -1 when none.
 */
int nccl_algo_lookup(const char *s, size_t len);
int nccl_proto_lookup(const char *s, size_t len);

/* NCCL's per-link NVLink bandwidth for an SM version (topo.h ncclTopoNVLinkBw), GB/s. */
double nccl_nvlink_bw(int sm);
/* NCCL's bandwidth of a PCIe x`width` link of generation `gen` (topo.cc), GB/s. */
double nccl_pcie_bw(int gen, int width);

/*
 * The channel graphs NCCL's search would build for `nodes` nodes of m:
 * g[NCCL_RING], g[NCCL_TREE], g[NCCL_NVLS] (nchannels 0 when NVLS is not
 * possible), and with m->collnet on several nodes g[NCCL_COLLNET_DIRECT]
 * and g[NCCL_COLLNET_CHAIN].  A simplified replay of ncclTopoCompute, see models/nccl.md.
 */
void nccl_graphs(const struct nccl_machine *m, int nodes, struct nccl_graph g[NCCL_NALGO]);

/*
 * Fill the tuning table for `ranks` ranks on m (nodes = ⌈ranks /
 * gpus_per_node⌉), as ncclTopoTuneModel does, with NCCL_ALGO / NCCL_PROTO
 * style masks (~0u: everything NCCL enables by default).
 * Returns 0, or -1 with eb filled (ranks < 1, a machine that makes no sense).
 */
int nccl_tune_init(struct nccl_tune *t, const struct nccl_params *p,
		   const struct nccl_machine *m, int ranks,
		   unsigned algo_mask, unsigned proto_mask, struct errbuf *eb);

/*
 * Time of one call in seconds (ncclTopoGetAlgoTime with one operation),
 * for S = `bytes` as nccl-tests' size column counts it.  Negative when the
 * pair is not usable.  lat_s and bw_Bps (may be NULL) receive the latency
 * term and the bandwidth after the size-dependent corrections.
 */
double nccl_time(const struct nccl_tune *t, const struct nccl_params *p,
		 enum nccl_func f, enum nccl_algo a, enum nccl_proto pr,
		 double bytes, double *lat_s, double *bw_Bps);

/* NCCL's choice: the fastest usable (algorithm, protocol). */
struct nccl_choice {
	enum nccl_algo algo;
	enum nccl_proto proto;
	double time_s, lat_s, bw_Bps;
};

/*
 * Every usable pair for f at `bytes`, fastest first, into out (at most
 * `max`); returns how many (0: nothing usable, e.g. masks exclude all).
 */
int nccl_rank(const struct nccl_tune *t, const struct nccl_params *p,
	      enum nccl_func f, double bytes, struct nccl_choice *out, int max);

/*
 * How NCCL runs one call of the pair it chose: the tuning model above
 * (lat + S/bw) decides which pair, then the enqueue code decides how many
 * channels (CTAs) run and in what chunks, and the kernel pipelines those
 * chunks.  The predicted run time is
 *
 *   time = lat + S / (bw × used / channels) + fill
 *
 * with lat and bw of the tuning table (after its size corrections), used
 * the channels that run at this size (enqueue.cc topoGetAlgoInfo and
 * scheduleCollTasksToPlan), and fill the time the first chunk takes to
 * cross the stages of a store-and-forward pipeline before the stream
 * flows (Simple protocol of NVLS and NVLSTree; chunk sizes of enqueue.cc
 * calcCollChunking).  models/nccl.md, "From the choice to the run".
 */
struct nccl_run {
	double tune_s;       /* NCCL's tuning time, lat + S/bw: what the choice compares */
	double lat_s;        /* latency term of the tuning table */
	double bw_Bps;       /* algorithm bandwidth of the tuning table (all channels) */
	int channels;        /* CTAs the tuning bandwidth stands for */
	int threads;         /* threads per CTA NCCL starts with (maxThreads) */
	int channels_algo;   /* CTAs left by topoGetAlgoInfo at this size */
	int channels_used;   /* CTAs that get work (32 KiB of traffic at least each) */
	double xfer_s;       /* S over the bandwidth of the channels used */
	double chunk_B;      /* chunk per head and step (0: no store-and-forward fill) */
	int chunks_per_loop; /* chunks a channel moves per loop (NVLS heads) */
	int stages;          /* pipeline stages a loop crosses */
	double fill_s;       /* (stages − 1) × one loop's time on one channel */
	double time_s;       /* predicted run time */
};

/*
 * The run of f, a, pr at `bytes` on t (see struct nccl_run).  Returns the
 * predicted time in seconds, or a negative value when the pair is not
 * usable; r (may be NULL) receives every term.
 */
double nccl_run_time(const struct nccl_tune *t, const struct nccl_params *p,
		     enum nccl_func f, enum nccl_algo a, enum nccl_proto pr,
		     double bytes, struct nccl_run *r);

/*
 * The likely cause of a bus bandwidth well below what the model predicts,
 * judged from the machine alone: `nodes` nodes of m, measured bus
 * bandwidth busbw_Bps (B/s) at a large size.  Returns a short sentence
 * (static storage) or NULL when nothing in the machine explains it.
 */
const char *nccl_low_busbw_cause(const struct nccl_machine *m, int nodes, double busbw_Bps);

/*
 * One term of NCCL's formula for a (collective, algorithm, protocol), as
 * --explain prints it: a name, its value in `unit`, and where in NCCL
 * 2.30.7 it comes from (or how it was derived).
 */
struct nccl_term {
	const char *name;
	double value;
	const char *unit;
	const char *source;
};

/*
 * The terms behind nccl_time() for f, a, pr at `bytes`: channels and
 * per-channel bandwidth of the graph, the protocol and algorithm factors,
 * the base and per-step latencies with their step counts, the size
 * corrections.  Fills at most max terms; returns how many (0 when the
 * pair is not usable).
 */
int nccl_terms(const struct nccl_tune *t, const struct nccl_params *p,
	       enum nccl_func f, enum nccl_algo a, enum nccl_proto pr, double bytes,
	       struct nccl_term *out, int max);

#endif
