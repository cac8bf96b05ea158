#!/bin/sh
# Reading a multi-gigabyte profiler trace (make bench; not a test): a
# synthetic Kineto trace of TRACE_GB gigabytes (default 2), the whole
# document on one line, made by bench/trace-gen.py here and removed after;
# compare --trace reads it, and the peak memory (bench/maxrss.c) and the
# throughput are printed.  models/trace.md, "Reading", says why memory is
# bounded.  Variables: COMMTIME, PYTHON, CC, TRACE_GB.
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
COMMTIME=${COMMTIME:-$top/commtime}
PYTHON=${PYTHON:-python3}
CC=${CC:-cc}
GB=${TRACE_GB:-2}
b=$top/tests/tmp/bench
mkdir -p "$b" || exit 1
command -v "$PYTHON" >/dev/null 2>&1 || { echo "6. trace reading: skipped (no $PYTHON)"; exit 0; }
[ -x "$b/maxrss" ] || $CC -O2 -o "$b/maxrss" bench/maxrss.c || exit 1
f=$b/trace-big.json
trap 'rm -f "$f"' EXIT INT TERM
"$PYTHON" bench/trace-gen.py "$GB" --one-line >"$f" || exit 1
bytes=$(wc -c <"$f")
t0=$(date +%s%N)
kib=$("$b/maxrss" "$COMMTIME" --system dgx-h100 --format csv compare --trace "$f" 2>&1 >"$b/trace-big.csv" |
	awk '/^maxrss_kib/ { print $2 }')
t1=$(date +%s%N)
calls=$(awk -F, 'NR > 1 { c += $4 } END { print c + 0 }' "$b/trace-big.csv")
echo "6. a synthetic profiler trace on one line (bench/trace-gen.py $GB)"
awk -v by="$bytes" -v k="$kib" -v t0="$t0" -v t1="$t1" -v c="$calls" 'BEGIN {
	s = (t1 - t0) / 1e9
	printf "   %-32s %.2f GB, %d NCCL calls\n", "trace", by / 1e9, c
	printf "   %-32s %.1f s, %.0f MB/s\n", "compare --trace", s, by / s / 1e6
	printf "   %-32s %6.2f MiB  (target < 64 MiB)\n", "peak memory", k / 1024 }'
