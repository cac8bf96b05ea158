# A synthetic PyTorch profiler trace of a known run, for the README's walk
# from a trace to a prediction and for tests/t-trace.sh: GPT-2 124M on 8 H100
# of one node, dp 8, 8 sequences a step.  Each of 3 profiler steps of
# 10.3 ms computes 10 ms (50 kernels of 200 us); the all-reduce of the fp32
# gradients (BYTES: what step's ledger names) runs 2 ms from 8 ms on, under
# the last backward kernels as DDP overlaps it.  Not a measurement.
#
#   python3 gpt2-synthetic.py OUT.json BYTES
#   (gpt2-124m-dp8-synthetic.json: BYTES = 497753088)
import json, sys
nelems = int(sys.argv[2]) // 4
ev, corr, t = [], 1, 1000000.0
for step in range(3):
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % step, "pid": 1, "tid": 1,
               "ts": t, "dur": 10300.0})
    g = t + 100.0
    for k in range(51):
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": t + 1 + k, "dur": 0.5, "args": {"correlation": corr}})
        if k < 50:
            ev.append({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": g + 200.0 * k,
                       "dur": 200.0, "args": {"device": 0, "correlation": corr}})
        else:
            ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                       "pid": 0, "tid": 20, "ts": g + 8000.0, "dur": 2000.0,
                       "args": {"device": 0, "correlation": corr, "Collective name": "allreduce",
                                "In msg nelems": nelems, "Out msg nelems": nelems, "Group size": 8,
                                "dtype": "Float", "Process Group Name": "0",
                                "Process Group Description": "default_pg",
                                "Process Group Ranks": "[0, 1, 2, 3, 4, 5, 6, 7]"}})
        corr += 1
    t += 20000.0
json.dump({"distributedInfo": {"rank": 0, "world_size": 8}, "traceEvents": ev}, open(sys.argv[1], "w"))
