/*
 * commtime tuner: the configuration file of NCCL's example tuner plugin,
 * from nccl-tests logs run with NCCL_ALGO or NCCL_PROTO (the fastest
 * measured per size range) or from a system's model (models/trace.md,
 * "A tuner file").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "measfile.h"
#include "nccl_cost.h"
#include "outfile.h"
#include "tuner.h"

static const char *const usage_lines[] = {
	"commtime [--system S] tuner [ALGO/PROTO=]LOG... [-o nccl_tuner.conf]",
	"commtime --system S tuner --ranks N [--op LIST] [--sizes LIST]",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "tuner",
	.lines = usage_lines,
	.about = "Writes the CSV that NCCL's example tuner plugin reads (NCCL_TUNER_CONFIG_FILE;\n"
		 "plugins/tuner/example): collective,minBytes,maxBytes,algorithm,protocol,\n"
		 "channels,nNodes,nRanks,numPipeOps,regBuff, one line per size range, choosing\n"
		 "per measured size the algorithm and protocol that were fastest.  Each log is\n"
		 "one run with NCCL_ALGO and/or NCCL_PROTO set: say which with ALGO/PROTO=LOG\n"
		 "(ring/ll128=ring.txt, tree=tree.txt, /simple=simple.txt), or let the log say\n"
		 "it (NCCL_DEBUG=INFO prints 'NCCL_ALGO set by environment to ...').  What a\n"
		 "run left to NCCL (the protocol of an NCCL_ALGO run) is what the system's\n"
		 "model (--system) chooses there, and the comment says so.  Without logs, on a\n"
		 "system, the rules are the model's own choices.  A comment above each rule\n"
		 "says where it comes from.\n",
	.footer = "Sizes are nccl-tests' size column, NCCL's nBytes (the whole buffer of an\n"
		  "all-gather or reduce-scatter).  The first rule starts at 0 B and the last\n"
		  "ends at the largest size measured; between two measured sizes of different\n"
		  "choices the rule changes halfway (geometric mean).\n",
};

struct src {
	const char *path;
	int algo, proto;             /* enum nccl_algo / nccl_proto, -1: left to NCCL */
	const char *algo_from, *proto_from;
};

/* "ring/ll128=FILE", "tree=FILE", "/simple=FILE", or FILE. */
static void S_source(const char *arg, struct src *s)
{
	const char *eq = strchr(arg, '=');
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->path = arg;
	s->algo = s->proto = -1;
	if (!eq || ((f = fopen(arg, "r")) != NULL && (fclose(f), 1)))
		return;
	{
		const char *sl = memchr(arg, '/', (size_t)(eq - arg));
		size_t na = sl ? (size_t)(sl - arg) : (size_t)(eq - arg);

		if (na > 0) {
			s->algo = nccl_algo_lookup(arg, na);
			if (s->algo < 0)
				die_usage("tuner: '%.*s' in '%s' is not an NCCL algorithm (ring, tree, "
					  "nvls, nvlstree, collnetdirect, collnetchain, pat)", (int)na, arg, arg);
			s->algo_from = "given";
		}
		if (sl && sl + 1 < eq) {
			s->proto = nccl_proto_lookup(sl + 1, (size_t)(eq - sl - 1));
			if (s->proto < 0)
				die_usage("tuner: '%.*s' in '%s' is not an NCCL protocol (ll, ll128, simple)",
					  (int)(eq - sl - 1), sl + 1, arg);
			s->proto_from = "given";
		}
		s->path = eq + 1;
	}
}

/* The one algorithm (or protocol) a log's NCCL_ALGO (NCCL_PROTO) names, or -1. */
static int S_one(const char *list, int (*lookup)(const char *, size_t))
{
	if (!list[0] || strchr(list, ',') || list[0] == '^')
		return -1;
	return lookup(list, strlen(list));
}

/* The model's choice with a log's restriction: the algorithm or protocol left to NCCL. */
static int S_model(const struct ctx *ctx, const struct src *s, enum coll_op op,
		   unsigned long ranks, double size, int *algo, int *proto)
{
	struct nccl_cost nc;
	struct cost_model cm;
	struct coll_cost cc;
	struct group g = { .ranks = ranks, .per_node = 0 };
	struct errbuf eb;
	unsigned am = s->algo >= 0 ? 1u << s->algo : ~0u, pm = s->proto >= 0 ? 1u << s->proto : ~0u;
	int a;

	if (!ctx->machine.have_system || ctx->machine.model.kind != COST_NCCL)
		return -1;
	if (nccl_cost_init(&nc, &cm, &ctx->machine.system, am, pm, &eb) < 0 ||
	    cost_coll(&cm, op, ALGO_AUTO, &g, size, &cc, &eb) < 0)
		die("tuner: %s: %s", s->path, eb.msg);
	*proto = (int)cc.proto;
	for (a = 0; a < NCCL_NALGO; a++)
		if (nccl_algo_bits(cc.algo) & am & (1u << a))
			break;
	*algo = a < NCCL_NALGO ? a : s->algo;
	return 0;
}

/* The points the rules are chosen from: (collective, ranks, size) and its time. */
struct points {
	struct tuner_point *v;
	size_t n, alloc;
};

static void S_push(struct points *p, struct tuner_point t)
{
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? 2 * p->alloc : 256;
		p->v = xrealloc(p->v, p->alloc * sizeof(*p->v));
	}
	p->v[p->n++] = t;
}

/* Without logs: the model's choice for each collective of ops at each size. */
static void S_from_model(const struct ctx *ctx, unsigned long ranks, const char *ops,
			 const char *sizes, struct points *p)
{
	struct dlist sl = { NULL, 0, 0 };
	const char *opl = ops ? ops : "all_reduce,all_gather,reduce_scatter";
	char *copy = xstrdup(opl), *tok, *save = NULL;
	struct errbuf eb;

	if (!ctx->machine.have_system || ctx->machine.model.kind != COST_NCCL)
		die_usage("tuner: give nccl-tests logs, or --system S (NCCL's model) and --ranks N");
	if (!ranks)
		die_usage("tuner: the model's rules need --ranks N");
	opt_list("--sizes", Q_SIZE, sizes ? sizes : "8:8G:x2", &sl);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum coll_op op;
		size_t k;

		if (coll_op_lookup(tok, &op, &eb) < 0)
			die_usage("--op: %s", eb.msg);
		if (!tuner_coll_name(op))
			die_usage("--op: the example tuner plugin does not tune %s", coll_op_name(op));
		for (k = 0; k < sl.n; k++) {
			struct coll_cost cc;
			struct group g = { .ranks = ranks, .per_node = 0 };
			int a;

			if (cost_coll(&ctx->machine.model, op, ALGO_AUTO, &g, sl.v[k], &cc, &eb) < 0)
				die("tuner: %s", eb.msg);
			for (a = 0; a < NCCL_NALGO; a++)
				if (nccl_algo_bits(cc.algo) & (1u << a))
					break;
			S_push(p, (struct tuner_point){
				.op = op, .ranks = ranks,
				.nodes = (long)((ranks + ctx->machine.system.gpus_per_node - 1) /
						ctx->machine.system.gpus_per_node),
				.size = sl.v[k], .time = cc.time_s, .algo = (enum nccl_algo)a,
				.proto = (enum nccl_proto)cc.proto, .src = 0 });
		}
	}
	free(copy);
	dlist_release(&sl);
}

/* The points of log i, as given by arg ([ALGO/PROTO=]LOG); s says what it ran with. */
static void S_from_log(const struct ctx *ctx, const char *arg, int i, struct src *s,
		       struct points *p)
{
	struct errbuf eb;
	struct meas m;
	size_t k;

	S_source(arg, s);
	meas_init(&m, s->path);
	if (meas_load_file(s->path, &m, &eb) < 0 || meas_select(&m, OP_COUNT, 0, &eb) < 0)
		die("%s", eb.msg);
	if (m.op < 0)
		die("%s: cannot tell which collective was measured", s->path);
	if (!m.ranks)
		die("%s: cannot tell the rank count", s->path);
	if (!tuner_coll_name((enum coll_op)m.op))
		die("%s: the example tuner plugin does not tune %s", s->path,
		    coll_op_name((enum coll_op)m.op));
	if (s->algo < 0 && (s->algo = S_one(m.nccl_algo, nccl_algo_lookup)) >= 0)
		s->algo_from = "the log's NCCL_ALGO";
	if (s->proto < 0 && (s->proto = S_one(m.nccl_proto, nccl_proto_lookup)) >= 0)
		s->proto_from = "the log's NCCL_PROTO";
	if (s->algo < 0 && s->proto < 0)
		die_usage("tuner: %s: which NCCL_ALGO or NCCL_PROTO did it run with? write "
			  "ALGO/PROTO=%s (ring/ll128=, tree=, /simple=)", s->path, s->path);
	if ((s->algo < 0 || s->proto < 0) && (!ctx->machine.have_system || ctx->machine.model.kind != COST_NCCL))
		die_usage("tuner: %s ran with only the %s set; give both (ALGO/PROTO=%s) or "
			  "--system S, whose model then chooses the %s", s->path,
			  s->algo >= 0 ? "algorithm" : "protocol", s->path,
			  s->algo >= 0 ? "protocol" : "algorithm");
	for (k = 0; k < m.n; k++) {
		int a = s->algo, pr = s->proto;

		if ((a < 0 || pr < 0) && S_model(ctx, s, (enum coll_op)m.op, m.ranks, m.rows[k].size,
						 &a, &pr) < 0)
			die("tuner: no model");
		S_push(p, (struct tuner_point){
			.op = (enum coll_op)m.op, .ranks = m.ranks,
			.nodes = ctx->machine.have_system ? (long)((m.ranks + ctx->machine.system.gpus_per_node - 1) /
							  ctx->machine.system.gpus_per_node) : -1,
			.size = m.rows[k].size, .time = m.rows[k].time, .algo = (enum nccl_algo)a,
			.proto = (enum nccl_proto)pr, .src = i, .line = m.rows[k].line });
	}
	meas_release(&m);
}

/* The file's head: its columns and where its rules come from. */
static void S_write_head(FILE *f, const struct ctx *ctx, const struct src *srcs, int nlog,
			 int from_model)
{
	int i;

	fprintf(f, "# NCCL tuner configuration for the example plugin (NCCL_TUNER_CONFIG_FILE)\n");
	fprintf(f, "# written by commtime tuner (models/trace.md, \"A tuner file\")\n");
	fprintf(f, "# collective,minBytes,maxBytes,algorithm,protocol,channels,nNodes,nRanks,numPipeOps,regBuff\n");
	fprintf(f, "# channels, numPipeOps and regBuff -1: NCCL's own; nNodes -1: any node count\n");
	if (from_model)
		fprintf(f, "# from the model of %s (%s), not from measurements\n", ctx->machine.system.name,
			cost_kind_name(ctx->machine.model.kind));
	else
		for (i = 0; i < nlog; i++)
			fprintf(f, "# log %d: %.200s (algorithm %s, protocol %s)\n", i + 1, srcs[i].path,
				srcs[i].algo >= 0 ? tuner_algo_name(srcs[i].algo) : "left to NCCL",
				srcs[i].proto >= 0 ? tuner_proto_name(srcs[i].proto) : "left to NCCL");
}

/* One rule, with the comment that says where it comes from. */
static void S_write_rule(FILE *f, const struct ctx *ctx, const struct tuner_range *r,
			 const struct src *s, int from_model)
{
	char line[256], a[32], b[32];

	units_fmt_size(a, sizeof(a), r->first);
	units_fmt_size(b, sizeof(b), r->last);
	if (from_model)
		fprintf(f, "#\n# %s on %lu ranks, %s to %s: the model's choice at %d size%s\n",
			coll_op_name(r->op), r->ranks, a, b, r->sizes, r->sizes == 1 ? "" : "s");
	else {
		fprintf(f, "#\n# %s on %lu ranks, %s to %s: fastest at %d measured size%s, log %d",
			coll_op_name(r->op), r->ranks, a, b, r->sizes,
			r->sizes == 1 ? "" : "s", r->src + 1);
		if (!isnan(r->margin))
			fprintf(f, "; the next best took %.2fx its time or more", r->margin);
		else
			fprintf(f, "; nothing else measured there");
		fputc('\n', f);
		if (s->algo < 0 || s->proto < 0)
			fprintf(f, "# (%s: the %s's choice for a run with NCCL_%s=%s)\n",
				s->algo < 0 ? "algorithm" : "protocol", ctx->machine.system.name,
				s->algo < 0 ? "PROTO" : "ALGO",
				s->algo < 0 ? tuner_proto_name(s->proto) : tuner_algo_name(s->algo));
	}
	tuner_format(r, line, sizeof(line));
	fprintf(f, "%s\n", line);
}

int cmd_tuner(int argc, char **argv, struct ctx *ctx)
{
	struct points pts = { NULL, 0, 0 };
	struct tuner_range *r;
	struct src *srcs;
	struct outfile *of;
	struct errbuf eb;
	unsigned long ranks = 0;
	const char *ops = NULL, *sizes = NULL;
	int nlog, i, nr, from_model = 0;
	FILE *f;
	struct opt options[] = {
		OPT_GROUP_("without logs: the model's choices"),
		OPT_CALLBACK_("ranks", "N", &ranks, opt_cb_count2, "rank count of the rules"),
		OPT_STRING_("op", "LIST", &ops,
			    "collectives (default all_reduce,all_gather,reduce_scatter)"),
		OPT_STRING_("sizes", "LIST", &sizes, "sizes (default 8:8G:x2)"),
		OPT_END_()
	};

	nlog = opts_parse(argc, argv, options, &usage, 65536);
	srcs = xmalloc(((size_t)nlog + 1) * sizeof(*srcs));
	if (nlog == 0) {
		from_model = 1;
		srcs[0] = (struct src){ .path = ctx->machine.system.name, .algo = -1, .proto = -1 };
		S_from_model(ctx, ranks, ops, sizes, &pts);
	}
	for (i = 0; i < nlog; i++)
		S_from_log(ctx, argv[i], i, &srcs[i], &pts);
	if ((nr = tuner_choose(pts.v, pts.n, &r, &eb)) < 0)
		die("tuner: %s", eb.msg);

	if (!(of = outfile_open(ctx->output, &eb)))
		die("%s", eb.msg);
	f = outfile_stream(of);
	S_write_head(f, ctx, srcs, nlog, from_model);
	for (i = 0; i < nr; i++)
		S_write_rule(f, ctx, &r[i], &srcs[r[i].src], from_model);
	if (outfile_commit(of, &eb) < 0)
		die("%s", eb.msg);
	free(r);
	free(pts.v);
	free(srcs);
	return EXIT_OK;
}
