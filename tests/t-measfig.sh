#!/bin/sh
# Figures of the measurement commands (compare, fit, plan): each renders (to
# PNG or SVG, in turn) silently; each --plot script draws alone, in an empty
# directory, with nothing but gnuplot; and what the figures draw is what the
# tables say: the measured points of compare are the log's out-of-place
# times, the flagged points the flagged rows, the crossover the plan's row.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-measfig
data=$top/tests/data/nccl
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "ok 1 # skip: gnuplot is not installed"
	exit 0
fi

# The figures, one a line: NAME | ARGUMENTS (shell words, paths from $top).
figures='compare-a100|compare tests/data/nccl/a100-x8-nvswitch.txt --preset a100-nvlink3
compare-fitted|compare tests/data/nccl/a100-x8-nvswitch.txt --preset tests/data/nccl/a100-fit.preset --tolerance 5%
compare-expected|compare tests/data/nccl/a100-x8-nvswitch.txt --preset a100-nvlink3 --expected tests/data/nccl/plan-a100.csv
compare-allgather|compare tests/data/nccl/ag-x4-synthetic.txt --alpha 2us --beta 16GB/s --large 1G
compare-one-row|compare tests/data/nccl/one-row.csv --op all_reduce --ranks 8 --preset a100-nvlink3
fit-a100|fit tests/data/nccl/a100-x8-nvswitch.txt
fit-l40s|fit tests/data/nccl/l40s-x4-pcie-ring.txt
fit-one-regime|fit tests/data/nccl/ag-x4-synthetic.txt --regimes 1
fit-two-rows|fit tests/data/nccl/two-rows.csv --op all_reduce --ranks 2
plan-a100|plan --preset a100-nvlink3
plan-ranks|plan --preset h100-nvlink4 --ranks 8,64
plan-fitted|plan --preset tests/data/nccl/a100-fit.preset
plan-one-size|plan --alpha 5us --beta 200GB/s --ranks 16 --sizes 1M --ops all_gather'

# The rows of datablock NAME ($p1s2 ...) of a script.
block() { # block SCRIPT NAME
	awk -v b="$2 << EOD" '$0 == b { on = 1; next } on && $0 == "EOD" { exit } on' "$1"
}
# The datablock name of the series titled TITLE in panel P.
series() { # series SCRIPT P TITLE
	sed -n "s/^# panel $2, series \\([0-9]*\\): $3\$/\$p$2s\\1/p" "$1" | head -1
}
# Numbers in two files agree line by line, to a part in 10^12.
same_numbers() { # same_numbers FILE1 FILE2
	[ "$(wc -l <"$1")" = "$(wc -l <"$2")" ] && [ -s "$1" ] &&
	paste -d ' ' "$1" "$2" | awk '{ e = $1 - $2; if (e < 0) e = -e; m = $2 < 0 ? -$2 : $2
		if (e > 1e-12 * m) bad = 1 } END { exit bad }'
}
is_png() { [ "$(head -c 8 "$1" | od -An -c | tr -d ' \n')" = '211PNG\r\n032\n' ]; }
is_svg() { grep -q '<svg' "$1" && grep -q '</svg>' "$1"; }

# Each figure renders once, PNG and SVG in turn, and writes in the same
# run its --plot script under a relative name; the script then draws the
# same image alone, in a directory that holds nothing else.  The scripts
# run in one gnuplot, each from its own directory; what gnuplot says about
# each (stderr) is told apart by a line printed before it.
k=0
: >"$d/all.gp"
# the two folders of each figure, made at once
set --
while IFS='|' read -r name args; do set -- "$@" "$d/$name.w" "$d/$name.run"; done <<EOF
$figures
EOF
mkdir -p "$@" || exit 1
while IFS='|' read -r name args; do
	if [ $((k % 2)) = 0 ]; then f=png; else f=svg; fi
	k=$((k + 1))
	# " tests/" made " $top/tests/" throughout, as sed "s# tests/# $top/tests/#g" would
	rest=" $args" abs=
	while :; do
		case $rest in
		*" tests/"*) abs=$abs${rest%%" tests/"*}" $top/tests/" rest=${rest#*" tests/"} ;;
		*) abs=$abs$rest; break ;;
		esac
	done
	# shellcheck disable=SC2086
	(cd "$d/$name.w" && "$COMMTIME" --presets-dir "$top/presets" $abs --plot "$name.gp" \
		--render "$name.$f" >/dev/null 2>"$d/$name.$f.err"
	 echo $? >"$d/$name.$f.status")
	st=
	read -r st <"$d/$name.$f.status"
	check "$name: --render $f exits 0" [ "$st" = 0 ]
	check "$name: --render $f says nothing on stderr" [ ! -s "$d/$name.$f.err" ]
	check "$name: the image is a $f" "is_$f" "$d/$name.w/$name.$f"
	cp "$d/$name.w/$name.gp" "$d/$name.run/" 2>/dev/null
	printf "print '== %s'\ncd '%s.run'\nload '%s.gp'\nreset\ncd '..'\n" \
		"$name" "$name" "$name" >>"$d/all.gp"
done <<EOF
$figures
EOF
(cd "$d" && gnuplot all.gp >/dev/null 2>all.err)
k=0
while IFS='|' read -r name args; do
	if [ $((k % 2)) = 0 ]; then f=png; else f=svg; fi
	k=$((k + 1))
	said=$(awk -v h="== $name" '$0 == h { on = 1; next } /^== / { on = 0 } on' "$d/all.err")
	check "$name: the script draws alone in an empty directory" \
		[ -z "$said" -a -s "$d/$name.run/$name.$f" ]
	[ -n "$said" ] && printf '%s\n' "$said" | sed 's/^/# /'
done <<EOF
$figures
EOF

cd "$top" || exit 1

# compare: the measured points are the log's out-of-place times, in the
# script as in the CSV; the busbw points are the CSV's measured busbw; the
# red points are the rows flagged far, the purple ones those flagged
# low-busbw.
for opt in "" --in-place; do
	log=$data/a100-x8-nvswitch.txt
	# shellcheck disable=SC2086
	"$COMMTIME" compare "$log" --preset a100-nvlink3 $opt --format csv >"$d/cmp$opt.csv"
	# shellcheck disable=SC2086
	"$COMMTIME" compare "$log" --preset a100-nvlink3 $opt --plot "$d/cmp$opt.gp" >/dev/null
	if [ -z "$opt" ]; then what=out-of-place col=6; else what=in-place col=10; fi
	b=$(series "$d/cmp$opt.gp" 1 "measured ($what)")
	block "$d/cmp$opt.gp" "$b" | cut -d ' ' -f 2 >"$d/cmp$opt.points"
	awk -F, 'NR > 1 { print $2 }' "$d/cmp$opt.csv" >"$d/cmp$opt.measured"
	check "compare$opt: the time points are the CSV's measured_s" \
		cmp -s "$d/cmp$opt.points" "$d/cmp$opt.measured"
	awk '!/^#/ && NF >= 13 && $1 ~ /^[0-9]+$/ { printf "%.17g\n", $'$col' * 1e-6 }' \
		"$log" >"$d/cmp$opt.log"
	check "compare$opt: the time points are the log's $what times" \
		same_numbers "$d/cmp$opt.points" "$d/cmp$opt.log"
	block "$d/cmp$opt.gp" "$b" | cut -d ' ' -f 1 >"$d/cmp$opt.sizes"
	awk '!/^#/ && NF >= 13 && $1 ~ /^[0-9]+$/ { print $1 }' "$log" >"$d/cmp$opt.logsizes"
	check "compare$opt: at the log's sizes" same_numbers "$d/cmp$opt.sizes" "$d/cmp$opt.logsizes"
done
b=$(series "$d/cmp.gp" 2 "measured (out-of-place)")
block "$d/cmp.gp" "$b" | cut -d ' ' -f 2 >"$d/cmp.bw"
awk -F, 'NR > 1 { print $5 }' "$d/cmp.csv" >"$d/cmp.csvbw"
check "compare: the busbw points are the CSV's measured_busbw_Bps" cmp -s "$d/cmp.bw" "$d/cmp.csvbw"
b=$(series "$d/cmp.gp" 1 "far off (> 25 %)")
block "$d/cmp.gp" "$b" | cut -d ' ' -f 1 >"$d/cmp.far"
awk -F, 'NR > 1 && $7 ~ /far/ { print $1 }' "$d/cmp.csv" >"$d/cmp.csvfar"
check "compare: the far-off points are the rows flagged far ($(wc -l <"$d/cmp.far"))" \
	same_numbers "$d/cmp.far" "$d/cmp.csvfar"
# (the A100 log stops before its plateau and flags no busbw: a PCIe log does)
"$COMMTIME" compare "$data/l40s-x4-pcie-ring.txt" --preset pcie4-x16 --format csv >"$d/low.csv"
"$COMMTIME" compare "$data/l40s-x4-pcie-ring.txt" --preset pcie4-x16 --plot "$d/low.gp" >/dev/null
b=$(series "$d/low.gp" 2 "low busbw (< 70 % of the line rate)")
block "$d/low.gp" "$b" | cut -d ' ' -f 1 >"$d/cmp.low"
awk -F, 'NR > 1 && /low-busbw/ { print $1 }' "$d/low.csv" >"$d/cmp.csvlow"
check "compare: the low-busbw points are the rows flagged low-busbw ($(wc -l <"$d/cmp.low"))" \
	same_numbers "$d/cmp.low" "$d/cmp.csvlow"
check "compare: the line rate is the preset's beta_line" \
	grep -q "^set label 'line rate 300 GB/s (beta_line)' at graph 0.99, first 300000000000 " "$d/cmp.gp"
check "compare: the title names the log and the link" \
	grep -q "^# all_reduce on 8 ranks: a100-x8-nvswitch.txt against ring with α = 4.00 µs, β = 230 GB/s (a100-nvlink3)$" "$d/cmp.gp"
"$COMMTIME" compare "$data/ag-x4-synthetic.txt" --alpha 2us --beta 16GB/s --plot "$d/ag.gp" >/dev/null
check "compare: no flagged series when nothing is flagged" \
	sh -c "! grep -q -e 'far off' -e 'low busbw' '$d/ag.gp'"

# fit: one vertical line between each two regimes, the points of each
# regime in its own series, n½ marked where the fit puts it.
"$COMMTIME" fit "$data/a100-x8-nvswitch.txt" --format csv >"$d/fit.csv"
"$COMMTIME" fit "$data/a100-x8-nvswitch.txt" --plot "$d/fit.gp" >/dev/null
check "fit: three regime boundaries in each panel (four regimes)" \
	[ "$(grep -c '^set arrow from .* graph 0 to .* graph 1 nohead' "$d/fit.gp")" = 6 ]
check "fit: a series per regime" [ "$(grep -c '^# panel 1, series [0-9]*: regime [1-4]:' "$d/fit.gp")" = 4 ]
for k in 1 2 3 4; do
	b=$(sed -n "s/^# panel 1, series \\([0-9]*\\): regime $k:.*/\$p1s\\1/p" "$d/fit.gp")
	block "$d/fit.gp" "$b" | wc -l | tr -d ' ' >>"$d/fit.perregime"
done
"$COMMTIME" fit "$data/a100-x8-nvswitch.txt" --format json |
	sed -n 's/.*"regime": \([0-9]*\),.*"rows": \([0-9]*\).*/\2/p' >"$d/fit.rows"
check "fit: each regime's series holds its rows" cmp -s "$d/fit.perregime" "$d/fit.rows"
nhalf=$("$COMMTIME" fit "$data/a100-x8-nvswitch.txt" --format json |
	sed -n 's/.*"n_half_B": \([0-9.e+-]*\).*/\1/p')
check "fit: n½ is marked at the fitted n_half_B ($nhalf)" \
	grep -q "^set label 'n½ = 4.713 MiB' at $nhalf, " "$d/fit.gp"
check "fit: the title gives the fitted alpha and beta" \
	grep -q "^# all_reduce on 8 ranks: a100-x8-nvswitch.txt fitted by the ring model, α = 4.02 µs, β = 153.7 GB/s$" "$d/fit.gp"
"$COMMTIME" fit "$data/ag-x4-synthetic.txt" --regimes 1 --plot "$d/fit1.gp" >/dev/null
check "fit: one regime draws no boundary and no regime curve" \
	sh -c "! grep -q -e '^set arrow' -e '^# panel.*regime model' '$d/fit1.gp'"

# plan: the crossover drawn is the plan's crossover row; curves that
# coincide are drawn once.
"$COMMTIME" plan --preset a100-nvlink3 --format csv >"$d/plan.csv"
"$COMMTIME" plan --preset a100-nvlink3 --plot "$d/plan.gp" >/dev/null
awk -F, '$1 == "crossover" { print $6 }' "$d/plan.csv" >"$d/plan.cross"
b=$(series "$d/plan.gp" 1 "ring = dbtree")
block "$d/plan.gp" "$b" | cut -d ' ' -f 1 >"$d/plan.crossfig"
check "plan: the crossover point is the plan's crossover size" \
	sh -c "awk '{ print \$1 }' '$d/plan.crossfig' | paste -d ' ' - '$d/plan.cross' |
	awk '{ e = (\$1 - \$2) / \$2; if (e < 0) e = -e; if (e > 1e-6 || NF < 2) bad = 1 } END { exit bad }'"
check "plan: ring all-reduce, all-gather and reduce-scatter are one curve" \
	grep -q '^# panel 1, series 1: all_reduce ring, all_gather, reduce_scatter$' "$d/plan.gp"
check "plan: two curves and the crossover" \
	[ "$(grep -c '^# panel 1, series' "$d/plan.gp")" = 3 ]
check "plan: the line rate is the preset's beta_line" \
	grep -q "^set label 'line rate 300 GB/s (beta_line)' at graph 0.99, first 300000000000 " "$d/plan.gp"
"$COMMTIME" plan --preset h100-nvlink4 --ranks 8,64 --format csv >"$d/plan2.csv"
"$COMMTIME" plan --preset h100-nvlink4 --ranks 8,64 --plot "$d/plan2.gp" >/dev/null
awk -F, '$1 == "crossover" { print $6 }' "$d/plan2.csv" >"$d/plan2.cross"
b=$(series "$d/plan2.gp" 1 "ring = dbtree")
block "$d/plan2.gp" "$b" | cut -d ' ' -f 1 >"$d/plan2.crossfig"
check "plan: a crossover per rank count" \
	sh -c "paste -d ' ' '$d/plan2.crossfig' '$d/plan2.cross' |
	awk '{ e = (\$1 - \$2) / \$2; if (e < 0) e = -e; if (e > 1e-6 || NF < 2) bad = 1 } END { exit bad || NR != 2 }'"
check "plan: the figure leaves the table as it was" \
	sh -c "'$COMMTIME' plan --preset a100-nvlink3 --format csv --plot '$d/p.gp' | cmp -s - '$d/plan.csv'"

# A figure that cannot be written fails without leaving a file.
"$COMMTIME" fit "$data/a100-x8-nvswitch.txt" --plot "$d/no/such/dir/f.gp" >/dev/null 2>"$d/err"
check "fit: an unwritable --plot exits 1" [ $? = 1 ]
check "fit: and says why" grep -q 'f.gp' "$d/err"
"$COMMTIME" compare "$data/bad-nan.txt" --preset a100-nvlink3 --render "$d/bad.png" >/dev/null 2>&1
check "compare: bad data renders nothing" [ ! -e "$d/bad.png" ]
