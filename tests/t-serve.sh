#!/bin/sh
# serve and allreduce --impl: the keys design.md pins, properties of the
# model that hold whatever its constants (the KV bytes exact from the
# shape, fp8 halving them, the serving kernels beating NCCL's ring at
# decode sizes on NVLink, the communication's share growing with TP), and
# serve's --output being the output length, not the global output file.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
unset COMMTIME_PRESETS

dir=$(mktemp -d "${TMPDIR:-/tmp}/commtime-t-serve.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

ct() { "$COMMTIME" --presets-dir "$top/presets" "$@"; }
# the value of key in the first row of a one-line JSON array or object
json_key() { tr ',{}' '\n\n\n' <"$2" | awk -F: -v k="\"$1\"" '$1 ~ k { gsub(/[ "]/, "", $2); print $2; exit }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
eq() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a == b) }'; }

base="--system dgx-h100 serve --workload llama3-70b --tp 8 --batch 1"
# shellcheck disable=SC2086
ct $base --format json >s.json
check "serve JSON: serve[0] has ttft_s, tpot_s, comm_share and fits" \
	sh -c "grep -q '\"serve\": \[' s.json && grep -q '\"ttft_s\"' s.json && grep -q '\"tpot_s\"' s.json && grep -q '\"comm_share\"' s.json && grep -q '\"fits\": \"yes\"' s.json"
share=$(json_key comm_share s.json)
check "serve: the communication share is between 0 and 1 ($share)" \
	awk -v s="$share" 'BEGIN { exit !(s > 0 && s < 1) }'

# the KV bytes: 2 layers-worth of K and V, 80 layers, 8 heads of 128, 2 bytes, per prompt token
for prompt in 1 1000 4096; do
	# shellcheck disable=SC2086
	ct $base --prompt $prompt --format json >k.json
	got=$(json_key request_B k.json)
	check "serve: the KV hand-off of $prompt tokens is 327680 B each ($got)" eq "$got" $((327680 * prompt))
done
# shellcheck disable=SC2086
ct $base --prompt 1000 --kv-precision fp8 --format json >k8.json
check "serve: an fp8 KV cache hands over half the bytes" eq "$(json_key request_B k8.json)" $((163840 * 1000))

# decode's 16 KiB all-reduce: NVLink kernels beat NCCL's ring on one node
# shellcheck disable=SC2086
ct $base --impl nccl --format json >n.json
# shellcheck disable=SC2086
ct $base --impl symm --format json >y.json
check "serve: TPOT with NCCL's symmetric kernels is below NCCL's ring" \
	lt "$(json_key tpot_s y.json)" "$(json_key tpot_s n.json)"
for tp in 2 8; do
	ct --system dgx-h100 serve --workload llama3-70b --tp $tp --batch 1 --format json >t$tp.json
done
check "serve: the communication share grows from TP 2 to TP 8" \
	lt "$(json_key comm_share t2.json)" "$(json_key comm_share t8.json)"

# --output after serve is the output length; -o still writes a file
# shellcheck disable=SC2086
ct $base --output 128 --format csv >o.csv
check "serve --output 128: the output length, no file named 128" \
	sh -c "test ! -e 128 && grep -q ',128,8,' o.csv"
# shellcheck disable=SC2086
ct $base --output=64 -o out.csv
check "serve --output=64 -o out.csv: the CSV goes to the file" sh -c "grep -q ',64,8,' out.csv"

# allreduce --impl nccl is the default: the same table
ct --system dgx-h100 allreduce --ranks 8 --sizes 4K,1M >a.out
ct --system dgx-h100 allreduce --ranks 8 --sizes 4K,1M --impl nccl >b.out
check "allreduce --impl nccl prints what allreduce prints" cmp -s a.out b.out
ct --system dgx-h100 allreduce --ranks 8 --sizes 16K --impl oneshot --format csv >one.csv
ct --system dgx-h100 allreduce --ranks 8 --sizes 16K --format csv >nccl.csv
check "allreduce: the one-shot kernel at 16 KiB on 8 H100 is faster than NCCL's choice" \
	lt "$(tail -1 one.csv | cut -d, -f4)" "$(tail -1 nccl.csv | cut -d, -f4)"
