#!/bin/sh
# commtime-probe end to end: built with mpicc, run on 2 local ranks for a
# short sweep, its table read back by fit.  Skipped, with a message, when
# MPI (mpicc and mpirun) is not installed.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=$top/tests/tmp/t-probe
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }

# make probe-run passes Open MPI's --allow-run-as-root exactly when run as root
# (the README's probe line; checked without MPI, from the commands make would run)
line=$(cd "$top" && make -n --no-print-directory probe-run 2>/dev/null | tr -d '\\\n')
if printf '%s\n' "$line" | grep -q '"$(id -u)" = 0 ] && root=--allow-run-as-root; *mpirun $root '; then
	ok "make probe-run adds --allow-run-as-root when run as root"
else notok "make probe-run adds --allow-run-as-root when run as root: $line"; fi

if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
	echo "ok $((n + 1)) - # skip: no MPI (mpicc, mpirun); 'make probe' installs Open MPI"
	exit 0
fi
cd "$top" || exit 1
if make --no-print-directory commtime-probe >"$d/build" 2>&1; then ok "commtime-probe builds"
else notok "commtime-probe builds"; cat "$d/build"; exit 0; fi

# Root in CI: Open MPI refuses root without --allow-run-as-root; two ranks
# may be more than the cores it counts: --oversubscribe.
run() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 ./commtime-probe "$@"; }

if run -e 64K -w 2 -n 5 >"$d/ar.txt" 2>"$d/ar.err"; then ok "a short all-reduce sweep runs"
else notok "a short all-reduce sweep runs"; cat "$d/ar.err"; fi
if [ "$(grep -c '^ *[0-9]' "$d/ar.txt")" = 14 ]; then ok "14 sizes, 8 B to 64 KiB"
else notok "14 sizes, 8 B to 64 KiB"; cat "$d/ar.txt"; fi
if [ ! -s "$d/ar.err" ]; then ok "nothing on stderr when it is not a terminal"
else notok "nothing on stderr when it is not a terminal"; cat "$d/ar.err"; fi
if "$COMMTIME" fit "$d/ar.txt" --regimes 1 >"$d/fit.out" 2>&1 &&
   grep -q '^ranks: 2 (from the log' "$d/fit.out" && grep -q '^collective: all_reduce' "$d/fit.out"
then ok "fit reads its table: all_reduce on 2 ranks"
else notok "fit reads its table: all_reduce on 2 ranks"; cat "$d/fit.out"; fi

if run --op all_gather,alltoall,sendrecv,reduce_scatter -e 4K -w 1 -n 3 -o "$d/p-" \
	>"$d/multi.out" 2>"$d/multi.err"; then ok "several collectives, one file each"
else notok "several collectives, one file each"; cat "$d/multi.err"; fi
for op in all_gather alltoall sendrecv reduce_scatter; do
	if "$COMMTIME" fit "$d/p-${op}_perf.txt" --regimes 1 >"$d/fit-$op.out" 2>&1 &&
	   grep -q "^collective: $op" "$d/fit-$op.out"
	then ok "fit reads the $op table"
	else notok "fit reads the $op table"; cat "$d/fit-$op.out"; fi
done
run --op bogus >"$d/bad.out" 2>"$d/bad.err"
if [ $? = 2 ] && grep -q "unknown collective" "$d/bad.err"; then ok "an unknown --op is a usage error"
else notok "an unknown --op is a usage error"; cat "$d/bad.err"; fi

# Usage errors quote what was given, never an empty value (each rank
# parses the options before it looks for others: one process, as a
# singleton MPI run, says the same).
./commtime-probe -b 64K -e 8 >"$d/be.out" 2>"$d/be.err"
if [ $? = 2 ] && grep -q "^commtime-probe: error: -b 64K is larger than -e 8 (the largest size)\$" "$d/be.err"
then ok "-b above -e names both"
else notok "-b above -e names both"; cat "$d/be.err"; fi
./commtime-probe --op all_reduce,all_gather >"$d/two.out" 2>"$d/two.err"
if [ $? = 2 ] && grep -q "^commtime-probe: error: several collectives need -o PREFIX (one file each)\$" "$d/two.err"
then ok "two collectives without -o: the message quotes nothing empty"
else notok "two collectives without -o: the message quotes nothing empty"; cat "$d/two.err"; fi
if ! grep -q "''" "$d/be.err" "$d/two.err"; then ok "no usage error quotes an empty value"
else notok "no usage error quotes an empty value"; fi

# Writes are checked: a table that cannot be written ends the run with
# status 1 on every rank (a private full device, never /dev/full itself).
if [ "$(id -u)" = 0 ] && mknod "$d/fullall_reduce_perf.txt" c 1 7 2>/dev/null; then
	run -e 4K -w 1 -n 2 -o "$d/full" >"$d/full.out" 2>"$d/full.err"
	st=$?
	if [ $st = 1 ] && grep -q "cannot write '$d/fullall_reduce_perf.txt': No space left on device" "$d/full.err"
	then ok "a table written to a full device exits 1 and says why"
	else notok "a table written to a full device exits 1 and says why (status $st)"; cat "$d/full.err"; fi
	if [ -c "$d/fullall_reduce_perf.txt" ]; then ok "the device stays a device"
	else notok "the device stays a device"; fi
else
	ok "# skip: a private full device needs root and mknod"
fi
# A full file system: the old table stays, no temporary is left.
mkdir -p "$d/small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=16k tmpfs "$d/small" 2>/dev/null; then
	echo old >"$d/small/pall_reduce_perf.txt"
	dd if=/dev/zero of="$d/small/fill" bs=1k count=64 2>/dev/null
	run -e 4K -w 1 -n 2 -o "$d/small/p" >"$d/small.out" 2>"$d/small.err"
	st=$?
	if [ $st = 1 ] && grep -q "No space left on device" "$d/small.err"; then ok "a full disk under -o exits 1"
	else notok "a full disk under -o exits 1 (status $st)"; cat "$d/small.err"; fi
	if [ "$(cat "$d/small/pall_reduce_perf.txt")" = old ] &&
	   [ -z "$(ls "$d/small" | grep commtime-probe-)" ]
	then ok "a full disk keeps the old table and leaves no temporary"
	else notok "a full disk keeps the old table and leaves no temporary"; ls -la "$d/small"; fi
	umount "$d/small"
else
	ok "# skip: a full file system needs root and a tmpfs mount"
fi
