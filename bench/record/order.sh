#!/bin/sh
# The functions a recording runs, for mk/record.order: the linker places
# them together at the start of the executable's text (mk/layout.mk), so
# that the recorder's pages are few (issue 23: the kernel maps a file 64 KiB
# around each fault, and the recorder's 90 KiB of functions were spread
# over 7 of those windows).
#
#   sh bench/record/order.sh [SECONDS] > mk/record.order
#
# Runs build/tidemark under valgrind's callgrind for SECONDS (default 20)
# each, in three recordings that between them take the recorder's paths:
# `record -p PID` of a lone process, `record -- COMMAND` of a tree of 50
# processes it launches in a fresh cgroup (with the end of the run, the
# summary, when the command exits), and the same with --heap.  Prints the
# names of the functions of the executable that ran, one a line, sorted,
# then the source files they are in (src/.../NAME.c), whose read-only data
# (strings, tables) the linker also places first.
# A name the list has and a build lacks costs nothing (no section matches
# it); tests/e2e/layout.sh checks the list still names the build's
# functions.  Needs valgrind (scripts/deps.sh --test installs it).
set -eu
S=${1:-20}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TM=$ROOT/build/tidemark
D=$(mktemp -d /tmp/tidemark-order.XXXXXX)
trap 'rm -rf "$D"' EXIT
command -v valgrind >/dev/null || {
	echo "order.sh: valgrind is not installed" >&2
	exit 1
}

# grind NAME LIMIT ARGS...: one recording under callgrind, stopped by SIGINT
# after LIMIT seconds when it has not ended by itself.
grind()
{
	n=$1
	t=$2
	shift 2
	timeout -s INT "$t" valgrind --tool=callgrind --callgrind-out-file="$D/$n.cg" \
		"$TM" record -q -o "$D/$n.db" -i 100ms "$@" >/dev/null 2>"$D/$n.err" || true
	[ -s "$D/$n.cg" ] || {
		echo "order.sh: callgrind wrote nothing for $n: $(tail -3 "$D/$n.err")" >&2
		exit 1
	}
}

sleep 3600 &
SP=$!
trap 'kill $SP 2>/dev/null; rm -rf "$D"' EXIT
tree="for i in \$(seq 49); do sleep $S & done; wait"
grind one "$S" -p "$SP"
grind tree "$((S + 60))" -- sh -c "$tree"
grind heap "$((S + 60))" --heap -- sh -c "$tree"

# callgrind's list: "Ir (pct)  FILE:FUNCTION [OBJECT]", the executable's lines
for f in "$D"/*.cg; do
	callgrind_annotate --threshold=100 "$f"
done | grep -F "[$TM]" | sed -E 's/^ *[0-9,]+ +\([^)]*\) +//; s/ \[.*//' >"$D/lines"
# the functions, then the source files (FILE.c: their read-only data go
# first too)
sed -E 's/.*:([A-Za-z_][A-Za-z0-9_.]*)$/\1/' "$D/lines" |
	grep -E '^[A-Za-z_][A-Za-z0-9_.]*$' | grep -vx main | LC_ALL=C sort -u
sed -E 's/:[^:]*$//; s|^'"$ROOT"'/||' "$D/lines" | grep -E '^src/.*\.c$' | LC_ALL=C sort -u
