/*
 * commtime presets: list the presets on the search path, or show one with
 * every key, its raw value and, for quantities, the value in SI units.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fit.h"
#include "workload.h"

/*
 * The keys whose values are quantities, and how to read them: a unit
 * parser (units_parse) for the link figures, the parameter-count parser
 * for the shape of a workload.
 */
static const struct {
	const char *kind;
	const char *key;
	int count;          /* 1: a count read by workload_parse_count */
	enum quantity q;    /* otherwise the quantity units_parse reads */
	const char *unit;
} quantity_keys[] = {
	{ "link",     "alpha",     0, Q_TIME,   "s" },
	{ "link",     "beta",      0, Q_RATE,   "B/s" },
	{ "link",     "beta_line", 0, Q_RATE,   "B/s" },
	{ "link",     "gamma",     0, Q_NUMBER, "s/B" },
	{ "system",   "net_latency", 0, Q_TIME, "s" },
	{ "workload", "layers",    1, Q_COUNT,  "count" },
	{ "workload", "hidden",    1, Q_COUNT,  "count" },
	{ "workload", "heads",     1, Q_COUNT,  "count" },
	{ "workload", "kv_heads",  1, Q_COUNT,  "count" },
	{ "workload", "head_dim",  1, Q_COUNT,  "count" },
	{ "workload", "ffn",       1, Q_COUNT,  "count" },
	{ "workload", "vocab",     1, Q_COUNT,  "count" },
	{ "workload", "seq",       1, Q_COUNT,  "count" },
	{ "workload", "published", 1, Q_COUNT,  "count" },
	{ "workload", "shared_experts", 1, Q_COUNT, "count" },
	{ "workload", "dense_layers", 1, Q_COUNT, "count" },
	{ "workload", "dense_ffn", 1, Q_COUNT,  "count" },
	{ "workload", "q_lora_rank", 1, Q_COUNT, "count" },
	{ "workload", "kv_lora_rank", 1, Q_COUNT, "count" },
	{ "workload", "qk_rope_head_dim", 1, Q_COUNT, "count" },
	{ "workload", "v_head_dim", 1, Q_COUNT, "count" },
	{ "workload", "window",    1, Q_COUNT,  "count" },
	{ "workload", "window_layers", 1, Q_COUNT, "count" },
};

static int find_quantity(const char *kind, const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(quantity_keys) / sizeof(quantity_keys[0]); i++)
		if (!strcmp(quantity_keys[i].kind, kind) && !strcmp(quantity_keys[i].key, key))
			return (int)i;
	return -1;
}

/* The value of kv read as quantity_keys[k]; -1 with "file:line: key: ..." in eb. */
static int read_quantity(const struct preset *p, const struct preset_kv *kv, int k,
			 double *x, struct errbuf *eb)
{
	struct errbuf e2;
	int r = quantity_keys[k].count ? workload_parse_count(kv->value, x, &e2)
				       : units_parse(quantity_keys[k].q, kv->value, x, &e2);

	if (r < 0)
		return errbuf_set(eb, "%s:%d: %s: %s", p->path, kv->line, kv->key, e2.msg);
	return 0;
}

/*
 * Check a preset as its reader would, so a preset that lists or shows
 * also loads: the link of a link preset (α, β), the shape of a workload.
 * α and β are NaN for workloads.  Returns 0, or -1 with eb filled.
 */
static int check_preset(const struct ctx *ctx, const struct preset *p, struct link *l,
			struct errbuf *eb)
{
	struct workload w;
	struct fit_model m;
	struct gpu_spec g;
	struct system s;

	l->alpha = l->beta = NAN;
	l->gamma = 0;
	/* A fitted link's regimes are read by the reader compare and plan use. */
	if (!strcmp(p->kind, "link"))
		return preset_link(p, l, eb) < 0 || fit_model_from_preset(p, &m, eb) < 0 ? -1 : 0;
	if (!strcmp(p->kind, "gpu")) {
		if (gpu_from_preset(p, &g, eb) < 0)
			return -1;
		free(g.name);
		free(g.description);
		return 0;
	}
	if (!strcmp(p->kind, "system")) {
		if (system_from_preset(&ctx->dirs, p, &s, eb) < 0)
			return -1;
		system_release(&s);
		return 0;
	}
	return workload_from_preset(p, &w, eb);
}

/* The listing: one row per preset. */
static struct column list_cols[] = {
	{ "name",        "name",        COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "kind",        "kind",        COL_STR, H_PLAIN, 0, NULL, 0, 8, COL_ALL },
	{ "alpha_s",     "alpha",       COL_NUM, H_TIME,  0, NULL, 3, 8, COL_ALL },
	{ "beta_Bps",    "beta",        COL_NUM, H_RATE,  0, NULL, 3, 10, COL_ALL },
	{ .key = "description", .label = "description", .type = COL_STR },
};

/*
 * An empty listing is a search path that points nowhere: say where (the
 * list of n presets is freed first).
 */
static void die_no_presets(const struct ctx *ctx, const char *kind, struct preset *list,
			   size_t n) __attribute__((noreturn));
static void die_no_presets(const struct ctx *ctx, const char *kind, struct preset *list,
			   size_t n)
{
	char dirs[1024] = "";
	size_t k;

	for (k = 0; k < ctx->dirs.n; k++)
		snprintf(dirs + strlen(dirs), sizeof(dirs) - strlen(dirs), "%s%s",
			 k ? ", " : "", ctx->dirs.dirs[k]);
	preset_list_free(list, n);
	die("no %s%spresets found; searched %s", kind ? kind : "", kind ? " " : "", dirs);
}

/* The row of preset p, whose link l check_preset read (NaN for no link). */
static void list_row(struct out *o, const struct preset *p, const struct link *l)
{
	struct cell c[5];

	c[0].s = p->name;
	c[1].s = p->kind;
	c[2].s = NULL;
	c[2].x = l->alpha;
	c[3].s = NULL;
	c[3].x = l->beta;
	c[4].s = p->description;
	out_row(o, c);
}

static int list_presets(const struct ctx *ctx, const char *kind)
{
	struct preset *list;
	size_t n, nbad, i;
	struct errbuf eb, first;
	struct table t = { "presets", NULL, list_cols, 5, 0 };
	struct out *o;

	first.msg[0] = '\0';
	if (preset_list(&ctx->dirs, &list, &n, &nbad, &first) < 0)
		die("%s", first.msg);
	list_cols[0].width = 4;
	for (i = 0; i < n; i++)
		if ((int)strlen(list[i].name) > list_cols[0].width)
			list_cols[0].width = (int)strlen(list[i].name);

	for (i = 0; i < n && kind && strcmp(list[i].kind, kind); i++)
		;
	if (i == n)
		die_no_presets(ctx, kind, list, n);
	o = ctx_out_open(ctx);
	/* what was listed: JSON's "inputs" as every command has them */
	out_input_str(o, "kind", "kind", kind ? kind : "all");
	out_table_begin(o, &t);
	for (i = 0; i < n; i++) {
		const struct preset *p = &list[i];
		struct link l;

		if (kind && strcmp(p->kind, kind))
			continue;
		if (check_preset(ctx, p, &l, &eb) < 0) {
			if (!nbad++)
				first = eb;
			continue;
		}
		list_row(o, p, &l);
	}
	out_table_end(o);
	ctx_out_close(ctx, o);
	preset_list_free(list, n);
	if (nbad == 1)
		warning("skipped a preset file that does not load: %s", first.msg);
	else if (nbad > 1)
		warning("skipped %zu preset files that do not load; the first: %s",
			nbad, first.msg);
	return EXIT_OK;
}

/* A tier as one line: preset, α, β and line rate. */
static void show_tier(struct out *o, const char *what, unsigned count, const struct tier *t)
{
	char a[32], b[32], l[32], k[16] = "";

	units_fmt_time(a, sizeof(a), t->link.alpha, 3);
	units_fmt_rate(b, sizeof(b), t->link.beta, 4);
	units_fmt_rate(l, sizeof(l), t->beta_line, 4);
	if (count)
		snprintf(k, sizeof(k), "%u x ", count);
	out_text(o, "  %s: %s%s, alpha %s, beta %s, line rate %s", what, k, t->name, a, b, l);
}

/* A system resolved down to its gpu and link presets (human table only). */
static void show_system(const struct ctx *ctx, struct out *o, const struct preset *p)
{
	struct system s;
	struct errbuf eb;
	char mem[32], rate[32], price[96] = "";

	if (system_from_preset(&ctx->dirs, p, &s, &eb) < 0)
		die("%s", eb.msg);
	units_fmt_size(mem, sizeof(mem), s.gpu.memory_B);
	units_fmt_rate(rate, sizeof(rate), s.gpu.nvlink_link_Bps, 3);
	out_text(o, "%s", "");
	out_text(o, "resolved:");
	out_text(o, "  gpu: %lu x %s (%s, %s, %u %s x %s, PCIe %u, %.4g TFLOP/s bf16 dense)",
		 s.gpus_per_node, s.gpu.name, gpu_arch_name(s.gpu.arch), mem,
		 s.gpu.nvlink_links, gpu_arch_amd(s.gpu.arch) ? "xGMI" : "NVLink",
		 s.gpu.nvlink_links ? rate : "-", s.gpu.pcie_gen,
		 s.gpu.bf16_flops / 1e12);
	show_tier(o, "intra", 0, &s.intra);
	if (s.have_inter && s.nics_per_node) {
		show_tier(o, "inter", s.nics_per_node, &s.inter);
		units_fmt_rate(rate, sizeof(rate), s.nics_per_node * s.inter.beta_line, 4);
		out_text(o, "  NICs per node together: %s line rate", rate);
		units_fmt_time(rate, sizeof(rate), s.net_latency_s, 3);
		out_text(o, "  nic_ports %u, net_latency %s (model nccl)",
			 s.nic_ports ? s.nic_ports : 1, rate);
	} else {
		out_text(o, "  inter: none (one node only)");
	}
	if (!isnan(s.price_per_gpu_hour))
		snprintf(price, sizeof(price), ", %.2f USD per GPU-hour (%s)", s.price_per_gpu_hour,
			 s.price_date ? s.price_date : "undated");
	out_text(o, "  nvls %s, p2p %s, nvswitch %s, pcie_path %s, nic_path %s, cpu %s%s%s",
		 s.nvls ? "yes" : "no", s.p2p ? "yes" : "no", s.nvswitch ? "yes" : "no",
		 pcie_path_name(s.pcie_path), pcie_path_name(s.nic_path), cpu_vendor_name(s.cpu),
		 s.cpu_given ? "" : " (default)", price);
	if (s.gdr_off)
		out_text(o, "  gdr no: the network is staged through host memory (NCCL's model)");
	if (s.model != SYSTEM_MODEL_DEFAULT)
		out_text(o, "  read with model %s (--model overrides)", system_model_name(s.model));
	if (s.topo)
		out_text(o, "  topo %s: %d GPUs, %d NICs%s", s.topo_path, s.topo->gpus, s.topo->nics,
			 s.from_topo ? " (gpus_per_node, nvswitch, paths or NICs from it)" : "");
	system_release(&s);
}

/*
 * One preset: a row per key.  CSV and JSON rows start with the listing's
 * columns (the contract for this command) so both outputs stay one table;
 * they carry the SI value as a number and its unit apart, where the human
 * table shows them together.
 */
static struct column show_cols[] = {
	{ "name",        "name",        COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_DATA_ONLY },
	{ "kind",        "kind",        COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_DATA_ONLY },
	{ "alpha_s",     "alpha",       COL_NUM, H_TIME,  0, NULL, 3, 0, COL_DATA_ONLY },
	{ "beta_Bps",    "beta",        COL_NUM, H_RATE,  0, NULL, 3, 0, COL_DATA_ONLY },
	{ .key = "description", .label = "description", .type = COL_STR, .flags = COL_DATA_ONLY },
	{ "key",         "key",         COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "si",          "SI value",    COL_STR, H_PLAIN, 0, NULL, 0, 16, COL_TABLE_ONLY },
	{ "value",       "value",       COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "value_si",    "SI value",    COL_NUM, H_PLAIN, 0, NULL, 6, 0, COL_DATA_ONLY },
	{ "unit",        "unit",        COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_DATA_ONLY },
};
#define SHOW_NCOLS (sizeof(show_cols) / sizeof(show_cols[0]))

/*
 * like = NAME: which of the keys shown come from NAME (they carry its
 * line), and what the preset sets otherwise than NAME: each key of its own
 * (sources and the name, kind and description aside) with NAME's value, or
 * "new" where NAME has none.
 */
static void show_like(const struct ctx *ctx, struct out *o, const struct preset *p)
{
	const char *base = preset_get(p, "like");
	int line = preset_line(p, "like");
	struct preset b;
	struct errbuf eb;
	char buf[2048];
	size_t i, used;

	if (!base)
		return;
	used = (size_t)snprintf(buf, sizeof(buf), "%s, which gives", base);
	for (i = 0; i < p->nkv && used < sizeof(buf); i++)
		if (p->kv[i].line == line && strcmp(p->kv[i].key, "like"))
			used += (size_t)snprintf(buf + used, sizeof(buf) - used, " %s",
						 p->kv[i].key);
	out_input_str(o, "like", "like", buf);
	/* The preset loaded, so its base does too; a failure shows nothing. */
	if (preset_load(&ctx->dirs, base, &b, &eb) < 0)
		return;
	used = 0;
	buf[0] = '\0';
	for (i = 0; i < p->nkv && used < sizeof(buf); i++) {
		const struct preset_kv *kv = &p->kv[i];
		const char *was = preset_get(&b, kv->key);
		const char *skip[] = { "name", "kind", "description", "like" };
		size_t j, n = sizeof(skip) / sizeof(skip[0]);

		for (j = 0; j < n && strcmp(kv->key, skip[j]); j++)
			;
		if (j < n || kv->line == line || !strncmp(kv->key, "source_", 7) ||
		    (was && !strcmp(was, kv->value)))
			continue;
		used += (size_t)snprintf(buf + used, sizeof(buf) - used, "%s%s %s (%s %s)",
					 used ? ", " : "", kv->key, kv->value, base,
					 was ? was : "has none");
	}
	if (used)
		out_input_str(o, "differs", "differs from the base", buf);
	preset_release(&b);
}

/*
 * A workload with DeepSeek's keys (dense first layers, shared experts,
 * latent attention): its parameter count and the parameters a token is
 * computed with, which those keys change most.
 */
static void show_workload(struct out *o, const struct preset *p)
{
	struct workload w;
	struct errbuf eb;
	char a[160], b[48];

	if (workload_from_preset(p, &w, &eb) < 0 ||
	    !(w.shared > 0 || w.dense_layers > 0 || workload_mla(&w)))
		return;
	out_text(o, "parameters: %s; active per token %s", workload_describe(a, sizeof(a), &w),
		 workload_fmt_count(b, sizeof(b), workload_active_params(&w)));
}

static int show_preset(const struct ctx *ctx, const struct preset *p)
{
	struct table t = { "preset", NULL, show_cols, SHOW_NCOLS, 0 };
	struct errbuf eb;
	struct link l;
	struct out *o;
	size_t i;

	if (check_preset(ctx, p, &l, &eb) < 0)
		die("%s", eb.msg);
	show_cols[5].width = 3;
	for (i = 0; i < p->nkv; i++)
		if ((int)strlen(p->kv[i].key) > show_cols[5].width)
			show_cols[5].width = (int)strlen(p->kv[i].key);

	o = ctx_out_open(ctx);
	out_input_str(o, "file", "file", p->path);
	show_like(ctx, o, p);
	out_table_begin(o, &t);
	for (i = 0; i < p->nkv; i++) {
		const struct preset_kv *kv = &p->kv[i];
		int k = find_quantity(p->kind, kv->key);
		struct cell c[SHOW_NCOLS];
		char si[64] = "";
		double x = NAN;

		if (k >= 0) {
			if (read_quantity(p, kv, k, &x, &eb) < 0) {
				out_abort(o);
				die("%s", eb.msg);
			}
			/* Ten digits show every count and rate in full. */
			snprintf(si, sizeof(si), quantity_keys[k].count ? "%.10g" : "%.10g %s",
				 x, quantity_keys[k].unit);
		}
		memset(c, 0, sizeof(c));
		c[0].s = p->name;
		c[1].s = p->kind;
		c[2].x = l.alpha;
		c[3].x = l.beta;
		c[4].s = p->description;
		c[5].s = kv->key;
		c[6].s = si;
		c[7].s = kv->value;
		c[8].x = x;
		c[9].s = k >= 0 ? quantity_keys[k].unit : "";
		out_row(o, c);
	}
	out_table_end(o);
	if (!strcmp(p->kind, "system"))
		show_system(ctx, o, p);
	if (!strcmp(p->kind, "workload"))
		show_workload(o, p);
	ctx_out_close(ctx, o);
	return EXIT_OK;
}

/* presets --save FILE: the system of the global options as a system preset. */
static int save_system(const struct ctx *ctx, const char *path, int npos, const char *kind)
{
	char *name, comment[1024], *sys_path, *topo_path;
	struct errbuf eb;

	if (npos || kind)
		die_usage("--save: writes the system of the global options; no NAME or --kind with it");
	if (!ctx->machine.have_system)
		die_usage("--save: needs a system to write (--system NAME|FILE, --topo FILE)");
	if (preset_save_name(path, 0, &name, &eb) < 0)
		die_usage("--save: %s", eb.msg);
	/* the file names as text that cannot break a comment line */
	sys_path = preset_text_escape(ctx->machine.system.path ? ctx->machine.system.path : "");
	topo_path = preset_text_escape(ctx->machine.system.topo_path ? ctx->machine.system.topo_path : "");
	snprintf(comment, sizeof comment,
		 "system preset written by 'commtime presets --save'%s%s%s%s\n"
		 "every value resolved; the topology file gave what it holds\n",
		 ctx->machine.system.path ? " from " : "", sys_path,
		 ctx->machine.system.topo_path ? " and " : "", topo_path);
	free(sys_path);
	free(topo_path);
	if (system_preset_write(path, name, &ctx->machine.system, comment, NULL, 0, &eb) < 0)
		die("%s", eb.msg);
	printf("wrote system preset %s to %s\n", name, path);
	free(name);
	return EXIT_OK;
}

static const char *const usage_lines[] = {
	"commtime presets [--kind KIND]",
	"commtime presets NAME|FILE",
	"commtime --system S|--topo FILE ... presets --save FILE.preset",
	NULL
};
static const struct opts_usage usage = {
	.cmd = "presets",
	.lines = usage_lines,
	.about = "Lists the presets on the search path: name, kind, alpha, beta and\n"
		 "description.  With NAME (or --preset NAME) shows one preset: every key,\n"
		 "its value and, for quantities, the value in SI units (s, B/s, s/B) or\n"
		 "as a plain count.\n"
		 "A NAME containing '/' or ending in .preset is read as a file.\n"
		 "\n"
		 "Search path, first match wins: --presets-dir DIR, the directories of\n"
		 "COMMTIME_PRESETS (colon-separated), the installed share directory,\n"
		 "./presets.  An unknown NAME's error lists the directories searched.\n"
		 "\n"
		 "With --save, the system the global options describe (--system, --topo\n"
		 "and the overrides on top) is written as a system preset, every value\n"
		 "resolved: GPUs per node, NVSwitch or not, the paths and NICs a topology\n"
		 "file gave, the file itself by its absolute path.\n",
};

int cmd_presets(int argc, char **argv, struct ctx *ctx)
{
	const char *kind = NULL, *save = NULL;
	struct preset p;
	struct errbuf eb;
	int status, npos;
	struct opt options[] = {
		{ .type = OPT_STRING, .long_name = "kind", .argh = "KIND", .value = &kind,
		  .complete = "link workload gpu system",
		  .help = "list only presets of KIND: link, workload, gpu or system" },
		OPT_FILE_("save", "FILE.preset", &save,
			  "write the system of --system/--topo as a system preset"),
		OPT_END_()
	};

	npos = opts_parse(argc, argv, options, &usage, 1);
	if (kind && strcmp(kind, "link") && strcmp(kind, "workload") &&
	    strcmp(kind, "gpu") && strcmp(kind, "system"))
		die_usage("--kind: unknown kind '%s'; want 'link', 'workload', 'gpu' or 'system'",
			  kind);
	if (ctx->plot || ctx->render)
		die_usage("%s: 'presets' draws no figure", ctx->plot ? "--plot" : "--render");
	if (npos == 1 && kind)
		die_usage("--kind: only for the listing, not with a preset name");
	if (save)
		return save_system(ctx, save, npos, kind);

	if (npos == 1) {
		if (preset_load(&ctx->dirs, argv[0], &p, &eb) < 0)
			die("%s", eb.msg);
		status = show_preset(ctx, &p);
		preset_release(&p);
		return status;
	}
	if (ctx->machine.have_preset && !kind)
		return show_preset(ctx, &ctx->machine.preset);
	return list_presets(ctx, kind);
}
