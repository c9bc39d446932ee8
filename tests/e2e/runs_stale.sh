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
grep -qE "^ +$run .* live " "$T/runs.txt" && ok "a run that just stopped sampling is still live" ||
	fail "a run that just stopped sampling is still live" "$(cat "$T/runs.txt")"
# ten minutes later (its clock moved back): no sample for far more than 5 intervals and 30 s
sql "$D" "update runs set started_wall_usec = started_wall_usec - 600000000;
	update samples set t_wall_usec = t_wall_usec - 600000000"
"$TM" runs --db "$D" >"$T/runs.txt"
grep -qE "^ +$run .* stale " "$T/runs.txt" && ok "runs marks a run without samples for long as stale" ||
	fail "runs marks a run without samples for long as stale" "$(cat "$T/runs.txt")"
"$TM" runs --db "$D" --json >"$T/runs.json"
if jq -e '.state == "stale" and .ended_wall_usec == 0 and (.last_sample_wall_usec | type) == "number"' "$T/runs.json" >/dev/null; then
	ok "runs --json says state stale and when the last sample was"
else
	fail "runs --json says state stale" "$(cat "$T/runs.json")"
fi
# an ended run is ended, whatever its age
"$TM" record -q --db "$D" -i 100ms -- true
"$TM" runs --db "$D" --json | tail -1 | jq -e '.state == "ended"' >/dev/null && ok "an ended run's state is ended" ||
	fail "an ended run's state is ended"

# the server: state in the API, and the run list in pages
S=$T/s.db
"$TM" serve token add --read viewer --db "$S" >"$T/read.tok"
FEED=$TM_BUILD/tests/progs/serve_feed
i=0
while [ $i -lt 120 ]; do
	"$FEED" "$S" pi 2 0 >/dev/null || break
	i=$((i + 1))
done
[ $i = 120 ] && ok "120 runs in the server's store" || fail "120 runs in the server's store" "$i"
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
[ "$(jq 'length' "$T/body")" = 100 ] && ok "the run list is a page of 100 by default" || fail "the run list is a page of 100 by default" "$(jq length "$T/body")"
[ "$(jq -r '.[0].id, .[0].state' "$T/body" | tr '\n' ' ')" = "121 stale " ] && ok "newest first, the dead recorder's run stale" ||
	fail "newest first, the dead recorder's run stale" "$(jq -c '.[0] | {id, state}' "$T/body")"
[ "$(jq -r '.[1].state' "$T/body")" = ended ] && ok "an ended pushed run's state is ended" || fail "an ended run's state is ended" "$(jq -c '.[1]' "$T/body")"
expect_status "a page of 50 before run 60" 200 GET "/api/v1/runs?limit=50&before=60" -H "$R"
[ "$(jq -c '[length, .[0].id, .[-1].id]' "$T/body")" = "[50,59,10]" ] && ok "limit and before page the list" ||
	fail "limit and before page the list" "$(jq -c '[length, .[0].id, .[-1].id]' "$T/body")"
expect_status "the last page is short" 200 GET "/api/v1/runs?limit=50&before=10" -H "$R"
[ "$(jq -c '[.[].id]' "$T/body")" = "[9,8,7,6,5,4,3,2,1]" ] && ok "the last page holds the oldest runs" || fail "the last page" "$(cat "$T/body")"
expect_status "machine and paging together" 200 GET "/api/v1/runs?machine=pi&limit=3" -H "$R"
[ "$(jq -c '[.[].id]' "$T/body")" = "[120,119,118]" ] && ok "machine filter with a page" || fail "machine filter with a page" "$(cat "$T/body")"
expect_status "limit 0 is refused" 400 GET "/api/v1/runs?limit=0" -H "$R"
expect_status "a limit above 1000 is refused" 400 GET "/api/v1/runs?limit=1001" -H "$R"
expect_status "a bad before is refused" 400 GET "/api/v1/runs?before=x" -H "$R"
stop_server
finish
