#!/bin/sh
# Every tidemark command line the README shows (in its sh blocks and in
# `tidemark ...` code spans) names a command that exists, and each of its
# options is one that command's --help lists (the help is printed from the
# command's option table): the README cannot promise an option that is not
# there.
. "$(dirname "$0")/../lib.sh"
cd "$TM_ROOT" || exit 1

# lines FILE: the command lines of a markdown file: sh blocks (continuations
# joined, comments cut) and code spans
lines()
{
	{
		awk '/^```(sh|bash)/ { f = 1; next } /^```/ { f = 0 } f' "$1" |
			sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | sed 's/#.*//' | grep -oE 'tidemark [a-z].*'
		grep -oE '`tidemark [a-z][^`]*`' "$1" | tr -d '`'
	} | sed 's/ *[|>&;].*//' | sort -u
}

cmds=$("$TM" --help | awk '/^  [a-z]/ { print $1 }')
# unknown FILE: each command line of FILE whose command or option tidemark
# does not have, with what is missing
unknown()
{
	lines "$1" | while read -r line; do
		set -f
		# shellcheck disable=SC2086
		set -- $line
		set +f
		sub=$2
		if ! echo "$cmds" | grep -qx "$sub"; then
			echo "'$line': no command '$sub'"
			continue
		fi
		help=$("$TM" "$sub" --help 2>&1)
		shift 2
		# a command's own subcommand with a help of its own (runs check)
		case ${1:-} in
		[a-z]*)
			h=$("$TM" "$sub" "$1" --help 2>&1) &&
				echo "$h" | grep -q "^usage: tidemark $sub $1" && help=$h
			;;
		esac
		for w in "$@"; do
			case $w in
			--) break ;;
			--*) opt=${w%%=*} ;;
			-[a-zA-Z]) opt=$w ;;
			*) continue ;;
			esac
			# the option as help prints it: "--flag", "-x," or "-x N"
			echo "$help" | grep -qE -- "(^|[ [])$opt([ ,=[|]|\]|$)" ||
				echo "'$line': tidemark $sub --help has no $opt"
		done
	done
}

check_eq readme_command_lines_exist "$(unknown README.md)" ""
n=$(lines README.md | wc -l)
test_expect "readme_command_lines_found ($n)" '[ "$n" -ge 20 ] || test_why "only $n lines found"'

# the check itself: a planted line with an option or a command that is not there
printf '%s\n' '```sh' 'tidemark mark --db a.db load-1' 'tidemark serve token list -o x \' '   --json' \
	'tidemark bogus' '```' 'and `tidemark report --bench 1 --export md`.' >"$T/planted.md"
check_eq readme_check_finds_planted "$(unknown "$T/planted.md")" "'tidemark bogus': no command 'bogus'
'tidemark mark --db a.db load-1': tidemark mark --help has no --db
'tidemark report --bench 1 --export md': tidemark report --help has no --export
'tidemark serve token list -o x    --json': tidemark serve --help has no -o
'tidemark serve token list -o x    --json': tidemark serve --help has no --json"
finish
