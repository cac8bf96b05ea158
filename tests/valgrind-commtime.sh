#!/bin/sh
# commtime under valgrind, for `make valgrind` (COMMTIME=tests/valgrind-commtime.sh
# sh tests/run.sh).  Each run writes its report to tests/tmp/valgrind/PID.log;
# the make target fails when any log is not empty, so an invalid access or a
# leak is caught even where the test expects commtime to fail anyway.
#
# The log is opened here, on descriptor 9, rather than by valgrind: with
# stdout closed (a test does `commtime >&-`) valgrind's own log file would
# take descriptor 1 and catch the program's output.
top=$(cd "$(dirname "$0")/.." && pwd)
logs=$top/tests/tmp/valgrind
mkdir -p "$logs" || exit 1
exec 9>"$logs/$$.log" || exit 1
exec valgrind --error-exitcode=1 --leak-check=full -q --log-fd=9 "$top/commtime" "$@"
