#!/bin/sh
# The tree says where things are (docs/style.md): every model document
# names the files that implement it, and they exist; the fuzz README
# describes every fuzz target; the commands live apart from the core.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
cd "$top" || exit 1
mkdir -p "$top/tests/tmp" || exit 1

# One awk reads every model document: per document a line "DOC NAMED ANY
# FILE...": NAMED the lines 3 to 6 that start "*Implemented in src/", ANY
# 1 when the document names a src/ file anywhere, then the src/ files lines
# 3 to 6 name (as grep -o would cut them).
awk 'function done() { if (doc != "") print doc, named, any, list }
	FNR == 1 { done(); doc = FILENAME; named = 0; any = 0; list = "" }
	FNR >= 3 && FNR <= 6 && /^\*Implemented in src\// { named++ }
	{ s = $0
	  while (match(s, /src\/[a-z0-9_\/]*\.[ch]/)) {
		any = 1
		if (FNR >= 3 && FNR <= 6) list = list " " substr(s, RSTART, RLENGTH)
		s = substr(s, RSTART + RLENGTH) } }
	END { done() }' models/*.md >"$top/tests/tmp/t-layout.models"
while read -r md named any list; do
	missing=
	for f in $list; do
		[ -e "$f" ] || missing="$missing $f"
	done
	check "$md names the code that implements it" [ "$named" = 1 -a "$any" = 1 ]
	check "$md: the files it names exist${missing:+ (not:$missing)}" [ -z "$missing" ]
done <"$top/tests/tmp/t-layout.models"
# the table rows of the fuzz README, read once
nl='
'
rows=
while IFS= read -r l; do
	case $l in '| `'*) rows="$rows$nl$l" ;; esac
done <tests/fuzz/README.md
for t in tests/fuzz/*/; do
	t=${t%/}; t=${t##*/}
	case "$rows" in
	*"$nl| \`$t/\` |"*) ok "tests/fuzz/README.md describes the target $t" ;;
	*) notok "tests/fuzz/README.md describes the target $t" ;;
	esac
done
check "docs/style.md says where errbuf and where die belong" \
	sh -c "grep -q 'errbuf' docs/style.md && grep -q 'die' docs/style.md"
check "no command file in the core" sh -c "! ls src/cmd_*.c src/main.c 2>/dev/null | grep -q ."

# Sizes (docs/style.md): files of src/ under 1000 lines, functions under 120
# (counted from the "{" that opens the body to the "}" that closes it, both
# at the start of a line).  The lists below are what is over today; being
# split, they pass until they are not, and only shrink.
size_known() {
	cat <<'EOF'
EOF
}
# "func FILE NAME" for each function over 120 lines, "file FILE" for each file over 1000
# (one awk for all the files: each starts afresh)
sizes() {
	awk '
		function done() { if (F != "" && lines > 1000) print "file " F }
		FNR == 1 { done(); F = FILENAME; cand = ""; inb = 0 }
		{ lines = FNR }
		/^[A-Za-z_].*\(/ && !/;[ \t]*$/ { cand = $0 }
		/^\{/ { if (cand != "") { start = FNR; name = cand; inb = 1 } }
		/^}/ { if (inb && FNR - start + 1 > 120) {
				sub(/\(.*/, "", name); sub(/.*[ *]/, "", name); print "func " F " " name }
			inb = 0; cand = "" }
		END { done() }' "$@" | sort -u
}
sizes src/*.[ch] src/cmd/*.[ch] >"$top/tests/tmp/t-layout.sizes"
size_known | sort >"$top/tests/tmp/t-layout.known"
over=$(comm -23 "$top/tests/tmp/t-layout.sizes" "$top/tests/tmp/t-layout.known")
check "no file of src/ over 1000 lines, no function over 120${over:+ (over: $(echo $over))}" [ -z "$over" ]
comm -12 "$top/tests/tmp/t-layout.sizes" "$top/tests/tmp/t-layout.known" | sed 's/^/# over, being split: /'
comm -13 "$top/tests/tmp/t-layout.sizes" "$top/tests/tmp/t-layout.known" |
	sed 's/^/# no longer over, drop it from size_known: /'
# the count has teeth: a function of 121 lines is found, one of 120 is not
t=$top/tests/tmp/t-layout.d
rm -rf "$t" && mkdir -p "$t" || exit 1
{ printf 'int long_one(void)\n{\n'; i=0; while [ $i -lt 119 ]; do echo '	;'; i=$((i + 1)); done; printf '}\n'
  printf 'int short_one(void)\n{\n'; i=0; while [ $i -lt 118 ]; do echo '	;'; i=$((i + 1)); done; printf '}\n'; } >"$t/x.c"
check "a function of 121 lines is over, one of 120 is not" [ "$(sizes "$t/x.c")" = "func $t/x.c long_one" ]
echo "1..$n"
