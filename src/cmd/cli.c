/*
 * The global options, before or after the command: one table behind their
 * parsing, help, man page and completion.  Like the commands, the cli_*.c
 * files talk to the user and may exit.
 */

#include "cli.h"

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
	OPT_STRING_("gpus-per-process", "N", &global_args.gpus_per_process,
		    "GPUs one host thread launches, as nccl-tests -g N (default 1;\n"
		    "compare and fit read it from a log's banner): NCCL's model\n"
		    "then takes at least N x 5 us a call"),
	{ .type = OPT_STRING, .long_name = "nccl-version", .argh = "V",
	  .value = &global_args.nccl_version,
	  .help = "NCCL's tuning of version V, 2.19 to 2.31 (default 2.30.7)" },
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
