#!/bin/sh
# How often compare --range's band holds a measurement the fit did not see
# (models/fit.md, "Ranges"): for the pairs of real L40S logs of
# tests/data/nccl/cs244c (2 and 4 GPUs of one machine), fit one rank count
# with fit --save, compare the other with --range, both ways; print the
# count inside the band per pair and in all, and how wide the band is
# (its high over its low time).
top=$(cd "$(dirname "$0")/.." && pwd)
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=${TMPDIR:-/tmp}/commtime-band.$$
mkdir -p "$d" || exit 1
trap 'rm -rf "$d"' EXIT
D=$top/tests/data/nccl/cs244c
: >"$d/all"
for p in ring tree auto-ll auto-ll128 auto-simple iteration-1 iteration-2 iteration-3; do
	for dir in 2:4 4:2; do
		a=${dir%:*} b=${dir#*:}
		: >"$d/v"
		"$COMMTIME" fit "$D/l40s-x$a-$p.txt" --save "$d/p.preset" >/dev/null &&
		"$COMMTIME" compare "$D/l40s-x$b-$p.txt" --preset "$d/p.preset" --range --format csv |
			awk -F, 'NR > 1 { print $NF; print $(NF - 1) / $(NF - 2) >> "'"$d/w"'" }' >"$d/v"
		printf '%-12s %s -> %s: %s of %s inside\n' "$p" "$a" "$b" \
			"$(grep -c '^inside$' "$d/v")" "$(wc -l <"$d/v")"
		cat "$d/v" >>"$d/all"
	done
done
echo "all: $(grep -c '^inside$' "$d/all") of $(wc -l <"$d/all") inside; high/low of the band:" \
	"$(sort -g "$d/w" | awk '{ a[n++] = $1 } END { printf "median %.2f, 10th percentile %.2f, 90th %.2f", a[int((n - 1) / 2)], a[int(0.1 * (n - 1))], a[int(0.9 * (n - 1))] }')"
