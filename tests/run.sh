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
# TEST_JOBS (default: the machine's cores) parts run at once; see "scheduling" below.
# TEST_TIMES=1 also lists the CPU and wall-clock time of each part.
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
LC_ALL=C; export LC_ALL
unset COMMTIME_PRESETS
COMMTIME=${COMMTIME:-$top/commtime}
export COMMTIME top
tmp=$top/tests/tmp
rm -rf "$tmp" && mkdir -p "$tmp"

# ---- the parts ----
#
# Each part below runs in a subshell of its own, writes its failures to
# stderr and its counts, "PASSED FAILED", to $tmp/NAME.count, and keeps
# its temporary files in $tmp/NAME.d, so parts can run side by side.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
notok() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*" >&2; }
counts() { echo "$pass $fail" >"$tmp/$1.count"; }

part_unit() {
	if out=$(tests/unit/run-unit 2>"$w/err"); then :; fi
	cat "$w/err" >&2
	up=$(printf '%s\n' "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
	uf=$(printf '%s\n' "$out" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
	if [ -z "$up" ]; then notok "unit tests did not run to the end"; else
		pass=$up fail=$uf; fi
}

# The names NAME of the files DIR2/NAME.out that differ from DIR1/NAME.out
# or have none there, each followed by a space, into $w/differ, from one
# "diff -rq" for all (a diff -u each only to show a failure).
differing() { # DIR1 DIR2
	diff -rq "$1" "$2" >"$w/diffq" 2>"$w/diffq.err"
	[ $? -le 1 ] || { notok "diff -rq $1 $2 failed: $(cat "$w/diffq.err")"; return 1; }
	: >"$w/differ"
	while IFS= read -r l; do
		case $l in
		"Files $1/"*".out and $2/"*" differ") l=${l#"Files $1/"}; printf '%s ' "${l%%.out and *}" ;;
		"Only in $2: "*.out) l=${l#"Only in $2: "}; printf '%s ' "${l%.out}" ;;
		esac
	done <"$w/diffq" >"$w/differ"
}

# Every command runs first, its output into $w/got/NAME.out; one diff
# then finds the outputs that differ; the verdicts follow in order.
part_golden() {
	mkdir -p "$w/got" "$w/errs" || return
	bad=
	for cmd in tests/golden/*.cmd; do
		[ -e "$cmd" ] || continue
		base=${cmd%.cmd} name=${cmd##*/} name=${name%.cmd}
		want=0
		[ -f "$base.status" ] && read -r want <"$base.status"
		args=
		IFS= read -r args <"$cmd" || :
		eval "set -- $args"
		"$COMMTIME" "$@" >"$w/got/$name.out" 2>"$w/errs/$name"
		st=$?
		[ "$st" = "$want" ] || bad="$bad $name:$st:$want "
	done
	differing tests/golden "$w/got" || return
	read -r differ <"$w/differ" || :
	for cmd in tests/golden/*.cmd; do
		[ -e "$cmd" ] || continue
		base=${cmd%.cmd} name=${cmd##*/} name=${name%.cmd}
		case $bad in
		*" $name:"*)
			st=${bad#*" $name:"} st=${st%% *} want=${st#*:} st=${st%%:*}
			notok "$cmd: exit status $st, want $want"; cat "$w/errs/$name" >&2 ;;
		*) case " $differ " in
			*" $name "*) notok "$cmd: output differs"
				diff -u "$base.out" "$w/got/$name.out" | head -40 >&2 ;;
			*) ok ;;
			esac ;;
		esac
	done
}

# One process per line: the line is split, the output checked and the
# temporary directory searched with the shell's own words, so the loop
# forks nothing but commtime itself (the part runs in a subshell of its
# own, so it changes into tests/tmp once, where the arguments' relative
# paths (../data/...) lead).  Each must leave no temporary file there.
part_bad() {
	cd "$tmp" || { notok "bad: cannot change into $tmp"; return; }
	for f in "$top"/tests/bad/*.txt; do
		[ -e "$f" ] || continue
		f=${f#"$top"/}
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
			eval "set -- $args"
			"$COMMTIME" "$@" </dev/null >"$w/out" 2>"$w/err"
			st=$?
			left=
			for g in "$tmp"/*commtime-* "$tmp"/.*commtime-* "$tmp"/bad-*; do
				[ -e "$g" ] && left=$g
			done
			e1= e2=
			{ IFS= read -r e1; IFS= read -r e2; } <"$w/err"
			if [ "$st" -gt 127 ]; then notok "$f:$n: crashed (status $st): $args"
			elif [ "$st" != "$want" ]; then notok "$f:$n: status $st, want $want: $args"; cat "$w/err" >&2
			elif [ ! -s "$w/err" ]; then notok "$f:$n: nothing on stderr: $args"
			elif [ -n "$msg" ] && { [ "$e1" != "$msg" ] || [ -n "$e2" ]; }; then
				notok "$f:$n: stderr '$(cat "$w/err")', want '$msg'"
			elif [ -n "$left" ]; then notok "$f:$n: left a file behind"
			else ok; fi
		done <"$top/$f"
	done
	cd "$top" || :
}

# The worked examples in models/*.md: one awk cuts every document's
# examples into $w/want/M.N.out (the output) and $w/cmd/M.N.cmd (the
# arguments), M the document's place in models/*.md, N the example's in
# the document; each runs into $w/got/M.N.out, and one diff compares.
part_models() {
	mkdir -p "$w/want" "$w/cmd" "$w/got" || return
	set -- models/*.md
	[ -e "$1" ] || return
	awk -v dir="$w" '
		FNR == 1 { m++; n = 0; inb = 0 }
		/^```console$/ { inb = 1; n++; f = m "." n; printf "" > (dir "/want/" f ".out"); next }
		inb && /^```$/ { inb = 0; close(dir "/want/" f ".out"); next }
		inb && /^\$ commtime/ && !cmdseen[f]++ { sub(/^\$ commtime ?/, ""); print > (dir "/cmd/" f ".cmd"); close(dir "/cmd/" f ".cmd"); next }
		inb { print >> (dir "/want/" f ".out") }
	' "$@"
	m=0
	for md in "$@"; do
		m=$((m + 1))
		for c in "$w/cmd/$m".*.cmd; do
			[ -e "$c" ] || continue
			e=${c##*/} e=${e%.cmd}
			args=
			IFS= read -r args <"$c" || :
			eval "set -- $args"
			"$COMMTIME" "$@" >"$w/got/$e.out" 2>"$w/err"
		done
	done
	differing "$w/want" "$w/got" || return
	read -r differ <"$w/differ" || :
	m=0
	for md in models/*.md; do
		m=$((m + 1))
		for c in "$w/cmd/$m".*.cmd; do
			[ -e "$c" ] || continue
			e=${c##*/} e=${e%.cmd}
			args=
			IFS= read -r args <"$c" || :
			case " $differ " in
			*" $e "*) notok "$md: example 'commtime $args' differs"
				diff -u "$w/want/$e.out" "$w/got/$e.out" | head -30 >&2 ;;
			*) ok ;;
			esac
		done
	done
}

# A shell test writes its own directory under tests/tmp and prints
# "ok ..." / "not ok ..." lines, read when all parts are done.
part_script() {
	sh "tests/$1.sh" >"$tmp/$1.out" 2>&1
	echo $? >"$tmp/$1.status"
}

# The CPU time of a part (its processes' user + system seconds, from the
# subshell's "times") goes to $tmp/NAME.times, and with TEST_TIMES=1 its
# start and end (date +%s.%N, two processes a part) to $tmp/NAME.wall;
# TEST_TIMES=1 lists both.
run_part() {
	[ -z "$TEST_TIMES" ] || date +%s.%N >"$tmp/$1.wall"
	case $1 in
	t-*) part_script "$1" ;;
	*) w=$tmp/$1.d && mkdir -p "$w" && "part_$1" 2>"$tmp/$1.err"; counts "$1" ;;
	esac
	times >"$tmp/$1.times"
	[ -z "$TEST_TIMES" ] || date +%s.%N >>"$tmp/$1.wall"
	progress "$1"
}

# One line as each part ends ("which suite it is in"): its name and counts.
progress() {
	case $1 in
	t-*) # its "ok" and "not ok" lines, counted once (by the shell's read
	     # and case, no process) into NAME.tally
	     pp=0 pf=0
	     while IFS= read -r l || [ -n "$l" ]; do
		case $l in ok*) pp=$((pp + 1)) ;; "not ok"*) pf=$((pf + 1)) ;; esac
	     done <"$tmp/$1.out"
	     echo "$pp $pf" >"$tmp/$1.tally"
	     ps=
	     [ -e "$tmp/$1.status" ] && read -r ps <"$tmp/$1.status"
	     [ "$ps" = 0 ] || [ "$pf" != 0 ] || pf=1 ;;
	*) read -r pp pf <"$tmp/$1.count" ;;
	esac
	if [ "$pf" = 0 ]; then st=ok; else st=FAIL; fi
	printf '  %-4s  %-18s %s passed, %s failed\n' "$st" "$1" "$pp" "$pf"
}

# ---- scheduling ----
#
# TEST_JOBS workers take the parts from one queue, longest first (the
# order of "slow" below, measured on two cores; scripts not named there
# follow in name order), so the last part to start is a short one and the
# workers end together.  A worker claims a part by creating the file
# $tmp/NAME.claim with the shell's noclobber (set -C: an exclusive create,
# no process; set only for that), which only one can do.
slow="t-figures t-hostile bad t-measfig t-readme unit t-install t-errband t-options t-trace
	t-first-steps t-completion t-output t-pipefig golden t-includes t-harden t-presets t-search
	t-stepfig models t-compare-system t-newcomer"
queue=
for p in $slow; do
	case $p in t-*) [ -e "tests/$p.sh" ] || continue ;; esac
	queue="$queue $p"
done
for t in tests/t-*.sh; do
	[ -e "$t" ] || continue
	b=${t##*/} b=${b%.sh}
	case " $queue " in *" $b "*) ;; *) queue="$queue $b" ;; esac
done
worker() {
	for p in $queue; do
		set -C
		true 2>/dev/null >"$tmp/$p.claim"
		claimed=$?
		set +C
		[ "$claimed" = 0 ] || continue
		(run_part "$p")
	done
}
jobs=${TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
pids=
k=1
while [ "$k" -lt "$jobs" ]; do
	worker &
	pids="$pids $!"
	k=$((k + 1))
done
worker
# shellcheck disable=SC2086
wait $pids

# ---- results ----
summary=
for p in unit golden bad models; do
	cat "$tmp/$p.err" >&2 2>/dev/null
	read -r p1 f1 <"$tmp/$p.count" 2>/dev/null || { p1=0 f1=1; echo "FAIL $p: did not run" >&2; }
	pass=$((pass + p1)); fail=$((fail + f1))
	summary="$summary$(printf '%-8s %s passed, %s failed' "$p:" "$p1" "$f1")
"
done
gp=$pass gf=$fail
for t in tests/t-*.sh; do
	[ -e "$t" ] || continue
	b=${t##*/} b=${b%.sh}
	st=missing p=0 f=0
	[ -e "$tmp/$b.status" ] && read -r st <"$tmp/$b.status"
	[ -e "$tmp/$b.tally" ] && read -r p f <"$tmp/$b.tally"
	pass=$((pass + p)); fail=$((fail + f))
	[ "$f" = 0 ] || grep '^not ok' "$tmp/$b.out" | sed "s|^|FAIL $t: |" >&2
	if [ "$st" != 0 ] && [ "$f" = 0 ]; then notok "$t: exit status $st"; tail -5 "$tmp/$b.out" >&2; fi
done
if [ -n "$TEST_TIMES" ]; then
	echo "CPU (user + system) and wall-clock seconds of each part:"
	for f in "$tmp"/*.times; do
		p=${f##*/} p=${p%.times}
		awk -v p="$p" 'NR == 2 { split($1, u, "m"); split($2, s, "m")
			c = u[1] * 60 + u[2] + s[1] * 60 + s[2] }
			FILENAME != ARGV[1] && FNR == 1 { t0 = $1 } FILENAME != ARGV[1] && FNR == 2 { w = $1 - t0 }
			END { printf "%6.2f s CPU %6.2f s wall  %s\n", c, w, p }' "$f" "$tmp/$p.wall"
	done | sort -rn
fi
printf '%s' "$summary"
echo "scripts: $((pass - gp)) passed, $((fail - gf)) failed"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
