#!/bin/sh
# Bounded storage: rollups built as samples arrive, record --keep pruning raw
# samples while the rollups stay, runs rm and prune leaving the store whole
# (integrity_check, no orphan rows, other runs intact), a bench table saying
# a run was removed, and reports over pruned runs with labelled figures.
. "$(dirname "$0")/../lib.sh"

D=$T/r.db
orphans()
{
	n=0
	for t in samples rollups events progress marks bench_runs; do
		[ -n "$(sql "$1" "select name from sqlite_master where name = '$t'")" ] || continue
		n=$((n + $(sql "$1" "select count(*) from $t where run_id not in (select id from runs)")))
	done
	echo $n
}
store_ok()
{
	[ "$(sql "$1" "pragma integrity_check")" = ok ] && [ -z "$(sql "$1" "pragma foreign_key_check")" ] &&
		[ "$(orphans "$1")" = 0 ]
}

# 1. a recording that keeps raw samples 2 s: pruned as it goes, rollups kept
"$TM" record -q --db "$D" -i 100ms --keep raw=2s,minute=1h,hour=forever \
	--progress 'p=([0-9]+)' -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do echo p=$i; sleep 0.5; done' \
	>"$T/rec1.out" 2>&1
run1=$(sql "$D" "select max(id) from runs")
total=$(($(sql "$D" "select max(seq) from samples where run_id = $run1") + 1))
raw=$(sql "$D" "select count(*) from samples where run_id = $run1")
first=$(sql "$D" "select min(seq) from samples where run_id = $run1")
test_expect "record --keep raw=2s pruned raw samples as it went ($raw of $total kept, from seq $first)" '
	[ "$total" -ge 50 ] && [ "$first" -gt 0 ] && [ "$raw" -lt "$total" ] ||
	test_why "total $total, kept $raw, first $first"'
for lvl in 60 3600; do
	n=$(sql "$D" "select sum(samples) from rollups where run_id = $run1 and level_sec = $lvl")
	test_expect "the $lvl s rollups hold all $total samples" '
		[ "$n" = "$total" ] || test_why "$n of $total"'
done
test_expect "runs counts the pruned run's samples recorded ($total)" '
	[ "$("$TM" runs --json --db "$D" | jq "select(.id == $run1) | .sample_count")" = "$total" ]'
test_expect "the pruned store passes integrity_check, no orphans" 'store_ok "$D" || test_why "$(sql "$D" "pragma integrity_check")"'
"$TM" report --db "$D" "$run1" >"$T/rep1.txt" 2>&1
test_expect "report over the pruned run: every sample counted, the rollup figures labelled" '
	grep -q "samples .* were pruned: summarised from" "$T/rep1.txt" &&
	grep -qE "^  duration .*\($total samples" "$T/rep1.txt" &&
	grep -q "median between .* (from rollups)" "$T/rep1.txt" ||
	test_why "$(cat "$T/rep1.txt")"'
"$TM" report --json --db "$D" "$run1" >"$T/rep1.json"
test_expect "report --json: the median null with its bounds under approximate" '
	jq -e ".figures.samples == $total and .figures.approximate.rollup_samples > 0 and
	.figures.median_file_bytes == null and .figures.peak_anon_bytes > 0" "$T/rep1.json" >/dev/null ||
	test_why "$(jq .figures "$T/rep1.json")"'
check_fails "a window over pruned raw samples is refused" "were pruned" \
	"$TM" report --db "$D" --window 0s:1s "$run1"

# 2. two more runs, one with a mark; and a bench
"$TM" record -q --db "$D" -i 100ms -- sh -c 'sleep 0.5' >/dev/null 2>&1
run2=$(sql "$D" "select max(id) from runs")
"$TM" record -q --db "$D" -i 100ms -- sh -c 'sleep 0.3; "$0" mark half; sleep 0.4' "$TM" >/dev/null 2>&1
run3=$(sql "$D" "select max(id) from runs")
n3=$(sql "$D" "select count(*) from samples where run_id = $run3")
n1=$(sql "$D" "select count(*) from samples where run_id = $run1")
check_fails "runs rm: a bad run id (exit 2)" "not a run id" "$TM" runs rm --db "$D" abc
out=$("$TM" runs rm --db "$D" 999 2>&1)
rm_rc=$?
test_expect "runs rm: no such run (exit 2)" '[ $rm_rc -eq 2 ] && echo "$out" | grep -q "no run 999" || test_why "exit $rm_rc: $out"'
check "runs rm removes a run" "$TM" runs rm --db "$D" "$run2"
left=$(sql "$D" "select (select count(*) from runs where id = $run2) + (select count(*) from samples where run_id = $run2) + (select count(*) from rollups where run_id = $run2) + (select count(*) from events where run_id = $run2)")
test_expect "nothing of the removed run is left but its removed_runs row" '
	[ "$left" = 0 ] && [ "$(sql "$D" "select how from removed_runs where run_id = $run2")" = "runs rm" ] ||
	test_why "$left rows left"'
test_expect "the other runs keep their samples and marks" '
	[ "$(sql "$D" "select count(*) from samples where run_id = $run3")" = "$n3" ] &&
	[ "$(sql "$D" "select count(*) from samples where run_id = $run1")" = "$n1" ] &&
	[ "$(sql "$D" "select count(*) from marks where run_id = $run3")" = 1 ]'
test_expect "after runs rm: integrity_check ok, no orphans" 'store_ok "$D" || test_why "$(sql "$D" "pragma integrity_check")"'

# 3. prune everything of run 3 but its rollups (and the last sample)
before=$("$TM" report --json --db "$D" "$run3" | jq -c '.figures | [.samples, .peak_anon_bytes, .cpu_usec, .duration_usec]')
check "prune --keep raw=0s RUN" "$TM" prune --db "$D" --keep raw=0s "$run3"
test_expect "prune RUN leaves one raw sample of it, and the other runs alone" '
	[ "$(sql "$D" "select count(*) from samples where run_id = $run3")" = 1 ] &&
	[ "$(sql "$D" "select count(*) from samples where run_id = $run1")" = "$n1" ] ||
	test_why "$(sql "$D" "select run_id, count(*) from samples group by 1")"'
after=$("$TM" report --json --db "$D" "$run3" | jq -c '.figures | [.samples, .peak_anon_bytes, .cpu_usec, .duration_usec]')
test_expect "samples, peak anon, cpu, duration exact from rollups ($after)" '
	[ "$before" = "$after" ] || test_why "before $before after $after"'
test_expect "after prune: marks kept, integrity_check ok, no orphans" '[ "$(sql "$D" "select count(*) from marks where run_id = $run3")" = 1 ] && store_ok "$D" ||
	test_why "$(sql "$D" "select count(*) from marks where run_id = $run3") marks of run $run3; $(sql "$D" "pragma integrity_check")"'

# 4. a store from before rollups gets them at its first prune
cp "$D" "$T/old.db"
sql "$T/old.db" "delete from rollups; update meta set value = '1' where key = 'schema_version'" >/dev/null
check "prune migrates a store without rollups" "$TM" prune --db "$T/old.db" --keep raw=7d
test_expect "its runs' rollups are built from the raw samples left" '
	[ "$(sql "$T/old.db" "select sum(samples) from rollups where level_sec = 60 and run_id = $run1")" = \
	"$(sql "$T/old.db" "select count(*) from samples where run_id = $run1")" ] &&
	[ "$(sql "$T/old.db" "select value from meta where key = '\''schema_version'\''")" = 2 ]'

# 5. a live run is refused without --force; prune skips it
"$TM" record -q --db "$D" -i 100ms -- sleep 30 >/dev/null 2>&1 &
REC=$!
n=0
while [ "$(sql "$D" "select count(*) from samples where run_id = (select max(id) from runs)" 2>/dev/null || echo 0)" -lt 3 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
live=$(sql "$D" "select max(id) from runs")
check_fails "runs rm refuses a live run" "is live" "$TM" runs rm --db "$D" "$live"
"$TM" prune --db "$D" >"$T/prune.txt" 2>&1
test_expect "prune skips a live run" '
	grep -q "run $live is live: skipped" "$T/prune.txt" || test_why "$(cat "$T/prune.txt")"'
kill -INT $REC
wait $REC 2>/dev/null

# 6. a bench whose run was removed says so
if "$TM" bench -o "$T/b.db" --arm glibc --runs 2 -i 50ms -- sh -c 'sleep 0.2' >"$T/bench.out" 2>&1; then
	bid=$(sql "$T/b.db" "select max(id) from benches")
	br=$(sql "$T/b.db" "select max(id) from runs where bench_id = $bid")
	"$TM" runs rm --db "$T/b.db" "$br" >/dev/null
	"$TM" report --db "$T/b.db" --bench "$bid" >"$T/btab.txt" 2>&1
	test_expect "the bench table says its removed run was removed" '
		grep -q "run $br (arm glibc.*) was removed (runs rm" "$T/btab.txt" && store_ok "$T/b.db" ||
		test_why "$(cat "$T/btab.txt")"'
else
	skip "the bench table says its removed run was removed" "bench could not run here: $(tail -1 "$T/bench.out")"
fi
finish
