# bash completion for tidemark.  The subcommands, their own subcommands
# (serve token add, heap stats, ...) and their options are read from
# tidemark's own --help at completion time, so they never drift.

# _tidemark_subwords WORD...: the literal words that may follow "tidemark
# WORD..." in the command's usage lines (lowercase words, not PID or FILE)
_tidemark_subwords()
{
	tidemark "$1" --help 2>/dev/null | awk -v prefix="tidemark $*" '
		{ sub(/^usage: /, ""); sub(/^ +/, "") }
		index($0, prefix " ") == 1 {
			n = split(substr($0, length(prefix) + 2), w, " ")
			if (n && w[1] ~ /^[a-z][a-z-]*$/) print w[1]
		}' | sort -u
}

_tidemark()
{
	local cur=${COMP_WORDS[COMP_CWORD]} words
	if [ "$COMP_CWORD" -eq 1 ]; then
		words=$(tidemark --help 2>/dev/null | awk '/^  [a-z]/ { print $1 }')
		COMPREPLY=($(compgen -W "$words --help --version" -- "$cur"))
		return
	fi
	case $cur in
	-*)
		words=$(tidemark "${COMP_WORDS[1]}" --help 2>/dev/null |
			grep -oE '(^|[ ,\[])--?[a-zA-Z][a-zA-Z0-9-]*' | tr -d ' ,[' | sort -u)
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		;;
	*)
		words=$(_tidemark_subwords "${COMP_WORDS[@]:1:COMP_CWORD-1}")
		if [ -n "$words" ]; then
			COMPREPLY=($(compgen -W "$words" -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		;;
	esac
}
complete -F _tidemark tidemark
