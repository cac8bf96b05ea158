#!/bin/sh
# Carrying a fit to another rank count (models/fit.md): a plain fit of the
# real 2-GPU L40S ring log, saved and compared with the 4-GPU log of the
# same machine, and the reverse, must stay within a median error of 20 %
# (both were about 40 % before the base-latency prior); without the prior
# (--base-steps 0) they must not (the check has teeth).
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=$top/tests/tmp/t-carry
D=$top/tests/data/nccl/cs244c
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }

# median |rel_error| of compare's CSV (column 4), in percent
median() {
	awk -F, 'NR > 1 { e = $4 < 0 ? -$4 : $4; print e }' "$1" | sort -g |
		awk '{ a[n++] = $1 } END { m = n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2; printf "%.1f\n", 100 * m }'
}
carry() { # carry FROM TO [fit options]: median error of the FROM fit on TO
	from=$1 to=$2
	shift 2
	"$COMMTIME" fit "$D/$from" --save "$d/p.preset" "$@" >/dev/null &&
		"$COMMTIME" compare "$D/$to" --preset "$d/p.preset" --format csv >"$d/c.csv" &&
		median "$d/c.csv"
}
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }

for pair in "l40s-x2-ring.txt l40s-x4-ring.txt" "l40s-x4-ring.txt l40s-x2-ring.txt"; do
	set -- $pair
	m=$(carry "$1" "$2")
	if le "$m" 20; then ok "fit $1, predict $2: median $m % <= 20 %"
	else notok "fit $1, predict $2: median $m % <= 20 %"; fi
	m=$(carry "$1" "$2" --base-steps 0)
	if ! le "$m" 20; then ok "without the prior: median $m % > 20 %"
	else notok "without the prior: median $m % > 20 %"; fi
done

# The walk-through that uses such a calibration ("Measure your own machine"
# in docs/rental.md) runs, in order and in a scratch copy, in t-readme.sh.
