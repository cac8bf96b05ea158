#ifndef COMMTIME_TUNER_H
#define COMMTIME_TUNER_H

#include <stdio.h>
#include "model.h"
#include "nccl_model.h"
#include "util.h"

/*
 * The configuration file of NCCL's example tuner plugin (NVIDIA/nccl
 * plugins/tuner/example, plugin.c and nccl_tuner.conf): one CSV line per
 * rule,
 *
 *   collective,minBytes,maxBytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff
 *
 * read with fgets into a 256-byte buffer, '#' lines and empty lines
 * skipped, fields split at commas and trimmed, 8 to 10 fields, the first
 * rule that matches (collective, minBytes <= nBytes <= maxBytes, nNodes
 * and nRanks equal or -1) applied.  nBytes is NCCL's size of the whole
 * buffer (enqueue.cc: elements × type size × ranks for all-gather and
 * reduce-scatter), nccl-tests' size column.  models/trace.md, "A tuner
 * file".
 */

/* One measured (or predicted) time of one algorithm and protocol. */
struct tuner_point {
	enum coll_op op;
	unsigned long ranks;
	long nodes;             /* -1: any */
	double size;            /* B, nccl-tests' size */
	double time;            /* s */
	enum nccl_algo algo;
	enum nccl_proto proto;
	int src;                /* index of the source (a log) */
	int line;               /* its line, 0 none */
};

/* One rule: a size range and the fastest there. */
struct tuner_range {
	enum coll_op op;
	unsigned long ranks;
	long nodes;
	double min_B, max_B;    /* the rule's bounds */
	double first, last;     /* the first and last measured size it covers */
	enum nccl_algo algo;
	enum nccl_proto proto;
	int src;
	int sizes;              /* measured sizes it covers */
	double margin;          /* smallest ratio runner-up / fastest time over them (NaN: alone) */
};

/* "allreduce", "allgather", "reducescatter", "broadcast", "reduce"; NULL for the others. */
const char *tuner_coll_name(enum coll_op op);
/* "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat". */
const char *tuner_algo_name(enum nccl_algo a);
/* "ll", "ll128", "simple". */
const char *tuner_proto_name(enum nccl_proto p);

/*
 * The rules from n points: per (op, ranks, nodes) and measured size the
 * fastest algorithm and protocol, then adjacent sizes with the same
 * choice joined; a rule ends halfway (geometric mean) to the next
 * measured size of another choice, the first starts at 0 and the last
 * ends at the largest size measured (beyond it NCCL's own choice holds).
 * *out is allocated (free it).  Returns the count, or -1 with eb (an
 * operation the plugin has no name for).
 */
int tuner_choose(const struct tuner_point *p, size_t n, struct tuner_range **out,
		 struct errbuf *eb);

/* The CSV line of a rule into buf (cap >= 256); its length, < 256. */
int tuner_format(const struct tuner_range *r, char *buf, size_t cap);

/*
 * Check one line as the example plugin reads it: skipped ('#', empty) is
 * 0, a rule it loads is 1, and -1 with eb why it would not (a line of 256
 * bytes or more, which fgets splits; fewer than 8 or more than 10 fields;
 * an unknown collective, algorithm or protocol, which it maps to -1; a
 * bound that is not a whole number, or minBytes > maxBytes).
 */
int tuner_check_line(const char *line, struct errbuf *eb);

#endif
