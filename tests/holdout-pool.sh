#!/bin/sh
# Held-out interpolation pooled over real logs (models/fit.md): for each
# log, fit the even rows and predict the odd ones, then the reverse, with
# the public commands (fit --save, compare); print each log's median and
# the pooled median, 90th percentile and worst of all |errors|.
#   sh tests/holdout-pool.sh [fit options] -- LOG...
top=$(cd "$(dirname "$0")/.." && pwd)
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=${TMPDIR:-/tmp}/commtime-holdout.$$
mkdir -p "$d" || exit 1
trap 'rm -rf "$d"' EXIT
opts=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do opts="$opts $1"; shift; done
[ "$1" = -- ] && shift
: >"$d/all"
for log in "$@"; do
	# The log as CSV (size, time), its collective and rank count from fit.
	"$COMMTIME" fit "$log" --regimes 1 --format json >"$d/j" || continue
	op=$(sed -n 's/.*"op": "\([a-z_]*\)".*/\1/p' "$d/j" | head -1)
	ranks=$(sed -n 's/.*"ranks": \([0-9]*\).*/\1/p' "$d/j" | head -1)
	"$COMMTIME" fit "$log" --regimes 1 --format csv | awk -F, 'NR > 1 { print $1 "," $2 }' >"$d/rows"
	: >"$d/log"
	for par in 0 1; do
		{ echo "size_B,time_s"; awk -v p=$par 'NR % 2 == p' "$d/rows"; } >"$d/fit.csv"
		{ echo "size_B,time_s"; awk -v p=$par 'NR % 2 != p' "$d/rows"; } >"$d/pred.csv"
		"$COMMTIME" fit "$d/fit.csv" --op "$op" --ranks "$ranks" --save "$d/p.preset" $opts >/dev/null &&
		"$COMMTIME" compare "$d/pred.csv" --op "$op" --ranks "$ranks" --preset "$d/p.preset" --format csv |
			awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; print e }' >>"$d/log"
	done
	cat "$d/log" >>"$d/all"
	sort -g "$d/log" | awk -v f="$(basename "$log")" '{ a[n++] = $1 } END {
		printf "%-32s median %5.1f %%  p90 %5.1f %%  (%d)\n", f, 100 * a[int((n - 1) / 2)], 100 * a[int(0.9 * (n - 1))], n }'
done
sort -g "$d/all" | awk '{ a[n++] = $1 } END {
	printf "pooled: %d predictions, median %.1f %%, p90 %.1f %%, worst %.1f %%\n", n, 100 * a[int((n - 1) / 2)], 100 * a[int(0.9 * (n - 1))], 100 * a[n - 1] }'
