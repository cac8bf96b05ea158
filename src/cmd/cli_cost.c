/*
 * What commands ask the cost model beyond a time: NCCL's choice explained
 * for one call.
 */

#include "cli.h"
#include "errband.h"

/*
 * What NCCL's model does for one call, as text: the pair it chooses, the
 * runners-up, and every term of the chosen pair with its source in NCCL
 * 2.30.7 (models/nccl.md).  Only for --model nccl and the collectives NCCL
 * tunes (not all-to-all and send/recv, which the tier model answers).
 */
void ctx_explain(const struct ctx *ctx, struct out *o, enum coll_op op, enum coll_algo algo,
		 unsigned long ranks, double bytes)
{
	struct group g = { ranks, 0 };
	struct nccl_cost masked = ctx->nccl;
	struct nccl_tune t;
	struct nccl_choice c[6];
	struct nccl_term terms[48];
	struct errbuf eb;
	char sz[32], tm[32], bw[32], only[48] = "";
	int f = nccl_func_of(op), k, n, i;
	const struct errband *eband;

	units_fmt_size(sz, sizeof(sz), bytes);
	if (ctx->model.kind != COST_NCCL) {
		out_text(o, "explain: %s of %s on %lu ranks: the %s model has no protocols to explain",
			 coll_op_name(op), sz, ranks, cost_kind_name(ctx->model.kind));
		return;
	}
	if (f < 0) {
		out_text(o, "explain: %s of %s on %lu ranks: NCCL runs it as point-to-point "
			 "transfers, outside its tuning model; the tier model answers",
			 coll_op_name(op), sz, ranks);
		return;
	}
	masked.algo_mask &= nccl_algo_bits(algo);
	if (algo != ALGO_AUTO)
		snprintf(only, sizeof(only), ", --algo %s", coll_algo_name(algo));
	if (nccl_cost_tune(&masked, &g, &t, &eb) < 0)
		die("%s", eb.msg);
	k = nccl_rank(&t, &ctx->nccl.params, f, bytes, c, 6);
	if (k == 0) {
		out_text(o, "explain: %s of %s on %lu ranks%s: no algorithm and protocol is left",
			 coll_op_name(op), sz, ranks, only);
		return;
	}
	units_fmt_time(tm, sizeof(tm), c[0].time_s, 4);
	out_text(o, "explain: %s of %s on %lu ranks (%d node%s%s): NCCL chooses %s/%s, %s",
		 coll_op_name(op), sz, ranks, t.nodes, t.nodes == 1 ? "" : "s", only,
		 nccl_algo_name(c[0].algo), nccl_proto_name(c[0].proto), tm);
	n = nccl_terms(&t, &ctx->nccl.params, f, c[0].algo, c[0].proto, bytes, terms, 48);
	for (i = 0; i < n; i++)
		out_text(o, "  %-36s %10.4g %-5s %s", terms[i].name, terms[i].value,
			 terms[i].unit, terms[i].source);
	for (i = 1; i < k; i++) {
		units_fmt_time(tm, sizeof(tm), c[i].time_s, 4);
		units_fmt_rate(bw, sizeof(bw), c[i].bw_Bps, 4);
		out_text(o, "  runner-up %-9s %-6s %s (latency %.2f us, bandwidth %s)",
			 nccl_algo_name(c[i].algo), nccl_proto_name(c[i].proto), tm,
			 c[i].lat_s * 1e6, bw);
	}
	eband = ctx_errband(ctx, op, ranks, bytes);
	if (eband)
		out_text(o, "  stated error: a run measures %.3g to %.3g times the table's time "
			 "(%s, %s: %u sizes of %u public logs; models/nccl.md)", eband->lo, eband->hi,
			 errband_scope_name(errband_scope_of((unsigned long)t.nodes)),
			 errband_size_name(errband_size_of(bytes)), eband->sizes, eband->logs);
}
