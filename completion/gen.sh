#!/bin/sh
# Write the bash and zsh completions of commtime from its option tables:
#
#   sh completion/gen.sh ./commtime OUTDIR
#
# writes OUTDIR/commtime.bash and OUTDIR/_commtime.  Everything they know
# comes from the binary: the commands (--help-commands), the global options
# (--help-complete) and each command's options (COMMAND --help-complete),
# each with what its value completes to: files, directories, preset names
# of a kind, or a list of words.  Preset names are looked up when the
# completion runs, so presets added later complete too.
set -e
bin=${1:?usage: gen.sh COMMTIME OUTDIR}
out=${2:?usage: gen.sh COMMTIME OUTDIR}
LC_ALL=C; export LC_ALL
tab=$(printf '\t')
nl='
'
# The binary is asked once for each table; the rest is shell built-ins.
commands=$("$bin" --help-commands)
cmds=
while IFS="$tab" read -r c summary; do cmds="$cmds${cmds:+$nl}$c"; done <<EOF
$commands
EOF
opts_global=$("$bin" --help-complete)
for c in $cmds; do
	eval "opts_$c=\$(\"\$bin\" \"\$c\" --help-complete)"
done
# The option table of command $1 (the global options for "").
table() {
	if [ -z "$1" ]; then printf '%s\n' "$opts_global"
	else eval "printf '%s\n' \"\$opts_$1\""; fi
}
# Its option names, on one line.
names() {
	_n=
	while IFS="$tab" read -r _o _rest; do _n="$_n${_n:+ }$_o"; done <<EOF
$(table "$1")
EOF
	printf '%s' "$_n"
}

# The shell function both completions share: what the value of option $2
# of command $1 completes to ("flag" when it takes none, "" for nothing).
common() {
	echo '# What the value of option $2 of command $1 completes to: "flag" when'
	echo '# the option takes no value, files, dirs, presets:KIND, words:LIST or none.'
	echo '_commtime_value() {'
	echo '	case "$1 $2" in'
	for c in "" $cmds; do
		table "$c" |
		while IFS="$tab" read -r opt argh comp; do
			if [ -z "$c" ]; then pat="*\" $opt\""; else pat="\"$c $opt\""; fi
			if [ -z "$argh" ]; then v=flag
			elif [ -z "$comp" ]; then v=none
			else case $comp in
				files|dirs|presets:*) v=$comp ;;
				*) v="words:$comp" ;;
				esac
			fi
			printf '\t%s) echo "%s" ;;\n' "$pat" "$v"
		done
	done
	echo '	*" -h"|*" --help") echo flag ;;'
	echo '	*) echo unknown ;;'
	echo '	esac'
	echo '}'
	echo
	echo '# The options of command $1 (the global ones with it).'
	echo '_commtime_options() {'
	printf '\tg="%s --help"\n' "$(names "")"
	echo '	case "$1" in'
	for c in $cmds; do
		printf '\t%s) echo "$g %s" ;;\n' "$c" "$(names "$c")"
	done
	echo '	*) echo "$g" ;;'
	echo '	esac'
	echo '}'
	echo
	echo '# Preset names of a kind (link, workload, ...), from the search path of'
	echo '# the binary being completed ($_commtime_bin: ./commtime finds the presets'
	echo '# of its own tree before it is installed).'
	echo '_commtime_presets() {'
	echo '	"${_commtime_bin:-commtime}" --format csv presets --kind "$1" 2>/dev/null | sed -n "2,\$ s/,.*//p"'
	echo '}'
	echo
	echo '# The command of a command line (words 1 to $#-1): the first word that is'
	echo '# neither an option nor the value of one; allreduce when there is none.'
	echo '_commtime_command() {'
	echo '	_cc_skip=0 _cc_cmd='
	echo '	for _cc_w in "$@"; do'
	echo '		if [ "$_cc_skip" = 1 ]; then _cc_skip=0; continue; fi'
	echo '		case $_cc_w in'
	echo '		--*=*) ;;'
	echo '		-*) [ "$(_commtime_value "${_cc_cmd:-allreduce}" "$_cc_w")" = flag ] || _cc_skip=1 ;;'
	echo '		*) if [ -z "$_cc_cmd" ]; then _cc_cmd=$_cc_w; fi ;;'
	echo '		esac'
	echo '	done'
	echo '	echo "${_cc_cmd}"'
	echo '}'
}

{
	echo '# bash completion for commtime, written by completion/gen.sh from the'
	echo '# option tables of the binary; do not edit.'
	echo
	common
	echo
	printf '_commtime_commands="%s help"\n' "$(echo $cmds)"
	echo
	echo '_commtime() {'
	echo '	local cur prev cmd spec'
	echo '	cur=${COMP_WORDS[COMP_CWORD]}'
	echo '	prev=${COMP_WORDS[COMP_CWORD-1]}'
	echo '	COMPREPLY=()'
	echo '	_commtime_bin=${COMP_WORDS[0]}'
	echo '	case $_commtime_bin in "~"/*) _commtime_bin=$HOME/${_commtime_bin#"~/"} ;; esac'
	echo '	cmd=$(_commtime_command "${COMP_WORDS[@]:1:COMP_CWORD-1}")'
	echo '	[ "$cmd" = help ] && { COMPREPLY=($(compgen -W "$_commtime_commands" -- "$cur")); return; }'
	echo '	if [ "$COMP_CWORD" -gt 1 ] && [[ $prev == -* ]]; then'
	echo '		spec=$(_commtime_value "${cmd:-allreduce}" "$prev")'
	echo '		case $spec in'
	echo '		files) COMPREPLY=($(compgen -f -- "$cur")); return ;;'
	echo '		dirs) COMPREPLY=($(compgen -d -- "$cur")); return ;;'
	echo '		presets:*) COMPREPLY=($(compgen -W "$(_commtime_presets "${spec#presets:}")" -- "$cur")); return ;;'
	echo '		words:*) COMPREPLY=($(compgen -W "${spec#words:}" -- "$cur")); return ;;'
	echo '		none) return ;;'
	echo '		esac'
	echo '	fi'
	echo '	if [[ $cur == -* ]]; then'
	echo '		COMPREPLY=($(compgen -W "$(_commtime_options "${cmd:-allreduce}")" -- "$cur"))'
	echo '	elif [ -z "$cmd" ]; then'
	echo '		COMPREPLY=($(compgen -W "$_commtime_commands" -- "$cur"))'
	echo '	elif [ "$cmd" = presets ]; then'
	echo '		COMPREPLY=($(compgen -W "$(for k in link system gpu workload; do _commtime_presets $k; done)" -- "$cur"))'
	echo '	else'
	echo '		COMPREPLY=($(compgen -f -- "$cur"))'
	echo '	fi'
	echo '}'
	echo '# the installed commtime and one run from its tree (./commtime)'
	echo 'complete -F _commtime commtime ./commtime'
} >"$out/commtime.bash"

{
	echo "#compdef commtime -p '*/commtime'"
	echo '# zsh completion for commtime, written by completion/gen.sh from the'
	echo '# option tables of the binary; do not edit.'
	echo
	common
	echo
	echo '_commtime() {'
	echo '	local cmd spec prev'
	echo '	local -a commands'
	echo '	commands=('
	printf '%s\n' "$commands" |
		sed "s/'/'\\\\''/g; s/:/\\\\:/g; s/$tab/:/; s/^/$tab$tab'/; s/\$/'/"
	echo "		'help:show the usage, or a command'\"'\"'s options'"
	echo '	)'
	echo '	_commtime_bin=${words[1]}'
	echo '	[[ $_commtime_bin == "~/"* ]] && _commtime_bin=$HOME/${_commtime_bin#"~/"}'
	echo '	cmd=$(_commtime_command "${(@)words[2,CURRENT-1]}")'
	echo '	prev=${words[CURRENT-1]}'
	echo '	if [[ $cmd == help ]]; then _describe command commands; return; fi'
	echo '	if (( CURRENT > 2 )) && [[ $prev == -* ]]; then'
	echo '		spec=$(_commtime_value "${cmd:-allreduce}" "$prev")'
	echo '		case $spec in'
	echo '		files) _files; return ;;'
	echo '		dirs) _files -/; return ;;'
	echo '		presets:*) compadd -- ${(f)"$(_commtime_presets ${spec#presets:})"}; return ;;'
	echo '		words:*) compadd -- ${=spec#words:}; return ;;'
	echo '		none) return ;;'
	echo '		esac'
	echo '	fi'
	echo '	if [[ $PREFIX == -* ]]; then'
	echo '		compadd -- ${=$(_commtime_options "${cmd:-allreduce}")}'
	echo '	elif [[ -z $cmd ]]; then'
	echo '		_describe command commands'
	echo '	elif [[ $cmd == presets ]]; then'
	echo '		compadd -- ${(f)"$(for k in link system gpu workload; do _commtime_presets $k; done)"}'
	echo '	else'
	echo '		_files'
	echo '	fi'
	echo '}'
	echo
	echo '_commtime "$@"'
} >"$out/_commtime"
