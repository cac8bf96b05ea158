# Sourced by the shell tests (tests/t-*.sh) once $top is set: the binary
# under test, a pinned locale, and the helpers that print one "ok N - ..."
# or "not ok N - ..." line per check, counting in $n.
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C
export LC_ALL
n=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	desc=$1
	shift
	if "$@"; then ok "$desc"; else notok "$desc"; fi
}
