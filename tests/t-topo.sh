#!/bin/sh
# Topology files end to end: --topo on a system made of options and over
# a system preset, the system key topo (a path relative to the preset),
# what the echo says was read and assumed, errors with file:line and
# status 1, and presets --save writing the result as a system preset
# that reads back to the same prediction.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
unset COMMTIME_PRESETS
dir=$(mktemp -d "${TMPDIR:-/tmp}/commtime-t-topo.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
data=$top/tests/data/topo
P="--presets-dir $top/presets"

# no gpu preset: NCCL's model has no GPU kind, the tiers model answers
out=$("$COMMTIME" $P --topo "$data/dgx1-v100.txt" --intra v100-nvlink2 --model tiers allreduce \
	--ranks 8 --sizes 1G --format csv 2>&1)
check "--topo alone (with --intra) needs no --gpus-per-node" \
	test "$(echo "$out" | awk -F, 'NR == 2 { print $1 }')" = 8
csv=$("$COMMTIME" $P --system dgx1-v100 allreduce --ranks 8 --sizes 1G --format csv)
check "the shipped DGX-1 predicts 6 rings of 20 GB/s at 1 GiB (busbw 120 GB/s within 1 %)" \
	awk -F, 'NR == 2 { b = $6 / 1e9; exit !(b > 118.8 && b < 120.01) }' <<EOT
$csv
EOT
txt=$("$COMMTIME" $P --system dgx1-v100 allreduce --ranks 8 --sizes 1G)
check "the echo says what the topology gave" \
	sh -c 'echo "$1" | grep -q "^topology read: 8 GPUs; NVLink without a switch: 24 links in 16 pairs (NV1 to NV2)"' - "$txt"
check "and what it assumed" \
	sh -c 'echo "$1" | grep -q "^topology assumed: GPU kind and link rates from the system'"'"'s presets"' - "$txt"
json=$("$COMMTIME" $P --system dgx1-v100 allreduce --ranks 8 --sizes 1G --format json)
check "JSON inputs carry topo, topo_read, topo_assumed" \
	sh -c 'echo "$1" | grep -q "\"topo_read\""' - "$json"

# --topo over a system: the Azure NDv4 XML (PCIe only) on hgx-a100 keeps the
# preset's NVSwitch and says that no NVLink was in the file
txt=$("$COMMTIME" $P --system hgx-a100 --topo "$data/azure-ndv4-topo.xml" allreduce --ranks 8 --sizes 1M)
check "a cloud XML of PCIe only: NVLink assumed from the gpu preset" \
	sh -c 'echo "$1" | grep -q "no NVLink in the file: the gpu preset.s 12 links, through NVSwitch"' - "$txt"
check "and its 8 NICs and AMD CPUs read" \
	sh -c 'echo "$1" | grep -q "8 NICs, the nearest pix from a GPU at worst; amd CPUs"' - "$txt"

# errors: file:line and status 1
printf 'GPU0 GPU1\nGPU0 X NV9x\nGPU1 NV1 X\n' >"$dir/bad.txt"
err=$("$COMMTIME" $P --system dgx1-v100 --topo "$dir/bad.txt" allreduce 2>&1)
rc=$?
check "a bad cell: status 1" test "$rc" = 1
check "a bad cell: file:line and the cell" \
	sh -c 'echo "$1" | grep -q "bad.txt:2: row GPU0, column GPU1: .NV9x. is not X, NV#"' - "$err"
mkdir -p "$dir/sys"
cp "$dir/bad.txt" "$dir/sys/node.txt"
printf 'name = s\nkind = system\ndescription = s\ngpu = v100-sxm2\nintra = v100-nvlink2\ntopo = node.txt\n' \
	>"$dir/sys/s.preset"
err=$("$COMMTIME" $P --system "$dir/sys/s.preset" allreduce 2>&1)
check "the key topo: relative to the preset, the preset's line and the file's" \
	sh -c 'echo "$1" | grep -q "s.preset:6: topo: .*sys/node.txt:2: row GPU0"' - "$err"
err=$("$COMMTIME" $P --topo "$dir/none.txt" --intra v100-nvlink2 allreduce 2>&1)
check "a missing file is named" sh -c 'echo "$1" | grep -q "cannot open topology file"' - "$err"

# presets --save: the resolved system reads back to the same times
check "presets --save writes a system preset" \
	sh -c '"$1" $2 --system dgx1-v100 presets --save "$3" >/dev/null' - "$COMMTIME" "$P" "$dir/mine.preset"
check "it has the resolved keys" grep -q "^gpus_per_node = 8$" "$dir/mine.preset"
again=$("$COMMTIME" $P --system "$dir/mine.preset" allreduce --ranks 8 --sizes 1G --format csv)
check "and predicts what the original does" test "$again" = "$csv"
err=$("$COMMTIME" $P presets --save "$dir/x.preset" 2>&1)
check "--save without a system is a usage error" sh -c 'echo "$1" | grep -q "needs a system"' - "$err"
check "nothing written then" test ! -e "$dir/x.preset"

# fit --system --save keeps the spec's topology: the calibrated DGX-1 is
# still a hybrid cube mesh (its echo reads the same NVLink graph)
( cd "$dir" && "$COMMTIME" $P --system dgx1-v100 fit "$top/tests/data/nccl/a100-x8-nvswitch.txt" \
	--save fitted.preset --force >/dev/null 2>&1 )
check "fit --save writes the topology key" grep -q "^topo = .*dgx1-v100.topo$" "$dir/fitted.preset"
txt=$("$COMMTIME" $P --system "$dir/fitted.preset" allreduce --ranks 8 --sizes 1G 2>&1)
check "the fitted system reads the same NVLink graph" \
	sh -c 'echo "$1" | grep -q "^topology read: 8 GPUs; NVLink without a switch: 24 links in 16 pairs"' - "$txt"

# like = dgx1-v100 from another directory: the base's relative topo is
# read beside the base, not beside the new file
mkdir -p "$dir/mine"
printf 'name = my-dgx1\nkind = system\ndescription = a DGX-1 of my own\nlike = dgx1-v100\n' \
	>"$dir/mine/my-dgx1.preset"
txt=$("$COMMTIME" $P --system "$dir/mine/my-dgx1.preset" allreduce --ranks 8 --sizes 1G 2>&1)
check "like: a base's relative topo is read beside the base" \
	sh -c 'echo "$1" | grep -q "^topology read: 8 GPUs; NVLink without a switch: 24 links in 16 pairs"' - "$txt"

# A <pci> with two <gpu> elements, the first with an <nvlink>: NCCL's
# dump never holds one; it once wrote before the topology's block
err=$("$COMMTIME" $P --topo "$top/tests/fuzz/topo/corpus/two-gpus-one-pci.xml" --intra v100-nvlink2 \
	--model tiers allreduce --ranks 2 --sizes 1M 2>&1); rc=$?
check "two <gpu> in one <pci>: status 1" test "$rc" = 1
check "two <gpu> in one <pci>: file:line and why" \
	sh -c 'echo "$1" | grep -q "two-gpus-one-pci.xml:7: a second <gpu> in one <pci>"' - "$err"
