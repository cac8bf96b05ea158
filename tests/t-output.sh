#!/bin/sh
# Output files: -o replaces its file atomically and leaves nothing behind
# on failure; write errors are reported; CSV and JSON are well formed.
# Uses the default command (allreduce) as the writer.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-output
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0

leftovers() { ls -A "$d" | grep 'commtime-' ; }
no_leftovers() { [ -z "$(leftovers)" ]; }

# Until the default command writes a table there is nothing to test.
if ! "$COMMTIME" --format csv >/dev/null 2>&1; then
	echo "ok 1 # skip: the default command does not write output yet"
	exit 0
fi

# -o writes the same bytes as stdout, and no temporary stays behind.
"$COMMTIME" --format csv >"$d/stdout.csv"
"$COMMTIME" --format csv -o "$d/out.csv"
check "-o exits 0" [ $? = 0 ]
check "-o FILE holds what stdout gets" cmp -s "$d/stdout.csv" "$d/out.csv"
check "-o leaves no temporary file" no_leftovers
check "CSV header has the fixed columns" \
	[ "$(head -1 "$d/out.csv")" = "ranks,size_B,algo,time_s,algbw_Bps,busbw_Bps" ]
"$COMMTIME" --format csv -o - >"$d/dash.csv"
check "-o - is stdout" cmp -s "$d/stdout.csv" "$d/dash.csv"

# Every CSV line has as many fields as the header.
fields=$(awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { print bad ? "bad" : "good" }' "$d/out.csv")
check "every CSV row has the header's field count" [ "$fields" = good ]

# An existing file is replaced, keeping its mode.
echo old >"$d/keep.csv"
chmod 640 "$d/keep.csv"
"$COMMTIME" --format csv -o "$d/keep.csv"
check "-o replaces an existing file" cmp -s "$d/stdout.csv" "$d/keep.csv"
check "the replaced file keeps its mode" [ "$(ls -l "$d/keep.csv" | cut -c1-10)" = "-rw-r-----" ]

# A value that does not parse: exit 2, the old file intact, nothing left.
echo old >"$d/keep2.csv"
"$COMMTIME" --format csv --alpha 5X -o "$d/keep2.csv" 2>"$d/err"
st=$?
check "a bad value exits 2" [ "$st" = 2 ]
check "a bad value leaves the old file" [ "$(cat "$d/keep2.csv")" = old ]
check "a bad value leaves no temporary" no_leftovers

# A missing directory.
"$COMMTIME" --format csv -o "$d/missing/out.csv" 2>"$d/err"
st=$?
check "-o in a missing directory exits 1" [ "$st" = 1 ]
check "-o in a missing directory says why" [ "$(cat "$d/err")" = \
	"commtime: error: cannot create '$d/missing/out.csv': No such file or directory" ]

# A directory as the output.
"$COMMTIME" -o "$d" 2>"$d/err"
check "-o DIRECTORY exits 1" [ $? = 1 ]
check "-o DIRECTORY says why" [ "$(cat "$d/err")" = "commtime: error: cannot create '$d': Is a directory" ]

# Write errors, on a full and a null device made here with mknod: the
# machine's own /dev/full and /dev/null are never a path commtime is given.
rm -f "$d/full" "$d/null"
if [ "$(id -u)" = 0 ] && mknod "$d/full" c 1 7 2>/dev/null && mknod "$d/null" c 1 3 2>/dev/null; then
	"$COMMTIME" -o "$d/full" 2>"$d/err"
	check "-o a full device exits 1" [ $? = 1 ]
	check "-o a full device says why" [ "$(cat "$d/err")" = \
		"commtime: error: cannot write '$d/full': No space left on device" ]
	check "-o a full device leaves it a device" [ -c "$d/full" ]
	"$COMMTIME" >"$d/full" 2>"$d/err"
	check "stdout to a full device exits 1" [ $? = 1 ]
	check "stdout to a full device says so" grep -q 'cannot write standard output' "$d/err"
	"$COMMTIME" -o "$d/null"
	check "-o a null device works" [ $? = 0 ]
	check "-o a null device leaves it a device" [ -c "$d/null" ]
	rm -f "$d/full" "$d/null"
else
	ok "# skip: private full and null devices need root and mknod"
fi

# JSON parses, and the CSV reads back with Python's csv module.
# (a pyenv shim for python3 takes a second a call: the system's, if any)
py=$(command -v /usr/bin/python3 || command -v python3)
if [ -n "$py" ]; then
	"$COMMTIME" --format json -o "$d/out.json"
	check "JSON output parses" "$py" -c 'import json, sys; json.load(open(sys.argv[1]))' "$d/out.json"
	check "CSV output reads back" "$py" -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows)
for r in rows[1:]:
    float(r[rows[0].index("time_s")])
' "$d/out.csv"
fi

# Killed in the middle of a long sweep: no temporary, the old file intact.
echo old >"$d/big.csv"
"$COMMTIME" --format csv --ranks 2:4096:+1 --sizes 1:1e6:+1 -o "$d/big.csv" \
	>/dev/null 2>&1 &
pid=$!
sleep 1
writing=$(leftovers)
if kill -TERM "$pid" 2>/dev/null; then
	{ wait "$pid"; } 2>/dev/null
	check "a temporary file exists while writing" [ -n "$writing" ]
	check "SIGTERM leaves the old file" [ "$(cat "$d/big.csv")" = old ]
	check "SIGTERM leaves no temporary" no_leftovers
else
	{ wait "$pid"; } 2>/dev/null
	echo "ok $((n + 1)) # skip: the sweep ended before the signal"
	n=$((n + 1))
fi

rm -rf "$d"
