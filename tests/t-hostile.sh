#!/bin/sh
# Hostile names and values: file names that gnuplot or a terminal would
# act on, presets that fit --save must not write, full disks under
# --render, two outputs on one path, FIFOs among the presets, numbers
# that parse in one reader and not another.  Each check names the promise
# it holds (README.md, "Safety").
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=$top/tests/tmp/t-hostile
rm -rf "$d" && mkdir -p "$d" || exit 1
cd "$d" || exit 1
n=0
log=$top/tests/data/nccl/a100-x8-nvswitch.txt

check() { # description, then a command that succeeds when the check holds
	n=$((n + 1))
	desc=$1
	shift
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fi
}
skip() { n=$((n + 1)); echo "ok $n # skip: $*"; }
not() { ! "$@"; }
no_temporary() { [ -z "$(find "${1:-.}" -name '*commtime-*' 2>/dev/null)" ]; }
status() { "$@" >/dev/null 2>err; echo $?; }
has_gnuplot=
command -v gnuplot >/dev/null 2>&1 && has_gnuplot=1

# ---- 1. names gnuplot would run or expand ----
if [ -n "$has_gnuplot" ]; then
	mkdir -p '|touch PWNED;' && cd '|touch PWNED;' && mkdir -p '|touch PWNED;' && cd "$d"
	st=$(status "$COMMTIME" --ranks 8 --render '|touch PWNED;/x.png')
	check "--render '|cmd/x.png' exits 0" [ "$st" = 0 ]
	check "--render '|cmd/x.png' runs no command" [ ! -e PWNED ]
	check "--render '|cmd/x.png' draws the file of that name" [ -s '|touch PWNED;/x.png' ]
	# The scripts written below then run alone, all in one gnuplot (with
	# HOME=home), as alone.gp loads them in turn.
	"$COMMTIME" --ranks 8 --plot f.gp --render '|touch P.png' >/dev/null 2>&1
	rm -f '|touch P.png'
	mkdir -p home '~'
	"$COMMTIME" --ranks 8 --plot t.gp --render '~/x.svg' >/dev/null 2>&1
	printf "load 'f.gp'\nreset\nload 't.gp'\nreset\n" >alone.gp
	k=0
	for name in '<x.svg' '`touch BQ`.svg' '@x.svg' "it's.svg" '$(touch D).svg'; do
		k=$((k + 1))
		rm -f "$name"
		status "$COMMTIME" --ranks 8 --plot "q$k.gp" --render "$name" >"q$k.status"
		printf "load 'q%s.gp'\nreset\n" "$k" >>alone.gp
	done
	(HOME=$d/home gnuplot alone.gp) 2>/dev/null
	check "a script naming '|touch P.png' runs no command" [ ! -e P.png ]
	check "a script naming '|touch P.png' draws that file" [ -s '|touch P.png' ]
	check "a script naming '~/x.svg' writes ./~/x.svg" [ -s '~/x.svg' ]
	check "a script naming '~/x.svg' writes nothing in HOME" [ -z "$(ls -A home)" ]
	k=0
	for name in '<x.svg' '`touch BQ`.svg' '@x.svg' "it's.svg" '$(touch D).svg'; do
		k=$((k + 1))
		read -r st <"q$k.status"
		check "a script naming $name draws that very file" \
			[ "$st" = 0 ] && [ -s "$name" ]
	done
	check "no backquote or \$() ran" [ ! -e BQ ] && [ ! -e D ]
	long=$(printf '%0250d' 0 | tr 0 a)
	mkdir -p "$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long"
	deep="$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long/$long"
	st=$(status "$COMMTIME" --ranks 8 --plot d.gp --render "$deep/x.svg")
	check "a 4 KiB image name is drawn whole" [ "$st" = 0 ] && [ -s "$deep/x.svg" ]
	check "a 4 KiB image name is quoted whole in the script" grep -q "x.svg'\$" d.gp
	for name in "$(printf 'a\nb.svg')" "$(printf 'a\tb.svg')" "$(printf 'a\033b.png')"; do
		st=$(status "$COMMTIME" --ranks 8 --render "$name")
		check "--render with a control character in the name draws it" \
			[ "$st" = 0 ] && [ -s "$name" ]
		st=$(status "$COMMTIME" --ranks 8 --plot c.gp --render "$name")
		check "--plot cannot name an image with a control character: exit 2" [ "$st" = 2 ]
	done
	check "control characters and long names leave no temporary" no_temporary
else
	skip "gnuplot is not on PATH: names gnuplot would interpret"
fi

# ---- 2, 3. what fit --save writes ----
mkdir -p "$(printf 'in\ngamma = 0.001\nx')"
cp "$log" "$(printf 'in\ngamma = 0.001\nx')/log.txt"
st=$(status "$COMMTIME" fit "$(printf 'in\ngamma = 0.001\nx')/log.txt" --save inj.preset)
check "fit --save from a path with a line break exits 0" [ "$st" = 0 ]
check "a line break in the log's path adds no key" not grep -q '^gamma' inj.preset
check "the saved preset loads" sh -c "'$COMMTIME' presets ./inj.preset >/dev/null"
for name in H100 'a b' "$(printf 'a\rb')" "$(printf 'e\033x')" "$(printf 'l\351')" \
	"$(printf '%05000d' 0)x" .hidden -opt; do
	rm -f ./*.preset
	st=$(status "$COMMTIME" fit "$log" --save "$name.preset")
	check "fit --save to a name presets refuse exits 2" [ "$st" = 2 ]
	check "fit --save to a name presets refuse writes nothing" [ -z "$(ls ./*.preset 2>/dev/null)" ]
	st=$(status "$COMMTIME" fit "$log" --save ok.preset --name "$name")
	check "fit --name that presets refuse exits 2" [ "$st" = 2 ]
done
"$COMMTIME" fit "$log" --save h100.preset >/dev/null
check "alpha is saved with every digit" grep -Eq '^alpha = [0-9.]{12,}' h100.preset
check "a saved preset shows" sh -c "'$COMMTIME' presets ./h100.preset >/dev/null"

# ---- 4. a full disk under --render ----
if [ -n "$has_gnuplot" ] && [ "$(id -u)" = 0 ] && mkdir -p small &&
	mount -t tmpfs -o size=20k tmpfs small 2>/dev/null; then
	for fmt in png svg pdf; do
		echo old >small/x.$fmt
		st=$(status "$COMMTIME" --ranks 4:64:x2 --sizes 8:8G:x2 --render small/x.$fmt)
		check "--render $fmt on a full disk exits 1" [ "$st" = 1 ]
		check "--render $fmt on a full disk says why" \
			grep -q "cannot write 'small/x.$fmt': No space left on device" err
		check "--render $fmt on a full disk keeps the old file" [ "$(cat small/x.$fmt)" = old ]
		check "--render $fmt on a full disk leaves no temporary" no_temporary small
	done
	umount small
else
	skip "a full-disk render needs root, mount and gnuplot (a 20 KiB tmpfs)"
fi
# A link to a full device: a private node made here (the machine's own
# /dev/full is never a target of anything that might replace a path).
if [ -n "$has_gnuplot" ] && [ "$(id -u)" = 0 ] && mknod fulldev c 1 7 2>/dev/null; then
	ln -s fulldev full.png
	st=$(status "$COMMTIME" --ranks 8 --render full.png)
	check "--render to a link to a full device exits 1" [ "$st" = 1 ]
	check "--render to a link to a full device says why" grep -q "No space left on device" err
	check "--render to a link to a full device leaves the node a device" [ -c fulldev ]
	rm -f full.png fulldev
else
	skip "--render to a full device needs gnuplot, root and mknod"
fi
# A gnuplot that exits 0 after writing half an image.
mkdir -p fakebin
cat >fakebin/gnuplot <<'EOF'
#!/bin/sh
cat >/dev/null
printf '\211PNG\r\n\032\n\0\0\0\rIHDR'
exit 0
EOF
chmod +x fakebin/gnuplot
echo old >cut.png
st=$(PATH=$d/fakebin:$PATH status "$COMMTIME" --ranks 8 --render cut.png)
check "a PNG without IEND exits 1" [ "$st" = 1 ]
check "a PNG without IEND is called incomplete" grep -q "incomplete png image for 'cut.png'" err
check "a PNG without IEND replaces nothing" [ "$(cat cut.png)" = old ]
# ... and half a PDF: a complete one ends with %%EOF.
cat >fakebin/gnuplot <<'EOF'
#!/bin/sh
cat >/dev/null
printf '%%PDF-1.5\n%%\342\343\317\323\n1 0 obj\n<< /Type /Catalog'
exit 0
EOF
echo old >cut.pdf
st=$(PATH=$d/fakebin:$PATH status "$COMMTIME" --ranks 8 --render cut.pdf)
check "a PDF without %%EOF exits 1" [ "$st" = 1 ]
check "a PDF without %%EOF is called incomplete" grep -q "incomplete pdf image for 'cut.pdf'" err
check "a PDF without %%EOF replaces nothing" [ "$(cat cut.pdf)" = old ]
rm -f cut.pdf
st=$(PATH=$d/fakebin:$PATH status "$COMMTIME" --ranks 8 --render cut.pdf)
check "a PDF without %%EOF leaves no file" [ "$st" = 1 ] && [ ! -e cut.pdf ]
if [ -n "$has_gnuplot" ]; then
	echo old >limit.svg
	st=$( (ulimit -f 8 && trap '' XFSZ && exec "$COMMTIME" --ranks 4:64:x2 --sizes 8:8G:x2 \
		--render limit.svg) >/dev/null 2>&1; echo $?)
	check "--render past the file size limit exits 1" [ "$st" = 1 ]
	check "--render past the file size limit keeps the old file" [ "$(cat limit.svg)" = old ]
	st=$({ (ulimit -f 8 && exec "$COMMTIME" --ranks 4:64:x2 --sizes 8:8G:x2 \
		--render limit.svg >/dev/null 2>&1); echo $?; } 2>/dev/null)
	check "--render past the file size limit with SIGXFSZ at its default ends by it" \
		[ "$st" -gt 128 ]
	check "--render ended by SIGXFSZ keeps the old file" [ "$(cat limit.svg)" = old ]
fi
check "renders leave no temporary" no_temporary

# ---- 6. two outputs of one run on one path ----
for args in "-o same.gp --plot same.gp" "-o x.svg --render x.svg" "--plot p.gp --render ./p.gp.svg -o ./p.gp" \
	"-o o.csv --plot ./o.csv"; do
	# shellcheck disable=SC2086
	st=$(status "$COMMTIME" --ranks 8 $args)
	check "two outputs on one path ($args) exit 2" [ "$st" = 2 ]
done
cp "$log" in.txt
st=$(status "$COMMTIME" fit in.txt --save in.txt -o in.txt)
check "fit in.txt --save in.txt -o in.txt exits 2" [ "$st" = 2 ]
check "... and leaves the input as it was" cmp -s "$log" in.txt
st=$(status "$COMMTIME" fit in.txt --save in.preset -o ./in.preset)
check "fit --save and -o on one file through ./ exits 2" [ "$st" = 2 ]
if [ "$(id -u)" = 0 ] && mknod nulldev c 1 3 2>/dev/null; then
	st=$(status "$COMMTIME" --ranks 8 -o nulldev --plot nulldev)
	check "two outputs into one null device are fine" [ "$st" = 0 ]
	check "... and it stays a device" [ -c nulldev ]
	rm -f nulldev
else
	skip "a private null device needs root and mknod"
fi

# ---- 7. a trailing backslash in a figure comment ----
if [ -n "$has_gnuplot" ]; then
	cp "$log" 'log\'
	"$COMMTIME" fit 'log\' --plot bs.gp >/dev/null 2>&1
	check "a comment ending in a backslash does not swallow the next line" \
		sh -c "gnuplot bs.gp 2>&1 | grep -q . && exit 1; [ -s bs.svg ]"
fi

# ---- 8. a FIFO among the presets ----
mkdir -p fifo && mkfifo fifo/x.preset 2>/dev/null
if [ -p fifo/x.preset ]; then
	st=$(timeout 20 "$COMMTIME" --presets-dir fifo presets >/dev/null 2>&1; echo $?)
	check "presets with a FIFO named *.preset ends" [ "$st" = 0 ]
	st=$(timeout 20 "$COMMTIME" --presets-dir fifo --preset x >/dev/null 2>&1; echo $?)
	check "--preset finding a FIFO on the path exits 1" [ "$st" = 1 ]
else
	skip "mkfifo failed"
fi

# ---- 9. rows come at once ----
# The whole sweep takes over ten seconds of CPU: with five seconds
# allowed, the first rows can only arrive if they are written as they
# come.  sed quits at row 7, which ends commtime (SIGPIPE) long before.
first=$( (ulimit -t 5; exec timeout 60 "$COMMTIME" --ranks 2:1000000:+1) 2>/dev/null |
	sed -n '7{p;q;}')
check "a huge table's first row comes before the sweep ends" \
	sh -c "printf '%s\n' '$first' | grep -q '^ *2 *4 KiB .*ring\$'"

# ---- 10. help and version ----
for a in --help -h help --version "help ddp"; do
	# shellcheck disable=SC2086
	st=$(status "$COMMTIME" $a)
	check "commtime $a exits 0" [ "$st" = 0 ]
done

# ---- 11. nonsense refused, sense accepted ----
check "--bucket 1e-300 exits 2" [ "$(status "$COMMTIME" ddp --grad 1G --compute 1s --bucket 1e-300)" = 2 ]
check "--beta 1e-300 exits 2" [ "$(status "$COMMTIME" --beta 1e-300)" = 2 ]
check "--beta 0.5 exits 2" [ "$(status "$COMMTIME" --beta 0.5)" = 2 ]
check "--sizes 1e-300:1e300:x10 is refused: below one byte" \
	sh -c "'$COMMTIME' --sizes 1e-300:1e300:x10 2>&1 >/dev/null | grep -q 'below one byte'"
check "--sizes 1:1e300:x10 gives 301 sizes" \
	[ "$("$COMMTIME" --format csv --ranks 8 --algo ring --sizes 1:1e300:x10 | wc -l)" = 302 ]

# ---- 12. one number reader ----
printf 'size,time_us,ranks,op\n0x10,17.29,4,all_reduce\n32,16.97,4,all_reduce\n64,18,4,all_reduce\n' >hex.csv
printf 'size,time_us,ranks,op\n16,0x11,4,all_reduce\n32,16.97,4,all_reduce\n64,18,4,all_reduce\n' >hext.csv
sed 's/^\( *8 *2 *float\)/\1/' "$log" | awk 'NR>1 && !done && /^ +8 +2 +float/ { sub(/ [0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +/, " 0x1p3 0.00 0.00 0 "); done=1 } { print }' >hex-log.txt
check "a hexadecimal size in CSV exits 1" [ "$(status "$COMMTIME" fit hex.csv)" = 1 ]
check "a hexadecimal time in CSV exits 1" [ "$(status "$COMMTIME" fit hext.csv)" = 1 ]
if ! cmp -s "$log" hex-log.txt; then
	check "a hexadecimal time in a log exits 1" [ "$(status "$COMMTIME" fit hex-log.txt)" = 1 ]
fi
check "--params 0x10 exits 2" [ "$(status "$COMMTIME" ddp --params 0x10 --compute 1s)" = 2 ]
check "--measured 0x8:100 exits 2" [ "$(status "$COMMTIME" speedup --measured 0x8:100,1:20)" = 2 ]
check "--measured 8:0x10 exits 2" [ "$(status "$COMMTIME" speedup --measured 8:0x10,1:20)" = 2 ]
check "--alpha 0x10 exits 2" [ "$(status "$COMMTIME" --alpha 0x10)" = 2 ]
sed 's/^layers = 32/layers = 0x20/; s/^name = .*/name = hexw/' "$top/presets/llama2-7b.preset" >hexw.preset
check "a hexadecimal workload key exits 1" \
	[ "$(status "$COMMTIME" ddp --workload ./hexw.preset --compute 1s)" = 1 ]

# ---- 13. huge times ----
"$COMMTIME" --beta 1 --ranks 8 --sizes 1e300 >big.txt
check "a time near 1e300 s prints in exponent form" grep -q '1\.750e+300 s' big.txt
check "no cell of 60 digits" not grep -Eq '[0-9]{30}' big.txt

# ---- 14. control bytes never reach the terminal raw ----
esc=$(printf 'e\033[2J\a.txt')
cp "$log" "$esc"
"$COMMTIME" fit "$esc" >esc.out 2>&1
check "a table shows ESC and BEL escaped" grep -q 'e\\x1b\[2J\\x07\.txt' esc.out
check "a table holds no ESC or BEL byte" sh -c "! tr -d '\\n' <esc.out | grep -q \"\$(printf '[\\033\\007]')\""
"$COMMTIME" --preset "$(printf 'x\033[2J')" 2>esc.err
check "an error message shows ESC escaped" grep -q 'x\\x1b\[2J' esc.err
check "an error message holds no ESC byte" sh -c "! grep -q \"\$(printf '\\033')\" esc.err"
"$COMMTIME" fit "$esc" --format json >esc.json
check "JSON keeps the name, escaped as JSON" grep -q 'e\\u001b\[2J\\u0007\.txt' esc.json

# ---- 15. presets FILE checks regime keys as compare does ----
"$COMMTIME" fit "$log" --save reg.preset >/dev/null
for edit in 's/^to\.2 = .*/to.2 = nan/' 's/^beta\.1 = .*/beta.1 = 0/' \
	's/^from\.2 = .*/from.2 = 100/' 's/^alpha\.1 = .*/alpha.1 = 1h/'; do
	sed "$edit; s/^name = reg\$/name = bad-reg/" reg.preset >bad-reg.preset
	check "presets FILE refuses a regime key ($edit)" \
		[ "$(status "$COMMTIME" presets ./bad-reg.preset)" = 1 ]
	check "compare refuses the same regime key ($edit)" \
		[ "$(status "$COMMTIME" compare "$log" --preset ./bad-reg.preset)" = 1 ]
done

# ---- 16. what fit --system --save writes ----
data=$top/tests/data/nccl
spec=$data/systems/hgx-h100-ndr.preset
one=$data/h100-x8-nvls.txt
two=$data/h100-x16-ndr-ring.txt
sysfit() { "$COMMTIME" --system "$spec" fit --op all_reduce "$@"; }
mkdir -p sys && cd sys || exit 1
# Nodes of our own (never the machine's /dev/full): a full device and a null one.
if [ "$(id -u)" = 0 ] && mknod full.preset c 1 7 2>/dev/null && mknod null-intra.preset c 1 3 2>/dev/null; then
	st=$(status sysfit "$one" "$two" --save full.preset)
	check "fit --system --save onto a device node exits 1" [ "$st" = 1 ]
	check "... says it is not a regular file" grep -q "'full.preset' exists and is not a regular file (a device)" err
	check "... and leaves the device node" [ -c full.preset ]
	check "... and writes no link beside it" [ ! -e full-intra.preset ]
	st=$(status sysfit "$one" "$two" --save null.preset)
	check "fit --system --save whose link would replace a device exits 1" [ "$st" = 1 ]
	check "... leaves that device node and writes no system" [ -c null-intra.preset ] && [ ! -e null.preset ]
	st=$(status "$COMMTIME" fit "$log" --save full.preset)
	check "plain fit --save onto a device node exits 1" [ "$st" = 1 ]
	check "... and leaves the device node" [ -c full.preset ]
	rm -f full.preset null-intra.preset
else
	skip "device nodes need root and mknod"
fi
ln -s target.preset link.preset
st=$(status sysfit "$one" "$two" --save link.preset)
check "fit --system --save onto a symbolic link exits 1" [ "$st" = 1 ]
check "... names the link" grep -q "'link.preset' exists and is not a regular file (a symbolic link)" err
check "... and follows it nowhere" [ -L link.preset ] && [ ! -e target.preset ]
st=$(status "$COMMTIME" fit "$log" --save link.preset)
check "plain fit --save onto a symbolic link exits 1" [ "$st" = 1 ] && [ ! -e target.preset ]
mkdir dir.preset
st=$(status sysfit "$one" "$two" --save dir.preset)
check "fit --system --save onto a directory exits 1" [ "$st" = 1 ] && [ -d dir.preset ]
for name in 'My Sys' H100 -s; do
	st=$(status sysfit "$one" "$two" --save "$name.preset")
	check "fit --system --save '$name.preset' exits 2" [ "$st" = 2 ]
	check "... saying which names work" grep -q "names use a-z, 0-9, '.', '_' and '-', start with a letter or digit" err
	check "... and writes nothing" [ ! -e "$name.preset" ] && [ ! -e "$name-intra.preset" ]
	case $name in
	'My Sys') check "... and names one that does" grep -q "(such as 'my-sys.preset')" err ;;
	H100) check "... and names one that does" grep -q "(such as 'h100.preset')" err ;;
	esac
done
st=$(status sysfit "$one" "$two" --save nosuffix)
check "fit --system --save without .preset exits 2" [ "$st" = 2 ] && [ ! -e nosuffix ]
st=$(status sysfit "$one" "$two" --save "$(printf '%0124d' 0).preset")
check "a system name with no room for -intra exits 2" [ "$st" = 2 ]
# Log paths with a line break and a key, ESC, CR and a Latin-1 byte.
for dir in "$(printf 'in\ngamma = 0.001\nx')" "$(printf 'e\033[2J')" "$(printf 'c\rr')" "$(printf 'l\351')"; do
	mkdir -p "$dir" && cp "$one" "$dir/one.txt" && cp "$two" "$dir/two.txt"
	rm -f ./*-*.preset ./inj.preset
	st=$(status sysfit "$dir/one.txt" "$dir/two.txt" --save inj.preset)
	check "fit --system --save from a hostile log path exits 0" [ "$st" = 0 ]
	check "... adds no key to the saved link" not grep -q '^gamma' inj-intra.preset
	check "... the saved link loads" sh -c "'$COMMTIME' presets ./inj-intra.preset >/dev/null"
	check "... the saved system loads" sh -c "'$COMMTIME' presets ./inj.preset >/dev/null"
	check "... its comment holds no control byte" sh -c "! LC_ALL=C grep -q \"\$(printf '[\\001-\\010\\013-\\037\\177]')\" inj-intra.preset"
done
rm -f ./inj*.preset
sysfit "$(printf 'in\ngamma = 0.001\nx')/one.txt" "$two" --save inj.preset >/dev/null 2>&1
check "a line break in a log path is written as \\x0a" grep -q 'in\\x0agamma = 0.001\\x0ax/one.txt' inj-intra.preset
t=$("$COMMTIME" --system ./inj.preset allreduce --ranks 16 --sizes 8M --format csv | sed -n '2p' | cut -d, -f4)
check "the saved system predicts milliseconds, not days (8 MiB on 16 ranks: $t s)" \
	awk -v t="$t" 'BEGIN { exit !(t > 1e-5 && t < 1e-2) }'
# A refit of the saved system on the same logs saves the same values.
sysfit "$one" "$two" --save a.preset >/dev/null 2>&1
"$COMMTIME" --system ./a.preset fit --op all_reduce "$one" "$two" --save b.preset >b.out 2>&1
for t in intra inter; do
	check "a refit saves the same $t values" \
		sh -c "grep -Ev '^(#|name|description)' a-$t.preset >x1; grep -Ev '^(#|name|description)' b-$t.preset >x2; cmp -s x1 x2"
done
check "a refit names the spec it calibrates" grep -q "^calibrated from: $spec" b.out
check "the saved system names its spec" grep -q "^calibrated_from = $spec\$" a.preset
# fit --system draws no figure: it says so.
for opt in "--plot f.gp" "--render f.svg"; do
	# shellcheck disable=SC2086
	st=$(status sysfit "$one" "$two" $opt)
	check "fit --system $opt exits 2" [ "$st" = 2 ] && [ ! -e f.gp ] && [ ! -e f.svg ]
done
check "fit --force without --system exits 2" [ "$(status "$COMMTIME" fit "$log" --force --save f.preset)" = 2 ]
check "fit --system --force without --save exits 2" [ "$(status sysfit "$one" --force)" = 2 ]
# The calibration checks itself: default (not ring) logs of one 8-GPU node
# and of two nodes make a calibrated ring worse than the spec.
xe=$data/h100-x16-ndr-xe9680.txt
st=$(status sysfit "$one" "$xe" --save worse.preset)
check "a calibration worse than the spec on its own logs exits 1" [ "$st" = 1 ]
check "... says both medians" grep -q "not saved: the calibrated system is worse than the uncalibrated one (median |error| on the 38 rows of the input logs: calibrated 80.2 %, uncalibrated 8.5 %); --force saves it anyway" err
check "... and saves nothing" [ ! -e worse.preset ] && [ ! -e worse-intra.preset ] && [ ! -e worse-inter.preset ]
st=$(status sysfit "$one" "$xe" --save worse.preset --force)
check "--force saves it: exit 0" [ "$st" = 0 ]
check "... with a warning" grep -q "^commtime: warning: --force: saved 'worse.preset' though the calibrated system is worse" err
check "... and the saved system loads" sh -c "'$COMMTIME' presets ./worse.preset >/dev/null"
st=$(status sysfit "$one" "$two" --save better.preset)
check "a calibration better than the spec saves without a word on stderr" [ "$st" = 0 ] && [ ! -s err ]
# presets --save writes through the same writer.
ln -s ptarget.preset plink.preset
st=$(status "$COMMTIME" --system "$spec" presets --save plink.preset)
check "presets --save onto a symbolic link exits 1" [ "$st" = 1 ] && [ -L plink.preset ] && [ ! -e ptarget.preset ]
st=$(status "$COMMTIME" --system "$spec" presets --save 'My Sys.preset')
check "presets --save 'My Sys.preset' exits 2 naming one that works" [ "$st" = 2 ] &&
	grep -q "(such as 'my-sys.preset')" err
mkdir -p "$(printf 'p\nname = x')"
cp "$spec" "$(printf 'p\nname = x')/hgx-h100-ndr.preset"
st=$(status "$COMMTIME" --system "$(printf 'p\nname = x')/hgx-h100-ndr.preset" presets --save pp.preset)
check "presets --save from a path with a line break exits 0" [ "$st" = 0 ]
check "... and writes the path escaped" grep -q 'p\\x0aname = x' pp.preset
check "... and the saved system loads" sh -c "'$COMMTIME' presets ./pp.preset >/dev/null"
check "fit --system --save leaves no temporary" no_temporary
cd "$d" || exit 1

# ---- numbers and shapes a trace must not carry into the model ----
th=$top/tests/data/trace/hostile
st=$(status "$COMMTIME" --system dgx-h100 compare --trace "$th/bom-kineto.json")
check "a Kineto trace after a UTF-8 byte order mark is read as JSON" [ "$st" = 0 ]
"$COMMTIME" --system dgx-h100 compare --trace "$th/bom-kineto.json" --format csv >bom.csv 2>/dev/null
check "... and gives its all_reduce row" grep -q '^all_reduce,4096,8,1,' bom.csv
"$COMMTIME" --system dgx-h100 compare --trace "$th/no-nccl.json" >nonccl.out 2>&1
check "a trace with no NCCL kernel says so" grep -q "no NCCL kernel in these steps" nonccl.out
check "... and prints no nan" not grep -qi nan nonccl.out
for f in "$th"/*-1e30*.json* "$th"/info-count-*.txt; do
	"$COMMTIME" --system dgx-h100 compare --trace "$f" >big.out 2>&1
	check "$(basename "$f"): no inf or nan reaches the output" not grep -Eqi 'inf (B|s|%)|-?nan ' big.out
done
printf '\357\273\277' >bom-topo.txt
cat "$top/tests/data/topo/dgx-h100.txt" >>bom-topo.txt
"$COMMTIME" --topo bom-topo.txt --system dgx-h100 allreduce --ranks 8 --sizes 1G >bomtopo.out 2>&1
check "an nvidia-smi matrix after a byte order mark reads 8 GPUs" grep -q "topology read: 8 GPUs" bomtopo.out


# ---- -o as docs/cli.md says: a dangling link, a read-only file ----
mkdir -p oo && ln -s 'no-such-dir/x.txt' oo/dangling
st=$(status "$COMMTIME" --ranks 8 -o oo/dangling)
check "-o onto a dangling link exits 0" [ "$st" = 0 ]
check "... and the link is replaced by the file, as docs/cli.md says" \
	sh -c '[ -f oo/dangling ] && [ ! -L oo/dangling ] && grep -q "^alpha:" oo/dangling'
echo old >oo/ro.txt && chmod 0444 oo/ro.txt
st=$(status "$COMMTIME" --ranks 8 -o oo/ro.txt)
if [ "$(id -u)" = 0 ]; then
	check "-o onto a 0444 file as root replaces it, as the shell's > does" [ "$st" = 0 ] &&
		grep -q "^alpha:" oo/ro.txt
	check "... and keeps its permissions" [ "$(stat -c %a oo/ro.txt)" = 444 ]
else
	check "-o onto a 0444 file is refused" [ "$st" = 1 ] && [ "$(cat oo/ro.txt)" = old ]
fi
check "-o leaves no temporary beside them" no_temporary oo
exit 0
