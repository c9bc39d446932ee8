#!/bin/sh
# What one push may cost the server: an authenticated body of just under
# 8 MiB of `[{},{},...]` (2.8 million empty objects, ~650 MB once parsed)
# is refused at once, the server's peak RSS (VmHWM, from /proc) stays
# bounded and /healthz keeps answering meanwhile; a valid 5.9 MiB batch is
# still taken.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; [ -n "${POST:-}" ] && kill "$POST" 2>/dev/null; rm -rf "$T"' EXIT
POST=
if ! command -v python3 >/dev/null 2>&1; then
	skip "push bounds" "needs python3"
	finish
fi
S=$T/s.db
"$TM" serve token add pi --db "$S" >"$T/pi.tok" && chmod 600 "$T/pi.tok"
W="Authorization: Bearer $(cat "$T/pi.tok")"
python3 "$TM_ROOT/tests/e2e/serve.d/bigbatch.py" empty "$T/empty.json"
python3 "$TM_ROOT/tests/e2e/serve.d/bigbatch.py" valid "$T/valid.json"
start_server "$S" || { fail "server starts" "$(cat "$T/srv.err")"; finish; exit 1; }
curl -s -o /dev/null "$URL/healthz"
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$SRV_PID/status"; }
# MiB the server's peak may grow by for one request: the 8 MiB body, held
# once, and what parsing a bounded batch may cost
GROWTH_MIB=48

hwm0=$(hwm)
curl -s -o "$T/big.body" -w '%{http_code} %{time_total}' -H "$W" -H 'Content-Type: application/json' \
	--data-binary @"$T/empty.json" "$URL/api/v1/push" >"$T/big.res" &
POST=$!
worst=0 n=0
while kill -0 "$POST" 2>/dev/null; do
	t=$(curl -s -o /dev/null -m 30 -w '%{time_total}' "$URL/healthz")
	worst=$(echo "$t $worst" | awk '{ print ($1 > $2) ? $1 : $2 }')
	n=$((n + 1))
	sleep 0.05
done
wait "$POST"
POST=
hwm1=$(hwm)
read -r code secs <"$T/big.res"
test_expect "8 MiB of empty objects refused in ${secs}s ($(cat "$T/big.body"))" '[ "$code" = 400 ] && awk -v s="$secs" '\''BEGIN { exit !(s < 3) }'\'' || test_why "HTTP $code in ${secs}s: $(head -c 200 "$T/big.body")"'
grown=$(((hwm1 - hwm0) / 1024))
test_expect "the server's peak RSS grew by $grown MiB (under $GROWTH_MIB; $hwm0 -> $hwm1 KiB)" '[ "$grown" -lt "$GROWTH_MIB" ] || test_why "grew by $grown MiB ($hwm0 -> $hwm1 KiB), limit $GROWTH_MIB"'
test_expect "/healthz answered meanwhile ($n requests, slowest ${worst}s)" 'awk -v w="$worst" '\''BEGIN { exit !(w < 2) }'\'' || test_why "slowest ${worst}s of $n requests"'

size=$(wc -c <"$T/valid.json")
code=$(curl -s -o "$T/valid.body" -w '%{http_code}' -H "$W" -H 'Content-Type: application/json' \
	--data-binary @"$T/valid.json" "$URL/api/v1/push")
n=$(q "$S" "select (select count(*) from samples) || '/' || (select count(*) from events) || '/' || (select count(*) from marks)")
test_expect "a valid batch of $((size / 1024)) KiB is taken ($n)" '[ "$code" = 200 ] && [ "$n" = 2000/5000/5000 ] || test_why "HTTP $code, $n stored: $(head -c 200 "$T/valid.body")"'
finish
