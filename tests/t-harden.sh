#!/bin/sh
# Output under hostile conditions: a file size limit (the disk filling up
# under -o), closed standard descriptors, an unwritable directory, fatal
# signals in the middle of a long sweep, two runs writing the same file.
# In every case the target is either the complete new output or what was
# there before, and no temporary stays behind.  (tests/t-output.sh covers
# the plain cases: /dev/full, a missing directory, SIGTERM after 1 s.)
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
d=$top/tests/tmp/t-harden
rm -rf "$d" && mkdir -p "$d" || exit 1
cd "$d" || exit 1
n=0

check() { # description, then a command that succeeds when the check holds
	n=$((n + 1))
	desc=$1
	shift
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fi
}
skip() { n=$((n + 1)); echo "ok $n # skip: $*"; }
# (any name holding "commtime-", hidden or not, by the shell's globs)
no_temporary() {
	for f in *commtime-* .*commtime-*; do [ -e "$f" ] && return 1; done
	return 0
}
is_old() { [ "$(cat "$1")" = old ]; }
same() { cmp -s "$1" "$2"; }

# A sweep that runs for minutes (99 999 rank counts x 2 085 sizes x 2),
# to be killed; and one of 14 MB (208 000 rows) for write errors, which
# stop the writing but not the loop that makes the rows.
long_sweep="--format csv --ranks 2:100000:+1 --sizes 1:1G:x1.01"
mid_sweep="--format csv --ranks 2:2000:+1 --sizes 1:1G:x1.5"

"$COMMTIME" --format csv >want.csv || exit 1
"$COMMTIME" --format csv --ranks 2:300:+1 --sizes 1:1G:x1.5 >want-big.csv || exit 1

# ---- the disk fills up under -o ----
# A file size limit makes write() fail with EFBIG (when SIGXFSZ is
# ignored), as a full disk makes it fail with ENOSPC.
echo old >limit.csv
(ulimit -f 64 && trap '' XFSZ && exec "$COMMTIME" $mid_sweep -o limit.csv) 2>err
st=$?
check "-o past the file size limit exits 1" [ "$st" = 1 ]
check "-o past the file size limit says why" [ "$(cat err)" = \
	"commtime: error: cannot write 'limit.csv': File too large" ]
check "-o past the file size limit keeps the old file" is_old limit.csv
check "-o past the file size limit leaves no temporary" no_temporary
# With SIGXFSZ at its default the kernel ends the process.
echo old >limit.csv
# (the shell's own "File size limit exceeded" goes to /dev/null too)
st=$({ (ulimit -f 64 && exec "$COMMTIME" $mid_sweep -o limit.csv); echo $?; } 2>/dev/null)
check "SIGXFSZ ends the run" [ "$st" -gt 128 ]
check "SIGXFSZ keeps the old file" is_old limit.csv
check "SIGXFSZ leaves no temporary" no_temporary

# ---- stdout full or gone in the middle of a long sweep ----
if [ "$(id -u)" = 0 ] && mknod fulldev c 1 7 2>/dev/null; then
	"$COMMTIME" $mid_sweep >fulldev 2>err
	st=$?
	check "a sweep into a full device exits 1" [ "$st" = 1 ]
	check "a sweep into a full device says why" [ "$(cat err)" = \
		"commtime: error: cannot write standard output: No space left on device" ]
	rm -f fulldev
else
	skip "a private full device needs root and mknod"
fi
# A reader that goes away: with SIGPIPE ignored the write error ends the
# run with one line on stderr.
(trap '' PIPE && exec "$COMMTIME" $mid_sweep 2>err) | head -1 >head.out
check "a closed pipe (SIGPIPE ignored) says why" [ "$(cat err)" = \
	"commtime: error: cannot write standard output: Broken pipe" ]
check "the reader got the header" [ "$(cat head.out)" = \
	"ranks,size_B,algo,time_s,algbw_Bps,busbw_Bps" ]

# ---- closed standard descriptors ----
"$COMMTIME" >&- 2>err
check "a closed stdout is a write error" [ $? = 1 ]
check "a closed stdout says so" [ "$(cat err)" = \
	"commtime: error: cannot write standard output: Bad file descriptor" ]
"$COMMTIME" --format csv -o closed1.csv >&-
check "-o with stdout closed exits 0" [ $? = 0 ]
check "-o with stdout closed writes the whole file" same want.csv closed1.csv
"$COMMTIME" --format csv -o closed2.csv <&- >&- 2>&-
check "-o with stdin, stdout and stderr closed exits 0" [ $? = 0 ]
check "-o with stdin, stdout and stderr closed writes the whole file" same want.csv closed2.csv
# A warning or error must not land in the output file, whichever
# descriptor the temporary gets.
"$COMMTIME" --format csv --ranks 2:300:+1 --sizes 1:1G:x1.5 -o closed3.csv 2>&-
check "-o with stderr closed writes exactly the output" same want-big.csv closed3.csv
check "closed descriptors leave no temporary" no_temporary

# ---- a directory nobody may write ----
if [ "$(id -u)" != 0 ]; then
	mkdir ro && chmod 555 ro
	"$COMMTIME" --format csv -o ro/out.csv 2>err
	check "-o in a read-only directory exits 1" [ $? = 1 ]
	check "-o in a read-only directory says why" [ "$(cat err)" = \
		"commtime: error: cannot create 'ro/out.csv': Permission denied" ]
	check "-o in a read-only directory leaves nothing" [ -z "$(ls -A ro)" ]
	chmod 755 ro
elif [ -d /proc/self ]; then
	# root may write anywhere but in /proc
	"$COMMTIME" --format csv -o /proc/commtime-out.csv 2>err
	check "-o in /proc exits 1" [ $? = 1 ]
	check "-o in /proc says it cannot create the file" \
		grep -q "^commtime: error: cannot create '/proc/commtime-out.csv': " err
else
	skip "running as root without /proc"
fi

# ---- fatal signals in the middle of a long sweep ----
# Background jobs of a non-interactive shell ignore SIGINT and SIGQUIT,
# and a suite started under nohup ignores SIGHUP (commtime rightly keeps
# a signal ignored that it inherits ignored); env --default-signal
# (coreutils 8.31) gives them back their default.
if env --default-signal=INT true 2>/dev/null; then
	run_bg() { env --default-signal=INT,QUIT,HUP "$COMMTIME" "$@" >/dev/null 2>&1 & }
	sigs="TERM INT HUP QUIT ALRM USR1 XCPU"
else
	run_bg() { "$COMMTIME" "$@" >/dev/null 2>&1 & }
	sigs="TERM HUP ALRM USR1 XCPU"
fi
# The sweeps run side by side, each on a file of its own: one per signal
# into sig-SIG.csv over an old file, one into new.csv where there is none,
# one into kill.csv ended by SIGKILL; all signalled after the same 0.2 s.
pids=
for sig in $sigs; do
	echo old >"sig-$sig.csv"
	run_bg $long_sweep -o "sig-$sig.csv"
	pids="$pids $sig:$!"
done
rm -f new.csv
run_bg $long_sweep -o new.csv
pnew=$!
echo old >kill.csv
run_bg $long_sweep -o kill.csv
pkill=$!
sleep 0.2
for p in $pids; do
	sig=${p%:*}
	mid=$(cat "sig-$sig.csv")
	eval "mid_$sig=\$mid"
	kill -s "$sig" "${p#*:}" 2>/dev/null
done
kill -s TERM "$pnew" 2>/dev/null
kill -s KILL "$pkill" 2>/dev/null
for p in $pids; do
	wait "${p#*:}" 2>/dev/null
	eval "st_${p%:*}=\$?"
	kill -s KILL "${p#*:}" 2>/dev/null
done
wait "$pnew" 2>/dev/null
wait "$pkill" 2>/dev/null
# SIGKILL cannot be caught: its temporary may stay (removed before the
# checks below look for any), the target never holds part of the output.
check "SIGKILL leaves the old file whole" is_old kill.csv
rm -f .kill.csv.commtime-*
for sig in $sigs; do
	eval "st=\$st_$sig mid=\$mid_$sig"
	check "SIG$sig after 0.2 s ends the sweep by the signal" [ "$st" -gt 128 ]
	check "SIG$sig: the old file stays whole during the run and after" \
		[ "$mid" = old ] && is_old "sig-$sig.csv"
	check "SIG$sig leaves no temporary" no_temporary
done
# Without an old file there is no file afterwards either.
check "SIGTERM before the end creates no file" [ ! -e new.csv ]
check "and no temporary" no_temporary

# ---- two runs writing the same file ----
"$COMMTIME" --format csv --ranks 2:3000:+1 --sizes 1:1G:x2 >want-a.csv
"$COMMTIME" --format csv --ranks 2:2000:+1 --sizes 1:1G:x3 >want-b.csv
"$COMMTIME" --format csv --ranks 2:3000:+1 --sizes 1:1G:x2 -o both.csv &
pa=$!
"$COMMTIME" --format csv --ranks 2:2000:+1 --sizes 1:1G:x3 -o both.csv &
pb=$!
wait "$pa"
sa=$?
wait "$pb"
sb=$?
check "two runs writing one file both succeed" [ "$sa" = 0 ] && [ "$sb" = 0 ]
check "the file is one run's output, whole" eval 'same want-a.csv both.csv || same want-b.csv both.csv'
check "two runs leave no temporary" no_temporary

cd "$top" && rm -rf "$d"
