/*
 * Node-limited routing and its two-hop all-to-all, as DeepSeek-V3 trains
 * (DeepSeek-AI 2024, arXiv:2412.19437, §3.2.2): a token reaches at most M
 * nodes; it crosses the network once to the GPU of the same index on each
 * node it reaches and is forwarded over NVLink to its experts' GPUs
 * there.  The combine runs the other way: the copies summed inside the
 * node, one value a token a node back over the network.  models/step-teams.md,
 * "Node-limited routing and the FP8 dispatch".
 */
#include <math.h>

#include "step.h"
#include "step_int.h"

double step_route_nodes_expected(double E, double k, double N, double M)
{
	double e, pool, miss = 1;
	int i;

	if (!(N >= 1) || !(E >= N) || !(k >= 1) || !(M >= 1))
		return NAN;
	if (M > N)
		M = N;
	e = E / N;
	pool = M * e;
	if (k > pool)
		return NAN;
	/* C(pool - e, k) / C(pool, k) as a product of k ratios */
	for (i = 0; i < (int)k && miss > 0; i++)
		miss *= fmax(0, pool - e - i) / (pool - i);
	return M * (1 - miss);
}

double step_route_row_nodes(const struct step_config *c, double E, double k,
			    unsigned long ranks, unsigned long per_node, double *N)
{
	*N = ceil((double)ranks / (double)per_node);
	return step_route_nodes_expected(E, k, *N, (double)c->route_nodes);
}

/*
 * Expected distinct GPUs a token's k experts sit on, among the GPUs of the
 * M nodes it reaches (the EP group's `ranks` GPUs, `per_node` a node, E/ranks
 * experts each): the formula above with a GPU for a node.
 */
static double S_route_gpus(const struct step_config *c, double E, double k, unsigned long ranks,
			   unsigned long per_node, double N)
{
	double g = fmin((double)c->route_nodes, N) * (double)per_node;

	return step_route_nodes_expected(g * E / (double)ranks, k, g, g);
}

/*
 * One all-to-all of `bytes` (one rank's copies, k a token) in an expert
 * group of `ranks`, `per_node` of them a node, under --moe-route-nodes:
 * the network leg an all-to-all among the nodes' GPUs of one index (one
 * a node, each sending D/k of the copies' bytes, D the expected distinct
 * nodes), the NVLink leg one among the node's GPUs of G/k of them, G the
 * expected distinct GPUs: DeepEP sends a token to a GPU once whatever
 * number of its experts sit there (deep_ep/buffers/legacy.py,
 * `is_token_in_rank`, "whether a token be sent to a rank"; the share
 * already on its GPU stays, as the pairwise price counts).  DeepEP runs
 * the two legs at once, chunk by chunk, so the slower one sets the time.
 * An EP group inside one node has the NVLink leg alone.
 */
int step_price_route(struct run *u, double bytes, unsigned long ranks,
		     unsigned long per_node, double *t, const char **tier, struct errbuf *eb)
{
	const struct step_config *c = u->c;
	double N, D = step_route_row_nodes(c, u->E, u->k, ranks, per_node, &N), t_ib, t_nv;
	const char *tier_ib, *tier_nv;

	if (N < 2)
		return step_price(u->prp, OP_ALLTOALL, ranks, per_node,
				  bytes * S_route_gpus(c, u->E, u->k, ranks, per_node, N) / u->k,
				  t, tier, NULL, eb);
	if (isnan(D))
		return errbuf_set(eb, "--moe-route-nodes %lu: those nodes hold %.15g experts, fewer "
				  "than the %.15g each token picks", c->route_nodes,
				  fmin((double)c->route_nodes, N) * u->E / N, u->k);
	if (step_price(u->prp, OP_ALLTOALL, (unsigned long)N, 1, bytes * D / u->k, &t_ib, &tier_ib,
		       NULL, eb) < 0 ||
	    step_price(u->prp, OP_ALLTOALL, per_node, per_node,
		       bytes * S_route_gpus(c, u->E, u->k, ranks, per_node, N) / u->k, &t_nv, &tier_nv,
		       NULL, eb) < 0)
		return -1;
	*t = fmax(t_ib, t_nv);
	*tier = t_ib >= t_nv ? tier_ib : tier_nv;
	return 0;
}
