/*
 * The configuration flags step and search share (opts_step.h).
 */
#include <math.h>
#include <string.h>

#include "cli.h"
#include "opts_step.h"

void step_opts_init(struct step_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->framework = FW_MEGATRON;
	so->grad_bytes = STEP_GRAD_BYTES;
	so->precision = PREC_BF16;
	so->moe_imbalance = 1;
}

void step_opts_cb_precision(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (step_precision_lookup(arg, o->value, &eb) < 0)
		die_usage("--precision: %s", eb.msg);
}

void step_opts_cb_elementwise(const struct opt *o, const char *arg)
{
	if (!strcmp(arg, "fused"))
		*(int *)o->value = 1;
	else if (!strcmp(arg, "eager"))
		*(int *)o->value = 2;
	else if (!strcmp(arg, "blocks"))
		*(int *)o->value = 3;
	else
		die_usage("--elementwise: '%s' is not fused, eager or blocks", arg);
}

void step_opts_cb_moments(const struct opt *o, const char *arg)
{
	if (!strcmp(arg, "bf16"))
		step_config_moments(o->value, 2);
	else if (!strcmp(arg, "fp32"))
		step_config_moments(o->value, 4);
	else
		die_usage("--optimizer-moments: '%s' is not bf16 or fp32", arg);
}

void step_opts_cb_offload(const struct opt *o, const char *arg)
{
	double x = opt_quantity_range("--offload-activations", Q_NUMBER, arg, 0, 1e15);

	if (x != floor(x))
		die_usage("--offload-activations: expected a whole number of layers, got '%s'", arg);
	*(unsigned long *)o->value = (unsigned long)x;
}

int step_opts_eager(const struct step_opts *so)
{
	if (!so->elementwise)
		return so->framework == FW_FSDP;
	return so->elementwise == 2 ? 1 : so->elementwise == 3 ? 2 : 0;
}

void step_opts_cb_zero(const struct opt *o, const char *arg)
{
	double x = opt_quantity("--zero", Q_NUMBER, arg);

	if (x != 0 && x != 1 && x != 2 && x != 3)
		die_usage("--zero: stage %s is not 0, 1, 2 or 3", arg);
	*(int *)o->value = (int)x;
}

void step_opts_cb_recompute(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (recompute_lookup(arg, o->value, &eb) < 0)
		die_usage("--recompute: %s", eb.msg);
}

/* The calculator's schedules, and DualPipe, which step alone models. */
void step_opts_cb_schedule(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (!strcmp(arg, "dualpipe")) {
		*(enum pp_schedule *)o->value = PP_DUALPIPE;
		return;
	}
	if (pp_schedule_lookup(arg, o->value, &eb) < 0)
		die_usage("--schedule: unknown schedule '%s'; choose 1f1b, gpipe, interleaved "
			  "or dualpipe", arg);
}

void step_opts_cb_framework(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (step_framework_lookup(arg, o->value, &eb) < 0)
		die_usage("--framework: %s", eb.msg);
}

void step_opts_cb_attention(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (attention_lookup(arg, o->value, &eb) < 0)
		die_usage("--attention: %s", eb.msg);
}

void step_opts_cb_cp_form(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (step_cp_form_lookup(arg, o->value, &eb) < 0)
		die_usage("--cp-form: %s", eb.msg);
}

void step_opts_check(const struct opt *options, struct step_opts *so, const char *cmd)
{
	if (so->mfu > 1)
		die_usage("--mfu: must be at most 1, got %g", so->mfu);
	if (so->kernel_eff > 1)
		die_usage("--kernel-efficiency: must be at most 1, got %g", so->kernel_eff);
	if (so->kernel_eff > 0 && opts_given(options, "mfu"))
		die_usage("%s: --kernel-efficiency and --mfu are two compute models; give one", cmd);
	if (!opts_given(options, "grad-bytes"))
		so->grad_bytes = step_framework_grad_bytes(so->framework);
	if (so->moe_imbalance < 1 || so->moe_imbalance > 1e3)
		die_usage("--moe-imbalance: the busiest expert's tokens over the mean is 1 to 1000, "
			  "got %g", so->moe_imbalance);
	if (so->precision == PREC_FP8 && opts_given(options, "mfu"))
		die_usage("%s: --precision fp8 runs the linears at the FP8 peak by kernel; the flat "
			  "--mfu model has no kernels to run so", cmd);
}

void step_opts_fp8_gpu(const struct step_opts *so, const struct ctx_gpu *gpu, int have_gpu,
		       const char *cmd)
{
	if (so->precision != PREC_FP8)
		return;
	if (!have_gpu)
		die_usage("%s: --precision fp8 needs a GPU preset with an FP8 peak (--gpu NAME or "
			  "a system)", cmd);
	if (!gpu_arch_has_fp8(gpu->arch))
		die("%s: --precision fp8: %s (%s) has no FP8 tensor cores", cmd, gpu->name,
		    gpu_arch_name(gpu->arch));
	if (!(gpu->kernel.fp8_peak > 0))
		die("%s: --precision fp8: the gpu preset %s gives no FP8 peak (key tflops_fp8)", cmd,
		    gpu->name);
}

void step_opts_config(const struct step_opts *so, struct step_config *c)
{
	c->framework = so->framework;
	c->tp_overlap = so->tp_overlap;
	c->eager = step_opts_eager(so);
	c->grad_bytes = so->grad_bytes;
	c->precision = so->precision;
	c->etp = so->etp;
	c->moe_imbalance = so->moe_imbalance;
	c->dp_replicate = so->dp_replicate ? so->dp_replicate : 1;
}
