#!/bin/sh
# The held-out accuracy of the system models (make accuracy; not a test).
#
# Runs `commtime --system FILE compare LOG [--algo A] --format csv` over
# the real nccl-tests logs of tests/data/nccl/ with the systems written for
# them from public specifications (tests/data/nccl/systems/; the pairs are
# those of models/nccl-accuracy.md, "Accuracy", and tests/data/nccl/README.md), and
# prints for each log NCCL's choice and the bus bandwidth at the largest
# size, predicted against measured, and the median time error over its
# sizes; then the pooled median time error over every size of every log
# and how many logs are within +-15 % in bus bandwidth at the largest size.
# The untuned fabric is listed apart: it must be flagged low-busbw.
# A second table, "extended", does the same for the logs added after the
# fixed judge of twelve, with its own counts; last comes the pooled median
# over the sizes of both tables together.
# A third table, "AMD", the rccl-tests logs, drawn into the band like the
# others and counted apart.
# Last, "leave one machine out": nothing of NCCL's model is fitted to these
# logs (the systems are written from specifications, every constant is
# NCCL's or a cited measurement), so each log's busbw error and median time
# error are the same in sample and with its machine left out; what is drawn
# from the logs is the stated band (models/nccl-accuracy.md, "The stated error").
# For each log, the share of its sizes inside the band drawn from every log
# (in sample) and inside the band drawn again, margin and all, without the
# log's machine (tools/errband-gen --per-log; a cell left too thin falls
# back to its size class over any node count, as commtime's own lookup
# does), then the pooled figures, over all logs and by set (NVIDIA, AMD).
#
#   sh bench/accuracy.sh [GLOBAL OPTION...]   e.g. --model tiers
#
# The options are given to commtime before the command.  COMMTIME names
# the binary (default ./commtime).
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
COMMTIME=${COMMTIME:-$top/commtime}
ERRBAND_GEN=${ERRBAND_GEN:-$top/tools/errband-gen}
LC_ALL=C; export LC_ALL
data=tests/data/nccl
tmp=${ACCURACY_TMP:-$top/tests/tmp/accuracy}
mkdir -p "$tmp" || exit 1

# The fixed judge: these twelve pairs are the count models/nccl.md quotes.
# log                    system           options of compare: the NCCL_ALGO, NCCL_PROTO
# and NCCL version each log was run with, as its header says (none: not printed)
pairs='h100-x8-nvls            hgx-h100-ndr     -
h100-x16-ndr-xe9680     hgx-h100-ndr     --nccl-version=2.26.2
h100-x16-ndr-ring       hgx-h100-ndr     --algo=ring
h100-x32-ndr            hgx-h100-ndr     -
h100-x16-a3mega-tcpxo   gcp-a3-mega      --proto=simple --nccl-algo=ring,tree --nccl-version=2.21.5
h100-x16-oci-roce       oci-h100-roce    --nccl-version=2.21.5
a100-x16-p4d-efa        aws-p4d          --nccl-version=2.23.4
a100-x8-nvswitch        hgx-a100-1node   --nccl-version=2.29.3
l40s-x4-pcie-ring       l40s-x4          --algo=ring --nccl-version=2.29.2
l40s-x4-pcie-tree       l40s-x4          --algo=tree --nccl-version=2.29.2
rtx4090-x4-pcie-p2p     rtx4090-x4       -
a100-x8-polaris-slingshot polaris        --nccl-version=2.21.5'

# Extended: logs added after the fixed judge, counted apart (and pooled with
# it at the end).  The Kestrel and CoreWeave tables have no full banner, so
# their rank counts are given.  The CoreWeave runs used NCCL 2.26.2, older
# than the first NCCL the model prices Blackwell with (2.29): they are priced
# with the model's own version.
extended='a100-x16-sophia-hdr     sophia           --nccl-version=2.22.3
a100-x32-polaris-slingshot polaris       --nccl-version=2.21.5
h100-x64-kestrel-slingshot kestrel-gpu   --ranks=64 --nccl-version=2.21.5
h200-x16-oci-roce       oci-h200-roce    --nccl-version=2.27.5
h200-x16-nebius-ib      nebius-h200-ib   -
gb200-x72-coreweave-nvl72 cw-gb200-nvl72  --ranks=72
gb200-x144-coreweave-2rack cw-gb200-nvl72 --ranks=144
gb200-x1440-coreweave-20rack cw-gb200-nvl72 --ranks=1440'

# AMD machines (rccl-tests): compared like the others and drawn into the
# stated band like them; counted apart, and judged against a band that never
# saw them in the leave-one-machine-out table (models/nccl-accuracy.md, "Accuracy").
# RCCL's version is given as the NCCL version it carries.
amd='mi300x-x8-aac           aac8-mi300x      -
mi300x-x16-aac-roce     aac10-mi300x     --nccl-version=2.22.3
mi355x-x16-aac-pollara  aac14-mi355x     --nccl-version=2.26.6
mi300x-x8-azure-ndv5    az-mi300x-ndv5   --nccl-version=2.20.5'

# run LOG SYSTEM OPTS: the CSV of compare into $tmp/LOG.csv; 0 on success
run() {
	o=$3
	[ "$o" = - ] && o=
	# shellcheck disable=SC2086
	"$COMMTIME" $globals --system "$data/systems/$2.preset" compare "$data/$1.txt" \
		--op all_reduce $o --format csv >"$tmp/$1.csv" 2>"$tmp/$1.err"
}
globals="$*"

# median FILE: the median of the numbers of FILE (one a line), in per cent
median() {
	sort -g "$1" | awk '{ v[++k] = $1 }
	END { if (k) printf "%.1f", 100 * (k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2) }'
}

# bands: the median |time error| of the sizes below 64 KiB, from 64 KiB
# to below 64 MiB, and from 64 MiB on (from $f: "size error" lines), in one
# awk (each class's errors sorted as median's sort -g would)
bands() {
	awk 'function show(name, c,   i, j, t, k) {
		k = n[c]
		for (i = 2; i <= k; i++)   # insertion sort: a few hundred sizes
			for (j = i; j > 1 && v[c, j - 1] > v[c, j]; j--) {
				t = v[c, j]; v[c, j] = v[c, j - 1]; v[c, j - 1] = t
			}
		m = ""
		if (k) m = sprintf("%.1f", 100 * (k % 2 ? v[c, (k + 1) / 2] : (v[c, k / 2] + v[c, k / 2 + 1]) / 2))
		printf "  %-18s %5s %% over %s sizes\n", name, m, k + 0
	}
	{ c = $1 < 65536 ? 1 : $1 < 67108864 ? 2 : 3; v[c, ++n[c]] = $2 + 0 }
	END { show("below 64 KiB", 1); show("64 KiB to 64 MiB", 2); show("64 MiB and up", 3) }' "$f"
}

# row_keys LOG SYSTEM OPTS: what each of LOG's rows in $tmp/rows carries
# besides its size and times: nodes (the "nodes:" line of compare's table,
# read by the shell) and threaded (1 when the log says nGpus above 1).
# The table's awk then appends every size of LOG's CSV to $tmp/rows as
# "LOG NODES THREADED SIZE_B MEASURED_S PREDICTED_S SYSTEM", the lines
# tools/errband-gen draws the stated error from (SYSTEM, the machine the
# log is left out with)
row_keys() {
	o=$3
	[ "$o" = - ] && o=
	# shellcheck disable=SC2086
	out=$("$COMMTIME" $globals --system "$data/systems/$2.preset" compare "$data/$1.txt" \
		--op all_reduce $o 2>/dev/null)
	nodes=
	case "$nl$out" in
	*"${nl}nodes: "*) nodes=${nl}$out nodes=${nodes#*"${nl}nodes: "} nodes=${nodes%%[!0-9]*} ;;
	esac
	threaded=$(sed -n '/nGpus /{s/.*nGpus \([0-9]*\).*/\1/p;q;}' "$data/$1.txt")
	[ "${threaded:-1}" -gt 1 ] && threaded=1 || threaded=0
}
nl='
'

# table PAIRS ERRORS: one row per pair of PAIRS, every size's |time error|
# appended to the file ERRORS; then the counts of the table
table() {
	: >"$2"
	: >"$2.sized"
	: >"$2.perlog"
	printf '%-26s %-15s %-9s %-16s %10s %10s %8s %8s\n' log system algo "choice at largest" \
		"predicted" "measured" "busbw" "median"
	printf '%-26s %-15s %-9s %-16s %10s %10s %8s %8s\n' "" "" "" "" "GB/s" "GB/s" "error" "|t err|"
	n=0 within=0 failed=0
	echo "$1" | {
	while read -r log sys opts; do
		# the first --algo= or --nccl-algo= of opts (the shell's words, no process)
		algo=
		# shellcheck disable=SC2086
		for o in $opts; do
			case $o in
			--algo=*) algo=${o#--algo=}; break ;;
			--nccl-algo=*) algo=${o#--nccl-algo=}; break ;;
			esac
		done
		if ! run "$log" "$sys" "$opts"; then
			printf '%-26s %-15s failed: %s\n' "$log" "$sys" "$(head -1 "$tmp/$log.err")"
			failed=$((failed + 1))
			continue
		fi
		row_keys "$log" "$sys" "$opts"
		# columns: size_B,measured_s,predicted_s,rel_error,measured_busbw_Bps,
		# predicted_busbw_Bps,flag,algo
		awk -F, -v name="$log" -v sys="$sys" -v algo="${algo:-auto}" -v all="$2" \
			-v nodes="${nodes:-0}" -v th="$threaded" -v rows="$tmp/rows" '
		NR == 1 { next }
		{ print name, nodes, th, $1, $2, $3, sys >> rows }
		{ e = $4 < 0 ? -$4 : $4; err[++k] = e; print e >> all; print $1, e >> (all ".sized")
		  last_m = $5; last_p = $6; last_c = $8 }
		END {
			n = k
			for (i = 2; i <= n; i++)   # insertion sort: a few dozen sizes
				for (j = i; j > 1 && err[j - 1] > err[j]; j--) {
					t = err[j]; err[j] = err[j - 1]; err[j - 1] = t
				}
			med = n % 2 ? err[(n + 1) / 2] : (err[n / 2] + err[n / 2 + 1]) / 2
			be = last_p / last_m - 1
			printf "%-26s %-15s %-9s %-16s %10.1f %10.1f %+7.1f%% %7.1f%%\n", name, sys, algo,
				last_c, last_p / 1e9, last_m / 1e9, 100 * be, 100 * med
			printf "%s %.1f %.1f\n", name, 100 * be, 100 * med >> (all ".perlog")
			exit (be <= 0.15 && be >= -0.15) ? 0 : 3
		}' "$tmp/$log.csv"
		st=$?
		n=$((n + 1))
		[ $st = 0 ] && within=$((within + 1))
	done
	echo
	echo "busbw at the largest size within +-15 %: $within of $n logs"
	echo "pooled median |time error|: $(median "$2") % over $(wc -l <"$2" | tr -d ' ') sizes"
	echo "by size:"
	f=$2.sized bands
	[ "$failed" = 0 ] || echo "$failed logs failed to run"
	echo "$within $n" >"$2.count"
	}
}

: >"$tmp/rows"
table "$pairs" "$tmp/all-errors"

# The untuned fabric: must be flagged low-busbw, not counted above.
log=h100-x16-ib-untuned
if run "$log" hgx-h100-ndr -; then
	flagged=$(grep -c 'low-busbw' "$tmp/$log.csv")
	echo "$log against hgx-h100-ndr: $flagged sizes flagged low-busbw (must be > 0)"
else
	echo "$log: failed: $(head -1 "$tmp/$log.err")"
fi

echo
echo "Extended logs (added after the fixed judge above):"
echo
table "$extended" "$tmp/ext-errors"
cat "$tmp/all-errors" "$tmp/ext-errors" >"$tmp/every-error"
read -r w1 n1 <"$tmp/all-errors.count"
read -r w2 n2 <"$tmp/ext-errors.count"
echo
echo "all logs together (fixed and extended):"
echo "busbw at the largest size within +-15 %: $((w1 + w2)) of $((n1 + n2)) logs"
echo "pooled median |time error|: $(median "$tmp/every-error") % over" \
	"$(wc -l <"$tmp/every-error" | tr -d ' ') sizes"
echo "by size:"
cat "$tmp/all-errors.sized" "$tmp/ext-errors.sized" >"$tmp/every-error.sized"
f=$tmp/every-error.sized bands

echo
echo "AMD machines (rccl-tests; drawn into the stated band, left out below):"
echo
table "$amd" "$tmp/amd-errors"

# Leave one machine out: the band drawn without each log's machine.
echo
echo "Leave one machine out (every log above; machines as tools/errband-gen counts them):"
echo "nothing of NCCL's model is fitted to these logs, so the busbw error at the largest"
echo "size and the median |time error| are the same in sample (in) and left out (out);"
echo "the stated band is drawn from them: its share of each log's sizes, drawn from"
echo "every log (in) and drawn again, margin and all, without the log's machine (out)"
echo
if ! "$ERRBAND_GEN" --per-log "$tmp/rows" >"$tmp/perlog" 2>"$tmp/perlog.err"; then
	echo "errband-gen --per-log failed: $(head -1 "$tmp/perlog.err") (make tools/errband-gen)"
	exit 0
fi
cat "$tmp/all-errors.perlog" "$tmp/ext-errors.perlog" "$tmp/amd-errors.perlog" >"$tmp/every.perlog"
cat "$tmp/every-error" "$tmp/amd-errors" >"$tmp/loo-errors"
amdlogs=$(echo "$amd" | awk '{ printf "%s ", $1 }')
awk -v amdlogs="$amdlogs" 'BEGIN { split(amdlogs, v, " "); for (j in v) isamd[v[j]] = 1 }
NR == FNR { be[$1] = $2; med[$1] = $3; next }
/^#/ { next }
{ lg = $1; n = $3; i = $4; o = $5; nb = $6; wd = $7
  if (!(lg in be)) next
  if (!hdr++) {
	printf "%-26s %-15s %5s %8s %8s %7s %7s %12s %12s\n", "log", "machine", "sizes", "busbw", "busbw",
		"|t err|", "|t err|", "band", "band"
	printf "%-26s %-15s %5s %8s %8s %7s %7s %12s %12s\n", "", "", "", "err in", "err out", "in", "out",
		"inside in", "inside out"
  }
  printf "%-26s %-15s %5d %+7.1f%% %+7.1f%% %6.1f%% %6.1f%% %5d (%3.0f%%) %5d (%3.0f%%)%s\n", lg, $2, n,
	be[lg], be[lg], med[lg], med[lg], i, 100 * i / n, o, 100 * o / n,
	(nb ? sprintf("  %d without a band", nb) : "") (wd ? sprintf("  %d on the wider cell", wd) : "")
  WD += wd
  N += n; I += i; O += o; NB += nb; k++; ri += i / n; ro += o / n
  w += (be[lg] <= 15 && be[lg] >= -15)
  if (nb < n) { N2 += n - nb; O2 += o }
  g = (lg in isamd) ? "AMD" : "NVIDIA"
  sn[g] += n; si[g] += i; so[g] += o; sk[g]++; sri[g] += i / n; sro[g] += o / n
}
END {
  printf "\nbusbw at the largest size within +-15 %%: %d of %d logs in sample and left out\n", w, k
  printf "inside the stated band, pooled over %d sizes of %d logs: %d (%.0f %%) in sample, %d (%.0f %%) left out\n",
	N, k, I, 100 * I / N, O, 100 * O / N
  printf "per log on average: %.0f %% in sample, %.0f %% left out\n", 100 * ri / k, 100 * ro / k
  for (j = 1; j <= 2; j++) {
	g = j == 1 ? "NVIDIA" : "AMD"
	if (sk[g])
		printf "  %-6s %2d logs, %3d sizes: pooled %d (%.0f %%) in, %d (%.0f %%) out; per log %.0f %% in, %.0f %% out\n",
			g, sk[g], sn[g], si[g], 100 * si[g] / sn[g], so[g], 100 * so[g] / sn[g],
			100 * sri[g] / sk[g], 100 * sro[g] / sk[g]
  }
  if (NB)
	printf "left out, %d sizes have no band (neither their cell nor their size class over any node count stands on 3 logs of 2 machines without theirs);\n" \
		"of the %d that have one, %d (%.0f %%) fall inside\n", NB, N2, O2, 100 * O2 / N2
  else
	printf "left out, every size has a band\n"
  if (WD)
	printf "left out, %d sizes take the wider cell (their size class over any node count): their own cell stands on fewer than 3 logs of 2 machines without their machine\n", WD
}' "$tmp/every.perlog" "$tmp/perlog"
echo "pooled median |time error|: $(median "$tmp/loo-errors") % over the" \
	"$(wc -l <"$tmp/loo-errors" | tr -d ' ') sizes, in sample and left out"
