#!/bin/sh
# The figure of a collective on a system, read from its gnuplot script
# (--plot only: nothing is rendered): one curve per node count, each told
# apart by colour and dash; the line rates of both tiers drawn; the size
# where the NICs start to bound a run across nodes marked where one node's
# busbw reaches their line rate; sizes labelled in the axis' binary units;
# with several algorithms a colour per node count and a dash per algorithm,
# and the points where the tiers model's bound changes tier.  The crossover
# figure on a system solves the model's own pair.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
unset COMMTIME_PRESETS
d=$top/tests/tmp/t-sysfig
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0

plots() { grep -E "^  \\\$p1s[0-9]+ " "$1"; }

g=$d/dgx.gp
check "dgx-h100, 8/16/64 ranks: the script is written" \
	"$COMMTIME" --system dgx-h100 allreduce --ranks 8,16,64 --plot "$g" -o "$d/dgx.txt"
check "one curve per node count, titled with ranks and nodes" \
	[ "$(plots "$g" | sed -n "s/.*title '\(.*\)'.*/\1/p" | tr '\n' '|')" = \
	  "8 ranks, 1 node|16 ranks, 2 nodes|64 ranks, 8 nodes|" ]
check "each curve its own dash" \
	[ "$(plots "$g" | sed -n 's/.* dt \([0-9]*\) .*/\1/p' | sort -u | wc -l)" -eq 3 ]
check "each curve its own colour" \
	[ "$(plots "$g" | sed -n "s/.* lc rgb '\(#[0-9A-Fa-f]*\)'.*/\1/p" | sort -u | wc -l)" -eq 3 ]
check "the intra-node line rate, 450 GB/s, drawn and named" \
	grep -q "^set label 'intra-node line rate 450 GB/s (h100-nvlink4)' at graph 0.01, first 450000000000 " "$g"
check "titled with the ranks, the nodes, the system and the model" \
	grep -q "^set title 'All-reduce bus bandwidth on 8, 16 and 64 ranks (1, 2 and 8 nodes of 8 GPUs), dgx-h100 (nccl model)'" "$g"
check "the NICs' line rate, 8 x 50 GB/s, drawn and named" \
	grep -q "^set label 'NICs'' line rate 8 x ib-ndr = 400 GB/s per node' at graph 0.01, first 400000000000 " "$g"
check "both line rates are horizontal lines" \
	[ "$(grep -c "^set arrow from graph 0, first [0-9]* to graph 1" "$g")" -eq 2 ]
x=$(sed -n 's/^set arrow from \([0-9.e+]*\), graph 0 to .*/\1/p' "$g")
label=$(sed -n "s/^set label 'NICs bound from \([0-9.]* [KMG]iB\)' at .*/\1/p" "$g")
check "the size where the NICs start to bound is marked and labelled ($label)" \
	[ -n "$x" ] && [ -n "$label" ]
check "its label is in binary units and is the marked size" \
	[ "$(awk -v x="$x" 'BEGIN { u = "B"; split("KiB MiB GiB", s, " ");
		for (k = 1; k <= 3 && x >= 1024; k++) { x /= 1024; u = s[k] }
		printf "%.4g %s", x, u }')" = "$label" ]
busbw=$("$COMMTIME" --system dgx-h100 allreduce --ranks 8 --sizes "$x" --format csv |
	awk -F, 'NR == 2 { print $6 }')
check "there one node's busbw is the NICs' line rate ($busbw B/s)" \
	awk -v b="$busbw" 'BEGIN { exit !(b > 0.999999 * 400e9 && b < 1.000001 * 400e9) }'
check "size tics in binary units only" \
	sh -c "grep '^set xtics' '$g' | grep -q 'MiB' && ! grep '^set xtics' '$g' | grep -q \"[0-9] [kMG]B'\""
check "room above the highest line rate" \
	grep -q '^set yrange \[0:5[0-9.e+]*\]' "$g"

g=$d/p4d.gp
check "aws-p4d, tiers, ring, hier and hierhd: the script is written" \
	"$COMMTIME" --system aws-p4d --model tiers allreduce --ranks 8,16 --sizes 8:8G:x2 \
	--plot "$g" -o "$d/p4d.txt"
check "a colour per node count, a dash per algorithm" \
	[ "$(plots "$g" | grep -v points | sed -n "s/.* dt \([0-9]*\) lc rgb '\(#[0-9A-Fa-f]*\)' title '\([a-z]*\), \([0-9]*\) ranks.*/\3 \1 \4 \2/p" |
	     awk '{ d[$1] = d[$1] " " $2; c[$3] = c[$3] " " $4 } END { for (k in d) print k d[k]; for (k in c) print k c[k] }' |
	     sort | tr '\n' '|')" = "16 #D55E00 #D55E00 #D55E00|8 #0072B2 #0072B2 #0072B2|hier 2 2|hierhd 3 3|ring 1 1|" ]
check "the points where the bound changes tier, in the key" \
	grep -q "with points .* title 'where the bound changes tier'" "$g"
check "the model's own bound changes: no second marking" \
	sh -c "! grep -q 'NICs bound from' '$g'"

g=$d/cross.gp
check "crossover on a system: the figure is written" \
	"$COMMTIME" --system dgx-h100 crossover --ranks 16,64 --plot "$g" -o "$d/cross.txt"
check "it solves NCCL's ring against NCCL's tree, titled with the system" \
	sh -c "grep -q \"^set title 'All-reduce crossover size, dgx-h100 (nccl model)'\" '$g' &&
	       grep -q \"title 'ring = tree'\" '$g'"
check "the figure's crossovers are the table's" \
	[ "$(awk '/^\$p1s3 << EOD/ { on = 1; next } /^EOD/ { on = 0 } on { printf "%.4g\n", $2 }' "$g")" = \
	  "$("$COMMTIME" --system dgx-h100 crossover --ranks 16,64 --format csv |
	     awk -F, 'NR > 1 { printf "%.4g\n", $4 }')" ]
check "the header says which tree" \
	grep -q "^tree: NCCL's tree: a chain inside each node" "$d/cross.txt"
