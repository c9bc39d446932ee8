#!/bin/sh
# record --remote-write against the real receivers Debian packages:
# Prometheus 2.42 (--web.enable-remote-write-receiver) and VictoriaMetrics
# (/api/v1/write).  A run is sent and queried back over each one's HTTP API,
# every value compared with the store; then the receiver is killed in the
# middle of a run and the recorder restarted while it is down: once it is
# back, every sample of both runs is there once, and nothing is doubled.
. "$(dirname "$0")/../lib.sh"
PIDS=
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_http URL: until URL answers 200 (at most 30 s)
wait_http()
{
	i=0
	while [ $i -lt 300 ]; do
		curl -sf -o /dev/null "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

prom_start()
{
	prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
		--web.listen-address="127.0.0.1:$PP" --web.enable-remote-write-receiver \
		>>"$T/prom.log" 2>&1 &
	PROM=$!
	PIDS="$PIDS $PROM"
	wait_http "http://127.0.0.1:$PP/-/ready"
}

vm_start()
{
	victoria-metrics -httpListenAddr="127.0.0.1:$VP" -storageDataPath="$T/vm" \
		-retentionPeriod=1y -search.latencyOffset=0s >>"$T/vm.log" 2>&1 &
	VM=$!
	PIDS="$PIDS $VM"
	wait_http "http://127.0.0.1:$VP/health"
}

# store_series DB RUN METRIC: "ms value" lines of the store's samples
store_series()
{
	"$TM" report "$2" --db "$1" --series="$3" | awk -F, 'NR > 1 && $3 != "" { printf "%.0f %s\n", int($2 / 1000), $3 }'
}

# prom_series FAMILY: "ms value" lines Prometheus holds for the machine
prom_series()
{
	curl -sf "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1{machine=\"rw-test\"}[1h]" |
		python3 -c 'import json,sys
for r in json.load(sys.stdin)["data"]["result"]:
    for t, v in r["values"]: print("%d %s" % (round(float(t) * 1000), v))' | sort -n
}

# vm_series FAMILY: the same from VictoriaMetrics' raw export
vm_series()
{
	curl -sf "http://127.0.0.1:$VP/internal/force_flush" >/dev/null
	curl -sf "http://127.0.0.1:$VP/api/v1/export" --data-urlencode "match[]=$1{machine=\"rw-test\"}" |
		python3 -c 'import json,sys
for line in sys.stdin:
    r = json.loads(line)
    for t, v in zip(r["timestamps"], r["values"]): print("%d %s" % (t, ("%.17g" % v) if v != int(v) else int(v)))' | sort -n
}

if ! command -v prometheus >/dev/null; then
	skip rw_prometheus "prometheus not installed (scripts/deps.sh --test installs it)"
	finish
fi
printf 'global:\n  scrape_interval: 1h\n' >"$T/prom.yml"
PP=$(free_port)
prom_start || { fail rw_prometheus_starts "$(tail -5 "$T/prom.log")"; finish; }

# one run, every value of two metrics compared
db=$T/a.db
"$TM" record -q -o "$db" -i 100ms --heap --machine rw-test --remote-write "http://127.0.0.1:$PP/api/v1/write" -- \
	python3 -c 'import time; x = []
for i in range(15): x.append(bytearray(1 << 20)); time.sleep(0.1)' 2>"$T/rec.err"
check_eq rw_prom_no_warning "$(grep -v 'completed after' "$T/rec.err")" ""
store_series "$db" 1 proc_rss_anon_bytes >"$T/store.txt"
prom_series tidemark_process_rss_anon_bytes >"$T/prom.txt"
n=$(wc -l <"$T/store.txt")
test_expect "rw_run_has_samples ($n)" '[ "$n" -ge 10 ] || test_why "$n samples"'
check_eq rw_prom_anon_equal "$(cat "$T/prom.txt")" "$(cat "$T/store.txt")"
check_eq rw_prom_processes_equal "$(prom_series tidemark_processes)" "$(store_series "$db" 1 proc_count)"
uuid=$("$TM" runs --db "$db" --json | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["uuid"])')
check_eq rw_prom_run_info "$(curl -sf "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=count_over_time(tidemark_run_info{machine=\"rw-test\",run=\"$uuid\"}[1h])" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')" \
	"$(sqlite3 "$db" 'select count(*) from samples where run_id = 1')"

# the Grafana dashboard's queries: each one valid PromQL for this
# Prometheus, over names tidemark exports, and the ones this host records
# answer with data
dash=$TM_ROOT/dist/grafana/tidemark.json
python3 -c 'import json,sys
for p in json.load(open(sys.argv[1]))["panels"]:
    for t in p["targets"]: print(t["expr"])' "$dash" >"$T/exprs"
bad=
while read -r e; do
	q=$(echo "$e" | sed 's/\$machine/.*/; s/\$__rate_interval/1m/')
	st=$(curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$q" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
	[ "$st" = success ] || bad="$bad
$q: $st"
	echo "$e" | grep -oE 'tidemark_[a-z_]+' >>"$T/names"
done <"$T/exprs"
check_eq rw_grafana_queries_valid "$bad" ""
# every family a panel names is one the run sent (the run is under --heap;
# this host is cgroup v1), or one only a v2 kernel has, or a limit the run
# did not set (no limit is no sample)
curl -s "http://127.0.0.1:$PP/api/v1/label/__name__/values" |
	python3 -c 'import json,sys; print("\n".join(json.load(sys.stdin)["data"]))' >"$T/sent"
printf '%s\n' tidemark_memory_high_bytes tidemark_spec_memory_limit_bytes \
	tidemark_pressure_memory_waiting_seconds_total \
	tidemark_pressure_memory_stalled_seconds_total >>"$T/sent"
check_eq rw_grafana_names_exported "$(sort -u "$T/names" | grep -vxF -f "$T/sent")" ""
n=$(curl -s "http://127.0.0.1:$PP/api/v1/query" --data-urlencode 'query=tidemark_process_rss_anon_bytes{machine=~".*"}[1h]' |
	python3 -c 'import json,sys; print(len(json.load(sys.stdin)["data"]["result"]))')
check_eq rw_grafana_anon_panel_has_data "$n" 1

# the receiver killed in the middle of run 2; run 3 started while it is down;
# the receiver back in the middle of run 3
db=$T/b.db
url="http://127.0.0.1:$PP/api/v1/write"
"$TM" record -q -o "$db" -i 100ms --machine rw-test --remote-write "$url" -- sleep 3 2>"$T/r2.err" &
R2=$!
sleep 1.2
kill -9 "$PROM"
wait "$PROM" 2>/dev/null
wait "$R2"
check rw_outage_said grep -q 'not reachable' "$T/r2.err"
check rw_outage_left_said grep -q 'stays in the store' "$T/r2.err"
"$TM" record -q -o "$db" -i 100ms --machine rw-test --remote-write "$url" -- sleep 4 2>"$T/r3.err" &
R3=$!
sleep 1.5
prom_start || fail rw_prometheus_restarts "$(tail -5 "$T/prom.log")"
wait "$R3"
check rw_outage_back_said grep -q 'answers again' "$T/r3.err"
{ store_series "$db" 1 proc_rss_anon_bytes; store_series "$db" 2 proc_rss_anon_bytes; } | sort -n >"$T/store2.txt"
prom_series tidemark_process_rss_anon_bytes >"$T/prom2.txt"
# both runs, each sample once: what run 1 sent before is among them too
grep -vxF -f "$T/store.txt" "$T/prom2.txt" >"$T/prom2-new.txt"
check_eq rw_outage_nothing_lost_or_doubled "$(cat "$T/prom2-new.txt")" "$(cat "$T/store2.txt")"
check_eq rw_outage_store_says_all_sent "$(sqlite3 "$db" "select count(*) from remote_write_sent r where sent_seq < (select max(seq) from samples where run_id = r.run_id)")" 0

# VictoriaMetrics, the same run compared value for value
if command -v victoria-metrics >/dev/null; then
	VP=$(free_port)
	if vm_start; then
		db=$T/v.db
		"$TM" record -q -o "$db" -i 100ms --machine rw-test \
			--remote-write "http://127.0.0.1:$VP/api/v1/write" -- sleep 1.5 2>"$T/v.err"
		check_eq rw_vm_no_warning "$(grep -v 'completed after' "$T/v.err")" ""
		# VictoriaMetrics makes what it took searchable within a second or so
		# (its ingestion buffers), force_flush or not: ask until it has all
		want=$(store_series "$db" 1 proc_rss_anon_bytes)
		i=0
		while [ $i -lt 20 ] && [ "$(vm_series tidemark_process_rss_anon_bytes)" != "$want" ]; do
			sleep 0.5
			i=$((i + 1))
		done
		check_eq rw_vm_anon_equal "$(vm_series tidemark_process_rss_anon_bytes)" "$want"
		check_eq rw_vm_cpu_seconds_equal "$(vm_series tidemark_process_utime_seconds_total | wc -l)" \
			"$(store_series "$db" 1 proc_utime_usec | wc -l)"
	else
		fail rw_vm_starts "$(tail -5 "$T/vm.log")"
	fi
else
	skip rw_vm "victoria-metrics not installed (scripts/deps.sh --test installs it)"
fi
finish
