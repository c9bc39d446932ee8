# bash completion for tidemark.  The subcommands and their options are read
# from tidemark's own --help at completion time, so they never drift.
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
		COMPREPLY=($(compgen -f -- "$cur"))
		;;
	esac
}
complete -F _tidemark tidemark
