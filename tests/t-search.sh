#!/bin/sh
# search's answers agree with each other: --where's rank is the place of
# the first CSV row of that layout, its gap the ratio of the two step
# times; the terms of the why table add up to each step_s; the JSON
# "named" row counts what became of every form; --where alone gives the
# GPU count; the CSV keeps the columns design.md pins, in order.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
unset COMMTIME_PRESETS

dir=$(mktemp -d "${TMPDIR:-/tmp}/commtime-t-search.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

ct() { "$COMMTIME" --presets-dir "$top/presets" "$@"; }
# (a pyenv shim for python3 takes a second a call: the system's, if any)
python=$(command -v /usr/bin/python3 || command -v python3)
py() { "$python" -c "$1" 2>/dev/null; }

base="--system dgx-h100 search --workload llama3-70b --gpus 64 --global-batch 512 --price 2.5"
# shellcheck disable=SC2086
ct $base --format csv >all.csv
# shellcheck disable=SC2086
ct $base --where tp=8,pp=4 --format json >w.json
# shellcheck disable=SC2086
ct $base --where tp=8,pp=4 >w.txt

check "CSV: the pinned columns first, then schedule and recompute" \
	sh -c "head -1 all.csv | grep -q '^tp,pp,dp,cp,ep,zero,micro_batch,memory_B,step_s,tokens_per_s,cost_per_Mtoken,' &&
	       head -1 all.csv | tr , '\n' | grep -qx schedule && head -1 all.csv | tr , '\n' | grep -qx recompute"
want=$(awk -F, 'NR > 1 && $1 == 8 && $2 == 4 { print NR - 1; exit }' all.csv)
check "--where: the rank is the first CSV row of tp 8, pp 4 (row $want)" \
	grep -q "rank $want of $(($(wc -l <all.csv) - 1))," w.txt
if [ -n "$python" ]; then
	# the five checks of w.json in one Python: a line each, "ok" when its
	# assertions hold
	"$python" - "$want" >w.checks <<'EOF'
import json, re, sys
j = json.load(open('w.json'))
def named():
    want = int(sys.argv[1])
    d = j['named'][0]
    assert d['rank'] == want and d['tried'] == d['refused'] + d['unfit'] + d['fit'] and d['fit'] > 0
def behind():
    want = int(sys.argv[1])
    w = {r['which']: r for r in j['why']}; s = j['search']
    assert abs(w['named']['behind'] - (s[want - 1]['step_s'] / s[0]['step_s'] - 1)) < 1e-12
    assert w['named']['step_s'] == s[want - 1]['step_s'] and w['best']['step_s'] == s[0]['step_s']
def terms():
    for r in j['why']:
        t = r['compute_s'] + r['bubble_s'] + sum(r['exposed_%s_s' % k] for k in ('tp', 'cp', 'ep', 'pp', 'dp')) + r['optimizer_s'] + r['other_s']
        assert abs(t - r['step_s']) <= 1e-9 * r['step_s']
def cost():
    for r in j['search']:
        assert abs(r['cost_per_hour'] - 2.5 * r['gpus']) < 1e-9
def refused():
    m = re.match(r'(\d+) configurations, (\d+) refused', j['inputs']['searched'])
    assert sum(r['count'] for r in j['refused']) == int(m.group(2))
for f in (named, behind, terms, cost, refused):
    try:
        f()
        print("ok")
    except Exception as e:
        print("no")
        print("# %s: %r" % (f.__name__, e), file=sys.stderr)
EOF
	{ read -r c1; read -r c2; read -r c3; read -r c4; read -r c5; } <w.checks
	check "JSON named: rank $want, tried = refused + unfit + fit" [ "$c1" = ok ]
	check "JSON: behind is the ratio of the named and the best step times, less one" [ "$c2" = ok ]
	check "JSON why: the terms add up to step_s" [ "$c3" = ok ]
	check "JSON: cost per hour is the price times the GPUs" [ "$c4" = ok ]
	check "JSON refused: the counts add up to the configurations refused" [ "$c5" = ok ]
else
	echo "ok $((n + 1)) # skip python3 is not installed"
	n=$((n + 1))
fi
ct --alpha 5us --beta 300GB/s search --workload llama2-7b --global-batch 16 --max-cp 1 --max-micro-batch 1 --where tp=2,pp=2,dp=2 >a.txt
ct --alpha 5us --beta 300GB/s search --workload llama2-7b --global-batch 16 --max-cp 1 --max-micro-batch 1 --where tp=2,pp=2,dp=2 --gpus 8 >b.txt
check "--where tp, pp and dp alone: the search of their product" cmp -s a.txt b.txt
ct --alpha 5us --beta 300GB/s search --workload llama2-7b --gpus 8 --global-batch 16 --where tp=16 >o.txt
check "--where outside the space: said so" grep -q "Named (tp 16): not in the searched space" o.txt
ct --alpha 5us --beta 300GB/s search --workload llama2-7b --gpus 8 --global-batch 16 --where pp=8,recompute=none,zero=0 --gpu-memory 20GB >u.txt
check "--where that does not fit: the least memory of its forms" \
	grep -q "Named (pp 8, ZeRO 0, recompute none): none of its .* forms fits in 20 GB; the least memory" u.txt

# --kernel-efficiency: search prices its best as step prices that layout
ct --system dgx-h100 search --workload llama3-8b --gpus 16 --global-batch 64 --max-cp 1 \
	--kernel-efficiency 0.6 --format csv >k.csv
row=$(awk -F, 'NR == 2 { print $1, $2, $3, $6, $7, $9 }' k.csv)
set -- $row
sched=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } NR == 2 { print $h["schedule"], $h["virtual_stages"], $h["recompute"] }' k.csv)
# shellcheck disable=SC2086
set -- $row $sched
vs=""
[ "$7" = interleaved ] && vs="--schedule interleaved --virtual-stages $8"
# shellcheck disable=SC2086
st=$(ct --system dgx-h100 step --workload llama3-8b --tp $1 --pp $2 --dp $3 \
	--zero $4 --micro-batch $5 --global-batch 64 --recompute $9 $vs \
	$( [ "$1" -gt 1 ] && echo --sequence-parallel ) --kernel-efficiency 0.6 --format json |
	"$python" -c 'import json,sys; print(repr(json.load(sys.stdin)["step"][0]["step_s"]))' 2>/dev/null)
check "--kernel-efficiency: the best of search is step's time for it ($6 = $st)" \
	py "assert abs($6 - $st) <= 1e-12 * $6"
ct --system dgx-h100 search --workload llama3-8b --gpus 16 --global-batch 64 --max-cp 1 --format csv >d.csv
check "--kernel-efficiency 0.6 is slower than the shape model's H100 GEMMs" \
	py "import csv; a=list(csv.DictReader(open('k.csv'))); b=list(csv.DictReader(open('d.csv'))); assert float(a[0]['step_s']) > float(b[0]['step_s'])"

# nothing fits on 8 H100: search names the fewest GPUs that would (it
# searched every node count between), and a search there finds one that fits
ct --system dgx-h100 search --workload llama3-70b --gpus 8 --global-batch 1024 >n.txt 2>n.err
st=$?
need=$(sed -n 's/.*needs at least \([0-9]*\) GPUs.*/\1/p' n.txt)
check "nothing fits: exit 1 and 'needs at least N GPUs' on both streams ($st, $need)" \
	test "$st" = 1 -a -n "$need" -a "$(grep -c "needs at least $need GPUs" n.err)" = 1
ct --system dgx-h100 search --workload llama3-70b --gpus "$need" --global-batch 1024 >/dev/null 2>&1
check "nothing fits: $need GPUs do fit" test $? = 0
