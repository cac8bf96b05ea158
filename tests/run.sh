#!/bin/sh
# Runs every test of commtime and ends with "N passed, N failed".
#
#   unit      tests/unit/run-unit (C unit tests of the core)
#   golden    tests/golden/NNN-name.cmd: one command line (arguments after
#             "commtime", shell words); NNN-name.out: its exact stdout;
#             optional NNN-name.status: its exit status (default 0)
#   bad       tests/bad/*.txt: one invocation per line,
#             "STATUS | ARGS" or "STATUS | ARGS | EXACT STDERR LINE"
#   models    models/*.md: every ```console block is "$ commtime ARGS"
#             followed by its exact output
#   scripts   tests/t-*.sh: shell tests that print "ok ..." / "not ok ..."
#
# Everything runs from the top of the repository in a pinned environment.
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
LC_ALL=C; export LC_ALL
unset COMMTIME_PRESETS
COMMTIME=${COMMTIME:-$top/commtime}
export COMMTIME top
tmp=$top/tests/tmp
rm -rf "$tmp" && mkdir -p "$tmp"
pass=0
fail=0
ok() { pass=$((pass + 1)); }
notok() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*" >&2; }

# The shell tests run in two background streams while the unit, golden,
# bad-input and model tests run here: three streams on two cores.  Each
# script writes its own directory under tests/tmp; its output and exit
# status are read when all are done.
stream() { # stream N: every second script, from the Nth
	k=0
	for t in tests/t-*.sh; do
		[ -e "$t" ] || continue
		k=$((k + 1))
		[ $((k % 2)) = "$1" ] || continue
		b=$(basename "$t" .sh)
		sh "$t" >"$tmp/$b.out" 2>&1
		echo $? >"$tmp/$b.status"
	done
}
stream 0 &
s0=$!
stream 1 &
s1=$!

# unit
if out=$(tests/unit/run-unit 2>"$tmp/unit.err"); then :; fi
cat "$tmp/unit.err" >&2
up=$(printf '%s\n' "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
uf=$(printf '%s\n' "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$up" ]; then notok "unit tests did not run to the end"; else
	pass=$((pass + up)); fail=$((fail + uf)); fi
summary="unit:    $up passed, $uf failed"

# golden
gp=$pass gf=$fail
for cmd in tests/golden/*.cmd; do
	[ -e "$cmd" ] || continue
	base=${cmd%.cmd}
	want=0
	[ -f "$base.status" ] && want=$(cat "$base.status")
	eval "set -- $(cat "$cmd")"
	"$COMMTIME" "$@" >"$tmp/out" 2>"$tmp/err"
	st=$?
	if [ "$st" != "$want" ]; then
		notok "$cmd: exit status $st, want $want"; cat "$tmp/err" >&2
	elif ! diff -u "$base.out" "$tmp/out" >"$tmp/diff"; then
		notok "$cmd: output differs"; head -40 "$tmp/diff" >&2
	else ok; fi
done
summary="$summary
golden:  $((pass - gp)) passed, $((fail - gf)) failed"

# bad input
#
# One process per line: the line is split, the output checked and the
# temporary directory searched with the shell's own words, so the loop
# forks nothing but commtime itself.
gp=$pass gf=$fail
for f in tests/bad/*.txt; do
	[ -e "$f" ] || continue
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		case "$line" in ''|'#'*) continue ;; esac
		want=${line%%|*}
		want=${want%"${want##*[! ]}"}
		want=${want#"${want%%[! ]*}"}
		rest=${line#*|}
		args=${rest%%|*}
		case $rest in *'|'*) msg=${rest#*|}; msg=${msg# } ;; *) msg= ;; esac
		(cd "$tmp" && eval "set -- $args" && exec "$COMMTIME" "$@") \
			</dev/null >"$tmp/out" 2>"$tmp/err"
		st=$?
		left=
		for g in "$tmp"/*commtime-* "$tmp"/.*commtime-* "$tmp"/bad-*; do
			[ -e "$g" ] && left=$g
		done
		e1= e2=
		{ IFS= read -r e1; IFS= read -r e2; } <"$tmp/err"
		if [ "$st" -gt 127 ]; then notok "$f:$n: crashed (status $st): $args"
		elif [ "$st" != "$want" ]; then notok "$f:$n: status $st, want $want: $args"; cat "$tmp/err" >&2
		elif [ ! -s "$tmp/err" ]; then notok "$f:$n: nothing on stderr: $args"
		elif [ -n "$msg" ] && { [ "$e1" != "$msg" ] || [ -n "$e2" ]; }; then
			notok "$f:$n: stderr '$(cat "$tmp/err")', want '$msg'"
		elif [ -n "$left" ]; then notok "$f:$n: left a file behind"
		else ok; fi
	done <"$f"
done
summary="$summary
bad:     $((pass - gp)) passed, $((fail - gf)) failed"

# worked examples in models/*.md
gp=$pass gf=$fail
for md in models/*.md; do
	[ -e "$md" ] || continue
	awk -v dir="$tmp/ex" '
		BEGIN { n = 0; inb = 0 }
		/^```console$/ { inb = 1; n++; f = dir "." n; printf "" > (f ".out"); next }
		inb && /^```$/ { inb = 0; close(f ".out"); next }
		inb && /^\$ commtime/ && !cmdseen[n]++ { sub(/^\$ commtime ?/, ""); print > (f ".cmd"); close(f ".cmd"); next }
		inb { print >> (f ".out") }
	' "$md"
	for c in "$tmp"/ex.*.cmd; do
		[ -e "$c" ] || continue
		e=${c%.cmd}
		eval "set -- $(cat "$c")"
		"$COMMTIME" "$@" >"$tmp/out" 2>"$tmp/err"
		if ! diff -u "$e.out" "$tmp/out" >"$tmp/diff"; then
			notok "$md: example 'commtime $(cat "$c")' differs"; head -30 "$tmp/diff" >&2
		else ok; fi
	done
	rm -f "$tmp"/ex.*
done
summary="$summary
models:  $((pass - gp)) passed, $((fail - gf)) failed"

# shell tests
wait "$s0" "$s1"
gp=$pass gf=$fail
for t in tests/t-*.sh; do
	[ -e "$t" ] || continue
	b=$(basename "$t" .sh)
	st=$(cat "$tmp/$b.status" 2>/dev/null || echo missing)
	p=$(grep -c '^ok' "$tmp/$b.out")
	f=$(grep -c '^not ok' "$tmp/$b.out")
	pass=$((pass + p)); fail=$((fail + f))
	grep '^not ok' "$tmp/$b.out" | sed "s|^|FAIL $t: |" >&2
	if [ "$st" != 0 ] && [ "$f" = 0 ]; then notok "$t: exit status $st"; tail -5 "$tmp/$b.out" >&2; fi
done
printf '%b\n' "$summary"
echo "scripts: $((pass - gp)) passed, $((fail - gf)) failed"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
