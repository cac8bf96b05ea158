/*
 * The output of a command: opening and closing it, and the echo of its
 * inputs (the link, the system and its tiers, what a log set).
 */
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "outfile.h"
#include "measfile.h"

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
 * The intra and inter tiers: in a table one line each, in CSV and JSON
 * each name and value apart.
 */
static void echo_tiers(const struct system *s, struct out *o, int table)
{
	char a[32], b[32], l[32], line[320];

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
}

/* NVLink without a switch and no topology file: say how the graph was assumed. */
static void echo_nvlink_graph(const struct system *s, struct out *o)
{
	unsigned long peers = s->gpus_per_node - 1;
	char line[320];

	if (s->gpu.nvlink_links >= peers && s->gpus_per_node <= NCCL_MAX_LOCAL)
		snprintf(line, sizeof(line), "assumed a full mesh of %lu links a pair (no "
			 "topology file: --topo or the key topo gives the real one)",
			 s->gpu.nvlink_links / peers);
	else
		snprintf(line, sizeof(line), "unknown: %u links for %lu peers, spread evenly "
			 "(no topology file: --topo or the key topo gives which pairs have how many)",
			 s->gpu.nvlink_links, peers);
	out_input_str(o, "nvlink_graph", "NVLink graph", line);
}

/*
 * What NCCL's model reads beyond the tiers: the host CPU, NVLink SHARP,
 * CollNet, the NICs as NCCL merges them, and what the options set.
 */
static void echo_nccl(const struct ctx *ctx, struct out *o)
{
	const struct system *s = &ctx->machine.system;
	char l[32], line[320];

	snprintf(line, sizeof(line), "%s%s", cpu_vendor_name(s->cpu),
		 s->cpu_given ? "" : s->cpu == CPU_INTEL ?
		 " (assumed: the system does not say; NCCL's constants for a Sapphire Rapids Xeon)" :
		 " (assumed: the system does not say)");
	out_input_str(o, "cpu", "host cpu", line);
	out_input_str(o, "nvls", "NVLink SHARP", s->nvls ? "yes" : "no");
	if (s->collnet && s->have_inter)
		out_input_str(o, "collnet", "CollNet",
			      "yes (SHARP in the network switches, NCCL's CollNet plugin)");
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
	if (ctx->machine.nccl_version)
		out_input_str(o, "nccl_version", "NCCL version", ctx->machine.nccl_version);
	if (s->gdr_off)
		out_input_str(o, "gdr", "GPUDirect RDMA",
			      "no (the network is staged through host memory)");
	if (ctx->machine.gpus_per_process)
		out_input_str(o, "gpus_per_process", "GPUs per process",
			      ctx->machine.gpus_per_process);
	if (ctx->machine.nccl_algo)
		out_input_str(o, "nccl_algo", "NCCL_ALGO", ctx->machine.nccl_algo);
	if (ctx->machine.nccl_proto)
		out_input_str(o, "nccl_proto", "NCCL_PROTO", ctx->machine.nccl_proto);
}

/*
 * The system and its tiers, one line each:
 *   system: dgx-h100 (8 GPUs per node)
 *   intra: h100-nvlink4, alpha 4.00 µs, beta 370 GB/s (line rate 450 GB/s)
 *   inter: 8 x ib-ndr, alpha 4.00 µs, beta 48 GB/s each (line rate 50 GB/s)
 */
static void echo_system(const struct ctx *ctx, struct out *o)
{
	const struct system *s = &ctx->machine.system;
	char line[320];
	int table = out_get_format(o) == FMT_TABLE;

	out_input_str(o, "system", "system", s->name);
	if (s->gpu.name)
		out_input_str(o, "gpu", "gpu", s->gpu.name);
	out_input(o, "gpus_per_node", "GPUs per node", (double)s->gpus_per_node, H_PLAIN, 6, NULL);
	if (s->host_gpus && s->host_gpus != s->gpus_per_node && table) {
		snprintf(line, sizeof(line), "%lu GPUs over %lu hosts of %lu: NCCL's node",
			 s->gpus_per_node, s->gpus_per_node / s->host_gpus, s->host_gpus);
		out_input_str(o, "nvlink_domain", "NVLink domain", line);
	}
	if (s->net != NET_RDMA)
		out_input_str(o, "net", "network transport", system_net_name(s->net));
	echo_tiers(s, o, table);
	if (s->topo)
		echo_topo(s, o);
	else if (ctx->machine.model.kind == COST_NCCL && !s->nvswitch && s->gpu.nvlink_links &&
		 s->gpus_per_node > 1)
		echo_nvlink_graph(s, o);
	out_input_str(o, "model", "model", cost_kind_name(ctx->machine.model.kind));
	if (ctx->machine.model.calib_of) {
		snprintf(line, sizeof(line), "every collective x measured/predicted of its cell "
			 "(%s; fit --trace)", ctx->machine.calib.from);
		out_input_str(o, "calibration", "calibrated by a trace", line);
	}
	if (ctx->machine.model.kind == COST_NCCL)
		echo_nccl(ctx, o);
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
	static char said[128], algo_said[NCCL_LIST_MAX + 160], proto_said[NCCL_LIST_MAX + 160];
	struct nccl_params v;
	struct errbuf eb;
	int nearest;

	S_list_from_log(m->nccl_algo, global_args.nccl_algo, nccl_algo_mask,
			&nc->algo_mask, algo_said, sizeof(algo_said), &ctx->machine.nccl_algo);
	S_list_from_log(m->nccl_proto, global_args.proto, nccl_proto_mask,
			&nc->proto_mask, proto_said, sizeof(proto_said), &ctx->machine.nccl_proto);
	/* nccl-tests' banner, "# nThread 1 nGpus 8": one host thread launched
	 * 8 GPUs (-g 8); one GPU a thread is the default and not said */
	if (!global_args.gpus_per_process && m->gpus_per_thread > 1) {
		static char gsaid[96];
		nc->gpus_per_process = (unsigned)(m->gpus_per_thread > 1024 ? 1024 : m->gpus_per_thread);
		snprintf(gsaid, sizeof(gsaid), "%u (from the log's banner: nGpus %lu, nccl-tests -g %lu)",
			 nc->gpus_per_process, m->gpus_per_thread, m->gpus_per_thread);
		ctx->machine.gpus_per_process = gsaid;
	}
	if (ctx->machine.nccl_version || !m->nccl_version[0])
		return;
	if (nccl_params_nearest(m->nccl_version, &v, &nearest, &eb) < 0)
		snprintf(said, sizeof(said), "%s (from the log; not read: 2.30.7's tuning)",
			 m->nccl_version);
	else if (nc->machine.sm >= 100 && v.version < 229)
		snprintf(said, sizeof(said), "%s (from the log; Blackwell: 2.30.7's tuning)",
			 m->nccl_version);
	else if (nearest) {
		/* a log of an NCCL outside the modelled tunings: the nearest one */
		nc->params = v;
		snprintf(said, sizeof(said), "%s (from the log; %s the modelled tunings: "
			 "NCCL %d.%d's, the nearest)", m->nccl_version,
			 nearest == NCCL_VERSION_MIN ? "older than" : "newer than",
			 nearest / 100, nearest % 100);
	} else {
		nc->params = v;
		snprintf(said, sizeof(said), "%s (from the log)", m->nccl_version);
	}
	ctx->machine.nccl_version = said;
}

const char *ctx_nccl_priced(const struct ctx *ctx)
{
	return global_args.nccl_version ? global_args.nccl_version : NCCL_PARAMS_DEFAULT_NAME;
}

void ctx_nccl_say_default(struct ctx *ctx)
{
	if (ctx->machine.model.kind == COST_NCCL && !ctx->machine.nccl_version)
		ctx->machine.nccl_version = NCCL_PARAMS_DEFAULT_NAME " (the model's own; a log's version or "
				    "--nccl-version V prices another)";
}

void ctx_echo_link_values(const struct ctx *ctx, struct out *o)
{
	const char *pname = ctx->machine.have_preset ? ctx->machine.preset.name : NULL;
	char note[160];

	if (ctx->machine.have_system) {
		echo_system(ctx, o);
		return;
	}

	if (pname)
		out_input_str(o, "preset", "preset", pname);
	snprintf(note, sizeof(note), "%s", !strcmp(ctx->machine.alpha_src, "preset") && pname ?
		 "from the preset" : !strcmp(ctx->machine.alpha_src, "default") ?
		 "default; set with --alpha or --preset" : "");
	out_input(o, "alpha_s", "alpha", ctx->machine.model.link.alpha, H_TIME, 3, note[0] ? note : NULL);
	snprintf(note, sizeof(note), "%s", !strcmp(ctx->machine.beta_src, "preset") && pname ?
		 "from the preset" : !strcmp(ctx->machine.beta_src, "default") ?
		 "default; set with --beta or --preset" : "");
	out_input(o, "beta_Bps", "beta", ctx->machine.model.link.beta, H_RATE, 4, note[0] ? note : NULL);
	if (ctx->machine.model.link.gamma > 0)
		out_input(o, "gamma_sPerB", "gamma", ctx->machine.model.link.gamma, H_PLAIN, 4, "s/B");
}

void ctx_echo_link(const struct ctx *ctx, struct out *o)
{
	ctx_echo_link_values(ctx, o);
	if (ctx->machine.have_fit && !ctx->machine.have_system)
		out_input_str(o, "model", "model", "the preset's regimes");
}
