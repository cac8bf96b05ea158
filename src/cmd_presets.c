/*
 * commtime presets: list the presets on the search path, or show one with
 * every key, its raw value and, for quantities, the value in SI units.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/*
 * The keys whose values are quantities, and how to read them.  Keys not
 * listed are shown as text.  Workload keys belong here too once their
 * reader defines them.
 */
static const struct {
	const char *kind;
	const char *key;
	enum quantity q;
	const char *unit;
} quantity_keys[] = {
	{ "link", "alpha",     Q_TIME,   "s" },
	{ "link", "beta",      Q_RATE,   "B/s" },
	{ "link", "beta_line", Q_RATE,   "B/s" },
	{ "link", "gamma",     Q_NUMBER, "s/B" },
};

static int find_quantity(const char *kind, const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(quantity_keys) / sizeof(quantity_keys[0]); i++)
		if (!strcmp(quantity_keys[i].kind, kind) && !strcmp(quantity_keys[i].key, key))
			return (int)i;
	return -1;
}

/* The link of a link preset, or NaN α and β for other kinds; -1 on bad values. */
static int link_of(const struct preset *p, struct link *l, struct errbuf *eb)
{
	l->alpha = l->beta = NAN;
	l->gamma = 0;
	if (strcmp(p->kind, "link"))
		return 0;
	return preset_link(p, l, eb);
}

/* The listing: one row per preset. */
static struct column list_cols[] = {
	{ "name",        "name",        COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "kind",        "kind",        COL_STR, H_PLAIN, 0, NULL, 0, 8, COL_ALL },
	{ "alpha_s",     "alpha",       COL_NUM, H_TIME,  0, NULL, 3, 8, COL_ALL },
	{ "beta_Bps",    "beta",        COL_NUM, H_RATE,  0, NULL, 3, 10, COL_ALL },
	{ "description", "description", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
};

static int list_presets(const struct ctx *ctx, const char *kind)
{
	struct preset *list;
	size_t n, nbad, i, shown = 0;
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

	o = ctx_out_open(ctx);
	out_table_begin(o, &t);
	for (i = 0; i < n; i++) {
		const struct preset *p = &list[i];
		struct link l;
		struct cell c[5];

		if (kind && strcmp(p->kind, kind))
			continue;
		if (link_of(p, &l, &eb) < 0) {
			if (!nbad++)
				first = eb;
			continue;
		}
		c[0].s = p->name;
		c[1].s = p->kind;
		c[2].s = NULL;
		c[2].x = l.alpha;
		c[3].s = NULL;
		c[3].x = l.beta;
		c[4].s = p->description;
		out_row(o, c);
		shown++;
	}
	out_table_end(o);
	if (!shown) {
		size_t k;

		out_text(o, "no %s%spresets found; searched:", kind ? kind : "", kind ? " " : "");
		for (k = 0; k < ctx->dirs.n; k++)
			out_text(o, "  %s", ctx->dirs.dirs[k]);
	}
	ctx_out_close(ctx, o);
	preset_list_free(list, n);
	if (nbad == 1)
		warning("skipped a preset file that does not load: %s", first.msg);
	else if (nbad > 1)
		warning("skipped %zu preset files that do not load; the first: %s",
			nbad, first.msg);
	return EXIT_OK;
}

/*
 * One preset: a row per key.  CSV and JSON rows start with the listing's
 * columns (the contract for this command) so both outputs stay one table.
 */
static struct column show_cols[] = {
	{ "name",        "name",        COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_DATA_ONLY },
	{ "kind",        "kind",        COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_DATA_ONLY },
	{ "alpha_s",     "alpha",       COL_NUM, H_TIME,  0, NULL, 3, 0, COL_DATA_ONLY },
	{ "beta_Bps",    "beta",        COL_NUM, H_RATE,  0, NULL, 3, 0, COL_DATA_ONLY },
	{ "description", "description", COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_DATA_ONLY },
	{ "key",         "key",         COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
	{ "value_si",    "SI value",    COL_NUM, H_PLAIN, 0, NULL, 6, 12, COL_ALL },
	{ "unit",        "unit",        COL_STR, H_PLAIN, 0, NULL, 0, 4, COL_ALL },
	{ "value",       "value",       COL_STR, H_PLAIN, 0, NULL, 0, 0, COL_ALL },
};
#define SHOW_NCOLS (sizeof(show_cols) / sizeof(show_cols[0]))

static int show_preset(const struct ctx *ctx, const struct preset *p)
{
	struct table t = { "preset", NULL, show_cols, SHOW_NCOLS, 0 };
	struct errbuf eb;
	struct link l;
	struct out *o;
	size_t i;

	if (link_of(p, &l, &eb) < 0)
		die("%s", eb.msg);
	show_cols[5].width = 3;
	for (i = 0; i < p->nkv; i++)
		if ((int)strlen(p->kv[i].key) > show_cols[5].width)
			show_cols[5].width = (int)strlen(p->kv[i].key);

	o = ctx_out_open(ctx);
	out_input_str(o, "file", "file", p->path);
	out_table_begin(o, &t);
	for (i = 0; i < p->nkv; i++) {
		const struct preset_kv *kv = &p->kv[i];
		int k = find_quantity(p->kind, kv->key);
		struct cell c[SHOW_NCOLS];
		double x = NAN;

		if (k >= 0 && preset_get_quantity(p, kv->key, quantity_keys[k].q, &x, &eb) < 0) {
			out_abort(o);
			die("%s", eb.msg);
		}
		memset(c, 0, sizeof(c));
		c[0].s = p->name;
		c[1].s = p->kind;
		c[2].x = l.alpha;
		c[3].x = l.beta;
		c[4].s = p->description;
		c[5].s = kv->key;
		c[6].x = x;
		c[7].s = k >= 0 ? quantity_keys[k].unit : "";
		c[8].s = kv->value;
		out_row(o, c);
	}
	out_table_end(o);
	ctx_out_close(ctx, o);
	return EXIT_OK;
}

static const char usage[] =
	"usage: commtime presets [--kind KIND]\n"
	"   or: commtime presets NAME|FILE\n"
	"\n"
	"Lists the presets on the search path: name, kind, alpha, beta and\n"
	"description.  With NAME (or --preset NAME) shows one preset: every key,\n"
	"its value and, for quantities, the value in SI units (s, B/s, s/B).\n"
	"A NAME containing '/' or ending in .preset is read as a file.\n"
	"\n"
	"Search path, first match wins: --presets-dir DIR, the directories of\n"
	"COMMTIME_PRESETS (colon-separated), " COMMTIME_SHAREDIR "/presets,\n"
	"./presets.\n"
	"\n"
	"options:\n"
	"  --kind KIND          list only presets of KIND: link or workload\n"
	"  -h, --help           show this text\n";

static const struct option options[] = {
	{ "kind", required_argument, NULL, 'k' },
	{ "help", no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

int cmd_presets(int argc, char **argv, struct ctx *ctx)
{
	const char *kind = NULL;
	struct preset p;
	struct errbuf eb;
	int c, status;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (strcmp(optarg, "link") && strcmp(optarg, "workload"))
				die_usage("--kind: unknown kind '%s'; want 'link' or 'workload'",
					  optarg);
			kind = optarg;
			break;
		case 'h':
			usage_exit(usage, EXIT_OK);
		default:
			usage_exit(usage, EXIT_USAGE);
		}
	}
	if (ctx->plot || ctx->render)
		die_usage("%s: 'presets' draws no figure", ctx->plot ? "--plot" : "--render");
	if (argc - optind > 1) {
		fprintf(stderr, "commtime: error: unexpected argument '%s'\n", argv[optind + 1]);
		usage_exit(usage, EXIT_USAGE);
	}
	if (argc - optind == 1 && kind)
		die_usage("--kind: only for the listing, not with a preset name");

	if (argc - optind == 1) {
		if (preset_load(&ctx->dirs, argv[optind], &p, &eb) < 0)
			die("%s", eb.msg);
		status = show_preset(ctx, &p);
		preset_release(&p);
		return status;
	}
	if (ctx->have_preset && !kind)
		return show_preset(ctx, &ctx->preset);
	return list_presets(ctx, kind);
}
