#ifndef COMMTIME_SYSTEM_H
#define COMMTIME_SYSTEM_H

#include "util.h"
#include "model.h"
#include "preset.h"
#include "topo.h"

/*
 * A system: the machine a run is rented on.  Nodes of gpus_per_node GPUs
 * joined inside the node by one intra link (NVLink + NVSwitch, PCIe) and
 * across nodes by nics_per_node NICs each, one `inter` link preset per NIC
 * port.  Loaded from presets of kind `system`, which name a preset of kind
 * `gpu` and two link presets.  Keys, defaults and sources: models/system.md.
 *
 * A run of n ranks fills nodes densely: nodes = ⌈n / gpus_per_node⌉.  When
 * gpus_per_node does not divide n, the last node holds fewer ranks; the
 * tier models (cost.h) take that last node as full, so a time is an upper
 * bound for it (models/system.md).
 */

/* GPU architecture, as NVIDIA names its compute capabilities. */
enum gpu_arch {
	ARCH_UNKNOWN,
	ARCH_SM70,    /* Volta (V100) */
	ARCH_SM75,    /* Turing (T4, RTX 20xx) */
	ARCH_SM80,    /* Ampere data centre (A100) */
	ARCH_SM86,    /* Ampere (A40, RTX 30xx) */
	ARCH_SM89,    /* Ada Lovelace (L40S, RTX 4090) */
	ARCH_SM90,    /* Hopper (H100, H200, H20, GH200) */
	ARCH_SM100,   /* Blackwell data centre (B200, GB200) */
	ARCH_SM103,   /* Blackwell Ultra (B300, GB300) */
	ARCH_SM120,   /* Blackwell (RTX 50xx, RTX PRO 6000) */
	ARCH_SM121,   /* Blackwell (GB10, DGX Spark) */
	ARCH_GFX942,  /* AMD CDNA 3 (MI300X, MI325X), read with RCCL's model */
	ARCH_GFX950,  /* AMD CDNA 4 (MI355X) */
	ARCH_COUNT
};

/* "sm90" for ARCH_SM90; "?" out of range. */
const char *gpu_arch_name(enum gpu_arch a);
/* 1 for AMD's architectures (gfx942, gfx950): RCCL, xGMI links. */
int gpu_arch_amd(enum gpu_arch a);

/*
 * 1 when the arch has FP8 tensor cores: NVIDIA's from Ada (sm89) and Hopper
 * (sm90) on (Hopper and Ada Lovelace architecture whitepapers, 2022); 0 for
 * Volta and Ampere and an unknown arch.
 */
int gpu_arch_has_fp8(enum gpu_arch a);

/* Where two GPUs of a node meet on PCIe, as `nvidia-smi topo -m` prints it. */
enum pcie_path {
	PCIE_PIX,    /* through at most one PCIe switch */
	PCIE_PXB,    /* through several PCIe switches, no host bridge */
	PCIE_PHB,    /* through a PCIe host bridge (the CPU) */
	PCIE_NODE,   /* across host bridges inside one NUMA node */
	PCIE_SYS,    /* across the SMP interconnect between NUMA nodes */
	PCIE_PATH_COUNT
};
const char *pcie_path_name(enum pcie_path p);   /* "pix", ... */

/* CPU vendor: NCCL's socket-crossing bandwidth and network overhead depend on it. */
enum cpu_vendor {
	CPU_INTEL,
	CPU_AMD,
	CPU_ARM,
	CPU_VENDOR_COUNT
};
const char *cpu_vendor_name(enum cpu_vendor c); /* "intel", ... */

/*
 * The network transport (key net): how NCCL moves bytes between nodes.
 * RDMA transports (ib, roce, efa, slingshot; the default) are priced at
 * the NIC's line rate; socket is NCCL's socket transport (net_socket.cc):
 * host copies through the kernel's TCP stack (models/nccl.md, "Sockets").
 */
enum system_net {
	NET_RDMA, NET_IB, NET_ROCE, NET_EFA, NET_SLINGSHOT, NET_SOCKET, NET_COUNT
};
const char *system_net_name(enum system_net n);   /* "rdma", "ib", ... */

/* The cost model a system preset asks for (key `model`); --model overrides it. */
enum system_model {
	SYSTEM_MODEL_DEFAULT,     /* no key: the default model (NCCL's) */
	SYSTEM_MODEL_NCCL,
	SYSTEM_MODEL_TIERS,       /* what a calibration by 'fit --system' fills */
	SYSTEM_MODEL_COUNT
};
const char *system_model_name(enum system_model m); /* "nccl", "tiers" */

/*
 * Bounds of the keys with a unit (models/system.md, "Bounds"); a link's
 * alpha, base and beta keep model.h's LINK_ALPHA_MAX and LINK_BETA_MAX,
 * and net_latency takes LINK_ALPHA_MAX too.
 */
#define GPU_MEMORY_MAX 1e15           /* B: 1 PB, over 3000 times a B300's 288 GB */
#define GPU_TFLOPS_MAX 1e6            /* TFLOP/s: 1 EFLOP/s, over 400 times a B200 */
#define GPU_POWER_MAX 1e5             /* W: 100 kW, over 80 times a GB200's 1200 W GPU */
#define PRICE_PER_GPU_HOUR_MAX 1e4    /* USD: over 800 times the dearest shipped price */

/* A preset of kind `gpu`. */
struct gpu_spec {
	char *name;               /* preset name; NULL for a system built from options alone */
	char *description;
	enum gpu_arch arch;
	double memory_B;          /* B: device memory */
	unsigned nvlink_links;    /* NVLink links per GPU (0: none); for an AMD GPU, its
				     xGMI links (key xgmi_links) */
	double nvlink_link_Bps;   /* B/s: one NVLink (xGMI) link, one direction */
	unsigned pcie_gen;        /* PCIe generation of the host link (3, 4, 5, 6) */
	double bf16_flops;        /* FLOP/s: dense bf16 peak (key tflops_bf16, in TFLOP/s) */
	unsigned sms;             /* streaming multiprocessors (key sms; 0: not given) */
	double hbm_Bps;           /* B/s: memory bandwidth (key hbm_bandwidth; 0: not given) */
	double gemm_eff;          /* share of the peak a large bf16 GEMM reaches (key
				     gemm_efficiency; 0: not given, kernel.h's default) */
	double fp8_flops;         /* FLOP/s: dense FP8 peak (key tflops_fp8, in TFLOP/s;
				     0: the GPU has no FP8 tensor cores or it is not given) */
	double power_w;           /* W: board power limit as sold (key power_w; 0: not given) */
	double host_link_Bps;     /* B/s: the GPU's link to host memory, one direction (key
				     host_link; 0: not given, system_host_link_Bps's default) */
	double family_share;      /* its sustained clock against its die family's
				     reference (key power_ref, gpu_family; 0: none, 1) */
	char power_ref[PRESET_NAME_MAX + 1];  /* that reference's preset name ("" none) */
};

/*
 * The GPU's link to host memory, one direction, as copies reach it: the
 * preset's host_link, else 83 % of its PCIe generation's x16 line rate
 * (models/system.md, "The host link"), Gen5 when pcie_gen is not given.
 */
double system_host_link_Bps(const struct gpu_spec *g);

/* One tier: the link preset it reads, and its line rate. */
struct tier {
	char *name;               /* link preset name or path as given */
	struct link link;         /* α (s), β (B/s) of the preset; γ unused */
	double beta_line;         /* B/s: line rate (preset's beta_line, else beta) */
	double base;              /* s: per-call base latency (key `base`, written by a
				     calibration; 0 when absent), paid once by every call
				     that uses the tier (models/fit.md) */
};

enum tier_id { TIER_INTRA, TIER_INTER, TIER_COUNT };
const char *tier_name(enum tier_id t);          /* "intra", "inter" */

struct system {
	char *name;               /* preset name, or "custom" when built from options */
	char *path;               /* file it was read from (NULL when from options) */
	char *description;
	struct gpu_spec gpu;
	unsigned long gpus_per_node;  /* >= 1 */
	struct tier intra;            /* between GPUs of one node */
	unsigned nics_per_node;       /* NIC ports per node (0: one node only) */
	unsigned nic_ports;           /* ports NCCL sees as one NIC (default 1): a device's ports, a plugin's rails */
	double net_latency_s;         /* s: latency NCCL's network plugin reports (default 0) */
	int have_inter;               /* the inter tier is set */
	struct tier inter;            /* one NIC port, one direction */
	int nvls;                     /* NVLink SHARP in the switches (default no) */
	int p2p;                      /* GPU peer-to-peer (no: staged through host memory; default yes) */
	int nvswitch;                 /* NVLink through NVSwitch (default yes with NVLink, no otherwise) */
	enum pcie_path pcie_path;     /* default pix */
	enum pcie_path nic_path;      /* from a GPU to its nearest NIC (default pix) */
	int gdr_off;                  /* key gdr = no: no GPUDirect RDMA, the network is
				       * staged through host memory (default 0: gdr = yes) */
	enum cpu_vendor cpu;          /* default intel */
	unsigned long host_gpus;      /* GPUs of one host (the key gpus_per_node) when an
				       * NVLink domain spans hosts; then gpus_per_node is the
				       * domain, NCCL's node (key nvlink_domain); else equal */
	enum system_net net;          /* key net: the network transport (default: rdma) */
	int collnet;                  /* key collnet: SHARP in the network switch (default no) */
	int cpu_given;                /* 0: the default was taken */
	enum system_model model;      /* the model the preset asks for (default: none) */
	double price_per_gpu_hour;    /* USD per GPU-hour; NaN when not known */
	char *price_date;             /* when that price was seen (NULL if none) */
	int nics_line;                /* line of nics_per_node in path (0 if none), for messages */
	/* The node's topology file (key `topo`, --topo; NULL: none) and what
	 * it set: SYS_GIVEN_* bits of the keys the preset gave itself, and
	 * SYS_TOPO_* bits of the values the topology set. */
	struct topo *topo;
	char *topo_path;
	unsigned given, from_topo;
};

enum {
	SYS_GIVEN_GPN = 1, SYS_GIVEN_NVSWITCH = 2, SYS_GIVEN_PCIE_PATH = 4, SYS_GIVEN_NIC_PATH = 8,
	SYS_GIVEN_NICS = 16, SYS_GIVEN_CPU = 32
};

/*
 * Describe the node by a topology file (topo.h), read from path: what it
 * gives (GPUs per node, NVSwitch or not, the widest PCIe path between GPUs,
 * the widest path from a GPU to its nearest NIC, the NIC count when the
 * system has an inter link, the CPU vendor of an XML) replaces the value
 * a key left at its default; a key the preset gave stays.  Returns 0, or
 * -1 with "file:line: ..." in eb.
 */
int system_set_topo(struct system *s, const char *path, struct errbuf *eb);

/*
 * Write s as a system preset named name to path (atomically): every key
 * resolved (gpus_per_node, nvswitch, paths and NICs as the topology gave
 * them), the topology file and the presets it names by absolute path when
 * they are files, so they resolve to the same files wherever the preset
 * goes.  extra (nextra pairs, may be NULL) follow: fit --trace's keys,
 * each bounded as the reader bounds it (trace_calib.h) before anything
 * is written.  comment heads the file.  The one writer of system presets
 * (presets --save, fit --trace --save) through preset_save().  Returns 0,
 * or -1 with eb.
 */
int system_preset_write(const char *path, const char *name, const struct system *s,
			const char *comment, const struct preset_kv *extra, size_t nextra,
			struct errbuf *eb);

/*
 * Load a system preset by name or path, with its gpu preset and link
 * presets (found by name on d, or by path; a relative path is taken from
 * the directory of the system file).  Required keys: gpu, gpus_per_node,
 * intra; nics_per_node and inter go together (both or neither).  Returns 0,
 * or -1 with eb filled, "file:line: key: ..." naming the key (a missing
 * key names the line of `kind`).  Release with system_release.
 */
int system_load(const struct preset_dirs *d, const char *name_or_path,
		struct system *s, struct errbuf *eb);

/* Same, from a preset already loaded (kind must be `system`). */
int system_from_preset(const struct preset_dirs *d, const struct preset *p,
		       struct system *s, struct errbuf *eb);

/*
 * Load a gpu preset's values.  Returns 0 or -1 with "file:line: key: ..."
 * (required: arch, memory, tflops_bf16; nvlink_links and nvlink_link_beta
 * go together; pcie_gen, sms, hbm_bandwidth, gemm_efficiency optional).
 */
int gpu_from_preset(const struct preset *p, struct gpu_spec *g, struct errbuf *eb);

/*
 * The sustained clock of a GPU against the reference SKU of its die
 * family, the gpu preset its key power_ref names (models/step.md, "The
 * expected step"): under sustained tensor load a board runs at its power
 * limit, and with the voltage following the frequency (P ∝ f³ a
 * multiprocessor) the clock it holds goes as the cube root of its power
 * per multiprocessor, against the clock its peak is rated at:
 *   share = ∛((P / N) / (P_ref / N_ref)) · (peak_ref / N_ref) / (peak / N)
 * Sets g->family_share and g->power_ref; none (0) without power_ref.
 * Returns 0, or -1 with eb filled: the reference not a gpu preset, or
 * either GPU without power_w, sms or tflops_bf16.
 */
int gpu_family(const struct preset_dirs *d, const struct preset *p, struct gpu_spec *g,
	       struct errbuf *eb);

/*
 * Resolve a link preset (name or path) into a tier.  base: the directory a
 * relative path is taken from (NULL: the working directory).  Returns 0 or
 * -1 with eb filled.
 */
int tier_load(const struct preset_dirs *d, const char *name_or_path, const char *base,
	      struct tier *t, struct errbuf *eb);

/* nodes = ⌈ranks / gpus_per_node⌉; 0 for 0 ranks. */
unsigned long system_nodes(const struct system *s, unsigned long ranks);

/*
 * Check that a run of `ranks` ranks can be placed: more than one node needs
 * the inter tier and nics_per_node >= 1.  Returns 0 or -1 with
 * "file:line: nics_per_node is 0 but 16 ranks need 2 nodes of 8 GPUs".
 */
int system_check_ranks(const struct system *s, unsigned long ranks, struct errbuf *eb);

void system_release(struct system *s);

#endif
