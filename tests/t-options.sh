#!/bin/sh
# The option tables: every command has --help (stdout, exit 0), says in at
# most three lines of stderr that an option is unknown, refuses an option
# given twice, and lists in its --help every option it parses.
top=${top:-$(cd "$(dirname "$0")/.." && pwd)}
COMMTIME=${COMMTIME:-$top/commtime}
LC_ALL=C; export LC_ALL
unset COMMTIME_PRESETS
d=$top/tests/tmp/t-options
rm -rf "$d" && mkdir -p "$d" || exit 1
cd "$top" || exit 1

n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; }
check() { # description, then a command that succeeds when the check holds
	n=$((n + 1))
	desc=$1; shift
	if "$@"; then echo "ok $n - $desc"; else echo "not ok $n - $desc"; fi
}
status_is() { # want, then the command; stdout and stderr to $d/out, $d/err
	want=$1; shift
	"$@" >"$d/out" 2>"$d/err" </dev/null
	[ "$?" = "$want" ]
}
nl='
'
tab=$(printf '\t')
has_line() { # PATTERN FILE: a line of FILE matches the shell pattern (read without a fork)
	while IFS= read -r _l || [ -n "$_l" ]; do
		# shellcheck disable=SC2254
		case $_l in $1) return 0 ;; esac
	done <"$2"
	return 1
}
short_error() { # at most three lines, the first an error naming $1 (read without a fork)
	_n=0 _first=
	while IFS= read -r _l; do
		[ "$_n" = 0 ] && _first=$_l
		_n=$((_n + 1))
	done <"$d/err"
	[ "$_n" -le 3 ] && case $_first in "commtime: error: "*"$1"*) ;; *) false ;; esac
}

cmds=$("$COMMTIME" --help-commands | cut -f1)
check "--help-commands lists the commands" test -n "$cmds"
for c in $cmds; do
	check "$c --help exits 0 on stdout" status_is 0 "$COMMTIME" "$c" --help
	# the help read once, without a fork: whole, and whether a line is
	# "usage: commtime ...$c..."
	help= usage=false
	while IFS= read -r _l || [ -n "$_l" ]; do
		help=$help$_l$nl
		case $_l in "usage: commtime"*"$c"*) usage=true ;; esac
	done <"$d/out"
	check "$c --help starts with its usage" $usage
	check "$c: an unknown option is exit 2" status_is 2 "$COMMTIME" "$c" --no-such-option
	check "$c: an unknown option takes at most three lines" short_error "'--no-such-option'"
	check "$c: the error says where to look" has_line "*commtime $c --help*" "$d/err"
	# every option of the table is in the help, and is refused twice
	"$COMMTIME" "$c" --help-complete >"$d/opts"
	check "$c --help-complete lists options" test -s "$d/opts"
	# (the first two fields of each line, as cut -f1,2 gives them)
	while IFS= read -r _l; do
		opt=${_l%%"$tab"*} argh=
		case $_l in *"$tab"*) argh=${_l#*"$tab"} argh=${argh%%"$tab"*} ;; esac
		case $help in
		*"$opt"*) ok "$c: $opt is in the help" ;;
		*) notok "$c: $opt is in the help" ;;
		esac
		case $opt in --*) ;; *) continue ;; esac
		if [ -n "$argh" ]; then
			check "$c: $opt twice is a usage error" \
				status_is 2 "$COMMTIME" "$c" "$opt=x" "$opt=y"
		else
			check "$c: $opt twice is a usage error" \
				status_is 2 "$COMMTIME" "$c" "$opt" "$opt"
		fi
			# the first line of stderr, read without a fork
		e1=
		IFS= read -r e1 <"$d/err"
		case $e1 in
		*"'$opt' given twice"*) ok "$c: $opt twice says so" ;;
		*) notok "$c: $opt twice says so" ;;
		esac
	done <"$d/opts"
done

# global options: twice is an error wherever they stand
check "a global option twice is a usage error" \
	status_is 2 "$COMMTIME" --alpha 1us ddp --alpha 2us --grad 1G --compute 1s
check "and says so" grep -q "'--alpha' given twice" "$d/err"
check "a misspelt option suggests the right one" status_is 2 "$COMMTIME" --rank 8
check "... --ranks" grep -q "did you mean '--ranks'" "$d/err"
check "a misspelt option is at most three lines" short_error "'--rank'"
check "a flag takes no value" status_is 2 "$COMMTIME" fit --robust=yes x.log
check "... and says so" grep -q "'--robust' takes no value" "$d/err"
check "a value option at the end needs its value" status_is 2 "$COMMTIME" ddp --grad
check "... and says so" grep -q "'--grad' needs a value" "$d/err"
check "--name=value works" status_is 0 "$COMMTIME" --ranks=8 --sizes=1G
check "after -- everything is an argument" status_is 2 "$COMMTIME" crossover -- --ranks
check "... an unexpected one" grep -q "unexpected argument '--ranks'" "$d/err"

# the man page's option lists are the tables' (tests/regen.sh man rewrites them)
# (one awk cuts every command's list, as one awk each would: from its
# header line to the first end line after it)
awk -v cs="global $(echo $cmds)" -v dir="$d" '
	BEGIN { n = split(cs, c, " ") }
	{ for (i = 1; i <= n; i++) {
		if (fin[i]) continue
		if (on[i]) { if ($0 == ".\\\" end of options") { fin[i] = 1; close(dir "/man." c[i]) }
			     else print > (dir "/man." c[i]) }
		else if ($0 == ".\\\" options: " c[i]) { on[i] = 1; printf "" > (dir "/man." c[i]) } } }
	END { for (i = 1; i <= n; i++) if (!on[i]) printf "" > (dir "/man." c[i]) }' commtime.1
for c in global $cmds; do
	if [ "$c" = global ]; then "$COMMTIME" --help-roff; else "$COMMTIME" "$c" --help-roff; fi >"$d/roff.$c"
	check "commtime.1 lists the options of $c as its table does" cmp -s "$d/man.$c" "$d/roff.$c"
done
