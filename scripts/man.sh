#!/bin/sh
# Writes man pages for tidemark and each of its commands into OUTDIR:
# tidemark.1 and tidemark-COMMAND.1.  Each page is made from the command's
# --help, which is printed from its option table (src/base/opt.h), so the
# two cannot drift: the usage lines become SYNOPSIS, the text DESCRIPTION,
# each option section OPTIONS (one tagged paragraph an option), an "Exit
# status:" paragraph EXIT STATUS and "examples:" EXAMPLES (long lines broken
# with a shell continuation, so the page fits 80 columns);
# dist/man/environment gives ENVIRONMENT.  Paths docs/X.md become the
# installed DOCDIR/X.md.
#   scripts/man.sh BINARY OUTDIR [DOCDIR]
set -eu
bin=$1
out=$2
docdir=${3:-/usr/share/doc/tidemark}
here=$(dirname "$0")
envfile=$here/../dist/man/environment
mkdir -p "$out"
# --help as written, unwrapped (it wraps at $COLUMNS, else 80): man.awk
# joins and breaks its lines itself
COLUMNS=1000
export COLUMNS
version=$("$bin" --version 2>/dev/null | head -1 || echo tidemark)
date=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)

# page NAME SUMMARY: the --help text of NAME (tidemark or a command) as a page
page()
{
	name=$1 summary=$2
	cmd=${name#tidemark-}
	[ "$name" = tidemark ] && cmd=""
	if [ -z "$cmd" ]; then help=$("$bin" --help); else help=$("$bin" "$cmd" --help); fi
	if [ -z "$cmd" ]; then
		also=$("$bin" --help | awk '/^  [a-z]/ { printf "%s.BR tidemark-%s (1)", sep, $1; sep = ",\n" } END { print "" }')
	else
		also=".BR tidemark (1)"
	fi
	echo "$help" | awk -v name="$name" -v cmd="${cmd:-tidemark}" -v summary="$summary" \
		-v version="$version" -v date="$date" -v docdir="$docdir" -v envfile="$envfile" \
		-v also="$also" -f "$here/man.awk" >"$out/$name.1"
}

page tidemark "a memory observatory for long-running services"
"$bin" --help | awk '/^  [a-z]/ { name = $1; $1 = ""; sub(/^ +/, ""); print name "\t" $0 }' |
	while IFS="$(printf '\t')" read -r cmd summary; do
		page "tidemark-$cmd" "$summary"
	done
