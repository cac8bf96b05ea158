#!/bin/sh
# What a newcomer trips over, tried as one would: each check is one of the
# surprises of a first session with the tool, numbered as in the list the
# fixes came from.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C; export LC_ALL
unset COMMTIME_PRESETS
d=$top/tests/tmp/t-newcomer
rm -rf "$d" && mkdir -p "$d/elsewhere" || exit 1

n=0
check() { # description, then a command that succeeds when the check holds
	n=$((n + 1))
	desc=$1; shift
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fi
}
run() { # the command; stdout to $d/out, stderr to $d/err, status in $st
	"$@" >"$d/out" 2>"$d/err" </dev/null
	st=$?
}
has() { grep -q -- "$1" "$d/${2:-out}"; }
lines_le() { [ "$(wc -l <"$d/${2:-err}")" -le "$1" ]; }

# 1. a binary that was never installed finds its presets from anywhere
cd "$d/elsewhere" || exit 1
run "$COMMTIME" --preset h100-nvlink4 --ranks 8 --sizes 1G
check "1: --preset works from another directory" test "$st" = 0
run "$COMMTIME" presets
check "1: presets lists the shipped ones from another directory" has h100-nvlink4
# ...and a binary with no presets anywhere says so and fails
case $COMMTIME in */valgrind-*) ;; *)
	cp "$COMMTIME" "$d/elsewhere/lone" 2>/dev/null
	run "$d/elsewhere/lone" presets
	check "1: no presets at all is an error" test "$st" = 1
	check "1: ... that names the directories searched" has "no presets found; searched" err
esac
cd "$top" || exit 1

# 2. an unknown option: the message that matters, not the whole help
run "$COMMTIME" ddp --grad 1G --compute 1s --bogus
check "2: unknown option is exit 2" test "$st" = 2
check "2: ... in at most three lines" lines_le 3
check "2: ... naming the option" has "unknown option '--bogus'" err
run "$COMMTIME" ddp --grad 1G --compute 1s --ranks 8 --ranks 16
check "2: a repeated option is an error, not its last value" test "$st" = 2

# 3. -o with an image name does not write the table into it
cd "$d" || exit 1
run "$COMMTIME" crossover -o fig.png
check "3: crossover -o fig.png is a usage error" test "$st" = 2
check "3: ... that points to --render" has "--render fig.png" err
check "3: ... and writes no fig.png" test ! -e fig.png
cd "$top" || exit 1

# 4. ddp answers "how long is my gradient all-reduce" without --compute
run "$COMMTIME" --alpha 5e-6 --beta 200e9 ddp --grad 14G --ranks 8
check "4: ddp without --compute runs" test "$st" = 0
check "4: ... and prints the all-reduce time" has "131.6 ms"
run "$COMMTIME" --alpha 5e-6 --beta 200e9 --format csv ddp --grad 14G --ranks 8
check "4: ... and its CSV keeps the contract columns, step and share empty" \
	has "^8,0.13160337344,0.13160337344,,,"

# 5. --time-unit on every table; auto never prints seven digits
run "$COMMTIME" --beta 1Gb/s ddp --grad 14G --compute 1s --ranks 8
check "5: a slow link's step reads in seconds" has "210.5 s"
check "5: ... not in millions of ms" sh -c "! grep -q '[0-9]\{7\}\.[0-9] ms' '$d/out'"
run "$COMMTIME" --time-unit us ddp --grad 14G --compute 300ms --ranks 8
check "5: --time-unit works on ddp" has "131603.4 µs"
run "$COMMTIME" zero --params 7.5e9 --ranks 64 --stage 0 --time-unit s
check "5: --time-unit works on zero, after the command too" has " s "

# 7. a sweep of microbatches skips the counts the interleaved schedule cannot run
run "$COMMTIME" pipeline --stages 8 --microbatches 4:256:x2 --schedule interleaved
check "7: the interleaved sweep runs" test "$st" = 0
check "7: ... with the rows that can run" has "^     8           256  interleaved"
check "7: ... and a note on the one left out" has "left out 1 row: .*M = 4, P = 8"
run "$COMMTIME" pipeline --stages 8 --microbatches 4 --schedule interleaved
check "7: a single impossible row is still an error" test "$st" = 2

# 8. compare: no silent default line rate; a log that stops before the plateau
run "$COMMTIME" compare tests/data/nccl/a100-x8-nvswitch.txt --expected tests/data/nccl/plan-a100.csv
check "8: compare --expected without a link runs" test "$st" = 0
check "8: ... says the line rate is unknown" has "line rate: unknown"
check "8: ... and judges no busbw against the default beta" sh -c "! grep -q 'low-busbw\|% of the line rate' '$d/out'"
run "$COMMTIME" compare tests/data/nccl/a100-x8-nvswitch.txt --preset a100-nvlink3
check "8: a log that ends at 128 MiB raises no low-busbw alarm" sh -c "! grep -q 'low-busbw' '$d/out'"
check "8: ... and says why" has "before the bandwidth plateau"
run "$COMMTIME" compare tests/data/nccl/l40s-x4-pcie-ring.txt --preset pcie4-x16
check "8: a log on its plateau and slow is still flagged" has "low-busbw"

# 9. plan: a sheet a person reads, runs that measure what the plan expects
run "$COMMTIME" plan --ranks 8
check "9: plan --ranks 8 fits on one screen of 80 lines" test "$(wc -l <"$d/out")" -le 80
check "9: ... each run once, as a heading" \
	test "$(grep -c 'all_reduce_perf -b 8 -e 8G -f 2 -g 8' "$d/out")" = 2
run "$COMMTIME" --format csv plan --ranks 8
check "9: the CSV holds the full sweep" test "$(grep -c '^busbw,NCCL_ALGO=Ring' "$d/out")" = 31
run "$COMMTIME" --format csv plan --ranks 8 --sizes 1M,64M,1G,8G --ops all_gather
check "9: the run of --sizes 1M,64M,1G,8G measures every one of them" \
	has "all_gather_perf -b 1M -e 8G -f 2 -g 8"
run "$COMMTIME" plan --ranks 8 --workload llama2-7b
check "9: a workload without --compute leaves out the step, not the checks" test "$st" = 0
check "9: ... and still shows the all-reduce of DDP" has "the gradient all-reduce of one step"

# 12. the docs and the tool agree
run "$COMMTIME" --version
check "12: --version prints the version" has "^commtime [0-9]"
check "12: ... and the README says so" grep -q -- "--version" "$top/README.md"
check "12: ... and the man page" grep -q -F '.B \-\-version' "$top/commtime.1"
run "$COMMTIME" --format json presets
check "12: presets --format json has its inputs object" has '"inputs"'
run "$COMMTIME" pipeline --help
check "12: pipeline --help does not offer --alpha" sh -c "! grep -q -- '--alpha' '$d/out'"
run "$COMMTIME" --beta 1GB/s speedup --ratio 0.1
check "12: speedup refuses a link it would ignore" test "$st" = 2
run "$COMMTIME" plan --help
for op in alltoall broadcast reduce sendrecv; do
	check "12: plan --help lists --ops $op, which it accepts" has "$op"
done
check "12: the docs say ZeRO's volume is in gradient values times their bytes" \
	grep -q "times the bytes of a gradient value" "$top/docs/commands.md"
gdef=$("$COMMTIME" ddp --help | sed -n 's/.*--grad-bytes.*(default \([0-9]*\).*/\1/p')
check "12: the docs give ddp --grad-bytes the default its --help gives ($gdef)" \
	grep -q "grad-bytes\` ($gdef: " "$top/docs/commands.md"
check "12: the man page no longer says plan writes one CSV" sh -c "! grep -q 'rental, one CSV' '$top/commtime.1'"

# 11. figures: the README shows each figure once, with its own description
check "11: no figure shown twice in the README" \
	sh -c "grep -o '](plots/[a-z-]*\.svg)' '$top/README.md' | sort | uniq -d | grep -q . && exit 1 || exit 0"
check "11: the timeline figure is not called interleaved (it is 1F1B)" \
	sh -c "! grep -q 'interleaved[^]]*](plots/pipeline-timeline.svg)' '$top/README.md'"
check "11: ... and is drawn from the 1F1B schedule" grep -q "pipeline-timeline pipeline .*--schedule 1f1b" "$top/plots/make-figures.sh"
run "$COMMTIME" --preset h100-nvlink4 crossover --algo ring,tree,dbtree --plot "$d/x3.gp"
check "11: crossover of three algorithms draws each pair in its own colour" \
	test "$(grep -c "lc rgb '#0072B2' title 'ring = tree'" "$d/x3.gp"):$(grep -c "lc rgb '#D55E00' title 'ring = dbtree'" "$d/x3.gp")" = 1:1
run "$COMMTIME" --preset h100-nvlink4 crossover --ranks 2,4,8 --plot "$d/x2.gp"
check "11: the crossover map fills a column a rank count: steps, no wedge" \
	test "$(awk '/^\$p1s1 << EOD$/ { on = 1; next } on && /^EOD$/ { exit } on' "$d/x2.gp" | wc -l)" = 6
run "$COMMTIME" --alpha 5e-6 --beta 200e9 allreduce --ranks 8,64 --sizes 8:8G:x2 \
	--algo ring,tree,dbtree,rd,rabenseifner --plot "$d/a5.gp"
check "11: five algorithms mark only where the fastest changes" \
	test "$(grep -c "^set label '[a-z]*/[a-z]* [0-9]*:" "$d/a5.gp")" -le 8
check "11: ... with sizes in the binary units of the axis" \
	sh -c "grep \"^set label '[a-z]*/[a-z]* [0-9]*:\" '$d/a5.gp' | grep -q MiB && ! grep \"^set label\" '$d/a5.gp' | grep -q ' MB'"
check "11: ... a label in the right part of the axis sits left of its point" \
	sh -c "grep \"^set label\" '$d/a5.gp' | grep -q ' right point '"
run "$COMMTIME" --preset h100-nvlink4 crossover --plot "$d/st.gp" --size 1200x700 --title "Our cluster"
check "11: --size sets the image size" grep -q "size 1200,700" "$d/st.gp"
check "11: --title sets the title" grep -q "^set title 'Our cluster'" "$d/st.gp"
run "$COMMTIME" crossover --size 10x10 --plot "$d/bad.gp"
check "11: a size out of range is a usage error" test "$st" = 2

# step: an explicit --virtual-stages 1 is kept, not turned into 2.
run "$COMMTIME" step --workload llama2-7b --tp 2 --pp 2 --dp 2 --global-batch 16 \
	--schedule interleaved --virtual-stages 1
check "step: interleaved with --virtual-stages 1 keeps v = 1" grep -q "^schedule: interleaved, v = 1," "$d/out"
run "$COMMTIME" step --workload llama2-7b --tp 2 --pp 2 --dp 2 --global-batch 16 --schedule interleaved
check "step: interleaved alone takes v = 2" grep -q "^schedule: interleaved, v = 2," "$d/out"
