#!/bin/sh
# Presets end to end: the search path (--presets-dir, COMMTIME_PRESETS,
# ./presets), the listing and its CSV contract, bad files in a listing,
# output errors.  Runs in a fresh directory so ./presets is under control.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C; export LC_ALL
unset COMMTIME_PRESETS
dir=$(mktemp -d "${TMPDIR:-/tmp}/commtime-t-presets.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

n=0
check() { # description, then a command that succeeds when the check holds
	n=$((n + 1))
	d=$1; shift
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fi
}
link() { # file name desc alpha beta
	printf 'name = %s\nkind = link\ndescription = %s\nalpha = %s\nbeta = %s\n' \
		"$2" "$3" "$4" "$5" >"$1"
}
field() { # the SI value of key $1 in the CSV of "presets NAME" on stdin
	awk -F, -v k="$1" 'NR > 1 && $6 == k { print $8 }'
}

mkdir -p cli env1 env2 presets
link cli/x.preset x "x from cli" 1us 1GB/s
link env1/x.preset x "x from env1" 2us 2GB/s
link env1/y.preset y "y from env1" 3us 3GB/s
link env2/y.preset y "y from env2" 4us 4GB/s
link env2/z.preset z "z from env2" 5us 5GB/s
link presets/z.preset z "z from ./presets" 6us 6GB/s
link presets/v.preset v "v from ./presets" 7us 7GB/s
printf 'name = w\nkind = workload\ndescription = a workload, with a comma\narch = gpt\nlayers = 2\nhidden = 64\nheads = 2\nvocab = 100\nseq = 16\n' >presets/w.preset

# search order: --presets-dir, then COMMTIME_PRESETS in order, then ./presets
desc() { "$COMMTIME" --format csv "$@" | awk -F, 'NR == 2 { print $5 }'; }
check "--presets-dir comes first" \
	test "$(COMMTIME_PRESETS=env1:env2 desc --presets-dir cli presets x)" = "x from cli"
check "COMMTIME_PRESETS comes before ./presets" \
	test "$(COMMTIME_PRESETS=env1:env2 desc presets z)" = "z from env2"
check "the first directory of COMMTIME_PRESETS wins" \
	test "$(COMMTIME_PRESETS=env1:env2 desc presets y)" = "y from env1"
check "empty entries of COMMTIME_PRESETS are skipped" \
	test "$(COMMTIME_PRESETS=::env2: desc presets y)" = "y from env2"
check "./presets is searched last" \
	test "$(COMMTIME_PRESETS=env1:env2 desc presets v)" = "v from ./presets"
check "--preset uses the same search path" \
	test "$(COMMTIME_PRESETS=env1 "$COMMTIME" --format csv --preset y presets | field alpha)" = 3e-06
check "a preset given by path needs no search path" \
	test "$(desc presets env2/z.preset)" = "z from env2"

# the listing: first found wins per name, sorted, CSV columns fixed
COMMTIME_PRESETS=env1:env2 "$COMMTIME" --format csv presets --presets-dir cli >list.csv 2>list.err
check "listing exits 0" test $? = 0
check "CSV header is the contract" \
	test "$(head -1 list.csv)" = "name,kind,alpha_s,beta_Bps,description"
# (the build tree's own presets come last on the path: leave them out)
check "one row per name, sorted by name" \
	test "$(cut -d, -f1 list.csv | tail -n +2 | grep -x '[a-z]' | tr '\n' ' ')" = "v w x y z "
check "first found wins in the listing" \
	grep -q '^x,link,1e-06,1000000000,x from cli$' list.csv
check "workloads have empty alpha and beta" \
	grep -q '^w,workload,,,"a workload, with a comma"$' list.csv
check "nothing on stderr for a clean listing" test ! -s list.err
"$COMMTIME" --format csv presets --kind workload >kind.csv
check "--kind keeps one kind" test "$(tail -n +2 kind.csv | cut -d, -f2 | sort -u)" = workload
check "--kind lists the workload of ./presets" grep -q '^w,workload,' kind.csv

# a bad file in a listing is skipped with a warning naming it
printf 'name = broken\nkind = link\ndescription = no equals below\nalpha 5us\n' >presets/broken.preset
"$COMMTIME" presets >list.out 2>list.err
st=$?
check "a bad file does not fail the listing" test "$st" = 0
check "the bad file is named in a warning" \
	test "$(cat list.err)" = "commtime: warning: skipped a preset file that does not load: ./presets/broken.preset:4: line without '=': 'alpha 5us'"
check "the good presets are still listed" grep -q 'v from ./presets' list.out
link presets/zero.preset zero "zero beta" 1us 0
"$COMMTIME" presets >list.out 2>list.err
check "two bad files are counted" \
	grep -q '^commtime: warning: skipped 2 preset files that do not load; the first: ' list.err
printf 'name = shapeless\nkind = workload\ndescription = no shape\n' >presets/shapeless.preset
"$COMMTIME" presets >list.out 2>list.err
check "a workload without its shape is a bad file too" \
	grep -q '^commtime: warning: skipped 3 preset files that do not load; the first: ' list.err
rm presets/broken.preset presets/zero.preset presets/shapeless.preset

# the shipped presets, from the top of the repository
(cd "$top" && "$COMMTIME" --format csv presets --kind link) >shipped.csv
check "every shipped link preset is listed" \
	test "$(tail -n +2 shipped.csv | wc -l)" = "$(ls "$top"/presets/*.preset | xargs grep -l '^kind = link' | wc -l)"
# (a pyenv shim for python3 takes a second a call: the system's, if any)
py=$(command -v /usr/bin/python3 || command -v python3)
if [ -n "$py" ]; then
	check "the CSV reads back with 5 fields a row" "$py" -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert rows[0] == ["name", "kind", "alpha_s", "beta_Bps", "description"], rows[0]
assert all(len(r) == 5 for r in rows), [r for r in rows if len(r) != 5]
assert all(float(r[2]) > 0 and float(r[3]) > 0 for r in rows[1:])
' shipped.csv
	(cd "$top" && "$COMMTIME" --format json presets h100-nvlink4) >show.json
	check "the JSON of one preset parses" "$py" -c '
import json, sys
json.load(open(sys.argv[1]))
' show.json
fi

# output
check "--help prints the usage to stdout" \
	sh -c '"$1" presets --help | grep -q "^usage: commtime presets"' sh "$COMMTIME"
if [ "$(id -u)" = 0 ] && mknod fulldev c 1 7 2>/dev/null; then
	"$COMMTIME" presets x --presets-dir cli >fulldev 2>full.err
	check "a write error on stdout fails" test $? = 1
	rm -f fulldev
fi
"$COMMTIME" --format csv -o out.csv presets --presets-dir cli x
check "-o writes the file" grep -q '^x,link,' out.csv
check "-o leaves no temporary file" test "$(ls -A | grep -c '^\.\?out\.csv.')" = 0

# like = NAME: a preset starts from another of its kind, its own keys first
mkdir -p like
link like/base.preset base "the base" 8us 8GB/s
printf 'name = kid\nkind = link\ndescription = like base but slower\nlike = base\nbeta = 4GB/s\n' >like/kid.preset
printf 'name = grand\nkind = link\ndescription = like kid\nlike = kid\n' >like/grand.preset
check "like: an own key wins over the base's" \
	test "$("$COMMTIME" --format csv presets --presets-dir like kid | field beta)" = 4000000000
check "like: a key it does not set comes from the base" \
	test "$("$COMMTIME" --format csv presets --presets-dir like kid | field alpha)" = 8e-06
check "like: two presets deep" \
	test "$("$COMMTIME" --format csv presets --presets-dir like grand | field beta)" = 4000000000
check "like: the description stays its own" \
	test "$(desc --presets-dir like presets grand)" = "like kid"
printf 'name = loop1\nkind = link\ndescription = a\nlike = loop2\n' >like/loop1.preset
printf 'name = loop2\nkind = link\ndescription = b\nlike = loop1\n' >like/loop2.preset
"$COMMTIME" presets --presets-dir like loop1 >loop.out 2>loop.err
check "like: a cycle is refused, exit 1" test $? = 1
check "like: the cycle is named" grep -q 'more than 8 deep (a cycle?)' loop.err
printf 'name = odd\nkind = link\ndescription = a\nlike = w\n' >like/odd.preset
"$COMMTIME" presets --presets-dir like odd >odd.out 2>odd.err
check "like: a base of another kind is refused" \
	grep -q 'like = w: that preset is a workload, this one a link' odd.err
printf 'name = lost\nkind = link\ndescription = a\nlike = nowhere\n' >like/lost.preset
"$COMMTIME" presets --presets-dir like lost >lost.out 2>lost.err
check "like: an unknown base names the line" \
	grep -q 'lost.preset:4: like = nowhere: unknown preset' lost.err
"$COMMTIME" presets --presets-dir like >likes.out 2>likes.err
check "like: the listing loads a preset through its base" grep -q '^grand ' likes.out
check "dgx-a100 is hgx-a100 by another name" \
	test "$("$COMMTIME" --system dgx-a100 --format csv allreduce --sizes 1GB | tail -n +2)" = \
	"$("$COMMTIME" --system hgx-a100 --format csv allreduce --sizes 1GB | tail -n +2)"
"$COMMTIME" presets --presets-dir like kid >kid.out
check "like: the listing of one preset says which keys came from the base" \
	grep -q '^like: base, which gives alpha$' kid.out

# an NVLink domain across hosts is saved as the hosts and the domain, and reads back the same
"$COMMTIME" --presets-dir "$top/presets" --system gb200-nvl72 presets --save nvl.preset >/dev/null 2>&1
check "save: an NVL72 rack keeps gpus_per_node 4, nvlink_domain 72, 4 NICs a host" \
	sh -c "grep -q '^gpus_per_node = 4\$' nvl.preset && grep -q '^nvlink_domain = 72\$' nvl.preset &&
		grep -q '^nics_per_node = 4\$' nvl.preset && grep -q '^net = ib\$' nvl.preset"
check "save: the saved rack predicts what the shipped one does" \
	test "$("$COMMTIME" --presets-dir "$top/presets" --system nvl.preset --format csv allreduce --ranks 144 --sizes 1G)" = \
	"$("$COMMTIME" --presets-dir "$top/presets" --system gb200-nvl72 --format csv allreduce --ranks 144 --sizes 1G)"

# A shipped preset copied under another name and edited loads, called by its file name.
mkdir -p "$top/tests/tmp/t-presets-copy"
sed 's/^beta = .*/beta = 300GB\/s/' "$top/presets/h100-nvlink4.preset" >"$top/tests/tmp/t-presets-copy/my-link.preset"
"$COMMTIME" --preset "$top/tests/tmp/t-presets-copy/my-link.preset" --ranks 8 --sizes 1G >"$top/tests/tmp/t-presets-copy/out" 2>&1
check "a copied and edited preset loads under its file name" \
	sh -c "grep -q '^preset: my-link' '$top/tests/tmp/t-presets-copy/out' && grep -q '^beta: 300 GB/s' '$top/tests/tmp/t-presets-copy/out'"
"$COMMTIME" --presets-dir "$top/tests/tmp/t-presets-copy" --preset my-link --ranks 8 --sizes 1G >/dev/null 2>&1
check "... and by its file name on the search path" [ $? = 0 ]

# DeepSeek's keys: a shipped workload with them shows its counts, a bad
# value names the key, and a shape override may not undo them.
check "deepseek-v3 shows its count and active parameters" \
	sh -c "$(printf '%s' "'$COMMTIME' --presets-dir '$top/presets' presets deepseek-v3") | grep -q 'active per token 37.55 billion'"
sed 's/^dense_ffn = .*/dense_ffn = wide/' "$top/presets/deepseek-v3.preset" >presets/ds-bad.preset
sed -i 's/^name = .*/name = ds-bad/' presets/ds-bad.preset
check "a bad dense_ffn names the key and the value" \
	sh -c "'$COMMTIME' presets ds-bad 2>&1 | grep -q 'dense_ffn: cannot parse parameter count .wide.'"
check "--layers may not leave no MoE layer after the dense first ones" \
	sh -c "$(printf '%s' "'$COMMTIME' --presets-dir '$top/presets' --system hgx-h800 step --workload deepseek-v3 --layers 3 --ep 8 --dp 8") 2>&1 | grep -q 'not more than the 3 dense first layers'"

# A GPU preset without hbm_bandwidth: the step says its memory-bound work
# is not timed, and --hbm-bandwidth supplies it.
grep -v '^hbm_bandwidth\|^source_hbm_bandwidth\|^like' "$top/presets/a100-sxm.preset" |
	sed 's/^name = .*/name = nohbm/' >presets/nohbm.preset
check "a GPU without HBM bandwidth: memory-bound work not timed, said" \
	sh -c "'$COMMTIME' --presets-dir '$top/presets' --gpu nohbm step --workload gpt2-124m --dp 8 --global-batch 8 2>&1 | grep -q 'no HBM bandwidth known (gpu key hbm_bandwidth, or --hbm-bandwidth): memory-bound work not timed'"
check "... and --hbm-bandwidth gives it" \
	sh -c "! '$COMMTIME' --presets-dir '$top/presets' --gpu nohbm step --workload gpt2-124m --dp 8 --global-batch 8 --hbm-bandwidth 2TB/s 2>&1 | grep -q 'no HBM bandwidth known'"
