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
# names of the functions of the executable that ran, one a line, then the
# source files they are in (src/.../NAME.c), whose read-only data
# (strings, tables) the linker also places first: what the plain `-p`
# recording ran first (below).
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

cat <<'EOF_HEAD'
# The functions a recording runs (bench/record/order.sh, under callgrind):
# mk/layout.mk places them first in the executable's text, in this order:
# what a plain `record -p` runs first, then what more recordings run.  A
# layout hint, not a registry: a name no build has costs nothing, a function
# missing here only lands in the rest of the text; tests/e2e/layout.sh
# checks that the build still has the names.  Regenerate after changing the
# recorder:
#   sh bench/record/order.sh > mk/record.order
EOF_HEAD
# callgrind's list: "Ir (pct)  FILE:FUNCTION [OBJECT]", the executable's
# lines, each with the recording it came from
for n in one tree heap; do
	callgrind_annotate --threshold=100 "$D/$n.cg" | grep -F "[$TM]" |
		sed -E 's/^ *[0-9,]+ +\([^)]*\) +//; s/ \[.*//; s/^/'"$n"' /'
done >"$D/lines"
# The functions, then the source files (FILE.c: their read-only data go
# first too), each in the order a recorder meets them: first what a plain
# `record -p` runs (a kept unit, a node: the recording that runs for
# months, whose pages should be the fewest windows), then what more of the
# recordings run, then the rest; by name within each.
rank()
{
	awk '{ if ($1 == "one") one[$2] = 1; seen[$2]++ }
		END { for (k in seen) printf "%d %d %s\n", one[k] ? 0 : 1, 3 - seen[k], k }' |
		LC_ALL=C sort -k1,1n -k2,2n -k3,3 | cut -d" " -f3
}
sed -E 's/^([a-z]+) .*:([A-Za-z_][A-Za-z0-9_.]*)$/\1 \2/' "$D/lines" |
	grep -E '^[a-z]+ [A-Za-z_][A-Za-z0-9_.]*$' | grep -v ' main$' | LC_ALL=C sort -u | rank
sed -E 's/:[^:]*$//; s| '"$ROOT"'/| |' "$D/lines" | grep -E '^[a-z]+ src/.*\.c$' |
	LC_ALL=C sort -u | rank
