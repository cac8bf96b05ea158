/*
 * Helpers the commands share: option values, output, the echo of inputs.
 * Like the commands, this file talks to the user and may exit.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "outfile.h"

extern char **environ;
#include "crossover.h"
#include "errband.h"
#include "measfile.h"
#include "workload.h"

struct global_args global_args;

struct opt global_options[] = {
	{ .type = OPT_GROUP, .help = "global options (before or after the command)",
	  .tag = OPT_TAG_LINK },
	OPT_STRING_("alpha", "TIME", &global_args.alpha, "latency of one step (default 5us)"),
	OPT_STRING_("beta", "RATE", &global_args.beta,
		    "bandwidth of one link direction (default 200GB/s)"),
	OPT_STRING_("gamma", "X", &global_args.gamma,
		    "reduction cost in seconds per byte (default 0)"),
	{ .type = OPT_STRING, .long_name = "preset", .argh = "NAME|FILE",
	  .value = &global_args.preset, .complete = "presets:link",
	  .help = "link preset; --alpha/--beta override its values" },
	{ .type = OPT_STRING, .long_name = "presets-dir", .argh = "DIR",
	  .value = &global_args.presets_dir, .complete = "dirs",
	  .help = "search DIR first for presets" },
	{ .type = OPT_GROUP, .help = "system (global)", .tag = OPT_TAG_LINK },
	{ .type = OPT_STRING, .long_name = "system", .argh = "NAME|FILE",
	  .value = &global_args.system, .complete = "presets:system",
	  .help = "a system preset: GPUs per node, intra-node link, NICs" },
	OPT_STRING_("gpus-per-node", "N", &global_args.gpus_per_node,
		    "override the system's GPUs per node"),
	OPT_FILE_("topo", "FILE", &global_args.topo,
		  "the node's topology: nvidia-smi topo -m output or NCCL's\n"
		  "topology dump (NCCL_TOPO_DUMP_FILE); gives GPUs per node,\n"
		  "the NVLink graph, PCIe paths and NICs"),
	OPT_STRING_("nics-per-node", "N", &global_args.nics_per_node,
		    "override its NIC ports per node"),
	{ .type = OPT_STRING, .long_name = "intra", .argh = "LINK",
	  .value = &global_args.intra, .complete = "presets:link",
	  .help = "override its intra-node link preset" },
	{ .type = OPT_STRING, .long_name = "inter", .argh = "LINK",
	  .value = &global_args.inter, .complete = "presets:link",
	  .help = "override its NIC link preset (one port)" },
	{ .type = OPT_STRING, .long_name = "model", .argh = "NAME",
	  .value = &global_args.model, .complete = "nccl tiers",
	  .help = "cost model on a system: nccl (default), tiers" },
	{ .type = OPT_STRING, .long_name = "proto", .argh = "LIST",
	  .value = &global_args.proto, .complete = "LL LL128 Simple",
	  .help = "NCCL protocols allowed, as NCCL_PROTO: LL,LL128,Simple or ^LL128" },
	{ .type = OPT_STRING, .long_name = "nccl-algo", .argh = "LIST",
	  .value = &global_args.nccl_algo, .complete = "Ring Tree NVLS NVLSTree",
	  .help = "NCCL algorithms allowed, as NCCL_ALGO: Ring,Tree or ^NVLS" },
	{ .type = OPT_STRING, .long_name = "nccl-version", .argh = "V",
	  .value = &global_args.nccl_version,
	  .help = "NCCL's tuning of version V, 2.21 to 2.30 (default 2.30.7)" },
	OPT_GROUP_("output (global)"),
	{ .type = OPT_STRING, .long_name = "format", .argh = "FMT",
	  .value = &global_args.format, .complete = "table csv json",
	  .help = "table (default), csv or json" },
	{ .type = OPT_STRING, .short_name = 'o', .long_name = "output", .argh = "FILE",
	  .value = &global_args.output, .complete = "files",
	  .help = "write to FILE (atomically) instead of stdout; a name\n"
		  "ending in .csv or .json sets --format when not given" },
	{ .type = OPT_STRING, .long_name = "time-unit", .argh = "UNIT",
	  .value = &global_args.time_unit, .complete = "auto ns us ms s",
	  .help = "times in tables in auto (default), ns, us, ms or s" },
	OPT_GROUP_("figure (global)"),
	OPT_FILE_("plot", "FILE.gp", &global_args.plot,
		  "also write a self-contained gnuplot script"),
	OPT_FILE_("render", "FILE", &global_args.render,
		  "also render the figure (.png, .svg or .pdf) with gnuplot"),
	OPT_STRING_("size", "WxH", &global_args.size,
		    "the figure's size in pixels (default: the figure's, e.g. 800x500)"),
	OPT_STRING_("title", "TEXT", &global_args.title, "the figure's title instead of its own"),
	OPT_END_()
};

static const struct time_unit time_units[] = {
	{ .name = "ns", .scale = 1e-9, .suffix = "ns", .prec = 1 },
	{ .name = "us", .scale = 1e-6, .suffix = "\xc2\xb5s", .prec = 1 },
	{ .name = "ms", .scale = 1e-3, .suffix = "ms", .prec = 1 },
	{ .name = "s", .scale = 1, .suffix = "s", .prec = 1 },
};
#define NTIME_UNITS (sizeof(time_units) / sizeof(time_units[0]))

static const struct time_unit *find_time_unit(const char *name)
{
	size_t i;

	if (!strcmp(name, "\xc2\xb5s"))
		name = "us";
	for (i = 0; i < NTIME_UNITS; i++)
		if (!strcmp(time_units[i].name, name))
			return &time_units[i];
	return NULL;
}

int time_unit_known(const char *name)
{
	return !strcmp(name, "auto") || find_time_unit(name);
}

void ctx_time_unit(const struct ctx *ctx, double tmin, double tmax, enum unit_rule rule,
		   struct time_unit *u)
{
	size_t i = 0;

	if (ctx->time_unit && find_time_unit(ctx->time_unit)) {
		*u = *find_time_unit(ctx->time_unit);
		return;
	}
	/* nothing to time (one rank): milliseconds, as a step is counted */
	if (!(tmin > 0 && isfinite(tmin)) && !(tmax > 0 && isfinite(tmax))) {
		*u = time_units[2];
		return;
	}
	if (!(tmin > 0 && isfinite(tmin)))
		tmin = tmax;
	if (!(tmax > 0 && isfinite(tmax)))
		tmax = tmin;
	if (rule == UNIT_BY_SMALLEST) {
		while (i + 1 < NTIME_UNITS && tmin >= time_units[i + 1].scale)
			i++;
	} else {
		/* at most four digits before the point */
		while (i + 1 < NTIME_UNITS && tmax / time_units[i].scale >= 1e4)
			i++;
	}
	/* seven digits before the point are too many to read: a larger unit */
	while (i + 1 < NTIME_UNITS && tmax / time_units[i].scale >= 1e6)
		i++;
	*u = time_units[i];
	/* below 10 the smallest time gets a second decimal, below 1 a third */
	while (u->prec < 3 && tmin / u->scale < pow(10, 2 - u->prec))
		u->prec++;
}

void column_time_unit(struct column *c, const struct time_unit *u)
{
	c->human = H_FIXED;
	c->scale = u->scale;
	c->suffix = u->suffix;
	c->prec = u->prec;
}

const struct cost_model *opt_model;

void opt_cb_algo(const struct opt *o, const char *arg)
{
	struct errbuf eb;
	int r = opt_model ? cost_algo_lookup(opt_model, OP_ALLREDUCE, arg, o->value, &eb)
			  : ar_algo_lookup(arg, o->value, &eb);

	if (r < 0)
		die_usage("--%s: %s", o->long_name, eb.msg);
}

void opt_cb_meas_algo(const struct opt *o, const char *arg)
{
	struct errbuf eb, first;
	int op;

	if (!opt_model) {
		opt_cb_algo(o, arg);
		return;
	}
	/* The log says the collective later: any of the model's names will do. */
	for (op = 0; op < OP_COUNT; op++)
		if (cost_algo_lookup(opt_model, (enum coll_op)op, arg, o->value,
				     op == OP_ALLREDUCE ? &first : &eb) == 0)
			return;
	die_usage("--%s: %s", o->long_name, first.msg);
}

void opt_cb_algos(const struct opt *o, const char *arg)
{
	struct algo_set *s = o->value;
	struct errbuf eb;

	s->n = opt_model ? cost_algo_parse_list(opt_model, OP_ALLREDUCE, arg, s->v, &eb)
			 : ar_algo_parse_list(arg, s->v, &eb);
	if (s->n < 0)
		die_usage("--%s: %s", o->long_name, eb.msg);
}

void ctx_check_ranks(const struct ctx *ctx, const struct dlist *ranks)
{
	struct errbuf eb;
	size_t i;

	if (!ctx->have_system)
		return;
	for (i = 0; i < ranks->n; i++)
		if (system_check_ranks(&ctx->system, (unsigned long)ranks->v[i], &eb) < 0)
			die("%s", eb.msg);
}

void opt_cb_op(const struct opt *o, const char *arg)
{
	struct errbuf eb;
	enum coll_op x;

	if (coll_op_lookup(arg, &x, &eb) < 0)
		die_usage("--%s: %s", o->long_name, eb.msg);
	*(enum coll_op *)o->value = x;
}

void opt_cb_count2(const struct opt *o, const char *arg)
{
	char shown[64];

	snprintf(shown, sizeof(shown), "--%s", o->long_name);
	*(unsigned long *)o->value = (unsigned long)opt_quantity_range(shown, Q_COUNT, arg,
								       2, (double)RANKS_MAX);
}

void opt_cb_ranks2(const struct opt *o, const char *arg)
{
	char shown[64];

	snprintf(shown, sizeof(shown), "--%s", o->long_name);
	opt_ranks(shown, arg, o->value, 2);
}

void opt_cb_params(const struct opt *o, const char *arg)
{
	struct workload_args *w = o->value;
	struct errbuf eb;

	if (workload_parse_count(arg, &w->params, &eb) < 0)
		die_usage("--%s: %s", o->long_name, eb.msg);
	w->params_arg = arg;
}

void opt_cb_whole(const struct opt *o, const char *arg)
{
	char name[64];
	double x;

	snprintf(name, sizeof(name), "--%s", o->long_name);
	x = opt_quantity_range(name, Q_NUMBER, arg, 1, 1e15);
	if (x != floor(x))
		die_usage("%s: expected a whole number, got '%s'", name, arg);
	*(unsigned long *)o->value = (unsigned long)x;
}

void ctx_workload(const struct ctx *ctx, const char *name, struct workload *wl)
{
	struct errbuf eb;
	struct preset p;

	if (preset_load(&ctx->dirs, name, &p, &eb) < 0)
		die("--workload: %s", eb.msg);
	if (workload_from_preset(&p, wl, &eb) < 0) {
		preset_release(&p);
		die("--workload: %s", eb.msg);
	}
	preset_release(&p);
}

void ctx_echo_workload(struct out *o, const struct workload *w)
{
	char note[200];

	out_input_str(o, "workload", "workload", w->name);
	out_input(o, "params", "parameters", workload_params(w), H_PLAIN, 12,
		  workload_describe(note, sizeof(note), w));
}

double workload_args_params(const struct ctx *ctx, const struct workload_args *w,
			    struct workload *wl)
{
	if (!w->workload)
		return w->params;
	ctx_workload(ctx, w->workload, wl);
	return workload_params(wl);
}

void meas_args_load(const struct meas_args *a, const char *path, struct meas *m)
{
	struct errbuf eb;

	meas_init(m, path);
	if (meas_load_file(path, m, &eb) < 0 || meas_select(m, a->op, a->ranks, &eb) < 0)
		die("%s", eb.msg);
	if (m->op < 0)
		die("%s: cannot tell which collective was measured; give --op", m->path);
	if (m->ranks == 0)
		die("%s: cannot tell the rank count; give --ranks", m->path);
}

double opt_quantity(const char *opt, enum quantity q, const char *arg)
{
	struct errbuf eb;
	double x;

	if (units_parse(q, arg, &x, &eb) < 0)
		die_usage("%s: %s", opt, eb.msg);
	return x;
}

double opt_positive(const char *opt, enum quantity q, const char *arg)
{
	static const char *const what[] = {
		[Q_NUMBER] = "value", [Q_COUNT] = "count", [Q_TIME] = "time",
		[Q_SIZE] = "size", [Q_RATE] = "rate", [Q_FRACTION] = "fraction"
	};
	double x = opt_quantity(opt, q, arg);

	if (!(x > 0))
		die_usage("%s: %s must be positive, got '%s'", opt,
			  (unsigned)q < sizeof(what) / sizeof(what[0]) && what[q] ? what[q] : "value",
			  arg);
	return x;
}

double opt_quantity_range(const char *opt, enum quantity q, const char *arg,
			  double lo, double hi)
{
	double x = opt_quantity(opt, q, arg);

	if (x < lo || x > hi)
		die_usage("%s: '%s' is out of range [%g, %g]", opt, arg, lo, hi);
	return x;
}

void opt_list(const char *opt, enum quantity q, const char *arg, struct dlist *l)
{
	struct errbuf eb;

	size_t i;

	dlist_release(l);
	if (units_parse_list(q, arg, l, &eb) < 0)
		die_usage("%s: %s", opt, eb.msg);
	/* Nothing moves a fraction of a byte: 1e-300 B would only mislead. */
	for (i = 0; q == Q_SIZE && i < l->n; i++)
		if (l->v[i] > 0 && l->v[i] < 1)
			die_usage("%s: size %g B in '%s' is below one byte", opt, l->v[i], arg);
}

void opt_ranks(const char *opt, const char *arg, struct dlist *l, unsigned long min)
{
	size_t i;

	opt_list(opt, Q_COUNT, arg, l);
	for (i = 0; i < l->n; i++) {
		if (l->v[i] < (double)min)
			die_usage("%s: rank count %.17g in '%s' is below %lu", opt,
				  l->v[i], arg, min);
		if (l->v[i] > (double)RANKS_MAX)
			die_usage("%s: rank count %.17g in '%s' is above the limit %lu",
				  opt, l->v[i], arg, RANKS_MAX);
	}
}

void outputs_distinct(const char *const *paths, const char *const *opts, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (paths[i] && paths[j] && outfile_same(paths[i], paths[j]))
				die_usage("%s and %s both write '%s'; give each output its own file",
					  opts[i], opts[j], paths[j]);
}

struct out *ctx_out_open(const struct ctx *ctx)
{
	struct errbuf eb;
	struct out *o = out_open(ctx->format, ctx->output, &eb);

	if (!o)
		die("%s", eb.msg);
	return o;
}

void ctx_out_close(const struct ctx *ctx, struct out *o)
{
	struct errbuf eb;

	if (out_close(o, &eb) < 0)
		die("%s", eb.msg);
}

/* Append printf-style text to buf (size n) after "; " when buf has some. */
static void S_add(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void S_add(char *buf, size_t n, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used && used + 2 < n) {
		memcpy(buf + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	if (used < n)
		vsnprintf(buf + used, n - used, fmt, ap);
	va_end(ap);
}

/*
 * What a topology file gave and what was assumed, three lines:
 *   topology: FILE (nvidia-smi topo -m, with its legend)
 *   topology read: 8 GPUs; NVLink without a switch: 24 links, 12 pairs (NV1 to NV2); ...
 *   topology assumed: ...
 */
static void echo_topo(const struct system *s, struct out *o)
{
	const struct topo *t = s->topo;
	char line[640], read[640] = "", assumed[640] = "";
	int i, j, pairs = 0, links = 0, lo = 0, hi = 0, ns = topo_nvswitch(t, (int)s->gpu.nvlink_links);
	enum topo_path w;

	snprintf(line, sizeof line, "%s (%s)", s->topo_path, t->format == TOPO_XML ?
		 "NCCL's topology XML" : t->legend ? "nvidia-smi topo -m, with its legend" :
		 "nvidia-smi topo -m");
	out_input_str(o, "topo", "topology", line);
	S_add(read, sizeof read, "%d GPU%s", t->gpus, t->gpus == 1 ? "" : "s");
	for (i = 0; i < t->gpus; i++)
		for (j = i + 1; j < t->gpus; j++)
			if (t->nvl[i][j]) {
				pairs++;
				links += t->nvl[i][j];
				lo = !lo || t->nvl[i][j] < lo ? t->nvl[i][j] : lo;
				hi = t->nvl[i][j] > hi ? t->nvl[i][j] : hi;
			}
	if (ns == 1)
		S_add(read, sizeof read, "NVLink through NVSwitch, %d links per GPU", topo_nvlinks(t, 0) ?
		      (t->nvs[0] ? t->nvs[0] : hi) : hi);
	else if (ns == 0 && lo == hi)
		S_add(read, sizeof read, "NVLink without a switch: %d pair%s of NV%d", pairs,
		      pairs == 1 ? "" : "s", hi);
	else if (ns == 0)
		S_add(read, sizeof read, "NVLink without a switch: %d links in %d pairs (NV%d to NV%d)",
		      links, pairs, lo, hi);
	w = topo_widest_gpu_path(t);
	if (w != TOPO_PATH_NONE)
		S_add(read, sizeof read, "PCIe between GPUs up to %s", topo_path_name(w));
	if (t->nics) {
		w = topo_widest_nic_path(t);
		S_add(read, sizeof read, "%d NIC%s, the nearest %s from a GPU at worst", t->nics,
		      t->nics == 1 ? "" : "s", topo_path_name(w));
	}
	if (t->cpu_vendor >= 0)
		S_add(read, sizeof read, "%s CPUs", cpu_vendor_name(s->cpu));
	if (t->ignored_links)
		S_add(read, sizeof read, "%d NVLinks to itself, a CPU or a GPU not in the file left out",
		      t->ignored_links);
	out_input_str(o, "topo_read", "topology read", read);
	S_add(assumed, sizeof assumed, "GPU kind and link rates from the system's presets");
	if (ns < 0 && s->gpu.nvlink_links)
		S_add(assumed, sizeof assumed, "no NVLink in the file: the gpu preset's %u links, %s",
		      s->gpu.nvlink_links, s->nvswitch ? "through NVSwitch" : "a full mesh");
	if (!(s->from_topo & SYS_GIVEN_PCIE_PATH) && !(s->given & SYS_GIVEN_PCIE_PATH))
		S_add(assumed, sizeof assumed, "PCIe between GPUs %s (default)", pcie_path_name(s->pcie_path));
	if (!t->nics && s->have_inter)
		S_add(assumed, sizeof assumed, "no NIC in the file: %u from nics_per_node", s->nics_per_node);
	if (t->nics && !s->have_inter)
		S_add(assumed, sizeof assumed, "its NICs unused: the system has no inter link (one node)");
	if ((s->given & SYS_GIVEN_GPN) && s->gpus_per_node != (unsigned long)t->gpus)
		S_add(assumed, sizeof assumed, "%lu GPUs per node as given, not the file's %d",
		      s->gpus_per_node, t->gpus);
	if ((s->given & SYS_GIVEN_NICS) && t->nics && s->nics_per_node != (unsigned)t->nics)
		S_add(assumed, sizeof assumed, "%u NICs as given, not the file's %d", s->nics_per_node,
		      t->nics);
	out_input_str(o, "topo_assumed", "topology assumed", assumed);
}

/*
 * The system and its tiers, one line each:
 *   system: dgx-h100 (8 GPUs per node)
 *   intra: h100-nvlink4, alpha 4.00 µs, beta 370 GB/s (line rate 450 GB/s)
 *   inter: 8 x ib-ndr, alpha 4.00 µs, beta 48 GB/s each (line rate 50 GB/s)
 */
static void echo_system(const struct ctx *ctx, struct out *o)
{
	const struct system *s = &ctx->system;
	char a[32], b[32], l[32], line[320];
	int table = out_get_format(o) == FMT_TABLE;

	out_input_str(o, "system", "system", s->name);
	if (s->gpu.name)
		out_input_str(o, "gpu", "gpu", s->gpu.name);
	out_input(o, "gpus_per_node", "GPUs per node", (double)s->gpus_per_node, H_PLAIN, 6, NULL);
	units_fmt_time(a, sizeof(a), s->intra.link.alpha, 3);
	units_fmt_rate(b, sizeof(b), s->intra.link.beta, 4);
	units_fmt_rate(l, sizeof(l), s->intra.beta_line, 4);
	snprintf(line, sizeof(line), "%s, alpha %s, beta %s (line rate %s)", s->intra.name,
		 a, b, l);
	if (table) {
		out_input_str(o, "intra", "intra", line);
	} else {
		out_input_str(o, "intra", "intra", s->intra.name);
		out_input(o, "intra_alpha_s", "", s->intra.link.alpha, H_TIME, 3, NULL);
		out_input(o, "intra_beta_Bps", "", s->intra.link.beta, H_RATE, 4, NULL);
		out_input(o, "intra_beta_line_Bps", "", s->intra.beta_line, H_RATE, 4, NULL);
	}
	if (s->have_inter && s->nics_per_node) {
		units_fmt_time(a, sizeof(a), s->inter.link.alpha, 3);
		units_fmt_rate(b, sizeof(b), s->inter.link.beta, 4);
		units_fmt_rate(l, sizeof(l), s->inter.beta_line, 4);
		snprintf(line, sizeof(line), "%u x %s, alpha %s, beta %s each (line rate %s)",
			 s->nics_per_node, s->inter.name, a, b, l);
		if (table) {
			out_input_str(o, "inter", "inter", line);
		} else {
			out_input_str(o, "inter", "inter", s->inter.name);
			out_input(o, "nics_per_node", "", (double)s->nics_per_node, H_PLAIN, 6, NULL);
			out_input(o, "inter_alpha_s", "", s->inter.link.alpha, H_TIME, 3, NULL);
			out_input(o, "inter_beta_Bps", "", s->inter.link.beta, H_RATE, 4, NULL);
			out_input(o, "inter_beta_line_Bps", "", s->inter.beta_line, H_RATE, 4, NULL);
		}
	} else if (table) {
		out_input_str(o, "inter", "inter", "none (one node only)");
	}
	if (s->topo)
		echo_topo(s, o);
	out_input_str(o, "model", "model", cost_kind_name(ctx->model.kind));
	if (ctx->model.kind == COST_NCCL) {
		snprintf(line, sizeof(line), "%s%s", cpu_vendor_name(s->cpu),
			 s->cpu_given ? "" : s->cpu == CPU_INTEL ?
			 " (assumed: the system does not say; NCCL's constants for a Sapphire Rapids Xeon)" :
			 " (assumed: the system does not say)");
		out_input_str(o, "cpu", "host cpu", line);
		out_input_str(o, "nvls", "NVLink SHARP", s->nvls ? "yes" : "no");
		if (s->have_inter && s->nics_per_node && s->nic_ports > 1 &&
		    s->nics_per_node % s->nic_ports == 0) {
			units_fmt_rate(l, sizeof(l), s->nic_ports * s->inter.beta_line, 4);
			snprintf(line, sizeof(line), "%u of %s (%u ports merged into each)",
				 s->nics_per_node / s->nic_ports, l, s->nic_ports);
			out_input_str(o, "nccl_nics", "NICs as NCCL sees them", line);
		}
		if (s->have_inter && s->net_latency_s > 0)
			out_input(o, "net_latency_s", "network plugin latency", s->net_latency_s,
				  H_TIME, 4, NULL);
		if (ctx->nccl_version)
			out_input_str(o, "nccl_version", "NCCL version", ctx->nccl_version);
		if (ctx->nccl_algo)
			out_input_str(o, "nccl_algo", "NCCL_ALGO", ctx->nccl_algo);
		if (ctx->nccl_proto)
			out_input_str(o, "nccl_proto", "NCCL_PROTO", ctx->nccl_proto);
	}
}

/*
 * The NCCL_ALGO or NCCL_PROTO a log says its run had (value) into *mask
 * unless the option was given (given); the echo goes to said (size n)
 * and *echo.  A list NCCL reads but this model does not (per-collective,
 * "allreduce:tree") is said and left out.
 */
static void S_list_from_log(const char *value, const char *given,
			    int (*parse)(const char *, unsigned *, struct errbuf *),
			    unsigned *mask, char *said, size_t n, const char **echo)
{
	struct errbuf eb;
	unsigned v;

	if (given || !value[0])
		return;
	if (parse(value, &v, &eb) < 0)
		snprintf(said, n, "%s (from the log; not read: %.120s)", value, eb.msg);
	else {
		*mask = v;
		snprintf(said, n, "%s (from the log)", value);
	}
	*echo = said;
}

void ctx_nccl_from_log(struct ctx *ctx, const struct meas *m, struct nccl_cost *nc)
{
	static char said[80], algo_said[NCCL_LIST_MAX + 160], proto_said[NCCL_LIST_MAX + 160];
	struct nccl_params v;
	struct errbuf eb;

	S_list_from_log(m->nccl_algo, global_args.nccl_algo, nccl_algo_mask,
			&nc->algo_mask, algo_said, sizeof(algo_said), &ctx->nccl_algo);
	S_list_from_log(m->nccl_proto, global_args.proto, nccl_proto_mask,
			&nc->proto_mask, proto_said, sizeof(proto_said), &ctx->nccl_proto);
	if (ctx->nccl_version || !m->nccl_version[0])
		return;
	if (nccl_params_version(m->nccl_version, &v, &eb) < 0)
		snprintf(said, sizeof(said), "%s (from the log; not modelled: 2.30.7's tuning)",
			 m->nccl_version);
	else if (nc->machine.sm >= 100 && v.version < 229)
		snprintf(said, sizeof(said), "%s (from the log; Blackwell: 2.30.7's tuning)",
			 m->nccl_version);
	else {
		nc->params = v;
		snprintf(said, sizeof(said), "%s (from the log)", m->nccl_version);
	}
	ctx->nccl_version = said;
}

void ctx_echo_link(const struct ctx *ctx, struct out *o)
{
	const char *pname = ctx->have_preset ? ctx->preset.name : NULL;
	char note[160];

	if (ctx->have_system) {
		echo_system(ctx, o);
		return;
	}

	if (pname)
		out_input_str(o, "preset", "preset", pname);
	snprintf(note, sizeof(note), "%s", !strcmp(ctx->alpha_src, "preset") && pname ?
		 "from the preset" : !strcmp(ctx->alpha_src, "default") ?
		 "default; set with --alpha or --preset" : "");
	out_input(o, "alpha_s", "alpha", ctx->model.link.alpha, H_TIME, 3, note[0] ? note : NULL);
	snprintf(note, sizeof(note), "%s", !strcmp(ctx->beta_src, "preset") && pname ?
		 "from the preset" : !strcmp(ctx->beta_src, "default") ?
		 "default; set with --beta or --preset" : "");
	out_input(o, "beta_Bps", "beta", ctx->model.link.beta, H_RATE, 4, note[0] ? note : NULL);
	if (ctx->model.link.gamma > 0)
		out_input(o, "gamma_sPerB", "gamma", ctx->model.link.gamma, H_PLAIN, 4, "s/B");
}

static const struct column cross_cols[] = {
	{ .key = "ranks", .label = "ranks", .type = COL_INT, .width = 5 },
	{ .key = "algo_a", .label = "a", .type = COL_STR },
	{ .key = "algo_b", .label = "b", .type = COL_STR },
	{ .key = "size_B", .label = "crossover", .type = COL_NUM, .human = H_SIZE, .width = 9 },
	{ .key = "time_s", .label = "time there", .type = COL_NUM, .human = H_TIME, .prec = 4, .width = 10 },
	{ .key = "note", .label = "note", .type = COL_STR },
};

void write_crossovers(struct out *o, const struct ctx *ctx, enum coll_op op,
		      const struct dlist *ranks, const enum coll_algo *algos, int nalgo,
		      int secondary)
{
	struct table t = { "crossover",
			   "crossover sizes: where two algorithms take equal time",
			   cross_cols, sizeof(cross_cols) / sizeof(cross_cols[0]), secondary };
	/* The CSV contract is ranks,algo_a,algo_b,size_B, then extras. */
	static const struct column csv_cols[] = {
		{ .key = "ranks", .label = "ranks", .type = COL_INT },
		{ .key = "algo_a", .label = "a", .type = COL_STR },
		{ .key = "algo_b", .label = "b", .type = COL_STR },
		{ .key = "size_B", .label = "crossover", .type = COL_NUM, .human = H_SIZE },
		{ .key = "note", .label = "note", .type = COL_STR },
		{ .key = "time_s", .label = "time there", .type = COL_NUM, .human = H_TIME, .prec = 4 },
	};
	struct column cols[sizeof(cross_cols) / sizeof(cross_cols[0])];
	struct cell cells[6];
	char note[96];
	size_t i;
	int a, b;

	/* CSV holds the first table only: solve nothing it would not print. */
	if (secondary && ctx->format == FMT_CSV)
		return;

	/* The names are as wide as the longest chosen, so the rows line up. */
	memcpy(cols, cross_cols, sizeof(cols));
	for (a = 0; a < nalgo; a++) {
		int w = (int)strlen(coll_algo_name(algos[a]));

		if (w > cols[1].width)
			cols[1].width = cols[2].width = w;
	}
	t.cols = ctx->format == FMT_TABLE ? cols : csv_cols;
	out_table_begin(o, &t);
	for (i = 0; i < ranks->n; i++) {
		unsigned long n = (unsigned long)ranks->v[i];

		for (a = 0; a < nalgo; a++)
			for (b = a + 1; b < nalgo; b++) {
				const char *na = coll_algo_name(algos[a]), *nb = coll_algo_name(algos[b]);
				struct crossing c;
				struct errbuf eb;
				double tc = NAN;

				struct group g = { .ranks = n };

				if (crossover_coll(&ctx->model, op, algos[a], algos[b], &g,
						   CROSS_LO, CROSS_HI, &c, &eb) < 0)
					die("%d ranks, %s vs %s: %s", (int)n, na, nb, eb.msg);
				switch (c.result) {
				case CROSS_FOUND:
					snprintf(note, sizeof(note), "%s faster below, %s above",
						 c.below ? nb : na, c.below ? na : nb);
					tc = cost_time(&ctx->model, op, algos[a], n, c.bytes);
					break;
				case CROSS_A_ALWAYS:
					snprintf(note, sizeof(note), "%s always faster", na);
					break;
				case CROSS_B_ALWAYS:
					snprintf(note, sizeof(note), "%s always faster", nb);
					break;
				case CROSS_EQUAL:
					snprintf(note, sizeof(note), n <= 1 ?
						 "no communication on 1 rank" : "equal at every size");
					break;
				}
				cells[0] = (struct cell){ NULL, ranks->v[i] };
				cells[1] = (struct cell){ na, 0 };
				cells[2] = (struct cell){ nb, 0 };
				if (ctx->format == FMT_TABLE) {
					cells[3] = (struct cell){ NULL, c.bytes };
					cells[4] = (struct cell){ NULL, tc };
					cells[5] = (struct cell){ note, 0 };
				} else {
					cells[3] = (struct cell){ NULL, c.bytes };
					cells[4] = (struct cell){ note, 0 };
					cells[5] = (struct cell){ NULL, tc };
				}
				out_row(o, cells);
			}
	}
	out_table_end(o);
}

/* The image a --plot script draws when --render does not name one:
 * the script's name with .svg for .gp. */
static char *default_image(const char *script)
{
	size_t n = strlen(script);
	char *img = xmalloc(n + 5);

	memcpy(img, script, n + 1);
	if (n > 3 && !strcmp(script + n - 3, ".gp"))
		img[n - 3] = '\0';
	strcat(img, ".svg");
	return img;
}

char *ctx_script_image(const struct ctx *ctx)
{
	char *name = ctx->render ? xstrdup(ctx->render) : default_image(ctx->plot);
	char *img;
	struct errbuf eb;

	img = plot_output_name(name, &eb);
	free(name);
	if (!img)
		die_usage("%s: %s", ctx->render ? "--render" : "--plot", eb.msg);
	return img;
}

/*
 * Run gnuplot on the figure's script and copy the image it draws into o.
 * The script names no output file: gnuplot draws to its standard output,
 * a pipe read here, so no name from the command line ever reaches gnuplot
 * (nothing to pipe into a command, no '~' to expand, nothing to cut), and
 * no shell runs.  The script goes in through another pipe; both are
 * served by one poll() loop, because gnuplot may write a panel's image
 * before it has read the whole script.  gnuplot exits 0 after write
 * errors of its own, so the image is checked for its end before it may
 * replace anything.
 */
static void render(const struct figure *f, const char *term, struct outfile *o,
		   const char *shown)
{
	struct sigaction ign, old;
	posix_spawn_file_actions_t fa;
	char *gargv[] = { "gnuplot", NULL };
	unsigned char buf[1 << 16], head[16], tail[64];
	size_t nhead = 0, ntail = 0, sent = 0, slen = 0, total = 0;
	char *script = NULL;
	struct errbuf eb;
	int to[2], from[2], st, status;
	FILE *ms, *img = outfile_stream(o);
	pid_t pid;

	ms = open_memstream(&script, &slen);
	if (!ms)
		die("cannot render '%s':", shown);
	if (plot_write(f, ms, term, NULL, &eb) < 0 || fclose(ms) != 0)
		die("cannot render '%s': %s", shown, eb.msg);
	if (pipe(to) < 0 || pipe(from) < 0)
		die("cannot start gnuplot:");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, to[0], 0);
	posix_spawn_file_actions_adddup2(&fa, from[1], 1);
	posix_spawn_file_actions_addclose(&fa, to[0]);
	posix_spawn_file_actions_addclose(&fa, to[1]);
	posix_spawn_file_actions_addclose(&fa, from[0]);
	posix_spawn_file_actions_addclose(&fa, from[1]);
	st = posix_spawnp(&pid, "gnuplot", &fa, NULL, gargv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(to[0]);
	close(from[1]);
	if (st) {
		close(to[1]);
		close(from[0]);
		free(script);
		if (st == ENOENT)
			die("cannot render '%s': gnuplot is not on PATH; install it "
			    "(Debian: apt-get install gnuplot-nox)", shown);
		die("cannot run gnuplot: %s", strerror(st));
	}
	/* gnuplot may stop reading early; that is its error to report, not a
	 * signal that kills us. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &ign, &old);
	fcntl(to[1], F_SETFL, fcntl(to[1], F_GETFL) | O_NONBLOCK);
	for (;;) {
		struct pollfd pf[2] = {
			{ .fd = to[1], .events = POLLOUT },
			{ .fd = from[0], .events = POLLIN },
		};
		ssize_t n;

		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("cannot render '%s':", shown);
		}
		if (to[1] >= 0 && pf[0].revents) {
			n = write(to[1], script + sent, slen - sent);
			if (n > 0)
				sent += (size_t)n;
			if ((n < 0 && errno != EAGAIN && errno != EINTR) || sent == slen) {
				close(to[1]);
				to[1] = -1;
			}
		}
		if (!pf[1].revents)
			continue;
		n = read(from[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (nhead < sizeof(head)) {
			size_t k = (size_t)n < sizeof(head) - nhead ? (size_t)n : sizeof(head) - nhead;

			memcpy(head + nhead, buf, k);
			nhead += k;
		}
		if ((size_t)n >= sizeof(tail)) {
			memcpy(tail, buf + n - sizeof(tail), sizeof(tail));
			ntail = sizeof(tail);
		} else {
			size_t keep = ntail + (size_t)n > sizeof(tail) ? sizeof(tail) - (size_t)n : ntail;

			memmove(tail, tail + ntail - keep, keep);
			memcpy(tail + keep, buf, (size_t)n);
			ntail = keep + (size_t)n;
		}
		total += (size_t)n;
		/* A write error shows in outfile_commit, with its reason; the
		 * rest of the image is read and dropped. */
		errno = 0;
		if (!ferror(img) && fwrite(buf, 1, (size_t)n, img) != (size_t)n)
			outfile_fail(o, errno);
	}
	if (to[1] >= 0)
		close(to[1]);
	close(from[0]);
	free(script);
	sigaction(SIGPIPE, &old, NULL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			die("cannot wait for gnuplot:");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("gnuplot failed to render '%s' (see its message above)", shown);
	if (!total)
		die("gnuplot drew nothing into '%s'", shown);
	if (!ferror(img) && !plot_image_complete(term, head, nhead, tail, ntail))
		die("gnuplot wrote an incomplete %s image for '%s'", term, shown);
}

void ctx_figure(const struct ctx *ctx, struct figure *f)
{
	struct errbuf eb;
	struct outfile *o;

	if (ctx->fig_width > 0) {
		f->width = ctx->fig_width;
		f->height = ctx->fig_height;
	}
	if (ctx->fig_title) {
		free(f->title);
		f->title = xstrdup(ctx->fig_title);
		/* one panel carries the figure's title itself */
		if (f->npanels == 1) {
			free(f->panels[0].title);
			f->panels[0].title = xstrdup(ctx->fig_title);
		}
	}

	if (ctx->plot) {
		char *img = ctx_script_image(ctx);
		const char *term = plot_terminal_for(ctx->render ? ctx->render : ".svg");

		o = outfile_open(ctx->plot, &eb);
		if (!o)
			die("%s", eb.msg);
		if (plot_write(f, outfile_stream(o), term, img, &eb) < 0) {
			outfile_abort(o);
			die("%s", eb.msg);
		}
		free(img);
		if (outfile_commit(o, &eb) < 0)
			die("%s", eb.msg);
	}
	if (ctx->render) {
		o = outfile_open(ctx->render, &eb);
		if (!o)
			die("%s", eb.msg);
		render(f, plot_terminal_for(ctx->render), o, ctx->render);
		if (outfile_commit(o, &eb) < 0)
			die("%s", eb.msg);
	}
}

char *ctx_link_text(const struct ctx *ctx, char *buf, size_t len)
{
	char a[32], b[32];

	if (ctx->have_system) {
		snprintf(buf, len, "%s (%s model)", ctx->system.name,
			 cost_kind_name(ctx->model.kind));
		return buf;
	}
	units_fmt_time(a, sizeof(a), ctx->model.link.alpha, 3);
	units_fmt_rate(b, sizeof(b), ctx->model.link.beta, 4);
	if (ctx->have_preset)
		snprintf(buf, len, "\xce\xb1 = %s, \xce\xb2 = %s (%s)", a, b, ctx->preset.name);
	else
		snprintf(buf, len, "\xce\xb1 = %s, \xce\xb2 = %s", a, b);
	return buf;
}

char *fig_size_text(char *buf, size_t len, double bytes)
{
	static const char *const bin[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double q = bytes;
	int k = 0;

	while (q >= 1024 && k < 5) {
		q /= 1024;
		k++;
	}
	snprintf(buf, len, "%.4g %s", q, bin[k]);
	return buf;
}

void fig_whole_decades(struct panel *p)
{
	double lo = INFINITY, hi = 0;
	size_t i, j;

	for (i = 0; i < p->nseries; i++)
		for (j = 0; j < p->series[i].n; j++) {
			double y = p->series[i].data[j * (size_t)p->series[i].ncols + 1];

			if (y > 0 && y < lo)
				lo = y;
			if (y > hi)
				hi = y;
		}
	if (lo <= hi && hi / lo < 10) {
		p->ymin = pow(10, floor(log10(lo / 3)));
		p->ymax = pow(10, ceil(log10(hi * 3)));
	}
}

int ctx_wants_figure(const struct ctx *ctx)
{
	return ctx->plot || ctx->render;
}

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

int ctx_step_coll(void *arg, enum coll_op op, unsigned long ranks, unsigned long per_node,
		  double bytes, struct step_coll *out, struct errbuf *eb)
{
	const struct ctx *ctx = arg;
	const struct cost_model *m = &ctx->model;
	struct group g = { .ranks = ranks, .per_node = per_node };
	struct coll_cost c;
	enum coll_algo a = cost_algo_preferred(m, op);

	if (cost_coll(m, op, a, &g, bytes, &c, eb) < 0)
		return -1;
	out->time_s = c.time_s;
	out->tier = m->kind == COST_LINK ? "link" : tier_name(c.bound);
	return 0;
}

int ctx_gpu(const struct ctx *ctx, const char *name, const char *fallback, struct ctx_gpu *g)
{
	struct preset p;
	struct gpu_spec s;
	struct errbuf eb;

	memset(g, 0, sizeof(*g));
	if (!name && ctx->have_system) {
		snprintf(g->name, sizeof(g->name), "%s", ctx->system.gpu.name ? ctx->system.gpu.name : "?");
		g->peak_flops = ctx->system.gpu.bf16_flops;
		g->memory_B = ctx->system.gpu.memory_B;
		g->from = "system";
		return 1;
	}
	if (!name && !fallback)
		return 0;
	if (preset_load(&ctx->dirs, name ? name : fallback, &p, &eb) < 0)
		die("--gpu: %s", eb.msg);
	if (gpu_from_preset(&p, &s, &eb) < 0) {
		preset_release(&p);
		die("--gpu: %s", eb.msg);
	}
	preset_release(&p);
	snprintf(g->name, sizeof(g->name), "%s", s.name);
	g->peak_flops = s.bf16_flops;
	g->memory_B = s.memory_B;
	g->from = name ? "option" : "default";
	free(s.name);
	free(s.description);
	return 1;
}
