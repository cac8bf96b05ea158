/*
 * What commands ask the cost model beyond a time: NCCL's choice explained
 * for one call.
 */

#include <math.h>
#include <stdio.h>

#include "cli.h"
#include "errband.h"

/*
 * What the cost model does for one call (cost_explain), as text: the
 * pair NCCL's model chooses, the runners-up, and every term of the chosen
 * pair with its source in NCCL 2.30.7 (models/nccl.md).  The α-β models
 * and the collectives NCCL does not tune (all-to-all and send/recv, which
 * the tier model answers) say why there is nothing to explain.
 */
void ctx_explain(const struct ctx *ctx, struct out *o, enum coll_op op, enum coll_algo algo,
		 unsigned long ranks, double bytes)
{
	struct group g = { ranks, 0 };
	struct cost_explain x;
	const struct coll_cost *c0;
	struct errbuf eb;
	char sz[32], tm[32], bw[32], only[48] = "";
	int i;
	const struct errband *eband;

	units_fmt_size(sz, sizeof(sz), bytes);
	if (ctx->machine.model.kind != COST_NCCL) {
		out_text(o, "explain: %s of %s on %lu ranks: the %s model has no protocols to explain",
			 coll_op_name(op), sz, ranks, cost_kind_name(ctx->machine.model.kind));
		return;
	}
	if (algo != ALGO_AUTO)
		snprintf(only, sizeof(only), ", --algo %s", coll_algo_name(algo));
	if (cost_explain(&ctx->machine.model, op, algo, &g, bytes, &x, &eb) < 0)
		die("%s", eb.msg);
	if (x.note) {
		out_text(o, "explain: %s of %s on %lu ranks: %s", coll_op_name(op), sz, ranks, x.note);
		return;
	}
	if (x.n == 0) {
		out_text(o, "explain: %s of %s on %lu ranks%s: no algorithm and protocol is left",
			 coll_op_name(op), sz, ranks, only);
		return;
	}
	c0 = &x.cand[0].cost;
	units_fmt_time(tm, sizeof(tm), c0->time_s, 4);
	out_text(o, "explain: %s of %s on %lu ranks (%lu node%s%s): NCCL chooses %s/%s, %s",
		 coll_op_name(op), sz, ranks, c0->nodes, c0->nodes == 1 ? "" : "s", only,
		 coll_algo_name(c0->algo), coll_proto_name(c0->proto), tm);
	for (i = 0; i < x.nterms; i++)
		out_text(o, "  %-36s %10.4g %-5s %s", x.term[i].name, x.term[i].value,
			 x.term[i].unit, x.term[i].source);
	/* the five NCCL would try next, each at its run time as the table's */
	for (i = 1; i < x.n && i < 6; i++) {
		const struct cost_candidate *r = &x.cand[i];

		units_fmt_time(tm, sizeof(tm), r->cost.time_s, 4);
		units_fmt_rate(bw, sizeof(bw), r->bw_Bps, 4);
		out_text(o, "  runner-up %-9s %-6s %s (latency %.2f us, bandwidth %s)",
			 coll_algo_name(r->cost.algo), coll_proto_name(r->cost.proto), tm,
			 r->cost.latency_s * 1e6, bw);
	}
	eband = ctx_errband(ctx, op, ranks, bytes);
	if (eband)
		out_text(o, "  stated error: a run measures %.3g to %.3g times the table's time "
			 "(%s, %s: %u sizes of %u public logs; models/nccl-accuracy.md)", eband->lo, eband->hi,
			 errband_scope_name((enum errband_scope)errband_scope_at(errband_table,
										c0->nodes, bytes)),
			 errband_size_name(errband_size_of(bytes)), eband->sizes, eband->logs);
}

double ctx_link_n_half(const struct ctx *ctx)
{
	struct cost_model link;
	struct group g = { .ranks = 2 };
	struct errbuf eb;
	double nh;

	cost_model_link(&link, &ctx->machine.model.link);
	return cost_coll_n_half(&link, OP_SENDRECV, ALGO_P2P, &g, &nh, &eb) < 0 ? NAN : nh;
}
