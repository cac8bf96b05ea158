#!/bin/sh
# A first session with only --help, the man page and the README: every
# option works or says why, suggestions lead only to something that works,
# and compare's verdict comes first and never reads a broken fabric as fine.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
unset COMMTIME_PRESETS
d=$top/tests/tmp/t-first-steps
rm -rf "$d" && mkdir -p "$d" || exit 1
cd "$top" || exit 1
data=tests/data/nccl

run() { "$COMMTIME" "$@" >"$d/out" 2>"$d/err" </dev/null; st=$?; }
has() { grep -q -- "$1" "$d/${2:-out}"; }

# A bare number almost surely missing its unit: said on stderr, the value
# stands, the exit status is that of the run.
run --alpha 5 crossover --ranks 8
check "--alpha 5 runs (status 0)" [ "$st" = 0 ]
check "--alpha 5 is 5 s, as the echo says" has "^alpha: 5.00 s$"
check "--alpha 5: a warning names the option, the value and the unit" \
	has "^commtime: warning: --alpha: '5' is 5 s a step, .* if you meant 5us, write the unit" err
run --beta 200 crossover --ranks 8
check "--beta 200 runs (status 0) and is 200 B/s" sh -c "[ $st = 0 ] && grep -q '^beta: 200 B/s' '$d/out'"
check "--beta 200: a warning toward GB/s and Gb/s" has "^commtime: warning: --beta: '200' is 200 B/s.*200GB/s or 200Gb/s" err
for v in "--alpha 5us" "--alpha 5e-6" "--beta 200GB/s" "--beta 200e9" "--beta 40MB/s"; do
	# shellcheck disable=SC2086
	run $v crossover --ranks 8
	check "$v: no warning" [ ! -s "$d/err" ]
done
run --alpha 5 --beta 200 --format csv crossover --ranks 8
check "the warnings stay off a CSV on stdout" sh -c "! grep -q warning '$d/out'"
run --alpha -5 crossover
check "a bad value is still an error (exit 2), not a warning" [ "$st" = 2 ]

# Suggestions only toward something that works: each one is run.
suggest() { # the (first) suggestion of the last run's error: "--opt name" or "name"
	sed -n "s/.*did you mean '\([^']*\)'.*/\1/p" "$d/err"
}
suggestions() { # all it names: "'a', 'b' or 'c'"
	sed -n "s/.*did you mean \('.*'\)?\$/\1/p" "$d/err"
}
run --preset dgx-h100 crossover --ranks 8
check "--preset dgx-h100 (a system) is an error" [ "$st" = 1 ]
check "... that points to --system dgx-h100" [ "$(suggest)" = "--system dgx-h100" ]
run --system dgx-h100 crossover --ranks 8
check "... which works" [ "$st" = 0 ]
run --preset h100 crossover --ranks 8
s=$(suggest)
check "--preset h100 suggests a link preset ($s)" sh -c "[ -n '$s' ] && '$COMMTIME' --preset '$s' crossover --ranks 8 >/dev/null 2>&1"
check "... not the GPU preset --preset refuses" [ "$s" != h100-sxm ]
run --system h100 crossover --ranks 16
s=$(suggest)
check "--system h100 suggests a system ($s) that loads" sh -c "[ -n '$s' ] && '$COMMTIME' --system '$s' crossover --ranks 16 >/dev/null 2>&1"
run --system h100-sxm crossover
check "--system h100-sxm (a GPU) points to --gpu h100-sxm" [ "$(suggest)" = "--gpu h100-sxm" ]
run --system ib-ndr crossover
check "--system ib-ndr (a link) points to --preset ib-ndr" [ "$(suggest)" = "--preset ib-ndr" ]
run ddp --workload llama3-7b --ranks 8
s=$(suggest)
check "--workload llama3-7b suggests a workload ($s)" [ -n "$s" ]
check "... that runs" sh -c "'$COMMTIME' ddp --workload '$s' --ranks 8 >/dev/null 2>&1"
run ddp --workload h100-sxm --ranks 8
check "--workload h100-sxm (a GPU) points to --gpu h100-sxm" [ "$(suggest)" = "--gpu h100-sxm" ]
run step --workload llama2-7b --gpu h100 --tp 2
s=$(suggestions)
check "--gpu h100 suggests the GPUs as near ($s)" [ "$s" = "'h100-nvl', 'h100-pcie', 'h100-sxm' or 'h100-sxm-96gb'" ]
run step --workload llama2-7b --gpu dgx-h100 --tp 2
check "--gpu dgx-h100 (a system) points to --system dgx-h100" [ "$(suggest)" = "--system dgx-h100" ]
run --preset zz-no-such-thing crossover
check "a name near nothing gets no suggestion" sh -c "[ $st = 1 ] && ! grep -q 'did you mean' '$d/err'"

# help help
run help help
check "help help exits 0" [ "$st" = 0 ]
check "... and says what help does" has "^commtime help COMMAND: the options of COMMAND"
check "... then lists the commands" has "compare"

# compare: the verdict first, loud without a machine, the collective told
run compare "$data/h100-x16-ib-untuned.txt"
check "compare of a standard all_reduce_perf log needs no --op" [ "$st" = 0 ]
check "... and says how the collective was told" has "^collective told from: every row's redop 'sum' and busbw/algbw = 2(n-1)/n"
check "without a machine: a warning on stderr" has "^commtime: warning: compare: no machine given" err
check "... and the verdict says NOT JUDGED, not fine" sh -c "grep -q '^verdict: NOT JUDGED: no machine was given' '$d/out' && ! grep -q 'fabric is fine' '$d/out'"
check "... and that the errors are against the default link" has "^the errors are against the default link"
run compare "$data/h100-x16-ib-untuned.txt" --op all_reduce
check "with --op given, no 'told from' line" sh -c "! grep -q 'collective told from' '$d/out'"
run --system "$data/systems/hgx-h100-ndr.preset" compare "$data/h100-x16-ib-untuned.txt"
check "on its system the broken fabric is NOT fine" has "^verdict: the fabric is NOT fine: large-message busbw is 166.2 GB/s, 39 % of what hgx-h100-ndr should give"
check "... the verdict is the first line, and again before the summary table" \
	[ "$(awk '/^verdict:/ { print NR; exit }' "$d/out")" = 1 -a \
	"$(awk '/^verdict:/ { v = NR } END { print v }' "$d/out")" -lt "$(awk '/^summary$/ { print NR; exit }' "$d/out")" ]
check "... the reason under it" has "^why: below half of what the node's NICs carry together"
check "... with no warning" [ ! -s "$d/err" ]
run --system "$data/systems/hgx-h100-ndr.preset" compare "$data/h100-x16-ndr-xe9680.txt" --op all_reduce
check "the well-tuned fabric of the same system is fine" has "^verdict: the fabric is fine: "
run --preset pcie4-x16 compare "$data/l40s-x4-pcie-ring.txt"
check "on a link: NOT fine, against the line rate" has "^verdict: the fabric is NOT fine: .* of the line rate (31.5 GB/s)"
run --preset a100-nvlink3 compare "$data/a100-x8-nvswitch.txt"
check "a log that ends before the plateau is NOT JUDGED, and says why" has "^verdict: NOT JUDGED: the log ends at 128 MiB, before the bandwidth plateau"
run --format json compare "$data/h100-x16-ib-untuned.txt"
check "the JSON keeps inputs.op" has '"op": "all_reduce"'

# make run builds what it runs: commtime (and the completions), not the
# unit-test runner or the errband generator that make check builds.
if command -v make >/dev/null 2>&1; then
	make -s -n -W src/units.c -C "$top" run >"$d/make-run" 2>&1
	check "make run links commtime" grep -q -- "-o commtime " "$d/make-run"
	check "... and not the unit-test runner" sh -c "! grep -q -- '-o tests/unit/run-unit' '$d/make-run'"
	check "... nor the errband generator" sh -c "! grep -q -- '-o tools/errband-gen' '$d/make-run'"
	make -s -n -W src/units.c -C "$top" check >"$d/make-check" 2>&1
	check "make check still builds the unit-test runner" grep -q -- "-o tests/unit/run-unit" "$d/make-check"
fi

# Figures that finish the story: ranks and nodes in the title, the sheet's
# units, the stated band and the line rates the inputs name.
run --system dgx-h100 plan --ranks 16 --plot "$d/plan.gp"
check "plan figure on a system: the title gives ranks and nodes" \
	grep -q "^set title 'Expected nccl-tests busbw on 16 ranks (2 nodes of 8 GPUs), dgx-h100" "$d/plan.gp"
cross=$(sed -n 's/.*take equal time at \([0-9.]* [kMG]*B\) .*/\1/p' "$d/out")
check "... its crossover is labelled as the sheet says it ($cross)" grep -q "^set label '$cross' at " "$d/plan.gp"
check "... the stated error is drawn as a band" grep -q "with filledcurves .* title 'stated error of all_reduce (nccl''s choice)'" "$d/plan.gp"
check "... with the intra-node line rate" grep -q "^set label 'intra-node line rate 450 GB/s (h100-nvlink4)'" "$d/plan.gp"
check "... and the NICs' line rate" grep -q "^set label 'NICs'' line rate 8 x ib-ndr = 400 GB/s per node'" "$d/plan.gp"
run --system dgx-h100 plan --ranks 8 --plot "$d/plan1.gp"
check "... on one node, no NICs' line rate" sh -c "! grep -q 'NICs' '$d/plan1.gp' && grep -q '(1 node of 8 GPUs)' '$d/plan1.gp'"
run --preset h100-nvlink4 plan --ranks 8,64 --plot "$d/plan-link.gp"
check "plan figure on a link: the title gives the ranks" grep -q "^set title 'Expected nccl-tests busbw on 8 and 64 ranks, " "$d/plan-link.gp"
run --system "$data/systems/hgx-h100-ndr.preset" compare "$data/h100-x16-ib-untuned.txt" --plot "$d/cmp.gp"
check "compare figure on a system: the title gives ranks and nodes" \
	grep -q "^set multiplot .*all_reduce on 16 ranks (2 nodes of 8 GPUs): h100-x16-ib-untuned.txt" "$d/cmp.gp"
check "... the stated error in both panels" test "$(grep -c "title 'stated error (where a run should measure)'" "$d/cmp.gp")" = 2
check "... the 70 % line the busbw is judged by" grep -q "title '70 % of the prediction, from 64 MiB'" "$d/cmp.gp"
check "... and the line rates" grep -q "^set label 'NICs'' line rate 8 x ib-ndr = 400 GB/s per node'" "$d/cmp.gp"

# Tables: one readable unit per column, busbw where help promises it,
# wording that says what a number is.
run --system dgx-h100 allreduce --ranks 8,64 --sizes 4K,8G
check "allreduce on a system: a busbw column" has "^ranks  nodes       size          nccl           low          high        busbw  faster"
check "... its 8 GiB times in ms, not as five-digit µs" has "^    8      1      8 GiB      31.61 ms "
check "... no time of five digits before the point" sh -c "! grep -qE ' [0-9]{5}\.[0-9] (µs|ms)' '$d/out'"
run --system dgx-h100 allreduce --ranks 8 --sizes 8G --time-unit us
check "... --time-unit still fixes the unit" has " 31613.4 µs "
run --alpha 5e-6 --beta 200e9
check "the seed's table keeps its unit, the smallest time's" has "^    4      1 GiB     8083.1 µs    21494.8 µs  ring$"
run ddp --params 7B --grad-bytes 4 --compute 1s --ranks 1,2,1024 --algo tree
check "ddp's step of 3.8 s reads in seconds, not as 3800.1 ms" sh -c "grep -q ' 3.800 s ' '$d/out' && ! grep -q '3800.1 ms' '$d/out'"
run --system dgx-h100 step --workload llama3-70b --tp 2 --pp 8 --cp 4 --zero 1 --global-batch 512
check "step's memory row is in GB throughout, no GiB beside GB" \
	sh -c "sed -n '/^memory per GPU/,\$p' '$d/out' | sed -n 3p | grep -q '^ *[0-9.]* GB  *[0-9.]* GB  *[0-9.]* GB  *[0-9.]* GB  *[0-9.]* GB  *[0-9.]* GB  *[0-9.]* GB  *yes$'"
check "allreduce --help says where algbw and busbw are" sh -c "'$COMMTIME' allreduce --help | grep -q 'CSV and JSON add algbw and busbw'"
run --gpus-per-node 8 --intra h100 allreduce
check "--intra h100 suggests a link, not the GPU" has "did you mean 'h100-nvlink4'?" err
run fit "$data/h100-x8-nvls.txt" --machine h100
check "fit --machine h100 suggests a system" has "did you mean 'azure-nd-h100-v5', 'dgx-h100' or 'hgx-h100'?" err
run --format json --system "$data/systems/hgx-h100-ndr.preset" compare "$data/h100-x16-ib-untuned.txt"
check "compare's JSON summary carries the verdict for scripts" has '"verdict": "not fine"}'
run --format json compare "$data/h100-x16-ib-untuned.txt"
check "... not judged without a machine" has '"verdict": "not judged"}'
