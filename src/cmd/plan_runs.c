/*
 * The nccl-tests command lines of commtime plan: the -b -e -f arguments
 * that run exactly the sizes asked for, NCCL_ALGO/NCCL_PROTO, one node
 * or mpirun.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"

/* A size as nccl-tests takes it on its command line: 8, 64K, 8G. */
static void nccl_size(char *buf, size_t len, double bytes)
{
	static const char suffix[] = "KMGT";
	int k = -1;

	while (k < 3 && bytes >= 1024 && fmod(bytes, 1024) == 0) {
		bytes /= 1024;
		k++;
	}
	if (k < 0)
		snprintf(buf, len, "%.0f", bytes);
	else
		snprintf(buf, len, "%.0f%c", bytes, suffix[k]);
}

/*
 * -f F when each size is the first times a power of F (the largest such
 * F, so the run does not measure more than it must); 0 when there is none.
 */
static int sweep_factor(char *arg, const struct dlist *sizes, const char *b, const char *e)
{
	double b0 = sizes->v[0];
	size_t i;
	int k;

	/* F is a root of the first ratio: try the largest first */
	for (k = 1; k <= 64 && b0 > 0; k++) {
		double f = nearbyint(pow(sizes->v[1] / b0, 1.0 / k));

		if (f < 2)
			break;
		if (fabs(pow(f, k) * b0 - sizes->v[1]) > 1e-6 * sizes->v[1])
			continue;
		for (i = 2; i < sizes->n; i++) {
			double x = log(sizes->v[i] / b0) / log(f);

			if (fabs(x - nearbyint(x)) > 1e-9 ||
			    fabs(b0 * pow(f, nearbyint(x)) - sizes->v[i]) > 1e-6 * sizes->v[i])
				break;
		}
		if (i == sizes->n) {
			snprintf(arg, 128, "-b %s -e %s -f %.0f", b, e, f);
			return 1;
		}
	}
	return 0;
}

/*
 * The -b -e -f (or -i) arguments of an nccl-tests sweep that runs every
 * size of the list: -f F (sweep_factor), -i STEP when the sizes are the
 * first plus multiples of STEP, else the sizes apart, one run each (-b S
 * -e S).  Returns the number of runs written into args[] (at most max).
 */
static size_t sweep_args(char args[][128], size_t max, const struct dlist *sizes)
{
	double b0 = sizes->v[0], e0 = sizes->v[sizes->n - 1], step = 0;
	char b[32], e[32], st[32];
	size_t i, n = 0;

	nccl_size(b, sizeof(b), b0);
	nccl_size(e, sizeof(e), e0);
	if (sizes->n == 1) {
		snprintf(args[0], 128, "-b %s -e %s", b, e);
		return 1;
	}
	if (sweep_factor(args[0], sizes, b, e))
		return 1;
	/* arithmetic: the greatest common step of the differences */
	for (i = 1; i < sizes->n; i++) {
		double d = sizes->v[i] - b0, a = step, c = d;

		while (c > 0.5) {
			double t = fmod(a, c);

			a = c;
			c = t;
		}
		step = i == 1 ? d : a;
	}
	if (step >= 1 && (e0 - b0) / step <= 1024) {
		nccl_size(st, sizeof(st), step);
		snprintf(args[0], 128, "-b %s -e %s -i %s", b, e, st);
		return 1;
	}
	for (i = 0; i < sizes->n && n < max; i++) {
		nccl_size(b, sizeof(b), sizes->v[i]);
		snprintf(args[n++], 128, "-b %s -e %s", b, b);
	}
	return n;
}

/* NCCL_ALGO's spelling of an algorithm of NCCL's model, or NULL. */
static const char *nccl_algo_env(enum coll_algo a)
{
	switch (a) {
	case ALGO_RING: return "Ring";
	case ALGO_TREE: return "Tree";
	case ALGO_NVLS: return "NVLS";
	case ALGO_NVLSTREE: return "NVLSTree";
	case ALGO_COLLNET: return "CollNetDirect,CollNetChain";   /* init.cc:53: no "CollNet" */
	case ALGO_PAT: return "PAT";
	default: return NULL;
	}
}

/* The environment of a run: NCCL_ALGO, NCCL_PROTO, as "NAME=V " words. */
static void run_env(const struct planner *pl, char *env, size_t len, enum coll_op op,
		    enum coll_algo algo)
{
	const struct ctx *ctx = pl->ctx;
	const char *name = NULL;
	size_t l;

	env[0] = '\0';
	if (!ctx->machine.have_system) {
		/* The seed's names: dbtree and tree are both NCCL's Tree here. */
		if (op == OP_ALLREDUCE && algo != ALGO_AUTO)
			snprintf(env, len, "%s", algo == ALGO_RING ? "NCCL_ALGO=Ring " :
				 algo == ALGO_DBTREE || algo == ALGO_TREE ? "NCCL_ALGO=Tree " : "");
		return;
	}
	if (ctx->machine.model.kind == COST_NCCL)
		name = nccl_algo_env(algo);
	if (name)
		snprintf(env, len, "NCCL_ALGO=%s ", name);
	else if (ctx->machine.nccl_algo)
		snprintf(env, len, "NCCL_ALGO=%s ", ctx->machine.nccl_algo);
	l = strlen(env);
	if (global_args.proto)
		snprintf(env + l, len - l, "NCCL_PROTO=%s ", global_args.proto);
	/* CollNet runs only when asked for (NCCL_COLLNET_ENABLE, init.cc:63) */
	l = strlen(env);
	if (ctx->machine.model.kind == COST_NCCL && ctx->machine.system.collnet)
		snprintf(env + l, len - l, "NCCL_COLLNET_ENABLE=1 ");
}

void plan_run_line(const struct planner *pl, char *buf, size_t len, enum coll_op op,
		   enum coll_algo algo, unsigned long ranks, const struct dlist *sizes)
{
	char args[8][128], env[2 * NCCL_LIST_MAX + 64];
	size_t i, n = sweep_args(args, 8, sizes);
	/* One process with -g N on one node; MPI beyond (8 GPUs a node on a link). */
	unsigned long node = pl->ctx->machine.have_system ? pl->ctx->machine.system.gpus_per_node : 8;

	run_env(pl, env, sizeof(env), op, algo);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		size_t l = strlen(buf);

		if (ranks <= node)
			snprintf(buf + l, len - l, "%s%s%s_perf %s -g %lu", i ? "; " : "", env,
				 coll_op_name(op), args[i], ranks);
		else
			snprintf(buf + l, len - l, "%s%smpirun -np %lu %s_perf %s -g 1", i ? "; " : "",
				 env, ranks, coll_op_name(op), args[i]);
	}
	if (n == 8 && sizes->n > 8)
		snprintf(buf + strlen(buf), len - strlen(buf), "; ... (one run a size)");
}
