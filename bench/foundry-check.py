#!/usr/bin/env python3
"""LLM Foundry's whole H100 and A100 tables against the expected step (make bench).

Reads bench/foundry-h100.txt (every bf16 H100 row of LLM Foundry's
throughput tables; eight of them are also rows of bench/step-pool.txt)
and bench/foundry-a100.txt (its A100 80 GB and 40 GB rows, none in the
pool), types each run as a user would -- FSDP with the table's sharding strategy
as --zero 3 (FULL_SHARD) or 2 (SHARD_GRAD_OP), full recomputation where
the table checkpoints activations, LLM Foundry's fused elementwise kernels
-- and prints the published step (global batch x sequence over tokens/s
per GPU x GPUs) beside the expected one, whether the band holds it, and
the median |error| and the share too fast, by table, overall and by
sequence length (models/step-checks.md, "LLM Foundry's whole tables").  Not a test.
Variables: COMMTIME (default ./commtime).
"""
import json
import os
import subprocess

COMMTIME = os.environ.get("COMMTIME", "./commtime")
# layers, d_model, heads (scripts/train/yamls/pretrain/mpt-*.yaml)
SHAPES = {"1b": (24, 2048, 16), "3b": (32, 2560, 20), "7b": (32, 4096, 32),
          "13b": (40, 5120, 40), "30b": (48, 7168, 56), "70b": (80, 8192, 64)}


def args_of(model, seq, gpus, mb, gbs, shard, ac, system="dgx-h100", reduce="fp32"):
    layers, hidden, heads = SHAPES[model]
    a = [COMMTIME, "--system", system, "step", "--arch", "gpt", "--layers", str(layers),
         "--hidden", str(hidden), "--heads", str(heads), "--vocab", "50368", "--seq", seq,
         "--dp", gpus, "--micro-batch", mb, "--global-batch", gbs, "--framework", "fsdp",
         "--zero", "3" if shard == "FULL_SHARD" else "2", "--elementwise", "fused",
         "--format", "json"]
    if reduce == "bf16":
        a += ["--grad-bytes", "2"]
    return a + (["--recompute", "full"] if ac == "True" else [])


def rows(name):
    """The rows of bench/<name>: (model, seq, gpus, mb, gbs, tps, shard, ac,
    system, reduce), the last two dgx-h100 and fp32 where the file has no
    such columns."""
    out = []
    for line in open(os.path.join(os.path.dirname(__file__), name)):
        if line.startswith("#") or not line.strip():
            continue
        f = line.strip().split("|")
        out.append(tuple(f + ["dgx-h100", "fp32"][len(f) - 8:]))
    return out


def summary(name, errs):
    if not errs:
        return
    a = sorted(abs(e) for e in errs)
    n = len(a)
    med = a[n // 2] if n % 2 else (a[n // 2 - 1] + a[n // 2]) / 2
    print("%-22s %3d runs  median |err| %5.1f %%  too fast %3d %%  worst %+6.1f %%" %
          (name, n, 100 * med, round(100 * sum(e < 0 for e in errs) / n),
           100 * max(errs, key=abs)))


def table(name, label):
    """Print one table's runs and summaries; return (errors, inside)."""
    errs, by_seq, inside = [], {}, 0
    print("%-4s %6s %4s %4s %-13s %3s %9s %9s %8s %s" %
          ("run", "seq", "GPUs", "mb", "sharding", "AC", "published", "expected", "error", "band"))
    for model, seq, gpus, mb, gbs, tps, shard, ac, system, reduce in rows(name):
        pub = int(gbs) * int(seq) / (float(tps) * int(gpus))
        r = subprocess.run(args_of(model, seq, gpus, mb, gbs, shard, ac, system, reduce),
                           capture_output=True, text=True)
        try:
            s = json.loads(r.stdout)["step"][0]
        except ValueError:
            print("%-4s %6s %4s refused: %s" % (model, seq, gpus, r.stderr.strip()[-80:]))
            continue
        e = s["step_s"] / pub - 1
        ok = s["step_lo_s"] <= pub <= s["step_hi_s"]
        inside += ok
        errs.append(e)
        by_seq.setdefault("seq 2048 and less" if int(seq) <= 2048 else
                          "seq 4096 to 8192" if int(seq) <= 8192 else "seq 16384 and more",
                          []).append(e)
        print("%-4s %6s %4s %4s %-13s %3s %8.3fs %8.3fs %+7.1f%% %s" %
              (model, seq, gpus, mb, shard, "yes" if ac == "True" else "no", pub, s["step_s"],
               100 * e, "inside" if ok else "outside"))
    summary(label, errs)
    for k in ("seq 2048 and less", "seq 4096 to 8192", "seq 16384 and more"):
        summary(k, by_seq.get(k, []))
    if errs:
        print("inside the band: %d of %d" % (inside, len(errs)))
    return errs, inside


def main():
    h, hin = table("foundry-h100.txt", "H100, all")
    a, ain = table("foundry-a100.txt", "A100, all")
    summary("both tables", h + a)
    print("inside the band: %d of %d" % (hin + ain, len(h) + len(a)))


if __name__ == "__main__":
    main()
