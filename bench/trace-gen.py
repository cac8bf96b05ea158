#!/usr/bin/env python3
"""Write a synthetic PyTorch profiler trace of about SIZE_GB gigabytes to stdout.

Shaped like Kineto's output (models/trace.md): per step a ProfilerStep#N
annotation, CPU ops with the args Kineto records, a cudaLaunchKernel per
kernel tied to it by "correlation", compute kernels on stream 7 and NCCL
all-reduce kernels on stream 20 with the args PyTorch adds.  With --one-line
the whole document is a single line.  Not committed output: make bench
makes it, reads it and removes it.
"""
import sys

size_gb = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
nl = "" if "--one-line" in sys.argv else "\n"
out = sys.stdout
out.write('{"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},' + nl)
out.write('"traceEvents": [' + nl)
written, step, corr, ts = 0, 0, 1, 1_000_000_000.0
limit = size_gb * 1e9
first = True
KERNELS = 400
while written < limit:
    parts = []
    step_ts = ts
    parts.append('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 100, "tid": 100, '
                 '"ts": %.3f, "dur": %.3f, "args": {"External id": %d}}' % (step, step_ts, KERNELS * 25.0 + 50, corr))
    gts = ts + 30.0
    for k in range(KERNELS):
        cts = ts + 1.0 + k * 25.0
        parts.append('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": %.3f, '
                     '"dur": 4.250, "args": {"External id": %d, "Record function id": 0, "Sequence number": %d, '
                     '"Fwd thread id": 1, "Input Dims": [[4096, 4096], [4096, 4096]], '
                     '"Input type": ["c10::BFloat16", "c10::BFloat16"], "Ev Idx": %d}}' % (cts, corr, corr, corr))
        parts.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, '
                     '"ts": %.3f, "dur": 3.100, "args": {"External id": %d, "cbid": 211, "correlation": %d}}'
                     % (cts + 0.5, corr, corr))
        if k % 10 == 9:
            parts.append('{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", '
                         '"pid": 0, "tid": 20, "ts": %.3f, "dur": 30.000, "args": {"External id": %d, "queued": 0, '
                         '"device": 0, "context": 1, "stream": 20, "correlation": %d, "registers per thread": 96, '
                         '"shared memory": 87568, "grid": [8, 1, 1], "block": [544, 1, 1], "Collective name": "allreduce", '
                         '"In msg nelems": 4194304, "Out msg nelems": 4194304, "Group size": 8, "dtype": "BFloat16", '
                         '"In split size": "[]", "Out split size": "[]", "Process Group Name": "0", '
                         '"Process Group Description": "default_pg", "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}}'
                         % (gts, corr, corr))
        else:
            parts.append('{"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", '
                         '"pid": 0, "tid": 7, "ts": %.3f, "dur": 20.000, "args": {"External id": %d, "queued": 0, '
                         '"device": 0, "context": 1, "stream": 7, "correlation": %d, "registers per thread": 168, '
                         '"shared memory": 98304, "blocks per SM": 1.0, "warps per SM": 8.0, "grid": [132, 1, 1], '
                         '"block": [384, 1, 1], "est. achieved occupancy %%": 12}}' % (gts, corr, corr))
        gts += 25.0
        corr += 1
    text = ("," + nl).join(parts)
    if not first:
        text = "," + nl + text
    first = False
    out.write(text)
    written += len(text)
    ts += KERNELS * 25.0 + 100
    step += 1
out.write(nl + "]}" + nl)
