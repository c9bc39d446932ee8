#!/bin/sh
# Each libFuzzer target (mk/fuzz.mk) over its seeds and for a few seconds
# more: the parsers survive their corpus, including the inputs that once
# crashed them (fuzz/corpus/NAME/).  `make fuzz` runs them for longer.
. "$(dirname "$0")/../lib.sh"
cd "$TM_ROOT" || exit 1
SECS=${TM_FUZZ_SMOKE_SECONDS:-5}
# the targets as mk/fuzz.mk lists them (one list: a new target is smoked too)
targets=$(sed -n 's/^FUZZ_TARGETS := //p' mk/fuzz.mk)
[ -n "$targets" ] || fail "fuzz targets listed" "no FUZZ_TARGETS line in mk/fuzz.mk"
for name in $targets; do
	bin=$TM_BUILD/fuzz/fuzz_$name
	if [ ! -x "$bin" ]; then
		fail "fuzz_$name survives its corpus" "no $bin (make fuzz-build)"
		continue
	fi
	B=$TM_BUILD sh scripts/fuzz.sh "$name" "$SECS" >"$T/$name.log" 2>&1
	rc=$?
	test_expect "fuzz_$name survives its corpus and ${SECS}s more ($(grep -o 'Done [0-9]* runs' "$T/$name.log"))" '
		[ $rc -eq 0 ] ||
		test_why "$(grep -A8 '\''ERROR\|runtime error'\'' "$T/$name.log" | head -12)"'
done
finish
