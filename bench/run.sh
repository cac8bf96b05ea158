#!/bin/sh
# Benchmarks (make bench; not tests, never part of make check).  Measures,
# side by side in one run on this machine:
#  1. the default table, `commtime --alpha 5e-6 --beta 200e9`, against the
#     seed's Python script (COMMTIME_PY) and against bench/floor_table.c,
#     the smallest C program that prints the same bytes: the floor;
#  2. a sweep of ~854 000 CSV rows against bench/naive_sweep.c, a plain
#     printf loop writing the same rows;
#  3. the peak memory of that sweep and of one with 10x the rows.
# Times come from hyperfine when it is installed, else from a loop timed
# with date +%s%N.  Variables: COMMTIME, COMMTIME_PY, PYTHON, CC, RUNS.
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
COMMTIME=${COMMTIME:-$top/commtime}
COMMTIME_PY=${COMMTIME_PY:-$top/../shared/reference/commtime.py}
PYTHON=${PYTHON:-python3}
CC=${CC:-cc}
RUNS=${RUNS:-300}
b=$top/tests/tmp/bench
mkdir -p "$b" || exit 1
LC_ALL=C
export LC_ALL

[ -x "$COMMTIME" ] || { echo "bench: build commtime first (make)" >&2; exit 1; }
for p in floor_table naive_sweep maxrss; do
	$CC -O2 -o "$b/$p" "bench/$p.c" -lm || exit 1
done
# The same objects with GSL and libcsv linked statically, to show what
# dynamic linking costs at start-up.
static=
if $CC -o "$b/commtime-static" src/*.o src/cmd/*.o -Wl,-Bstatic -lgsl -lgslcblas -lcsv \
	-Wl,-Bdynamic -lm 2>/dev/null; then
	static=$b/commtime-static
fi

# measure RUNS NAME COMMAND [NAME COMMAND ...]: "NAME MEAN_SECONDS" lines.
measure() {
	runs=$1
	shift
	if command -v hyperfine >/dev/null 2>&1; then
		: >"$b/cmds"
		while [ $# -ge 2 ]; do
			printf '%s\n%s\n' "$1" "$2" >>"$b/cmds"
			shift 2
		done
		# hyperfine -N runs each command without a shell; -n names it.
		awk 'NR % 2 == 1 { printf "-n\n%s\n", $0 } NR % 2 == 0 { print }' "$b/cmds" |
			tr '\n' '\0' | xargs -0 hyperfine -N --style none --warmup 3 \
			--runs "$runs" --export-csv "$b/times.csv" >/dev/null 2>&1 || return 1
		awk -F, 'NR > 1 { print $1, $2 }' "$b/times.csv"
	else
		while [ $# -ge 2 ]; do
			name=$1 cmd=$2
			shift 2
			$cmd >/dev/null 2>&1
			t0=$(date +%s%N)
			k=0
			while [ $k -lt "$runs" ]; do
				$cmd >/dev/null 2>&1
				k=$((k + 1))
			done
			t1=$(date +%s%N)
			echo "$name $(echo "$t0 $t1 $runs" | awk '{ printf "%.9f", ($2 - $1) / 1e9 / $3 }')"
		done
	fi
}
get() { awk -v n="$1" '$1 == n { print $2 }' "$b/result"; }
ms() { awk -v t="$1" 'BEGIN { printf "%8.3f ms", t * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "commtime benchmarks, $(date -u +%Y-%m-%d), $(uname -m), $(nproc 2>/dev/null || echo '?') CPUs,"
echo "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)"
command -v hyperfine >/dev/null 2>&1 && echo "timing: $(hyperfine --version), mean of the runs" ||
	echo "timing: a date +%s%N loop (hyperfine not installed)"
echo

# ---- 1. the default table ----
table="$COMMTIME --alpha 5e-6 --beta 200e9"
"$b/floor_table" >"$b/floor-out"
$table | cmp -s - "$b/floor-out" ||
	echo "note: floor_table's output differs from commtime's; the floor is off" >&2
set -- commtime "$table" floor "$b/floor_table"
[ -n "$static" ] && set -- "$@" static "$static --alpha 5e-6 --beta 200e9"
measure "$RUNS" "$@" >"$b/result" || { echo "bench: timing failed" >&2; exit 1; }
if [ -f "$COMMTIME_PY" ] && command -v "$PYTHON" >/dev/null 2>&1; then
	measure $((RUNS / 10 + 1)) python "$PYTHON $COMMTIME_PY" >>"$b/result"
fi
t=$(get commtime) f=$(get floor) s=$(get static) p=$(get python)
echo "1. default table (commtime --alpha 5e-6 --beta 200e9)"
echo "   commtime                         $(ms "$t")"
echo "   floor_table.c (same bytes)       $(ms "$f")   commtime / floor = $(ratio "$t" "$f")  (target <= 1.5)"
[ -n "$s" ] && echo "   commtime, GSL+libcsv static      $(ms "$s")   static / floor = $(ratio "$s" "$f")"
if [ -n "$p" ]; then
	echo "   seed's Python script             $(ms "$p")   python / commtime = $(ratio "$p" "$t")"
else
	echo "   seed's Python script: skipped ($COMMTIME_PY not found or no $PYTHON)"
fi
echo

# ---- 2. a sweep of ~854 000 CSV rows ----
sweep="$COMMTIME allreduce --ranks 2:1001:+1 --sizes 1:1G:x1.05 --algo ring,tree --format csv"
rows=$($sweep | wc -l)
nrows=$("$b/naive_sweep" | wc -l)
[ "$rows" = "$nrows" ] || echo "note: naive_sweep writes $nrows lines, commtime $rows" >&2
measure 5 commtime "$sweep" naive "$b/naive_sweep" >"$b/result" || exit 1
t=$(get commtime) n=$(get naive)
echo "2. sweep of $((rows - 1)) CSV rows (allreduce --ranks 2:1001:+1 --sizes 1:1G:x1.05 --algo ring,tree)"
echo "   commtime                         $(ms "$t")"
echo "   naive_sweep.c (printf %.17g)     $(ms "$n")   commtime / naive = $(ratio "$t" "$n")  (target <= 1)"
echo "   rows per second                  $(awk -v r="$rows" -v t="$t" 'BEGIN { printf "%.1f million", r / t / 1e6 }')"
echo

# ---- 3. peak memory ----
rss() { "$b/maxrss" "$@" 2>&1 >/dev/null | awk '/^maxrss_kib/ { print $2 }'; }
r1=$(rss $sweep)
r10=$(rss $COMMTIME allreduce --ranks 2:10001:+1 --sizes 1:1G:x1.05 --algo ring,tree --format csv)
rn=$(rss "$b/naive_sweep")
rf=$(rss "$b/floor_table")
mib() { awk -v k="$1" 'BEGIN { printf "%6.2f MiB", k / 1024 }'; }
echo "3. peak memory (maximum resident set size)"
printf '   %-32s %s\n' "sweep, $((rows - 1)) rows" "$(mib "$r1")"
printf '   %-32s %s   10x / 1x = %s  (target < 8 MiB, flat)\n' "sweep, 10x the rank counts" \
	"$(mib "$r10")" "$(ratio "$r10" "$r1")"
printf '   %-32s %s\n' "naive_sweep.c" "$(mib "$rn")"
printf '   %-32s %s\n' "floor_table.c" "$(mib "$rf")"
echo

# ---- 4. a configuration search over 1024 GPUs ----
search="$COMMTIME --alpha 5us --beta 400GB/s search --workload llama3-70b --gpus 1024 \
--global-batch 1024 --peak 989e12 --gpu-memory 80GB --format csv"
rows=$($search | wc -l)
measure 5 search "$search" >"$b/result" || exit 1
t=$(get search)
echo "4. configuration search, llama3-70b on 1024 GPUs, every configuration"
echo "   commtime search                  $(ms "$t")   $((rows - 1)) configurations fit  (target < 1000 ms)"
echo

# ---- 5. configuration searches on a system, up to 8192 GPUs ----
echo "5. configuration search on dgx-h100 (NCCL's model), every configuration"
for spec in "llama3-405b 8192 2048" "llama3-70b 8192 2048" "gpt3-175b 1024 1536" "llama3-70b 512:8192:x2 2048"; do
	set -- $spec
	search="$COMMTIME --system dgx-h100 search --workload $1 --gpus $2 --global-batch $3 --format csv"
	rows=$($search | wc -l)
	tried=$($COMMTIME --system dgx-h100 search --workload $1 --gpus $2 --global-batch $3 |
		awk -F': ' '/^searched:/ { split($2, a, " "); print a[1]; exit }')
	measure 5 search "$search" >"$b/result" || exit 1
	t=$(get search)
	printf '   %-42s %s   %s tried, %s fit  (target < 1000 ms)\n' "$1 on $2 GPUs, B = $3" \
		"$(ms "$t")" "$tried" "$((rows - 1))"
done

# ---- 6. a multi-gigabyte profiler trace (bench/trace.sh) ----
sh bench/trace.sh
