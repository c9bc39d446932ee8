#!/bin/sh
# Runs a dead recorder never ended are "stale", not "live" forever (runs,
# runs --json, the API); the API's run list comes in pages.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT

D=$T/r.db
# a recorder killed with SIGKILL: its run has no end
"$TM" record -q --db "$D" -i 100ms -- sleep 30 >"$T/rec.out" 2>&1 &
REC=$!
n=0
while [ "$(sql "$D" "select count(*) from samples" 2>/dev/null || echo 0)" -lt 3 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -9 $REC
wait $REC 2>/dev/null
# the command outlives its recorder (as it must); it is ours to end here
kill "$(sql "$D" "select pid from events where kind = 'start'")" 2>/dev/null
run=$(sql "$D" "select id from runs")
"$TM" runs --db "$D" >"$T/runs.txt"
test_expect "a run that just stopped sampling is still live" '
	grep -qE "^ +$run .* live " "$T/runs.txt" || test_why "$(cat "$T/runs.txt")"'
# ten minutes later (its clock moved back): no sample for far more than 5 intervals and 30 s
sql "$D" "update runs set started_wall_usec = started_wall_usec - 600000000;
	update samples set t_wall_usec = t_wall_usec - 600000000"
"$TM" runs --db "$D" >"$T/runs.txt"
test_expect "runs marks a run without samples for long as stale" '
	grep -qE "^ +$run .* stale " "$T/runs.txt" || test_why "$(cat "$T/runs.txt")"'
"$TM" runs --db "$D" --json >"$T/runs.json"
test_expect "runs --json says state stale and when the last sample was" '
	jq -e '\''.state == "stale" and .ended_wall_usec == 0 and (.last_sample_wall_usec | type) == "number"'\'' "$T/runs.json" >/dev/null ||
	test_why "$(cat "$T/runs.json")"'
# an ended run is ended, whatever its age
"$TM" record -q --db "$D" -i 100ms -- true
test_expect "an ended run's state is ended" '
	"$TM" runs --db "$D" --json | tail -1 | jq -e '\''.state == "ended"'\'' >/dev/null'

# the server: state in the API, and the run list in pages
S=$T/s.db
"$TM" serve token add --read viewer --db "$S" >"$T/read.tok"
FEED=$TM_BUILD/tests/progs/serve_feed
i=0
while [ $i -lt 120 ]; do
	"$FEED" "$S" pi 2 0 >/dev/null || break
	i=$((i + 1))
done
test_expect "120 runs in the server's store" '[ $i = 120 ] || test_why "$i"'
"$TM" record -q --db "$S" -i 100ms -- sleep 30 >"$T/rec2.out" 2>&1 &
REC=$!
n=0
while [ "$(sql "$S" "select count(*) from samples where run_id = (select max(id) from runs)")" -lt 3 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -9 $REC
wait $REC 2>/dev/null
kill "$(sql "$S" "select pid from events where kind = 'start' and run_id = 121")" 2>/dev/null
sql "$S" "update runs set started_wall_usec = started_wall_usec - 600000000 where id = 121;
	update samples set t_wall_usec = t_wall_usec - 600000000 where run_id = 121"
start_server "$S" || { fail "server starts" "$(cat "$T/srv.err")"; finish; exit 1; }
R="Authorization: Bearer $(cat "$T/read.tok")"
expect_status "run list" 200 GET /api/v1/runs -H "$R"
test_expect "the run list is a page of 100 by default" '
	[ "$(jq "length" "$T/body")" = 100 ] || test_why "$(jq length "$T/body")"'
test_expect "newest first, the dead recorder's run stale" '
	[ "$(jq -r ".[0].id, .[0].state" "$T/body" | tr '\''\n'\'' " ")" = "121 stale " ] ||
	test_why "$(jq -c ".[0] | {id, state}" "$T/body")"'
test_expect "an ended pushed run's state is ended" '
	[ "$(jq -r ".[1].state" "$T/body")" = ended ] || test_why "$(jq -c ".[1]" "$T/body")"'
expect_status "a page of 50 before run 60" 200 GET "/api/v1/runs?limit=50&before=60" -H "$R"
test_expect "limit and before page the list" '
	[ "$(jq -c "[length, .[0].id, .[-1].id]" "$T/body")" = "[50,59,10]" ] ||
	test_why "$(jq -c "[length, .[0].id, .[-1].id]" "$T/body")"'
expect_status "the last page is short" 200 GET "/api/v1/runs?limit=50&before=10" -H "$R"
test_expect "the last page holds the oldest runs" '
	[ "$(jq -c "[.[].id]" "$T/body")" = "[9,8,7,6,5,4,3,2,1]" ] || test_why "$(cat "$T/body")"'
expect_status "machine and paging together" 200 GET "/api/v1/runs?machine=pi&limit=3" -H "$R"
test_expect "machine filter with a page" '
	[ "$(jq -c "[.[].id]" "$T/body")" = "[120,119,118]" ] || test_why "$(cat "$T/body")"'
expect_status "limit 0 is refused" 400 GET "/api/v1/runs?limit=0" -H "$R"
expect_status "a limit above 1000 is refused" 400 GET "/api/v1/runs?limit=1001" -H "$R"
expect_status "a bad before is refused" 400 GET "/api/v1/runs?before=x" -H "$R"
stop_server
finish
