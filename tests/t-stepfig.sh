#!/bin/sh
# The figures of step and search.  step --plot draws the step as one
# stacked bar whose boxes are the step's terms: compute first, from 0 to
# the JSON's compute_s, the last box ending at its step_s; it renders to
# PNG quietly.  search --plot draws the Pareto front only with several GPU
# counts (with one, cost is step time times a constant), the memory panel
# and the bars of the best and the runner-up; a step without a step time
# refuses a figure before writing anything.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
unset COMMTIME_PRESETS

dir=$(mktemp -d "${TMPDIR:-/tmp}/commtime-t-stepfig.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

ct() { "$COMMTIME" --presets-dir "$top/presets" "$@"; }
# the k-th data row of the datablock $p1sS
box() { awk -v s="\$p1s$1" -v k="$2" '$1 == s { on = 1; i = 0; next } on && $1 == "EOD" { on = 0 } on && ++i == k { print; exit }' "$3"; }
json_key() { tr ',{}' '\n\n\n' <"$2" | awk -F: -v k="\"$1\"" '$1 ~ k { gsub(/[ "]/, "", $2); print $2; exit }'; }

step="--system dgx-h100 step --workload llama3-70b --tp 8 --pp 4 --dp 2 --global-batch 64 --sequence-parallel --recompute selective"
# shellcheck disable=SC2086
ct $step --plot s.gp >s.out 2>s.err
check "step --plot: exit 0, a script, nothing on stderr" test $? -eq 0 -a -s s.gp -a ! -s s.err
check "step --plot: the table is the table without a figure" sh -c "'$COMMTIME' --presets-dir '$top/presets' $step | cmp -s - s.out"
# shellcheck disable=SC2086
ct $step --format json >s.json
compute=$(json_key compute_s s.json)
stepv=$(json_key step_s s.json)
c1=$(box 1 1 s.gp)
check "step --plot: the compute box runs from 0 to compute_s ($compute)" \
	sh -c "set -- $c1; [ \"\$1\" = 0 ] && awk -v a=\"\$2\" -v b='$compute' 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-12 * b) }'"
# the expected step's bar on top; its band last, after the boxes
last=$(($(grep -c '^\$p1s[0-9]* << EOD' s.gp) - 1))
cl=$(box "$last" 1 s.gp)
check "step --plot: the expected bar's last box ends at step_s ($stepv)" \
	sh -c "set -- $cl; awk -v a=\"\$2\" -v b='$stepv' 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * b) }'"
lo=$(json_key step_lo_s s.json)
hi=$(json_key step_hi_s s.json)
b1=$(box $((last + 1)) 1 s.gp)
b2=$(box $((last + 1)) 2 s.gp)
check "step --plot: the band runs from step_lo_s to step_hi_s across the expected bar" \
	sh -c "set -- $b1 $b2; awk -v a=\"\$1\" -v b=\"\$3\" -v y=\"\$2\" -v lo='$lo' -v hi='$hi' 'BEGIN { exit !(y == 0.5 && a - lo < 1e-9 * lo && lo - a < 1e-9 * lo && b - hi < 1e-9 * hi && hi - b < 1e-9 * hi) }'"
best=$(json_key step_best_s s.json)
c2=$(box 1 2 s.gp)
check "step --plot: the best case's bar below, its compute shorter than the expected's" \
	sh -c "set -- $c2; awk -v a=\"\$2\" -v b='$compute' -v s='$best' 'BEGIN { exit !(a > 0 && a < b && s > 0) }'"
check "step --plot: the key names compute, exposed tp and the bubble" \
	sh -c "grep -q \"title 'compute'\" s.gp && grep -q \"title 'exposed tp'\" s.gp && grep -q \"title 'pipeline bubble'\" s.gp"
check "step --plot: the title gives GPUs, nodes and the system" \
	grep -q "64 GPUs, 8 nodes of 8 (dgx-h100)" s.gp
ct --alpha 5us --beta 300GB/s step --workload llama3-70b --tp 8 --pp 4 --dp 2 --plot n.gp >n.out 2>n.err
st=$?
check "step --plot without a step time: exit 2, no file, no table" \
	sh -c "[ $st -eq 2 ] && [ ! -e n.gp ] && [ ! -s n.out ] && grep -q 'needs the step time' n.err"

search="--system dgx-h100 search --workload llama3-70b --global-batch 512"
# shellcheck disable=SC2086
ct $search --gpus 64,128 --plot two.gp >/dev/null 2>&1
check "search --plot, two GPU counts: the Pareto front, memory and the bars" \
	sh -c "grep -q \"title 'Pareto front'\" two.gp && grep -q 'step time against memory per GPU' two.gp && grep -q 'why the best wins' two.gp"
# shellcheck disable=SC2086
ct $search --gpus 64 --plot one.gp >/dev/null 2>&1
check "search --plot, one GPU count: no Pareto front, memory and the bars" \
	sh -c "! grep -q \"title 'Pareto front'\" one.gp && grep -q 'step time against memory per GPU' one.gp && grep -q 'runner-up, rank' one.gp"

if command -v gnuplot >/dev/null 2>&1; then
	# shellcheck disable=SC2086
	ct $step --render s.png >/dev/null 2>s.err
	check "step --render PNG: a PNG, nothing on stderr" \
		sh -c "[ \"\$(od -An -c -N4 s.png | tr -d ' ')\" = '211PNG' ] && [ ! -s s.err ]"
	# shellcheck disable=SC2086
	ct $search --gpus 64,128 --render two.svg >/dev/null 2>t.err
	check "search --render SVG: an SVG, nothing on stderr" \
		sh -c "grep -q '</svg>' two.svg && [ ! -s t.err ]"
else
	echo "ok $((n + 1)) # skip gnuplot is not installed"
fi
