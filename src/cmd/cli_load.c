#include <math.h>
/*
 * What commands load by name: a workload preset, a measurement file, a GPU
 * preset.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "step.h"
#include "measfile.h"

/* The option that takes a preset of kind, or NULL. */
static const char *kind_option(const char *kind)
{
	static const char *const map[][2] = {
		{ "link", "--preset" }, { "system", "--system" }, { "gpu", "--gpu" },
		{ "workload", "--workload" },
	};
	size_t i;

	for (i = 0; kind && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(kind, map[i][0]))
			return map[i][1];
	return NULL;
}

void ctx_preset_kind(const struct ctx *ctx, const char *opt, const char *name,
		     const char *kind, struct preset *p)
{
	struct errbuf eb;
	int r = preset_load_kind(&ctx->dirs, name, kind, p, &eb);
	char got[32], where[600];
	const char *to;

	if (r < 0) {
		if (!strcmp(opt, "--preset"))
			die("%s", eb.msg);
		die("%s: %s", opt, eb.msg);
	}
	if (r == 0)
		return;
	snprintf(got, sizeof(got), "%s", p->kind ? p->kind : "?");
	snprintf(where, sizeof(where), "%s:%d: preset '%s'", p->path, preset_line(p, "kind"),
		 p->name ? p->name : "?");
	preset_release(p);
	to = kind_option(got);
	if (to && strcmp(to, opt))
		die("%s is of kind '%s', not a %s; did you mean '%s %s'?", where, got, kind, to,
		    name);
	die("%s is of kind '%s', not a %s", where, got, kind);
}

void ctx_workload(const struct ctx *ctx, const char *name, struct workload *wl)
{
	struct errbuf eb;
	struct preset p;

	ctx_preset_kind(ctx, "--workload", name, "workload", &p);
	if (workload_from_preset(&p, wl, &eb) < 0) {
		preset_release(&p);
		die("--workload: %s", eb.msg);
	}
	preset_release(&p);
}

/*
 * The start of a model given by its shape alone ("custom"): --layers,
 * --hidden, --heads and --vocab are needed, --arch is gpt by default and
 * a llama layer needs --ffn; the sizes themselves the caller sets.
 */
static void custom_workload(const struct shape_args *sa, struct workload *wl)
{
	memset(wl, 0, sizeof(*wl));
	if (!sa->layers || !sa->hidden || !sa->heads || !sa->vocab)
		die_usage("give the model with --workload NAME, or its shape with --layers, "
			  "--hidden, --heads and --vocab");
	if (!sa->arch || !strcmp(sa->arch, "gpt"))
		wl->arch = WL_GPT;
	else if (!strcmp(sa->arch, "llama"))
		wl->arch = WL_LLAMA;
	else
		die_usage("--arch: unknown layer type '%s' (gpt, llama)", sa->arch);
	if (wl->arch == WL_LLAMA && !sa->ffn)
		die_usage("--ffn: a llama layer needs its MLP size");
	snprintf(wl->name, sizeof(wl->name), "custom");
	wl->tied = wl->arch == WL_GPT;
	wl->experts = wl->top_k = 1;
	wl->published = NAN;
}

void ctx_workload_shape(const struct ctx *ctx, const char *name, const struct shape_args *sa,
			struct workload *wl)
{
	int any = sa->layers || sa->hidden || sa->heads || sa->kv_heads || sa->ffn || sa->vocab;

	if (name) {
		ctx_workload(ctx, name, wl);
		if (sa->arch)
			die_usage("--arch: the workload preset '%s' says its layer type", name);
	} else {
		custom_workload(sa, wl);
	}
	if (sa->layers)
		wl->layers = (double)sa->layers;
	if (sa->hidden)
		wl->hidden = (double)sa->hidden;
	if (sa->heads) {
		wl->heads = (double)sa->heads;
		if (!sa->kv_heads && (!name || wl->kv_heads > wl->heads))
			wl->kv_heads = wl->heads;
	}
	if (sa->kv_heads)
		wl->kv_heads = (double)sa->kv_heads;
	if (sa->ffn)
		wl->ffn = (double)sa->ffn;
	else if (!name || (sa->hidden && wl->arch == WL_GPT))
		wl->ffn = 4 * wl->hidden;
	if (sa->vocab)
		wl->vocab = (double)sa->vocab;
	if (!(wl->head_dim > 0) && fmod(wl->hidden, wl->heads) != 0)
		die_usage("--heads: %.15g heads do not divide the hidden size %.15g", wl->heads,
			  wl->hidden);
	if (wl->kv_heads > wl->heads || fmod(wl->heads, wl->kv_heads) != 0)
		die_usage("--kv-heads: %.15g key/value heads do not divide the %.15g heads",
			  wl->kv_heads, wl->heads);
	if (wl->dense_layers > 0 && wl->dense_layers >= wl->layers)
		die_usage("--layers: %.15g layers are not more than the %.15g dense first layers of "
			  "%s", wl->layers, wl->dense_layers, name ? name : "the workload");
	if (workload_mla(wl) && wl->kv_heads != wl->heads)
		die_usage("--kv-heads: latent attention up-projects keys and values for every head; "
			  "%.15g key/value heads are not the %.15g heads", wl->kv_heads, wl->heads);
	if (any && name) {
		size_t n = strlen(wl->name);

		if (n + 10 < sizeof(wl->name))
			snprintf(wl->name + n, sizeof(wl->name) - n, " (shaped)");
		wl->published = NAN;
	}
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

int ctx_gpu(const struct ctx *ctx, const char *name, const char *fallback, struct ctx_gpu *g)
{
	struct preset p;
	struct gpu_spec s;
	struct errbuf eb;

	memset(g, 0, sizeof(*g));
	if (!name && ctx->machine.have_system) {
		snprintf(g->name, sizeof(g->name), "%s", ctx->machine.system.gpu.name ? ctx->machine.system.gpu.name : "?");
		g->peak_flops = ctx->machine.system.gpu.bf16_flops;
		g->memory_B = ctx->machine.system.gpu.memory_B;
		g->from = "system";
		g->power_w = ctx->machine.system.gpu.power_w;
		g->family_share = ctx->machine.system.gpu.family_share;
		snprintf(g->power_ref, sizeof(g->power_ref), "%s", ctx->machine.system.gpu.power_ref);
		g->host_link_Bps = system_host_link_Bps(&ctx->machine.system.gpu);
		g->host_link_given = ctx->machine.system.gpu.host_link_Bps > 0;
		kernel_gpu_init(&g->kernel, ctx->machine.system.gpu.arch, g->peak_flops, ctx->machine.system.gpu.sms,
				ctx->machine.system.gpu.hbm_Bps, ctx->machine.system.gpu.gemm_eff);
		kernel_gpu_set_fp8(&g->kernel, ctx->machine.system.gpu.fp8_flops);
		g->arch = ctx->machine.system.gpu.arch;
		return 1;
	}
	if (!name && !fallback)
		return 0;
	ctx_preset_kind(ctx, "--gpu", name ? name : fallback, "gpu", &p);
	if (gpu_from_preset(&p, &s, &eb) < 0) {
		preset_release(&p);
		die("--gpu: %s", eb.msg);
	}
	if (gpu_family(&ctx->dirs, &p, &s, &eb) < 0) {
		preset_release(&p);
		die("--gpu: %s", eb.msg);
	}
	preset_release(&p);
	snprintf(g->name, sizeof(g->name), "%s", s.name);
	g->peak_flops = s.bf16_flops;
	g->memory_B = s.memory_B;
	g->from = name ? "option" : "default";
	g->power_w = s.power_w;
	g->family_share = s.family_share;
	snprintf(g->power_ref, sizeof(g->power_ref), "%s", s.power_ref);
	g->host_link_Bps = system_host_link_Bps(&s);
	g->host_link_given = s.host_link_Bps > 0;
	kernel_gpu_init(&g->kernel, s.arch, s.bf16_flops, s.sms, s.hbm_Bps, s.gemm_eff);
	kernel_gpu_set_fp8(&g->kernel, s.fp8_flops);
	g->arch = s.arch;
	free(s.name);
	free(s.description);
	return 1;
}

void ctx_gpu_as_rented(struct ctx_gpu *g, double cap_w, double hbm_Bps, struct step_compute *cs)
{
	if (g->family_share > 0)
		cs->power_share = g->family_share;
	if (hbm_Bps > 0)
		g->kernel.hbm_Bps = hbm_Bps;
	if (cap_w > 0) {
		if (!(g->power_w > 0))
			die("--power-cap: the GPU '%s' has no power_w in its preset, so a cap has "
			    "nothing to be a share of", g->name[0] ? g->name : "?");
		/* a board runs at most at its own limit: nvidia-smi -pl refuses more */
		if (cap_w > g->power_w)
			die_usage("--power-cap: %g W is above the power limit of '%s', %g W (its "
				  "preset's power_w)", cap_w, g->name[0] ? g->name : "?", g->power_w);
		g->cap_share = expect_power_share(cap_w, g->power_w);
		cs->power_share = g->cap_share * (g->family_share > 0 ? g->family_share : 1);
	}
}
