#!/bin/sh
# record --metrics-listen beside slow clients: 40 connections that each
# trickle a byte every 0.5 s (from 4 loopback addresses) must not stop it
# from answering scrapes, and each slow request is cut off at the
# exporter's deadline (5 s), as the server's are (serve/http/guard.h).
. "$(dirname "$0")/../lib.sh"
REC= SLOW=
trap 'for p in $SLOW $REC; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
if ! command -v python3 >/dev/null 2>&1 || ! command -v ss >/dev/null 2>&1; then
	skip "record --metrics-listen beside slow clients" "needs python3 and ss"
	finish
fi
"$TM" record -q --db "$T/r.db" -i 200ms --no-cgroup --metrics-listen 127.0.0.1:0 -- sleep 60 >"$T/rec.out" 2>&1 &
REC=$!
# the exporter's port, from the kernel
PORT= n=0
while [ -z "$PORT" ] && [ $n -lt 100 ]; do
	sleep 0.2
	PORT=$(ss -Hltnp 2>/dev/null | awk -v p="pid=$REC," 'index($0, p) { sub(/.*:/, "", $4); print $4; exit }')
	n=$((n + 1))
done
[ -n "$PORT" ] || { fail "record --metrics-listen listens" "$(cat "$T/rec.out")"; finish; exit 1; }
code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
test_expect "record --metrics-listen answers /metrics on port $PORT" '[ "$code" = 200 ] || test_why "HTTP $code"'

python3 "$TM_ROOT/tests/e2e/serve.d/trickle.py" "$PORT" 40 4 16 0.5 >"$T/slow.out" 2>&1 &
SLOW=$!
# wait until the 40 are connected (python may take seconds to start here)
n=0
while [ "$(ss -Htn state established "( dport = :$PORT )" 2>/dev/null | wc -l)" -lt 40 ] && [ $n -lt 100 ]; do
	sleep 0.2
	n=$((n + 1))
done
conns=$(ss -Htn state established "( dport = :$PORT )" 2>/dev/null | wc -l)
worst=0 failed=0 i=0
while [ $i -lt 30 ]; do
	t=$(curl -s -o /dev/null -m 3 -w '%{http_code} %{time_total}' "http://127.0.0.1:$PORT/metrics")
	case $t in 200\ *) ;; *) failed=$((failed + 1)) ;; esac
	worst=$(echo "$t $worst" | awk '{ print ($2 > $3) ? $2 : $3 }')
	sleep 0.3
	i=$((i + 1))
done
test_expect "/metrics answers beside $conns trickling connections (30 of 30, slowest ${worst}s)" '[ $failed = 0 ] && awk -v w="$worst" '\''BEGIN { exit !(w < 2) }'\'' || test_why "$failed of 30 failed, slowest ${worst}s, $conns connections"'
wait $SLOW
SLOW=
closed=$(sed -n 's/.*closed_by_server \([0-9]*\).*/\1/p' "$T/slow.out")
test_expect "slow requests were cut off at the deadline ($(cat "$T/slow.out"))" '[ "${closed:-0}" -ge 40 ] || test_why "$(cat "$T/slow.out")"'
test_expect "the recorder still runs" 'kill -0 "$REC" 2>/dev/null || test_why "$(cat "$T/rec.out")"'
kill -INT "$REC"
wait "$REC"
REC=
finish
