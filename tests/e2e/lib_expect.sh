#!/bin/sh
# tests/lib.sh's test_expect names a check once and, when it fails, says
# what it compared: test_eq's expected and actual, test_cmp's diff,
# test_grep's file, test_why's text; a passing body prints one ok line.
. "$(dirname "$0")/../lib.sh"

out=$(test_expect "two is two" 'test_eq "sum" "$((1 + 1))" 2')
check_eq lib_expect_passes "$out" "ok - two is two"

out=$(test_expect "three is four" 'x=3; test_eq "the count" "$x" 4')
check_eq lib_expect_fails_with_values "$(printf '%s\n' "$out" | head -2)" \
	"not ok - three is four
# the count: expected '4', actual '3'"
test_expect lib_expect_fails_names_body 'printf "%s\n" "$out" | grep -q "# in: x=3; test_eq"'

printf 'a\nb\n' >"$T/want"
printf 'a\nc\n' >"$T/got"
out=$(test_expect "files differ" 'test_cmp "$T/want" "$T/got"')
test_expect lib_expect_test_cmp_shows_diff '
	test_eq "first line" "$(printf "%s\n" "$out" | head -1)" "not ok - files differ" &&
	printf "%s\n" "$out" | grep -qx "# -b" && printf "%s\n" "$out" | grep -qx "# +c"'

printf 'hello\n' >"$T/f"
out=$(test_expect "grep misses" 'test_grep "^bye" "$T/f"')
test_expect lib_expect_test_grep_shows_file '
	printf "%s\n" "$out" | grep -q "no line of .* matches .\^bye." &&
	printf "%s\n" "$out" | grep -qx "# hello"'
out=$(test_expect "why says" 'x=7; [ "$x" = 8 ] || test_why "x is $x"')
test_expect lib_expect_test_why_says_values '
	test_eq "first line" "$(printf "%s\n" "$out" | head -1)" "not ok - why says" &&
	test_eq "second line" "$(printf "%s\n" "$out" | sed -n 2p)" "# x is 7"'
finish
