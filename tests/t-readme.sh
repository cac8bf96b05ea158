#!/bin/sh
# The examples of README.md and docs/*.md are real.  Every ```console
# block holds one or more examples: "$ commtime ARGS" (continued on the
# next line by a trailing backslash), then what a terminal shows, standard
# output and error as they interleave.  A line "..." in the output stands
# for any number of lines, none included.  The examples of one document
# run in order, in a scratch copy of the tree of its own, so an example
# may read a file an earlier one wrote (plan -o, fit --save) and none
# dirties the tree; afterwards the tree must be as it was.  A ```console
# block whose line is not a commtime example fails: nothing is skipped.
#
#   READMECHECK_FILES   the documents (default README.md docs/*.md)
#   READMECHECK_REGEN=1 rewrite the output of every example without "..."
#                       from the run (tests/regen.sh readme)
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
d=${READMECHECK_DIR:-$top/tests/tmp/t-readme}
rm -rf "$d" && mkdir -p "$d" || exit 1
cd "$top" || exit 1
LC_ALL=C
export LC_ALL
unset COMMTIME_PRESETS
files=${READMECHECK_FILES:-README.md $(ls docs/*.md 2>/dev/null)}
: >"$d/marker"
copy=${READMECHECK_COPY:-README.md Makefile commtime.1 docs models presets plots completion probe tests/data}
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }

# The output of each example against its block: "..." lines match any run
# of lines (the glob rule with one star, backtracking to the last one).
# One awk for the examples 1..N of a directory prints one line each,
# 0 (matches) or 1 (differs).
match_all() { # dir N
	awk -v dir="$1" -v last="$2" '
	function match1(wf, gf,    l, np, nt, i, j, star, mark) {
		np = 0; nt = 0
		while ((getline l < wf) > 0) p[++np] = l
		while ((getline l < gf) > 0) t[++nt] = l
		close(wf); close(gf)
		while (np > 0 && p[np] == "") np--
		while (nt > 0 && t[nt] == "") nt--
		i = 1; j = 1; star = 0
		while (j <= nt) {
			if (i <= np && p[i] ~ /^ *\.\.\.$/) { star = i; mark = j; i++; continue }
			if (i <= np && p[i] == t[j]) { i++; j++; continue }
			if (star) { i = star + 1; mark++; j = mark; continue }
			return 1
		}
		while (i <= np && p[i] ~ /^ *\.\.\.$/) i++
		return i <= np
	}
	BEGIN { for (k = 1; k <= last; k++) print match1(dir "/" k ".want", dir "/" k ".got") }'
}

doc=0
for f in $files; do
	case $f in /*) path=$f ;; *) path=$top/$f ;; esac
	doc=$((doc + 1))
	w=$d/doc$doc
	s=$d/tree$doc
	mkdir -p "$w" "$s" || exit 1
	# one example per file pair: K.cmd (the arguments), K.want, K.range
	# (the lines of its output in the document, for READMECHECK_REGEN)
	awk -v dir="$w" '
		function close_ex() {
			if (k > 0 && open) { close(dir "/" k ".want")
				printf "%d %d\n", from, NR - 1 > (dir "/" k ".range"); close(dir "/" k ".range") }
			open = 0
		}
		/^```console$/ { inb = 1; first = 1; next }
		inb && /^```$/ { close_ex(); inb = 0; next }
		!inb { next }
		cont { l = $0; cont = (l ~ /\\$/); sub(/\\$/, "", l); sub(/^ +/, "", l)
			cmd = cmd " " l
			if (!cont) { print cmd > (dir "/" k ".cmd"); close(dir "/" k ".cmd")
				printf "" > (dir "/" k ".want"); open = 1; from = NR + 1 }
			next }
		/^\$ / { close_ex(); first = 0
			if ($0 !~ /^\$ commtime( |$)/) { print NR ": " $0 > (dir "/bad"); next }
			k++; l = $0; sub(/^\$ commtime ?/, "", l); cont = (l ~ /\\$/); sub(/\\$/, "", l)
			cmd = l
			if (!cont) { print cmd > (dir "/" k ".cmd"); close(dir "/" k ".cmd")
				printf "" > (dir "/" k ".want"); open = 1; from = NR + 1 }
			next }
		first { print NR ": " $0 > (dir "/bad"); first = 0; next }
		open { print >> (dir "/" k ".want") }
	' "$path"
	if [ -e "$w/bad" ]; then
		while IFS= read -r b; do notok "$f:$b: a console block holds only commtime examples"; done <"$w/bad"
	fi
	# the scratch copy: what an example may read (the sources, unit tests
	# and fuzz corpora are left out), linked, not copied: commtime replaces
	# a file by renaming a new one over it, so a link is never written
	# through, and a file written in place would change the tree's own,
	# which the check below sees
	# (the top-level ones by one cp, each deeper one by a cp of its own)
	if [ -e "$w/1.cmd" ]; then
		(cd "$top" && set -- && deep= &&
		for c in $copy; do
			[ -e "$c" ] || continue
			case $c in */*) deep="$deep $c" ;; *) set -- "$@" "$c" ;; esac
		done &&
		{ [ $# = 0 ] || cp -al "$@" "$s/" 2>/dev/null || cp -R "$@" "$s/"; } &&
		for c in $deep; do
			mkdir -p "$s/${c%/*}" || exit 1
			cp -al "$c" "$s/$c" 2>/dev/null || cp -R "$c" "$s/$c" || exit 1
		done) || { notok "$f: a scratch copy of the tree"; continue; }
	fi
	k=1
	while [ -e "$w/$k.cmd" ]; do
		e=$w/$k
		args=
		IFS= read -r args <"$e.cmd" || :
		(cd "$s" && eval "set -- $args" && exec "$COMMTIME" "$@") </dev/null >"$e.got" 2>&1
		k=$((k + 1))
	done
	if [ "${READMECHECK_REGEN:-}" != 1 ] && [ "$k" -gt 1 ]; then
		match_all "$w" $((k - 1)) >"$w/verdicts"
		j=1
		while read -r v; do
			e=$w/$j
			args=
			IFS= read -r args <"$e.cmd" || :
			if [ "$v" = 0 ]; then ok "$f: commtime $args"
			else
				notok "$f: commtime $args"
				diff -u "$e.want" "$e.got" | head -30
			fi
			j=$((j + 1))
		done <"$w/verdicts"
		[ "$j" = "$k" ] || notok "$f: the examples were not all matched"
	fi
	[ "$k" -gt 1 ] || [ -n "${READMECHECK_REGEN:-}" ] || echo "# $f: no examples"
	if [ "${READMECHECK_REGEN:-}" = 1 ] && [ "$k" -gt 1 ]; then
		# each range (bottom up, so line numbers stay) is replaced by the run
		k=$((k - 1))
		cp "$path" "$w/new"
		while [ "$k" -ge 1 ]; do
			e=$w/$k
			if ! grep -q '^ *\.\.\.$' "$e.want"; then
				read -r a b <"$e.range"
				awk -v a="$a" -v b="$b" -v g="$e.got" '
					NR == a { while ((getline l < g) > 0) print l }
					NR >= a && NR <= b { next } { print }
					END { if (a > NR) while ((getline l < g) > 0) print l }
				' "$w/new" >"$w/new+" && mv "$w/new+" "$w/new"
			fi
			k=$((k - 1))
		done
		cmp -s "$w/new" "$path" || { cp "$w/new" "$path" && echo "rewrote $f"; }
	fi
done

# Nothing of the tree changed: every example wrote into its scratch copy.
changed=$(find "$top" -path "$top/tests/tmp" -prune -o -path "$top/.git" -prune -o \
	-newer "$d/marker" -type f ! -name '*.o' ! -name '*.d' -print 2>/dev/null | head -5)
if [ -n "${READMECHECK_REGEN:-}" ]; then :
elif [ -z "$changed" ]; then ok "the examples left the tree as it was"
else notok "the examples left the tree changed: $changed"; fi
rm -rf "$d"/tree*

# The check itself: it fails on a staled example, on an elision that
# hides a wrong line, and on an example that writes into the tree; it
# passes on an elision that covers.
[ -n "${READMECHECK_INNER:-}" ] && exit 0
t=$d/self
mkdir -p "$t" || exit 1
real=$("$COMMTIME" --alpha 5e-6 --beta 200e9 crossover --ranks 8 2>&1)
selftest() { # description, want ("fail" or "pass"), the document in $t/doc.md
	READMECHECK_INNER=1 READMECHECK_DIR=$t/run READMECHECK_FILES=$t/doc.md READMECHECK_COPY=presets \
		sh "$0" >"$t/out" 2>&1
	if grep -q '^not ok' "$t/out"; then got=fail; else got=pass; fi
	if [ "$got" = "$2" ] && grep -q '^ok\|^not ok' "$t/out"; then ok "self-test: $1"
	else notok "self-test: $1 (got $got)"; cat "$t/out"; fi
}
stale=$(printf '%s\n' "$real" | sed 's/1\.882 MB/1.883 MB/')
[ "$stale" != "$real" ] || notok "self-test: the staled example differs from the real one"
printf '```console\n$ commtime --alpha 5e-6 --beta 200e9 crossover --ranks 8\n%s\n```\n' "$real" >"$t/doc.md"
selftest "the real output passes" pass
printf '```console\n$ commtime --alpha 5e-6 --beta 200e9 crossover --ranks 8\n%s\n```\n' "$stale" >"$t/doc.md"
selftest "a staled number fails" fail
printf '```console\n$ commtime --alpha 5e-6 --beta 200e9 crossover --ranks 8\n%s\n...\n%s\n```\n' \
	"$(printf '%s\n' "$real" | head -1)" "$(printf '%s\n' "$real" | tail -1)" >"$t/doc.md"
selftest "an elision that covers passes" pass
printf '```console\n$ commtime --alpha 5e-6 --beta 200e9 crossover --ranks 8\n%s\n...\n%s\n```\n' \
	"$(printf '%s\n' "$real" | head -1)" "$(printf '%s\n' "$stale" | tail -1)" >"$t/doc.md"
selftest "an elision before a staled line fails" fail
printf '```console\n$ commtime --alpha 5e-6 --beta 200e9 crossover --ranks 8\n%s\n```\n' \
	"$(printf '%s\n' "$real" | sed 3d)" >"$t/doc.md"
selftest "a line left out without ... fails" fail
printf '```console\n$ ls\n```\n' >"$t/doc.md"
selftest "a block that is not a commtime example fails" fail
printf '```console\n$ commtime --format csv -o %s/readme-selftest.csv\n```\n' "$top" >"$t/doc.md"
selftest "an example that writes into the tree fails" fail
rm -f "$top/readme-selftest.csv"
