#ifndef COMMTIME_NCCL_SEARCH_H
#define COMMTIME_NCCL_SEARCH_H

/*
 * NCCL's channel search replayed on one node's direct NVLink graph
 * (src/nccl_search.c; src/graph/search.cc of NCCL 2.30.7): the patterns,
 * what the search leaves for one of them, and the search itself.
 * models/nccl.md, "Channels on NVLink without a switch".
 */

#include "nccl_model.h"

/* NCCL's search patterns (src/include/graph.h). */
enum { NCCL_PATTERN_BALANCED_TREE = 1, NCCL_PATTERN_SPLIT_TREE = 2, NCCL_PATTERN_TREE = 3,
       NCCL_PATTERN_RING = 4 };

/* What ncclTopoCompute leaves for one pattern inside one node. */
struct nccl_found {
	int nchannels;
	double bw_intra, bw_inter;   /* GB/s per channel */
	int type_intra;              /* NCCL's path type the channels were found on (1 NVL, 2 NVB, ...) */
	int pattern;                 /* the pattern found (a balanced tree may become a tree) */
	int order[32][NCCL_MAX_LOCAL];  /* GPUs of each channel, in order */
	long steps;                  /* search steps taken (for the record) */
};

/*
 * NCCL's graph search (src/graph/search.cc ncclTopoCompute, one node, no
 * network) replayed on m's direct NVLink graph (m->mesh): the speeds tried,
 * the depth-first search for channel after channel with its time limits,
 * the same channels first, then any, the path types NVL, NVB, PCIe in
 * turn, the duplication and the second pass.  pattern is a
 * NCCL_PATTERN_*; min_ch and max_ch as NCCL sets them (init.cc:1175-1186:
 * ring 1 and 32, tree the ring's channels).  Returns 0, or -1 when m is
 * not a mesh NCCL's search can be replayed on.  The last few searches are
 * remembered: the same arguments again give what was found, at once.
 */
int nccl_search_node(const struct nccl_machine *m, int pattern, int min_ch, int max_ch,
		     struct nccl_found *f);

#endif
