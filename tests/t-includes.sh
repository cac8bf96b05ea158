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

# "FROM TO" lines: module FROM includes the header of module TO
edges() {
	for f in src/*.[ch] src/cmd/*.[ch]; do
		dir=${f%/*}
		sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f" | while read -r h; do
			if [ -e "$dir/$h" ]; then to=$dir/$h
			elif [ -e "src/$h" ]; then to=src/$h
			else continue; fi
			echo "${f%.[ch]} ${to%.[ch]}"
		done
	done | awk '$1 != $2' | sort -u
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
backcalls() { # FILES...: "fn (cmd file) <- caller" lines
	for f in "$@"; do
		awk '/^[a-z]/ && !/^static/ && /\(/ { l = $0; sub(/\(.*/, "", l)
			n = split(l, w, /[ *]+/); print w[n] }' "$f" | while read -r fn; do
			grep -l "\(^\|[^a-z_0-9]\)$fn(" src/cmd/*.c | grep -v "^$f\$" |
				grep -v '^src/cmd/main.c$' | sed "s|^|$fn ($f) <- |"
		done
	done
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
