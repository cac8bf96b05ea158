#!/bin/sh
# No include circles (docs/style.md, "Layout"): over the #include lines
# of src/ and src/cmd/, a file's module is its path without .c or .h, and
# module A depends on module B when a file of A includes B's header.  A
# circle among the commands and their helpers (a command and its figure
# or sheet file, the option layer and a helper) fails, and so does any
# circle of files.  The core's table.c and writer.h, the output interface
# and its formats' inside, form the one module pair allowed to lean on
# each other (writer.h is table.h's private half).
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

mkdir -p "$top/tests/tmp" && edges >"$top/tests/tmp/t-includes.edges" || exit 1
c=$(grep -v '^src/table src/writer$\|^src/writer src/table$' "$top/tests/tmp/t-includes.edges" | circles)
check "no include circle among the modules of src/ and src/cmd/" [ -z "$c" ]
[ -n "$c" ] && echo "# circles: $c"
check "the graph was read (main.c includes cli.h)" grep -q '^src/cmd/main src/cmd/cli$' "$top/tests/tmp/t-includes.edges"
# Commands call the library, never back: no file of src/cmd/ calls a
# function a command file (cmd_*.c) exports, save main.c calling the
# commands themselves; what a command shares with its sheet or figure lives
# in a helper or the core.  ("NAME(" in another file's text is a call.)
backcalls() { # CMDFILES...: "fn (cmd file) <- caller" lines, one awk over src/cmd/*.c
	awk -v cmds=" $* " '
		FNR == 1 { iscmd = index(cmds, " " FILENAME " ") > 0; files[++nf] = FILENAME }
		iscmd && /^[a-z]/ && !/^static/ && /\(/ { l = $0; sub(/\(.*/, "", l)
			n = split(l, w, /[ *]+/); def[w[n]] = FILENAME }
		{ text[FILENAME] = text[FILENAME] "\n" $0 }
		END { for (fn in def) for (i = 1; i <= nf; i++) { f = files[i]
			if (f == def[fn] || f == "src/cmd/main.c") continue
			if (match(text[f], "(^|[^a-z_0-9])" fn "\\(")) print fn " (" def[fn] ") <- " f } }
	' src/cmd/*.c
}
b=$(backcalls src/cmd/cmd_*.c)
check "no helper calls back into its command's file" [ -z "$b" ]
[ -n "$b" ] && echo "# back calls: $b"
# ... and the check has teeth: a helper that calls a command's function is found
mkdir -p "$top/tests/tmp/t-includes.d/src/cmd"
printf 'int cmd_x(int a)\n{\n\treturn x_share(a);\n}\nint x_share(int a)\n{\n\treturn a;\n}\n' \
	>"$top/tests/tmp/t-includes.d/src/cmd/cmd_x.c"
printf 'static int f(void)\n{\n\treturn x_share(1);\n}\n' >"$top/tests/tmp/t-includes.d/src/cmd/x_fig.c"
b=$(cd "$top/tests/tmp/t-includes.d" && backcalls src/cmd/cmd_x.c)
check "a helper's call into its command's file is found ($b)" [ "$b" = "x_share (src/cmd/cmd_x.c) <- src/cmd/x_fig.c" ]

# the check has teeth: a circle put in by hand is found, a chain is not
t=$(printf 'a b\nb c\nc a\n' | circles)
check "a circle of three modules is found" [ -n "$t" ]
t=$(printf 'a b\nb c\na c\n' | circles)
check "a chain is no circle" [ -z "$t" ]
echo "1..$n"
