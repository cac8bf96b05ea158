#!/usr/bin/env python3
"""NeMo's own FP8 performance tables of 2025 against the expected step (make bench).

Twenty runs from the performance summaries of the NeMo Framework's 25.02,
25.04 and 25.07 containers (docs.nvidia.com/nemo-framework/user-guide/
latest/performance/: performance_summary.html, archive/25.04-performance-
summary.html, performance-summary.html): Blackwell on DGX B200 and GB200
NVL72, and one DGX H100 row, FP8 with current scaling (per-tensor scales of
the step) unless the row says MXFP8.  None is in bench/step-pool.txt or in
the expected step's fit, and no row of bench/step-check.sh comes from these
containers (models/step-checks.md, "NeMo's 2025 tables").  Each run is typed
as its table states it, with what NeMo's performance recipes set beside it:
the distributed optimizer (--zero 1; FSDP rows --zero 3, Megatron-Core's
FSDP), sequence parallelism with TP, gradients reduced in bf16
(--grad-bytes 2), and, for the one GB200 405B FSDP run, the 95 layers' activations its
recipe offloads to the host (Megatron-Bridge at 8996513f9,
scripts/performance/configs/llama31/workload_base_configs.py,
LLAMA31_405B_GB200_128GPUS_FP8_CS: cpu_offloading_num_layers=95); the
tables' MXFP8 figures (in brackets in 25.07's) are that file's FP8_MX
layouts.  Printed: the published step (global batch x sequence over tokens/s
per GPU x GPUs), the expected and best-case steps, the error (expected /
published - 1), whether the band holds the run; then the median |error|, the
share too fast and the worst, by container.  Not a test.  Variables:
COMMTIME (default ./commtime).
"""
import json
import os
import statistics
import subprocess

COMMTIME = os.environ.get("COMMTIME", "./commtime")

FP8 = ["--zero", "1", "--precision", "fp8", "--grad-bytes", "2"]


def mp(tp, pp, cp, vp):
    """Megatron's model parallelism as a table row states it."""
    a = ["--tp", str(tp), "--pp", str(pp), "--cp", str(cp)]
    if tp > 1:
        a.append("--sequence-parallel")
    if vp > 1:
        a += ["--schedule", "interleaved", "--virtual-stages", str(vp)]
    return a


# container, label, tokens/s per GPU, system, workload, GPUs, global batch,
# micro-batch, sequence, the rest of the arguments
RUNS = [
    ("25.02", "b200 gpt3-175b", 1600, "dgx-b200", "gpt3-175b", 512, 2048, 2, 2048, mp(4, 4, 1, 6)),
    ("25.02", "b200 llama3-8b", 26006, "dgx-b200", "llama3-8b", 8, 128, 2, 8192, mp(1, 1, 1, 1)),
    ("25.02", "b200 llama3-70b", 3062, "dgx-b200", "llama3-70b", 64, 128, 1, 8192, mp(2, 4, 2, 5)),
    ("25.02", "b200 llama3-405b", 625, "dgx-b200", "llama3-405b", 128, 64, 1, 8192, mp(4, 8, 2, 8)),
    ("25.02", "b200 nemotron-15b", 14760, "dgx-b200", "nemotron-4-15b", 64, 256, 2, 4096,
     mp(1, 1, 1, 1)),
    ("25.02", "b200 nemotron-340b", 602, "dgx-b200", "nemotron-4-340b", 128, 32, 1, 4096,
     mp(8, 4, 1, 12)),
    ("25.02", "b200 mixtral-8x7b", 15457, "dgx-b200", "mixtral-8x7b", 64, 256, 2, 4096,
     mp(1, 1, 1, 1) + ["--ep", "8"]),
    ("25.02", "h100 gpt3-175b", 866, "dgx-h100", "gpt3-175b", 512, 2048, 2, 2048, mp(4, 8, 1, 6)),
    ("25.04", "gb200 gpt3-175b", 1804, "gb200-nvl72", "gpt3-175b", 128, 256, 2, 2048,
     mp(4, 4, 1, 12)),
    ("25.04", "gb200 llama3-8b", 33099, "gb200-nvl72", "llama3-8b", 8, 128, 2, 8192,
     mp(1, 1, 1, 1)),
    ("25.04", "gb200 llama3-70b fsdp", 4035, "gb200-nvl72", "llama3-70b", 64, 128, 1, 8192,
     ["--zero", "3"]),
    ("25.04", "gb200 llama3-405b", 665, "gb200-nvl72", "llama3-405b", 128, 64, 1, 8192,
     mp(4, 8, 2, 8)),
    ("25.04", "gb200 nemotron-15b", 17809, "gb200-nvl72", "nemotron-4-15b", 64, 256, 2, 4096,
     mp(1, 1, 1, 1)),
    ("25.04", "gb200 nemotron-340b", 737, "gb200-nvl72", "nemotron-4-340b", 128, 32, 1, 4096,
     mp(8, 4, 1, 12)),
    ("25.04", "gb200 mixtral-8x7b", 19275, "gb200-nvl72", "mixtral-8x7b", 64, 256, 2, 4096,
     mp(1, 1, 1, 1) + ["--ep", "8"]),
    ("25.07", "gb200 llama3-8b", 31737, "gb200-nvl72", "llama3-8b", 8, 128, 2, 8192,
     mp(1, 1, 1, 1)),
    ("25.07", "gb200 llama3-8b mxfp8", 30341, "gb200-nvl72", "llama3-8b", 8, 128, 2, 8192,
     mp(1, 1, 1, 1) + ["--precision", "fp8-mx"]),
    ("25.07", "gb200 llama3-70b fsdp", 4066, "gb200-nvl72", "llama3-70b", 64, 128, 1, 8192,
     ["--zero", "3"]),
    ("25.07", "gb200 llama3-70b mxfp8", 2605, "gb200-nvl72", "llama3-70b", 64, 128, 1, 8192,
     mp(2, 4, 2, 5) + ["--precision", "fp8-mx"]),
    ("25.07", "gb200 llama3.1-405b fsdp", 706, "gb200-nvl72", "llama3.1-405b", 128, 64, 1, 8192,
     ["--tp", "2", "--sequence-parallel", "--zero", "3", "--offload-activations", "95"]),
    ("25.07", "gb200 llama3.1-405b mxfp8", 638, "gb200-nvl72", "llama3.1-405b", 128, 64, 1, 8192,
     mp(4, 8, 2, 8) + ["--precision", "fp8-mx"]),
]


def args_of(system, workload, gpus, gbs, mb, seq, rest):
    """What a user types: the table's layout; dp is what the GPUs leave."""
    def get(k):
        return int(rest[rest.index(k) + 1]) if k in rest else 1
    dp = gpus // (get("--tp") * get("--pp") * get("--cp"))
    a = [COMMTIME, "--system", system, "step", "--workload", workload, "--dp", str(dp),
         "--global-batch", str(gbs), "--micro-batch", str(mb), "--seq", str(seq)]
    # the distributed optimizer, FP8-CS and bf16 gradients as the recipes
    # set them, where the row does not say otherwise
    for i in range(0, len(FP8), 2):
        if FP8[i] not in rest:
            a += FP8[i:i + 2]
    return a + rest + ["--format", "json"]


def summary(name, errs):
    a = sorted(abs(e) for e in errs)
    print("%-8s %3d runs  median |err| %5.1f %%  too fast %3d %%  worst %+6.1f %%" %
          (name, len(a), 100 * statistics.median(a), round(100 * sum(e < 0 for e in errs) /
                                                          len(errs)),
           100 * max(errs, key=abs)))


def main():
    errs, by, inside = [], {}, 0
    print("%-5s %-26s %9s %9s %8s %8s %s" % ("NeMo", "run", "published", "expected", "error",
                                            "best", "band"))
    for cont, label, tps, system, wl, gpus, gbs, mb, seq, rest in RUNS:
        r = subprocess.run(args_of(system, wl, gpus, gbs, mb, seq, rest), capture_output=True,
                           text=True)
        try:
            s = json.loads(r.stdout)["step"][0]
        except ValueError:
            print("%-5s %-26s %s" % (cont, label, (r.stderr or "no output").strip()[:100]))
            continue
        pub = gbs * seq / (tps * gpus)
        e = s["step_s"] / pub - 1
        ok = s["step_lo_s"] <= pub <= s["step_hi_s"]
        inside += ok
        errs.append(e)
        by.setdefault(cont, []).append(e)
        print("%-5s %-26s %8.3fs %8.3fs %+7.1f%% %+7.1f%% %s" %
              (cont, label, pub, s["step_s"], 100 * e, 100 * (s["step_best_s"] / pub - 1),
               "inside" if ok else "outside"))
    for cont in sorted(by):
        summary(cont, by[cont])
    summary("all", errs)
    print("inside the band: %d of %d" % (inside, len(errs)))


if __name__ == "__main__":
    main()
