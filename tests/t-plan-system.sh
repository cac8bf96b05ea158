#!/bin/sh
# plan on a system: the runs NCCL's model predicts (its own choice, Ring,
# NCCL's Tree), which tree is meant, NCCL_ALGO/NCCL_PROTO and -g or mpirun
# on the run lines, and a CSV that compare --expected reads back.
# Structural facts only: the numbers are models/nccl.md's business.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-plan-system
data=$top/tests/data/nccl
sys=$data/systems/hgx-h100-ndr.preset
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0

if "$COMMTIME" --system "$sys" plan --ranks 8,16 >"$d/sheet.txt" 2>"$d/err"; then
	check "the sheet says which tree is meant" grep -q "^tree: NCCL's tree" "$d/sheet.txt"
	check "a run of NCCL's own choice (no NCCL_ALGO)" \
		grep -q '^run [0-9]*: all_reduce_perf -b 8 -e 8G -f 2 -g 8$' "$d/sheet.txt"
	check "an NCCL_ALGO=Ring run" grep -q '^run [0-9]*: NCCL_ALGO=Ring all_reduce_perf' "$d/sheet.txt"
	check "an NCCL_ALGO=Tree run" grep -q '^run [0-9]*: NCCL_ALGO=Tree all_reduce_perf' "$d/sheet.txt"
	check "16 ranks on 8-GPU nodes run with mpirun" \
		grep -q '^run [0-9]*: mpirun -np 16 all_reduce_perf .* -g 1$' "$d/sheet.txt"
	check "the crossover compares ring and tree" \
		grep -q '^all_reduce ring and tree on 16 ranks' "$d/sheet.txt"
	check "the sheet names the model's choice at each size" \
		grep -q 'algorithm/protocol' "$d/sheet.txt"
	check "the sheet says how a run logs NCCL's own choice, and how to check it" \
		grep -q "NCCL_DEBUG_SUBSYS=TUNING .*'commtime --system $sys compare LOG'" "$d/sheet.txt"
else
	notok "plan --system runs ($(head -1 "$d/err"))"
fi

if "$COMMTIME" --system "$sys" plan --ranks 8 --proto simple -o "$d/plan.csv" 2>"$d/err"; then
	check "--proto: NCCL_PROTO on every run line" \
		[ "$(tail -n +2 "$d/plan.csv" | grep -c '^busbw,[^,]*NCCL_PROTO=simple')" = \
		"$(tail -n +2 "$d/plan.csv" | grep -c '^busbw,')" ]
	check "--proto simple: every choice Simple" \
		[ "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "note") k = i; next }
			/^busbw,/ && $k !~ /\/Simple$/' "$d/plan.csv" | wc -l)" = 0 ]
	check "the CSV reads back with compare --expected" \
		"$COMMTIME" --system "$sys" compare "$data/h100-x8-nvls.txt" --op all_reduce \
		--expected "$d/plan.csv" -o "$d/cmp.txt"
	check "... and with --algo ring, the ring rows" \
		"$COMMTIME" --system "$sys" compare "$data/h100-x8-nvls.txt" --op all_reduce \
		--algo ring --expected "$d/plan.csv" -o "$d/cmp-ring.txt"
	check "the two read different rows" sh -c "! cmp -s '$d/cmp.txt' '$d/cmp-ring.txt'"
else
	notok "plan --system -o plan.csv runs ($(head -1 "$d/err"))"
fi

if "$COMMTIME" --system "$sys" --model tiers plan --ranks 16 --sizes 1M,1G >"$d/tiers.txt" 2>"$d/err"
then
	check "tier model: the pair is ring and hier" \
		grep -q '^all_reduce ring and hier on 16 ranks' "$d/tiers.txt"
	check "tier model: no NCCL_ALGO on the run lines" sh -c "! grep -q NCCL_ALGO '$d/tiers.txt'"
	check "tier model: no TUNING hint (its choice is no NCCL choice)" \
		sh -c "! grep -q TUNING '$d/tiers.txt'"
else
	notok "plan --model tiers runs ($(head -1 "$d/err"))"
fi

# plan and crossover compare the same named pair and find the same size:
# on a link with --algo ring,tree (the seed's tree, said so), on a system
# by default (NCCL's ring and tree).
link_size=$("$COMMTIME" --alpha 5us --beta 200GB/s crossover --ranks 8 --algo ring,tree |
	awk '$1 == 8 && $2 == "ring" && $3 == "tree" { print $4, $5 }')
"$COMMTIME" --alpha 5us --beta 200GB/s plan --ranks 8 --ops all_reduce --algo ring,tree \
	--sizes 1K,1G >"$d/link.txt" 2>"$d/err"
check "link: plan's ring/tree crossover is crossover's ($link_size)" \
	grep -q "^all_reduce ring and tree on 8 ranks take equal time at $link_size " "$d/link.txt"
check "link: the seed's tree is named" grep -q "^tree: the seed's binomial tree" "$d/link.txt"
sys_size=$("$COMMTIME" --system "$sys" crossover --ranks 16 --algo ring,tree |
	awk '$1 == 16 && $2 == "ring" && $3 == "tree" { print $4, $5 }')
check "system: plan's ring/tree crossover is crossover's ($sys_size)" \
	grep -q "^all_reduce ring and tree on 16 ranks take equal time at $sys_size " "$d/sheet.txt"

# A plan of an algorithm only NCCL's model has is read back by compare.
nvls_log=$top/tests/data/nccl/h100-x8-nvls.txt
if "$COMMTIME" --system dgx-h100 plan --ranks 8 --algo nvls -o "$d/nvls.csv" 2>"$d/err"; then
	check "plan --algo nvls: its CSV names nvls" \
		[ "$(awk -F, 'NR > 1 && $5 == "nvls"' "$d/nvls.csv" | wc -l)" -gt 0 ]
	check "compare --expected with --algo nvls reads it" \
		"$COMMTIME" --system dgx-h100 compare "$nvls_log" --op all_reduce \
		--expected "$d/nvls.csv" --algo nvls -o "$d/nvls-cmp.csv"
	"$COMMTIME" --system dgx-h100 compare "$nvls_log" --op all_reduce \
		--expected "$d/nvls.csv" >/dev/null 2>"$d/nvls.err"
	check "compare --expected without --algo says which --algo the plan has" \
		grep -q 'the plan has them for --algo nvls' "$d/nvls.err"
else
	notok "plan --algo nvls runs ($(head -1 "$d/err"))"
fi

echo "1..$n"

# plan -o FILE.csv writes the CSV and still shows the sheet; with a workload
# that does not fit, every such row says so and points to search; the NCCL
# version priced is named, and compare --expected of a log that goes beyond the
# plan's sizes prices those with the model and says so (no NaN), warning that
# the log ran another NCCL.
(cd "$d" && "$COMMTIME" --system dgx-h100 plan --ranks 16 --workload llama3-70b -o e.csv) \
	>"$d/o.txt" 2>"$d/err"
check "plan -o FILE: the CSV is written" grep -q '^check,run,op,ranks,algo,size_B' "$d/e.csv"
check "plan -o FILE: the sheet is shown" grep -q '^run 1: mpirun -np 16 all_reduce_perf' "$d/o.txt"
check "plan: the NCCL version priced is named" grep -q '^NCCL version: 2.30.7 (the model' "$d/o.txt"
check "plan: 4 DDP and 3 ZeRO rows of Llama-3-70B on 16 H100 do not fit (stage 3 does)" \
	[ "$(grep -c 'does not fit$' "$d/o.txt")" = 7 ]
check "plan: ... and the CSV says so on the same rows" \
	[ "$(grep -c '^ddp,.*does not fit\|^zero,.*does not fit' "$d/e.csv")" = 7 ]
check "plan: ... pointing to search" grep -q "^7 rows marked 'does not fit' .* search --workload llama3-70b" "$d/o.txt"
"$COMMTIME" --system dgx-h100 compare "$data/h100-x16-ndr-xe9680.txt" --expected "$d/e.csv" \
	>"$d/cmp.txt" 2>"$d/cmp.err"
check "compare --expected: no NaN" eval '! grep -qi nan "$d/cmp.txt"'
check "compare --expected: the size beyond the plan is priced by the model and said so" \
	grep -q '^beyond the plan: 1 of 32 sizes, which the plan does not hold: predicted by the nccl model of dgx-h100' "$d/cmp.txt"
check "compare --expected: the plan's NCCL and the log's differ: a warning" \
	grep -q "priced NCCL 2.30.7, the log ran NCCL 2.26.2" "$d/cmp.err"
