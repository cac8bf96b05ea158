#!/bin/sh
# Small-to-large extrapolation on real logs (models/fit.md): fit the rows
# up to CUT bytes, predict the larger ones with the public commands (fit
# --save, compare); print each log's median |error| and the pooled one.
#   sh tests/extrapolate.sh CUT [--machine] [fit options] -- LOG[@SYSTEM[@ALGO]]...
# With no LOG, the logs of tests/holdout-pool.sh; --machine as there.
top=$(cd "$(dirname "$0")/.." && pwd)
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=${TMPDIR:-/tmp}/commtime-extra.$$
mkdir -p "$d" || exit 1
trap 'rm -rf "$d"' EXIT
cut=$1
shift
opts="" machine=0
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	case $1 in --machine) machine=1 ;; *) opts="$opts $1" ;; esac
	shift
done
[ "$1" = -- ] && shift
cd "$top" || exit 1
[ $# -gt 0 ] || set -- $(sed -n '/^\[ \$# -gt 0 \] || set -- /,/^: >/p' tests/holdout-pool.sh |
	sed -e '1d' -e '$d' -e 's/\\$//' | sed -e 's|\$n/|tests/data/nccl/|g' \
	-e 's|\$s/|tests/data/nccl/systems/|g' -e 's|\$c/|tests/data/nccl/cs244c/|g' \
	-e 's|\$l40s|tests/data/presets/l40s-x4-pcie.preset|g')
: >"$d/all"
for arg in "$@"; do
	: >"$d/log"
	log=${arg%%@*}
	sys= algo= sw=
	case $arg in *@*@*) algo=${arg##*@}; sys=${arg#*@}; sys=${sys%@*} ;;
	*@*) sys=${arg#*@} ;; esac
	if [ $machine = 1 ] && [ -n "$sys" ]; then
		sw="--machine $sys"
		a=${algo:-$(sed -n 's/.*NCCL_ALGO=\([A-Za-z,^]*\).*/\1/p' "$log" | head -1)}
		[ -n "$a" ] && sw="$sw --nccl-algo $a"
	fi
	"$COMMTIME" fit "$log" --op all_reduce --regimes 1 --format json >"$d/j" || continue
	op=all_reduce
	ranks=$(sed -n 's/.*"ranks": \([0-9]*\).*/\1/p' "$d/j" | head -1)
	"$COMMTIME" fit "$log" --op all_reduce --regimes 1 --format csv | awk -F, 'NR > 1 { print $1 "," $2 }' >"$d/rows"
	{ echo "size_B,time_s"; awk -F, -v c="$cut" '$1 <= c' "$d/rows"; } >"$d/fit.csv"
	{ echo "size_B,time_s"; awk -F, -v c="$cut" '$1 > c' "$d/rows"; } >"$d/pred.csv"
	# a log that starts above CUT (or ends below it) has nothing to say
	[ "$(wc -l <"$d/fit.csv")" -ge 3 ] && [ "$(wc -l <"$d/pred.csv")" -ge 2 ] || continue
	"$COMMTIME" fit "$d/fit.csv" --op "$op" --ranks "$ranks" --save "$d/p.preset" $sw $opts >/dev/null &&
	"$COMMTIME" compare "$d/pred.csv" --op "$op" --ranks "$ranks" --preset "$d/p.preset" --format csv |
		awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; print e }' >"$d/log"
	cat "$d/log" >>"$d/all"
	sort -g "$d/log" | awk -v f="$(basename "$log")" '{ a[n++] = $1 } END {
		printf "%-32s median %6.1f %%  worst %6.1f %%  (%d)\n", f, 100 * a[int((n - 1) / 2)], 100 * a[n - 1], n }'
done
sort -g "$d/all" | awk '{ a[n++] = $1 } END {
	printf "pooled: %d predictions, median %.1f %%, p90 %.1f %%, worst %.1f %%\n", n, 100 * a[int((n - 1) / 2)], 100 * a[int(0.9 * (n - 1))], 100 * a[n - 1] }'
