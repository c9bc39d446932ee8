#!/bin/sh
# The code style the repository promises: clang-format with the repo's
# .clang-format on every C file, cppcheck clean (make cppcheck), the
# include rule of src/LAYERS (scripts/layers.sh), the size limits of files
# and functions (scripts/length.sh), headers that compile alone (make
# hdr-check), SQLite only in src/store/, shell checks named once
# (scripts/double_checks.sh), one error channel (scripts/errchannel.sh).
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

# The checks above see what they forbid: a planted include that LAYERS does
# not allow, an include by bare name, and a cycle in LAYERS, each fail
# (in a tree of their own under the test's $T).
mkdir -p "$T/src/base" "$T/src/kern" "$T/shim"
printf 'base:\nkern: base\n' >"$T/src/LAYERS"
echo '#include "base/x.h"' >"$T/src/kern/k.c"
check style_layers_allows sh scripts/layers.sh "$T"
echo '#include "kern/k.h"' >"$T/src/base/b.c"
check_fails style_layers_refuses_upward "base/b.c:1: base may not include kern/" \
	sh scripts/layers.sh "$T"
echo '#include "k.h"' >"$T/src/base/b.c"
check_fails style_layers_refuses_bare_name "include by folder path" sh scripts/layers.sh "$T"
rm "$T/src/base/b.c"
printf 'base: kern\nkern: base\n' >"$T/src/LAYERS"
check_fails style_layers_refuses_cycle "depends on itself" sh scripts/layers.sh "$T"

# No file under src/ or shim/ over 800 lines, no function over 80
# (scripts/length.sh); and the check refuses a planted 801st line and 81st.
check style_length sh scripts/length.sh "$TM_ROOT"
rm -rf "$T/src" && mkdir -p "$T/src/x"
awk 'BEGIN { for (i = 1; i <= 800; i++) print "int a" i ";" }' >"$T/src/x/long.c"
awk 'BEGIN { print "static int f(void)\n{"; for (i = 1; i <= 78; i++) print "\tg();"; print "}" }' \
	>"$T/shim/fn.c"
check style_length_at_limits sh scripts/length.sh "$T"
echo 'int more;' >>"$T/src/x/long.c"
check_fails style_length_refuses_long_file "src/x/long.c: 801 lines" sh scripts/length.sh "$T"
rm "$T/src/x/long.c" && echo 'int a;' >"$T/src/x/short.c"
awk 'BEGIN { print "const char *\nwide(int a,\n     int b)\n{"; for (i = 1; i <= 79; i++) print "\tg();"; print "}" }' \
	>"$T/shim/fn.c"
check_fails style_length_refuses_long_function "shim/fn.c:4: function wide is 81 lines" \
	sh scripts/length.sh "$T"

# Every header under src/ compiles on its own (make hdr-check); and the
# check refuses a planted header that uses size_t without including it.
check style_hdr_check make -s hdr-check
rm -rf "$T/src" && mkdir -p "$T/src/x"
printf '#include <stddef.h>\nsize_t good(void);\n' >"$T/src/x/good.h"
check style_hdr_check_passes_whole_header make -s hdr-check HDR_ROOT="$T" HDR_OUT="$T/hdr"
printf 'size_t bad(void);\n' >"$T/src/x/bad.h"
check_fails style_hdr_check_refuses_partial_header "x/bad.h does not compile on its own" \
	make -s hdr-check HDR_ROOT="$T" HDR_OUT="$T/hdr"
rm -rf "$T/src"

# Every folder of src/ is in README's layout and has its row in
# docs/ARCHITECTURE.md, and neither names a folder that is not there.
docs_bad=
for d in src/*/; do
	d=${d#src/}
	d=${d%/}
	grep -q "^src/$d/" README.md || docs_bad="$docs_bad README.md lacks src/$d/;"
	grep -q "^| \`$d/\` |" docs/ARCHITECTURE.md || docs_bad="$docs_bad docs/ARCHITECTURE.md lacks $d/;"
done
for d in $(sed -n 's|^src/\([a-z]*\)/.*|\1|p' README.md) \
	$(sed -n 's/^| `\([a-z]*\)\/` |.*/\1/p' docs/ARCHITECTURE.md); do
	[ -d "src/$d" ] || docs_bad="$docs_bad src/$d/ is named but not there;"
done
test_expect "style_docs_name_every_folder" '[ -z "$docs_bad" ] || test_why "$docs_bad"'

# The parts are one list: every folder or room of src/ that holds code, the
# parts of src/LAYERS (but main), the rows of docs/ARCHITECTURE.md and the
# Makefile's parts are the same set.
parts_of_tree=$(cd src && find . -mindepth 2 -maxdepth 3 -name '*.[ch]' | sed 's|^\./||; s|/[^/]*$||' | sort -u)
parts_of_layers=$(sed -n 's/^\([a-z_/]*\):.*/\1/p' src/LAYERS | grep -vx main | sort -u)
parts_of_docs=$(sed -n 's/^| `\([a-z_/]*\)\/` |.*/\1/p' docs/ARCHITECTURE.md | sort -u)
parts_of_make=$(make -s print-parts | tr ' ' '\n' | sort -u)
parts_bad=
for pair in "src/LAYERS:$parts_of_layers" "docs/ARCHITECTURE.md:$parts_of_docs" "Makefile:$parts_of_make"; do
	name=${pair%%:*}
	list=${pair#*:}
	[ "$list" = "$parts_of_tree" ] ||
		parts_bad="$parts_bad $name names [$(echo $list)], the tree has [$(echo $parts_of_tree)];"
done
test_expect "style_parts_agree" '[ -z "$parts_bad" ] || test_why "$parts_bad"'

# Shell checks are named once (test_expect, check_eq, check): no old
# `ok NAME ... fail NAME` pair is left under tests/ (scripts/double_checks.sh
# holds the number, 0); it refuses one more, and TAP text is not a call.
check style_checks_named_once sh scripts/double_checks.sh "$TM_ROOT"
max=$(sed -n 's/^MAX_DOUBLE=//p' scripts/double_checks.sh)
mkdir -p "$T/dc/tests/e2e"
awk -v n="$max" -v o=ok -v f=fail 'BEGIN { for (i = 0; i <= n; i++) print "[ 1 = 1 ] && " o " c" i " || " f " c" i }' \
	>"$T/dc/tests/e2e/x.sh"
check_fails style_checks_named_once_refuses_one_more "$((max + 1)) shell checks name their check twice" \
	sh scripts/double_checks.sh "$T/dc"
mkdir -p "$T/tap/tests/e2e"
printf '%s\n' 'sed -n "s/^not ok [0-9]* - \(.*\)/x/p" log' 'grep -q "^not ok [0-9]* -" log ||' \
	'	fail "the log has a line not ok" "$(tail -5 log)"' >"$T/tap/tests/e2e/x.sh"
check style_checks_tap_text_is_no_call sh scripts/double_checks.sh "$T/tap"

# Only the store talks to SQLite: no other file under src/ names it.
outside=$(grep -rlE 'sqlite3|store_impl\.h' src | grep -v '^src/store/')
test_expect "style_sql_only_in_store" '[ -z "$outside" ] || test_why "SQLite outside src/store/: $outside"'
# One error channel over all of src/ (src/base/error.h, scripts/errchannel.sh):
# no (why, why_size) or (err, errlen) pair, no raw fprintf(stderr) outside
# cmd/ and main.c, every folder of src/ in scripts/errchannel.folders; and
# the check refuses each when planted.
check style_errchannel sh scripts/errchannel.sh "$TM_ROOT"
mkdir -p "$T/ec/src/x" "$T/ec/src/cmd" "$T/ec/scripts"
printf '# a list\nx\ncmd\nstderr cmd\nstderr main.c\n' >"$T/ec/scripts/errchannel.folders"
printf 'struct tm_err;\nint f(const char *s, struct tm_err *err);\n' >"$T/ec/src/x/ok.h"
check style_errchannel_passes_tm_err sh scripts/errchannel.sh "$T/ec"
printf 'int g(const char *s,\n      char *why, size_t why_size);\n' >"$T/ec/src/x/why.h"
check_fails style_errchannel_refuses_why_pair "src/x/why.h:2: g: pair char \\*why, size_t why_size" \
	sh scripts/errchannel.sh "$T/ec"
rm "$T/ec/src/x/why.h"
printf 'int h(char *err, size_t errlen)\n{\n\treturn 0;\n}\n' >"$T/ec/src/cmd/err.c"
check_fails style_errchannel_refuses_err_pair "src/cmd/err.c:1: h: pair char \\*err, size_t errlen" \
	sh scripts/errchannel.sh "$T/ec"
rm "$T/ec/src/cmd/err.c"
printf 'void k(void)\n{\n\tfprintf(stderr, "x\\n");\n}\n' >"$T/ec/src/x/say.c"
check_fails style_errchannel_refuses_fprintf_stderr "src/x/say.c:3: -: fprintf\\(stderr\\)" \
	sh scripts/errchannel.sh "$T/ec"
mv "$T/ec/src/x/say.c" "$T/ec/src/cmd/usage.c" # a command may print its usage
cp "$T/ec/src/cmd/usage.c" "$T/ec/src/main.c"  # and so may main()
check style_errchannel_lets_cmd_print sh scripts/errchannel.sh "$T/ec"
cp "$T/ec/src/main.c" "$T/ec/src/other.c"
check_fails style_errchannel_refuses_fprintf_beside_main "src/other.c:3: -: fprintf\\(stderr\\)" \
	sh scripts/errchannel.sh "$T/ec"
rm "$T/ec/src/other.c"
mkdir "$T/ec/src/y"
check_fails style_errchannel_refuses_unlisted_folder "src/y: not in .*errchannel.folders" \
	sh scripts/errchannel.sh "$T/ec"
rmdir "$T/ec/src/y"
printf 'pending src/x/ok.h f\n' >>"$T/ec/scripts/errchannel.folders"
check_fails style_errchannel_refuses_stale_entry "src/x/ok.h: f: no pair here any more" \
	sh scripts/errchannel.sh "$T/ec"
finish
