#!/bin/sh
# Held-out interpolation pooled over real logs (models/fit.md): for each
# log, fit the even rows and predict the odd ones, then the reverse, with
# the public commands (fit --save, compare); print each log's median and
# the pooled median, 90th percentile and worst of all |errors|.
#
#   sh tests/holdout-pool.sh [--machine] [fit options] -- LOG[@SYSTEM[@ALGO]]...
#
# --machine: fit protocol-aware regimes, split where NCCL's model on the
# log's SYSTEM switches protocol (fit --machine SYSTEM), with the
# NCCL_ALGO the log was run with (ALGO, else the log's header says it).  With no LOG, the
# pool of models/fit.md: the real all-reduce logs of tests/data/nccl run
# with NCCL's default protocols, each with the system it was measured on.
top=$(cd "$(dirname "$0")/.." && pwd)
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=${TMPDIR:-/tmp}/commtime-holdout.$$
mkdir -p "$d" || exit 1
trap 'rm -rf "$d"' EXIT
opts="" machine=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in --machine) machine=1 ;; *) opts="$opts $1" ;; esac
	shift
done
[ "$1" = -- ] && shift
n=tests/data/nccl s=tests/data/nccl/systems c=tests/data/nccl/cs244c
l40s=tests/data/presets/l40s-x4-pcie.preset
cd "$top" || exit 1
[ $# -gt 0 ] || set -- \
	$n/a100-x8-nvswitch.txt@$s/hgx-a100-1node.preset \
	$n/a100-x16-p4d-efa.txt@$s/aws-p4d.preset \
	$n/h100-x16-a3mega-tcpxo.txt@$s/gcp-a3-mega.preset \
	$n/h100-x16-ib-untuned.txt@$s/hgx-h100-ndr.preset \
	$n/h100-x16-ndr-ring.txt@$s/hgx-h100-ndr.preset \
	$n/h100-x16-ndr-xe9680.txt@$s/hgx-h100-ndr.preset \
	$n/h100-x32-ndr.txt@$s/hgx-h100-ndr.preset \
	$n/l40s-x4-pcie-tree.txt@$s/l40s-x4.preset \
	$c/l40s-x2-iteration-1.txt@$l40s $c/l40s-x2-iteration-2.txt@$l40s \
	$c/l40s-x2-iteration-3.txt@$l40s $c/l40s-x2-ring.txt@$l40s@ring $c/l40s-x2-tree.txt@$l40s@tree \
	$c/l40s-x4-iteration-1.txt@$l40s $c/l40s-x4-iteration-2.txt@$l40s \
	$c/l40s-x4-iteration-3.txt@$l40s
: >"$d/all"
for arg in "$@"; do
	log=${arg%%@*}
	sys= algo=
	case $arg in *@*@*) algo=${arg##*@}; sys=${arg#*@}; sys=${sys%@*} ;;
	*@*) sys=${arg#*@} ;; esac
	sw=
	if [ $machine = 1 ]; then
		[ -n "$sys" ] || { echo "$log: --machine needs LOG@SYSTEM" >&2; continue; }
		sw="--machine $sys"
		# the NCCL_ALGO the log was run with, as its header says
		a=${algo:-$(sed -n 's/.*NCCL_ALGO=\([A-Za-z,^]*\).*/\1/p' "$log" | head -1)}
		[ -n "$a" ] && sw="$sw --nccl-algo $a"
	fi
	# The log as CSV (size, time), its rank count from fit (all-reduce).
	"$COMMTIME" fit "$log" --op all_reduce --regimes 1 --format json >"$d/j" || continue
	ranks=$(sed -n 's/.*"ranks": \([0-9]*\).*/\1/p' "$d/j" | head -1)
	"$COMMTIME" fit "$log" --op all_reduce --regimes 1 --format csv |
		awk -F, 'NR > 1 { print $1 "," $2 }' >"$d/rows"
	: >"$d/log"
	for par in 0 1; do
		{ echo "size_B,time_s"; awk -v p=$par 'NR % 2 == p' "$d/rows"; } >"$d/fit.csv"
		{ echo "size_B,time_s"; awk -v p=$par 'NR % 2 != p' "$d/rows"; } >"$d/pred.csv"
		"$COMMTIME" fit "$d/fit.csv" --op all_reduce --ranks "$ranks" --save "$d/p.preset" \
			$sw $opts >/dev/null &&
		"$COMMTIME" compare "$d/pred.csv" --op all_reduce --ranks "$ranks" \
			--preset "$d/p.preset" --format csv |
			awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; print e }' >>"$d/log"
	done
	cat "$d/log" >>"$d/all"
	sort -g "$d/log" | awk -v f="$(basename "$log")" '{ a[n++] = $1 } END {
		printf "%-32s median %5.1f %%  p90 %5.1f %%  (%d)\n", f, 100 * a[int((n - 1) / 2)], 100 * a[int(0.9 * (n - 1))], n }'
done
sort -g "$d/all" | awk '{ a[n++] = $1 } END {
	printf "pooled: %d predictions, median %.1f %%, p90 %.1f %%, worst %.1f %%\n", n, 100 * a[int((n - 1) / 2)], 100 * a[int(0.9 * (n - 1))], 100 * a[n - 1] }'
