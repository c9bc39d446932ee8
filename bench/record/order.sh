#!/bin/sh
# The functions a recording runs, for mk/record.order: the linker places
# them together at the start of the executable's text (mk/layout.mk), so
# that the recorder's pages are few (issue 23: the kernel maps a file 64 KiB
# around each fault, and the recorder's 90 KiB of functions were spread
# over 7 of those windows).
#
#   sh bench/record/order.sh [SECONDS] > mk/record.order
#
# Runs build/tidemark under valgrind's callgrind for SECONDS (default 20;
# the plain recording a minute more), in three recordings that between
# them take the recorder's paths: `record -p PID` of a lone process,
# `record -- COMMAND` of a tree of 50 processes it launches in a fresh
# cgroup (with the end of the run, the summary, when the command exits),
# and the same with --heap.  Prints the
# names of the functions of the executable that ran, one a line, then
# SQLite's archive members that ran (libsqlite3.a:NAME.o), then the
# source files they are in (src/.../NAME.c), whose read-only data
# (strings, tables) the linker also places first: what the plain `-p`
# recording ran first (below).
# A name the list has and a build lacks costs nothing (no section matches
# it); tests/e2e/layout.sh checks the list still names the build's
# functions.  Needs valgrind (scripts/deps.sh --test installs it).
set -eu
S=${1:-20}
# the plain recording runs past a minute's end (the minute rollup closes,
# the commit window grows): what months of recording run, not only its start
S1=$((S + 60))
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
grind one "$S1" -p "$SP"
grind tree "$((S + 60))" -- sh -c "$tree"
grind heap "$((S + 60))" --heap -- sh -c "$tree"

cat <<'EOF_HEAD'
# The functions a recording runs (bench/record/order.sh, under callgrind):
# mk/layout.mk places them first in the executable's text, in this order:
# what a plain `record -p` runs first, then what more recordings run;
# then SQLite's archive members that ran (linked in, a section each), the
# most of whose code ran first; then the source files whose read-only
# data go first.  A layout hint, not a registry: a name no build has costs
# nothing, a function missing here only lands in the rest of the text;
# tests/e2e/layout.sh checks that the build still has the names.  Regenerate after changing the
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
grep -v '^[a-z]* ???:' "$D/lines" | sed -E 's/^([a-z]+) .*:([A-Za-z_][A-Za-z0-9_.]*)$/\1 \2/' |
	grep -E '^[a-z]+ [A-Za-z_][A-Za-z0-9_.]*$' | grep -v ' main$' | LC_ALL=C sort -u | rank
# SQLite's objects, linked in from Debian's archive (the Makefile's
# CORE_LIBS), have no section per function: its members whose functions
# ran ("???:NAME", no debug information), as ARCHIVE:MEMBER, those a plain
# `record -p` runs first, then by the share of the member's code that ran
# (its functions' sizes), the largest first: the engine before the members
# that only opening a connection touches (a module's registration), whose
# rest then lies at the end.  Then the members that hold only data (no
# function) which the members that ran take (global.o: the character
# classes and opcode properties every statement reads).
A=$(cc -print-file-name=libsqlite3.a)
# the archive's symbols, read once: MEMBER TYPE NAME [SIZE] (a size for
# those nm gives one; an undefined symbol is of type U)
nm -S -A "$A" 2>/dev/null | awk 'NF >= 3 { split($1, p, ":")
		printf "%s %s %s%s\n", p[2], $(NF - 1), $NF, NF == 4 ? " " hex($2) : "" }
	function hex(h,   i, v) { v = 0; for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }' >"$D/syms"
awk '$2 ~ /^[tT]$/ { print $3, $1 }' "$D/syms" | LC_ALL=C sort -u >"$D/members"
awk '$2 ~ /^[tT]$/ && NF == 4 { print $3, $4 }' "$D/syms" | LC_ALL=C sort -u >"$D/sizes"
sed -nE 's/^([a-z]+) \?\?\?:([A-Za-z_][A-Za-z0-9_.]*)$/\1 \2/p' "$D/lines" | LC_ALL=C sort -u |
	awk 'FILENAME == ARGV[1] { m[$1] = $2; next }
		FILENAME == ARGV[2] { size[$1] = $2; if ($1 in m) total[m[$1]] += $2; next }
		($2 in m) { o = m[$2]; if ($1 == "one") one[o] = 1
			if (!(o SUBSEP $2 in f)) { f[o, $2]; ran[o] += size[$2] } }
		END { for (o in ran) printf "%d %.4f %s\n", one[o] ? 0 : 1, -ran[o] / total[o], o }' \
		"$D/members" "$D/sizes" - | LC_ALL=C sort -k1,1n -k2,2n -k3,3 | cut -d" " -f3 >"$D/ran"
# the data-only members defining a symbol the members that ran take
awk 'FILENAME == ARGV[1] { ran[$1] = 1; next }
	$2 ~ /^[tT]$/ { code[$1] = 1 }
	$2 == "U" && ($1 in ran) { used[$3] = 1 }
	$2 ~ /^[DRB]$/ { def[$3] = $1 }
	END { for (s in used) if ((s in def) && !(def[s] in code) && !(def[s] in ran)) print def[s] }' \
	"$D/ran" "$D/syms" | LC_ALL=C sort -u >"$D/data"
cat "$D/ran" "$D/data" | sed "s/^/${A##*/}:/"
sed -E 's/:[^:]*$//; s| '"$ROOT"'/| |' "$D/lines" | grep -E '^[a-z]+ src/.*\.c$' |
	LC_ALL=C sort -u | rank
