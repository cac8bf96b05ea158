#!/bin/sh
# The core sources a fuzz target links: the closure of the symbols its
# object needs over the plain build's src/*.o (make all first), so each
# target compiles only what it reads.  Usage: closure.sh OBJECT
# (the target's object, built with -DFUZZ_NO_MAIN or not; only its
# undefined symbols matter).  Prints src/NAME.c, one a line.
obj=$1
cd "$(dirname "$0")/../.." || exit 1
for o in src/*.o; do
	nm -g --defined-only "$o" | awk -v f="$o" 'NF == 3 { print "D", $3, f }'
	nm -u "$o" | awk -v f="$o" '{ print "U", $NF, f }'
done >"$obj.syms"
nm -u "$obj" | awk '{ print "N", $NF }' >>"$obj.syms"
awk '
$1 == "D" { def[$2] = $3 }
$1 == "U" { need[$3] = need[$3] " " $2 }
$1 == "N" { want[++n] = $2 }
END {
	for (i = 1; i <= n; i++) {
		s = want[i]
		if (!(s in def) || (def[s] in got))
			continue
		f = def[s]
		got[f] = 1
		m = split(need[f], u, " ")
		for (j = 1; j <= m; j++)
			want[++n] = u[j]
	}
	for (f in got) {
		sub(/\.o$/, ".c", f)
		print f
	}
}' "$obj.syms" | sort
rm -f "$obj.syms"
