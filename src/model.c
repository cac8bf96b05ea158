/*
 * Names of the collectives and algorithms, and nccl-tests' bus bandwidth.
 * The formulas themselves are in cost.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

static const char *const algo_names[ALGO_COUNT] = {
	[ALGO_RING] = "ring", [ALGO_TREE] = "tree", [ALGO_DBTREE] = "dbtree",
	[ALGO_RD] = "rd", [ALGO_RABENSEIFNER] = "rabenseifner",
	[ALGO_PAIRWISE] = "pairwise", [ALGO_P2P] = "p2p", [ALGO_HIER] = "hier",
	[ALGO_NVLS] = "nvls", [ALGO_NVLSTREE] = "nvlstree", [ALGO_COLLNET] = "collnet",
	[ALGO_PAT] = "pat", [ALGO_HIERHD] = "hierhd",
};

const char *coll_algo_name(enum coll_algo a)
{
	return (unsigned)a < ALGO_COUNT ? algo_names[a] : "?";
}

int ar_algo_lookup(const char *name, enum coll_algo *a, struct errbuf *eb)
{
	int i;

	for (i = 0; i < ALGO_LINK_AR_COUNT; i++)
		if (!strcmp(name, algo_names[i])) {
			*a = (enum coll_algo)i;
			return 0;
		}
	return errbuf_set(eb, "unknown algorithm '%s' (choose from ring, tree, "
			  "dbtree, rd, rabenseifner)", name);
}

int coll_algo_lookup(const char *name, enum coll_algo *a, struct errbuf *eb)
{
	char list[160];
	size_t n = 0;
	int i;

	for (i = 0; i < ALGO_COUNT; i++)
		if (!strcmp(name, algo_names[i])) {
			*a = (enum coll_algo)i;
			return 0;
		}
	list[0] = '\0';
	for (i = 0; i < ALGO_COUNT && n < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      algo_names[i]);
	return errbuf_set(eb, "unknown algorithm '%s' (choose from %s)", name, list);
}

int algo_parse_list(const char *s, algo_lookup_fn *lookup, const void *arg,
		    enum coll_algo *algos, struct errbuf *eb)
{
	char item[64];
	int n = 0, i;

	for (;;) {
		size_t len = strcspn(s, ",");
		enum coll_algo a = ALGO_RING;

		if (len == 0)
			return errbuf_set(eb, "empty algorithm name in '%s'", s);
		if (len >= sizeof(item))
			return errbuf_set(eb, "unknown algorithm '%.*s'", (int)len, s);
		memcpy(item, s, len);
		item[len] = '\0';
		if (lookup(arg, item, &a, eb) < 0)
			return -1;
		for (i = 0; i < n; i++)
			if (algos[i] == a)
				return errbuf_set(eb, "algorithm '%s' given twice", item);
		if (n >= ALGO_COUNT)
			return errbuf_set(eb, "too many algorithms in '%s'", s);
		algos[n++] = a;
		if (!s[len])
			return n;
		s += len + 1;
	}
}

static int S_ar_lookup(const void *arg, const char *name, enum coll_algo *a, struct errbuf *eb)
{
	(void)arg;
	return ar_algo_lookup(name, a, eb);
}

int ar_algo_parse_list(const char *s, enum coll_algo *algos, struct errbuf *eb)
{
	return algo_parse_list(s, S_ar_lookup, NULL, algos, eb);
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

static const char *const op_names[OP_COUNT] = {
	"all_reduce", "all_gather", "reduce_scatter", "alltoall",
	"broadcast", "reduce", "sendrecv"
};

const char *coll_op_name(enum coll_op op)
{
	return (unsigned)op < OP_COUNT ? op_names[op] : "?";
}

/*
 * Compare ignoring '_' and an optional "_perf" suffix, or "_perf_mpi" (the
 * name nccl-tests gives its binaries when built with MPI=1): all_reduce =
 * allreduce = all_reduce_perf_mpi.
 */
static int same_op(const char *s, const char *name)
{
	for (;;) {
		while (*s == '_')
			s++;
		while (*name == '_')
			name++;
		if (!*name)
			return !*s || !strcmp(s, "perf") || !strcmp(s, "perf_mpi");
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
