#!/bin/sh
# Regenerate the expected outputs the tests compare against, from the
# commtime just built, and show what changed for review:
#
#   sh tests/regen.sh [golden|models|readme|man|all] [PATTERN]
#
#   golden   tests/golden/NNN-name.out from NNN-name.cmd (PATTERN: a part
#            of the name, e.g. 7 or fit)
#   models   the output of every ```console block of models/*.md
#   readme   the output of every ```console example of README.md and
#            docs/*.md (examples that elide output with "..." stay as they are)
#   man      the option lists of commtime.1, from the option tables
#   all      all of these (the default)
#
# It runs in the pinned environment of the tests (LC_ALL=C, no
# COMMTIME_PRESETS), then prints "git diff --stat" and the diff of the
# files it rewrote.  Nothing is committed: read the diff, then commit or
# "git checkout -- FILE" what is wrong.  `make regen` runs it.
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
LC_ALL=C; export LC_ALL
unset COMMTIME_PRESETS
COMMTIME=${COMMTIME:-$top/commtime}
what=${1:-all}
pattern=${2:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/commtime-regen.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
changed=

[ -x "$COMMTIME" ] || { echo "regen: build commtime first (make)" >&2; exit 1; }

# Run "commtime ARGS" as the tests do: ARGS are shell words.
run() { # args; stdout (and stderr when $2 is "both") to stdout
	if [ "${2:-}" = both ]; then
		(eval "set -- $1" && exec "$COMMTIME" "$@") 2>&1
	else
		(eval "set -- $1" && exec "$COMMTIME" "$@") 2>/dev/null
	fi
}

replace() { # new file, target: move into place when it differs
	if ! cmp -s "$1" "$2"; then
		mv "$1" "$2"
		changed="$changed $2"
	fi
}

regen_golden() {
	for cmd in tests/golden/*"$pattern"*.cmd; do
		[ -e "$cmd" ] || continue
		base=${cmd%.cmd}
		want=0
		[ -f "$base.status" ] && want=$(cat "$base.status")
		run "$(cat "$cmd")" >"$tmp/out"
		st=$?
		[ "$st" = "$want" ] || echo "regen: $cmd: exit status $st, $base.status says $want" >&2
		replace "$tmp/out" "$base.out"
	done
}

# A ```console block: "$ commtime ARGS" on its first line, then its output.
regen_models() {
	for md in models/*"$pattern"*.md; do
		[ -e "$md" ] || continue
		: >"$tmp/new"
		state=text
		while IFS= read -r line || [ -n "$line" ]; do
			case $state in
			text)
				printf '%s\n' "$line" >>"$tmp/new"
				[ "$line" = '```console' ] && state=first ;;
			first)
				printf '%s\n' "$line" >>"$tmp/new"
				case $line in
				'$ commtime'*)
					run "${line#'$ commtime'}" >>"$tmp/new"
					state=skip ;;
				*) state=text ;;
				esac ;;
			skip)
				if [ "$line" = '```' ]; then
					printf '%s\n' "$line" >>"$tmp/new"
					state=text
				fi ;;
			esac
		done <"$md"
		replace "$tmp/new" "$md"
	done
}

# An indented "    $ commtime ARGS" line (continued by a trailing
# backslash), then its output indented by four spaces up to the next
# line of prose; blank lines at its end belong to the prose.
regen_readme() {
	# the ```console examples of README.md and docs/*.md, run as
	# tests/t-readme.sh runs them (in order, in a scratch copy of the tree)
	for f in README.md docs/*.md; do
		[ -e "$f" ] || continue
		cp "$f" "$tmp/before"
		READMECHECK_REGEN=1 READMECHECK_INNER=1 READMECHECK_DIR="$tmp/readme" \
			READMECHECK_FILES=$f COMMTIME=$COMMTIME sh tests/t-readme.sh >/dev/null
		cmp -s "$tmp/before" "$f" || changed="$changed $f"
	done
}

# commtime.1 holds each option list between
#   .\" options: COMMAND          (or "global")
#   .\" end of options
# and gets it from "commtime COMMAND --help-roff".
regen_man() {
	f=commtime.1
	: >"$tmp/new"
	skip=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'.\" options: '*)
			printf '%s\n' "$line" >>"$tmp/new"
			c=${line#'.\" options: '}
			if [ "$c" = global ]; then
				"$COMMTIME" --help-roff >>"$tmp/new"
			else
				"$COMMTIME" "$c" --help-roff >>"$tmp/new"
			fi
			skip=1
			continue ;;
		'.\" end of options')
			skip=0 ;;
		esac
		[ "$skip" = 1 ] || printf '%s\n' "$line" >>"$tmp/new"
	done <"$f"
	replace "$tmp/new" "$f"
}

case $what in
golden) regen_golden ;;
models) regen_models ;;
readme) regen_readme ;;
man) regen_man ;;
all) regen_golden; regen_models; regen_readme; regen_man ;;
*) echo "usage: sh tests/regen.sh [golden|models|readme|man|all] [PATTERN]" >&2; exit 2 ;;
esac

if [ -z "$changed" ]; then
	echo "regen: nothing changed"
	exit 0
fi
# shellcheck disable=SC2086
git --no-pager diff --stat -- $changed
# shellcheck disable=SC2086
git --no-pager diff -- $changed
echo "regen: rewrote$changed; review the diff above before committing"
