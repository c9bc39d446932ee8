#!/bin/sh
# Writes man pages for tidemark and each of its commands from their --help
# text into OUTDIR: tidemark.1 and tidemark-COMMAND.1.
#   scripts/man.sh BINARY OUTDIR
set -eu
bin=$1
out=$2
mkdir -p "$out"
version=$("$bin" --version 2>/dev/null | head -1 || echo tidemark)
date=$(date -u +%Y-%m-%d)

# roff-safe: a leading dot or quote would be a request, backslashes escapes
roff() { sed -e 's/\\/\\e/g' -e "s/^[.']/\\\\\\&&/"; }

# page NAME SUMMARY: the --help text of NAME (tidemark or a command) as a page
page()
{
	name=$1 summary=$2
	if [ "$name" = tidemark ]; then help=$("$bin" --help); else help=$("$bin" "${name#tidemark-}" --help); fi
	upper=$(echo "$name" | tr a-z A-Z)
	{
		echo ".TH $upper 1 \"$date\" \"$version\" \"tidemark\""
		echo ".SH NAME"
		echo "$name \\- $(echo "$summary" | roff)"
		echo ".SH DESCRIPTION"
		echo ".nf"
		echo "$help" | roff
		echo ".fi"
		echo ".SH SEE ALSO"
		if [ "$name" = tidemark ]; then
			"$bin" --help | awk '/^  [a-z]/ { printf "%stidemark-%s(1)", sep, $1; sep = ", " } END { print "" }'
		else
			echo "tidemark(1)"
		fi
	} >"$out/$name.1"
}

page tidemark "a memory observatory for long-running services"
"$bin" --help | awk '/^  [a-z]/ { name = $1; $1 = ""; sub(/^ +/, ""); print name "\t" $0 }' |
	while IFS="$(printf '\t')" read -r cmd summary; do
		page "tidemark-$cmd" "$summary"
	done
