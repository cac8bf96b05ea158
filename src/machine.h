#ifndef COMMTIME_MACHINE_H
#define COMMTIME_MACHINE_H

/*
 * The machine every command prices collectives on: one link (defaults,
 * a preset, --alpha/--beta/--gamma), a fitted preset's regimes, or a
 * system (a system preset and the options that override it) under the
 * tiers model or NCCL's, with where every value came from.  The command
 * line's text goes in (struct machine_args), a cost model comes out; a
 * unit test builds one without argv.
 */

#include "cost.h"
#include "fit.h"
#include "nccl_cost.h"
#include "preset.h"
#include "system.h"
#include "trace_calib.h"

/*
 * What the command line says of the machine, as given (NULL: not given).
 * To add a key: a field here, one step in machine_resolve() (machine.c),
 * and the line that copies it in main.c.
 */
struct machine_args {
	const char *alpha, *beta, *gamma, *preset;          /* one link */
	const char *system, *model;                          /* a system and its model */
	const char *gpus_per_node, *nics_per_node, *intra, *inter;   /* its overrides */
	const char *topo;                                    /* --topo FILE: the node's topology */
	const char *proto, *nccl_algo, *nccl_version, *gpus_per_process;  /* NCCL's model */
	int fit;   /* 1: the command is fit, whose --machine takes NCCL's options too */
};

/* Where a value came from, for the echo of the inputs. */
#define MACHINE_FROM_DEFAULT "default"
#define MACHINE_FROM_PRESET "preset"
#define MACHINE_FROM_OPTION "option"
#define MACHINE_FROM_SYSTEM "system"   /* the system preset (or its ad-hoc defaults) */
#define MACHINE_FROM_TOPO "topo"       /* the --topo file */

/* A machine: its cost model, its system, where each value came from. */
struct machine {
	/* The cost model (cost.h): COST_LINK in the single-link mode, its
	 * link the α, β, γ after defaults, preset and options; COST_FIT
	 * for a preset with regimes; with a system its tiers or NCCL's model,
	 * model.sys pointing at system. */
	struct cost_model model;
	struct cost_model base;    /* with a trace calibration: the model
				    * it corrects (model.calib_of points here) */
	struct trace_calib calib;  /* fit --trace's keys of the system's file
				    * (calib.have 0: none) */
	int have_system;           /* a system was given */
	struct system system;      /* the machine, when have_system */
	struct nccl_cost nccl;     /* NCCL's model of system (COST_NCCL) */
	unsigned nccl_algo_mask;   /* --nccl-algo as NCCL_ALGO (~0u: all) */
	const char *nccl_algo;     /* --nccl-algo as given (or a log's), NULL */
	const char *nccl_proto;    /* --proto as given (or a log's), NULL */
	struct nccl_params nccl_params; /* 2.30.7's, or --nccl-version's */
	const char *nccl_version;  /* --nccl-version as given, or NULL */
	const char *gpus_per_process; /* what the echo says of it (--gpus-per-process
				       * or a log's banner), NULL: one, not said */
	const char *alpha_src;     /* MACHINE_FROM_DEFAULT, _PRESET, _OPTION */
	const char *beta_src;
	const char *gamma_src;
	const char *gpus_per_node_src;   /* with a system: _SYSTEM, _TOPO, _OPTION */
	const char *nics_per_node_src;
	const char *intra_src;
	const char *inter_src;
	int link_given;            /* --alpha, --beta or --preset was given */
	int have_preset;
	struct preset preset;      /* the --preset, when have_preset */
	int have_fit;              /* the preset holds regimes (COST_FIT) */
	struct fit_model fit;      /* its regimes, when have_fit */
	char gpus_per_process_text[24];
	const char *unloaded;      /* "--preset" or "--system" when that preset
				      did not load as its kind, else NULL */
};

/* The seed's link: α = 5 µs, β = 200 GB/s. */
#define MACHINE_ALPHA 5e-6
#define MACHINE_BETA 200e9

/* machine_resolve's return for a usage error (exit status 2), beside -1 for bad data. */
#define MACHINE_USAGE (-2)

/*
 * Resolve a into m, presets found through dirs (which must outlive m):
 * the link (the seed's α and β, then --preset, then --alpha, --beta,
 * --gamma, each value's source recorded), the regimes of a fitted
 * preset, and with a system or any of its overrides the system (every
 * bound checked: GPUs 1 to 1e6 per node, 0 to 1024 NICs, NICs only with
 * a NIC link and the reverse, the link and system options not mixed)
 * and its cost model (--model, the calibrated system's, else
 * COST_SYSTEM_DEFAULT) with NCCL's options (--nccl-algo, --proto,
 * --nccl-version, --gpus-per-process) where they belong.  Returns 0;
 * MACHINE_USAGE with eb for a value that does not parse or options that
 * do not go together; -1 with eb for a preset that cannot be read or a
 * system NCCL's model cannot take (unloaded then names the option whose
 * preset did not load, for a "did you mean").  Messages name the option first
 * ("--beta: bandwidth must be positive, got '0'").  m is released by
 * machine_release() whatever the result.
 */
int machine_resolve(struct machine *m, const struct machine_args *a,
		    const struct preset_dirs *dirs, struct errbuf *eb);

/* Free what machine_resolve() loaded. */
void machine_release(struct machine *m);

#endif
