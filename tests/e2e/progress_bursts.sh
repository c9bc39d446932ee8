#!/bin/sh
# Progress whose lines arrive in a few blocks (a block-buffered pipe: 372,
# 372 and 56 lines, each block one write, seconds apart): its arrival times
# are the blocks', not the work's, so record warns and report gives no rate
# and no per-unit figures, though no block holds half the points
# (base/bunch.h).  The same lines written steadily keep their rate.
. "$(dirname "$0")/../lib.sh"
DB=$T/b.db
i=1
for n in 372 372 56; do
	seq $i $((i + n - 1)) | sed 's/^/done=/' >"$T/block$n.$i"
	i=$((i + n))
done
blocks=$(ls "$T"/block* | sort -t. -k2 -n | tr '\n' ' ')
set -- $blocks
"$TM" record -o "$DB" -i 100ms --no-pty --progress 'done=([0-9]+)' -- \
	sh -c "cat '$1'; sleep 1.5; cat '$2'; sleep 1.5; cat '$3'" >/dev/null 2>"$T/err"
"$TM" report -o "$DB" >"$T/rep"
"$TM" report -o "$DB" --json >"$T/json"
pts=$(sql "$DB" "select count(*) from progress where run_id = (select max(id) from runs)")
test_expect "the 800 lines are 800 points" '[ "$pts" = 800 ] || test_why "got $pts"'
test_expect "three blocks: no rate, no per-unit figures, and why" '
	! grep -q "units/min\|per unit" "$T/rep" && grep -q "came at 3 instants, up to 372 arrived at once" "$T/rep" ||
	test_why "$(cat "$T/rep")"'
test_expect "record warns at the end" '
	grep -q "progress points came at 3 instants" "$T/err" ||
	test_why "$(cat "$T/err")"'
got=$(jq -c '.figures | [.progress_bunched, .progress_rate_per_min, .anon_bytes_per_unit, .progress_instants, .progress_points_bunched]' "$T/json")
test_expect "--json: bunched, rate and slope null, 3 instants" '[ "$got" = "[true,null,null,3,372]" ] || test_why "got $got"'

# 200 points, one line each 5 ms or more, written as they are made
"$TM" record -o "$DB" -i 100ms --progress 'done=([0-9]+)' -- \
	sh -c 'i=1; while [ $i -le 200 ]; do echo done=$i; i=$((i + 1)); sleep 0.005; done' \
	>/dev/null 2>"$T/err"
"$TM" report -o "$DB" >"$T/rep"
test_expect "steady output keeps its rate" '
	grep -q "units/min" "$T/rep" && ! grep -q "at once" "$T/rep" "$T/err" ||
	test_why "$(cat "$T/rep" "$T/err")"'
finish
