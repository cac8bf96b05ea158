#!/bin/sh
# Measurements end to end: the regime model's accuracy on held-out sizes
# of the real logs (the target of models/fit.md), a fitted preset read back
# by other commands, a plan read back by compare, and nothing left behind
# when a run fails.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-measure
data=$top/tests/data/nccl
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0

# The value of KEY in the held-out row of MODEL in fit's JSON output.
holdout() { # holdout FILE MODEL KEY
	sed -n "s/.*\"model\": \"$2\".*\"$3\": \\([0-9.e+-]*\\).*/\\1/p" "$1"
}
# a <= b for decimal numbers
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'; }

# Held-out accuracy on the real logs: median <= 5 %, p90 <= 15 %, and
# better than the plain alpha-beta fit at the 90th percentile.
for log in a100-x8-nvswitch l40s-x4-pcie-ring; do
	"$COMMTIME" fit "$data/$log.txt" --holdout --format json >"$d/$log.json" 2>"$d/err"
	med=$(holdout "$d/$log.json" regimes median_rel_error)
	p90=$(holdout "$d/$log.json" regimes p90_rel_error)
	ab90=$(holdout "$d/$log.json" alpha-beta p90_rel_error)
	check "$log: held-out median $med <= 0.05" le "$med" 0.05
	check "$log: held-out p90 $p90 <= 0.15" le "$p90" 0.15
	check "$log: regimes beat alpha-beta at p90 ($p90 < $ab90)" le "$p90" "$ab90"
done

# fit --save writes a preset every command accepts, readable by all.
"$COMMTIME" fit "$data/a100-x8-nvswitch.txt" --save "$d/mine.preset" >/dev/null 2>"$d/err"
check "fit --save writes the preset" test -s "$d/mine.preset"
check "the preset is readable by others" sh -c "ls -l '$d/mine.preset' | grep -q '^-rw-r--r--'"
check "the preset is named after its file" grep -q '^name = mine$' "$d/mine.preset"
check "the preset keeps the single alpha-beta" grep -q '^alpha = 4.01836024294597e-06$' "$d/mine.preset"
check "the preset holds regimes" grep -q '^regimes = 4$' "$d/mine.preset"
check "no temporary file stays beside it" sh -c "[ \$(ls -A '$d' | grep -c tmp) = 0 ]"
check "allreduce accepts the fitted preset" sh -c "'$COMMTIME' --preset '$d/mine.preset' --format csv >/dev/null"
check "presets shows the fitted preset" sh -c "'$COMMTIME' presets --presets-dir '$d' mine >/dev/null"
"$COMMTIME" compare "$data/a100-x8-nvswitch.txt" --preset "$d/mine.preset" --format csv >"$d/cmp.csv"
check "compare predicts with the regimes (worst error under 6 %)" awk -F, '
	NR > 1 { e = $4 < 0 ? -$4 : $4; if (e > w) w = e } END { exit !(w < 0.06) }' "$d/cmp.csv"

# A failed save leaves the old preset as it was.
cp "$d/mine.preset" "$d/keep.preset"
"$COMMTIME" fit "$data/bad-nan.txt" --save "$d/mine.preset" >/dev/null 2>&1
check "a failed fit keeps the old preset" cmp -s "$d/mine.preset" "$d/keep.preset"

# plan -o FILE.csv writes CSV that compare --expected reads back.
"$COMMTIME" plan --preset a100-nvlink3 --ranks 8 --sizes 8:128M:x2 -o "$d/plan.csv" 2>"$d/err"
check "plan -o x.csv writes CSV" sh -c "head -1 '$d/plan.csv' | grep -q '^check,run,op,ranks,algo,size_B,expected_time_s'"
"$COMMTIME" compare "$data/a100-x8-nvswitch.txt" --preset a100-nvlink3 --expected "$d/plan.csv" --format csv >"$d/exp.csv"
"$COMMTIME" compare "$data/a100-x8-nvswitch.txt" --preset a100-nvlink3 --format csv >"$d/pre.csv"
check "the plan predicts what the preset predicts" cmp -s "$d/exp.csv" "$d/pre.csv"
"$COMMTIME" compare "$data/a100-x8-nvswitch.txt" --expected "$d/plan.csv" --algo dbtree --format csv >"$d/tree.csv"
check "--algo picks the Tree rows of the plan" sh -c "! cmp -s '$d/tree.csv' '$d/exp.csv'"

# Write errors fail.
# (a full device made here with mknod, never the machine's /dev/full)
rm -f "$d/full"
if [ "$(id -u)" = 0 ] && mknod "$d/full" c 1 7 2>/dev/null; then
	"$COMMTIME" compare "$data/a100-x8-nvswitch.txt" >"$d/full" 2>/dev/null
	check "compare to a full disk fails" test $? = 1
	"$COMMTIME" fit "$data/a100-x8-nvswitch.txt" >"$d/full" 2>/dev/null
	check "fit to a full disk fails" test $? = 1
	rm -f "$d/full"
fi

# The same log with an srun label and NCCL INFO lines gives the same fit.
"$COMMTIME" fit "$data/a100-x8-nvswitch.txt" --format csv >"$d/a.csv"
"$COMMTIME" fit "$data/a100-srun-label.txt" --format csv >"$d/b.csv"
check "srun --label and NCCL INFO lines change nothing" cmp -s "$d/a.csv" "$d/b.csv"
