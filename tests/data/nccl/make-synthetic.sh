#!/bin/sh
# Writes the synthetic nccl-tests logs of this directory: times computed from
# the alpha-beta models of models/fit.md with known alpha and beta, printed
# in the layouts of real nccl-tests builds, so the fit must give those
# alpha and beta back.  Run from this directory: sh make-synthetic.sh
#
#   gen OP RANKS ALPHA_us BETA_GBps LAYOUT EXTRA
#   LAYOUT: current (size count type redop root ... #wrong), old (no root
#   column, float error column), noheader (rows only), extracol (current
#   plus a trailing column)
gen() {
	awk -v op="$1" -v n="$2" -v a="$3" -v b="$4" -v layout="$5" 'BEGIN {
	printf "# commtime test data, synthetic: %s_perf on %d ranks, alpha %g us, beta %g GB/s, layout %s\n", op, n, a, b, layout
	printf "# made by tests/data/nccl/make-synthetic.sh; times = model of models/fit.md, printed as nccl-tests does\n"
	if (layout != "old") printf "# nccl-tests version 2.17.9 nccl-headers=22903 nccl-library=22903\n"
	printf "# Collective test starting: %s_perf\n", op
	printf "# nThread 1 nGpus %d minBytes 1024 maxBytes 134217728 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n", n
	for (r = 0; r < n; r++) printf "#  Rank %2d Group  0 Pid   4242 on      node1 device %2d [0000:%02x:00] NVIDIA H100 80GB HBM3\n", r, r, 16 + r
	printf "#\n"
	if (layout == "old") {
		printf "#       size         count      type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
		printf "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
	} else if (layout != "noheader") {
		printf "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong%s\n", layout == "extracol" ? "  cpu(us)" : ""
		printf "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n"
	}
	for (S = 1024; S <= 134217728; S *= 2) {
		if (op == "all_gather" || op == "alltoall" || op == "reduce_scatter") { t = (n - 1) * (a + S / (n * b * 1e3)); f = (n - 1) / n }
		else if (op == "broadcast" || op == "reduce") { t = (n - 1) * a + S / (b * 1e3); f = 1 }
		else { t = 2 * (n - 1) * (a + S / (n * b * 1e3)); f = 2 * (n - 1) / n }
		cnt = (op == "all_gather" || op == "reduce_scatter") ? S / 4 / n : S / 4
		algbw = S / t / 1e3
		redop = (op == "all_gather" || op == "alltoall" || op == "broadcast") ? "none" : "sum"
		root = (op == "broadcast" || op == "reduce") ? 0 : -1
		ts = t >= 10000 ? sprintf("%.1f", t) : sprintf("%.2f", t)
		if (layout == "old")
			printf "%12d  %12d  %8s  %6s  %7s  %6.2f  %6.2f  %5s  %7s  %6.2f  %6.2f  %5s\n", S, cnt, "float", redop, ts, algbw, algbw * f, "0e+00", ts, algbw, algbw * f, "0e+00"
		else
			printf "%12d  %12d  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %6d  %7s  %6.2f  %6.2f  %6d%s\n", S, cnt, "float", redop, root, ts, algbw, algbw * f, 0, ts, algbw, algbw * f, 0, layout == "extracol" ? "     12.5" : ""
	}
	printf "# Out of bounds values : 0 OK\n#\n# Collective test concluded: %s_perf\n#\n", op
	}'
}
gen all_gather 4 2 16 current > ag-x4-synthetic.txt
gen reduce_scatter 8 5 100 old > rs-x8-old-synthetic.txt
gen alltoall 8 3 50 extracol > a2a-x8-extracol-synthetic.txt
gen broadcast 4 4 20 noheader > bcast-x4-noheader-synthetic.txt
