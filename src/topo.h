#ifndef COMMTIME_TOPO_H
#define COMMTIME_TOPO_H

/*
 * The inside of one node as a topology file describes it: the matrix that
 * `nvidia-smi topo -m` prints, or the XML that NCCL writes when
 * NCCL_TOPO_DUMP_FILE is set (and that clouds ship for their VMs), told
 * apart by content.  What it gives: the GPUs, the NVLinks between each
 * pair (or to NVSwitches), the PCIe path between GPUs and from each GPU to
 * its nearest NIC, the NICs, the NUMA node of each GPU.  What a file does
 * not say stays unknown (a cloud XML carries PCIe only).  models/system.md,
 * "Topology files".
 */
#include <stddef.h>

#include "util.h"

#define TOPO_MAX_GPUS 32       /* GPUs of one node */
#define TOPO_MAX_NICS 64       /* NIC ports of one node */
#define TOPO_FILE_MAX (1u << 20)   /* bytes of a topology file */
#define TOPO_LINE_MAX 4096     /* bytes of one line of a matrix */

enum topo_format { TOPO_SMI, TOPO_XML };

/* A PCIe path as nvidia-smi names it; TOPO_PATH_NONE: not known. */
enum topo_path {
	TOPO_PATH_NONE = -1,
	TOPO_PATH_PIX, TOPO_PATH_PXB, TOPO_PATH_PHB, TOPO_PATH_NODE, TOPO_PATH_SYS,
	TOPO_PATH_COUNT
};
const char *topo_path_name(enum topo_path p);   /* "pix", ..., "?" */

struct topo {
	enum topo_format format;
	int gpus;                                  /* GPUs of the node (>= 1) */
	int nics;                                  /* NIC ports (0: none listed) */
	unsigned char nvl[TOPO_MAX_GPUS][TOPO_MAX_GPUS];  /* NVLinks from GPU i to GPU j */
	unsigned char nvs[TOPO_MAX_GPUS];          /* NVLinks from GPU i to NVSwitches (XML) */
	signed char gpu_path[TOPO_MAX_GPUS][TOPO_MAX_GPUS];  /* PCIe path i-j, TOPO_PATH_NONE unknown */
	signed char nic_path[TOPO_MAX_GPUS];       /* GPU i to its nearest NIC, TOPO_PATH_NONE unknown */
	int numa[TOPO_MAX_GPUS];                   /* NUMA node of GPU i, -1 unknown */
	int sm;                                    /* compute capability × 10 (XML), 0 unknown */
	int cpu_vendor;                            /* XML: 0 intel, 1 amd, 2 arm; -1 unknown */
	double nic_speed_Bps;                      /* XML: speed of the first NIC port, 0 unknown */
	int legend;                                /* smi: the legend was present */
	int ignored_links;                         /* XML: NVLinks to itself or to a CPU, left out */
};

/*
 * Read a topology file (at most TOPO_FILE_MAX bytes).  Returns 0, or -1
 * with "file:line: ..." in eb.
 */
int topo_read(const char *path, struct topo *t, struct errbuf *eb);

/*
 * The nvidia-smi matrix alone, into t as topo_parse() initialised it for
 * TOPO_SMI (topo_parse tells the two formats apart and calls it).
 */
int topo_parse_smi(const char *buf, size_t len, const char *file, struct topo *t,
		   struct errbuf *eb);

/* The same from a buffer of len bytes; name is used in messages. */
int topo_parse(const char *buf, size_t len, const char *name, struct topo *t,
	       struct errbuf *eb);

/* NVLinks of GPU g: to its peers and to switches. */
int topo_nvlinks(const struct topo *t, int g);

/*
 * Whether the GPUs' NVLinks go through NVSwitches: an XML says so (links
 * to a switch); a matrix shows every NVLinked pair with NV#, which for a
 * switch counts the links of the whole GPU, so the links of one GPU adding
 * up to more than it has (links_per_gpu, 0 when unknown: more than 18, the
 * most any GPU has) mean a switch.  -1 when the node has no NVLink.
 */
int topo_nvswitch(const struct topo *t, int links_per_gpu);

/* The widest PCIe path between two GPUs that the file gives (NONE: none). */
enum topo_path topo_widest_gpu_path(const struct topo *t);
/* The widest of the GPUs' paths to their nearest NIC (NONE: none). */
enum topo_path topo_widest_nic_path(const struct topo *t);

#endif
