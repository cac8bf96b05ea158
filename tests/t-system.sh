#!/bin/sh
# Training commands on a system: the gradient all-reduce of DDP takes longer
# on two nodes than on one (the NICs carry less than NVLink), in NCCL's
# model and in the tiers model, and by default it is the model's own
# choice per size, as NCCL's is.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-system
rm -rf "$d" && mkdir -p "$d" || exit 1

# ddp_times MODEL: the all-reduce times of 8 and 16 ranks, "T8 T16"
ddp_times() {
	"$COMMTIME" --model "$1" --system dgx-h100 ddp --workload llama2-7b --ranks 8,16 \
		--format csv 2>"$d/err" | awk -F, 'NR > 1 { printf "%s ", $2 }'
}
for m in nccl tiers; do
	set -- $(ddp_times $m)
	check "ddp, $m model: 2 nodes ($2 s) slower than 1 ($1 s)" \
		awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > a) }'
done
"$COMMTIME" --system dgx-h100 ddp --workload llama2-7b --ranks 8 >"$d/out" 2>&1
check "ddp on a system: the all-reduce is NCCL's choice per size" \
	grep -q "^all-reduce: NCCL's choice per size" "$d/out"
"$COMMTIME" --system dgx-h100 ddp --workload llama2-7b --ranks 8 --algo ring >"$d/out" 2>&1
check "ddp on a system: --algo ring restricts it as NCCL_ALGO=Ring" grep -q "^all-reduce: ring" "$d/out"

# --explain explains the pair the table shows: with --algo ring on two
# nodes, where NCCL's free choice is the tree, it explains the ring and
# its time is the ring column's; with two algorithms, one explanation each.
"$COMMTIME" --system dgx-h100 allreduce --ranks 16 --sizes 1M --algo ring --explain \
	>"$d/out" 2>&1
check "--explain --algo ring: the ring is explained, not NCCL's free choice" \
	grep -q "^explain: all_reduce of 1 MiB on 16 ranks (2 nodes, --algo ring): NCCL chooses ring/" \
	"$d/out"
check "--explain --algo ring: no runner-up other than the ring" \
	eval '! grep "runner-up" "$d/out" | grep -vq "runner-up ring "'
check "--explain --algo ring: the time explained is the table's" \
	awk '/^ *16 +2 +1 MiB/ { t = $5; tu = $6 } /^explain:/ { e = $(NF - 1); eu = $NF }
	     END { exit !(t > 0 && tu == eu && (t - e) / e < 1e-3 && (e - t) / e < 1e-3) }' "$d/out"
"$COMMTIME" --system dgx-h100 allreduce --ranks 16 --sizes 1M --algo ring,tree --explain \
	>"$d/out" 2>&1
check "--explain --algo ring,tree: one explanation per algorithm" \
	[ "$(grep -c '^explain: .*--algo \(ring\|tree\)):' "$d/out")" = 2 ]

# A system preset's model key picks the model; --model overrides it.
cat >"$d/cal.preset" <<'END'
name = cal
kind = system
description = a system read with the tiers model
gpu = h100-sxm
gpus_per_node = 8
intra = h100-nvlink4
nics_per_node = 8
inter = ib-ndr
model = tiers
END
"$COMMTIME" --system "$d/cal.preset" allreduce --ranks 16 --sizes 1G >"$d/out" 2>&1
check "model = tiers in the preset: the tiers model" grep -q "^model: tiers" "$d/out"
"$COMMTIME" --model nccl --system "$d/cal.preset" allreduce --ranks 16 --sizes 1G >"$d/out" 2>&1
check "--model nccl overrides the preset's model" grep -q "^model: nccl" "$d/out"
"$COMMTIME" presets "$d/cal.preset" >"$d/out" 2>&1
check "presets FILE says which model the system is read with" \
	grep -q "read with model tiers" "$d/out"

echo "1..$n"
