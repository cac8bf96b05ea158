#!/bin/sh
# Published end-to-end training runs against commtime's expected step
# (make bench; not a test, never part of make check).  The best case takes
# no constant from these runs; they are 13 of the 41 of bench/step-pool.txt,
# on which the expected step's clock share is fitted (bench/step-pool.py
# states its errors left out source by source).  Each row is what a user would type for the run and the
# per-GPU rate the run published; the step time follows from the model
# FLOPs, so step error = published rate / predicted rate - 1
# (predicted rate = achieved MFU x the GPU's dense peak).  Sources and the
# assumptions each row makes: models/step.md, "Checks against published
# runs".  Variables: COMMTIME (default ./commtime), PYTHON.
cd "$(dirname "$0")/.." || exit 1
COMMTIME=${COMMTIME:-./commtime}
PYTHON=${PYTHON:-python3}
[ -x "$COMMTIME" ] || { echo "step-check: build commtime first (make)" >&2; exit 1; }

# label | published TFLOP/s per GPU | peak TFLOP/s | arguments
# The nemo-* rows are FP8 runs on DGX H100 (Megatron-Bridge performance
# summary, NeMo 25.11 container): their tokens/s per GPU (1602, 14451,
# 292) times commtime's model FLOPs per token of the shape, so that the
# published rate and the prediction count FLOPs alike (the summary's own
# TFLOP/s come from a count of about 7 % fewer FLOPs a token).  The
# nemo-q3-* rows are FP8 mixtures of experts from the same table
# (1575 and 5275 tokens/s per GPU, Megatron-Bridge
# docs/performance-summary-archive.md, "25.11 NeMo Container", DGX-H100;
# force-balanced routing, dropless); Qwen3-235B-A22B folds EP 32 over
# TP 2 x DP 16 with ETP 1 and puts the embedding and the loss in the
# pipeline split as a layer each, 11 layers on the first and last stages;
# both overlap the EP all-to-all (Megatron-Bridge at 487bbaa8f, Dec 2025,
# scripts/performance/configs/qwen/qwen3_workload_base_configs.py:
# expert_tensor_parallel_size = 1, moe_a2a_overlap = True;
# src/megatron/bridge/recipes/qwen/h100/qwen3_moe.py:
# account_for_embedding_in_pipeline_split, account_for_loss_in_pipeline_split).
# The titan-8b rows are torchtitan's Llama 3.1 8B on 8 H100 at 500 W
# (docs/performance.md, Table 1): 5,762 tokens/s per GPU eager and 6,667
# with torch.compile, times commtime's 6.221e10 FLOPs a token; the pair
# checks what running the elementwise work eager costs.
rows() {
	cat <<'EOF'
mcore-1.7B|408.8|989.4|--system dgx-h100 step --arch gpt --layers 24 --hidden 2048 --heads 16 --vocab 131072 --seq 4096 --tp 1 --pp 1 --dp 48 --global-batch 192 --zero 1
mcore-7.1B|465.9|989.4|--system dgx-h100 step --arch gpt --layers 30 --hidden 4096 --heads 32 --vocab 131072 --seq 4096 --tp 2 --pp 1 --dp 48 --global-batch 192 --zero 1 --sequence-parallel
mcore-16B|489.1|989.4|--system dgx-h100 step --arch gpt --layers 32 --hidden 6144 --heads 48 --vocab 131072 --seq 4096 --tp 4 --pp 1 --dp 48 --global-batch 192 --zero 1 --sequence-parallel
mcore-32B|459.6|989.4|--system dgx-h100 step --arch gpt --layers 48 --hidden 7168 --heads 56 --vocab 131072 --seq 4096 --tp 8 --pp 1 --dp 48 --global-batch 192 --zero 1 --sequence-parallel
mcore-70B|419.7|989.4|--system dgx-h100 step --arch gpt --layers 84 --hidden 8192 --heads 64 --vocab 131072 --seq 4096 --tp 8 --pp 2 --dp 48 --global-batch 384 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 7
mcore-119B|420.5|989.4|--system dgx-h100 step --arch gpt --layers 92 --hidden 10240 --heads 80 --vocab 131072 --seq 4096 --tp 8 --pp 4 --dp 48 --global-batch 768 --zero 1 --sequence-parallel
mcore-177B|432.8|989.4|--system dgx-h100 step --arch gpt --layers 96 --hidden 12288 --heads 96 --vocab 131072 --seq 4096 --tp 8 --pp 6 --dp 48 --global-batch 1152 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 8
mcore-314B|474.4|989.4|--system dgx-h100 step --arch gpt --layers 96 --hidden 16384 --heads 128 --vocab 131072 --seq 4096 --tp 8 --pp 8 --dp 48 --global-batch 1536 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 6
mcore-462B|459.9|989.4|--system dgx-h100 step --arch gpt --layers 112 --hidden 18432 --heads 144 --vocab 131072 --seq 4096 --tp 8 --pp 16 --dp 48 --global-batch 3072 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 7
llama3-405b-8k|430|989.4|--system dgx-h100 step --workload llama3-405b --tp 8 --pp 16 --dp 64 --global-batch 2048 --seq 8192 --sequence-parallel --zero 2
llama3-405b-16k|400|989.4|--system dgx-h100 step --workload llama3-405b --tp 8 --pp 16 --dp 128 --global-batch 2048 --seq 8192 --sequence-parallel --zero 2
mixtral-8x7b|468|989.4|--system dgx-h100 step --workload mixtral-8x7b --tp 1 --pp 4 --dp 8 --ep 8 --global-batch 128 --seq 4096 --zero 1
nemo-70b-fp8|771.2|989.4|--system dgx-h100 step --workload llama3-70b --tp 4 --pp 8 --dp 2 --global-batch 128 --seq 8192 --sequence-parallel --zero 1 --schedule interleaved --virtual-stages 5 --precision fp8
nemo-8b-fp8-fsdp|836.9|989.4|--system dgx-h100 step --workload llama3-8b --dp 8 --global-batch 128 --seq 8192 --zero 3 --framework fsdp --precision fp8 --elementwise fused
nemo-405b-fp8|766.6|989.4|--system dgx-h100 step --workload llama3-405b --tp 8 --pp 8 --cp 2 --dp 8 --global-batch 512 --seq 8192 --sequence-parallel --zero 1 --schedule interleaved --virtual-stages 8 --precision fp8
nemo-q3-235b-fp8|263.0|989.4|--system dgx-h100 step --workload qwen3-235b-a22b --tp 2 --pp 8 --dp 16 --ep 32 --etp 1 --global-batch 2048 --seq 4096 --sequence-parallel --zero 1 --schedule interleaved --virtual-stages 4 --layers-first 11 --layers-last 11 --precision fp8 --overlap-moe-expert-parallel-comm
nemo-q3-30b-fp8|146.8|989.4|--system dgx-h100 step --workload qwen3-30b-a3b --pp 2 --dp 8 --ep 8 --global-batch 512 --micro-batch 2 --seq 4096 --zero 1 --schedule interleaved --virtual-stages 24 --precision fp8 --overlap-moe-expert-parallel-comm
llama3-405b-128k|380|989.4|--system dgx-h100 step --workload llama3-405b --tp 8 --pp 16 --dp 8 --cp 16 --cp-form allgather --global-batch 128 --seq 131072 --sequence-parallel --zero 2
titan-8b-eager|358.5|989.4|--system dgx-h100 step --workload llama3-8b --seq 8192 --dp 8 --micro-batch 2 --global-batch 16 --framework fsdp --zero 3 --recompute alternate-matmul-outputs --gpu-memory 96GB --power-cap 500 --hbm-bandwidth 2.4TB/s
titan-8b-compiled|414.8|989.4|--system dgx-h100 step --workload llama3-8b --seq 8192 --dp 8 --micro-batch 2 --global-batch 16 --framework fsdp --zero 3 --recompute alternate-matmul-outputs --gpu-memory 96GB --power-cap 500 --hbm-bandwidth 2.4TB/s --elementwise fused
EOF
}

printf '%-18s %10s %10s %8s %6s  %s\n' run published predicted error fits note
rows | while IFS='|' read -r label pub peak args; do
	# shellcheck disable=SC2086
	out=$($COMMTIME $args --format json 2>&1)
	printf '%s\n' "$out" | $PYTHON -c '
import json, sys
label, pub, peak = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
text = sys.stdin.read()
try:
    d = json.loads(text)
except ValueError:
    print("%-18s %10.1f %10s %8s %6s  %s" % (label, pub, "-", "-", "-", text.strip().splitlines()[-1][:60]))
    sys.exit(0)
mfu = d["step"][0]["mfu"]
pred = mfu * peak
err = pub / pred - 1
print("%-18s %10.1f %10.1f %+7.1f%% %6s" % (label, pub, pred, 100 * err, d["memory"][0]["fits"]))
' "$label" "$pub" "$peak"
done | tee "${STEP_CHECK_OUT:-/dev/null}"
