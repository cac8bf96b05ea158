#!/bin/sh
# The pipeline command's figures: the bubble against microbatches and,
# with --timeline, the Gantt chart of the simulated schedule.  They render
# to PNG and SVG quietly; a --plot script draws on its own in an empty
# directory; the boxes of the Gantt chart are the simulated timeline, row
# for row; the table's rows are the points marked on the bubble curves;
# too many operations to draw are refused before any file is written.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C; export LC_ALL
unset COMMTIME_PRESETS

if ! command -v gnuplot >/dev/null 2>&1; then
	echo "ok 1 # skip gnuplot is not installed"
	exit 0
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/commtime-t-pipefig.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

n=0
check() { # description, then a command that succeeds when the check holds
	n=$((n + 1))
	d=$1; shift
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fi
}
# Empty but for one known line: gnuplot in the C locale warns about the
# degree sign when a script says "set encoding utf8" (the figure code
# stops saying it); the figures of this command add nothing of their own.
empty() { ! grep -q . "$1"; }
is_png() { [ "$(od -An -c -N4 "$1" | tr -d ' ')" = '211PNG' ]; }
is_svg() { grep -q '<svg' "$1" && grep -q '</svg>' "$1"; }
no_leftovers() { [ -z "$(ls -A | grep 'commtime-')" ]; }

bubble="pipeline --stages 2,4,8 --microbatches 8:128:x2 --schedule 1f1b,interleaved"
gantt="pipeline --stages 4 --microbatches 8"

# 1. Every figure renders to PNG and SVG, exit 0, nothing on stderr.
render() { # name, ext, then the arguments
	name=$1 ext=$2
	shift 2
	"$COMMTIME" "$@" --render "$name.$ext" >/dev/null 2>"$name.$ext.err"
	st=$?
	check "$name.$ext: exit 0" [ "$st" = 0 ]
	check "$name.$ext: nothing on stderr" empty "$name.$ext.err"
	if [ "$ext" = png ]; then
		check "$name.$ext: a PNG image" is_png "$name.$ext"
	else
		check "$name.$ext: an SVG image" is_svg "$name.$ext"
	fi
}
for ext in png svg; do
	render bubble $ext $bubble
	render gantt $ext $gantt --timeline
	render gantt-interleaved $ext $gantt --virtual 2 --timeline --tf 1.5ms
	render gantt-v3 $ext pipeline --stages 3 --microbatches 6 --virtual 3 --timeline
done

# 2. A --plot script is self-contained: it draws in an empty directory.
alone() { # name, then the arguments
	name=$1
	shift
	mkdir "$name.gen" "$name.alone"
	(cd "$name.gen" && "$COMMTIME" "$@" --plot "$name.gp" >/dev/null 2>err)
	check "$name.gp: written" [ -s "$name.gen/$name.gp" ]
	check "$name.gp: no image without --render" [ ! -e "$name.gen/$name.svg" ]
	cp "$name.gen/$name.gp" "$name.alone/"
	(cd "$name.alone" && gnuplot "$name.gp" >out 2>err)
	st=$?
	check "$name.gp: gnuplot runs it alone, exit 0" [ "$st" = 0 ]
	check "$name.gp: gnuplot says nothing" empty "$name.alone/err"
	check "$name.gp: draws $name.svg beside it" is_svg "$name.alone/$name.svg"
}
alone bubble $bubble
alone gantt $gantt --timeline

# 3. The boxes of the Gantt chart are the simulated schedule.  Each side
# becomes "pass shade stage start end" lines, sorted: the CSV from its
# columns (shade = chunk mod 2), the script from its box datablocks, the
# pass and shade from the series' title (the comment above each block).
from_csv() {
	awk -F, 'NR > 1 { printf "%s %d %d %s %s\n", $3, $4 % 2, $1, $5, $6 }' | sort
}
from_script() {
	awk '/^# panel [0-9]*, series [0-9]*: / {
		title = $0
		pass = title ~ /: forward/ ? "forward" : title ~ /: backward/ ? "backward" : ""
		shade = title ~ /chunk 1|odd chunks/ ? 1 : 0
		next
	}
	/^\$p[0-9]*s[0-9]* << EOD$/ { inblock = pass != ""; next }
	/^EOD$/ { inblock = 0; next }
	inblock { printf "%s %d %d %s %s\n", pass, shade, $3 + 0.4 + 0.5, $1, $2 }' | sort
}
same_timeline() { # name, then the arguments
	name=$1
	shift
	"$COMMTIME" "$@" --timeline --format csv >"$name.csv" 2>/dev/null
	"$COMMTIME" "$@" --timeline --plot "$name.gp" >/dev/null 2>&1
	from_csv <"$name.csv" >"$name.want"
	from_script <"$name.gp" >"$name.got"
	check "$name: the timeline has rows" [ "$(wc -l <"$name.want")" -gt 1 ]
	check "$name: the Gantt boxes are the simulated timeline" cmp -s "$name.want" "$name.got"
}
same_timeline gpipe pipeline --stages 4 --microbatches 8 --schedule gpipe
same_timeline 1f1b pipeline --stages 5 --microbatches 7 --tb 3ms
same_timeline interleaved pipeline --stages 4 --microbatches 8 --virtual 2
same_timeline interleaved-v3 pipeline --stages 3 --microbatches 6 --virtual 3 --tf 2us

# The Gantt chart labels microbatches when they fit, and not when not.
"$COMMTIME" $gantt --timeline --plot few.gp >/dev/null 2>&1
check "few operations: one microbatch label per box" \
	[ "$(grep -c "^set label '[0-9]*' at .* center" few.gp)" = 64 ]
"$COMMTIME" pipeline --stages 8 --microbatches 128 --timeline --plot many.gp >/dev/null 2>&1
check "many operations: no labels" [ "$(grep -c '^set label' many.gp)" = 0 ]

# 4. The bubble figure: one curve per stage count and schedule, and the
# table's rows are the points marked on them (bubble_fraction in percent).
"$COMMTIME" $bubble --plot curves.gp >/dev/null 2>&1
"$COMMTIME" $bubble --format csv >curves.csv
for s in 2 4 8; do
	for sched in 1f1b "interleaved, v = 2"; do
		check "a curve for $s stages, $sched" \
			grep -q "^# panel 1, series [0-9]*: $s stages, $sched\$" curves.gp
	done
done
awk -F, 'NR > 1 { printf "%d %.9f\n", $2, 100 * $4 }' curves.csv | sort >points.want
awk '/^# panel [0-9]*, series [0-9]*: \(no title\)$/ { marks = 1; next }
	/^# panel/ { marks = 0; next }
	/<< EOD$/ { next }
	/^EOD$/ { marks = 0; next }
	marks { printf "%d %.9f\n", $1, $2 }' curves.gp | sort >points.got
check "the marked points are the table's rows" cmp -s points.want points.got
check "the y axis is in percent" grep -q "^set format y '%.0f %%'" curves.gp
check "microbatches spanning decades: log x" grep -q '^set logscale x' curves.gp
"$COMMTIME" pipeline --stages 4 --microbatches 8,16 --schedule gpipe,1f1b --plot same.gp >/dev/null 2>&1
check "gpipe and 1f1b share one curve, named for both" \
	[ "$(grep -c '^# panel 1, series [0-9]*: 4 stages' same.gp)" = 1 ]
check "the curve names both schedules" grep -q 'gpipe and 1f1b' same.gp

# 5. Too many operations to draw: refused with exit 2 before any file.
"$COMMTIME" pipeline --stages 64 --microbatches 128 --timeline --render big.png \
	-o big.txt >out 2>err
st=$?
check "too many boxes: exit 2" [ "$st" = 2 ]
check "too many boxes: says why in one line" \
	[ "$(cat err)" = "commtime: error: --timeline: 16384 operations are too many to draw (at most 10000); give fewer stages or microbatches, or leave out --plot and --render" ]
check "too many boxes: no image, no output, no temporary" \
	eval '[ ! -e big.png ] && [ ! -e big.txt ] && no_leftovers'
"$COMMTIME" pipeline --stages 64 --microbatches 128 --timeline --plot big.gp >/dev/null 2>err
st=$?
check "too many boxes: --plot refused too" eval '[ $st = 2 ] && [ ! -e big.gp ]'
"$COMMTIME" pipeline --stages 64 --microbatches 128 --timeline --format csv >big.csv 2>err
st=$?
check "too many boxes to draw but not to print: the table still works" \
	eval '[ $st = 0 ] && [ "$(wc -l <big.csv)" = 16385 ]'
check "nothing left behind" no_leftovers
