#!/bin/sh
# bench --push: a bench reaches a real server whole (the bench, its arms, its
# runs with their arm and the bench's notes), so the server's table is the
# local one; a server that is gone neither stops nor slows the bench, and
# `serve push` sends the bench later.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; [ -n "${BH_PID:-}" ] && kill "$BH_PID" 2>/dev/null; rm -rf "$T"' EXIT
P=$TM_BUILD/progs/bench_alloc
if [ ! -x "$P" ] || ! command -v python3 >/dev/null 2>&1; then
	skip "bench --push" "needs build/progs/bench_alloc (make check builds it) and python3"
	finish
fi

S=$T/s.db
"$TM" serve token add box --db "$S" >"$T/box.tok" && "$TM" serve token add --read viewer --db "$S" >"$T/read.tok"
chmod 600 "$T"/*.tok
if ! start_server "$S"; then
	fail "server starts" "$(cat "$T/srv.err")"
	finish
fi

# bench_on DB [ARGS...]: a small two-arm bench into DB; its table on stdout
# ($T/DB.txt), its stderr in $T/DB.err, its time in ms in $T/DB.ms.
bench_on()
{
	db=$1
	shift
	start=$(date +%s%N)
	"$TM" bench -o "$T/$db" --arm glibc --arm arena1 --runs 2 -i 100ms --progress 'progress=([0-9]+)' "$@" \
		-- "$P" --mib 16 --steps 2 --step-ms 50 --hold-ms 200 >"$T/$db.txt" 2>"$T/$db.err"
	rc=$?
	echo $((($(date +%s%N) - start) / 1000000)) >"$T/$db.ms"
	return $rc
}

# ---- a bench pushed as it runs ----
bench_on l.db --push "$URL" --token-file "$T/box.tok"
test_expect "bench --push sends its runs and its bench" '
	[ $rc -eq 0 ] && grep -q "push: 4 run(s) and their bench sent to $URL" "$T/l.db.err" ||
	test_why "$(cat "$T/l.db.err")"'
"$TM" bench --table 1 --db "$T/l.db" >"$T/local.txt" 2>&1
"$TM" bench --table 1 --db "$S" >"$T/server.txt" 2>&1
test_expect "the server's bench table is the local one" '
	grep -q "glibc (control)" "$T/local.txt" && cmp -s "$T/local.txt" "$T/server.txt" ||
	test_why "$(diff "$T/local.txt" "$T/server.txt" | head -20)"'
"$TM" bench --table 1 --db "$T/l.db" --json >"$T/local.json"
"$TM" bench --table 1 --db "$S" --json >"$T/server.json"
test_expect "and its JSON, figure for figure" '
	cmp -s "$T/local.json" "$T/server.json" || test_why "$(diff "$T/local.json" "$T/server.json" | head -10)"'
http GET /api/v1/bench/1 -H "Authorization: Bearer $(cat "$T/read.tok")" >/dev/null
python3 - "$T/body" "$T/local.json" <<'PY'
import json, sys
api = json.load(open(sys.argv[1]))
local = json.load(open(sys.argv[2]))
runs = sorted((r["bench_seq"], r["arm"]) for r in api["runs"])
assert api["table"] == local, "the API's table differs"
assert runs == [(0, "glibc"), (1, "arena1"), (2, "glibc"), (3, "arena1")], runs
assert all(r["bench_id"] == 1 for r in api["runs"])
PY
rc=$?
test_expect "the API's bench table is the local one, its runs in the bench with their arm" '
	[ $rc -eq 0 ] || test_why "$(head -c 300 "$T/body")"'
n=$(q "$S" "select count(*) || '/' || count(distinct bench_id) from runs")
w=$(q "$S" "select count(*) from bench_runs where wall_usec > 0")
test_expect "each run once, in one bench, with the bench's note" '
	[ "$n" = "4/1" ] && [ "$w" = 4 ] || test_why "runs/benches $n, notes $w"'
test_expect "the bench is the token's machine's, and ended" '
	[ "$(q "$S" "select machine from benches where id = 1")" = box ] && [ -n "$(q "$S" "select ended_wall_usec from benches where id = 1")" ]'

# a bench with --param: each run's value goes with it, so the server has
# the per-value table too
"$TM" bench -o "$T/l.db" --arm glibc --runs 1 -i 100ms --param N=8,16 --push "$URL" \
	--token-file "$T/box.tok" -- "$P" --mib '{N}' --steps 2 --step-ms 50 --hold-ms 200 >"$T/param.txt" 2>"$T/param.err"
"$TM" bench --table 2 --db "$T/l.db" --json >"$T/lp.json" 2>&1
"$TM" bench --table 2 --db "$S" --json >"$T/sp.json" 2>&1
test_expect "a --param bench: the server has each run's value and the same per-value table" '
	grep -q "\"param\"" "$T/lp.json" && cmp -s "$T/lp.json" "$T/sp.json" &&
	[ "$(q "$S" "select group_concat(text, '\'' '\'') from (select text from bench_params order by value)")" = "8 16" ] ||
	test_why "$(cat "$T/param.err" | tail -3; diff "$T/lp.json" "$T/sp.json" | head -6)"'

# another machine cannot file runs into box's bench
"$TM" serve token add other --db "$S" >"$T/other.tok"
chmod 600 "$T/other.tok"
uuid=$(q "$S" "select uuid from benches where id = 1")
body='{"v":1,"run":{"uuid":"intruder","interval_usec":1000000,"started_wall_usec":1790000000000000},"bench":{"uuid":"'$uuid'","spec_json":"{\"arms\":[]}","started_wall_usec":1790000000000000}}'
expect_status "a run of another machine cannot join the bench" 403 POST /api/v1/push \
	-H "Authorization: Bearer $(cat "$T/other.tok")" -d "$body"
body='{"v":1,"run":{"uuid":"x2","interval_usec":1000000,"started_wall_usec":1790000000000000},"bench":{"uuid":"b2","spec_json":"{\"arms\":[{\"name\":\"a\\u001b[2J\"}]}","started_wall_usec":1790000000000000}}'
expect_status "a bench whose arm names hold control characters is refused" 400 POST /api/v1/push \
	-H "Authorization: Bearer $(cat "$T/other.tok")" -d "$body"

# ---- a server that is gone ----
stop_server
bench_on plain.db
bench_on gone.db --push "$URL" --token-file "$T/box.tok"
rc=$?
test_expect "a server that is gone does not stop the bench ($(cat "$T/gone.db.ms") ms; $(cat "$T/plain.db.ms") ms without --push)" '
	[ $rc -eq 0 ] && grep -q "glibc (control)" "$T/gone.db.txt" && grep -q "did not reach.*local store has them" "$T/gone.db.err" &&
	[ "$(q "$T/gone.db" "select count(*) from runs where outcome = '\''completed'\''")" = 4 ] ||
	test_why "exit $rc: $(cat "$T/gone.db.err")"'
# a server that accepts connections and never answers: every request would
# wait its 1.5 s timeout, 4 runs at least 6 s, if the bench waited for it
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
time.sleep(120)' >"$T/bh.port" &
BH_PID=$!
n=0
while [ ! -s "$T/bh.port" ] && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
bench_on mute.db --push "http://127.0.0.1:$(cat "$T/bh.port")" --token-file "$T/box.tok"
rc=$?
mute=$(cat "$T/mute.db.ms") plain=$(cat "$T/plain.db.ms")
test_expect "a server that never answers does not slow the bench ($mute ms; $plain ms without --push)" '
	[ $rc -eq 0 ] && [ "$mute" -lt $((plain + 3000)) ] && grep -q "glibc (control)" "$T/mute.db.txt" ||
	test_why "exit $rc, $mute ms against $plain ms: $(cat "$T/mute.db.err")"'
kill "$BH_PID" 2>/dev/null
BH_PID=

# ---- sent later ----
S2=$T/s2.db
"$TM" serve token add box --db "$S2" >"$T/box2.tok"
chmod 600 "$T/box2.tok"
PORT=
if start_server "$S2" && "$TM" serve push --token-file "$T/box2.tok" --db "$T/gone.db" "$URL" >"$T/later.out" 2>&1; then
	"$TM" bench --table 1 --db "$T/gone.db" --json >"$T/gone.json"
	"$TM" bench --table 1 --db "$S2" --json >"$T/later.json"
	test_expect "serve push sends the bench later, the same table" '
		cmp -s "$T/gone.json" "$T/later.json" || test_why "$(diff "$T/gone.json" "$T/later.json" | head -10)"'
else
	fail "serve push sends the bench later, the same table" "$(cat "$T/later.out" "$T/srv.err")"
fi
# a token file others may read: said once for the bench, not once a run
# (issue 24: 7 times in a 6-run bench)
cp "$T/box.tok" "$T/box644.tok"
chmod 644 "$T/box644.tok"
bench_on w.db --push "$URL" --token-file "$T/box644.tok"
n=$(grep -c "token file '$T/box644.tok' is readable by others" "$T/w.db.err")
test_expect "a token file others may read is said once in a 4-run bench" '
	[ "$n" = 1 ] || test_why "$n times: $(cat "$T/w.db.err")"'
finish
