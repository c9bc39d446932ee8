#!/bin/sh
# Checks the two size limits of the code: no file under src/ or shim/ over
# MAX_FILE lines, no function over MAX_FUNC lines.  A function is counted
# from its opening brace to its closing one, both included: in code that
# clang-format has formatted with the repo's .clang-format (Linux braces),
# a function's body is the lines from a "{" alone at column 0 to the next
# "}" at column 0.  Prints each violation; exit 1 if any.
#   scripts/length.sh [ROOT]
set -u
MAX_FILE=800
MAX_FUNC=80
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
files=$(cd "$root" && find src shim -type f \( -name '*.[ch]' -o -name '*.cc' -o -name '*.proto' \) 2>/dev/null | sort)
[ -n "$files" ] || { echo "length: no source files under $root/src or $root/shim" >&2; exit 2; }
cd "$root" || exit 2
# shellcheck disable=SC2086 # one word per file
awk -v max_file="$MAX_FILE" -v max_func="$MAX_FUNC" '
function end_file() {
	if (name != "" && lines > max_file) {
		printf "%s: %d lines (at most %d a file)\n", name, lines, max_file; bad = 1
	}
}
FNR == 1 { end_file(); name = FILENAME; lines = 0; start = 0 }
{ lines++ }
/^\{[ \t]*$/ { start = FNR; sig = head; next }
start && /^\}/ {
	n = FNR - start + 1
	if (n > max_func) {
		fn = sig; sub(/\(.*/, "", fn); sub(/.*[ *]/, "", fn)
		printf "%s:%d: function %s is %d lines (at most %d)\n", FILENAME, start, fn, n, max_func
		bad = 1
	}
	start = 0
}
/^[A-Za-z_]/ && !start { head = $0 }
END { end_file(); exit bad }' $files
