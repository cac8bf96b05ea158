#!/bin/sh
# Regenerates the figures the README shows, from commtime itself: for each,
# a gnuplot script NAME.gp (data inline) and the image NAME.svg it draws.
# Run by `make figures` after the build; runs from plots/ so the scripts
# name their images without a machine's paths.
set -e
cd "$(dirname "$0")"
LC_ALL=C
export LC_ALL
unset COMMTIME_PRESETS
commtime=${COMMTIME:-../commtime}
# FIGURES_SCRIPTS_ONLY=1: the gnuplot scripts alone, no image and no gnuplot
# (tests/t-figures-fresh.sh compares them with the committed ones).
if [ -n "${FIGURES_SCRIPTS_ONLY:-}" ]; then :
elif ! command -v gnuplot >/dev/null 2>&1; then
	echo "make-figures: gnuplot is not on PATH; install it (Debian: apt-get install gnuplot-nox)" >&2
	exit 1
fi

# fig NAME ARGS...: NAME.gp and NAME.svg from "commtime ARGS".
fig() {
	name=$1
	shift
	if [ -n "${FIGURES_SCRIPTS_ONLY:-}" ]; then
		"$commtime" --presets-dir ../presets "$@" --plot "$name.gp" >/dev/null
		return
	fi
	"$commtime" --presets-dir ../presets "$@" --plot "$name.gp" --render "$name.svg" >/dev/null
	echo "  FIG     plots/$name.svg"
}

# The seed's link, all-reduce time against message size at 8 and 64 ranks.
fig allreduce --alpha 5e-6 --beta 200e9 allreduce --ranks 8,64 --sizes 8:8G:x2
# Bus bandwidth on 1, 2 and 8 DGX H100 nodes: NVLink, then the NICs.
fig system --system dgx-h100 allreduce --ranks 8,16,64
# Where tree overtakes ring on an H100 NVLink 4 link.
fig crossover --preset h100-nvlink4 crossover
# The seed's DDP example: 14 GiB of gradients, 300 ms of compute.
fig ddp --alpha 5e-6 --beta 200e9 ddp --grad 14G --compute 300ms --ranks 8,16,64,256
# ZeRO's stages for the 7.5B-parameter model of the paper's Table 1.
fig zero --alpha 5e-6 --beta 200e9 zero --params 7.5e9
# The seed's speedup law for three ratios of communication to computation.
fig speedup speedup --ratio 0.05,0.15,0.5
# The bubble of GPipe and 1F1B against microbatches, for 2, 4 and 8 stages.
fig pipeline-bubble pipeline --stages 2,4,8 --microbatches 4:256:x2
# The simulated 1F1B schedule of 4 stages and 8 microbatches.
fig pipeline-timeline pipeline --stages 4 --microbatches 8 --schedule 1f1b --timeline
# A real A100 NVSwitch log against the a100-nvlink3 preset.
fig compare --preset a100-nvlink3 compare ../tests/data/nccl/a100-x8-nvswitch.txt
# The alpha-beta and regime fits to the same log.
fig fit fit ../tests/data/nccl/a100-x8-nvswitch.txt
# What nccl-tests should show on 8 and 64 H100s.
fig plan --preset h100-nvlink4 plan --ranks 8,64
# What nccl-tests should show on two DGX H100 nodes, with the stated error.
fig plan-system --system dgx-h100 plan --ranks 16
# The untuned two-node H100 fabric against its system: the band and the 70 % line.
fig compare-system --system ../tests/data/nccl/systems/hgx-h100-ndr.preset compare ../tests/data/nccl/h100-x16-ib-untuned.txt
# The configurations of a 70B model on 32, 64 and 128 H100s: step time against cost.
fig search --system dgx-h100 search --workload llama3-70b --gpus 32,64,128 --global-batch 512 --price 2.5
