#!/usr/bin/env python3
"""MLPerf Training's GPT-3 and Llama 3.1 405B runs against the expected step (make bench).

Thirty-two runs of the MLPerf Training closed division: GPT-3 175B (v3.1 to
v4.1) on 256 to 11616 H100 and 64 B200, Llama 3.1 405B (v5.0, v5.1) on 512
to 8192 H100, 512 and 1024 H200, 256 to 2496 GB200 and 256 and 448 B200,
from the submitters' own logs and launch configurations: in neither
bench/step-pool.txt nor the expected step's fit (models/step-checks.md,
"MLPerf Training's GPT-3 and Llama 3.1 405B"). Each run is typed as its
configuration states it and printed with its published step (the wall time
of a step between two evaluations), the expected and best-case steps, the
error (expected / published - 1) and whether the band holds the run. Then,
for the seven GPT-3 v3.1 runs and the five Llama v5.0 runs on Eos, each set
sharing one configuration a micro-batch and differing only in the
data-parallel size and the micro-batches a step (m), a least-squares line step = fixed + m x per micro-batch through the
published steps, the expected and the best-case ones; and for each run how
far its layout is behind the best that `search` finds.  Not a test.
Variables: COMMTIME (default ./commtime).
"""
import json
import os
import re
import statistics
import subprocess

COMMTIME = os.environ.get("COMMTIME", "./commtime")

# label, published step (s), system, tp, pp, cp, dp, global batch, micro-batch,
# virtual stages.  The published step: the wall time of a step between two
# evaluations, pooled over the submission's runs (result_*.txt): v3.1 to v4.1,
# the training blocks' wall time (MLLOG block_start to block_stop) over their
# steps, the median over the blocks after the first; v5.0 and v5.1, which log every
# step, the median time between two steps' records.
GPT3 = [
    # v3.1: github.com/mlcommons/training_results_v3.1, NVIDIA (Eos) and Azure
    ("v3.1 eos 64 nodes", 11.071, "dgx-h100", 4, 8, 1, 16, 2048, 1, 12),
    ("v3.1 eos 96", 11.092, "dgx-h100", 4, 8, 1, 24, 3072, 1, 12),
    ("v3.1 eos 512", 1.6285, "dgx-h100", 4, 8, 1, 128, 2048, 1, 12),
    ("v3.1 eos 768", 1.6352, "dgx-h100", 4, 8, 1, 192, 3072, 1, 12),
    ("v3.1 eos 1024", 1.6404, "dgx-h100", 4, 8, 1, 256, 4096, 1, 12),
    ("v3.1 eos 1280", 0.9466, "dgx-h100", 4, 8, 1, 320, 2560, 1, 12),
    ("v3.1 eos 1344", 0.9520, "dgx-h100", 4, 8, 1, 336, 2688, 1, 12),
    ("v3.1 azure 1344", 0.9796, "azure-nd-h100-v5", 4, 8, 1, 336, 2688, 1, 12),
    # v4.0: training_results_v4.0, NVIDIA (Eos): on 64 nodes MINIBS 144 (the log's
    # global batch 2304), micro-batch 2, 4 chunks a stage; on 1344 and 1452 TP 4,
    # PP 6, 8 chunks a stage
    ("v4.0 eos 64", 10.980, "dgx-h100", 4, 8, 1, 16, 2304, 2, 4),
    ("v4.0 eos 1344", 0.9207, "dgx-h100", 4, 6, 1, 448, 2688, 1, 8),
    ("v4.0 eos 1452", 0.9217, "dgx-h100", 4, 6, 1, 484, 2904, 1, 8),
    # v4.1: training_results_v4.1, NVIDIA (Eos; HGX B200 preview)
    ("v4.1 eos 32", 18.410, "dgx-h100", 4, 8, 1, 8, 2048, 2, 6),
    ("v4.1 eos 64", 9.5417, "dgx-h100", 4, 8, 1, 16, 2048, 2, 6),
    ("v4.1 b200 8", 36.255, "hgx-b200", 4, 8, 1, 2, 2048, 2, 6),
    # v4.1: Oracle on BM.GPU.H100.8 (8 H100, eight 400G RoCE ports: --inter eth-400g-roce)
    ("v4.1 oracle 192", 5.2343, "dgx-h100 --inter eth-400g-roce", 4, 8, 1, 48, 3072, 2, 4),
    ("v4.1 oracle 384", 3.3371, "dgx-h100 --inter eth-400g-roce", 4, 8, 1, 96, 3072, 2, 4),
]
# v5.0 (training_results_v5.0): Llama 3.1 405B at 8192 tokens, CP 2, eight chunks
# a stage, the embedding and the loss counted as a layer each in the pipeline
# split (ASYM_PP_EMBED, ASYM_PP_LOSS: 15 layers on the first and last stages)
LLAMA = [
    ("v5.0 eos 64", 55.127, "dgx-h100", 8, 8, 2, 4, 1152, 1, 8),
    ("v5.0 eos 256", 14.217, "dgx-h100", 8, 8, 2, 16, 1152, 1, 8),
    ("v5.0 eos 304", 12.724, "dgx-h100", 8, 8, 2, 19, 1216, 1, 8),
    ("v5.0 eos 320", 11.171, "dgx-h100", 8, 8, 2, 20, 1120, 1, 8),
    ("v5.0 eos 1024", 5.174, "dgx-h100", 8, 8, 2, 64, 1536, 1, 8),
    ("v5.0 nebius 64", 50.004, "hgx-h200", 4, 8, 2, 8, 1152, 1, 8),
    ("v5.0 nebius 128", 25.351, "hgx-h200", 4, 8, 2, 16, 1152, 1, 8),
    ("v5.0 tyche 64", 19.143, "gb200-nvl72", 4, 8, 2, 4, 448, 1, 8),
    ("v5.0 tyche 128", 19.473, "gb200-nvl72", 4, 8, 2, 8, 896, 1, 8),
    ("v5.0 carina 128", 19.310, "gb200-nvl72", 4, 8, 2, 8, 896, 1, 8),
    ("v5.0 carina 256", 8.445, "gb200-nvl72", 4, 8, 2, 16, 768, 1, 8),
    ("v5.0 carina 384", 8.500, "gb200-nvl72", 4, 8, 2, 24, 1152, 1, 8),
    ("v5.0 carina 512", 7.162, "gb200-nvl72", 4, 8, 2, 32, 1280, 1, 8),
    ("v5.0 carina 624", 5.824, "gb200-nvl72", 4, 8, 2, 39, 1248, 1, 8),
    # v5.1 (training_results_v5.1): the University of Florida on DGX B200, FP8
    # (config_DGXB200_64x8x144xtp4pp8cp2_cg.sh; the v5.1 runs NVIDIA submitted
    # have FP8 and NVFP4 configurations side by side and are left out)
    ("v5.1 uf b200 32", 27.664, "dgx-b200", 4, 8, 2, 4, 576, 1, 8),
    ("v5.1 uf b200 56", 27.955, "dgx-b200", 4, 8, 2, 7, 1008, 1, 8),
]


def args_of(run):
    _, _, system, tp, pp, cp, dp, gbs, mb, v = run
    a = [COMMTIME, "--system"] + system.split() + ["step"]
    if cp == 1:
        a += ["--workload", "gpt3-175b"]
    else:
        a += ["--workload", "llama3.1-405b", "--seq", "8192", "--cp", str(cp),
              "--layers-first", "15", "--layers-last", "15"]
    return a + ["--tp", str(tp), "--pp", str(pp), "--dp", str(dp), "--global-batch", str(gbs),
                "--micro-batch", str(mb), "--sequence-parallel", "--zero", "1", "--schedule",
                "interleaved", "--virtual-stages", str(v), "--precision", "fp8",
                "--tp-comm-overlap", "--grad-bytes", "2", "--format", "json"]


def line_fit(xs, ys):
    """Least squares y = a + b x: (a, b)."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - b * mx, b


def search_behind(run):
    """How far the run's layout is behind the best that search finds (%), as
    a user would ask: the run's GPUs, global batch, model, system, precision
    and flags, --where its tp, pp, dp, cp (--max-cp 1 for GPT-3, which ran
    without context parallelism)."""
    _, _, _, tp, pp, cp, dp, gbs, _, _ = run
    a = args_of(run)
    i = a.index("step")
    s = a[:i] + ["search", "--gpus", str(tp * pp * cp * dp), "--global-batch", str(gbs),
                 "--workload", a[a.index("--workload") + 1], "--precision", "fp8",
                 "--grad-bytes", "2", "--tp-comm-overlap",
                 "--where", "tp=%d,pp=%d,dp=%d,cp=%d" % (tp, pp, dp, cp), "--top", "1"]
    s += ["--max-cp", "1"] if cp == 1 else ["--seq", "8192"]
    out = subprocess.run(s, capture_output=True, text=True).stdout
    m = re.search(r"^Named \(.*?\): rank \d+ of \d+, .*?\(([0-9.]+) %\) behind", out, re.M)
    return float(m.group(1)) if m else float("nan")


def predict(run):
    """The run's row: (error, inside the band, the text printed, m, published,
    expected, best case), or None where commtime refuses it."""
    label, pub, _, tp, pp, cp, dp, gbs, mb, _ = run
    out = subprocess.run(args_of(run), capture_output=True, text=True)
    if out.returncode:
        print("%-16s refused: %s" % (label, out.stderr.strip().splitlines()[-1][:80]))
        return None
    d = json.loads(out.stdout)
    s, mem = d["step"][0], d["memory"][0]
    m = gbs // (dp * mb)
    err = s["step_s"] / pub - 1
    held = s["step_lo_s"] <= pub <= s["step_hi_s"]
    behind = search_behind(run)
    text = ("%-16s %6d %4d %8.3fs %8.3fs %8.3fs %+7.1f%% %7s %5s %6.1f%%" %
            (label, tp * pp * cp * dp, m, pub, s["step_s"], s["step_best_s"], 100 * err,
             "yes" if held else "no", mem["fits"], behind))
    return err, held, text, m, pub, s["step_s"], s["step_best_s"], behind


def main():
    print("%-16s %6s %4s %9s %9s %9s %8s %7s %5s %7s" % ("run", "GPUs", "m", "published",
                                                      "expected", "best", "error", "inside",
                                                      "fits", "behind"))
    rows, fits = [], {"v3.1 eos": ([], [], [], []), "v5.0 eos": ([], [], [], [])}
    for run in GPT3 + LLAMA:
        r = predict(run)
        if r is None:
            continue
        print(r[2])
        rows.append(r)
        for key, fit in fits.items():
            if run[0].startswith(key):
                for col, v in zip(fit, r[3:7]):
                    col.append(v)
    if not rows:
        return
    errs = [r[0] for r in rows]
    print("%d runs: median |error| %.1f %%, mean %+.1f %%, %d too fast, worst %+.1f %%, %d inside the band"
          % (len(errs), 100 * statistics.median(abs(e) for e in errs), 100 * statistics.mean(errs),
             sum(e < 0 for e in errs), 100 * max(errs, key=abs), sum(r[1] for r in rows)))
    print("search: %d layouts more than 10 %% behind its best, the furthest %.1f %%" %
          (sum(r[7] > 10 for r in rows), max(r[7] for r in rows)))
    for key, fit in fits.items():
        if len(fit[0]) < 2:
            continue
        for name, ys in (("published", fit[1]), ("expected", fit[2]), ("best case", fit[3])):
            a, b = line_fit(fit[0], ys)
            print("%s, %-9s step = %.3f s + m x %.1f ms" % (key, name, a, 1e3 * b))


if __name__ == "__main__":
    main()
