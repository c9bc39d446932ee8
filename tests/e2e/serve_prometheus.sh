#!/bin/sh
# /metrics scraped by a real Prometheus (Debian's), started here on
# 127.0.0.1 with its own config and storage; then asked for our series.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
PROM_PID=
FEED_PID=
trap '[ -n "$FEED_PID" ] && kill "$FEED_PID" 2>/dev/null; stop_server; [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null; rm -rf "$T"' EXIT

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
	skip "prometheus scrapes /metrics" "prometheus/promtool not installed (apt-get install prometheus)"
	finish
fi
S=$T/s.db
"$TM" serve token add pi --db "$S" >"$T/pi.tok" && "$TM" serve token add --read prom --db "$S" >"$T/read.tok"
chmod 600 "$T"/*.tok
start_server "$S" || { fail "server starts" "$(cat "$T/srv.err")"; exit 1; }
# a live collector (an ended run's values are not exported as current)
"$FEED" "$T/pi.db" pi 600 100 "$URL" "$T/pi.tok" >/dev/null 2>"$T/feed.err" &
FEED_PID=$!
n=0
while [ "$(sqlite3 "$S" "select count(*) from samples" 2>/dev/null || echo 0)" -lt 3 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
test_expect "collector pushes" '[ $n -lt 100 ] || test_why "$(cat "$T/feed.err")"'

curl -s -H "Authorization: Bearer $(cat "$T/read.tok")" "$URL/metrics" >"$T/metrics.txt"
check "promtool check metrics passes" sh -c "promtool check metrics <'$T/metrics.txt'"
"$TM_BUILD/tests/progs/serve_promall" >"$T/all.txt"
check "promtool passes every metric name we can emit" sh -c "promtool check metrics <'$T/all.txt'"

# a free port for prometheus's own web server
pport=
for p in $(seq 19090 19190); do
	if ! curl -s -o /dev/null "http://127.0.0.1:$p/" 2>/dev/null; then pport=$p; break; fi
done
cat >"$T/prom.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tidemark
    authorization:
      type: Bearer
      credentials_file: $T/read.tok
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOC
check "promtool check config" promtool check config "$T/prom.yml"
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
	--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$T/prom.log" 2>&1 &
PROM_PID=$!
found=
n=0
while [ $n -lt 60 ]; do
	sleep 0.5
	curl -s "http://127.0.0.1:$pport/api/v1/query?query=tidemark_memory_anon_bytes" >"$T/q.json" 2>/dev/null
	if grep -q '"machine":"pi"' "$T/q.json"; then found=1; break; fi
	n=$((n + 1))
done
test_expect "prometheus scraped tidemark_memory_anon_bytes{machine=\"pi\"}" '[ -n "$found" ] || test_why "$(cat "$T/q.json"; tail -5 "$T/prom.log")"'
curl -s "http://127.0.0.1:$pport/api/v1/query?query=up%7Bjob%3D%22tidemark%22%7D" >"$T/up.json"
test_expect "scrape target is up" 'grep -q '\''"value":\[[0-9.]*,"1"\]'\'' "$T/up.json" || test_why "$(cat "$T/up.json")"'
curl -s "http://127.0.0.1:$pport/api/v1/query?query=tidemark_memory_events_total%7Bevent%3D%22oom_kill%22%7D" >"$T/ev.json"
test_expect "prometheus has the oom_kill counter" 'grep -q '\''"event":"oom_kill"'\'' "$T/ev.json" || test_why "$(cat "$T/ev.json")"'

# `record --metrics-listen`: the collector's own exporter
mport=$((pport + 1))
timeout -k 2 15 "$TM" record --db "$T/rec.db" --machine pi --metrics-listen "127.0.0.1:$mport" -- sleep 4 >"$T/rec.out" 2>&1 &
REC_PID=$!
got=
n=0
while [ $n -lt 30 ]; do
	sleep 0.2
	if curl -s "http://127.0.0.1:$mport/metrics" >"$T/rec.txt" 2>/dev/null && grep -q '^tidemark_' "$T/rec.txt"; then got=1; break; fi
	kill -0 "$REC_PID" 2>/dev/null || break
	n=$((n + 1))
done
wait "$REC_PID"
if [ -n "$got" ]; then
	ok "record --metrics-listen serves /metrics"
	check "record's /metrics passes promtool" sh -c "promtool check metrics <'$T/rec.txt'"
	# the same identity as the server's: the machine name and the run's uuid
	test_expect "record's /metrics names the run by its uuid and --machine" 'grep -q '\''^tidemark_run_info{machine="pi",run="'\''"$(sqlite3 "$T/rec.db" "select uuid from runs")"'\''"'\'' "$T/rec.txt" || test_why "$(grep run_info "$T/rec.txt")"'
	test_expect "record's series carry the machine, not a local run id" 'grep -qE '\''^tidemark_[a-z_]+\{machine="pi"'\'' "$T/rec.txt" && ! grep -q '\''run="1"'\'' "$T/rec.txt" || test_why "$(head -20 "$T/rec.txt")"'
elif grep -q "unrecognized option\|metrics-listen" "$T/rec.out"; then
	skip "record --metrics-listen serves /metrics" "this build's record has no --metrics-listen: $(head -1 "$T/rec.out")"
else
	fail "record --metrics-listen serves /metrics" "$(tail -3 "$T/rec.out")"
fi
finish
