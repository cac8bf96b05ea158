#!/bin/sh
# Writes a100-tuning-interleaved.txt: a100-x8-nvswitch.txt as a run with
# NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING would print it.  NCCL writes its
# lines to the stdout nccl-tests prints its rows to, and nccl-tests prints
# a row in three pieces (size columns; out-of-place results after their
# calls; in-place results after theirs; src/common.cu), so NCCL's lines
# split each row, the first of them glued to a piece.  Two calls a piece
# (a real run makes iters + 1), in NCCL 2.24's form (enqueue.cc):
#   "modal:1138:1138 [0] NCCL INFO AllReduce: 8 Bytes -> Algo Ring proto LL channel{Lo..Hi}={0..1}"
# The choices are set here, not NCCL's record: Ring/LL to 256 KiB,
# Ring/LL128 from 512 KiB to 8 MiB, Ring/Simple from 16 MiB, and at 1 MiB
# the second in-place call Tree/LL128 (one size chosen two ways).
# Run from this directory: sh make-interleaved.sh
in=a100-x8-nvswitch.txt
out=a100-tuning-interleaved.txt
awk '
function proto(s) { return s <= 262144 ? "LL" : s <= 8388608 ? "LL128" : "Simple" }
function tline(s, a, p) {
	return sprintf("modal:1138:1138 [0] NCCL INFO AllReduce: %d Bytes -> Algo %s proto %s channel{Lo..Hi}={0..%d}", s, a, p, s < 65536 ? 1 : 15)
}
/^# edits:/ {
	print "# edits: made by tests/data/nccl/make-interleaved.sh: NCCL TUNING lines inserted as NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING prints them, splitting every row in three; the choices are set by the script, not NCCL'"'"'s record"
	next
}
/^ *[0-9]+ +[0-9]+ / && match($0, /^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+/) {
	a = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
	match(rest, /^ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+/)
	b = substr(rest, 1, RLENGTH); c = substr(rest, RLENGTH + 1)
	s = $1; p = proto(s)
	print a tline(s, "Ring", p)
	print tline(s, "Ring", p)
	print b tline(s, "Ring", p)
	print tline(s, s == 1048576 ? "Tree" : "Ring", p)
	print c
	next
}
{ print }
' "$in" >"$out"
