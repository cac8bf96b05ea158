#!/usr/bin/env python3
"""NVIDIA's DGX Cloud benchmarking recipes of late 2024 against the expected step (make bench).

Sixty-four runs of the NeMo recipes in github.com/NVIDIA/dgxc-benchmarking at
35a9aec (release 24.11.1; its tables "Training step time (seconds per
step)"), each on H100 at every GPU count its table gives, in BF16 and in FP8:
Llama 3.1 8B, 70B and 405B (the NeMo 24.09 container), Nemotron-4 15B and
340B and GPT-3 175B (24.11).  None is in bench/step-pool.txt or in the
expected step's fit; the pool's NeMo rows (its source `nemo`) are the same
team's FP8 tables of the 24.07 container, so this is a second draw of one
stack rather than an independent source (models/step-checks.md, "NVIDIA's
DGX Cloud recipes").  Each run is typed as its recipe's file states it
(llama3.1/llama3.1_*.yaml, nemotron/nemotron4-*-synth.yaml,
nemo_megatron/gpt3_175b_hydra.yaml): TP, PP, CP, VP and micro-batch as the
table's header, the distributed optimizer (optim.name distributed_fused_adam:
--zero 1) reducing gradients in bf16 (grad_sync_dtype: --grad-bytes 2),
sequence parallelism where the file sets it, Transformer Engine's userbuffers
overlap where it sets ub_tp_comm_overlap (--tp-comm-overlap), selective
recomputation where it sets activations_checkpoint_granularity (Nemotron-4
340B alone), FP8 (fp8_hybrid, delayed scaling) as --precision fp8.  The 405B
table's runs on 32, 96 and 192 GPUs cut the model to 7, 21 and 42 layers
and are left out.  Printed: the published step, the expected and best-case
steps, the error (expected / published - 1), whether the band holds it; then
by precision and in all the median |error|, the share too fast, the worst
and the share inside the band.  Not a test.  Variables: COMMTIME (default
./commtime).
"""
import importlib.util
import json
import os
import statistics
import subprocess

COMMTIME = os.environ.get("COMMTIME", "./commtime")
_spec = importlib.util.spec_from_file_location(
    "nemo_check", os.path.join(os.path.dirname(os.path.abspath(__file__)), "nemo-check.py"))
NEMO = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(NEMO)


def mp(tp, pp, cp, vp, mb, overlap):
    """A recipe's parallel layout (bench/nemo-check.py's, Megatron's as a table
    states it), its micro-batch, the distributed optimizer reducing in bf16 and
    the userbuffers overlap where the recipe sets it."""
    a = NEMO.mp(tp, pp, cp, vp) + ["--zero", "1", "--grad-bytes", "2", "--micro-batch", str(mb)]
    return a + (["--tp-comm-overlap"] if overlap else [])


# table, workload, sequence, layout and micro-batch, the rest, GPUs, global
# batches, BF16 steps, FP8 steps (seconds)
TABLES = [
    ("llama3.1-8b", "llama3.1-8b", 8192, mp(1, 1, 2, 1, 1, False), [],
     [8, 16, 32, 64, 128], [128, 256, 512, 1024, 2048],
     [12.91, 13.00, 13.05, 13.08, 13.10], [9.67, 9.73, 9.75, 9.80, 9.82]),
    ("llama3.1-70b", "llama3.1-70b", 8192, mp(4, 4, 2, 5, 1, True), [],
     [64, 128, 256, 512, 1024, 2048], [128, 256, 512, 1024, 2048, 4096],
     [14.72, 14.73, 14.8, 14.89, 14.92, 14.98], [11.01, 10.93, 11.16, 11.18, 11.28, 11.39]),
    ("llama3.1-405b", "llama3.1-405b", 8192, mp(8, 9, 2, 7, 1, True), [],
     [576, 1152, 2304], [252, 504, 1008],
     [17.20, 17.52, 17.62], [11.24, 11.31, 12.35]),
    ("nemotron4-15b", "nemotron-4-15b", 4096, mp(4, 1, 1, 1, 4, True), [],
     [16, 32, 64, 128, 256, 512, 1024, 2048], [64, 128, 256, 512, 1024, 2048, 4096, 8192],
     [2.83, 2.86, 2.86, 2.89, 2.88, 2.92, 2.92, 2.96],
     [2.08, 2.07, 2.09, 2.08, 2.1, 2.12, 2.12, 2.18]),
    ("nemotron4-340b", "nemotron-4-340b", 4096, mp(8, 8, 1, 12, 1, False),
     ["--recompute", "selective"],
     [128, 256, 512, 1024, 2048], [32, 64, 128, 256, 512],
     [4.61, 4.67, 4.7, 4.73, 4.84], [3.16, 3.21, 3.26, 3.34, 3.49]),
    ("gpt3-175b", "gpt3-175b", 2048, mp(4, 8, 1, 12, 1, True), [],
     [128, 256, 512, 1024, 2048], [256, 512, 1024, 2048, 4096],
     [8.91, 8.95, 9.09, 9.01, 9.02], [5.92, 5.96, 6.44, 6.72, 6.24]),
]


def runs():
    """(label, published step, arguments) of every run of the tables."""
    out = []
    for name, wl, seq, layout, rest, gpus, gbs, bf16, fp8 in TABLES:
        tp, pp, cp = (int(layout[layout.index(k) + 1]) for k in ("--tp", "--pp", "--cp"))
        for prec, steps in (("bf16", bf16), ("fp8", fp8)):
            for n, b, step in zip(gpus, gbs, steps):
                a = [COMMTIME, "--system", "dgx-h100", "step", "--workload", wl,
                     "--seq", str(seq), "--dp", str(n // (tp * pp * cp)),
                     "--global-batch", str(b)] + layout + rest
                if prec == "fp8":
                    a += ["--precision", "fp8"]
                out.append(("%s %s %d" % (name, prec, n), step, a + ["--format", "json"]))
    return out


def main():
    rows = []
    print("%-26s %9s %9s %8s %8s %5s %s" % ("run", "published", "expected", "error", "best",
                                           "fits", "band"))
    for label, pub, a in runs():
        r = subprocess.run(a, capture_output=True, text=True)
        if r.returncode:
            raise SystemExit("dgxc-check: %s: %s" % (label, r.stderr.strip()))
        d = json.loads(r.stdout)
        s = d["step"][0]
        e = s["step_s"] / pub - 1
        inside = s["step_lo_s"] <= pub <= s["step_hi_s"]
        rows.append((label.split()[1], e, inside))
        print("%-26s %8.3fs %8.3fs %+7.1f%% %+7.1f%% %5s %s" %
              (label, pub, s["step_s"], 100 * e, 100 * (s["step_best_s"] / pub - 1),
               d["memory"][0]["fits"], "inside" if inside else "outside"))
    for what in ("bf16", "fp8", None):
        es = [(e, i) for p, e, i in rows if what is None or p == what]
        print("%-5s %3d runs  median |err| %5.1f %%  too fast %3.0f %%  worst %+6.1f %%  "
              "inside the band %3.0f %%" %
              (what or "all", len(es), 100 * statistics.median(abs(e) for e, _ in es),
               100 * sum(e < 0 for e, _ in es) / len(es),
               100 * max((e for e, _ in es), key=abs), 100 * sum(i for _, i in es) / len(es)))


if __name__ == "__main__":
    main()
