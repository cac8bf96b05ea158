#!/bin/sh
# The system key gdr and the NIC's path priced in NCCL's model, and the
# launch of one host thread driving several GPUs (--gpus-per-process):
# what they change and what they leave, their echo, their errors.
# Hand values: models/nccl.md, "Paths to the NIC" and "The launch".
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-paths
rm -rf "$d" && mkdir -p "$d" || exit 1
C=$COMMTIME

# dgx-h100 as shipped, and the same with GDR off or the NICs on the other socket
sed -n '/^name/!p' "$top/presets/dgx-h100.preset" >"$d/base.body"
{ echo "name = nogdr"; cat "$d/base.body"; echo "gdr = no"; } >"$d/nogdr.preset"
{ echo "name = nicsys"; cat "$d/base.body"; echo "nic_path = sys"; } >"$d/nicsys.preset"
{ echo "name = badgdr"; cat "$d/base.body"; echo "gdr = maybe"; } >"$d/badgdr.preset"
# the link presets are found by name: run from the top
cd "$top" || exit 1

t() { # t SYSTEM RANKS SIZE: the time_s of the one row
	"$C" --system "$1" allreduce --ranks "$2" --sizes "$3" --format csv 2>>"$d/err" |
		awk -F, 'NR == 2 { print $4 }'
}
# (on 2 nodes NVLSTree's cap per channel, 57.7 GB/s, holds both: 4 nodes)
base=$(t dgx-h100 32 1G)
nogdr=$(t "$d/nogdr.preset" 32 1G)
sys=$(t "$d/nicsys.preset" 32 1G)
check "gdr = no: 32 ranks, 1 GiB take longer than with GDR ($nogdr s against $base s)" \
	awk -v a="$nogdr" -v b="$base" 'BEGIN { exit !(a > 1.05 * b) }'
check "nic_path = sys: longer still, the socket link shared ($sys s)" \
	awk -v a="$sys" -v b="$nogdr" 'BEGIN { exit !(a > 2 * b) }'
check "gdr = no on 2 nodes: NVLSTree's cap holds with and without GDR" \
	[ "$(t dgx-h100 16 1G)" = "$(t "$d/nogdr.preset" 16 1G)" ]
check "gdr = no leaves one node alone (no NIC on the way)" \
	[ "$(t dgx-h100 8 1G)" = "$(t "$d/nogdr.preset" 8 1G)" ]
# the ring across nodes: 8 channels of 40 GB/s (48 x 5/6) instead of 8 x 48
"$C" --system "$d/nogdr.preset" --nccl-algo ring allreduce --ranks 16 --sizes 8G --format csv \
	>"$d/ring.csv" 2>>"$d/err"
check "gdr = no, Ring/Simple at 8 GiB: bus bandwidth near 8 x 40 = 320 GB/s" \
	awk -F, 'NR == 2 { exit !($6 > 310e9 && $6 < 320e9) }' "$d/ring.csv"
"$C" --system "$d/nogdr.preset" allreduce --ranks 16 --sizes 1G >"$d/nogdr.txt" 2>>"$d/err"
check "the echo says GDR is off" \
	grep -q "^GPUDirect RDMA: no (the network is staged through host memory)" "$d/nogdr.txt"
"$C" --system dgx-h100 allreduce --ranks 16 --sizes 1G >"$d/gdr.txt" 2>>"$d/err"
check "with GDR (the default) the echo says nothing of it" sh -c "! grep -q 'GPUDirect' '$d/gdr.txt'"
"$C" presets "$d/nogdr.preset" >"$d/presets.txt" 2>>"$d/err"
check "presets shows gdr no" grep -q "gdr no: the network is staged through host memory" "$d/presets.txt"
"$C" --system "$d/badgdr.preset" allreduce --ranks 16 --sizes 1G >/dev/null 2>"$d/bad.err"
st=$?
check "gdr = maybe: exit 1, file:line: and the key named" \
	sh -c "[ $st = 1 ] && grep -q 'badgdr.preset:[0-9]*: .*gdr' '$d/bad.err'"

# The launch: 8 GPUs from one thread hold an 8-byte all-reduce at 8 x 5 us.
g8=$("$C" --system dgx-h100 --gpus-per-process 8 allreduce --ranks 8 --sizes 8 --format csv \
	2>>"$d/err" | awk -F, 'NR == 2 { print $4 }')
check "--gpus-per-process 8: 8 B on 8 ranks take 40 us ($g8 s)" \
	awk -v a="$g8" 'BEGIN { exit !(a > 39.999e-6 && a < 40.001e-6) }'
g1=$(t dgx-h100 8 8)
check "--gpus-per-process 1 (the default): NCCL's 15 us ($g1 s)" \
	awk -v a="$g1" 'BEGIN { exit !(a > 14.99e-6 && a < 15.01e-6) }'
g8l=$("$C" --system dgx-h100 --gpus-per-process 8 allreduce --ranks 8 --sizes 1G --format csv \
	2>>"$d/err" | awk -F, 'NR == 2 { print $4 }')
check "--gpus-per-process 8 leaves 1 GiB as it was" [ "$g8l" = "$(t dgx-h100 8 1G)" ]
"$C" --system dgx-h100 --gpus-per-process 8 allreduce --ranks 8 --sizes 8 >"$d/g8.txt" 2>>"$d/err"
check "the echo says the GPUs per process" grep -q "^GPUs per process: 8$" "$d/g8.txt"
"$C" --system dgx-h100 --gpus-per-process 0 allreduce --ranks 8 >/dev/null 2>"$d/g0.err"
st=$?
check "--gpus-per-process 0: usage error naming the option" \
	sh -c "[ $st = 2 ] && grep -q -- '--gpus-per-process' '$d/g0.err'"
"$C" --model tiers --system dgx-h100 --gpus-per-process 8 allreduce --ranks 8 >/dev/null 2>"$d/gt.err"
st=$?
check "--gpus-per-process with the tiers model: usage error" \
	sh -c "[ $st = 2 ] && grep -q 'belongs to NCCL' '$d/gt.err'"
"$C" --gpus-per-process 8 allreduce --ranks 8 >/dev/null 2>"$d/gl.err"
st=$?
check "--gpus-per-process on a single link: usage error" [ $st = 2 ]
# fit --machine reads the launch from the banner as compare does, and says so
"$C" fit tests/data/nccl/a100-x8-nvswitch.txt --op all_reduce \
	--machine tests/data/nccl/systems/hgx-a100-1node.preset >"$d/fit.txt" 2>>"$d/err"
check "fit --machine on a -g 8 log: the banner's GPUs per process said" \
	grep -q "^GPUs per process: 8 (from the log's banner: nGpus 8, nccl-tests -g 8)" "$d/fit.txt"
"$C" --system tests/data/nccl/systems/hgx-a100-1node.preset compare tests/data/nccl/a100-x8-nvswitch.txt \
	--op all_reduce --format json >"$d/cmp.json" 2>>"$d/err"
check "compare JSON: inputs carry gpus_per_process" grep -q '"gpus_per_process": "8 (from' "$d/cmp.json"
check "nothing else went to stderr" [ ! -s "$d/err" ]
echo "1..$n"
