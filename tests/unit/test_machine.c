/*
 * The machine from the command line's text (machine.h), built without
 * argv: defaults and sources, bounds, options that do not go together,
 * the model a system gets.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "machine.h"

static int S_resolve(struct machine *m, const struct machine_args *a, struct errbuf *eb)
{
	struct preset_dirs d;
	int r;

	unsetenv("COMMTIME_PRESETS");
	preset_dirs_init(&d, NULL, "presets");
	r = machine_resolve(m, a, &d, eb);
	preset_dirs_release(&d);
	return r;
}

void test_machine_link(void)
{
	struct machine m;
	struct errbuf eb;
	struct machine_args a = { 0 };

	INT_EQ(S_resolve(&m, &a, &eb), 0);
	INT_EQ(m.model.kind, COST_LINK);
	DBL_NEAR(m.model.link.alpha, 5e-6, 0);
	DBL_NEAR(m.model.link.beta, 200e9, 0);
	STR_EQ(m.alpha_src, "default");
	CHECK(!m.link_given && !m.have_system);
	machine_release(&m);

	a.alpha = "2us";
	a.gamma = "1e-10";
	INT_EQ(S_resolve(&m, &a, &eb), 0);
	DBL_NEAR(m.model.link.alpha, 2e-6, 1e-15);
	DBL_NEAR(m.model.link.gamma, 1e-10, 0);
	STR_EQ(m.alpha_src, "option");
	STR_EQ(m.beta_src, "default");
	STR_EQ(m.gamma_src, "option");
	machine_release(&m);

	a = (struct machine_args){ .beta = "0" };
	INT_EQ(S_resolve(&m, &a, &eb), MACHINE_USAGE);
	STR_EQ(eb.msg, "--beta: '0' is out of range [1, 1e+18]");
	machine_release(&m);
	a = (struct machine_args){ .alpha = "5 parsecs" };
	INT_EQ(S_resolve(&m, &a, &eb), MACHINE_USAGE);
	CHECK(!strncmp(eb.msg, "--alpha: ", 9));
	machine_release(&m);
}

void test_machine_presets(void)
{
	struct machine m;
	struct errbuf eb;
	struct machine_args a = { .preset = "ib-ndr", .beta = "10GB/s" };

	INT_EQ(S_resolve(&m, &a, &eb), 0);
	STR_EQ(m.alpha_src, "preset");
	STR_EQ(m.beta_src, "option");
	DBL_NEAR(m.model.link.beta, 10e9, 1e-15);
	CHECK(m.have_preset && m.link_given && !m.have_fit);
	machine_release(&m);
	/* a preset written by 'fit': its regimes are the cost model */
	a = (struct machine_args){ .preset = "tests/data/nccl/a100-fit.preset" };
	INT_EQ(S_resolve(&m, &a, &eb), 0);
	INT_EQ(m.model.kind, COST_FIT);
	INT_EQ((int)m.fit.nreg, 4);
	machine_release(&m);
	a = (struct machine_args){ .preset = "no-such-preset" };
	INT_EQ(S_resolve(&m, &a, &eb), -1);
	machine_release(&m);
}

void test_machine_system(void)
{
	struct machine m;
	struct errbuf eb;
	struct machine_args a = { .system = "dgx-h100" };

	INT_EQ(S_resolve(&m, &a, &eb), 0);
	CHECK(m.have_system);
	INT_EQ(m.model.kind, COST_NCCL);
	CHECK(m.model.sys == &m.system && m.model.impl == &m.nccl);
	INT_EQ((int)m.system.nics_per_node, 8);
	STR_EQ(m.nics_per_node_src, "system");
	machine_release(&m);

	a.model = "tiers";
	a.nics_per_node = "2";
	INT_EQ(S_resolve(&m, &a, &eb), 0);
	INT_EQ(m.model.kind, COST_TIERS);
	INT_EQ((int)m.system.nics_per_node, 2);
	STR_EQ(m.nics_per_node_src, "option");
	machine_release(&m);

	/* an ad-hoc system needs GPUs and an intra link */
	a = (struct machine_args){ .gpus_per_node = "4", .intra = "h100-nvlink4", .model = "tiers" };
	INT_EQ(S_resolve(&m, &a, &eb), 0);
	STR_EQ(m.system.name, "custom");
	INT_EQ((int)m.system.gpus_per_node, 4);
	machine_release(&m);
	a = (struct machine_args){ .gpus_per_node = "4" };
	INT_EQ(S_resolve(&m, &a, &eb), MACHINE_USAGE);
	STR_EQ(eb.msg, "a system without --system needs at least --intra and --gpus-per-node "
	       "(or --topo)");
	machine_release(&m);
	a = (struct machine_args){ .system = "dgx-h100", .gpus_per_node = "0" };
	INT_EQ(S_resolve(&m, &a, &eb), MACHINE_USAGE);
	STR_EQ(eb.msg, "--gpus-per-node: '0' is out of range [1, 1e+06]");
	machine_release(&m);
}

void test_machine_refusals(void)
{
	static const struct {
		struct machine_args a;
		const char *msg;
	} bad[] = {
		{ { .system = "dgx-h100", .alpha = "1us" },
		  "--system and its options describe the machine; --preset, --alpha and --beta "
		  "describe one link: give one or the other" },
		{ { .system = "dgx-h100", .gamma = "1e-10" },
		  "--gamma: the reduction cost is modelled on a single link only, not on a system" },
		{ { .proto = "LL" },
		  "--proto: needs a system (--system NAME|FILE) and NCCL's model, or fit --machine" },
		{ { .model = "nccl" }, "--model: needs a system (--system NAME|FILE)" },
		{ { .system = "dgx-h100", .model = "tiers", .proto = "LL" },
		  "--proto: protocols belong to NCCL's model (--model nccl)" },
		{ { .system = "dgx-h100", .model = "magic" },
		  "--model: unknown model 'magic' (choose from tiers, nccl)" },
		{ { .system = "dgx-h100", .nccl_algo = "ring,bogus" }, NULL },
	};
	struct machine m;
	struct errbuf eb;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		INT_EQ(S_resolve(&m, &bad[i].a, &eb), MACHINE_USAGE);
		if (bad[i].msg)
			STR_EQ(eb.msg, bad[i].msg);
		machine_release(&m);
	}
	/* fit's --machine takes NCCL's options without a system */
	{
		struct machine_args a = { .proto = "LL", .nccl_algo = "ring", .fit = 1 };

		INT_EQ(S_resolve(&m, &a, &eb), 0);
		STR_EQ(m.nccl_proto, "LL");
		machine_release(&m);
	}
}
