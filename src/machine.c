/*
 * The machine from the command line's text: the link, the regimes of a
 * fitted preset, the system and its cost model, each bound checked and
 * each value's source kept.  One step per group of keys, in the order
 * they depend on each other; a new key is a new step (machine.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "units.h"

/* errbuf_set for a usage error: MACHINE_USAGE instead of -1. */
static int usage(struct errbuf *eb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage(struct errbuf *eb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(eb->msg, sizeof(eb->msg), fmt, ap);
	va_end(ap);
	return MACHINE_USAGE;
}

/* opt's value arg as quantity q within [lo, hi], as the option layer says it. */
static int quantity(const char *opt, enum quantity q, const char *arg, double lo, double hi,
		    double *x, struct errbuf *eb)
{
	struct errbuf e;

	if (units_parse(q, arg, x, &e) < 0)
		return usage(eb, "%s: %s", opt, e.msg);
	if (*x < lo || *x > hi)
		return usage(eb, "%s: '%s' is out of range [%g, %g]", opt, arg, lo, hi);
	return 0;
}

/* The single link: the seed's, then the preset's (and its regimes), then the options. */
static int S_link(struct machine *m, const struct machine_args *a,
		  const struct preset_dirs *dirs, struct errbuf *eb)
{
	struct link *l = &m->model.link;

	l->alpha = MACHINE_ALPHA;
	l->beta = MACHINE_BETA;
	l->gamma = 0;
	m->alpha_src = m->beta_src = m->gamma_src = MACHINE_FROM_DEFAULT;
	if (a->preset) {
		int r = preset_load_kind(dirs, a->preset, "link", &m->preset, eb);

		if (r == 1) {
			errbuf_set(eb, "preset '%s' is not a link preset", a->preset);
			preset_release(&m->preset);
		}
		if (r != 0) {
			m->unloaded = "--preset";
			return -1;
		}
		m->have_preset = 1;
		if (preset_link(&m->preset, l, eb) < 0)
			return -1;
		/* A preset written by 'fit' holds regimes: they predict. */
		m->have_fit = fit_model_from_preset(&m->preset, &m->fit, eb);
		if (m->have_fit < 0)
			return -1;
		m->alpha_src = m->beta_src = MACHINE_FROM_PRESET;
		if (preset_get(&m->preset, "gamma"))
			m->gamma_src = MACHINE_FROM_PRESET;
		m->link_given = 1;
	}
	if (a->alpha) {
		if (quantity("--alpha", Q_TIME, a->alpha, 0, LINK_ALPHA_MAX, &l->alpha, eb) < 0)
			return MACHINE_USAGE;
		m->alpha_src = MACHINE_FROM_OPTION;
		m->link_given = 1;
	}
	if (a->beta) {
		if (quantity("--beta", Q_RATE, a->beta, BETA_MIN, LINK_BETA_MAX, &l->beta, eb) < 0)
			return MACHINE_USAGE;
		if (l->beta <= 0)
			return usage(eb, "--beta: bandwidth must be positive, got '%s'", a->beta);
		m->beta_src = MACHINE_FROM_OPTION;
		m->link_given = 1;
	}
	if (a->gamma) {
		/* γ is a time per byte; written as a plain number of s/B. */
		if (quantity("--gamma", Q_NUMBER, a->gamma, 0, LINK_GAMMA_MAX, &l->gamma, eb) < 0)
			return MACHINE_USAGE;
		m->gamma_src = MACHINE_FROM_OPTION;
	}
	return 0;
}

/* NCCL's options as given: the version's constants, the NCCL_ALGO mask. */
static int S_nccl_options(struct machine *m, const struct machine_args *a, struct errbuf *eb)
{
	struct errbuf e;

	m->nccl_algo_mask = ~0u;
	m->nccl_algo = a->nccl_algo;
	m->nccl_proto = a->proto;
	m->nccl_params = nccl_params_default;
	m->nccl_version = a->nccl_version;
	if (a->nccl_version && nccl_params_version(a->nccl_version, &m->nccl_params, &e) < 0)
		return usage(eb, "--nccl-version: %s", e.msg);
	/* They are written back into plan's run lines: keep them short. */
	if (a->nccl_algo && strlen(a->nccl_algo) > NCCL_LIST_MAX)
		return usage(eb, "--nccl-algo: longer than %d characters", NCCL_LIST_MAX);
	if (a->proto && strlen(a->proto) > NCCL_LIST_MAX)
		return usage(eb, "--proto: longer than %d characters", NCCL_LIST_MAX);
	if (a->nccl_algo && nccl_algo_mask(a->nccl_algo, &m->nccl_algo_mask, &e) < 0)
		return usage(eb, "--nccl-algo: %s", e.msg);
	return 0;
}

/* 1 when a names a system or one of the keys that make one. */
static int S_wants_system(const struct machine_args *a)
{
	return a->system || a->gpus_per_node || a->nics_per_node || a->intra || a->inter ||
	       a->topo;
}

/* Without a system: NCCL's options belong to one (or to fit's --machine). */
static int S_link_only(struct machine *m, const struct machine_args *a, struct errbuf *eb)
{
	static const char tail[] = "needs a system (--system NAME|FILE) and NCCL's model, "
				   "or fit --machine";

	if (a->model)
		return usage(eb, "--model: needs a system (--system NAME|FILE)");
	if (!a->fit && a->proto)
		return usage(eb, "--proto: %s", tail);
	if (!a->fit && a->nccl_algo)
		return usage(eb, "--nccl-algo: %s", tail);
	if (!a->fit && a->nccl_version)
		return usage(eb, "--nccl-version: %s", tail);
	if (!a->fit && a->gpus_per_process)
		return usage(eb, "--gpus-per-process: %s", tail);
	if (m->have_fit)
		fit_cost_init(&m->model, &m->fit, &m->model.link);
	else
		cost_model_link(&m->model, &m->model.link);
	return 0;
}

/* The system: --system, or one made of the overrides alone. */
static int S_system_base(struct machine *m, const struct machine_args *a,
			 const struct preset_dirs *dirs, struct errbuf *eb)
{
	struct system *s = &m->system;

	if (a->preset || a->alpha || a->beta)
		return usage(eb, "--system and its options describe the machine; --preset, "
			     "--alpha and --beta describe one link: give one or the other");
	if (a->gamma)
		return usage(eb, "--gamma: the reduction cost is modelled on a single link "
			     "only, not on a system");
	if (a->system) {
		if (system_load(dirs, a->system, s, eb) < 0) {
			m->unloaded = "--system";
			return -1;
		}
		m->have_system = 1;
		return 0;
	}
	if ((!a->gpus_per_node && !a->topo) || !a->intra)
		return usage(eb, "a system without --system needs at least --intra and "
			     "--gpus-per-node (or --topo)");
	*s = (struct system){ .name = xstrdup("custom"),
			      .description = xstrdup("from the command line"),
			      .p2p = 1, .pcie_path = PCIE_PIX, .nic_path = PCIE_PIX,
			      .cpu = CPU_INTEL, .price_per_gpu_hour = NAN };
	m->have_system = 1;
	return 0;
}

/* The overrides on top of the system, each checked. */
static int S_system_overrides(struct machine *m, const struct machine_args *a,
			      const struct preset_dirs *dirs, struct errbuf *eb)
{
	struct system *s = &m->system;
	struct errbuf e;
	double x;

	m->gpus_per_node_src = m->nics_per_node_src = MACHINE_FROM_SYSTEM;
	m->intra_src = m->inter_src = MACHINE_FROM_SYSTEM;
	if (a->gpus_per_node) {
		if (quantity("--gpus-per-node", Q_COUNT, a->gpus_per_node, 1, 1e6, &x, eb) < 0)
			return MACHINE_USAGE;
		s->gpus_per_node = (unsigned long)x;
		s->given |= SYS_GIVEN_GPN;
		m->gpus_per_node_src = MACHINE_FROM_OPTION;
	}
	if (a->nics_per_node) {
		if (quantity("--nics-per-node", Q_COUNT, a->nics_per_node, 0, 1024, &x, eb) < 0)
			return MACHINE_USAGE;
		s->nics_per_node = (unsigned)x;
		s->nics_line = 0;
		free(s->path);
		s->path = NULL;
		s->given |= SYS_GIVEN_NICS;
		m->nics_per_node_src = MACHINE_FROM_OPTION;
	}
	if (a->intra) {
		free(s->intra.name);
		s->intra.name = NULL;
		if (tier_load(dirs, a->intra, NULL, &s->intra, &e) < 0)
			return errbuf_set(eb, "--intra: %s", e.msg);
		m->intra_src = MACHINE_FROM_OPTION;
	}
	if (a->inter) {
		free(s->inter.name);
		s->inter.name = NULL;
		if (tier_load(dirs, a->inter, NULL, &s->inter, &e) < 0)
			return errbuf_set(eb, "--inter: %s", e.msg);
		s->have_inter = 1;
		m->inter_src = MACHINE_FROM_OPTION;
		if (!s->nics_per_node && !a->nics_per_node && !a->topo)
			return usage(eb, "--inter: say how many such ports a node has with "
				     "--nics-per-node");
	}
	if (a->topo) {
		if (system_set_topo(s, a->topo, &e) < 0)
			return errbuf_set(eb, "--topo: %s", e.msg);
		/* what the topology file says, where no option said it */
		if (!strcmp(m->gpus_per_node_src, MACHINE_FROM_SYSTEM))
			m->gpus_per_node_src = MACHINE_FROM_TOPO;
		if (!strcmp(m->nics_per_node_src, MACHINE_FROM_SYSTEM))
			m->nics_per_node_src = MACHINE_FROM_TOPO;
	}
	if (s->nics_per_node && !s->have_inter)
		return usage(eb, "--nics-per-node: the NICs need a link preset, --inter LINK");
	return 0;
}

/* NCCL's model of the system, with --proto and --gpus-per-process. */
static int S_nccl(struct machine *m, const struct machine_args *a, struct errbuf *eb)
{
	unsigned protos = ~0u;
	struct errbuf e;
	double x;

	if (a->proto && nccl_proto_mask(a->proto, &protos, &e) < 0)
		return usage(eb, "--proto: %s", e.msg);
	if (nccl_cost_init(&m->nccl, &m->model, &m->system, m->nccl_algo_mask, protos, eb) < 0)
		return -1;
	m->nccl.params = m->nccl_params;
	if (a->nccl_version && m->nccl.machine.sm >= 100 && m->nccl_params.version < 229)
		return usage(eb, "--nccl-version: NCCL's model has Blackwell (sm%d) from NCCL 2.29 "
			     "on, not %s", m->nccl.machine.sm, a->nccl_version);
	if (a->gpus_per_process) {
		if (quantity("--gpus-per-process", Q_COUNT, a->gpus_per_process, 1, 1024, &x,
			     eb) < 0)
			return MACHINE_USAGE;
		m->nccl.gpus_per_process = (unsigned)x;
		snprintf(m->gpus_per_process_text, sizeof(m->gpus_per_process_text), "%u",
			 m->nccl.gpus_per_process);
		m->gpus_per_process = m->gpus_per_process_text;
	}
	return 0;
}

/* The system's cost model: --model, the calibrated system's, else the default. */
static int S_model(struct machine *m, const struct machine_args *a, struct errbuf *eb)
{
	enum cost_kind kind = COST_SYSTEM_DEFAULT;
	struct errbuf e;
	int r = 0;

	if (a->model && cost_kind_lookup(a->model, &kind, &e) < 0)
		return usage(eb, "--model: %s", e.msg);
	/* A calibrated system asks for the model its values belong to. */
	if (!a->model && m->system.model == SYSTEM_MODEL_TIERS)
		kind = COST_TIERS;
	if (kind == COST_TIERS)
		cost_model_tiers(&m->model, &m->system);
	else
		r = S_nccl(m, a, eb);
	if (r < 0)
		return r;
	if (m->model.kind == COST_NCCL)
		return 0;
	if (a->proto)
		return usage(eb, "--proto: protocols belong to NCCL's model (--model nccl)");
	if (a->nccl_algo)
		return usage(eb, "--nccl-algo: NCCL's algorithms belong to NCCL's model "
			     "(--model nccl)");
	if (a->nccl_version)
		return usage(eb, "--nccl-version: belongs to NCCL's model (--model nccl)");
	if (a->gpus_per_process)
		return usage(eb, "--gpus-per-process: belongs to NCCL's model (--model nccl)");
	return 0;
}

/*
 * What fit --trace saved in the system's file (trace_calib.h): the ratios
 * make the model a calibrated one, built here once, so that every view of
 * every command prices on it.  A system changed by options (no file) has
 * none: its ratios belonged to the machine as the file described it.
 */
_Static_assert(TRACE_CELLS == COST_CALIB_CELLS, "a trace's cells are the cost model's");

static int S_calib(struct machine *m, struct errbuf *eb)
{
	struct preset p;
	double ratio[TRACE_CELLS];
	int r;

	if (!m->system.path)
		return 0;
	if (preset_load_file(m->system.path, &p, eb) < 0)
		return -1;
	r = trace_calib_read(&p, &m->calib, eb);
	preset_release(&p);
	if (r < 0 || !trace_calib_has_coll(&m->calib))
		return r;
	m->base = m->model;
	trace_calib_ratios(&m->calib, 0, ratio);
	cost_model_calib(&m->model, &m->base, ratio);
	return 0;
}

int machine_resolve(struct machine *m, const struct machine_args *a,
		    const struct preset_dirs *dirs, struct errbuf *eb)
{
	int r;

	memset(m, 0, sizeof *m);
	if ((r = S_link(m, a, dirs, eb)) < 0 || (r = S_nccl_options(m, a, eb)) < 0)
		return r;
	if (!S_wants_system(a))
		return S_link_only(m, a, eb);
	if ((r = S_system_base(m, a, dirs, eb)) < 0 ||
	    (r = S_system_overrides(m, a, dirs, eb)) < 0 ||
	    (r = S_model(m, a, eb)) < 0)
		return r;
	return S_calib(m, eb);
}

void machine_release(struct machine *m)
{
	if (m->have_preset)
		preset_release(&m->preset);
	if (m->have_system)
		system_release(&m->system);
	m->have_preset = m->have_system = 0;
}
