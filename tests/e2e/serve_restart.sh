#!/bin/sh
# A server killed (SIGKILL) and restarted while a collector pushes: every
# sample, event, progress point and mark arrives exactly once.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; [ -n "${FEED_PID:-}" ] && kill "$FEED_PID" 2>/dev/null; rm -rf "$T"' EXIT

S=$T/s.db
"$TM" serve token add pi --db "$S" >"$T/pi.tok" || { fail "token add"; exit 1; }
chmod 600 "$T/pi.tok"
start_server "$S" || { fail "server starts" "$(cat "$T/srv.err")"; exit 1; }

# 600 samples, one every 20 ms: about 12 s of pushing
"$FEED" "$T/pi.db" pi 600 20 "$URL" "$T/pi.tok" >"$T/uuid" 2>"$T/feed.err" &
FEED_PID=$!
kills=0
for pause in 2 3; do
	sleep "$pause"
	# a kill counts only while the collector is still pushing
	kill -0 "$FEED_PID" 2>/dev/null && kills=$((kills + 1))
	kill -9 "$SRV_PID"
	wait "$SRV_PID" 2>/dev/null
	sleep 1.5
	start_server "$S" || { fail "server restarts on port $PORT" "$(tail -3 "$T/srv.err")"; exit 1; }
done
test_expect "server killed and restarted twice during the push" '
	[ "$kills" -eq 2 ] || test_why "the collector had finished after $kills kills"'
wait "$FEED_PID"
rc=$?
FEED_PID=
test_expect "collector finished and everything was acknowledged" '
	[ $rc -eq 0 ] || test_why "exit $rc: $(tail -3 "$T/feed.err")"'
test_expect "collector noticed the outage" '
	grep -q "not reachable" "$T/feed.err" || test_why "$(cat "$T/feed.err")"'
run=$(q "$S" "select id from runs where uuid = '$(cat "$T/uuid")'")
n=$(q "$S" "select count(*) || '/' || count(distinct seq) || '/' || min(seq) || '/' || max(seq) from samples where run_id = '$run'")
test_expect "every sample exactly once ($n)" '[ "$n" = "600/600/0/599" ] || test_why "$n"'
for kind in events progress marks; do
	a=$(q "$T/pi.db" "select count(*) from $kind") b=$(q "$S" "select count(*) from $kind where run_id = '$run'")
	test_expect "$kind exactly once ($a)" '[ "$a" = "$b" ] || test_why "local $a, server $b"'
done
# the stored values are the collector's, not just the right count
a=$(sqlite3 "$T/pi.db" "select group_concat(t_wall_usec || ':' || t_mono_usec || ':' || value) from progress")
b=$(q "$S" "select group_concat(t_wall_usec || ':' || t_mono_usec || ':' || value) from progress where run_id = '$run'")
test_expect "progress points identical" '[ "$a" = "$b" ]'
a=$(sqlite3 "$T/pi.db" "select group_concat(seq || ':' || t_wall_usec || ':' || hex(data)) from samples")
b=$(q "$S" "select group_concat(seq || ':' || t_wall_usec || ':' || hex(data)) from samples where run_id = '$run'")
test_expect "samples identical to the collector's" '[ "$a" = "$b" ]'
test_expect "run end arrived" '
	[ "$(q "$S" "select outcome from runs where id = '\''$run'\''")" = completed ]'

# the same with a real recording: `tidemark record --push` of a workload
# that prints progress and writes a mark, the server killed twice meanwhile
"$TM" serve token add rec --db "$S" >"$T/rec.tok" && chmod 600 "$T/rec.tok"
cat >"$T/work.sh" <<'EOW'
i=0
while [ $i -lt 60 ]; do
	i=$((i + 1))
	echo "height=$i"
	[ $((i % 20)) = 0 ] && echo "phase-$i" >"$TIDEMARK_MARK"
	sleep 0.1
done
EOW
"$TM" record -q --db "$T/rec.db" -i 50ms --progress 'height=([0-9]+)' --push "$URL" \
	--token-file "$T/rec.tok" -- sh "$T/work.sh" >"$T/rec.out" 2>&1 &
REC_PID=$!
for pause in 1.5 2; do
	sleep "$pause"
	kill -9 "$SRV_PID"
	wait "$SRV_PID" 2>/dev/null
	sleep 1
	start_server "$S" || { fail "server restarts on port $PORT" "$(tail -3 "$T/srv.err")"; exit 1; }
done
wait "$REC_PID"
rec_rc=$?
test_expect "record --push finished" '[ $rec_rc = 0 ] || test_why "exit $rec_rc: $(tail -3 "$T/rec.out")"'
uuid=$(sqlite3 "$T/rec.db" "select uuid from runs")
run=$(q "$S" "select id from runs where uuid = '$uuid'")
for kind in samples events progress marks; do
	a=$(sqlite3 "$T/rec.db" "select count(*) from $kind") b=$(q "$S" "select count(*) from $kind where run_id = '$run'")
	test_expect "recorded $kind exactly once ($a)" '
		[ -n "$run" ] && [ "$a" = "$b" ] && [ "$a" -gt 0 ] || test_why "local $a, server $b"'
done
a=$(sqlite3 "$T/rec.db" "select group_concat(seq || ':' || hex(data)) from samples")
b=$(q "$S" "select group_concat(seq || ':' || hex(data)) from samples where run_id = '$run'")
test_expect "recorded samples identical on the server" '[ "$a" = "$b" ]'
finish
