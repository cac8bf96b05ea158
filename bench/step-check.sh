#!/bin/sh
# Published end-to-end training runs against commtime's expected step
# (make bench; not a test, never part of make check).  The best case takes
# no constant from these runs; some are also rows of bench/step-pool.txt,
# on which the expected step's clock share is fitted (bench/step-pool.py
# states its errors left out source by source).  Each row is what a user would type for the run and the
# per-GPU rate the run published; the step time follows from the model
# FLOPs, so step error = published rate / predicted rate - 1
# (predicted rate = achieved MFU x the GPU's dense peak).  Sources and the
# assumptions each row makes: models/step-checks.md, "Checks against
# published runs".  Variables: COMMTIME (default ./commtime), PYTHON.
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
# nemo-q3-30b-drop is the same Qwen3-30B-A3B shape from the 25.09 container
# (10494 tokens/s per GPU, the archive's "25.09 NeMo Container", DGX-H100,
# "tokendrop"): capacity factor 1 with every expert padded to it and no
# all-to-all overlap (Megatron-Bridge at 9a5e7986, Oct 2025,
# scripts/performance/run_script.py: apply_moe_token_drop;
# configs/qwen3/qwen3_30b_a3b_llm_pretrain.yaml, fp8_cs mbs 2).  Padded to
# capacity the all-to-all dispatcher never waits for the token counts on
# the host; dropless it does once per MoE layer forward
# (megatron/core/transformer/moe/token_dispatcher.py,
# _maybe_dtoh_and_synchronize), which the model does not time.
# The same two shapes from later containers of the same archive, DGX-H100,
# FP8-CS: Qwen3-30B-A3B in 26.06 (8826 tokens/s per GPU; 16 GPUs, EP 16,
# no PP, MBS 1, GBS 1024; its recipe, src/megatron/bridge/perf_recipes/
# qwen/h100/qwen3_moe.py at 067f987d, Aug 2026: the flex dispatcher with
# the hybridep backend, no all-to-all overlap, CUDA graphs over attention,
# router and the MoE preprocessing, so the host no longer sets the pace)
# and Qwen3-235B-A22B in 26.04.01 (1712 tokens/s per GPU at GBS 8192,
# the layout above), each times the model FLOPs a token the rows above
# use (27.83 and 166.98 GFLOP).
# The mcore-177B-strong-* rows are the ends of Megatron-LM's strong scaling
# of the same 177B shape (README.md, "Strong Scaling Results", Megatron-
# Core r0.8.0: 96 to 4608 H100 at the same batch of 1152 sequences, "a
# reduction in MFU from 47% to 42%"): 0.47 and 0.42 of 989.4 TFLOP/s,
# typed as the weak-scaling mcore-177B row's layout (TP 8, PP 6, VP 8) at
# DP 2 and DP 96; the README states neither the layout nor the schedule.
# The titan-8b rows are torchtitan's Llama 3.1 8B on 8 H100 at 500 W
# (docs/performance.md, Table 1): 5,762 tokens/s per GPU eager and 6,667
# with torch.compile, times commtime's 5.791e10 FLOPs a token; the pair
# checks what running the elementwise work eager costs.  The titan-8b-fp8
# rows add Float8 (torchao's tensorwise dynamic scaling) to the compiled
# run, on 8 and on 128 GPUs (Tables 1 and 3: 8,532 and 8,380 tokens/s).
# The deepseek-v3 row is DeepSeek-V3's pre-training (DeepSeek-AI 2024,
# arXiv:2412.19437): 180K H800 GPU hours per trillion tokens (abstract and
# section 1), 1e12 / (180e3 x 3600) = 1543.2 tokens/s per GPU, times
# commtime's 280,513,609,728 model FLOPs a token of the shape (models/
# step.md, "Dense first layers, shared experts, latent attention"): 432.9
# TFLOP/s.  Its layout (section 3.2): 2048 H800 in nodes of 8, PP 16, EP 64
# over 8 nodes, ZeRO-1 data parallelism (DP 128), no TP; FP8 GEMMs
# (section 3.3); seq 4096, the batch 15360 sequences after its ramp
# (section 4.2).  Assumed: the 61 layers as 4 on the first stage (the 3
# dense and one MoE), 4 on each middle one, 1 on the last (the report does
# not say; the last stage also holds the multi-token-prediction module,
# which the model does not count); micro-batch 1; DualPipe as the report
# ran it (section 3.2.1, --schedule dualpipe: 120 micro-batches, even and
# at least 2 x 16).  Its all-to-all as the report runs it: node-limited
# routing, each token on at most 4 nodes, sent over IB once a node and
# forwarded over NVLink inside it (section 3.2.2, --moe-route-nodes 4), the
# dispatch in FP8 and the combine in BF16 (section 3.3.3,
# --moe-dispatch-fp8).  Memory as the report saves it: --recompute
# norm-and-swiglu-inputs (section 3.2.3: every RMSNorm and latent
# attention's up projections recomputed in backward; section 3.3.3:
# activations cached in FP8, the attention's output in E5M6, the MoE
# SwiGLU's inputs in FP8 and its output recomputed) and
# --optimizer-moments bf16 (section 3.3.3: AdamW's moments in BF16, the
# master weights and gradients fp32); the EMA it keeps in CPU memory
# (section 3.2.3) the model does not count on the GPU either.
# The mb26-* rows are the mixtures of experts of Megatron-Bridge's
# performance summary for its 26.08 container (docs/performance-summary.md
# at NVIDIA-NeMo/Megatron-Bridge main, Aug 2026: DGX-GB200 and DGX-GB300,
# MXFP8 as --precision fp8, force-balanced and dropless): DeepSeek-V3 at
# 4912 and 6288 tokens/s per GPU on 256 GPUs, Qwen3-235B-A22B at 7280 and
# 8816, Qwen3-30B-A3B at 1 node, 39936 and 44544, each at the table's GBS,
# MBS, PP, VP and EP, times the model FLOPs a token above (280.51, 166.96
# and 27.84 GFLOP).  Their recipes (src/megatron/bridge/perf_recipes/
# {qwen,deepseek}/gb{200,300}/*.py) overlap the EP all-to-all with another
# micro-batch's compute (comm_overlap.overlap_moe_expert_parallel_comm,
# delay_wgrad_compute), hence --overlap-moe-expert-parallel-comm; gradients
# in bf16 and the distributed optimizer as every Megatron-Bridge recipe
# (--grad-bytes 2 --zero 1).  Not typed: DeepSeek-V3's own pipeline layout
# (embedding and multi-token prediction as chunks of their own; the split
# here is commtime's even one) and its recomputed up projections on GB200,
# the full-iteration CUDA graphs, the FP8 attention core of the Qwen3
# recipes, the GB300's doubled exponential units.
# The mb2604-* rows are the dense Llama rows of the same archive's
# "26.04.01 NeMo Container" (docs/performance-summary-archive.md): Llama 3
# 70B on 64 GPUs and Llama 3.1 405B on 256 (GB200, GB300) or 1024 (H100),
# FP8 and MXFP8 as --precision fp8, seq 8192, at the table's GBS, MBS, TP,
# PP, CP and VP, the distributed optimizer and bf16 gradients as every
# Megatron-Bridge recipe, SP with TP; tokens/s per GPU times the model
# FLOPs a token (481.4 and 2625 GFLOP).  Left out: the 70B rows under
# Megatron-Core's FSDP (their recipes offload activations, by how many
# layers the table does not say) and NVFP4 (not modelled).
# The mb2606-kimi-k2 row is Kimi K2 on 256 GB300 from the archive's "26.06
# NeMo Container" table (MXFP8, PP 4, VP 4, EP 64, MBS 2, GBS 4096, 5372
# tokens/s per GPU, times the model FLOPs a token, 219.8 GFLOP); its recipe
# (src/megatron/bridge/perf_recipes/kimi/gb300/kimi_k2.py) does not overlap
# the all-to-all, recomputes latent attention's up projections (not typed)
# and trains with the Muon optimizer (its update priced as Adam's).
# The mb26-gptoss-* rows are gpt-oss-120b on 64 GPUs from the same 26.08
# summary (MXFP8, GBS 1280, MBS 4, seq 4096, no TP, PP or CP; EP 64 on
# GB200, 16 on GB300): 28672 and 33024 tokens/s per GPU, times commtime's
# 34.44 GFLOP a token (half the layers' attention over a 128-key window:
# models/workloads.md, "Sliding-window attention").  Their recipes
# (src/megatron/bridge/perf_recipes/gpt_oss/gb{200,300}/gpt_oss.py,
# _apply_gpt_oss_120b_full_iter_fp8mx_configs in common.py) capture the
# whole iteration in one CUDA graph and overlap the all-to-all with
# another micro-batch; the table's runs without that graph (bf16 on 64
# H100 to GB300, MXFP8 on B300) ran 22 % to 41 % below the model, which
# does not time the host (models/step-checks.md, "Checks against
# published runs").
# The trainy-h200-8b-* rows are torchtitan's Llama 3.1 8B as Trainy ran it
# on WhiteFiber in June 2025 (benchmarks/llama3-8b_h200_202506_trainy-
# whitefiber.md at b5bcd76c, torchtitan e7c0cae): 8 H200 a host, 400 Gb/s
# of RDMA a GPU (CX-7), 4 and 8 hosts, FSDP over all GPUs, local batch 2,
# torch.compile, Float8 (tensorwise, the all-gathers in FP8), and from the
# run's llama3_8b.toml at e7c0cae seq 8192 and per-op selective
# checkpointing (--recompute alternate-matmul-outputs): 10938 and 10753
# tokens/s per GPU, times commtime's 57.91 GFLOP a token.
# The torchao-8b-* rows are torchao's own table of Float8 training
# (pytorch/ao, docs/source/workflows/training.md, "NVIDIA H100": Llama3-8b
# on 8 H100 with torchtitan, batch 1, seq 8192, torch.compile, FSDP2,
# per-op SAC; bf16 6150 and tensorwise Float8 with FP8 all-gathers 7689.5
# tokens/s), times commtime's 57.91 GFLOP a token.  The table does not say
# which H100: typed as Meta's Grand Teton, whose 2.4 TB/s the same
# repository's roofline takes for "Meta's H100 variant"
# (torchao/testing/training/roofline_utils.py).
# The titan-tp-* and titan-atp-* rows are torchtitan's async-TP benchmark of June 2025
# (benchmarks/asyncTP_llama3_h100_2025-06_torchtitan.md, at 820504e):
# Grand Teton H100 (96 GB HBM2e at 2.4 TB/s, 500 W), torch.compile, seq
# 8192; Llama 3.1 70B on 256 GPUs (FSDP 32, TP 8, full AC, local batch 16)
# and 8B on 64 (FSDP 8, TP 8, per-op SAC as alternate-matmul-outputs, local
# batch 12), bf16 and Float8 tensorwise, vanilla TP and async TP
# (--tp-comm-overlap); tokens/s per GPU times the model FLOPs a token
# (481.4 and 57.91 GFLOP).  The Float8 rowwise rows are left out (their
# vanilla TP baseline was a known slow path, torchtitan#1207).
rows() {
	cat <<'EOF'
mcore-1.7B|408.8|989.4|--system dgx-h100 step --arch gpt --layers 24 --hidden 2048 --heads 16 --vocab 131072 --seq 4096 --tp 1 --pp 1 --dp 48 --global-batch 192 --zero 1
mcore-7.1B|465.9|989.4|--system dgx-h100 step --arch gpt --layers 30 --hidden 4096 --heads 32 --vocab 131072 --seq 4096 --tp 2 --pp 1 --dp 48 --global-batch 192 --zero 1 --sequence-parallel
mcore-16B|489.1|989.4|--system dgx-h100 step --arch gpt --layers 32 --hidden 6144 --heads 48 --vocab 131072 --seq 4096 --tp 4 --pp 1 --dp 48 --global-batch 192 --zero 1 --sequence-parallel
mcore-32B|459.6|989.4|--system dgx-h100 step --arch gpt --layers 48 --hidden 7168 --heads 56 --vocab 131072 --seq 4096 --tp 8 --pp 1 --dp 48 --global-batch 192 --zero 1 --sequence-parallel
mcore-70B|419.7|989.4|--system dgx-h100 step --arch gpt --layers 84 --hidden 8192 --heads 64 --vocab 131072 --seq 4096 --tp 8 --pp 2 --dp 48 --global-batch 384 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 7
mcore-119B|420.5|989.4|--system dgx-h100 step --arch gpt --layers 92 --hidden 10240 --heads 80 --vocab 131072 --seq 4096 --tp 8 --pp 4 --dp 48 --global-batch 768 --zero 1 --sequence-parallel
mcore-177B|432.8|989.4|--system dgx-h100 step --arch gpt --layers 96 --hidden 12288 --heads 96 --vocab 131072 --seq 4096 --tp 8 --pp 6 --dp 48 --global-batch 1152 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 8
mcore-177B-strong-96|465.0|989.4|--system dgx-h100 step --arch gpt --layers 96 --hidden 12288 --heads 96 --vocab 131072 --seq 4096 --tp 8 --pp 6 --dp 2 --global-batch 1152 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 8
mcore-177B-strong-4608|415.5|989.4|--system dgx-h100 step --arch gpt --layers 96 --hidden 12288 --heads 96 --vocab 131072 --seq 4096 --tp 8 --pp 6 --dp 96 --global-batch 1152 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 8
mcore-314B|474.4|989.4|--system dgx-h100 step --arch gpt --layers 96 --hidden 16384 --heads 128 --vocab 131072 --seq 4096 --tp 8 --pp 8 --dp 48 --global-batch 1536 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 6
mcore-462B|459.9|989.4|--system dgx-h100 step --arch gpt --layers 112 --hidden 18432 --heads 144 --vocab 131072 --seq 4096 --tp 8 --pp 16 --dp 48 --global-batch 3072 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 7
llama3-405b-8k|430|989.4|--system dgx-h100 step --workload llama3-405b --tp 8 --pp 16 --dp 64 --global-batch 2048 --seq 8192 --sequence-parallel --zero 2 --schedule interleaved --virtual-stages 8 --attention flash2
llama3-405b-16k|400|989.4|--system dgx-h100 step --workload llama3-405b --tp 8 --pp 16 --dp 128 --global-batch 2048 --seq 8192 --sequence-parallel --zero 2 --schedule interleaved --virtual-stages 8 --attention flash2
mixtral-8x7b|468|989.4|--system dgx-h100 step --workload mixtral-8x7b --tp 1 --pp 4 --dp 8 --ep 8 --global-batch 128 --seq 4096 --zero 1
nemo-70b-fp8|771.2|989.4|--system dgx-h100 step --workload llama3-70b --tp 4 --pp 8 --dp 2 --global-batch 128 --seq 8192 --sequence-parallel --zero 1 --schedule interleaved --virtual-stages 5 --precision fp8
nemo-8b-fp8-fsdp|836.9|989.4|--system dgx-h100 step --workload llama3-8b --dp 8 --global-batch 128 --seq 8192 --zero 3 --framework fsdp --precision fp8 --elementwise fused --attention fused
nemo-405b-fp8|766.6|989.4|--system dgx-h100 step --workload llama3-405b --tp 8 --pp 8 --cp 2 --dp 8 --global-batch 512 --seq 8192 --sequence-parallel --zero 1 --schedule interleaved --virtual-stages 8 --precision fp8
nemo-q3-235b-fp8|263.0|989.4|--system dgx-h100 step --workload qwen3-235b-a22b --tp 2 --pp 8 --dp 16 --ep 32 --etp 1 --global-batch 2048 --seq 4096 --sequence-parallel --zero 1 --schedule interleaved --virtual-stages 4 --layers-first 11 --layers-last 11 --precision fp8 --overlap-moe-expert-parallel-comm
nemo-q3-30b-fp8|146.8|989.4|--system dgx-h100 step --workload qwen3-30b-a3b --pp 2 --dp 8 --ep 8 --global-batch 512 --micro-batch 2 --seq 4096 --zero 1 --schedule interleaved --virtual-stages 24 --precision fp8 --overlap-moe-expert-parallel-comm
nemo-q3-30b-drop|292.1|989.4|--system dgx-h100 step --workload qwen3-30b-a3b --pp 2 --dp 8 --ep 8 --global-batch 512 --micro-batch 2 --seq 4096 --zero 1 --schedule interleaved --virtual-stages 24 --precision fp8 --capacity 1
nemo-q3-30b-2606|245.6|989.4|--system dgx-h100 step --workload qwen3-30b-a3b --dp 16 --ep 16 --global-batch 1024 --micro-batch 1 --seq 4096 --zero 1 --precision fp8
nemo-q3-235b-2604|285.9|989.4|--system dgx-h100 step --workload qwen3-235b-a22b --tp 2 --pp 8 --dp 16 --ep 32 --etp 1 --global-batch 8192 --seq 4096 --sequence-parallel --zero 1 --schedule interleaved --virtual-stages 4 --layers-first 11 --layers-last 11 --precision fp8 --overlap-moe-expert-parallel-comm
llama3-405b-128k|380|989.4|--system dgx-h100 step --workload llama3-405b --tp 8 --pp 16 --dp 8 --cp 16 --cp-form allgather --global-batch 128 --seq 131072 --sequence-parallel --zero 2 --schedule interleaved --virtual-stages 8 --attention flash2
titan-8b-eager|333.7|989.4|--system grand-teton step --workload llama3-8b --seq 8192 --dp 8 --micro-batch 2 --global-batch 16 --framework fsdp --zero 3 --recompute alternate-matmul-outputs
deepseek-v3|432.9|989.4|--system hgx-h800 step --workload deepseek-v3 --pp 16 --ep 64 --dp 128 --global-batch 15360 --seq 4096 --zero 1 --precision fp8 --layers-first 4 --layers-last 1 --schedule dualpipe --recompute norm-and-swiglu-inputs --optimizer-moments bf16 --moe-route-nodes 4 --moe-dispatch-fp8
titan-8b-compiled|386.1|989.4|--system grand-teton step --workload llama3-8b --seq 8192 --dp 8 --micro-batch 2 --global-batch 16 --framework fsdp --zero 3 --recompute alternate-matmul-outputs --elementwise blocks
titan-8b-fp8|494.1|989.4|--system grand-teton step --workload llama3-8b --seq 8192 --dp 8 --micro-batch 2 --global-batch 16 --framework fsdp --zero 3 --recompute alternate-matmul-outputs --elementwise blocks --precision fp8
titan-8b-fp8-128|485.3|989.4|--system grand-teton step --workload llama3-8b --seq 8192 --dp 128 --micro-batch 2 --global-batch 256 --framework fsdp --zero 3 --recompute alternate-matmul-outputs --elementwise blocks --precision fp8
mb26-dsv3-gb200|1377.9|2500|--system gb200-nvl72 step --workload deepseek-v3 --tp 1 --pp 4 --dp 64 --ep 64 --global-batch 4096 --micro-batch 1 --seq 4096 --schedule interleaved --virtual-stages 4 --precision fp8 --zero 1 --grad-bytes 2 --overlap-moe-expert-parallel-comm
mb26-dsv3-gb300|1763.9|2500|--system gb300-nvl72 step --workload deepseek-v3 --tp 1 --pp 2 --dp 128 --ep 32 --global-batch 4096 --micro-batch 1 --seq 4096 --schedule interleaved --virtual-stages 8 --precision fp8 --zero 1 --grad-bytes 2 --overlap-moe-expert-parallel-comm
mb26-q235-gb200|1215.5|2500|--system gb200-nvl72 step --workload qwen3-235b-a22b --tp 1 --pp 8 --dp 32 --ep 32 --global-batch 8192 --micro-batch 1 --seq 4096 --schedule interleaved --virtual-stages 3 --precision fp8 --zero 1 --grad-bytes 2 --overlap-moe-expert-parallel-comm
mb26-q235-gb300|1471.9|2500|--system gb300-nvl72 step --workload qwen3-235b-a22b --tp 1 --pp 4 --dp 64 --ep 32 --global-batch 8192 --micro-batch 2 --seq 4096 --schedule interleaved --virtual-stages 12 --precision fp8 --zero 1 --grad-bytes 2 --overlap-moe-expert-parallel-comm
mb26-q30-gb200|1111.7|2500|--system gb200-nvl72 step --workload qwen3-30b-a3b --tp 1 --pp 1 --dp 8 --ep 8 --global-batch 512 --micro-batch 4 --seq 4096 --precision fp8 --zero 1 --grad-bytes 2 --overlap-moe-expert-parallel-comm
mb26-q30-gb300|1240.0|2500|--system gb300-nvl72 step --workload qwen3-30b-a3b --tp 1 --pp 1 --dp 8 --ep 8 --global-batch 512 --micro-batch 8 --seq 4096 --precision fp8 --zero 1 --grad-bytes 2 --overlap-moe-expert-parallel-comm
mb2604-70b-gb300|2341.7|2500|--system gb300-nvl72 step --workload llama3-70b --tp 1 --pp 4 --dp 16 --global-batch 256 --micro-batch 1 --seq 8192 --zero 1 --schedule interleaved --virtual-stages 5 --precision fp8 --grad-bytes 2
mb2604-70b-gb200|1787.1|2500|--system gb200-nvl72 step --workload llama3-70b --tp 2 --pp 4 --dp 8 --global-batch 256 --micro-batch 1 --seq 8192 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 5 --precision fp8 --grad-bytes 2
mb2604-70b-h100|801.1|989.4|--system dgx-h100 step --workload llama3-70b --tp 4 --pp 8 --dp 2 --global-batch 256 --micro-batch 1 --seq 8192 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 5 --precision fp8 --grad-bytes 2
mb2604-405b-gb300|2688.4|2500|--system gb300-nvl72 step --workload llama3.1-405b --tp 4 --pp 8 --dp 8 --global-batch 1536 --micro-batch 1 --seq 8192 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 4 --precision fp8 --grad-bytes 2
mb2604-405b-gb300-cp|2520.4|2500|--system gb300-nvl72 step --workload llama3.1-405b --tp 2 --pp 8 --cp 2 --dp 8 --global-batch 1536 --micro-batch 1 --seq 8192 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 4 --precision fp8 --grad-bytes 2
mb2604-405b-gb200|2268.4|2500|--system gb200-nvl72 step --workload llama3.1-405b --tp 4 --pp 16 --dp 4 --global-batch 1536 --micro-batch 1 --seq 8192 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 4 --precision fp8 --grad-bytes 2
mb2604-405b-gb200-mx|2100.3|2500|--system gb200-nvl72 step --workload llama3.1-405b --tp 4 --pp 16 --dp 4 --global-batch 1536 --micro-batch 1 --seq 8192 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 8 --precision fp8 --grad-bytes 2
mb2604-405b-h100|861.1|989.4|--system dgx-h100 step --workload llama3.1-405b --tp 8 --pp 8 --cp 2 --dp 8 --global-batch 1536 --micro-batch 1 --seq 8192 --zero 1 --sequence-parallel --schedule interleaved --virtual-stages 8 --precision fp8 --grad-bytes 2
mb26-gptoss-gb200|987.6|2500|--system gb200-nvl72 step --workload gpt-oss-120b --dp 64 --ep 64 --global-batch 1280 --micro-batch 4 --precision fp8 --zero 1 --grad-bytes 2 --overlap-moe-expert-parallel-comm
mb26-gptoss-gb300|1137.5|2500|--system gb300-nvl72 step --workload gpt-oss-120b --dp 64 --ep 16 --global-batch 1280 --micro-batch 4 --precision fp8 --zero 1 --grad-bytes 2 --overlap-moe-expert-parallel-comm
mb2606-kimi-k2-gb300|1180.9|2500|--system gb300-nvl72 step --workload kimi-k2 --tp 1 --pp 4 --dp 64 --ep 64 --global-batch 4096 --micro-batch 2 --seq 4096 --schedule interleaved --virtual-stages 4 --precision fp8 --zero 1 --grad-bytes 2
trainy-h200-8b-32|633.5|989.4|--system hgx-h200 step --workload llama3.1-8b --framework fsdp --zero 3 --precision fp8 --elementwise blocks --recompute alternate-matmul-outputs --dp 32 --global-batch 64 --micro-batch 2 --seq 8192
trainy-h200-8b-64|622.7|989.4|--system hgx-h200 step --workload llama3.1-8b --framework fsdp --zero 3 --precision fp8 --elementwise blocks --recompute alternate-matmul-outputs --dp 64 --global-batch 128 --micro-batch 2 --seq 8192
torchao-8b-bf16|356.2|989.4|--system grand-teton step --workload llama3-8b --seq 8192 --dp 8 --micro-batch 1 --global-batch 8 --framework fsdp --zero 3 --recompute alternate-matmul-outputs --elementwise blocks
torchao-8b-fp8|445.3|989.4|--system grand-teton step --workload llama3-8b --seq 8192 --dp 8 --micro-batch 1 --global-batch 8 --framework fsdp --zero 3 --recompute alternate-matmul-outputs --elementwise blocks --precision fp8
titan-tp-70b-bf16|287.6|989.4|--system grand-teton step --framework fsdp --zero 3 --elementwise blocks --attention flash2 --seq 8192 --sequence-parallel --workload llama3-70b --tp 8 --dp 32 --global-batch 512 --micro-batch 16 --recompute full
titan-atp-70b-bf16|314.1|989.4|--system grand-teton step --framework fsdp --zero 3 --elementwise blocks --attention flash2 --seq 8192 --sequence-parallel --workload llama3-70b --tp 8 --dp 32 --global-batch 512 --micro-batch 16 --recompute full --tp-comm-overlap
titan-tp-70b-fp8|389.9|989.4|--system grand-teton step --framework fsdp --zero 3 --elementwise blocks --attention flash2 --seq 8192 --sequence-parallel --workload llama3-70b --tp 8 --dp 32 --global-batch 512 --micro-batch 16 --recompute full --precision fp8
titan-atp-70b-fp8|453.7|989.4|--system grand-teton step --framework fsdp --zero 3 --elementwise blocks --attention flash2 --seq 8192 --sequence-parallel --workload llama3-70b --tp 8 --dp 32 --global-batch 512 --micro-batch 16 --recompute full --precision fp8 --tp-comm-overlap
titan-tp-8b-bf16|253.5|989.4|--system grand-teton step --framework fsdp --zero 3 --elementwise blocks --attention flash2 --seq 8192 --sequence-parallel --workload llama3-8b --tp 8 --dp 8 --global-batch 96 --micro-batch 12 --recompute alternate-matmul-outputs
titan-atp-8b-bf16|278.5|989.4|--system grand-teton step --framework fsdp --zero 3 --elementwise blocks --attention flash2 --seq 8192 --sequence-parallel --workload llama3-8b --tp 8 --dp 8 --global-batch 96 --micro-batch 12 --recompute alternate-matmul-outputs --tp-comm-overlap
titan-tp-8b-fp8|294.1|989.4|--system grand-teton step --framework fsdp --zero 3 --elementwise blocks --attention flash2 --seq 8192 --sequence-parallel --workload llama3-8b --tp 8 --dp 8 --global-batch 96 --micro-batch 12 --recompute alternate-matmul-outputs --precision fp8
titan-atp-8b-fp8|322.6|989.4|--system grand-teton step --framework fsdp --zero 3 --elementwise blocks --attention flash2 --seq 8192 --sequence-parallel --workload llama3-8b --tp 8 --dp 8 --global-batch 96 --micro-batch 12 --recompute alternate-matmul-outputs --precision fp8 --tp-comm-overlap
EOF
}

printf '%-20s %10s %10s %8s %6s  %s\n' run published predicted error fits note
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
    print("%-20s %10.1f %10s %8s %6s  %s" % (label, pub, "-", "-", "-", text.strip().splitlines()[-1][:60]))
    sys.exit(0)
mfu = d["step"][0]["mfu"]
pred = mfu * peak
err = pub / pred - 1
print("%-20s %10.1f %10.1f %+7.1f%% %6s" % (label, pub, pred, 100 * err, d["memory"][0]["fits"]))
' "$label" "$pub" "$peak"
done | tee "${STEP_CHECK_OUT:-/dev/null}"

# Pure ZeRO-3 against PTD-P, as Narayanan et al. compared them (SC'21,
# arXiv:2104.04473, section 5.2, Table 2 and Figure 10): DeepSpeed's ZeRO-3
# of 2021 without model parallelism (--framework deepspeed-2021; models/
# step.md, "Overlap as the frameworks do it") and PTD-P (TP 8, PP 12 for
# 175B, PP 35 for 530B, micro-batch 1, interleaved as the paper's own launch
# scripts run these two shapes: section 5.1 "we use the interleaved pipeline
# schedule"; Megatron-LM examples/academic_paper_scripts/sc21/run_table_1.sh,
# the 530B at one layer a virtual stage, v = 3; run_figure_12.sh, the 175B
# at TP 8, PP 12 and two layers a virtual stage, v = 4; section 5.2 itself
# does not say)
# on DGX A100 (Selene), each at the global batch and micro-batch the table
# states; the 530B ZeRO-3 run needed 640 GPUs and a batch of 2560 to fit.
# A comparison the paper ran, not a layout a team chose: in neither
# bench/step-pool.txt nor the expected step's fit.  The table's TFLOP/s
# count recomputation (96·B·s·l·h²·(...)); times 3/4 here, the model's
# FLOPs as commtime's MFU counts them.  Then the ZeRO-3 step over the
# PTD-P step at the GPU counts both ran, predicted and published.
zero3_rows() {
	g175='--system dgx-a100 step --arch gpt --layers 96 --hidden 12288 --heads 96 --vocab 51200 --seq 2048 --recompute full --attention unfused'
	g530='--system dgx-a100 step --arch gpt --layers 105 --hidden 20480 --heads 128 --vocab 51200 --seq 2048 --recompute full --attention unfused'
	z='--zero 3 --framework deepspeed-2021'
	cat <<EOF2
zero3-175B-384|108|312|$g175 $z --dp 384 --global-batch 1536 --micro-batch 4
zero3-175B-768|66|312|$g175 $z --dp 768 --global-batch 1536 --micro-batch 2
zero3-175B-1536|33|312|$g175 $z --dp 1536 --global-batch 1536 --micro-batch 1
zero3-530B-640|103.5|312|$g530 $z --dp 640 --global-batch 2560 --micro-batch 4
zero3-530B-1120|73.5|312|$g530 $z --dp 1120 --global-batch 2240 --micro-batch 2
zero3-530B-2240|36|312|$g530 $z --dp 2240 --global-batch 2240 --micro-batch 1
ptdp-175B-384|114.75|312|$g175 --tp 8 --pp 12 --dp 4 --global-batch 1536 --schedule interleaved --virtual-stages 4
ptdp-175B-768|111.75|312|$g175 --tp 8 --pp 12 --dp 8 --global-batch 1536 --schedule interleaved --virtual-stages 4
ptdp-175B-1536|105.75|312|$g175 --tp 8 --pp 12 --dp 16 --global-batch 1536 --schedule interleaved --virtual-stages 4
ptdp-530B-560|128.25|312|$g530 --tp 8 --pp 35 --dp 2 --global-batch 2240 --schedule interleaved --virtual-stages 3
ptdp-530B-1120|125.25|312|$g530 --tp 8 --pp 35 --dp 4 --global-batch 2240 --schedule interleaved --virtual-stages 3
ptdp-530B-2240|119.25|312|$g530 --tp 8 --pp 35 --dp 8 --global-batch 2240 --schedule interleaved --virtual-stages 3
EOF2
}

echo
printf '%-18s %10s %10s %8s %6s %10s %10s\n' run published predicted error fits "step pub" "step pred"
zero3_rows | while IFS='|' read -r label pub peak args; do
	# shellcheck disable=SC2086
	$COMMTIME $args --format json 2>&1 | $PYTHON -c '
import json, sys
label, pub, peak = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
d = json.loads(sys.stdin.read())
s = d["step"][0]
pred = s["mfu"] * peak
# the published step: the model FLOPs of this step at the published rate
pub_step = s["step_s"] * pred / pub
print("%-18s %10.2f %10.2f %+7.1f%% %6s %9.1fs %9.1fs" % (label, pub, pred, 100 * (pub / pred - 1),
      d["memory"][0]["fits"], pub_step, s["step_s"]))
' "$label" "$pub" "$peak"
done | tee "${STEP_CHECK_ZERO3_OUT:-/dev/null}" | $PYTHON -c '
import sys
rows = {}
for line in sys.stdin:
    sys.stdout.write(line)
    f = line.split()
    rows[f[0]] = (float(f[5][:-1]), float(f[6][:-1]))
print("ZeRO-3 step / PTD-P step (Narayanan et al.: PTD-P about 1.7 times ahead from 768 GPUs on)")
for model, pairs in (("175B", ((384, 384), (768, 768), (1536, 1536))),
                     ("530B", ((640, 560), (1120, 1120), (2240, 2240)))):
    for z, p in pairs:
        a, b = rows["zero3-%s-%d" % (model, z)], rows["ptdp-%s-%d" % (model, p)]
        print("  %s, %4d GPUs (PTD-P %4d): predicted %.2f, published %.2f" % (model, z, p, a[1] / b[1], a[0] / b[0]))
'

# The same runs as search ranks them: pure ZeRO-3 (tp 1, pp 1) behind the
# best layout search finds under --framework deepspeed-2021 (every
# candidate priced as DeepSpeed of 2021 would run it; models/search.md).
echo "search, --framework deepspeed-2021: pure ZeRO-3 against the best"
for spec in "768 1536" "1536 1536"; do
	set -- $spec
	$COMMTIME --system dgx-a100 search --arch gpt --layers 96 --hidden 12288 --heads 96 --vocab 51200 \
		--seq 2048 --gpus "$1" --global-batch "$2" --framework deepspeed-2021 \
		--where "tp=1,pp=1,dp=$1,zero=3" --top 1 2>&1 |
		awk -v n="$1" '/^Named/ { sub(/;.*/, ""); print "  175B, " n " GPUs: " $0 }'
done
for n in 1120 2240; do
	$COMMTIME --system dgx-a100 search --arch gpt --layers 105 --hidden 20480 --heads 128 --vocab 51200 \
		--seq 2048 --gpus "$n" --global-batch 2240 --framework deepspeed-2021 \
		--where "tp=1,pp=1,dp=$n,zero=3" --top 1 2>&1 |
		awk -v n="$n" '/^Named/ { sub(/;.*/, ""); print "  530B, " n " GPUs: " $0 }'
done
