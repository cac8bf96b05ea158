#!/bin/sh
# No include circles (docs/style.md, "Includes"): over the #include lines
# of src/ and src/cmd/, a file's module is its path without .c or .h, and
# module A depends on module B when a file of A includes B's header.  A
# circle among the commands and their helpers (a command and its figure
# or sheet file, the option layer and a helper) fails, and so does any
# circle of files.  The core's table.c and writer.h, the output interface
# and its formats' inside, form the one module pair allowed to lean on
# each other (writer.h is table.h's private half).
#
# No call back from a helper into its command (docs/style.md, "Includes"):
# a function that src/cmd/cmd_NAME.c defines beside cmd_NAME() is never
# called from one of the command's helper files, src/cmd/NAME_*.c.  The
# calls of known_callbacks below are being moved out of the commands'
# files; they are listed, and pass, until they go (the list only shrinks).
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
. "$top/tests/lib.sh"
cd "$top" || exit 1

# "FROM TO" lines: module FROM includes the header of module TO (one awk:
# a header is the including file's neighbour, else one of src/)
edges() {
	awk -v list="$(echo src/*.[ch] src/cmd/*.[ch])" '
		BEGIN { n = split(list, f, " "); for (i = 1; i <= n; i++) have[f[i]] = 1 }
		/^[ \t]*#[ \t]*include[ \t]*"/ {
			h = $0; sub(/^[^"]*"/, "", h); sub(/".*/, "", h)
			dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
			if ((dir "/" h) in have) to = dir "/" h
			else if (("src/" h) in have) to = "src/" h
			else next
			from = FILENAME; sub(/\.[ch]$/, "", from); sub(/\.[ch]$/, "", to)
			if (from != to) print from, to
		}' src/*.[ch] src/cmd/*.[ch] | sort -u
}

# the modules on a circle of the graph of "FROM TO" lines on stdin
circles() {
	awk '{ adj[$1] = adj[$1] " " $2; node[$1]; node[$2] }
	function dfs(v,   n, i, w, k, s) {
		state[v] = 1; stack[++sp] = v
		n = split(adj[v], w, " ")
		for (i = 1; i <= n; i++) {
			if (state[w[i]] == 1) {
				s = ""
				for (k = sp; k >= 1; k--) { s = stack[k] " " s; if (stack[k] == w[i]) break }
				print s
			} else if (!state[w[i]]) dfs(w[i])
		}
		sp--; state[v] = 2
	}
	END { for (v in node) if (!state[v]) dfs(v) }'
}

# Text of a C file without its comments (the preprocessor's reading, no include expanded).
uncommented() {
	${CC:-cc} -fpreprocessed -dD -E -P "$1" 2>/dev/null || cat "$1"
}

# "HELPER FUNCTION" for each call from a helper file of a command in DIR
# (NAME_*.c) into a function its command's file (cmd_NAME.c) defines and
# does not keep static, cmd_NAME itself aside
callbacks() {
	for c in "$1"/cmd_*.c; do
		[ -e "$c" ] || continue
		name=${c##*/cmd_}
		name=${name%.c}
		funcs=$(uncommented "$c" | awk '
			/^[A-Za-z_]/ && /\(/ && !/;[ \t]*$/ { cand = $0 }
			/^(static|typedef|extern|enum|union|#)/ { cand = "" }
			/^\{/ { if (cand != "") { s = cand; sub(/\(.*/, "", s); sub(/.*[ *]/, "", s); print s }
				cand = "" }' | grep -vx "cmd_$name")
		[ -n "$funcs" ] || continue
		for h in "$1/$name"_*.c; do
			[ -e "$h" ] || continue
			body=$(uncommented "$h")
			for fn in $funcs; do
				printf '%s\n' "$body" | grep -q "\\b$fn[ 	]*(" && echo "${h##*/} $fn"
			done
		done
	done | sort -u
}

# Calls from a helper into its command's file that are known and being moved.
known_callbacks() {
	:
}

mkdir -p "$top/tests/tmp" && edges >"$top/tests/tmp/t-includes.edges" || exit 1
c=$(grep -v '^src/table src/writer$\|^src/writer src/table$' "$top/tests/tmp/t-includes.edges" | circles)
check "no include circle among the modules of src/ and src/cmd/" [ -z "$c" ]
[ -n "$c" ] && echo "# circles: $c"
check "the graph was read (main.c includes cli.h)" grep -q '^src/cmd/main src/cmd/cli$' "$top/tests/tmp/t-includes.edges"
callbacks src/cmd >"$top/tests/tmp/t-includes.calls"
known_callbacks | sort >"$top/tests/tmp/t-includes.known"
new=$(comm -23 "$top/tests/tmp/t-includes.calls" "$top/tests/tmp/t-includes.known")
check "no call from a command's helper file into its command's file${new:+ (new: $(echo $new))}" [ -z "$new" ]
comm -12 "$top/tests/tmp/t-includes.calls" "$top/tests/tmp/t-includes.known" |
	sed 's/^/# known call back into the command, being moved: /'
comm -13 "$top/tests/tmp/t-includes.calls" "$top/tests/tmp/t-includes.known" |
	sed 's/^/# gone, drop it from known_callbacks: /'
# the check has teeth: a call into the command's file is found; a call of
# a static function of the same name, a comment and another command's
# function are not
t=$top/tests/tmp/t-includes.d
rm -rf "$t" && mkdir -p "$t" || exit 1
printf 'int x_part(int a)\n{\n\treturn a;\n}\n\nstatic int x_own(void)\n{\n\treturn 0;\n}\n\nint cmd_x(int argc)\n{\n\treturn x_part(argc) + x_own();\n}\n' >"$t/cmd_x.c"
printf 'int x_part(int a);\nint x_fig(void)\n{\n\treturn x_part(1);\n}\n' >"$t/x_fig.c"
printf '/* x_part(2) is not called here */\nstatic int x_own(void)\n{\n\treturn 1;\n}\nint y_part(void)\n{\n\treturn x_own();\n}\n' >"$t/x_sheet.c"
found=$(callbacks "$t")
check "a helper's call into its command's file is found, and nothing else" [ "$found" = "x_fig.c x_part" ]
# the check has teeth: a circle put in by hand is found, a chain is not
t=$(printf 'a b\nb c\nc a\n' | circles)
check "a circle of three modules is found" [ -n "$t" ]
t=$(printf 'a b\nb c\na c\n' | circles)
check "a chain is no circle" [ -z "$t" ]
echo "1..$n"
