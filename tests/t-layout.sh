#!/bin/sh
# The tree says where things are (docs/style.md): every model document
# names the files that implement it, and they exist; the fuzz README
# describes every fuzz target; the commands live apart from the core.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
cd "$top" || exit 1

for md in models/*.md; do
	files=$(grep -o 'src/[a-z0-9_/]*\.[ch]' "$md" | sort -u)
	named=$(sed -n '3,6p' "$md" | grep -c '^\*Implemented in src/')
	missing=
	for f in $(sed -n '3,6p' "$md" | grep -o 'src/[a-z0-9_/]*\.[ch]'); do
		[ -e "$f" ] || missing="$missing $f"
	done
	check "$md names the code that implements it" [ "$named" = 1 -a -n "$files" ]
	check "$md: the files it names exist${missing:+ (not:$missing)}" [ -z "$missing" ]
done
for t in tests/fuzz/*/; do
	t=${t%/}; t=${t##*/}
	check "tests/fuzz/README.md describes the target $t" grep -q "^| \`$t/\` |" tests/fuzz/README.md
done
check "docs/style.md says where errbuf and where die belong" \
	sh -c "grep -q 'errbuf' docs/style.md && grep -q 'die' docs/style.md"
check "no command file in the core" sh -c "! ls src/cmd_*.c src/main.c 2>/dev/null | grep -q ."
echo "1..$n"
