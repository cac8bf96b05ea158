#!/bin/sh
# make install / uninstall honour PREFIX and DESTDIR, and the installed
# binary finds the installed presets from any directory.  Works on a copy
# of the sources in a temporary directory, so the tree's own build is
# untouched.  The tree's objects come along (their times kept): built with
# the same flags, only preset.o, which holds the install prefix, is
# rebuilt; built with others (make asan), everything is.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
d=$top/tests/tmp/t-install
rm -rf "$d" && mkdir -p "$d/src/cmd" || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { desc=$1; shift; if "$@"; then ok "$desc"; else notok "$desc"; fi; }

cp -Rp "$top/Makefile" "$top/commtime.1" "$top/presets" "$d/" &&
cp -p "$top"/src/*.c "$top"/src/*.h "$d/src/" &&
cp -p "$top"/src/cmd/*.c "$top"/src/cmd/*.h "$d/src/cmd/" || exit 1
# one cp -p of the FILEs that exist (a pattern that matched nothing is left out)
cp_some() { # DIR FILE...
	dest=$1
	shift
	k=$#
	while [ "$k" -gt 0 ]; do
		[ -e "$1" ] && set -- "$@" "$1"
		shift
		k=$((k - 1))
	done
	[ $# = 0 ] || cp -p "$@" "$dest"
}
cp_some "$d/src/" "$top"/src/*.o "$top"/src/*.d "$top"/src/.flags || exit 1
cp_some "$d/src/cmd/" "$top"/src/cmd/*.o "$top"/src/cmd/*.d || exit 1
mkdir -p "$d/tests/unit" && cp "$top"/tests/unit/*.c "$top"/tests/unit/*.h "$d/tests/unit/"
mkdir -p "$d/completion" && cp "$top/completion/gen.sh" "$d/completion/"

if ! make -s -C "$d" PREFIX="$d/inst" install >"$d/log" 2>&1; then
	notok "make install PREFIX=..."; cat "$d/log"; exit 1
fi
ok "make install PREFIX=... succeeds"
check "the binary is installed" [ -x "$d/inst/bin/commtime" ]
check "the man page is installed" [ -f "$d/inst/share/man/man1/commtime.1" ]
check "the presets are installed" [ -f "$d/inst/share/commtime/presets/h100-nvlink4.preset" ]
check "the bash completion is installed" [ -f "$d/inst/share/bash-completion/completions/commtime" ]
check "the zsh completion is installed" [ -f "$d/inst/share/zsh/site-functions/_commtime" ]
out=$(cd / && "$d/inst/bin/commtime" --format csv presets 2>&1)
check "the installed binary lists the installed presets from /" \
	sh -c 'printf "%s\n" "$1" | grep -q "^h100-nvlink4,link,"' sh "$out"
out=$(cd / && "$d/inst/bin/commtime" --preset ib-ndr --format csv crossover --ranks 8 2>&1)
check "the installed binary reads a preset by name from /" \
	sh -c 'printf "%s\n" "$1" | grep -q "^8,ring,tree,"' sh "$out"

make -s -C "$d" PREFIX="$d/inst" DESTDIR="$d/stage" install >"$d/log" 2>&1
check "DESTDIR stages under its root" [ -x "$d/stage$d/inst/bin/commtime" ]
make -s -C "$d" PREFIX="$d/inst" DESTDIR="$d/stage" uninstall >"$d/log" 2>&1
check "uninstall with DESTDIR removes the binary" [ ! -e "$d/stage$d/inst/bin/commtime" ]
make -s -C "$d" PREFIX="$d/inst" uninstall >"$d/log" 2>&1
check "uninstall removes the binary" [ ! -e "$d/inst/bin/commtime" ]
check "uninstall removes the presets" [ ! -e "$d/inst/share/commtime" ]
check "uninstall removes the man page" [ ! -e "$d/inst/share/man/man1/commtime.1" ]
check "uninstall removes the completions" \
	[ ! -e "$d/inst/share/bash-completion/completions/commtime" -a ! -e "$d/inst/share/zsh/site-functions/_commtime" ]
rm -rf "$d"
