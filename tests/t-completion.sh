#!/bin/sh
# The bash completion written from the option tables: commands, each
# command's options and the global ones, option values (words, preset
# names, files), with the command found past options and their values.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
d=$top/tests/tmp/t-completion
rm -rf "$d" && mkdir -p "$d" || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
if ! command -v bash >/dev/null 2>&1; then
	echo "ok 1 # skip: bash is not installed"
	exit 0
fi
case $COMMTIME in
*/valgrind-*) bin=$top/commtime ;;
*) bin=$COMMTIME ;;
esac
sh "$top/completion/gen.sh" "$bin" "$d" || { notok "gen.sh writes the completions"; exit 0; }
ok "gen.sh writes the completions"
if bash -n "$d/commtime.bash"; then ok "the bash completion parses"; else notok "the bash completion parses"; fi

# complete "WORDS" WANT...: each WANT is among the completions of the last word
complete_has() {
	line=$1; shift
	# the word under the cursor is empty after a space
	case $line in ''|*' ') last='' ; words=$line ;; *) last=${line##* }; words=${line% *}
		[ "$words" = "$line" ] && words= ;; esac
	# shellcheck disable=SC2086
	got=$(cd "$top" && PATH="$(dirname "$bin"):$PATH" bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _commtime
		printf "%s\n" "${COMPREPLY[@]}"' _ "$d/commtime.bash" commtime $words "$last")
	for w in "$@"; do
		case $w in
		!*) if printf '%s\n' "$got" | grep -qx -- "${w#!}"; then
			notok "'commtime $line' does not offer ${w#!}"; return; fi ;;
		*) if ! printf '%s\n' "$got" | grep -qx -- "$w"; then
			notok "'commtime $line' offers $w (got: $(echo $got))"; return; fi ;;
		esac
	done
	ok "'commtime $line' offers $*"
}
complete_has "" allreduce ddp presets help
complete_has "d" ddp '!zero'
complete_has "ddp --" --grad --compute --workload --alpha --format --help '!--sizes'
complete_has "--alpha 5us ddp --ov" --overlap
complete_has "ddp --algo " ring dbtree rabenseifner
complete_has "--format " table csv json
complete_has "--preset " h100-nvlink4 '!llama2-7b'
complete_has "zero --workload " llama2-7b '!h100-nvlink4'
complete_has "--ranks 8 --s" --sizes
complete_has "pipeline --schedule " 1f1b interleaved
complete_has "presets " h100-nvlink4 llama2-7b
complete_has "help " ddp fit
complete_has "fit --in-place --" --robust --holdout

# Before install: "./commtime" in the tree completes, with the tree's own
# presets, when no commtime is on PATH at all.
if grep -q '^complete -F _commtime commtime ./commtime$' "$d/commtime.bash"; then
	ok "the bash completion is registered for ./commtime too"
else notok "the bash completion is registered for ./commtime too"; fi
if grep -q "^#compdef commtime -p '\*/commtime'$" "$d/_commtime"; then
	ok "the zsh completion is registered for */commtime too"
else notok "the zsh completion is registered for */commtime too"; fi
mkdir -p "$d/tree" && cp "$bin" "$d/tree/commtime" && cp -R "$top/presets" "$d/tree/presets" || exit 1
tree_has() { # "WORDS" WANT...: as complete_has, for ./commtime in a tree
	line=$1; shift
	words=${line% *}; last=
	# shellcheck disable=SC2086
	got=$(cd "$d/tree" && PATH=/usr/bin:/bin bash -c '
		. "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _commtime
		printf "%s\n" "${COMPREPLY[@]}"' _ "$d/commtime.bash" ./commtime $words "$last")
	for w in "$@"; do
		if ! printf '%s\n' "$got" | grep -qx -- "$w"; then
			notok "'./commtime $line' in a tree offers $w (got: $(echo $got))"; return; fi
	done
	ok "'./commtime $line' in a tree, no commtime on PATH, offers $*"
}
tree_has "--system " dgx-h100 aws-p5
tree_has "--preset " h100-nvlink4
tree_has "step --gpu " h100-sxm
tree_has "presets " dgx-h100 h100-sxm llama2-7b h100-nvlink4
