#!/bin/sh
# The kinds whose published runs lean one way beyond the band (src/expect.c,
# EXPECT_LEAN; models/step-checks.md, "Kinds that lean"): step names each
# kind a configuration is of, in JSON (known_lean) and under its terms, and
# no kind for a configuration of none.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
unset COMMTIME_PRESETS

python=$(command -v /usr/bin/python3 || command -v python3)
if [ -z "$python" ]; then
	notok "python3 is needed to read the step's JSON"
	exit 0
fi
kinds() { # kinds STEP-ARGS...: the known_lean kinds, comma-separated ("-" for none)
	"$COMMTIME" --presets-dir "$top/presets" --system dgx-h100 step --workload llama3-8b \
		"$@" --format json |
		"$python" -c 'import json, sys
d = json.load(sys.stdin)
print(",".join(r["kind"] for r in d.get("known_lean", [])) or "-")'
}
same() { [ "$1" = "$2" ]; }
got=$(kinds --dp 8 --framework fsdp --zero 3 --seq 16384 --recompute full)
check "FSDP at 16384 tokens: $got" same "$got" fsdp_long_sequence
got=$(kinds --dp 8 --framework fsdp --zero 3 --seq 16384 --recompute full --attention fused)
check "FSDP at 16384 tokens with Transformer Engine's attention: $got" same "$got" -
got=$(kinds --dp 8 --framework fsdp --zero 3 --seq 8192 --recompute full)
check "FSDP at 8192 tokens, recomputed: $got" same "$got" -
got=$(kinds --dp 8 --framework fsdp --zero 3 --seq 32768 --global-batch 8)
check "FSDP at 32768 tokens, no recomputation: $got" same "$got" \
	fsdp_long_sequence,fsdp_no_recompute
got=$(kinds --dp 64 --framework deepspeed-2021 --zero 3 --seq 2048 --recompute full)
check "DeepSpeed of 2021, ZeRO-3: $got" same "$got" deepspeed_2021_zero3
got=$(kinds --dp 64 --framework deepspeed --zero 3 --seq 2048 --recompute full)
check "today's DeepSpeed, ZeRO-3: $got" same "$got" -
got=$(kinds --dp 8 --seq 65536 --global-batch 8)
check "Megatron at 65536 tokens: $got" same "$got" -
# the human output says it under the terms, with the kind's figures
out=$("$COMMTIME" --presets-dir "$top/presets" --system dgx-h100 step --workload llama3-8b \
	--dp 8 --framework fsdp --zero 3 --recompute none --global-batch 8)
check "the table names the kind with its runs and ratios" \
	grep -q "^FSDP without recomputation  *67  *2  *0\.917  *1\.091  *1\.343$" <<EOT
$out
EOT
