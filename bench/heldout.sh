#!/bin/sh
# The held-out check of NCCL's model (not a test; never a source of a
# constant): public nccl-tests results of machines that are in none of the
# project's tests, each compared, as it was run, with a system written from
# public specifications (bench/heldout/systems/; where each log and each
# fact was read: the comments of the files, models/nccl.md "Held-out
# check").  For each log: NCCL's choice and the bus bandwidth at the largest
# size, predicted against measured, the median |time error|, and the sizes
# inside the stated error; then how many logs are within +-15 %, the pooled
# median |time error| and the stated error's coverage, pooled and per log.
#
#   sh bench/heldout.sh          COMMTIME names the binary (default ./commtime)
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C; export LC_ALL
d=bench/heldout
tmp=${HELDOUT_TMP:-$top/tests/tmp/heldout}
mkdir -p "$tmp" || exit 1

# log  system  options of compare, as the log was run (- for none)
logs='azure-nd-h200-v5  azure-nd-h200-v5  --gpus-per-process=8 --nccl-algo=nvls --nccl-version=2.20.5
azure-nd-a100-v4  azure-nd-a100-v4  --gpus-per-process=8 --nccl-version=2.19
azure-nd-gb200-v6 azure-nd-gb200-v6 --gpus-per-process=4 --nccl-algo=ring'
# The A100 VM ran NCCL 2.18.5, older than the modelled tunings: 2.19's, the
# nearest (a log that says its version gets it so by itself; these CSV files
# do not say it).  The GB200 VM ran 2.25.1, which NCCL's model has no
# Blackwell tuning for: 2.30.7's.  NCCL_ALGO=NVLS on the A100 VM, which has
# no NVLink SHARP, left NCCL its defaults: compared with them.

: >"$tmp/errors"
: >"$tmp/inside"
printf '%-20s %-16s %10s %10s %8s %8s %12s\n' log "choice at largest" predicted measured busbw median "stated error"
printf '%-20s %-16s %10s %10s %8s %8s %12s\n' "" "" GB/s GB/s error "|t err|" inside
n=0 within=0
echo "$logs" | {
while read -r log sys opts; do
	[ "$opts" = - ] && opts=
	# shellcheck disable=SC2086
	if ! "$COMMTIME" $opts --system "$d/systems/$sys.preset" compare "$d/$log.csv" \
		--op all_reduce --format csv >"$tmp/$log.csv" 2>"$tmp/$log.err" ||
	   ! "$COMMTIME" $opts --system "$d/systems/$sys.preset" compare "$d/$log.csv" \
		--op all_reduce >"$tmp/$log.txt" 2>>"$tmp/$log.err"; then
		printf '%-20s failed: %s\n' "$log" "$(head -1 "$tmp/$log.err")"
		continue
	fi
	ins=$(sed -n 's/^\([0-9]*\) of \([0-9]*\) sizes fall inside the stated error.*/\1 \2/p' "$tmp/$log.txt")
	echo "$ins" >>"$tmp/inside"
	awk -F, -v name="$log" -v ins="$ins" -v all="$tmp/errors" '
	NR == 1 { next }
	{ e = $4 < 0 ? -$4 : $4; err[++k] = e; print e >> all; m = $5; p = $6; c = $8 }
	END {
		for (i = 2; i <= k; i++)
			for (j = i; j > 1 && err[j - 1] > err[j]; j--) { t = err[j]; err[j] = err[j - 1]; err[j - 1] = t }
		med = k % 2 ? err[(k + 1) / 2] : (err[k / 2] + err[k / 2 + 1]) / 2
		split(ins, a, " ")
		be = p / m - 1
		printf "%-20s %-16s %10.1f %10.1f %+7.1f%% %7.1f%% %6s of %s\n", name, c, p / 1e9, m / 1e9,
			100 * be, 100 * med, a[1], a[2]
		exit (be <= 0.15 && be >= -0.15) ? 0 : 3
	}' "$tmp/$log.csv"
	st=$?
	n=$((n + 1))
	[ $st = 0 ] && within=$((within + 1))
done
echo
echo "busbw at the largest size within +-15 %: $within of $n logs"
sort -g "$tmp/errors" | awk '{ v[++k] = $1 } END { if (k) printf "pooled median |time error|: %.1f %% over %d sizes\n", 100 * (k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2), k }'
awk '{ i += $1; s += $2; if ($2) { r += $1 / $2; k++ } }
	END { if (s) printf "inside the stated error: %d of %d sizes (%.0f %%) pooled, %.0f %% per log on average\n", i, s, 100 * i / s, 100 * r / k }' "$tmp/inside"
}
