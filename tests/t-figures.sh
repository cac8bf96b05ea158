#!/bin/sh
# Figures: every command with a figure writes a gnuplot script (--plot) and
# renders it (--render) to PNG, SVG and PDF without a word from gnuplot; the
# script runs alone in an empty folder; the crossover sizes it marks are the
# ones the solver prints; text from a preset or a file name cannot run
# anything; a missing or failing gnuplot, an unknown image format and an
# unwritable place fail cleanly and leave nothing behind.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
unset COMMTIME_PRESETS
d=$top/tests/tmp/t-figures
# (the folders of the checks before the figures, made at once)
rm -rf "$d" && mkdir -p "$d" "$d/plot-only" "$d/nobin" "$d/nognuplot" "$d/failbin" \
	"$d/quitbin" "$d/fail" "$d/ext" "$d/unwritable" || exit 1
n=0

# Temporaries of the atomic writes: ".NAME.commtime-XXXXXX".
# (globs, built-ins and one process each: the checks run often)
no_temporaries() {
	for f in "$1"/*commtime-* "$1"/.*commtime-*; do [ -e "$f" ] && return 1; done
	return 0
}
is_png() { [ "$(od -An -tx1 -N8 "$1" 2>/dev/null)" = " 89 50 4e 47 0d 0a 1a 0a" ]; }
# an <svg element, and </svg> on the last line that is not blank
is_svg() { awk '/<svg/ { s = 1 } NF { l = $0 } END { exit !(s && l ~ /<\/svg>/) }' "$1" 2>/dev/null; }
is_pdf() { [ "$(head -c 5 "$1")" = "%PDF-" ]; }
empty() { [ ! -s "$1" ]; }
not() { ! "$@"; }

# The figures, one per line: a name and the arguments.
figures() {
	cat <<'EOF'
allreduce --alpha 5e-6 --beta 200e9 allreduce --ranks 8,64 --sizes 8:8G:x2
crossover --preset h100-nvlink4 crossover
ddp --alpha 5e-6 --beta 200e9 ddp --grad 14G --compute 300ms --ranks 8,16,64,256
ddp-overlap --preset ib-ndr ddp --workload llama2-7b --compute 300ms --bucket 25MiB --overlap 0.8 --target 10% --algo tree --ranks 2:1024:x2
zero --alpha 5e-6 --beta 200e9 zero --params 7.5e9
zero-stage3 --preset eth-100g-roce zero --workload llama2-70b --stage 3,1 --ranks 1
speedup speedup --ratio 0.05,0.15,0.5
speedup-comm speedup --comm 20ms --compute 300ms --ranks 1:1024:x2
speedup-fit speedup --measured 2:89,4:170,8:300 --ranks 16,32
serve --system dgx-h100 serve --workload llama3-70b --tp 8 --batch 4
allreduce-impl --system dgx-h100 allreduce --impl vllm --ranks 2,8 --sizes 512:8M:x2
EOF
}

# ---------------------------------------------------------------- no gnuplot
# What needs no gnuplot runs first, so it is tested everywhere.

# --plot alone writes the script and no image; it names the image beside it.
(cd "$d/plot-only" && "$COMMTIME" --presets-dir "$top/presets" zero --params 7.5e9 \
	--plot z.gp >/dev/null 2>err)
check "--plot alone exits 0" [ $? = 0 ]
check "--plot alone writes the script" [ -s "$d/plot-only/z.gp" ]
check "--plot alone draws no image" [ ! -e "$d/plot-only/z.svg" ]
check "--plot alone: the script draws z.svg" grep -q "^set output './z.svg'$" "$d/plot-only/z.gp"
check "--plot alone leaves no temporary" no_temporaries "$d/plot-only"

# The crossover sizes the scripts mark are the ones the solver prints:
# the same doubles, written the same way.
"$COMMTIME" --alpha 5e-6 --beta 200e9 crossover --ranks 2:1024:x2 --algo ring,tree \
	--format csv >"$d/cross.csv"
"$COMMTIME" --alpha 5e-6 --beta 200e9 crossover --ranks 2:1024:x2 --algo ring,tree \
	--plot "$d/cross.gp" >/dev/null
awk -F, 'NR > 1 && $4 != "" { print $1, $4 }' "$d/cross.csv" >"$d/cross.want"
# the datablock of the series titled "ring = tree"
awk '/^# panel 1, series [0-9]*: ring = tree$/ { getline; on = 1; next }
     on && /^EOD$/ { exit } on { print }' "$d/cross.gp" >"$d/cross.got"
check "crossover: the script holds the crossover sizes" [ -s "$d/cross.got" ]
check "crossover: the sizes in the script are those of --format csv" \
	cmp -s "$d/cross.want" "$d/cross.got"

"$COMMTIME" --preset h100-nvlink4 --presets-dir "$top/presets" crossover --format csv \
	>"$d/cross2.csv"
"$COMMTIME" --preset h100-nvlink4 --presets-dir "$top/presets" crossover \
	--plot "$d/cross2.gp" >/dev/null
awk -F, 'NR > 1 && $4 != "" { print $1, $4 }' "$d/cross2.csv" >"$d/cross2.want"
awk '/^# panel 1, series [0-9]*: ring = tree$/ { getline; on = 1; next }
     on && /^EOD$/ { exit } on { print }' "$d/cross2.gp" >"$d/cross2.got"
check "crossover with a preset: the sizes in the script are those of --format csv" \
	cmp -s "$d/cross2.want" "$d/cross2.got"

# allreduce marks the crossovers where the fastest algorithm changes, inside
# its size range, with a labelled point at (size, time there); the crossover
# command prints both.
"$COMMTIME" --alpha 5e-6 --beta 200e9 crossover --ranks 4,8,64,512 --algo ring,tree,dbtree \
	--format csv >"$d/ar.csv"
"$COMMTIME" --alpha 5e-6 --beta 200e9 allreduce --ranks 4,8,64,512 --sizes 8:8G:x2 \
	--algo ring,tree,dbtree --plot "$d/ar.gp" >/dev/null
# (the note between may hold a quoted comma: the time is the last field)
awk -F, 'NR > 1 && $4 != "" && $4 >= 8 && $4 <= 8589934592 { print $1, $2, $3, $4, $NF }' \
	"$d/ar.csv" | sort >"$d/ar.want"
sed -n "s|^set label '\([a-z]*\)/\([a-z]*\) \([0-9]*\): [^']*' at \([^,]*\), \([^ ]*\) \(right \)*point .*|\3 \1 \2 \4 \5|p" \
	"$d/ar.gp" | sort >"$d/ar.got"
check "allreduce: the script marks crossovers" [ "$(wc -l <"$d/ar.got")" -ge 3 ]
check "allreduce: the marked sizes and times are those the solver prints" \
	[ -z "$(comm -13 "$d/ar.want" "$d/ar.got")" ]

# No gnuplot on PATH: exit 1, say how to install it, no image, the script kept.
(cd "$d/nognuplot" && PATH=$d/nobin "$COMMTIME" --alpha 5e-6 --beta 200e9 allreduce \
	--plot f.gp --render f.png >/dev/null 2>err)
st=$?
check "no gnuplot: exit 1" [ "$st" = 1 ]
check "no gnuplot: one line on stderr" [ "$(wc -l <"$d/nognuplot/err")" = 1 ]
check "no gnuplot: the message says to install gnuplot" \
	grep -q "gnuplot is not on PATH; install it" "$d/nognuplot/err"
check "no gnuplot: no image" [ ! -e "$d/nognuplot/f.png" ]
check "no gnuplot: the --plot script is still written" [ -s "$d/nognuplot/f.gp" ]
check "no gnuplot: no temporary left" no_temporaries "$d/nognuplot"
rm -f "$d/nognuplot/f.gp"
(cd "$d/nognuplot" && PATH=$d/nobin "$COMMTIME" speedup --ratio 0.1 --render g.svg \
	>/dev/null 2>err)
st=$?
check "no gnuplot, --render alone: exit 1" [ "$st" = 1 ]
check "no gnuplot, --render alone: nothing but the error left" \
	[ "$(ls -A "$d/nognuplot")" = err ]

# A gnuplot that fails, and one that stops reading at once.
printf '#!/bin/sh\nwhile read -r l; do :; done\necho "gnuplot: no such terminal" >&2\nexit 1\n' \
	>"$d/failbin/gnuplot"
printf '#!/bin/sh\nexit 0\n' >"$d/quitbin/gnuplot"
chmod +x "$d/failbin/gnuplot" "$d/quitbin/gnuplot"
(cd "$d/fail" && PATH=$d/failbin "$COMMTIME" zero --params 7e9 --render z.png \
	>/dev/null 2>err)
st=$?
check "failing gnuplot: exit 1" [ "$st" = 1 ]
check "failing gnuplot: its message and ours" \
	[ "$(cat "$d/fail/err")" = "gnuplot: no such terminal
commtime: error: gnuplot failed to render 'z.png' (see its message above)" ]
check "failing gnuplot: no image, no temporary" [ "$(ls -A "$d/fail")" = err ]
(cd "$d/fail" && PATH=$d/quitbin "$COMMTIME" allreduce --ranks 2:1024:x2 --sizes 1:1T:x2 \
	--render big.svg >/dev/null 2>err)
st=$?
check "gnuplot that reads nothing and draws nothing: exit 1" [ "$st" = 1 ]
check "gnuplot that draws nothing: says so" \
	[ "$(cat "$d/fail/err")" = "commtime: warning: the figure shows 6 of the 10 rank counts
commtime: error: gnuplot drew nothing into 'big.svg'" ]
check "gnuplot that draws nothing: no image, no temporary" [ "$(ls -A "$d/fail")" = err ]

# --render with a format gnuplot is not asked for: a usage error, nothing written.
for name in f.jpg f f.gp f.PNG; do
	(cd "$d/ext" && "$COMMTIME" ddp --grad 1G --compute 1s --render "$name" >/dev/null 2>err)
	st=$?
	check "--render $name: exit 2" [ "$st" = 2 ]
	check "--render $name: a message naming the file" grep -q "'$name'" "$d/ext/err"
	check "--render $name: nothing written" [ "$(ls -A "$d/ext")" = err ]
done

# --plot or --render where no file can be made: exit 1, nothing left.
echo x >"$d/unwritable/file"
for target in "$d/unwritable/missing/f.gp" "$d/unwritable/file/f.gp"; do
	"$COMMTIME" speedup --ratio 0.1 --plot "$target" --render "$d/unwritable/r.svg" \
		>/dev/null 2>"$d/err"
	st=$?
	check "--plot ${target#$d/}: exit 1" [ "$st" = 1 ]
	check "--plot ${target#$d/}: one line on stderr" [ "$(wc -l <"$d/err")" = 1 ]
	check "--plot ${target#$d/}: nothing left, no image" \
		[ "$(ls -A "$d/unwritable")" = file ]
done
"$COMMTIME" speedup --ratio 0.1 --render "$d/unwritable/missing/r.png" >/dev/null 2>"$d/err"
check "--render into a missing directory: exit 1" [ $? = 1 ]
check "--render into a missing directory: nothing left" [ "$(ls -A "$d/unwritable")" = file ]
if [ "$(id -u)" != 0 ]; then
	mkdir -p "$d/readonly"
	chmod 555 "$d/readonly"
	"$COMMTIME" speedup --ratio 0.1 --plot "$d/readonly/f.gp" >/dev/null 2>"$d/err"
	check "--plot into a read-only directory: exit 1" [ $? = 1 ]
	check "--plot into a read-only directory: nothing left" [ -z "$(ls -A "$d/readonly")" ]
	chmod 755 "$d/readonly"
fi

# ------------------------------------------------------------------ gnuplot
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "ok $((n + 1)) # skip: gnuplot is not installed, figures not rendered"
	exit 0
fi

# Every figure renders: exit 0, not a word on stderr (gnuplot's warnings
# included), an image of the right kind, no temporary.  The --plot script
# written in the same run names that image after ./ and draws it alone, in
# an empty folder.  The figures take PNG, SVG and PDF in turn, so each
# format is drawn by three figures and each figure twice: by commtime and
# by its script alone.
figures >"$d/figures"
# each figure's two folders, made at once
set -- "$d/render" "$d/alone"
while read -r name args; do set -- "$@" "$d/render/$name" "$d/alone/$name"; done <"$d/figures"
mkdir -p "$@" || exit 1
: >"$d/alone/all.gp"
k=0
while read -r name args; do
	case $((k % 3)) in 0) ext=png ;; 1) ext=svg ;; *) ext=pdf ;; esac
	k=$((k + 1))
	w=$d/render/$name
	# shellcheck disable=SC2086
	(cd "$w" && "$COMMTIME" --presets-dir "$top/presets" $args \
		--plot fig.gp --render "fig.$ext" >/dev/null 2>err)
	st=$?
	check "$name.$ext: exit 0" [ "$st" = 0 ]
	check "$name.$ext: nothing on stderr" empty "$w/err"
	[ -s "$w/err" ] && sed 's/^/# /' "$w/err"
	check "$name.$ext: an image" "is_$ext" "$w/fig.$ext"
	rm -f "$w/err"
	check "$name: the script names its image as given, after ./" \
		grep -q "^set output './fig.$ext'$" "$w/fig.gp"
	check "$name: no absolute path in the script" not grep -q "$d" "$w/fig.gp"
	mv "$w/fig.gp" "$d/alone/$name/"
	check "$name: rendering leaves no temporary" no_temporaries "$w"
	printf "print '== %s'\ncd '%s'\nload 'fig.gp'\nreset\ncd '..'\n" "$name" "$name" \
		>>"$d/alone/all.gp"
done <"$d/figures"
# The scripts alone, in one gnuplot, each from its own folder; what it
# says of each (an error stops it) follows the line printed before it.
(cd "$d/alone" && gnuplot all.gp >/dev/null 2>all.err)
k=0
while read -r name args; do
	case $((k % 3)) in 0) ext=png ;; 1) ext=svg ;; *) ext=pdf ;; esac
	k=$((k + 1))
	said=$(awk -v h="== $name" '$0 == h { on = 1; next } /^== / { on = 0 } on' "$d/alone/all.err")
	check "$name: gnuplot fig.gp alone runs without a word" [ -z "$said" ]
	[ -n "$said" ] && printf '%s\n' "$said" | sed 's/^/# /'
	check "$name: gnuplot fig.gp alone draws fig.$ext" "is_$ext" "$d/alone/$name/fig.$ext"
done <"$d/figures"
# Without --render the script draws an SVG beside it.
mkdir -p "$d/alone-svg/empty"
(cd "$d/alone-svg" && "$COMMTIME" --alpha 5e-6 --beta 200e9 allreduce --plot a.gp >/dev/null &&
	mv a.gp empty/ && cd empty && gnuplot a.gp 2>err)
check "--plot a.gp alone: gnuplot draws a.svg" is_svg "$d/alone-svg/empty/a.svg"

# Hostile text.  A preset's description and a file name reach the command
# line of gnuplot's parser only as quoted strings: none of these may run
# "touch P", neither when commtime renders nor when gnuplot reads the script.
mkdir -p "$d/hostile/control"
# The control: unquoted, the same text does run, so the checks below can fail.
(cd "$d/hostile/control" && printf 'x = system("touch P")\n' >c.gp && gnuplot c.gp >/dev/null 2>&1)
check "control: gnuplot's system() makes P when not quoted" [ -e "$d/hostile/control/P" ]
i=0
while IFS= read -r desc; do
	i=$((i + 1))
	printf 'name = hostile%s\nkind = link\ndescription = %s\nalpha = 5us\nbeta = 25GB/s\n' \
		"$i" "$desc" >"$d/hostile/hostile$i.preset"
done <<'EOF'
x" ; system("touch P") ; print "
x' ; system('touch P') ; print '
`touch P`
x'.`touch P`.'
@P $(touch P) ${P} %P
'; system("touch P"); #
"; system('touch P'); #
x'' ; system(''touch P'') ; ''
EOF
# Each preset with each command writes its script; each preset also
# renders with one command, each command with two presets.  The scripts
# then run alone, all in one gnuplot, each from its own folder.
i=0
: >"$d/hostile/all.gp"
# the folder of each run, run-PRESET-COMMAND, made at once (the commands
# are those of the loop below)
set --
for pf in "$d"/hostile/hostile*.preset; do
	base=${pf##*/} base=${base%.preset}
	for c in allreduce crossover ddp zero; do set -- "$@" "$d/hostile/run-$base-$c"; done
done
mkdir -p "$@" || exit 1
for pf in "$d"/hostile/hostile*.preset; do
	base=${pf##*/} base=${base%.preset}
	j=0
	for cmd in "allreduce --ranks 8,64" "crossover" "ddp --grad 14G --compute 300ms" \
		"zero --params 7.5e9"; do
		run=run-$base-${cmd%% *}
		w=$d/hostile/$run
		render=
		[ $(((i + j) % 4)) = 0 ] && render="--render f.svg"
		j=$((j + 1))
		# shellcheck disable=SC2086
		(cd "$w" && "$COMMTIME" --preset "$pf" $cmd --plot f.gp $render \
			>/dev/null 2>err)
		echo $? >"$w/status"
		printf "cd '%s'\nload 'f.gp'\nreset\ncd '..'\n" "$run" >>"$d/hostile/all.gp"
	done
	i=$((i + 1))
done
(cd "$d/hostile" && gnuplot all.gp >/dev/null 2>&1)
for w in "$d"/hostile/run-*; do
	read -r st <"$w/status"
	what=${w##*/run-}
	if [ "$st" = 0 ] && [ ! -e "$w/P" ] && [ ! -e "$d/hostile/P" ] && is_svg "$w/f.svg"; then
		ok "hostile preset ${what%-*} with ${what##*-}: rendered, nothing run"
	else
		notok "hostile preset ${what%-*} with ${what##*-}: status $st, P made or no image"
	fi
done
# Hostile file names: quotes, backquotes, @ and $( ) in --plot and --render.
# Each renders, then its script runs alone (copied as s.gp into a folder
# of its own), all in one gnuplot.
w=$d/hostile/names
mkdir -p "$w" "$w/alone1" "$w/alone2" "$w/alone3" "$w/alone4" "$w/alone5" "$w/alone6" || exit 1
k=0
: >"$w/all.gp"
for name in "x'; system('touch P'); '" "x\"; system(\"touch P\"); \"" \
	'`touch P`' "@P \$(touch P)" "a'b" "x'.system('touch P').'"; do
	k=$((k + 1))
	(cd "$w" && "$COMMTIME" --alpha 5e-6 --beta 200e9 allreduce --plot "$name.gp" \
		--render "$name.png" >/dev/null 2>err)
	echo $? >"$w/status$k"
	cp "$w/$name.gp" "$w/alone$k/s.gp"
	printf "cd 'alone%s'\nload 's.gp'\nreset\ncd '..'\n" "$k" >>"$w/all.gp"
done
(cd "$w" && gnuplot all.gp >/dev/null 2>&1)
k=0
for name in "x'; system('touch P'); '" "x\"; system(\"touch P\"); \"" \
	'`touch P`' "@P \$(touch P)" "a'b" "x'.system('touch P').'"; do
	k=$((k + 1))
	read -r st <"$w/status$k"
	if [ "$st" = 0 ] && [ ! -e "$w/P" ] && [ ! -e "$w/alone$k/P" ] &&
		is_png "$w/$name.png" && is_png "$w/alone$k/$name.png"; then
		ok "hostile file name $k: rendered under its own name, nothing run"
	else
		notok "hostile file name $k ($name): status $st, P made or no image"
	fi
done

exit 0
