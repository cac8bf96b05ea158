#!/usr/bin/env python3
"""The expected step against the pool of published runs (make bench).

Reads bench/step-pool.txt, runs commtime on each run as a user would type
it, and turns what the source published into a step time.  Then:

  before   today's best case (step_best_s) against the published steps;
  after    the expected step, each source's runs predicted with the two
           parameters fitted WITHOUT that source (leave one source out);
  sources  each source's median |error| and median signed error, left out,
           and the median over the sources of their medians;
  band     the 10th and 90th percentile of published / expected over those
           left-out predictions, and the share of each source's runs inside
           the band drawn from the other sources alone.

The two parameters (src/expect.c) and the band (src/expect.h) come from
`--fit`, which fits on the whole pool, each source weighing as much as any
other however many runs it published; the errors printed are never the
in-sample ones.  The expected step here is src/expect.c's expect_apply, term for
term (models/step.md, "The expected step"); `check` compares it with
commtime's own step_s at the values compiled in.  Not a test.
Variables: COMMTIME (default ./commtime), POOL (another pool file).
"""
import json
import math
import os
import shlex
import statistics
import subprocess
import sys

COMMTIME = os.environ.get("COMMTIME", "./commtime")

# name, lower bound, upper bound, grid points (models/step.md says why)
BOUNDS = [("clock", 0.75, 1.0, 26), ("gap_s", 0.0, 20e-6, 21)]
# src/step_expect.h, EXPECT_JITTER: not fitted (Sinha et al. 2022)
JITTER = 0.01


def arg(a, name):
    return float(a[a.index(name) + 1]) if name in a else None


def published_step(kind, value, args, d):
    """The published figure as a step time (s)."""
    a = shlex.split(args)
    st = d["step"][0]
    gpus = float(d["inputs"]["parallel"].split("=")[1].split("GPUs")[0])
    if kind == "step":
        return value, gpus
    if kind == "tps":
        return arg(a, "--global-batch") * arg(a, "--seq") / (value * gpus), gpus
    if kind == "tflops":
        # the model's FLOPs as commtime counts them: MFU x step x GPUs x peak
        flops = st["mfu"] * st["step_s"] * gpus * d["_peak"]
        return flops / (gpus * value * 1e12), gpus
    if kind == "tflops96":
        B, s, L = arg(a, "--global-batch"), arg(a, "--seq"), arg(a, "--layers")
        h, V = arg(a, "--hidden"), arg(a, "--vocab")
        flops = 96 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h))
        return flops / (gpus * value * 1e12), gpus
    raise ValueError("unknown kind " + kind)


def zmax(n):
    """Blom's expected largest of n standard normal values."""
    if n <= 1:
        return 0.0
    return statistics.NormalDist().inv_cdf((n - 0.375) / (n + 0.25))


def expected(t, p):
    """src/step_expect.c, expect_apply."""
    clock, gap = p
    jitter = JITTER
    c = min(1.0, clock * t["power_share"])   # at most the rated clock
    mb = t["mb_best_s"]
    mb_clock = mb * t["bound_share"] * (1 / c - 1)
    mb_gaps = t["kernels_mb"] * gap
    mb_int = t["interference_mb_s"]
    work = mb + mb_clock + mb_gaps + mb_int
    mb_e = work * (1 + jitter * zmax(t["ranks"]))
    return (t["step_best_s"] + t["slots"] * (mb_e - mb) + t["kernels_step"] * gap +
            t["interference_dp_s"] + t["housekeeping_s"])


def load(path):
    runs = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        src, label, kind, value, peak, args = line.rstrip("\n").split("|")
        r = subprocess.run([COMMTIME] + shlex.split(args) + ["--format", "json"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("step-pool: %s: %s" % (label, r.stderr.strip()))
        d = json.loads(r.stdout)
        d["_peak"] = float(peak) * 1e12
        pub, gpus = published_step(kind, float(value), args, d)
        t = d["expected"][0]
        runs.append({"src": src, "label": label, "pub": pub, "gpus": gpus, "t": t,
                     "step_s": d["step"][0]["step_s"],
                     "lo": d["step"][0].get("step_lo_s"), "hi": d["step"][0].get("step_hi_s"),
                     "fits": d["memory"][0]["fits"],
                     "leans": [k["kind"] for k in d.get("known_lean", [])]})
    return runs


def loss(runs, p):
    # L1 of the log ratio: a median fit, no sign favoured.  Each source
    # weighs 1 in all, its runs 1/n each: a source is one draw of how a
    # team's stack runs against the model (the unit the fit is judged on,
    # left out whole), not as many draws as it published rows.
    n = {}
    for r in runs:
        n[r["src"]] = n.get(r["src"], 0) + 1
    return sum(abs(math.log(expected(r["t"], p) / r["pub"])) / n[r["src"]] for r in runs)


def fit(runs):
    grids = [[lo + (hi - lo) * i / (n - 1) for i in range(n)] for _, lo, hi, n in BOUNDS]
    best = None
    for a in grids[0]:
        for b in grids[1]:
            p = (a, b)
            v = loss(runs, p)
            if best is None or v < best[0]:
                best = (v, p)
    p = list(best[1])
    # refine one parameter at a time inside its bounds
    for _ in range(4):
        for i, (_, lo, hi, n) in enumerate(BOUNDS):
            step = (hi - lo) / (n - 1)
            cands = [min(hi, max(lo, p[i] + step * k / 10)) for k in range(-10, 11)]
            vals = []
            for x in cands:
                q = p[:]
                q[i] = x
                vals.append((loss(runs, q), x))
            p[i] = min(vals)[1]
    return tuple(p)


def quantile(xs, q):
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    f = math.floor(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def band(runs, ratios):
    """The q-th and (1-q)-th percentile of published / expected over the
    left-out predictions, q from 0.10 down until 80 % of the runs fall
    inside the band drawn from the other sources' runs alone."""
    q = 0.10
    while True:
        inside = 0
        for r in runs:
            others = [ratios[x["label"]] for x in runs if x["src"] != r["src"]]
            if quantile(others, q) <= ratios[r["label"]] <= quantile(others, 1 - q):
                inside += 1
        if inside >= 0.8 * len(runs) or q <= 0.005:
            break
        q -= 0.005
    allr = list(ratios.values())
    return q, quantile(allr, q), quantile(allr, 1 - q), inside


def summary(errs):
    return (100 * statistics.median(abs(e) for e in errs), 100 * statistics.mean(errs),
            100 * sum(e < 0 for e in errs) / len(errs), 100 * max(abs(e) for e in errs))


def main():
    path = os.environ.get("POOL") or os.path.join(os.path.dirname(__file__), "step-pool.txt")
    mode = sys.argv[1] if len(sys.argv) > 1 else "loso"
    runs = load(path)
    sources = sorted(set(r["src"] for r in runs))
    if mode == "--fit":
        p = fit(runs)
        print("fitted on all %d runs of %d sources: clock %.4f, "
              "gap %.3g s" % ((len(runs), len(sources)) + p))
    # leave one source out
    cv = {}
    for s in sources:
        p = fit([r for r in runs if r["src"] != s])
        for r in runs:
            if r["src"] == s:
                cv[r["label"]] = (expected(r["t"], p), p)
    ratios = {r["label"]: r["pub"] / cv[r["label"]][0] for r in runs}
    q, lo, hi, inside = band(runs, ratios)
    print("%-8s %-22s %6s %10s %10s %7s %10s %7s  %s" %
          ("source", "run", "GPUs", "published", "best", "error", "expected", "error",
           "left-out fit (clock, gap)"))
    for r in runs:
        e, p = cv[r["label"]]
        print("%-8s %-22s %6d %10.4g %10.4g %+6.1f%% %10.4g %+6.1f%%  %.3f %.2g" %
              (r["src"], r["label"], r["gpus"], r["pub"], r["t"]["step_best_s"],
               100 * (r["t"]["step_best_s"] / r["pub"] - 1), e, 100 * (e / r["pub"] - 1),
               p[0], p[1]))
    before = [r["t"]["step_best_s"] / r["pub"] - 1 for r in runs]
    after = [cv[r["label"]][0] / r["pub"] - 1 for r in runs]
    print("%d runs, %d sources (%s)" % (len(runs), len(sources), ", ".join(sources)))
    print("%-34s %13s %12s %10s %8s" % ("", "median |err|", "mean signed", "too fast", "worst"))
    print("%-34s %12.1f%% %+11.1f%% %9.0f%% %7.1f%%" % (("best case (step_best_s)",) +
                                                       summary(before)))
    print("%-34s %12.1f%% %+11.1f%% %9.0f%% %7.1f%%" % (("expected, leave one source out",) +
                                                       summary(after)))
    # each source left out: its runs' median |error| and median signed error
    print("%-10s %5s %13s %13s" % ("source", "runs", "median |err|", "median signed"))
    meds = []
    for s in sources:
        es = [cv[r["label"]][0] / r["pub"] - 1 for r in runs if r["src"] == s]
        meds.append(statistics.median(abs(e) for e in es))
        print("%-10s %5d %12.1f%% %+12.1f%%" % (s, len(es), 100 * meds[-1],
                                                100 * statistics.median(es)))
    print("median over the sources of their median |error|: %.1f %%" %
          (100 * statistics.median(meds)))
    print("band: published / expected %.3f to %.3f, the %.3g %% and %.3g %% quantiles of the "
          "left-out predictions (widened from the 10th and 90th until 80 %% of the runs fall "
          "inside the band drawn without their source); %d of %d runs (%.0f %%) inside it" %
          (lo, hi, 100 * q, 100 * (1 - q), inside, len(runs), 100 * inside / len(runs)))
    if mode == "check":
        src = open(os.path.join(os.path.dirname(__file__), "..", "src", "expect.c")).read()
        compiled = tuple(float(src.split(".%s = " % k)[1].split(",")[0]) for k in ("clock", "gap_s"))
        worst = max(abs(r["step_s"] / expected(r["t"], compiled) - 1) for r in runs)
        print("commtime's step_s against this script's expected step at the compiled-in "
              "values: largest difference %.2g" % worst)


if __name__ == "__main__":
    main()
