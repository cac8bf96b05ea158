/*
 * Systems and GPUs: presets of kind `system` and `gpu`, resolved down to
 * their link presets.  Keys, defaults and sources: models/system.md.
 *
 * Every value is checked when the preset loads, and every message names
 * the file, the line and the key: a system that half-loads would give
 * plausible but wrong times for every collective.
 */
#define _XOPEN_SOURCE 700  /* realpath */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "system.h"
#include "trace_calib.h"

static const char *const arch_names[ARCH_COUNT] = {
	[ARCH_UNKNOWN] = "unknown", [ARCH_SM70] = "sm70", [ARCH_SM75] = "sm75",
	[ARCH_SM80] = "sm80", [ARCH_SM86] = "sm86", [ARCH_SM89] = "sm89",
	[ARCH_SM90] = "sm90", [ARCH_SM100] = "sm100", [ARCH_SM103] = "sm103",
	[ARCH_SM120] = "sm120", [ARCH_SM121] = "sm121", [ARCH_GFX942] = "gfx942",
	[ARCH_GFX950] = "gfx950",
};

const char *gpu_arch_name(enum gpu_arch a)
{
	return (unsigned)a < ARCH_COUNT ? arch_names[a] : "?";
}

int gpu_arch_has_fp8(enum gpu_arch a)
{
	switch (a) {
	case ARCH_UNKNOWN:
	case ARCH_SM70:
	case ARCH_SM75:
	case ARCH_SM80:
	case ARCH_SM86:
	case ARCH_COUNT:
		return 0;
	default:
		return 1;
	}
}

int gpu_arch_amd(enum gpu_arch a)
{
	return a == ARCH_GFX942 || a == ARCH_GFX950;
}

static const char *const net_names[NET_COUNT] = {
	[NET_RDMA] = "rdma", [NET_IB] = "ib", [NET_ROCE] = "roce", [NET_EFA] = "efa",
	[NET_SLINGSHOT] = "slingshot", [NET_SOCKET] = "socket",
};

const char *system_net_name(enum system_net n)
{
	return (unsigned)n < NET_COUNT ? net_names[n] : "?";
}

static const char *const path_names[PCIE_PATH_COUNT] = {
	[PCIE_PIX] = "pix", [PCIE_PXB] = "pxb", [PCIE_PHB] = "phb",
	[PCIE_NODE] = "node", [PCIE_SYS] = "sys",
};

const char *pcie_path_name(enum pcie_path p)
{
	return (unsigned)p < PCIE_PATH_COUNT ? path_names[p] : "?";
}

static const char *const model_names[SYSTEM_MODEL_COUNT] = {
	[SYSTEM_MODEL_DEFAULT] = "default", [SYSTEM_MODEL_NCCL] = "nccl",
	[SYSTEM_MODEL_TIERS] = "tiers",
};

const char *system_model_name(enum system_model m)
{
	return (unsigned)m < SYSTEM_MODEL_COUNT ? model_names[m] : "?";
}

static const char *const cpu_names[CPU_VENDOR_COUNT] = {
	[CPU_INTEL] = "intel", [CPU_AMD] = "amd", [CPU_ARM] = "arm",
};

const char *cpu_vendor_name(enum cpu_vendor c)
{
	return (unsigned)c < CPU_VENDOR_COUNT ? cpu_names[c] : "?";
}

static const char *const tier_names[TIER_COUNT] = {
	[TIER_INTRA] = "intra", [TIER_INTER] = "inter",
};

const char *tier_name(enum tier_id t)
{
	return (unsigned)t < TIER_COUNT ? tier_names[t] : "?";
}

/* ---- reading keys ---- */

/* "file:line: key" prefix of a message about key (line of `kind` when absent). */
static int key_line(const struct preset *p, const char *key)
{
	int line = preset_line(p, key);

	return line ? line : preset_line(p, "kind");
}

/* A key that is absent: 0, or -1 (eb filled) when it is required. */
static int absent(const struct preset *p, const char *key, int required, struct errbuf *eb)
{
	if (required)
		return errbuf_set(eb, "%s:%d: %s: required key missing from this %s preset",
				  p->path, key_line(p, key), key, p->kind);
	return 0;
}

/* A required or optional whole number in [lo, hi]; 1 found, 0 absent, -1 error. */
static int get_count(const struct preset *p, const char *key, int required, double lo,
		     double hi, unsigned long *x, struct errbuf *eb)
{
	double v;
	int r = preset_get_quantity(p, key, Q_COUNT, &v, eb);

	if (r < 0)
		return -1;
	if (!r)
		return absent(p, key, required, eb);
	if (v < lo || v > hi)
		return errbuf_set(eb, "%s:%d: %s must be %s%g, got '%s'", p->path,
				  key_line(p, key), key, v < lo ? "at least " : "at most ",
				  v < lo ? lo : hi, preset_get(p, key));
	*x = (unsigned long)v;
	return 1;
}

/* A quantity > 0 (and finite); 1 found, 0 absent, -1 error. */
static int get_positive(const struct preset *p, const char *key, enum quantity q,
			int required, double *x, struct errbuf *eb)
{
	int r = preset_get_quantity(p, key, q, x, eb);

	if (r < 0)
		return -1;
	if (!r)
		return absent(p, key, required, eb);
	if (!(*x > 0) || !isfinite(*x))
		return errbuf_set(eb, "%s:%d: %s must be positive, got '%s'", p->path,
				  key_line(p, key), key, preset_get(p, key));
	return 1;
}

/*
 * A quantity in (0, hi] (lo_zero: [0, hi]), finite, with the unit its
 * message states; 1 found, 0 absent (*x untouched), -1 error.  The bounds
 * are those of models/system.md, "Bounds": past them no product of the
 * model (a time, a cost) stays a number.
 */
static int get_bounded(const struct preset *p, const char *key, enum quantity q,
		       int required, int lo_zero, double hi, const char *unit, double *x,
		       struct errbuf *eb)
{
	double v;
	int r = lo_zero ? preset_get_quantity(p, key, q, &v, eb) :
		get_positive(p, key, q, required, &v, eb);

	if (r < 0)
		return -1;
	if (!r)
		return absent(p, key, required, eb);
	if (!(lo_zero ? v >= 0 : v > 0) || !(v <= hi))
		return errbuf_set(eb, "%s:%d: %s must be %s and at most %g%s, got '%s'", p->path,
				  key_line(p, key), key, lo_zero ? "0 or more" : "positive", hi,
				  unit, preset_get(p, key));
	*x = v;
	return 1;
}

/* yes/no; *x untouched when absent.  0 or -1. */
static int get_bool(const struct preset *p, const char *key, int *x, struct errbuf *eb)
{
	const char *v = preset_get(p, key);

	if (!v)
		return 0;
	if (!strcmp(v, "yes"))
		*x = 1;
	else if (!strcmp(v, "no"))
		*x = 0;
	else
		return errbuf_set(eb, "%s:%d: %s must be yes or no, got '%s'", p->path,
				  key_line(p, key), key, v);
	return 0;
}

/* One of names[0..n-1]; *x untouched when absent.  0 or -1. */
static int get_enum(const struct preset *p, const char *key, const char *const *names,
		    int first, int n, int *x, struct errbuf *eb)
{
	const char *v = preset_get(p, key);
	char choices[160];
	size_t used = 0;
	int i;

	if (!v)
		return 0;
	for (i = first; i < n; i++)
		if (!strcmp(v, names[i])) {
			*x = i;
			return 0;
		}
	choices[0] = '\0';
	for (i = first; i < n && used < sizeof(choices); i++)
		used += (size_t)snprintf(choices + used, sizeof(choices) - used, "%s%s",
					 i > first ? ", " : "", names[i]);
	return errbuf_set(eb, "%s:%d: %s: unknown value '%s' (choose from %s)", p->path,
			  key_line(p, key), key, v, choices);
}

static int check_kind(const struct preset *p, const char *kind, struct errbuf *eb)
{
	if (!p->kind || strcmp(p->kind, kind))
		return errbuf_set(eb, "%s:%d: preset '%s' is of kind '%s', not a %s", p->path,
				  preset_line(p, "kind"), p->name ? p->name : "?",
				  p->kind ? p->kind : "?", kind);
	return 0;
}

/* ---- gpu ---- */

/*
 * tflops_fp8 and power_w, both optional.  FP8 tensor cores came with Ada
 * (sm89) and Hopper (sm90) (NVIDIA Hopper architecture whitepaper, 2022;
 * Ada Lovelace whitepaper, 2022): an FP8 peak on an older arch is refused.
 */
static int gpu_fp8_power(const struct preset *p, struct gpu_spec *t, struct errbuf *eb)
{
	double tflops = 0;

	if (get_bounded(p, "tflops_fp8", Q_NUMBER, 0, 0, GPU_TFLOPS_MAX, " TFLOP/s", &tflops,
			eb) < 0 ||
	    get_bounded(p, "power_w", Q_NUMBER, 0, 0, GPU_POWER_MAX, " W", &t->power_w, eb) < 0)
		return -1;
	if (tflops > 0 && !gpu_arch_has_fp8(t->arch))
		return errbuf_set(eb, "%s:%d: tflops_fp8: %s has no FP8 tensor cores (FP8 came "
				  "with sm89 and sm90)", p->path, key_line(p, "tflops_fp8"),
				  gpu_arch_name(t->arch));
	t->fp8_flops = tflops * 1e12;
	return 0;
}

/*
 * The GPU's links to its peers: nvlink_links and nvlink_link_beta for
 * NVIDIA's GPUs, xgmi_links and xgmi_link_beta for AMD's (design.md,
 * section four); each pair both or neither, and each kind only on its
 * vendor's architecture.
 */
static int S_gpu_links(const struct preset *p, struct gpu_spec *t, struct errbuf *eb)
{
	int amd = gpu_arch_amd(t->arch);
	const char *lk = amd ? "xgmi_links" : "nvlink_links";
	const char *bk = amd ? "xgmi_link_beta" : "nvlink_link_beta";
	const char *other = amd ? "nvlink_links" : "xgmi_links";
	unsigned long links = 0;
	int r;

	if (preset_get(p, other) || preset_get(p, amd ? "nvlink_link_beta" : "xgmi_link_beta"))
		return errbuf_set(eb, "%s:%d: %s: not a link of an %s GPU (arch %s): use %s",
				  p->path, key_line(p, other), other, amd ? "AMD" : "NVIDIA",
				  gpu_arch_name(t->arch), lk);
	if (get_count(p, lk, 0, 0, 64, &links, eb) < 0)
		return -1;
	t->nvlink_links = (unsigned)links;
	r = get_bounded(p, bk, Q_RATE, links > 0, 0, LINK_BETA_MAX, " B/s", &t->nvlink_link_Bps,
			eb);
	if (r < 0)
		return -1;
	if (r && !links)
		return errbuf_set(eb, "%s:%d: %s given but %s is 0 or missing", p->path,
				  key_line(p, bk), bk, lk);
	return 0;
}

int gpu_from_preset(const struct preset *p, struct gpu_spec *g, struct errbuf *eb)
{
	struct gpu_spec t = { .arch = ARCH_UNKNOWN };
	unsigned long gen = 0, sms = 0;
	double tflops = 0;
	int arch = ARCH_UNKNOWN;

	if (check_kind(p, "gpu", eb) < 0)
		return -1;
	if (!preset_get(p, "arch"))
		return errbuf_set(eb, "%s:%d: arch: required key missing from this gpu preset",
				  p->path, key_line(p, "arch"));
	if (get_enum(p, "arch", arch_names, ARCH_SM70, ARCH_COUNT, &arch, eb) < 0)
		return -1;
	t.arch = (enum gpu_arch)arch;
	if (get_bounded(p, "memory", Q_SIZE, 1, 0, GPU_MEMORY_MAX, " B", &t.memory_B, eb) < 0 ||
	    get_bounded(p, "tflops_bf16", Q_NUMBER, 1, 0, GPU_TFLOPS_MAX, " TFLOP/s", &tflops,
			eb) < 0)
		return -1;
	t.bf16_flops = tflops * 1e12;
	if (S_gpu_links(p, &t, eb) < 0)
		return -1;
	if (get_count(p, "pcie_gen", 0, 1, 7, &gen, eb) < 0)
		return -1;
	t.pcie_gen = (unsigned)gen;
	/* The kernel model's keys (models/step.md, "Compute by kernel"). */
	if (get_count(p, "sms", 0, 1, 100000, &sms, eb) < 0 ||
	    get_positive(p, "hbm_bandwidth", Q_RATE, 0, &t.hbm_Bps, eb) < 0 ||
	    get_positive(p, "gemm_efficiency", Q_NUMBER, 0, &t.gemm_eff, eb) < 0 ||
	    get_positive(p, "host_link", Q_RATE, 0, &t.host_link_Bps, eb) < 0)
		return -1;
	if (t.gemm_eff > 1)
		return errbuf_set(eb, "%s:%d: gemm_efficiency: a share of the peak is at most 1, got %g",
				  p->path, key_line(p, "gemm_efficiency"), t.gemm_eff);
	t.sms = (unsigned)sms;
	if (gpu_fp8_power(p, &t, eb) < 0)
		return -1;
	t.name = xstrdup(p->name);
	t.description = xstrdup(p->description);
	*g = t;
	return 0;
}

/*
 * PCIe's x16 line rate, one direction: 2.5 and 5 GT/s a lane with 8b/10b
 * (Gen1, Gen2), 8 GT/s with 128b/130b (Gen3, 15.75 GB/s), doubling each
 * generation since (PCI Express Base Specifications 3.0 to 6.0; Gen6's
 * FLIT mode taken at its raw doubling).  Copies between host memory and
 * the GPU reach 83 % of it: nvbandwidth's host-to-device 26.3 GB/s on
 * Gen4 and 52 GB/s on Gen5 (Azure/AI-benchmarking-guide, ND_A100_v4 and
 * ND_H200_v5 results; presets/pcie5-x16.preset).
 */
#define HOST_LINK_DMA_SHARE 0.83
double system_host_link_Bps(const struct gpu_spec *g)
{
	unsigned gen = g->pcie_gen ? g->pcie_gen : 5;
	double line = gen == 1 ? 4e9 : gen == 2 ? 8e9 : 15.75e9 * (double)(1u << (gen - 3));

	if (g->host_link_Bps > 0)
		return g->host_link_Bps;
	return HOST_LINK_DMA_SHARE * line;
}

/* ---- links ---- */

static int is_path(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n >= 7 && !strcmp(s + n - 7, ".preset"));
}

/* A relative path is taken from base (a directory), when base is given. */
static char *resolve(const char *name, const char *base)
{
	char *r;

	if (!base || !is_path(name) || name[0] == '/')
		return xstrdup(name);
	r = xmalloc(strlen(base) + strlen(name) + 2);
	sprintf(r, "%s/%s", base, name);
	return r;
}

/* The directory of a file's path ("." when it has none). */
static char *dir_of(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char *d;

	if (!slash)
		return xstrdup(".");
	d = xmalloc((size_t)(slash - path) + 2);
	memcpy(d, path, (size_t)(slash - path) + (slash == path));
	d[(slash - path) + (slash == path)] = '\0';
	return d;
}

int tier_load(const struct preset_dirs *d, const char *name_or_path, const char *base,
	      struct tier *t, struct errbuf *eb)
{
	struct preset p;
	char *where = resolve(name_or_path, base);
	double line;
	int r;

	/* a "did you mean" names a link; another kind is preset_link's error */
	r = preset_load_kind(d, where, "link", &p, eb);
	free(where);
	if (r < 0)
		return -1;
	if (preset_link(&p, &t->link, eb) < 0) {
		preset_release(&p);
		return -1;
	}
	t->link.gamma = 0;
	t->beta_line = t->link.beta;
	if (preset_get_quantity(&p, "beta_line", Q_RATE, &line, eb) > 0)
		t->beta_line = line;
	t->base = 0;
	r = preset_get_quantity(&p, "base", Q_TIME, &t->base, eb);
	if (r < 0 || (r > 0 && !(t->base >= 0 && t->base <= LINK_ALPHA_MAX))) {
		if (r > 0)
			errbuf_set(eb, "%s:%d: base: must be a time from 0 to %g s", p.path,
				   preset_line(&p, "base"), LINK_ALPHA_MAX);
		preset_release(&p);
		return -1;
	}
	t->name = xstrdup(name_or_path);
	preset_release(&p);
	return 0;
}

/* ---- system ---- */

/* Prefix "file:line: key: " to a message about a preset the key names. */
static int wrap(const struct preset *p, const char *key, struct errbuf *eb)
{
	struct errbuf inner = *eb;

	return errbuf_set(eb, "%s:%d: %s: %s", p->path, key_line(p, key), key, inner.msg);
}

/*
 * nvlink_domain = N: N GPUs over N / gpus_per_node hosts in one NVLink
 * domain (an NVL72 rack: 18 hosts of 4).  NCCL counts the domain as one
 * node (its multi-node NVLink code, init.cc ncclMnnvlCheck, puts the ranks
 * of one NVLink fabric clique in one node), so the system's node becomes
 * the domain: gpus_per_node = N, the NICs of its hosts summed; the host's
 * GPUs stay in host_gpus.
 */
static int S_nvlink_domain(const struct preset *p, struct system *t, struct errbuf *eb)
{
	unsigned long dom = 0;
	int r = get_count(p, "nvlink_domain", 0, 1, 1e6, &dom, eb);

	t->host_gpus = t->gpus_per_node;
	if (r <= 0)
		return r;
	if (!t->gpu.nvlink_links || gpu_arch_amd(t->gpu.arch) || !t->nvswitch)
		return errbuf_set(eb, "%s:%d: nvlink_domain: GPUs of an NVLink domain across hosts "
				  "need NVLink through NVSwitch; '%s' has %s", p->path,
				  key_line(p, "nvlink_domain"), t->gpu.name ? t->gpu.name : "?",
				  t->gpu.nvlink_links && !gpu_arch_amd(t->gpu.arch) ?
				  "nvswitch = no" : "no NVLink");
	if (dom < t->gpus_per_node || dom % t->gpus_per_node)
		return errbuf_set(eb, "%s:%d: nvlink_domain: %lu GPUs is not a whole number of "
				  "hosts of %lu GPUs (gpus_per_node)", p->path,
				  key_line(p, "nvlink_domain"), dom, t->gpus_per_node);
	t->nics_per_node = (unsigned)((unsigned long)t->nics_per_node * (dom / t->gpus_per_node));
	t->gpus_per_node = dom;
	return 0;
}

int gpu_family(const struct preset_dirs *d, const struct preset *p, struct gpu_spec *g,
	       struct errbuf *eb)
{
	const char *name = preset_get(p, "power_ref");
	struct preset rp;
	struct gpu_spec r;
	int line = key_line(p, "power_ref");

	g->family_share = 0;
	g->power_ref[0] = '\0';
	if (!name)
		return 0;
	if (!preset_name_valid(name))
		return errbuf_set(eb, "%s:%d: power_ref: '%s' is not a preset name", p->path, line,
				  name);
	switch (preset_load_kind(d, name, "gpu", &rp, eb)) {
	case 0:
		break;
	case 1:
		preset_release(&rp);
		return errbuf_set(eb, "%s:%d: power_ref: '%s' is not a gpu preset", p->path, line,
				  name);
	default: {
		char m[sizeof(eb->msg)];

		snprintf(m, sizeof(m), "%s", eb->msg);
		return errbuf_set(eb, "%s:%d: power_ref: %s", p->path, line, m);
	}
	}
	if (gpu_from_preset(&rp, &r, eb) < 0) {
		preset_release(&rp);
		return -1;
	}
	preset_release(&rp);
	free(r.name);
	free(r.description);
	if (!(g->power_w > 0) || !g->sms || !(r.power_w > 0) || !r.sms)
		return errbuf_set(eb, "%s:%d: power_ref: both GPUs need power_w and sms (%s: %g W, "
				  "%u SMs; %s: %g W, %u SMs)", p->path, line, p->name ? p->name : "?",
				  g->power_w, g->sms, name, r.power_w, r.sms);
	g->family_share = cbrt((g->power_w / g->sms) / (r.power_w / r.sms)) *
			  (r.bf16_flops / r.sms) / (g->bf16_flops / g->sms);
	snprintf(g->power_ref, sizeof(g->power_ref), "%s", name);
	return 0;
}

/* The system's GPU, from the gpu preset its 'gpu' key names. */
static int S_gpu(const struct preset_dirs *d, const struct preset *p, const char *base,
		 struct system *t, struct errbuf *eb)
{
	const char *gname;
	struct preset gp;
	char *where;
	int r;

	gname = preset_get(p, "gpu");
	if (!gname)
		return errbuf_set(eb, "%s:%d: gpu: required key missing from this system preset",
				  p->path, key_line(p, "gpu"));
	where = resolve(gname, base);
	r = preset_load_kind(d, where, "gpu", &gp, eb);
	free(where);
	if (r < 0) {
		wrap(p, "gpu", eb);
		return -1;
	}
	r = gpu_from_preset(&gp, &t->gpu, eb);
	if (r == 0 && gpu_family(d, &gp, &t->gpu, eb) < 0) {
		free(t->gpu.name);
		free(t->gpu.description);
		t->gpu.name = t->gpu.description = NULL;
		r = -1;
	}
	preset_release(&gp);
	if (r < 0) {
		wrap(p, "gpu", eb);
		return -1;
	}
	return 0;
}

/* The GPUs of a node, its intra-node link, its NICs and their network link. */
static int S_links(const struct preset_dirs *d, const struct preset *p, const char *base,
		   struct system *t, struct errbuf *eb)
{
	unsigned long gpn = 0, nics = 0, ports = 1;
	const char *intra, *inter;
	int r;

	r = get_count(p, "gpus_per_node", !t->topo_path, 1, 1e6, &gpn, eb);
	if (r < 0)
		return -1;
	if (r)
		t->given |= SYS_GIVEN_GPN;
	t->gpus_per_node = gpn ? gpn : 1;
	intra = preset_get(p, "intra");
	if (!intra)
		return errbuf_set(eb, "%s:%d: intra: required key missing from this system preset",
				  p->path, key_line(p, "intra"));
	if (tier_load(d, intra, base, &t->intra, eb) < 0) {
		wrap(p, "intra", eb);
		return -1;
	}
	r = get_count(p, "nics_per_node", 0, 0, 1024, &nics, eb);
	if (r < 0)
		return -1;
	t->nics_per_node = (unsigned)nics;
	t->nics_line = preset_line(p, "nics_per_node");
	if (!t->nics_line)
		t->nics_line = preset_line(p, "gpus_per_node");
	inter = preset_get(p, "inter");
	if (inter) {
		if (tier_load(d, inter, base, &t->inter, eb) < 0) {
			wrap(p, "inter", eb);
			return -1;
		}
		t->have_inter = 1;
	}
	if (r)
		t->given |= SYS_GIVEN_NICS;
	if (inter && !r && !t->topo_path)
		return errbuf_set(eb, "%s:%d: inter: given without nics_per_node (how many such "
				  "ports a node has)", p->path, key_line(p, "inter"));
	if (!inter && nics > 0)
		return errbuf_set(eb, "%s:%d: nics_per_node: %lu NICs but no 'inter' link preset "
				  "for them", p->path, key_line(p, "nics_per_node"), nics);
	if (get_count(p, "nic_ports", 0, 1, 16, &ports, eb) < 0)
		return -1;
	t->nic_ports = (unsigned)ports;
	if (nics % ports)
		return errbuf_set(eb, "%s:%d: nic_ports: %lu ports per NIC do not divide the %lu NIC "
				  "ports of a node", p->path, key_line(p, "nic_ports"), ports, nics);
	if (get_bounded(p, "net_latency", Q_TIME, 0, 1, LINK_ALPHA_MAX, " s", &t->net_latency_s,
			eb) < 0)
		return -1;
	return 0;
}

/* The switches, paths, CPU, network kind, cost model and price. */
static int S_flags(const struct preset *p, struct system *t, struct errbuf *eb)
{
	int v, gdr = 1;

	t->nvswitch = t->gpu.nvlink_links > 0;
	if (get_bool(p, "nvls", &t->nvls, eb) < 0 || get_bool(p, "p2p", &t->p2p, eb) < 0 ||
	    get_bool(p, "nvswitch", &t->nvswitch, eb) < 0 || get_bool(p, "gdr", &gdr, eb) < 0)
		return -1;
	t->given |= (preset_get(p, "nvswitch") ? SYS_GIVEN_NVSWITCH : 0) |
		    (preset_get(p, "pcie_path") ? SYS_GIVEN_PCIE_PATH : 0) |
		    (preset_get(p, "nic_path") ? SYS_GIVEN_NIC_PATH : 0) |
		    (preset_get(p, "cpu") ? SYS_GIVEN_CPU : 0);
	t->gdr_off = !gdr;
	v = PCIE_PIX;
	if (get_enum(p, "pcie_path", path_names, 0, PCIE_PATH_COUNT, &v, eb) < 0)
		return -1;
	t->pcie_path = (enum pcie_path)v;
	v = PCIE_PIX;
	if (get_enum(p, "nic_path", path_names, 0, PCIE_PATH_COUNT, &v, eb) < 0)
		return -1;
	t->nic_path = (enum pcie_path)v;
	v = CPU_INTEL;
	if (get_enum(p, "cpu", cpu_names, 0, CPU_VENDOR_COUNT, &v, eb) < 0)
		return -1;
	t->cpu = (enum cpu_vendor)v;
	t->cpu_given = preset_get(p, "cpu") != NULL;
	v = NET_RDMA;
	if (get_enum(p, "net", net_names, NET_IB, NET_COUNT, &v, eb) < 0 ||
	    get_bool(p, "collnet", &t->collnet, eb) < 0)
		return -1;
	t->net = (enum system_net)v;
	v = SYSTEM_MODEL_DEFAULT;
	if (get_enum(p, "model", model_names, SYSTEM_MODEL_NCCL, SYSTEM_MODEL_COUNT, &v, eb) < 0)
		return -1;
	t->model = (enum system_model)v;
	if (get_bounded(p, "price_per_gpu_hour", Q_NUMBER, 0, 1, PRICE_PER_GPU_HOUR_MAX, " USD",
			&t->price_per_gpu_hour, eb) < 0)
		return -1;
	if (preset_get(p, "price_date"))
		t->price_date = xstrdup(preset_get(p, "price_date"));
	return 0;
}

int system_from_preset(const struct preset_dirs *d, const struct preset *p,
		       struct system *s, struct errbuf *eb)
{
	struct system t = { .pcie_path = PCIE_PIX, .nic_path = PCIE_PIX, .cpu = CPU_INTEL, .p2p = 1,
			    .nic_ports = 1, .price_per_gpu_hour = NAN };
	char *base = NULL;
	int r;

	if (check_kind(p, "system", eb) < 0)
		return -1;
	base = dir_of(p->path);
	if (S_gpu(d, p, base, &t, eb) < 0)
		goto fail;
	if (preset_get(p, "topo")) {
		/* a path relative to the preset file, even without a slash */
		const char *tp = preset_get(p, "topo");
		char *where_t = xmalloc(strlen(base) + strlen(tp) + 2);
		if (tp[0] == '/')
			strcpy(where_t, tp);
		else
			sprintf(where_t, "%s/%s", base, tp);
		t.topo_path = where_t;
	}
	if (S_links(d, p, base, &t, eb) < 0 || S_flags(p, &t, eb) < 0)
		goto fail;
	t.name = xstrdup(p->name);
	t.path = xstrdup(p->path);
	t.description = xstrdup(p->description);
	if (t.topo_path) {
		char *tp = t.topo_path;
		t.topo_path = NULL;
		r = system_set_topo(&t, tp, eb);
		free(tp);
		if (r < 0) {
			wrap(p, "topo", eb);
			goto fail;
		}
	}
	if (S_nvlink_domain(p, &t, eb) < 0)
		goto fail;
	free(base);
	*s = t;
	return 0;
fail:
	free(base);
	system_release(&t);
	return -1;
}

int system_load(const struct preset_dirs *d, const char *name_or_path,
		struct system *s, struct errbuf *eb)
{
	struct preset p;
	int r;

	if (preset_load_kind(d, name_or_path, "system", &p, eb) < 0)
		return -1;
	r = system_from_preset(d, &p, s, eb);
	preset_release(&p);
	return r;
}

unsigned long system_nodes(const struct system *s, unsigned long ranks)
{
	return (ranks + s->gpus_per_node - 1) / s->gpus_per_node;
}

int system_check_ranks(const struct system *s, unsigned long ranks, struct errbuf *eb)
{
	unsigned long nodes = system_nodes(s, ranks);

	if (nodes <= 1 || (s->have_inter && s->nics_per_node > 0))
		return 0;
	if (s->path)
		return errbuf_set(eb, "%s:%d: nics_per_node: no NICs, but %lu ranks need %lu "
				  "nodes of %lu GPUs", s->path, s->nics_line ? s->nics_line : 1,
				  ranks, nodes, s->gpus_per_node);
	return errbuf_set(eb, "system '%s' has no NICs (nics_per_node 0) but %lu ranks need "
			  "%lu nodes of %lu GPUs", s->name, ranks, nodes, s->gpus_per_node);
}

static enum pcie_path S_path_of(enum topo_path p)
{
	switch (p) {
	case TOPO_PATH_PIX: return PCIE_PIX;
	case TOPO_PATH_PXB: return PCIE_PXB;
	case TOPO_PATH_PHB: return PCIE_PHB;
	case TOPO_PATH_NODE: return PCIE_NODE;
	default: return PCIE_SYS;
	}
}

int system_set_topo(struct system *s, const char *path, struct errbuf *eb)
{
	struct topo *t = xmalloc(sizeof *t);
	enum topo_path w;
	int ns;

	if (topo_read(path, t, eb) < 0) {
		free(t);
		return -1;
	}
	free(s->topo);
	free(s->topo_path);
	s->topo = t;
	s->topo_path = xstrdup(path);
	s->from_topo = 0;
	if (!(s->given & SYS_GIVEN_GPN)) {
		s->gpus_per_node = (unsigned long)t->gpus;
		s->from_topo |= SYS_GIVEN_GPN;
	}
	ns = topo_nvswitch(t, (int)s->gpu.nvlink_links);
	if (ns >= 0 && !(s->given & SYS_GIVEN_NVSWITCH)) {
		s->nvswitch = ns;
		s->from_topo |= SYS_GIVEN_NVSWITCH;
	}
	w = topo_widest_gpu_path(t);
	if (w != TOPO_PATH_NONE && !(s->given & SYS_GIVEN_PCIE_PATH)) {
		s->pcie_path = S_path_of(w);
		s->from_topo |= SYS_GIVEN_PCIE_PATH;
	}
	w = topo_widest_nic_path(t);
	if (w != TOPO_PATH_NONE && !(s->given & SYS_GIVEN_NIC_PATH)) {
		s->nic_path = S_path_of(w);
		s->from_topo |= SYS_GIVEN_NIC_PATH;
	}
	if (t->nics > 0 && s->have_inter && !(s->given & SYS_GIVEN_NICS)) {
		s->nics_per_node = (unsigned)t->nics;
		s->from_topo |= SYS_GIVEN_NICS;
		if (s->nic_ports > 1 && s->nics_per_node % s->nic_ports)
			return errbuf_set(eb, "%s: %d NIC ports, which nic_ports = %u does not divide",
					  path, t->nics, s->nic_ports);
	}
	if (s->have_inter && !s->nics_per_node)
		return errbuf_set(eb, "%s: lists no NIC, and the system gives an inter link without "
				  "nics_per_node", path);
	if (t->cpu_vendor >= 0 && !(s->given & SYS_GIVEN_CPU)) {
		s->cpu = t->cpu_vendor == 1 ? CPU_AMD : t->cpu_vendor == 2 ? CPU_ARM : CPU_INTEL;
		s->cpu_given = 1;
		s->from_topo |= SYS_GIVEN_CPU;
	}
	return 0;
}

void system_release(struct system *s)
{
	free(s->name);
	free(s->path);
	free(s->description);
	free(s->gpu.name);
	free(s->gpu.description);
	free(s->intra.name);
	free(s->inter.name);
	free(s->price_date);
	free(s->topo);
	free(s->topo_path);
	memset(s, 0, sizeof(*s));
}

/* ---- writing a system preset ---- */

static void S_kv(struct preset_kv *kv, size_t *n, const char *key, const char *value)
{
	kv[*n].key = key ? xstrdup(key) : NULL;
	kv[*n].value = xstrdup(value);
	kv[*n].line = 0;
	(*n)++;
}

/* A preset named by a path, made absolute from base (the system's directory). */
static char *S_abs(const char *name, const char *base)
{
	char *r = resolve(name, base), *a;

	if (!is_path(name))
		return r;
	a = realpath(r, NULL);
	if (!a)
		return r;
	free(r);
	return a;
}

/* The GPUs of one host: gpus_per_node unless an NVLink domain spans hosts. */
static unsigned long S_host_gpus(const struct system *s)
{
	return s->host_gpus ? s->host_gpus : s->gpus_per_node;
}

/* The keys of a node: its GPUs, its NVLink domain, its links and NICs. */
static void S_kv_node(struct preset_kv *kv, size_t *n, const struct system *s, const char *base)
{
	char num[64], *v;

	snprintf(num, sizeof num, "%lu", S_host_gpus(s));
	S_kv(kv, n, "gpus_per_node", num);
	if (S_host_gpus(s) != s->gpus_per_node) {
		snprintf(num, sizeof num, "%lu", s->gpus_per_node);
		S_kv(kv, n, "nvlink_domain", num);
	}
	v = S_abs(s->intra.name, base);
	S_kv(kv, n, "intra", v);
	free(v);
	if (s->have_inter && s->nics_per_node) {
		snprintf(num, sizeof num, "%lu",
			 (unsigned long)s->nics_per_node * S_host_gpus(s) / s->gpus_per_node);
		S_kv(kv, n, "nics_per_node", num);
		v = S_abs(s->inter.name, base);
		S_kv(kv, n, "inter", v);
		free(v);
		if (s->nic_ports > 1) {
			snprintf(num, sizeof num, "%u", s->nic_ports);
			S_kv(kv, n, "nic_ports", num);
		}
		if (s->net_latency_s > 0) {
			snprintf(num, sizeof num, "%.17gs", s->net_latency_s);
			S_kv(kv, n, "net_latency", num);
		}
	}
}

/* The trace's keys of extra, each a number within the reader's bounds: 0, or -1 with eb. */
static int S_check_trace_keys(const char *path, const struct preset_kv *extra, size_t nextra,
			      struct errbuf *eb)
{
	size_t k;
	int r = 0;

	for (k = 0; r == 0 && k < nextra; k++) {
		struct errbuf e;
		double x;

		if (strncmp(extra[k].key, "trace_coll_", 11) &&
		    strncmp(extra[k].key, "trace_kernel_efficiency", 23))
			continue;
		if (units_decimal(extra[k].value, 0, &x) < 0)
			r = errbuf_set(eb, "'%s' not saved: %s: '%s' is not a number", path,
				       extra[k].key, extra[k].value);
		else if (trace_calib_check(extra[k].key, x, &e) < 0)
			r = errbuf_set(eb, "'%s' not saved: %s", path, e.msg);
	}
	return r;
}

int system_preset_write(const char *path, const char *name, const struct system *s,
			const char *comment, const struct preset_kv *extra, size_t nextra,
			struct errbuf *eb)
{
	struct preset_kv kv[40 + 3 * TRACE_CELLS + 8];
	char num[64], *base = s->path ? dir_of(s->path) : NULL, *v;
	char *desc = preset_text_clean(s->description ? s->description : "", 1000);
	size_t n = 0, k;
	int r;

	S_kv(kv, &n, "name", name);
	S_kv(kv, &n, "kind", "system");
	S_kv(kv, &n, "description", desc);
	free(desc);
	if (s->gpu.name) {
		v = S_abs(s->gpu.name, base);
		S_kv(kv, &n, "gpu", v);
		free(v);
	}
	if (s->topo_path) {
		v = realpath(s->topo_path, NULL);
		S_kv(kv, &n, "topo", v ? v : s->topo_path);
		free(v);
	}
	S_kv_node(kv, &n, s, base);
	if (s->net != NET_RDMA)
		S_kv(kv, &n, "net", system_net_name(s->net));
	if (s->collnet)
		S_kv(kv, &n, "collnet", "yes");
	S_kv(kv, &n, "nvswitch", s->nvswitch ? "yes" : "no");
	S_kv(kv, &n, "nvls", s->nvls ? "yes" : "no");
	S_kv(kv, &n, "p2p", s->p2p ? "yes" : "no");
	S_kv(kv, &n, "pcie_path", pcie_path_name(s->pcie_path));
	S_kv(kv, &n, "nic_path", pcie_path_name(s->nic_path));
	if (s->cpu_given)
		S_kv(kv, &n, "cpu", cpu_vendor_name(s->cpu));
	if (s->model != SYSTEM_MODEL_DEFAULT)
		S_kv(kv, &n, "model", system_model_name(s->model));
	if (!isnan(s->price_per_gpu_hour)) {
		snprintf(num, sizeof num, "%.17g", s->price_per_gpu_hour);
		S_kv(kv, &n, "price_per_gpu_hour", num);
		if (s->price_date)
			S_kv(kv, &n, "price_date", s->price_date);
	}
	free(base);
	for (k = 0; k < nextra && n < sizeof(kv) / sizeof(kv[0]); k++)
		S_kv(kv, &n, extra[k].key, extra[k].value);
	/* the trace's keys bounded as the reader bounds them, before any write */
	r = k < nextra ? errbuf_set(eb, "'%s': too many keys to save", path) : 0;
	if (r == 0)
		r = S_check_trace_keys(path, extra, nextra, eb);
	/* the one writer of saved presets: no device, link or directory replaced */
	if (r == 0)
		r = preset_save(path, comment, kv, n, eb);
	for (k = 0; k < n; k++) {
		free(kv[k].key);
		free(kv[k].value);
	}
	return r;
}
