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

# The completions of many command lines, asked of one bash that has read
# the completion once (bash starts once, not once a line): each line of
# $d/queries is "WORDS|LAST" (LAST the word under the cursor, empty after
# a space), the command line "$cmd WORDS LAST"; for each, bash prints the
# words of COMPREPLY one a line, then a line holding only RS (octal 036).
: >"$d/queries"
: >"$d/wants"
ask_bash() { # DIR PATH: run the queries in DIR with PATH, into $d/replies
	(cd "$1" && PATH=$2 bash -c '
		. "$1"
		while IFS="|" read -r words last <&3; do
			COMP_WORDS=("$2" $words "$last"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMPREPLY=(); _commtime
			printf "%s\n" "${COMPREPLY[@]}"
			printf "\036\n"
		done' _ "$d/commtime.bash" "$cmd" 3<"$d/queries" >"$d/replies")
}
rs=$(printf '\036')
nl='
'
# complete "WORDS" WANT...: each WANT is among the completions of the last
# word (!W: W is not); the lines are asked together by checks_now
complete_has() {
	line=$1; shift
	# the word under the cursor is empty after a space
	case $line in ''|*' ') last='' ; words=$line ;; *) last=${line##* }; words=${line% *}
		[ "$words" = "$line" ] && words= ;; esac
	printf '%s|%s\n' "$words" "$last" >>"$d/queries"
	printf '%s|%s\n' "$line" "$*" >>"$d/wants"
}
# the checks of the lines queued, in their order: "'$cmd LINE'$where offers
# WANTS" ($where_bad in a failure's message); a WANT is found among the
# words as grep -qx would find it (the WANTs hold no pattern character)
checks_now() { # DIR PATH
	ask_bash "$1" "$2"
	exec 4<"$d/replies"
	while IFS='|' read -r line wants; do
		got=
		while IFS= read -r r <&4 && [ "$r" != "$rs" ]; do got=$got$r$nl; done
		got=${got%"$nl"}
		bad=
		for w in $wants; do
			case $w in
			!*) case "$nl$got$nl" in *"$nl${w#!}$nl"*)
				bad="'$cmd $line'$where_bad does not offer ${w#!}"; break ;; esac ;;
			*) case "$nl$got$nl" in *"$nl$w$nl"*) ;; *)
				bad="'$cmd $line'$where_bad offers $w (got: $(echo $got))"; break ;; esac ;;
			esac
		done
		if [ -n "$bad" ]; then notok "$bad"; else ok "'$cmd $line'$where offers $wants"; fi
	done <"$d/wants"
	exec 4<&-
	: >"$d/queries"
	: >"$d/wants"
}
cmd=commtime where= where_bad=
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
checks_now "$top" "$(dirname "$bin"):$PATH"

# Before install: "./commtime" in the tree completes, with the tree's own
# presets, when no commtime is on PATH at all.
if grep -q '^complete -F _commtime commtime ./commtime$' "$d/commtime.bash"; then
	ok "the bash completion is registered for ./commtime too"
else notok "the bash completion is registered for ./commtime too"; fi
if grep -q "^#compdef commtime -p '\*/commtime'$" "$d/_commtime"; then
	ok "the zsh completion is registered for */commtime too"
else notok "the zsh completion is registered for */commtime too"; fi
mkdir -p "$d/tree" && cp "$bin" "$d/tree/commtime" && cp -R "$top/presets" "$d/tree/presets" || exit 1
# as complete_has, for ./commtime in a tree (the last word always empty)
tree_has() { # "WORDS" WANT...
	line=$1; shift
	printf '%s|\n' "${line% *}" >>"$d/queries"
	printf '%s|%s\n' "$line" "$*" >>"$d/wants"
}
tree_has "--system " dgx-h100 aws-p5
tree_has "--preset " h100-nvlink4
tree_has "step --gpu " h100-sxm
tree_has "presets " dgx-h100 h100-sxm llama2-7b h100-nvlink4
cmd=./commtime where=" in a tree, no commtime on PATH," where_bad=" in a tree"
checks_now "$d/tree" /usr/bin:/bin
