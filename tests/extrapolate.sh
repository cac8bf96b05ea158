#!/bin/sh
# Small-to-large extrapolation on real logs (models/fit.md): fit the rows
# up to CUT bytes, predict the larger ones with the public commands (fit
# --save, compare); print each log's median |error| and the pooled one.
#   sh tests/extrapolate.sh CUT [fit options] -- LOG...
top=$(cd "$(dirname "$0")/.." && pwd)
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=${TMPDIR:-/tmp}/commtime-extra.$$
mkdir -p "$d" || exit 1
trap 'rm -rf "$d"' EXIT
cut=$1
shift
opts=""
while [ $# -gt 0 ] && [ "$1" != -- ]; do opts="$opts $1"; shift; done
[ "$1" = -- ] && shift
: >"$d/all"
for log in "$@"; do
	"$COMMTIME" fit "$log" --regimes 1 --format json >"$d/j" || continue
	op=$(sed -n 's/.*"op": "\([a-z_]*\)".*/\1/p' "$d/j" | head -1)
	ranks=$(sed -n 's/.*"ranks": \([0-9]*\).*/\1/p' "$d/j" | head -1)
	"$COMMTIME" fit "$log" --regimes 1 --format csv | awk -F, 'NR > 1 { print $1 "," $2 }' >"$d/rows"
	{ echo "size_B,time_s"; awk -F, -v c="$cut" '$1 <= c' "$d/rows"; } >"$d/fit.csv"
	{ echo "size_B,time_s"; awk -F, -v c="$cut" '$1 > c' "$d/rows"; } >"$d/pred.csv"
	"$COMMTIME" fit "$d/fit.csv" --op "$op" --ranks "$ranks" --save "$d/p.preset" $opts >/dev/null &&
	"$COMMTIME" compare "$d/pred.csv" --op "$op" --ranks "$ranks" --preset "$d/p.preset" --format csv |
		awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; print e }' >"$d/log"
	cat "$d/log" >>"$d/all"
	sort -g "$d/log" | awk -v f="$(basename "$log")" '{ a[n++] = $1 } END {
		printf "%-32s median %6.1f %%  worst %6.1f %%  (%d)\n", f, 100 * a[int((n - 1) / 2)], 100 * a[n - 1], n }'
done
sort -g "$d/all" | awk '{ a[n++] = $1 } END {
	printf "pooled: %d predictions, median %.1f %%, p90 %.1f %%, worst %.1f %%\n", n, 100 * a[int((n - 1) / 2)], 100 * a[int(0.9 * (n - 1))], 100 * a[n - 1] }'
