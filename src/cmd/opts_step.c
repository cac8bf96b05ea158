/*
 * The configuration flags step and search share (opts_step.h).
 */
#include <string.h>

#include "cli.h"
#include "opts_step.h"

void step_opts_init(struct step_opts *so)
{
	memset(so, 0, sizeof(*so));
	so->framework = FW_MEGATRON;
	so->grad_bytes = STEP_GRAD_BYTES;
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

void step_opts_cb_schedule(const struct opt *o, const char *arg)
{
	struct errbuf eb;

	if (pp_schedule_lookup(arg, o->value, &eb) < 0)
		die_usage("--schedule: %s", eb.msg);
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
}
