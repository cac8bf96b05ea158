#!/bin/sh
# What a newcomer trips over, tried as one would: each check is one of the
# surprises of a first session with the tool, numbered as in the list the
# fixes came from.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C; export LC_ALL
unset COMMTIME_PRESETS
d=$top/tests/tmp/t-newcomer
rm -rf "$d" && mkdir -p "$d/elsewhere" || exit 1

n=0
check() { # description, then a command that succeeds when the check holds
	n=$((n + 1))
	desc=$1; shift
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fi
}
run() { # the command; stdout to $d/out, stderr to $d/err, status in $st
	"$@" >"$d/out" 2>"$d/err" </dev/null
	st=$?
}
has() { grep -q -- "$1" "$d/${2:-out}"; }
lines_le() { [ "$(wc -l <"$d/${2:-err}")" -le "$1" ]; }

# 1. a binary that was never installed finds its presets from anywhere
cd "$d/elsewhere" || exit 1
run "$COMMTIME" --preset h100-nvlink4 --ranks 8 --sizes 1G
check "1: --preset works from another directory" test "$st" = 0
run "$COMMTIME" presets
check "1: presets lists the shipped ones from another directory" has h100-nvlink4
# ...and a binary with no presets anywhere says so and fails
case $COMMTIME in */valgrind-*) ;; *)
	cp "$COMMTIME" "$d/elsewhere/lone" 2>/dev/null
	run "$d/elsewhere/lone" presets
	check "1: no presets at all is an error" test "$st" = 1
	check "1: ... that names the directories searched" has "no presets found; searched" err
esac
cd "$top" || exit 1

# 2. an unknown option: the message that matters, not the whole help
run "$COMMTIME" ddp --grad 1G --compute 1s --bogus
check "2: unknown option is exit 2" test "$st" = 2
check "2: ... in at most three lines" lines_le 3
check "2: ... naming the option" has "unknown option '--bogus'" err
run "$COMMTIME" ddp --grad 1G --compute 1s --ranks 8 --ranks 16
check "2: a repeated option is an error, not its last value" test "$st" = 2
