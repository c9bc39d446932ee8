#!/bin/sh
# A server that holds: 270 connections that each send one byte a second
# (from 9 loopback addresses, under the 32-per-address limit) must not stop
# the server from answering /healthz and collectors' pushes, and each slow
# request is cut off at its deadline (--request-timeout).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; kill $SLOW 2>/dev/null; rm -rf "$T"' EXIT
SLOW=

S=$T/s.db
"$TM" serve token add pi --db "$S" >"$T/pi.tok"
chmod 600 "$T/pi.tok"
if ! start_server "$S" --request-timeout 3s; then
	fail "server starts" "$(cat "$T/srv.err")"
	exit 1
fi
check_fails "serve refuses a bad --request-timeout" "request-timeout wants" "$TM" serve --request-timeout 5ms

python3 "$TM_ROOT/tests/e2e/serve.d/trickle.py" "$PORT" 270 9 14 >"$T/slow.out" 2>&1 &
SLOW=$!
sleep 3
worst=0 failed=0
i=0
while [ $i -lt 8 ]; do
	t=$(curl -s -o /dev/null -m 5 -w '%{http_code} %{time_total}' "$URL/healthz")
	case $t in 200\ *) ;; *) failed=$((failed + 1)) ;; esac
	worst=$(echo "$t $worst" | awk '{ print ($2 > $3) ? $2 : $3 }')
	sleep 1
	i=$((i + 1))
done
test_expect "healthz answers under 270 trickling connections (8 of 8, slowest ${worst}s)" '[ $failed = 0 ] && awk -v w="$worst" '\''BEGIN { exit !(w < 2) }'\'' || test_why "$failed of 8 failed, slowest ${worst}s"'
test_expect "a collector's push goes through meanwhile" '
	"$FEED" "$T/pi.db" pi 50 0 "$URL" "$T/pi.tok" >"$T/pi.uuid" 2>"$T/feed.err" &&
	[ "$(q "$S" "select count(*) from samples")" = 50 ] || test_why "$(tail -3 "$T/feed.err")"'
wait $SLOW
SLOW=
closed=$(sed -n 's/.*closed_by_server \([0-9]*\).*/\1/p' "$T/slow.out")
test_expect "slow requests were cut off, by their deadline or to make room ($(cat "$T/slow.out"))" '[ "${closed:-0}" -ge 270 ] || test_why "$(cat "$T/slow.out")"'
test_expect "the server is still running" 'kill -0 "$SRV_PID" 2>/dev/null'
finish
