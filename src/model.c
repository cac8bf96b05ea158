/*
 * The α-β(-γ) cost models of collective communication.
 * Derivations, assumptions and sources: models/allreduce.md.
 */
#include <math.h>
#include <string.h>

#include "model.h"

static const char *const algo_names[AR_COUNT] = {
	"ring", "tree", "dbtree", "rd", "rabenseifner"
};

const char *ar_algo_name(enum ar_algo a)
{
	return (unsigned)a < AR_COUNT ? algo_names[a] : "?";
}

int ar_algo_lookup(const char *name, enum ar_algo *a, struct errbuf *eb)
{
	int i;

	for (i = 0; i < AR_COUNT; i++)
		if (!strcmp(name, algo_names[i])) {
			*a = (enum ar_algo)i;
			return 0;
		}
	return errbuf_set(eb, "unknown algorithm '%s' (choose from ring, tree, "
			  "dbtree, rd, rabenseifner)", name);
}

int ar_algo_parse_list(const char *s, enum ar_algo *algos, struct errbuf *eb)
{
	char item[64];
	int n = 0, i;

	for (;;) {
		size_t len = strcspn(s, ",");
		enum ar_algo a = AR_RING;

		if (len == 0)
			return errbuf_set(eb, "empty algorithm name in '%s'", s);
		if (len >= sizeof(item))
			return errbuf_set(eb, "unknown algorithm '%.*s'", (int)len, s);
		memcpy(item, s, len);
		item[len] = '\0';
		if (ar_algo_lookup(item, &a, eb) < 0)
			return -1;
		for (i = 0; i < n; i++)
			if (algos[i] == a)
				return errbuf_set(eb, "algorithm '%s' given twice", item);
		algos[n++] = a;
		if (!s[len])
			return n;
		s += len + 1;
	}
}

unsigned ceil_log2(unsigned long n)
{
	unsigned k = 0;

	while (k < sizeof(n) * 8 && (1UL << k) < n)
		k++;
	return k;
}

unsigned floor_log2(unsigned long n)
{
	unsigned k = 0;

	while (n >>= 1)
		k++;
	return k;
}

/* 2(n-1)(α + S/(nβ)), plus the reduction of (n-1)/n of the buffer. */
static double ring(const struct link *l, double n, double S)
{
	return 2 * (n - 1) * (l->alpha + S / n / l->beta) + (n - 1) / n * S * l->gamma;
}

/*
 * The seed's binomial tree, not pipelined: a reduce up and a broadcast down,
 * ⌈log2 n⌉ steps each, every step carrying the whole buffer.
 */
static double tree(const struct link *l, unsigned long n, double S)
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
static double dbtree(const struct link *l, unsigned long n, double S)
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
static double rd(const struct link *l, unsigned long n, double S)
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
static double rabenseifner(const struct link *l, unsigned long n, double S)
{
	unsigned long p2 = 1UL << floor_log2(n);
	double k = floor_log2(n), f = (double)(p2 - 1) / (double)p2;
	int extra = p2 != n;

	return (2 * k + 2 * extra) * l->alpha + (2 * f + 2 * extra) * S / l->beta +
	       (f + extra) * S * l->gamma;
}

double ar_time(enum ar_algo a, const struct link *l, unsigned long ranks, double bytes)
{
	if (ranks <= 1)
		return 0;
	switch (a) {
	case AR_RING:
		return ring(l, (double)ranks, bytes);
	case AR_TREE:
		return tree(l, ranks, bytes);
	case AR_DBTREE:
		return dbtree(l, ranks, bytes);
	case AR_RD:
		return rd(l, ranks, bytes);
	case AR_RABENSEIFNER:
		return rabenseifner(l, ranks, bytes);
	default:
		return NAN;
	}
}

double rs_ring_time(const struct link *l, unsigned long ranks, double bytes)
{
	double n = (double)ranks;

	if (ranks <= 1)
		return 0;
	return (n - 1) * (l->alpha + bytes / n / l->beta) + (n - 1) / n * bytes * l->gamma;
}

double ag_ring_time(const struct link *l, unsigned long ranks, double bytes)
{
	double n = (double)ranks;

	if (ranks <= 1)
		return 0;
	return (n - 1) * (l->alpha + bytes / n / l->beta);
}

static const char *const op_names[OP_COUNT] = {
	"all_reduce", "all_gather", "reduce_scatter", "alltoall",
	"broadcast", "reduce", "sendrecv"
};

const char *coll_op_name(enum coll_op op)
{
	return (unsigned)op < OP_COUNT ? op_names[op] : "?";
}

/* Compare ignoring '_' and an optional "_perf" suffix: all_reduce = allreduce. */
static int same_op(const char *s, const char *name)
{
	for (;;) {
		while (*s == '_')
			s++;
		while (*name == '_')
			name++;
		if (!*name)
			return !*s || !strcmp(s, "perf");
		if (*s != *name)
			return 0;
		s++;
		name++;
	}
}

int coll_op_lookup(const char *name, enum coll_op *op, struct errbuf *eb)
{
	int i;

	for (i = 0; i < OP_COUNT; i++)
		if (same_op(name, op_names[i])) {
			*op = (enum coll_op)i;
			return 0;
		}
	if (same_op(name, "all_to_all")) {
		*op = OP_ALLTOALL;
		return 0;
	}
	return errbuf_set(eb, "unknown collective '%s' (choose from all_reduce, "
			  "all_gather, reduce_scatter, alltoall, broadcast, reduce, "
			  "sendrecv)", name);
}

double busbw_factor(enum coll_op op, unsigned long ranks)
{
	double n = (double)ranks;

	if (ranks == 0)
		return 0;
	switch (op) {
	case OP_ALLREDUCE:
		return 2 * (n - 1) / n;
	case OP_ALLGATHER:
	case OP_REDUCESCATTER:
	case OP_ALLTOALL:
		return (n - 1) / n;
	default:
		return 1;
	}
}
