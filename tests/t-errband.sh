#!/bin/sh
# The stated error of NCCL's model: src/errband_table.c is what
# bench/errband-gen draws from the rows bench/accuracy.sh writes now, so a
# change of the model or of a judged log that moves the band fails here
# until `make errband` is run and its diff reviewed.  And the rows are
# what the band stands on: every judged log, one row per size.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-errband
rm -rf "$d" && mkdir -p "$d" || exit 1

ACCURACY_TMP=$d COMMTIME=$COMMTIME sh "$top/bench/accuracy.sh" >"$d/accuracy.txt" 2>"$d/accuracy.err"
check "accuracy.sh runs every judged log" [ ! -s "$d/accuracy.err" ]
check "no judged log failed to run" sh -c "! grep -q 'failed' '$d/accuracy.txt'"
logs=$(awk '{ print $1 }' "$d/rows" | sort -u | wc -l | tr -d ' ')
check "the rows come from the 15 judged logs (12 fixed, 3 extended), not the untuned one" \
	[ "$logs" = 15 ]
check "the untuned fabric gives no row" sh -c "! grep -q '^h100-x16-ib-untuned ' '$d/rows'"
check "every row is LOG NODES THREADED SIZE MEASURED PREDICTED with a node count" \
	sh -c "awk 'NF != 6 || \$2 < 1 || (\$3 != 0 && \$3 != 1) { exit 1 }' '$d/rows'"
check "the one-node A100 log (-g 8) is marked threaded, the 2-node p4d log is not" \
	sh -c "grep -q '^a100-x8-nvswitch 1 1 ' '$d/rows' && grep -q '^a100-x16-p4d-efa 2 0 ' '$d/rows'"
if "$top/bench/errband-gen" "$d/rows" >"$d/table.c" 2>"$d/gen.err"; then
	if diff -u "$top/src/errband_table.c" "$d/table.c" >"$d/diff"; then
		ok "src/errband_table.c is what the logs give now"
	else
		notok "src/errband_table.c is stale: run make errband and review"
		head -30 "$d/diff"
	fi
else
	notok "errband-gen failed: $(head -1 "$d/gen.err")"
fi
printf 'x 1 0 4096 1e-5\n' >"$d/bad-rows"
check "errband-gen refuses a row with five fields, naming its line" \
	sh -c "! '$top/bench/errband-gen' '$d/bad-rows' 2>'$d/bad.err' && grep -q ':1: ' '$d/bad.err'"
: >"$d/empty-rows"
check "errband-gen refuses no rows" sh -c "! '$top/bench/errband-gen' '$d/empty-rows' 2>/dev/null"
