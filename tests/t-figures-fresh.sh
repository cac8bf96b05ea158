#!/bin/sh
# The committed figures cannot go stale: every gnuplot script of plots/
# that plots/make-figures.sh writes is written again from the commtime
# under test, in a scratch tree shaped like the repository, and must equal
# the committed one byte for byte.  When one differs, `make figures`
# rewrites it (and its image): review the diff and commit both.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
d=$top/tests/tmp/t-figures-fresh
rm -rf "$d" && mkdir -p "$d/plots" || exit 1
ln -s "$top/tests" "$d/tests" && ln -s "$top/presets" "$d/presets" || exit 1
cp "$top/plots/make-figures.sh" "$d/plots/" || exit 1
case $COMMTIME in /*) c=$COMMTIME ;; *) c=$top/$COMMTIME ;; esac
if FIGURES_SCRIPTS_ONLY=1 COMMTIME=$c sh "$d/plots/make-figures.sh" >"$d/out" 2>&1; then
	ok "plots/make-figures.sh writes the scripts"
else
	notok "plots/make-figures.sh writes the scripts: $(tail -1 "$d/out")"
fi
for g in "$d"/plots/*.gp; do
	[ -e "$g" ] || continue
	b=$(basename "$g")
	if cmp -s "$g" "$top/plots/$b"; then ok "plots/$b is as committed"
	else
		notok "plots/$b is stale: run 'make figures', review and commit it"
		diff -u "$top/plots/$b" "$g" | head -20
	fi
done
rm -rf "$d"
