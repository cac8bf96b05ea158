#!/usr/bin/env python3
"""Where the pool's published layouts rank in search (make bench).

For each run of bench/step-pool.txt: search over the run's GPU count,
global batch and sequence, with the run's system, model, framework,
precision and gradient bytes (--max-cp 1 where the run had no context
parallelism), and --where the run's tp, pp, dp, cp (and ep).  Prints how
far the layout's fastest form is behind the best search finds, and how
many are more than 10 % behind (models/search.md, "Published
configurations").  Not a test.  Variables: COMMTIME (default ./commtime),
POOL (another pool file).
"""
import os
import re
import shlex
import subprocess
import sys

COMMTIME = os.environ.get("COMMTIME", "./commtime")

# step options search takes as they are (each with one value)
KEEP = {"--system", "--arch", "--layers", "--hidden", "--heads", "--kv-heads", "--ffn",
        "--vocab", "--workload", "--seq", "--global-batch", "--framework", "--precision",
        "--grad-bytes", "--nics-per-node", "--inter", "--power-cap", "--hbm-bandwidth",
        "--gpu-memory"}
# step flags search takes
FLAGS = {"--tp-comm-overlap"}
# step flags search does not take (search has sequence parallelism always)
DROP_FLAGS = {"--sequence-parallel", "--overlap-moe-expert-parallel-comm", "--moe-dispatch-fp8"}


def search_args(args):
    """The search a run's step arguments call for, and its --where."""
    a = shlex.split(args)
    i = a.index("step")
    pre, rest = a[:i], a[i + 1:]

    def get(k):
        return int(rest[rest.index(k) + 1]) if k in rest else 1
    tp, pp, dp, cp, ep = (get(k) for k in ("--tp", "--pp", "--dp", "--cp", "--ep"))
    s = pre + ["search", "--gpus", str(tp * pp * dp * cp)]
    j = 0
    while j < len(rest):
        if rest[j] in KEEP:
            s += rest[j:j + 2]
            j += 2
        elif rest[j] in FLAGS:
            s.append(rest[j])
            j += 1
        elif rest[j] in DROP_FLAGS:
            j += 1
        else:
            j += 2
    where = "tp=%d,pp=%d,dp=%d,cp=%d" % (tp, pp, dp, cp)
    if "--ep" in rest:
        where += ",ep=%d" % ep
    if cp == 1:
        s += ["--max-cp", "1"]
    return s + ["--where", where, "--top", "1"]


def main():
    path = os.environ.get("POOL") or os.path.join(os.path.dirname(__file__), "step-pool.txt")
    ranked = beyond = 0
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        src, label, _kind, _pub, _peak, args = line.rstrip("\n").split("|")
        r = subprocess.run([COMMTIME] + search_args(args), capture_output=True, text=True)
        m = re.search(r"^Named \(([^)]*)\): rank (\d+) of (\d+), .*?\(([0-9.]+) %\) behind", r.stdout,
                      re.M)
        if not m:
            print("%-8s %-24s not ranked: %s" % (src, label, (r.stderr or r.stdout).strip()
                                                  .splitlines()[-1][:100]))
            continue
        ranked += 1
        behind = float(m.group(4))
        beyond += behind > 10
        print("%-8s %-24s %-34s rank %5s of %6s, %5.1f %% behind%s" %
              (src, label, m.group(1), m.group(2), m.group(3), behind,
               "  (more than 10 %)" if behind > 10 else ""))
    print("%d layouts ranked, %d more than 10 %% behind search's best" % (ranked, beyond))


if __name__ == "__main__":
    sys.exit(main())
