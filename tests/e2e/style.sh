#!/bin/sh
# The code style the repository promises: clang-format with the repo's
# .clang-format on every C file, and cppcheck clean (make cppcheck).
. "$(dirname "$0")/../lib.sh"
cd "$TM_ROOT" || exit 1

if ! command -v clang-format >/dev/null 2>&1; then
	skip style_clang_format "clang-format not installed"
elif ! files=$(git ls-files '*.c' '*.h' '*.cc' 2>/dev/null) || [ -z "$files" ]; then
	skip style_clang_format "not a git checkout: no list of the repository's files"
else
	# shellcheck disable=SC2086 # one word per file
	check style_clang_format clang-format --dry-run --Werror $files
fi

if command -v cppcheck >/dev/null 2>&1; then
	check style_cppcheck make -s cppcheck
else
	skip style_cppcheck "cppcheck not installed"
fi

# The parts include each other only as src/LAYERS allows.
check style_layers sh scripts/layers.sh "$TM_ROOT"

# Only the store talks to SQLite: no other file under src/ names it.
outside=$(grep -rlE 'sqlite3|store_impl\.h' src | grep -v '^src/store/')
[ -z "$outside" ] && ok "style_sql_only_in_store" ||
	fail "style_sql_only_in_store" "SQLite outside src/store/: $outside"
finish
