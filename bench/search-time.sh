#!/bin/sh
# How long `search` takes, workload by GPU count (make bench; not a test,
# never part of make check: tests never assert on time).  Each search is
# what a user would type, `search --workload W --gpus N --global-batch B
# --format csv`, on SYSTEM (default dgx-a100); each runs RUNS times
# (default 3) and the least CPU time (user + system, on every thread the
# search walks on) and the least wall time are printed, with the
# configurations tried and the rows written.  The target is under one
# second of wall time each up to 8192 GPUs (models/search.md, "Time").
#
#   sh bench/search-time.sh      COMMTIME names the binary (default ./commtime)
cd "$(dirname "$0")/.." || exit 1
COMMTIME=${COMMTIME:-./commtime}
PYTHON=${PYTHON:-python3}
SYSTEM=${SYSTEM:-dgx-a100}
RUNS=${RUNS:-3}
[ -x "$COMMTIME" ] || { echo "search-time: build commtime first (make)" >&2; exit 1; }

# workload | global batch | GPU counts
cases='gpt3-175b|1536|384 768 1536 3072 8192
llama3-8b|2048|64 512 2048 8192
llama3-70b|2048|512 2048 8192
llama3-405b|2048|1024 8192
llama2-70b|1024|512 2048
mixtral-8x7b|1536|512 1536 6144 8192
mixtral-8x7b|16384|8192
deepseek-v3|4096|256 1024 8192
kimi-k2|4096|1024 8192'

echo "search on $SYSTEM: least of $RUNS runs (CPU = user + system)"
echo "$cases" | $PYTHON -c '
import os, subprocess, sys, time
commtime, system, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
print("%-13s %6s %6s %9s %9s %9s %7s" % ("workload", "B", "GPUs", "CPU ms", "wall ms", "tried", "rows"))
worst = worst_cpu = 0.0
for line in sys.stdin.read().split("\n"):
    if not line.strip():
        continue
    w, b, counts = line.split("|")
    for n in counts.split():
        args = [commtime, "--system", system, "search", "--workload", w, "--gpus", n,
                "--global-batch", b]
        cpu = wall = float("inf")
        rows = 0
        for _ in range(runs):
            r0 = os.times()
            t0 = time.perf_counter()
            out = subprocess.run(args + ["--format", "csv"], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL).stdout
            t1 = time.perf_counter()
            r1 = os.times()
            cpu = min(cpu, (r1.children_user - r0.children_user) +
                      (r1.children_system - r0.children_system))
            wall = min(wall, t1 - t0)
            rows = out.count(b"\n") - 1
        text = subprocess.run(args + ["--top", "1"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL).stdout.decode()
        tried = next((l.split()[1] for l in text.splitlines() if l.startswith("searched:")), "-")
        worst = max(worst, wall)
        worst_cpu = max(worst_cpu, cpu)
        print("%-13s %6s %6s %9.0f %9.0f %9s %7d" % (w, b, n, 1e3 * cpu, 1e3 * wall, tried, rows))
print("slowest: %.0f ms wall (target < 1000 ms), %.0f ms CPU on every thread" %
      (1e3 * worst, 1e3 * worst_cpu))
' "$COMMTIME" "$SYSTEM" "$RUNS"
