#!/bin/sh
# A preset written by 'fit' predicts with its regimes in every command
# (cost.h, COST_FIT; models/fit.md): a preset of one regime, α1 = 10 µs
# and β1 = 50 GB/s, whose plain alpha and beta are 1 µs and 500 GB/s, must
# give every command the numbers of --alpha 10us --beta 50GB/s (to 1e-9:
# the regimes add a·α + b·S/β in another order than the link's formulas),
# and not those of its plain alpha and beta (the check has teeth).
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-fitted
rm -rf "$d" && mkdir -p "$d" || exit 1
cat >"$d/fit1.preset" <<'PRESET'
name = fit1
kind = link
description = one regime
alpha = 1e-06
beta = 5e+11
fit.op = all_reduce
fit.algo = ring
fit.ranks = 8
regimes = 1
alpha.1 = 1e-05
beta.1 = 5e+10
from.1 = 8
to.1 = 1073741824
PRESET

# same A B [COLS]: the CSVs agree field by field (numbers to 1e-9 relative),
# in the first COLS columns only when given
same() {
	awk -F, -v cols="${3:-0}" '
		NR == FNR { a[FNR] = $0; na = FNR; next }
		{ nb = FNR; if (a[FNR] == "") { bad = 1; exit }
		  n = split(a[FNR], x, ","); m = split($0, y, ",")
		  if (!cols && n != m) { bad = 1; exit }
		  for (i = 1; i <= (cols ? cols : n); i++) {
			if (x[i] == y[i]) continue
			if (x[i] + 0 != x[i] || y[i] + 0 != y[i]) { bad = 1; exit }
			e = x[i] - y[i]; e = e < 0 ? -e : e
			s = x[i] < 0 ? -x[i] : x[i]
			if (e > 1e-9 * s) { bad = 1; exit } } }
		END { exit bad || !(na == nb && na > 1) }' "$1" "$2"
}

k=0
run() { # run NAME COLS COMMAND...: the fitted preset against the two links
	name=$1 cols=$2
	shift 2
	"$COMMTIME" --preset "$d/fit1.preset" "$@" --format csv >"$d/$name.fit" 2>"$d/$name.err" &&
		"$COMMTIME" --alpha 10us --beta 50GB/s "$@" --format csv >"$d/$name.regime" 2>>"$d/$name.err" &&
		"$COMMTIME" --alpha 1us --beta 500GB/s "$@" --format csv >"$d/$name.plain" 2>>"$d/$name.err"
	check "$name: the fitted preset predicts with its regime" same "$d/$name.fit" "$d/$name.regime" "$cols"
	if same "$d/$name.fit" "$d/$name.plain" "$cols"; then
		notok "$name: the plain alpha and beta give other numbers"
	else
		ok "$name: the plain alpha and beta give other numbers"
	fi
}

run allreduce 0 allreduce --ranks 8,16 --sizes 1K,1M,1G --algo ring
run allgather 0 allgather --ranks 8,16 --sizes 1K,1G --algo ring
run reducescatter 0 reducescatter --ranks 8 --sizes 1K,1G --algo ring
run alltoall 0 alltoall --ranks 8 --sizes 1K,1G
run broadcast 0 broadcast --ranks 8 --sizes 1K,1G --algo ring
run reduce 0 reduce --ranks 8 --sizes 1K,1G --algo ring
run sendrecv 0 sendrecv --ranks 2 --sizes 1K,1G
run ddp 0 ddp --params 7B --ranks 8,64
run zero 0 zero --params 7B --ranks 8,64
run step 0 step --workload llama2-7b --dp 8
for f in "fit:--preset $d/fit1.preset" "regime:--alpha 10us --beta 50GB/s" \
	 "plain:--alpha 1us --beta 500GB/s"; do
	# shellcheck disable=SC2086
	"$COMMTIME" ${f#*:} plan --ranks 8 --sizes 1K,1M --format csv >"$d/plan.${f%%:*}" 2>>"$d/err"
done
# plan's ring rows (its dbtree and the crossover come from the link: the
# regimes measured the ring)
for f in fit regime plain; do grep ',ring,' "$d/plan.$f" >"$d/plan-ring.$f"; done
check "plan: the ring rows predict with the regime" same "$d/plan-ring.fit" "$d/plan-ring.regime"
check "plan: not with the plain alpha and beta" sh -c "! grep -q . '$d/plan-ring.plain' || ! cmp -s '$d/plan-ring.fit' '$d/plan-ring.plain'"
# compare: size, measured, predicted (the flags judge against each line rate)
run compare 3 compare "$top/tests/data/nccl/a100-x8-nvswitch.txt"

# Without --algo the table has the one column the regimes were fitted for.
"$COMMTIME" --preset "$d/fit1.preset" allreduce --ranks 8 --sizes 1M --format csv >"$d/cols.csv" 2>>"$d/err"
check "allreduce on a fitted preset: the regimes' ring alone" \
	sh -c "cut -d, -f3 '$d/cols.csv' | sed 1d | sort -u | grep -qx ring && [ \$(sed 1d '$d/cols.csv' | wc -l) = 1 ]"
"$COMMTIME" --preset "$d/fit1.preset" allreduce --ranks 8 --sizes 1M >"$d/echo.txt" 2>>"$d/err"
check "allreduce on a fitted preset says so" grep -q "^model: the preset's regimes" "$d/echo.txt"
check "nothing on stderr" sh -c "! cat '$d'/*.err '$d/err' 2>/dev/null | grep -q ."
echo "1..$n"
