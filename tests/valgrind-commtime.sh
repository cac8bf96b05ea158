#!/bin/sh
# commtime under valgrind, for `make valgrind` (COMMTIME=tests/valgrind-commtime.sh
# sh tests/run.sh).  Each run writes its report to tests/tmp/valgrind-PID.log;
# the make target fails when any log is not empty, so an invalid access or a
# leak is caught even where the test expects commtime to fail anyway.
#
# Only shell built-ins here: some tests run commtime with a PATH that holds
# nothing else (no gnuplot), so valgrind comes from $VALGRIND, set by make.
# The log is opened here, on descriptor 9, rather than by valgrind: with
# stdout closed (a test does `commtime >&-`) valgrind's own log file would
# take descriptor 1 and catch the program's output.
case $0 in
*/*) top=${0%/*}/.. ;;
*) top=.. ;;
esac
top=$(cd "$top" && pwd) || exit 1
# Under valgrind posix_spawnp cannot report a program missing from PATH
# (the child is forked, and its failed exec only exits 127), so the runs
# that test a missing gnuplot go without it.
if ! command -v gnuplot >/dev/null 2>&1; then
	exec "$top/commtime" "$@"
fi
exec 9>"$top/tests/tmp/valgrind-$$.log" || exit 1
exec "${VALGRIND:-valgrind}" --error-exitcode=1 --leak-check=full -q --log-fd=9 \
	"$top/commtime" "$@"
