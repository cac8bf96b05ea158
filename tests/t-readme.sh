#!/bin/sh
# The README's examples are real: every indented block that starts with
# "$ commtime ..." and shows output is run, and its output must match.
# Blocks that elide output with "..." and blocks without output are skipped.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
d=$top/tests/tmp/t-readme
rm -rf "$d" && mkdir -p "$d" || exit 1
cd "$top" || exit 1
LC_ALL=C
export LC_ALL
unset COMMTIME_PRESETS
awk -v dir="$d" '
	function flush() {
		if (cmd != "" && nout > 0 && !elided) {
			n++
			print cmd > (dir "/" n ".cmd"); close(dir "/" n ".cmd")
			printf "%s", out > (dir "/" n ".out"); close(dir "/" n ".out")
		}
		cmd = ""; out = ""; nout = 0; elided = 0; cont = 0
	}
	/^    \$ commtime/ { flush(); line = substr($0, 7); cont = (line ~ /\\$/)
		sub(/\\$/, "", line); cmd = line; next }
	cont && /^    / { line = substr($0, 5); sub(/^ +/, "", line); cont = (line ~ /\\$/)
		sub(/\\$/, "", line); cmd = cmd " " line; next }
	cmd != "" && /^    / { l = substr($0, 5); if (l ~ /^\.\.\.$|^    \.\.\./) elided = 1
		out = out l "\n"; nout++; next }
	cmd != "" && /^$/ { out = out "\n"; next }
	{ flush() }
	END { flush() }
' README.md
n=0
for c in "$d"/*.cmd; do
	[ -e "$c" ] || { echo "ok 1 # skip: no examples"; exit 0; }
	n=$((n + 1))
	e=${c%.cmd}
	# trailing blank lines of a block belong to the prose, not the output
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$e.out" >"$e.want"
	args=$(sed 's/^commtime *//' "$c")
	eval "set -- $args"
	"$COMMTIME" "$@" >"$e.got" 2>&1
	if diff -u "$e.want" "$e.got" >"$e.diff"; then
		echo "ok $n - README: $(cat "$c")"
	else
		echo "not ok $n - README: $(cat "$c")"
		head -20 "$e.diff"
	fi
done
