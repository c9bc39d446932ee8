#!/bin/sh
# A recorder's pusher with nothing new to send sends nothing (issue 23):
# every empty batch was a commit on the server (its machines row: a 4 KiB
# WAL page and more), four a second, whatever the recorder's commit window.
# A recorder at 1 s with a 60 s window commits its run at the start and its
# samples at the end only, so over its 6 s the server should see the hello,
# the start and the last batch with the end, a handful, not one every step
# of 250 ms.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT

S=$T/s.db
"$TM" serve token add pi --db "$S" >"$T/pi.tok"
chmod 600 "$T/pi.tok"
if ! start_server "$S"; then
	fail "server starts" "$(cat "$T/srv.err")"
	exit 1
fi
"$TM" record -q -o "$T/r.db" -i 1s --commit-every 60s --push "$URL" --token-file "$T/pi.tok" \
	-- sleep 6 2>"$T/rec.err"
n=$(q "$S" "select count(*) from samples")
local_n=$(q "$T/r.db" "select count(*) from samples")
test_expect "every sample arrives ($n)" '[ "$n" = "$local_n" ] && [ "$n" -ge 5 ] || test_why "server $n, local $local_n; $(cat "$T/rec.err")"'
test_expect "the run's end arrives" '[ "$(q "$S" "select outcome is not null from runs")" = 1 ] || test_why "$(q "$S" "select * from runs")"'
b=$(q "$S" "select batches from machines where name = 'pi'")
test_expect "no empty batches while nothing is new ($b batches in 6 s)" '[ -n "$b" ] && [ "$b" -le 6 ] || test_why "$b batches in 6 s (at most 6 expected)"'
stop_server
finish
