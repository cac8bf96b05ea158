#!/bin/sh
# Traces end to end (models/trace.md): the collectives compare --trace lists
# equal an independent count (tests/data/trace/count.py, Python's json and
# gzip) on a real trace and on a held-out pair of real ones; the per-step
# compute, communication and exposed time equal the same script's; Inspector
# JSON lines and NCCL INFO lines read as their sources document them; bad
# input exits 1 with file:line; fit --trace saves keys step reads back; the
# tuner CSV passes the example plugin's parser rules.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-trace
data=$top/tests/data/trace
rm -rf "$d" && mkdir -p "$d" || exit 1
# (a pyenv shim for python3 takes a second a call: the system's, if any)
py=$(command -v /usr/bin/python3 || command -v python3)

ddp=$data/hta-ddp-resnet50-a100-rank0.json.gz
held0=$data/hta-sampled-rank0.json.gz
held1=$data/hta-sampled-rank1.json.gz

# The first four columns, sorted, against the script's count.
kinds() { # kinds OUT FILES...
	out=$1
	shift
	"$COMMTIME" --system hgx-a100 compare --trace "$@" --format csv >"$d/k.csv" 2>"$d/err" &&
		tail -n +2 "$d/k.csv" | cut -d, -f1-4 | sort >"$out"
}
if [ -n "$py" ]; then
	# Per step: compute, comm and exposed in ns, as the script computes them.
	"$COMMTIME" --system hgx-a100 --format json compare --trace "$ddp" "$held0" "$held1" >"$d/s.json"
	# count.py's three counts in one Python, each trace read once: what
	# "count.py DDP", "count.py HELD0 HELD1" and "count.py --steps DDP HELD0
	# HELD1" print, into ddp.raw, held.raw and steps.raw; and the steps of
	# commtime's JSON (s.json) in the same form, into steps.c.raw
	"$py" -B -c '
import contextlib, functools, json, sys
sys.path.insert(0, sys.argv[1])
import count
count.load = functools.lru_cache(maxsize=None)(count.load)
d, ddp, h0, h1 = sys.argv[2:6]
for out, run, paths in (("ddp", count.kinds, [ddp]), ("held", count.kinds, [h0, h1]),
                        ("steps", count.steps, [ddp, h0, h1])):
    with open(d + "/" + out + ".raw", "w") as f, contextlib.redirect_stdout(f):
        run(paths)
with open(d + "/steps.c.raw", "w") as f:
    for s in json.load(open(d + "/s.json"))["steps"]:
        print("%d,%d,%d,%d" % (s["step"], round(s["compute_s"] * 1e9), round(s["comm_s"] * 1e9),
                               round(s["exposed_s"] * 1e9)), file=f)
' "$data" "$d" "$ddp" "$held0" "$held1"
	kinds "$d/ddp.c" "$ddp" && sort "$d/ddp.raw" >"$d/ddp.py"
	check "DDP trace: the kinds and counts equal count.py's" cmp -s "$d/ddp.c" "$d/ddp.py"
	check "DDP trace: 7 kinds, 21 calls" \
		awk -F, '{ n++; c += $4 } END { exit !(n == 7 && c == 21) }' "$d/ddp.c"
	kinds "$d/held.c" "$held0" "$held1" && sort "$d/held.raw" >"$d/held.py"
	check "held-out pair of ranks: the kinds and counts equal count.py's" cmp -s "$d/held.c" "$d/held.py"

	sort "$d/steps.c.raw" >"$d/steps.c"
	cut -d, -f2- "$d/steps.raw" | sort >"$d/steps.py"
	check "per step: compute, comm, exposed equal count.py's to the ns" cmp -s "$d/steps.c" "$d/steps.py"
fi

# The hand check of models/trace.md: step 4 of the DDP trace.
"$COMMTIME" --system hgx-a100 --format json compare --trace "$ddp" >"$d/s4.json"
check "step 4: 11.989021 ms of NCCL kernels, 10.163762 ms exposed" \
	grep -q '"step": 4, "step_s": 0.222442191, "compute_s": 0.038506406, "comm_s": 0.011989021, "exposed_s": 0.010163762' "$d/s4.json"

# Inspector: sizes of all-gather and reduce-scatter are one rank's share.
"$COMMTIME" --system dgx-h100 compare --trace "$data/inspector-synthetic.jsonl" --format csv >"$d/insp.csv"
check "Inspector: two all-reduces of 16 GiB, median 61.982 ms" \
	grep -q '^all_reduce,17179869184,8,2,0.06198' "$d/insp.csv"
check "Inspector: reduce-scatter of 2 GiB per rank is 16 GiB, busbw 366.13 GB/s as Inspector printed" \
	grep -q '^reduce_scatter,17179869184,8,1,0.04105.*,366134533' "$d/insp.csv"
"$COMMTIME" --system dgx-h100 compare --trace "$data/nccl-info-synthetic.txt" --format csv >"$d/info.csv"
check "NCCL INFO: the all-gather of 1 Mi bf16 per rank on 8 ranks is 16 MiB, no time" \
	grep -q '^all_gather,16777216,8,1,,' "$d/info.csv"
check "NCCL INFO: 5 collectives in 4 kinds" \
	awk -F, 'NR > 1 { n++; c += $4 } END { exit !(n == 4 && c == 5) }' "$d/info.csv"
"$COMMTIME" --system dgx-h100 compare --trace "$data/nccl-info-synthetic.txt" >"$d/info.txt"
check "NCCL INFO: no measured time, so no count of those off the prediction" \
	sh -c "grep -q 'none with a measured time' '$d/info.txt' && ! grep -q 'off the prediction' '$d/info.txt'"

# Bad input: exit 1 with file:line.
bad() { # bad DESCRIPTION PATTERN FILE
	"$COMMTIME" --system hgx-a100 compare --trace "$3" >/dev/null 2>"$d/err"
	st=$?
	check "$1 (exit 1, '$2')" sh -c "[ $st = 1 ] && grep -q -- '$2' '$d/err'"
}
printf '{"traceEvents": [\n{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2},\n{"ph": "X", "ts": }\n]}\n' >"$d/syntax.json"
bad "malformed JSON" "syntax.json:3: malformed JSON" "$d/syntax.json"
printf '{"traceEvents": [\n{"ph": "X", "cat": "kernel", "name": "k", "ts": 1,\n "dur": -2}]}\n' >"$d/neg.json"
bad "a negative duration" "neg.json:3: \"dur\" is not a duration" "$d/neg.json"
head -c 20000 "$ddp" >"$d/trunc.json.gz"
bad "a truncated gzip file" "trunc.json.gz" "$d/trunc.json.gz"
printf '{"traceEvents": [' >"$d/eof.json"
bad "a trace that ends early" "eof.json:1: malformed JSON: unexpected end of file" "$d/eof.json"
printf 'hello\nworld\n' >"$d/text.txt"
bad "text naming no collective" "text.txt: no collective" "$d/text.txt"
printf '{"a": 1}' >"$d/other.json"
bad "JSON of something else" "other.json: JSON without" "$d/other.json"
awk 'BEGIN { for (i = 0; i < 300; i++) printf "["; }' >"$d/deep.json"
bad "nesting too deep" "deep.json:1: malformed JSON: nested deeper" "$d/deep.json"
: >"$d/empty.json"
bad "an empty file" "empty.json: empty file" "$d/empty.json"

# The tuner file from real logs run with NCCL_ALGO and NCCL_PROTO each
# (tests/data/nccl/cs244c), checked against the example plugin's reading
# rules (plugins/tuner/example/plugin.c: fgets of 256 bytes, '#' and empty
# lines skipped, 8 to 10 comma fields, its names), written here in awk.
c=$top/tests/data/nccl/cs244c
"$COMMTIME" --system "$top/tests/data/nccl/systems/l40s-x4.preset" tuner -o "$d/tuner.conf" \
	ring="$c/l40s-x4-ring.txt" tree="$c/l40s-x4-tree.txt" /ll="$c/l40s-x4-auto-ll.txt" \
	/ll128="$c/l40s-x4-auto-ll128.txt" /simple="$c/l40s-x4-auto-simple.txt" 2>"$d/err"
check "tuner: written" test -s "$d/tuner.conf"
check "tuner: every line is a rule the plugin loads, or a comment" awk -F, '
	length($0) >= 255 { bad = 1 }
	/^#/ || /^$/ { next }
	{ n = 0; for (i = 1; i <= NF; i++) if ($i != "") { n++; f[n] = $i }
	  if (n < 8 || n > 10) bad = 1
	  if (f[1] !~ /^(broadcast|reduce|allgather|reducescatter|allreduce)$/) bad = 1
	  if (f[2] !~ /^[0-9]+$/ || f[3] !~ /^[0-9]+$/ || f[2] + 0 > f[3] + 0) bad = 1
	  if (f[4] !~ /^(tree|ring|collnet_direct|collnet_chain|nvls|nvls_tree|pat)$/) bad = 1
	  if (f[5] !~ /^(ll|ll128|simple)$/) bad = 1
	  for (i = 6; i <= n; i++) if (f[i] !~ /^-?[0-9]+$/) bad = 1
	  rules++ }
	END { exit bad || rules < 1 }' "$d/tuner.conf"
check "tuner: the rules tile 0 B to 128 MiB without a gap" awk -F, '
	/^#/ { next }
	{ if ($2 != next_min) bad = 1; next_min = $3 + 1; last = $3 }
	BEGIN { next_min = 0 } END { exit bad || last != 134217728 }' "$d/tuner.conf"
check "tuner: above 256 KiB the Simple run was fastest (ring, the model's algorithm for NCCL_PROTO=simple)" \
	grep -q '^allreduce,[0-9]*,134217728,ring,simple,-1,1,4,-1,-1$' "$d/tuner.conf"
"$COMMTIME" tuner "$c/l40s-x4-ring.txt" >/dev/null 2>"$d/err"
check "tuner: a log that does not say its NCCL_ALGO is a usage error" \
	sh -c "[ $? = 2 ] && grep -q 'which NCCL_ALGO or NCCL_PROTO' '$d/err'"

# The figure: one step per rank, measured beside predicted.
"$COMMTIME" --system hgx-a100 compare --trace "$held0" "$held1" --step 551 --plot "$d/fig.gp" >/dev/null 2>"$d/err"
check "figure: a panel of two ranks' kernels, compute and both kinds of communication" \
	awk '/^\$p1s[123] << EOD/ { s = $1; next } /^EOD/ { s = ""; next } s != "" { n[s]++ }
	     END { exit !(n["$p1s1"] > 0 && n["$p1s2"] > 0 && n["$p1s3"] > 0) }' "$d/fig.gp"
"$COMMTIME" --system hgx-a100 compare --trace "$ddp" --workload gpt2-124m --dp 2 --plot "$d/fig2.gp" >/dev/null 2>"$d/err"
check "figure with --workload: the predicted step beside the measured one" grep -q "predicted: one stage" "$d/fig2.gp"
if command -v gnuplot >/dev/null 2>&1; then
	check "figure: gnuplot draws it" sh -c "cd '$d' && gnuplot fig.gp 2>'$d/gp.err' && [ -s fig.svg ] && [ ! -s '$d/gp.err' ]"
fi

# Carrying a trace forward, on a synthetic trace of a known run (no real
# transformer trace with NCCL's arguments is public within reach;
# models/trace.md, "Limits"): GPT-2 124M on 8 H100 of one node, dp 8, 8
# sequences per step.  Each of 3 steps computes 10 ms (50 kernels of
# 200 µs); the all-reduce of the fp32 gradients step's ledger names (its
# bytes read from step's CSV) runs 2 ms from 8 ms on, under the last
# backward kernels as DDP overlaps it, in a step annotation of 10.3 ms.
# fit --trace saves the kernel efficiency and the intra/large cell's ratio;
# step on the saved system, same configuration, must give the trace's step
# within 5 %.
if [ -n "$py" ]; then
	bytes=$("$COMMTIME" --system dgx-h100 step --workload gpt2-124m --dp 8 --global-batch 8 --format csv |
		awk -F, '$1 == "dp" && $3 == "all_reduce" { print $5 }')
	"$py" "$data/gpt2-synthetic.py" "$d/synth.json" "$bytes"
	cfg="--workload gpt2-124m"
	"$COMMTIME" --system dgx-h100 fit --trace "$d/synth.json" $cfg --global-batch 8 --save "$d/cal.preset" >"$d/fit.out" 2>"$d/err"
	check "carry: fit --trace saves the kernel efficiency and the intra/large cell" \
		sh -c "grep -q '^trace_kernel_efficiency = ' '$d/cal.preset' && grep -q '^trace_coll_intra_large = ' '$d/cal.preset'"
	"$COMMTIME" --system "$d/cal.preset" --format json step $cfg --dp 8 --global-batch 8 >"$d/step.json" 2>"$d/err"
	s=$(sed -n 's/.*"step_s": \([0-9.e+-]*\).*/\1/p' "$d/step.json" | head -1)
	check "carry: the calibrated step, $s s, is the trace's 10.3 ms within 5 %" \
		awk -v s="$s" 'BEGIN { exit !(s != "" && s / 0.0103 > 0.95 && s / 0.0103 < 1.05) }'
	"$COMMTIME" --system "$d/cal.preset" step $cfg --dp 16 --global-batch 16 >"$d/step16.out" 2>"$d/err"
	check "carry: twice the GPUs says it starts from the trace" grep -q "started from a trace" "$d/step16.out"
	"$COMMTIME" --system "$d/cal.preset" step $cfg --dp 8 --global-batch 8 --mfu 0.5 >"$d/mfu.out" 2>"$d/err"
	check "carry: --mfu keeps its value over the trace's" grep -q "kernel efficiency .* not used: --mfu given" "$d/mfu.out"
	# compare --trace --check: the spec's step (2.4 ms of 10.3) is outside its band,
	# the calibrated one inside
	"$COMMTIME" --system dgx-h100 compare --trace "$d/synth.json" $cfg --dp 8 --global-batch 8 \
		--check >"$d/chk.out" 2>"$d/err"
	check "compare --trace --check: exit 1 when the step is outside its band" \
		sh -c "[ $? = 1 ] && grep -q '^check: the measured step (median) 10.30 ms is outside' '$d/chk.out'"
	"$COMMTIME" --system "$d/cal.preset" compare --trace "$d/synth.json" $cfg --dp 8 --global-batch 8 \
		--check >"$d/chk.out" 2>"$d/err"
	check "compare --trace --check: exit 0 when it is inside" \
		sh -c "[ $? = 0 ] && grep -q '^check: .* is inside' '$d/chk.out'"
fi

# A calibrated system is one model for every view: dgx-h100 with every
# cell's measured/predicted at 3.  search's ranked table and its "why"
# table give the best configuration the same step; step's band is the
# calibrated step's (it brackets it), and the calibration moves the step.
if [ -n "$py" ]; then
	sed 's/^name = dgx-h100/name = x3/' "$top/presets/dgx-h100.preset" >"$d/x3.preset"
	for c in intra_small intra_medium intra_large inter_small inter_medium inter_large; do
		echo "trace_coll_$c = 3" >>"$d/x3.preset"
	done
	"$COMMTIME" --system "$d/x3.preset" --format json search --workload llama3-8b --gpus 64 \
		--global-batch 256 >"$d/x3s.json" 2>"$d/err"
	cfg="--workload llama3-8b --tp 8 --dp 8 --global-batch 256"
	"$COMMTIME" --system "$d/x3.preset" --format json step $cfg >"$d/x3.json" 2>"$d/err"
	"$COMMTIME" --system dgx-h100 --format json step $cfg >"$d/x1.json" 2>"$d/err"
	# the three checks in one Python: a line each, "ok" when it holds
	"$py" -c '
import json, sys
def best():
    d = json.load(open(sys.argv[1]))
    best = [w for w in d["why"] if w["which"] == "best"][0]
    return abs(d["search"][0]["step_s"] - best["step_s"]) <= 1e-9 * best["step_s"]
def band():
    s = json.load(open(sys.argv[2]))["step"][0]
    return s["step_lo_s"] < s["step_s"] < s["step_hi_s"]
def ledger():
    a = json.load(open(sys.argv[2])); b = json.load(open(sys.argv[3]))
    ok = len(a["ledger"]) == len(b["ledger"]) > 0 and a["step"][0]["step_s"] > b["step"][0]["step_s"]
    for r3, r1 in zip(a["ledger"], b["ledger"]):
        ok = ok and abs(r3["time_s"] - 3 * r1["time_s"]) <= 1e-9 * r3["time_s"]
    return ok
for f in (best, band, ledger):
    try:
        print("ok" if f() else "no")
    except Exception as e:
        print("no")
        print("# %s: %r" % (f.__name__, e), file=sys.stderr)
' "$d/x3s.json" "$d/x3.json" "$d/x1.json" >"$d/x3.checks"
	{ read -r c1; read -r c2; read -r c3; } <"$d/x3.checks"
	check "calibrated search: the ranked table's best step is the why table's" [ "$c1" = ok ]
	check "calibrated step: its band brackets the calibrated step" [ "$c2" = ok ]
	check "calibrated step: every collective of the ledger takes 3 times as long, and the step is longer" \
		[ "$c3" = ok ]
fi
