#!/bin/sh
# One gradient everywhere (models/ddp.md, "One gradient"): ddp's comm_s,
# zero's stage-0 comm_s and the sum of step's dp rows agree within 1 % on
# the same workload and machine whenever the gradient size is the same:
# at each command's default where the defaults agree (ddp and zero: bf16,
# 2 B), and with --grad-bytes G on every command for G = 2 and 4.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
unset COMMTIME_PRESETS
n=0
fail=0
check() {   # NAME SYSTEM WORKLOAD RANKS GRAD-BYTES
	g=${5:+--grad-bytes $5}
	ddp=$("$COMMTIME" --system "$2" ddp --workload "$3" --ranks "$4" $g --format csv |
		awk -F, 'NR == 2 { print $2 }')
	zero=$("$COMMTIME" --system "$2" zero --workload "$3" --ranks "$4" --stage 0 $g --format csv |
		awk -F, 'NR == 2 { print $5 }')
	step=$("$COMMTIME" --system "$2" step --workload "$3" --dp "$4" --grad-bytes "${5:-2}" --format csv |
		awk -F, '$1 == "dp" { s += $7 } END { printf "%.17g\n", s }')
	n=$((n + 1))
	if awk -v a="$ddp" -v b="$zero" -v c="$step" 'BEGIN {
		if (a <= 0 || b <= 0 || c <= 0) exit 1
		if (b / a > 1.01 || a / b > 1.01 || c / a > 1.01 || a / c > 1.01) exit 1 }'; then
		echo "ok $n - $1: ddp $ddp s, zero $zero s, step $step s"
	else
		echo "not ok $n - $1: ddp $ddp s, zero $zero s, step $step s differ by more than 1 %"
		fail=1
	fi
}
check "Llama 2 7B, 16 ranks of dgx-h100, defaults" dgx-h100 llama2-7b 16
check "GPT-3 175B, 64 ranks of hgx-a100, 2-byte gradients" hgx-a100 gpt3-175b 64 2
check "Llama 3 8B, 8 ranks of one dgx-h100, 4-byte gradients" dgx-h100 llama3-8b 8 4
check "Llama 2 7B, 16 ranks of dgx-h100, 4-byte gradients" dgx-h100 llama2-7b 16 4
exit $fail
