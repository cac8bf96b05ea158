#!/usr/bin/env python3
"""The pool and the four held-out checks as one set of sources (make bench).

bench/step-pool.py fits the expected step's clock on the pool's twelve
sources and states its error left out source by source; LLM Foundry's whole
H100 and A100 tables, NeMo's 2025 tables, MLPerf Training's GPT-3 and Llama
3.1 405B runs and NVIDIA's DGX Cloud recipes of late 2024
(bench/foundry-check.py, nemo-check.py, mlperf-check.py, dgxc-check.py) are
checks it never saw.  This script asks whether the fitted numbers hinge on
which runs were pooled and which held out: it takes all of them as fifteen
sources (the pool's eight LLM Foundry rows are rows of its whole tables, so
that source is its H100 and A100 tables whole), and

  fit      the two parameters on all fifteen, each source weighing 1 in
           all and its runs 1/n each, as bench/step-pool.py fits them;
  sources  each source left out: the clock fitted without it, its runs'
           median |error|, median signed error, share too fast, worst;
  band     published / expected over those left-out predictions, its
           quantiles weighed by source as the fit weighs them, widened
           from the 10th and 90th percentile until the sources' mean share
           of runs inside the band drawn without them reaches 80 %; and
           each source's runs inside the band compiled in (src/expect.h);
  criteria each source of eight runs or more against four figures an
           honest step error should meet on any set of runs: median |error|
           at most 10 %, none beyond 25 %, no systematic sign (30 % to 70 %
           too fast), 70 % to 90 % inside the band;
  kinds    each kind of step commtime names as leaning one way (its JSON
           table known_lean): its runs' left-out published / expected,
           lowest, median, highest, and how many fall past the band
           (src/expect.c, EXPECT_LEAN, states these figures).

Nothing here is fitted into commtime; it prints what the fifteen sources
say (models/step-checks.md, "The pool and the checks together").  Not a
test.  Variables: COMMTIME (default ./commtime).
"""
import importlib.util
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def module(name):
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"),
                                                  os.path.join(HERE, name + ".py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


POOL = module("step-pool")


def run(src, label, args, pub):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode:
        sys.exit("step-all: %s: %s" % (label, r.stderr.strip()))
    d = json.loads(r.stdout)
    return {"src": src, "label": src + " " + label, "pub": pub, "t": d["expected"][0],
            "fits": d["memory"][0]["fits"], "leans": [k["kind"] for k in d.get("known_lean", [])]}


def foundry_runs():
    fc = module("foundry-check")
    out = []
    for name in ("foundry-h100.txt", "foundry-a100.txt"):
        for model, seq, gpus, mb, gbs, tps, shard, ac, system, reduce in fc.rows(name):
            pub = int(gbs) * int(seq) / (float(tps) * int(gpus))
            out.append(run("foundry", "%s %s-%s-%s-%s" % (system, model, seq, gpus, mb),
                           fc.args_of(model, seq, gpus, mb, gbs, shard, ac, system, reduce), pub))
    return out


def nemo_runs():
    nc = module("nemo-check")
    return [run("nemo25", cont + " " + label, nc.args_of(system, wl, gpus, gbs, mb, seq, rest),
                gbs * seq / (tps * gpus))
            for cont, label, tps, system, wl, gpus, gbs, mb, seq, rest in nc.RUNS]


def dgxc_runs():
    dc = module("dgxc-check")
    return [run("dgxc", label, a, pub) for label, pub, a in dc.runs()]


def mlperf_runs():
    mc = module("mlperf-check")
    return [run("mlperf", r[0], mc.args_of(r), r[1]) for r in mc.GPT3 + mc.LLAMA]


def weighted_quantile(pairs, q):
    """pairs: (value, weight); the smallest value whose cumulative weight
    reaches q of the whole."""
    pairs = sorted(pairs)
    total = sum(w for _, w in pairs)
    acc = 0.0
    for v, w in pairs:
        acc += w
        if acc >= q * total - 1e-12:
            return v
    return pairs[-1][0]


def source_band(runs, ratio):
    """The q-th and (1-q)-th quantile of published / expected, weighed by
    source; q from 0.10 down until the sources' mean share of runs inside
    the band drawn from the other sources' runs alone reaches 80 %."""
    n = {}
    for r in runs:
        n[r["src"]] = n.get(r["src"], 0) + 1
    pairs = {s: [(ratio[r["label"]], 1 / n[s]) for r in runs if r["src"] == s] for s in n}
    q = 0.10
    while True:
        shares = []
        for s in n:
            others = [x for t in n if t != s for x in pairs[t]]
            lo, hi = weighted_quantile(others, q), weighted_quantile(others, 1 - q)
            shares.append(sum(lo <= v <= hi for v, _ in pairs[s]) / n[s])
        if statistics.mean(shares) >= 0.8 or q <= 0.005:
            every = [x for t in n for x in pairs[t]]
            return q, weighted_quantile(every, q), weighted_quantile(every, 1 - q), \
                statistics.mean(shares)
        q -= 0.005


def main():
    runs = [r for r in POOL.load(os.path.join(HERE, "step-pool.txt")) if r["src"] != "foundry"]
    runs += foundry_runs() + nemo_runs() + mlperf_runs() + dgxc_runs()
    sources = sorted(set(r["src"] for r in runs))
    print("every run ran, so each should fit: %d of %d said to fit" %
          (sum(r["fits"] == "yes" for r in runs), len(runs)))
    p = POOL.fit(runs)
    print("%d runs, %d sources; fitted on all of them: clock %.4f, gap %.3g s" %
          ((len(runs), len(sources)) + p))
    ratio, rows = {}, []
    print("%-10s %5s %7s %13s %13s %9s %7s" % ("left out", "runs", "clock", "median |err|",
                                               "median signed", "too fast", "worst"))
    for s in sources:
        q = POOL.fit([r for r in runs if r["src"] != s])
        es = []
        for r in runs:
            if r["src"] == s:
                e = POOL.expected(r["t"], q)
                ratio[r["label"]] = r["pub"] / e
                es.append(e / r["pub"] - 1)
        rows.append(es)
        print("%-10s %5d %7.3f %12.1f%% %+12.1f%% %8.0f%% %6.1f%%" %
              (s, len(es), q[0], 100 * statistics.median(abs(e) for e in es),
               100 * statistics.median(es), 100 * sum(e < 0 for e in es) / len(es),
               100 * max(abs(e) for e in es)))
    alle = [e for es in rows for e in es]
    print("all runs left out by source: median |error| %.1f %%, too fast %.0f %%; median over "
          "the sources of their median |error| %.1f %%" %
          (100 * statistics.median(abs(e) for e in alle), 100 * sum(e < 0 for e in alle) /
           len(alle), 100 * statistics.median(statistics.median(abs(e) for e in es)
                                              for es in rows)))
    q, lo, hi, share = source_band(runs, ratio)
    src = open(os.path.join(HERE, "..", "src", "expect.h")).read()
    clo, chi = (float(src.split("#define EXPECT_BAND_%s " % k)[1].split()[0]) for k in ("LO", "HI"))
    print("band weighed by source: published / expected %.3f to %.3f (the %.3g %% and %.3g %% "
          "quantiles; each source's share inside the band drawn without it, their mean %.0f %%); "
          "compiled in: %.3f to %.3f" %
          (lo, hi, 100 * q, 100 * (1 - q), 100 * share, clo, chi))
    inside = {s: sum(clo <= ratio[r["label"]] <= chi for r in runs if r["src"] == s)
              for s in sources}
    print("inside the compiled-in band, by source: " +
          ", ".join("%s %d/%d" % (s, inside[s], sum(r["src"] == s for r in runs))
                    for s in sources))
    criteria(sources, rows, inside)
    kinds(runs, ratio, clo, chi)


def kinds(runs, ratio, lo, hi):
    """Each kind of step commtime names as leaning one way (its JSON table
    known_lean; src/expect.c, EXPECT_LEAN): its runs' left-out published /
    expected, lowest, median and highest, and how many fall past the band."""
    names = sorted(set(k for r in runs for k in r["leans"]))
    for k in names:
        rs = [r for r in runs if k in r["leans"]]
        xs = sorted(ratio[r["label"]] for r in rs)
        print("kind %s: %d runs of %d sources, published / expected %.3f, median %.3f, %.3f; "
              "%d above the band, %d below" %
              (k, len(xs), len(set(r["src"] for r in rs)), xs[0], statistics.median(xs), xs[-1],
               sum(x > hi for x in xs), sum(x < lo for x in xs)))


def criteria(sources, rows, inside):
    """Each source of 8 runs or more against four figures: median |error|
    at most 10 %, none beyond 25 %, between 30 % and 70 % too fast, 70 %
    to 90 % inside the compiled-in band."""
    print("%-10s %5s %12s %11s %15s %15s" % ("source", "runs", "median<=10%", "worst<=25%",
                                             "too fast 30-70%", "inside 70-90%"))
    for s, es in zip(sources, rows):
        n = len(es)
        if n < 8:
            continue
        med = statistics.median(abs(e) for e in es)
        worst = max(abs(e) for e in es)
        fast = sum(e < 0 for e in es) / n
        ins = inside[s] / n
        print("%-10s %5d %12s %11s %15s %15s" %
              (s, n, "%.1f%% %s" % (100 * med, "yes" if med <= 0.10 else "no"),
               "%.1f%% %s" % (100 * worst, "yes" if worst <= 0.25 else "no"),
               "%.0f%% %s" % (100 * fast, "yes" if 0.3 <= fast <= 0.7 else "no"),
               "%.0f%% %s" % (100 * ins, "yes" if 0.7 <= ins <= 0.9 else "no")))


if __name__ == "__main__":
    sys.exit(main())
