#!/bin/sh
# Counts the shell checks of tests/ that name their check twice: an `ok NAME`
# and a `fail NAME ...` for the same condition, within 3 lines of each other
# (`if COND; then ok N; else fail N "..."; fi`, `COND && ok N || fail N "..."`
# and the reversed forms).  Such a check is written as one call of
# tests/lib.sh's test_expect NAME 'COND || test_why "the values compared"'
# (or check_eq NAME ACTUAL EXPECTED, or check NAME CMD...): named once, and
# saying what it compared when it fails.  None is left (issue 18), so
# MAX_DOUBLE is 0: exit 1, with each place, when there is one.  TAP text
# ("not ok N - ...", read by sed or grep) is not a call of ok.
#   scripts/double_checks.sh [ROOT]        check against MAX_DOUBLE
#   scripts/double_checks.sh -l [ROOT]     list every place
set -u
MAX_DOUBLE=0
list=
[ "${1:-}" = -l ] && list=1 && shift
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
files=$(find tests -name '*.sh' ! -name lib.sh -type f 2>/dev/null | sort) # lib.sh: the helpers themselves
[ -n "$files" ] || { echo "double_checks: no scripts under $root/tests" >&2; exit 2; }
# shellcheck disable=SC2086 # one word per file
places=$(awk '
# the position of a call of WORD (ok or fail) as a command on this line, or 0
function call(line, word,   r) {
	r = "(^|[ \t;&|({])" word "[ \t]+[^ \t]"
	if (!match(line, r))
		return 0
	# TAP text read or written ("not ok N - ..."), not a call of ok
	if (word == "ok" && substr(line, 1, RSTART) ~ /not[ \t]$/)
		return 0
	return RSTART
}
FNR == 1 { last_ok = last_fail = -9 }
/^[ \t]*#/ { next }
{
	o = call($0, "ok"); f = call($0, "fail")
	if (o && f) { print FILENAME ":" FNR; last_ok = last_fail = -9; next }
	if (f && FNR - last_ok <= 3) { print FILENAME ":" FNR; last_ok = last_fail = -9; next }
	if (o && FNR - last_fail <= 3) { print FILENAME ":" FNR; last_ok = last_fail = -9; next }
	if (o) last_ok = FNR
	if (f) last_fail = FNR
}' $files)
n=$(printf '%s' "$places" | grep -c .)
if [ -n "$list" ]; then
	printf '%s\n' "$places"
	echo "$n checks named twice"
	exit 0
fi
if [ "$n" -gt "$MAX_DOUBLE" ]; then
	echo "$n shell checks name their check twice (ok NAME ... fail NAME), at most $MAX_DOUBLE;"
	echo "the last of them (scripts/double_checks.sh -l lists all):"
	printf '%s\n' "$places" | tail -20
	echo "write each new one as  test_expect NAME 'COND || test_why \"what was compared\"'"
	echo "(or check_eq NAME ACTUAL EXPECTED, check NAME CMD...): tests/lib.sh"
	exit 1
fi
echo "$n shell checks name their check twice (at most $MAX_DOUBLE)"
