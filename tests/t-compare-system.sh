#!/bin/sh
# compare on a system: the columns design.md pins, NCCL's choice per size,
# --algo and --proto restricting it, and the busbw check against what the
# system should give: an untuned fabric is flagged low-busbw with a cause,
# a well-tuned one is not, and a log that ends before the bandwidth
# plateau is not judged.  Structural facts only: the model's numbers are
# models/nccl.md's business.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-compare-system
data=$top/tests/data/nccl
sys=$data/systems
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0

# cmp LOG SYSTEM [OPTION...]: compare's CSV and its table into $d/LOG.{csv,txt}
cmp_run() {
	log=$1 s=$2
	shift 2
	"$COMMTIME" --system "$sys/$s.preset" compare "$data/$log.txt" --op all_reduce "$@" \
		--format csv >"$d/$log.csv" 2>"$d/$log.err" &&
	"$COMMTIME" --system "$sys/$s.preset" compare "$data/$log.txt" --op all_reduce "$@" \
		>"$d/$log.txt" 2>>"$d/$log.err"
}
rows() { tail -n +2 "$1" | grep -c "$2"; }

# The untuned 2-node fabric: flagged, with the likely cause named.
if cmp_run h100-x16-ib-untuned hgx-h100-ndr; then
	check "untuned: the CSV header is design.md's, then NCCL's choice" \
		[ "$(head -1 "$d/h100-x16-ib-untuned.csv")" = \
		"size_B,measured_s,predicted_s,rel_error,measured_busbw_Bps,predicted_busbw_Bps,flag,algo" ]
	check "untuned: large sizes flagged low-busbw" \
		[ "$(rows "$d/h100-x16-ib-untuned.csv" low-busbw)" -gt 0 ]
	check "untuned: every size at or above 64 MiB flagged low-busbw" \
		[ "$(awk -F, 'NR > 1 && $1 >= 67108864 && $0 !~ /low-busbw/' \
		"$d/h100-x16-ib-untuned.csv" | wc -l)" = 0 ]
	check "untuned: no size below --large flagged low-busbw" \
		[ "$(awk -F, 'NR > 1 && $1 < 67108864 && $0 ~ /low-busbw/' \
		"$d/h100-x16-ib-untuned.csv" | wc -l)" = 0 ]
	check "untuned: the verdict says what the system should give" \
		grep -q "^verdict: the fabric is NOT fine: large-message busbw is .* of what hgx-h100-ndr should give" \
		"$d/h100-x16-ib-untuned.txt"
	check "untuned: ... and why, the line under it" \
		grep -q "^why: below half of what the node's NICs carry" "$d/h100-x16-ib-untuned.txt"
	check "untuned: the verdict is the first line of the output" \
		[ "$(head -1 "$d/h100-x16-ib-untuned.txt" | cut -c1-32)" = "verdict: the fabric is NOT fine:" ]
	check "untuned: ... and opens the summary, before its table" \
		[ "$(grep -n '^verdict:' "$d/h100-x16-ib-untuned.txt" | sed -n '2s/:.*//p')" -lt \
		"$(grep -n '^summary$' "$d/h100-x16-ib-untuned.txt" | cut -d: -f1)" ]
	"$COMMTIME" --system "$sys/hgx-h100-ndr.preset" compare "$data/h100-x16-ib-untuned.txt" \
		--check >/dev/null 2>&1
	check "untuned: --check exits 1 on a fabric that is NOT fine" [ $? = 1 ]
else
	notok "untuned: compare runs ($(head -1 "$d/h100-x16-ib-untuned.err"))"
fi

# JSON carries the cause for scripts.
"$COMMTIME" --system "$sys/hgx-h100-ndr.preset" compare "$data/h100-x16-ib-untuned.txt" \
	--op all_reduce --format json >"$d/untuned.json" 2>"$d/json.err"
check "untuned: JSON summary names the cause" \
	grep -q '"low_busbw_cause": "below half of what the node' "$d/untuned.json"

# The well-tuned machine of the same system: nothing flagged low.
if cmp_run h100-x16-ndr-xe9680 hgx-h100-ndr; then
	check "xe9680: no size flagged low-busbw" \
		[ "$(rows "$d/h100-x16-ndr-xe9680.csv" low-busbw)" = 0 ]
	check "xe9680: the verdict is that the fabric is fine" \
		grep -q '^verdict: the fabric is fine: ' "$d/h100-x16-ndr-xe9680.txt"
	"$COMMTIME" --system "$sys/hgx-h100-ndr.preset" compare "$data/h100-x16-ndr-xe9680.txt" \
		--check >/dev/null 2>&1
	check "xe9680: --check exits 0 on a fine fabric" [ $? = 0 ]
	check "xe9680: every row names an algorithm and protocol" \
		[ "$(awk -F, 'NR > 1 && $NF !~ /^[a-z]+\/(LL|LL128|Simple)$/' \
		"$d/h100-x16-ndr-xe9680.csv" | wc -l)" = 0 ]
	check "xe9680: the table echoes 2 nodes" grep -q '^nodes: 2' "$d/h100-x16-ndr-xe9680.txt"
	check "xe9680: the NCCL version the log ran is taken and said" \
		grep -q '^NCCL version: 2.26.2 (from the log)' "$d/h100-x16-ndr-xe9680.txt"
	check "xe9680 (-g 1): no host-bound note" \
		eval '! grep -q "one host thread driving" "$d/h100-x16-ndr-xe9680.txt"'
else
	notok "xe9680: compare runs ($(head -1 "$d/h100-x16-ndr-xe9680.err"))"
fi

# A log that ends at 128 MiB, before the plateau: said, and not judged.
if cmp_run a100-x8-nvswitch hgx-a100-1node; then
	check "a100 to 128 MiB: the plateau note" \
		grep -q "the log ends at 128 MiB, before the bandwidth plateau" "$d/a100-x8-nvswitch.txt"
	check "a100 to 128 MiB: no size flagged low-busbw" \
		[ "$(rows "$d/a100-x8-nvswitch.csv" low-busbw)" = 0 ]
	check "a100 -g 8: the banner's 8 GPUs a thread are read and said" \
		grep -q "^GPUs per process: 8 (from the log's banner: nGpus 8, nccl-tests -g 8)" \
		"$d/a100-x8-nvswitch.txt"
	check "a100 -g 8: the smallest size is the host's 8 launches of 5 us, 40 us" \
		awk -F, 'NR == 2 { exit !($3 > 39.999e-6 && $3 < 40.001e-6) }' "$d/a100-x8-nvswitch.csv"
	check "a100 -g 8: the host-bound note names the 8 GPUs of one thread" \
		grep -q "one host thread launches 8 GPUs (nGpus 8" "$d/a100-x8-nvswitch.txt"
	check "a100 -g 8: the note gives 58.0 us / 8 per GPU" \
		grep -q "7.25 µs per GPU" "$d/a100-x8-nvswitch.txt"
	sed 's/nccl-library=22903/nccl-library=21803/' "$data/a100-x8-nvswitch.txt" >"$d/a100-2.18.txt"
	"$COMMTIME" --system "$data/systems/hgx-a100-1node.preset" compare "$d/a100-2.18.txt" \
		--op all_reduce >"$d/a100-2.18.out" 2>&1
	check "a log of NCCL 2.18 is predicted with 2.19's tuning, the nearest, and says so" \
		grep -q "^NCCL version: 2.18.3 (from the log; older than the modelled tunings: NCCL 2.19's, the nearest)" \
		"$d/a100-2.18.out"
	"$COMMTIME" --gpus-per-process 1 --system "$data/systems/hgx-a100-1node.preset" compare \
		"$data/a100-x8-nvswitch.txt" --op all_reduce >"$d/a100-g1.txt" 2>&1
	check "a100 with --gpus-per-process 1: the option wins, the old note says the host waits" \
		sh -c "! grep -q '^GPUs per process: 8' '$d/a100-g1.txt' &&
			grep -q 'one host thread driving 8 GPUs' '$d/a100-g1.txt'"
else
	notok "a100: compare runs ($(head -1 "$d/a100-x8-nvswitch.err"))"
fi

# The same log with NCCL's TUNING lines splitting its rows (as NCCL_DEBUG=INFO
# prints them; tests/data/nccl/make-interleaved.sh sets the choices): the
# rows are read whole, and NCCL's choices are set against the model's.
if cmp_run a100-tuning-interleaved hgx-a100-1node; then
	check "interleaved: the rows are the clean log's" \
		cmp -s "$d/a100-tuning-interleaved.csv" "$d/a100-x8-nvswitch.csv"
	check "interleaved: NCCL's choice agrees at 21 of the 25 sizes" \
		grep -q "TUNING lines) is the model's at 21 of 25 sizes" "$d/a100-tuning-interleaved.txt"
	check "interleaved: the differing sizes are named with both choices" \
		grep -q "it differs at 512 KiB (NCCL ring/LL128, .* model ring/LL, .*), 1 MiB .*16 MiB (NCCL ring/Simple, .* model ring/LL128, .* measured 295 µs)$" \
		"$d/a100-tuning-interleaved.txt"
	t=$("$COMMTIME" --system "$sys/hgx-a100-1node.preset" --nccl-version 2.29.3 --proto LL128 \
		allreduce --algo ring --ranks 8 --sizes 512K | awk '$3 == 512 { printf "%.3g %s", $5, $6 }')
	check "interleaved: NCCL's pair is timed as the allreduce command times it ($t)" \
		grep -q "512 KiB (NCCL ring/LL128, $t in the model; model ring/LL" \
		"$d/a100-tuning-interleaved.txt"
	check "interleaved: the size NCCL chose two ways is said" \
		grep -q "differently from one call to another at 1 MiB" "$d/a100-tuning-interleaved.txt"
	"$COMMTIME" --system "$sys/hgx-a100-1node.preset" compare "$data/a100-tuning-interleaved.txt" \
		--format json >"$d/tuning.json" 2>"$d/tuning.err"
	check "interleaved, JSON: a nccl_choice row per logged size, ring/LL128 against the model's ring/LL at 3" \
		[ "$(grep -c '"nccl_choice": "' "$d/tuning.json")" = 25 -a \
		"$(grep -c '"nccl_choice": "ring/LL128", "model_choice": "ring/LL"' "$d/tuning.json")" = 3 ]
else
	notok "interleaved: compare runs ($(head -1 "$d/a100-tuning-interleaved.err"))"
fi
check "a log without TUNING lines has no note on them" \
	eval '! grep -q "TUNING lines" "$d/a100-x8-nvswitch.txt"'

# A real log with NCCL's tuning table (NCCL 2.29.7, a broadcast between two
# ranks that NCCL takes for two nodes over sockets): the model's table is set
# against NCCL's pair by pair.  The latencies agree; NCCL has twice the
# model's bandwidth (two channels where the described single NIC gives one),
# which the table must say, not hide.
if "$COMMTIME" --system "$sys/rtx5090-2rank-socket.preset" compare "$data/rtx5090-bcast-tuning.txt" \
	>"$d/ncclt.txt" 2>"$d/ncclt.err"; then
	check "tuning table: titled with the collective and ranks" \
		grep -q "^NCCL's tuning table (the log's, from line 40) against the model's, broadcast on 2 ranks" \
		"$d/ncclt.txt"
	check "tuning table: ring/LL latency equal, bandwidth twice the model's" \
		grep -q "^ring/LL  *9.30 µs  *9.30 µs  *1.2 GB/s  *600 MB/s  *bw$" "$d/ncclt.txt"
	check "tuning table: the count of agreeing pairs" \
		grep -q "agrees with NCCL's at 0 of 2 pairs" "$d/ncclt.txt"
	check "tuning table: the one change of the system that makes it agree is named" \
		grep -q "brings the tables closer (pairs agreeing): nics_per_node = 2 (2 of 2); try it: --nics-per-node 2$" \
		"$d/ncclt.txt"
	"$COMMTIME" --system "$sys/rtx5090-2rank-socket.preset" --nics-per-node 2 compare \
		"$data/rtx5090-bcast-tuning.txt" >"$d/ncclt2.txt" 2>&1
	"$COMMTIME" --system "$sys/rtx5090-2rank-socket.preset" compare \
		"$data/rtx5090-bcast-tuning.txt" --format json >"$d/ncclt.json" 2>&1
	check "tuning table, JSON: the change as a row of nccl_system_changes" \
		grep -q '"key": "nics_per_node", "value": "2", "pairs_agreeing": 2, "pairs": 2' \
		"$d/ncclt.json"
	check "tuning table: with the change tried, the tables agree and so do the choices" \
		sh -c "grep -q \"agrees with NCCL's at 2 of 2 pairs\" '$d/ncclt2.txt' &&
		       grep -q \"is the model's at all 9 sizes\" '$d/ncclt2.txt' &&
		       ! grep -q 'brings the tables closer' '$d/ncclt2.txt'"
	check "tuning table: with NCCL's table the model's choice rule gives NCCL's 9 choices" \
		grep -q "in place of the model's, the model's choice rule gives NCCL's choice at 9 of 9 sizes$" \
		"$d/ncclt.txt"
	check "tuning table: the TUNING lines (upper case, 2.29) are read too" \
		grep -q "TUNING lines) is the model's at 8 of 9 sizes" "$d/ncclt.txt"
else
	notok "tuning table: compare runs ($(head -1 "$d/ncclt.err"))"
fi
check "tuning table: none on a log without one" eval '! grep -q "tuning table" "$d/a100-x8-nvswitch.txt"'

# A log that says what the run restricted NCCL to is compared as it ran: the
# 2-node ring log with NCCL's "NCCL_ALGO set by environment to Ring" line and
# AWS's plugin setting NCCL_PROTO, put in front of its table here.
{ sed -n '1,/^# ---- nccl-tests/p' "$data/h100-x16-ndr-ring.txt"
  echo 'n1:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring'
  echo 'n1:1:1 [0] NCCL INFO NET/OFI Setting NCCL_PROTO to "simple"'
  sed '1,/^# ---- nccl-tests/d' "$data/h100-x16-ndr-ring.txt"; } >"$d/env.txt"
"$COMMTIME" --system "$sys/hgx-h100-ndr.preset" compare "$d/env.txt" --op all_reduce \
	>"$d/env.out" 2>&1
"$COMMTIME" --system "$sys/hgx-h100-ndr.preset" compare "$d/env.txt" --op all_reduce \
	--format csv >"$d/env.csv" 2>&1
check "log's environment: said, with where it comes from" \
	grep -q '^NCCL_ALGO: Ring (from the log)' "$d/env.out"
check "log's environment: NCCL_PROTO from the plugin's line" \
	grep -q '^NCCL_PROTO: simple (from the log)' "$d/env.out"
check "log's environment: every row ring/Simple" \
	[ "$(awk -F, 'NR > 1 && $NF != "ring/Simple"' "$d/env.csv" | wc -l)" = 0 ]
"$COMMTIME" --system "$sys/hgx-h100-ndr.preset" --proto ll128 compare "$d/env.txt" \
	--op all_reduce >"$d/env2.out" 2>&1
check "log's environment: --proto given wins over the log's" \
	grep -q '^NCCL_PROTO: ll128$' "$d/env2.out"

# --algo and --proto restrict NCCL's choice as NCCL_ALGO and NCCL_PROTO do.
if cmp_run h100-x16-ndr-ring hgx-h100-ndr --algo ring; then
	check "--algo ring: every row ring" \
		[ "$(awk -F, 'NR > 1 && $NF !~ /^ring\//' "$d/h100-x16-ndr-ring.csv" | wc -l)" = 0 ]
else
	notok "--algo ring: compare runs ($(head -1 "$d/h100-x16-ndr-ring.err"))"
fi
if cmp_run h100-x16-ndr-ring hgx-h100-ndr --algo ring --proto simple; then
	check "--algo ring --proto simple: every row ring/Simple" \
		[ "$(awk -F, 'NR > 1 && $NF != "ring/Simple"' "$d/h100-x16-ndr-ring.csv" | wc -l)" = 0 ]
else
	notok "--proto: compare runs ($(head -1 "$d/h100-x16-ndr-ring.err"))"
fi

# --nccl-algo restricts the choice as NCCL_ALGO does: the 2-node XE9680 log,
# where NCCL's model picks NVLSTree at large sizes, has none with Ring,Tree.
if cmp_run h100-x16-ndr-xe9680 hgx-h100-ndr --nccl-algo ring,tree; then
	check "--nccl-algo ring,tree: every row ring or tree" \
		[ "$(awk -F, 'NR > 1 && $NF !~ /^(ring|tree)\//' "$d/h100-x16-ndr-xe9680.csv" | wc -l)" = 0 ]
	check "--nccl-algo ring,tree: both appear" \
		[ "$(rows "$d/h100-x16-ndr-xe9680.csv" ',ring/')" -gt 0 -a \
		"$(rows "$d/h100-x16-ndr-xe9680.csv" ',tree/')" -gt 0 ]
	check "--nccl-algo: the table echoes it" grep -q '^NCCL_ALGO: ring,tree' "$d/h100-x16-ndr-xe9680.txt"
else
	notok "--nccl-algo: compare runs ($(head -1 "$d/h100-x16-ndr-xe9680.err"))"
fi

# The single-link mode keeps its six-plus-flag columns.
"$COMMTIME" compare "$data/a100-x8-nvswitch.txt" --preset a100-nvlink3 --format csv \
	>"$d/link.csv" 2>"$d/link.err"
check "single link: no algo column" \
	[ "$(head -1 "$d/link.csv")" = \
	"size_B,measured_s,predicted_s,rel_error,measured_busbw_Bps,predicted_busbw_Bps,flag" ]

# --range without a fit: the spec's spread around the model's own terms on a
# system, around α and β on a link; the band holds the prediction itself.
if cmp_run h100-x16-ndr-xe9680 hgx-h100-ndr --range; then
	check "--range on a system: low <= predicted <= high on every row" \
		[ "$(sed 's/"[^"]*"//g' "$d/h100-x16-ndr-xe9680.csv" |
		awk -F, 'NR > 1 && !($8 <= $3 && $3 <= $9)' | wc -l)" = 0 ]
	check "--range on a system: every row says where the measurement falls" \
		[ "$(sed 's/"[^"]*"//g' "$d/h100-x16-ndr-xe9680.csv" |
		awk -F, 'NR > 1 && $10 != "inside" && $10 != "below" && $10 != "above"' | wc -l)" = 0 ]
else
	notok "--range on a system runs ($(head -1 "$d/h100-x16-ndr-xe9680.err"))"
fi
if "$COMMTIME" compare "$data/l40s-x4-pcie-ring.txt" --preset pcie4-x16 --range --format csv \
	>"$d/linkrange.csv" 2>"$d/linkrange.err"; then
	check "--range on a plain link preset: low < predicted < high" \
		[ "$(sed 's/"[^"]*"//g' "$d/linkrange.csv" |
		awk -F, 'NR > 1 && !($8 < $3 && $3 < $9)' | wc -l)" = 0 ]
else
	notok "--range on a plain link preset runs ($(head -1 "$d/linkrange.err"))"
fi

echo "1..$n"
