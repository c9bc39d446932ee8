#!/bin/sh
# One machine, one run, whoever Prometheus scrapes: a recorder that pushes
# to `serve` with the token "pi" and serves its own /metrics
# (--metrics-listen), no --machine, both scraped by a real Prometheus
# (Debian's) as two jobs.  Both name the machine "pi" (the token's name,
# not the host name) and the run by the same uuid, and every query the
# docs show with group_left (README.md, docs/*.md) runs through
# Prometheus's HTTP API without an error and gives the series it should.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; stop_server; rm -rf "$T"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# query PROMQL: Prometheus's answer (JSON) to an instant query, in $T/q.json
query()
{
	curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" >"$T/q.json"
}

# series: "machine run job" of each series of the answer in $T/q.json, sorted;
# "error: ..." when Prometheus refused the query
series()
{
	jq -r 'if .status != "success" then "error: \(.error)"
		else .data.result[].metric | "\(.machine // "-") \(.run // "-") \(.job // "-")" end' \
		"$T/q.json" | sort
}

if ! command -v prometheus >/dev/null; then
	skip prom_identity "prometheus not installed (scripts/deps.sh --test installs it)"
	finish
fi
S=$T/s.db
"$TM" serve token add pi --db "$S" --token-file "$T/pi.tok" &&
	"$TM" serve token add --read prom --db "$S" --token-file "$T/read.tok"
start_server "$S" || { fail "server starts" "$(cat "$T/srv.err")"; finish; }
[ "$(hostname)" != pi ] || { skip prom_identity "this host is named pi: the test needs another name"; finish; }

# an explicit --machine that is not the token's name is refused at once
check_fails "record --machine other with the token of pi fails" "files this machine's runs as 'pi'" \
	"$TM" record --db "$T/x.db" --push "$URL" --token-file "$T/pi.tok" --machine other -- true

MP=$(free_port)
"$TM" record --db "$T/rec.db" --push "$URL" --token-file "$T/pi.tok" --metrics-listen "127.0.0.1:$MP" \
	--interval 200ms -q -- sleep 60 >"$T/rec.out" 2>&1 &
REC=$!
PIDS="$PIDS $REC"
wait_for 10 sh -c "curl -sf 'http://127.0.0.1:$MP/metrics' | grep -q '^tidemark_run_info'" ||
	{ fail "record serves /metrics" "$(cat "$T/rec.out")"; finish; }
UUID=$(sql "$T/rec.db" "select uuid from runs")
check_eq "the local store names the run's machine as the server does" "$(sql "$T/rec.db" "select machine from runs")" pi

PP=$(free_port)
cat >"$T/prom.yml" <<EOC
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tidemark-serve
    authorization:
      type: Bearer
      credentials_file: $T/read.tok
    static_configs:
      - targets: ['127.0.0.1:$PORT']
  - job_name: tidemark-record
    static_configs:
      - targets: ['127.0.0.1:$MP']
EOC
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
	--web.listen-address="127.0.0.1:$PP" --log.level=warn >"$T/prom.log" 2>&1 &
PIDS="$PIDS $!"
got=
n=0
while [ $n -lt 60 ]; do
	sleep 0.5
	query 'count(tidemark_memory_usage_bytes) * count(tidemark_run_info)' 2>/dev/null
	grep -q '"value":\[[0-9.]*,"4"\]' "$T/q.json" && { got=1; break; }
	n=$((n + 1))
done
[ -n "$got" ] || { fail "prometheus scrapes both jobs" "$(cat "$T/q.json"; tail -5 "$T/prom.log")"; finish; }

want_two="pi $UUID tidemark-record
pi $UUID tidemark-serve"
query 'tidemark_run_info'
check_eq "both jobs name the machine pi (not $(hostname)) and the same run" "$(series | sed "s/ $UUID / - /")" "pi - tidemark-record
pi - tidemark-serve"
query 'tidemark_memory_usage_bytes{machine!="pi"}'
check_eq "no series under another machine name" "$(series)" ""

# every documented join, as the docs write it
# (inline in backquotes, or a line of its own in a promql block)
docs=$({
	grep -ho '`[^`]*group_left[^`]*`' "$TM_ROOT/README.md" "$TM_ROOT"/docs/*.md | tr -d '`'
	grep -h 'group_left' "$TM_ROOT/README.md" "$TM_ROOT"/docs/*.md | grep -v '`'
} | sort -u)
[ -n "$docs" ] || fail "the docs show a group_left query" "none found in README.md, docs/*.md"
echo "$docs" | while IFS= read -r q; do
	case $q in
	\**) q="tidemark_memory_usage_bytes $q" ;; # a join's right half
	esac
	query "$q"
	out=$(series)
	case $out in
	error:*) fail "documented query runs: $q" "$out" ;;
	"") fail "documented query has series: $q" "$(cat "$T/q.json")" ;;
	*)
		case $q in
		max\ by*) check_eq "documented query: $q" "$out" "pi $UUID -" ;;
		*) check_eq "documented query: $q" "$out" "$want_two" ;;
		esac
		;;
	esac
done
# the old join fails as soon as both are scraped: the docs must not show it
query 'tidemark_memory_usage_bytes * on(machine) group_left(run) tidemark_run_info'
test_expect "on(machine) alone is many-to-many with both jobs scraped (not documented)" '
	case $(series) in
	error:*many-to-many*) ;;
	*) test_why "$(series)" ;;
	esac'
echo "$docs" | grep -q 'on(machine)' && fail "the docs do not show on(machine) alone" "$docs"
kill -INT "$REC"
wait "$REC"
finish
