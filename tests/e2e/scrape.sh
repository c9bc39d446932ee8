#!/bin/sh
# record --scrape: a real Go program (tests/progs/go/promserve.go) serves its
# own runtime.ReadMemStats as Prometheus text on 127.0.0.1 and logs every
# answer; the series tidemark stored are exactly what the program said it
# served, in order, and Go's series fill go_heap_alloc_bytes and gc_cycles
# beside the sample.  An endpoint that hangs or dies costs the command
# nothing (same samples, same time) and its missed values are absent, not
# 0 and not the last one repeated.  A bad URL or metric list exits 2.
# Bounded retention (record --keep, prune) drops the pruned samples'
# scraped values and keeps the series; the report says so.
. "$(dirname "$0")/../lib.sh"

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# ---- bad input: exit 2 with the reason ----
for bad in 'foo' 'ftp://h/metrics' 'http:///metrics' 'http://h/m,9bad' 'http://h/m,a{b=c}' \
	'http://h/m,a b' 'http://h/m,,x'; do
	"$TM" record -o "$T/bad.db" --scrape "$bad" -- true >"$T/bad.out" 2>&1
	rc=$?
	test_expect "--scrape '$bad' is refused, exit 2" '[ $rc -eq 2 ] && grep -q "scrape '\''" "$T/bad.out" || test_why "exit $rc: $(head -2 "$T/bad.out")"'
done
check_fails "a tenth --scrape is refused" "at most 8" "$TM" record -o "$T/bad.db" \
	--scrape http://a/m --scrape http://a/m --scrape http://a/m --scrape http://a/m \
	--scrape http://a/m --scrape http://a/m --scrape http://a/m --scrape http://a/m \
	--scrape http://a/m -- true
printf '[bench]\nScrape=http://h/m,9bad\n\n[a]\n' >"$T/bad.ini"
check_fails "an experiment file's Scrape= is read by the same table" "bad.ini:2: Scrape '" \
	"$TM" bench -o "$T/bad.db" -f "$T/bad.ini" -- true

# ---- a hung endpoint, and one that dies: the command is not slowed ----
cat >"$T/endpoint.py" <<'EOP'
# serves ANSWERS good answers, then hangs (accepts, never answers) or dies
import socket, sys
port, answers, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(64)
held, n = [], 0
body = b"# TYPE app_gauge gauge\napp_gauge 42\n"
while True:
    c, _ = s.accept()
    if n >= answers:
        if mode == "die":
            sys.exit(0)
        held.append(c)
        continue
    n += 1
    c.recv(4096)
    c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    c.close()
EOP
t0=$(date +%s%N)
"$TM" record -q -o "$T/plain.db" -i 100ms --no-cgroup -- sleep 2 2>/dev/null
base_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
base=$(sql "$T/plain.db" "SELECT count(*) FROM samples")
for mode in hang die; do
	port=$(free_port)
	python3 "$T/endpoint.py" "$port" 5 $mode &
	epid=$!
	sleep 0.3
	t0=$(date +%s%N)
	"$TM" record -q -o "$T/$mode.db" -i 100ms --no-cgroup --scrape "http://127.0.0.1:$port/metrics" \
		-- sleep 2 2>"$T/$mode.err"
	t1=$(date +%s%N)
	kill $epid 2>/dev/null
	wait $epid 2>/dev/null
	n=$(sql "$T/$mode.db" "SELECT count(*) FROM samples")
	ms=$(( (t1 - t0) / 1000000 ))
	# the same samples, and the time of the run without --scrape (plus the
	# 300 ms the end may wait for a request in flight, and some slack)
	test_expect "an endpoint that ${mode}s keeps the samples ($n, $base without) and the time (${ms} ms, $base_ms without)" '[ "$n" -ge $((base - 1)) ] && [ $ms -lt $((base_ms + 600)) ]'
	check "an endpoint that ${mode}s: its answers, then absent (not 0, not repeated)" python3 - \
		"$T/$mode.db" "$TM" <<'EOP'
import json, subprocess, sys, sqlite3
db = sqlite3.connect(sys.argv[1])
vals = db.execute("SELECT seq, value FROM scrape_values ORDER BY seq").fetchall()
n = db.execute("SELECT count(*) FROM samples").fetchone()[0]
# on a loaded machine an answer can come too late for its sample: then it
# is missing too (the endpoint still counted it among its 5)
assert 1 <= len(vals) <= 5 and all(v == 42 for _, v in vals), vals
assert n > 10 and vals[-1][0] < n - 5, (n, vals)
j = json.loads(subprocess.check_output([sys.argv[2], "report", "-o", sys.argv[1], "--json"]))
g = j["scraped"][0]
assert g["name"] == "app_gauge" and g["values"] == len(vals) and g["samples"] == n, g
import csv
rows = list(csv.DictReader(subprocess.check_output([sys.argv[2], "report", "-o", sys.argv[1], "--series"]).decode().splitlines()))
cells = [r["app_gauge"] for r in rows]
assert cells.count("42") == len(vals) and cells.count("") == n - len(vals), cells
EOP
	test_expect "the ${mode} is said once on stderr" 'grep -q "values are missing (absent, not 0)" "$T/$mode.err" || test_why "$(cat "$T/$mode.err")"'
done

# ---- bounded retention: --keep / prune drop the pruned samples' scraped values ----
port=$(free_port)
python3 "$T/endpoint.py" "$port" 1000000 hang &
epid=$!
sleep 0.3
"$TM" record -q -o "$T/keep.db" -i 100ms --no-cgroup --keep raw=2s,minute=1h,hour=forever \
	--scrape "http://127.0.0.1:$port/metrics" -- sleep 5 2>"$T/keep.err"
first=$(sql "$T/keep.db" "SELECT min(seq) FROM samples")
below=$(sql "$T/keep.db" "SELECT count(*) FROM scrape_values WHERE seq < $first")
kept=$(sql "$T/keep.db" "SELECT count(*) FROM scrape_values WHERE seq >= $first")
test_expect "record --keep raw=2s pruned the scraped values below the first kept sample ($first; $kept kept), kept the series, integrity ok" '
	[ "$first" -gt 10 ] && [ "$below" = 0 ] && [ "$kept" -gt 0 ] &&
	[ "$(sql "$T/keep.db" "SELECT count(*) FROM scrape_series")" = 1 ] &&
	[ "$(sql "$T/keep.db" "PRAGMA integrity_check")" = ok ] || test_why "first $first, $below below, $kept kept, $(cat "$T/keep.err")"'
"$TM" report -o "$T/keep.db" >"$T/keep.txt" 2>&1
test_expect "report's scraped block over the pruned run covers the kept stretch, labelled" '
	grep -q "^  scraped     samples before $first were pruned with their scraped values: figures over the kept stretch only" "$T/keep.txt" &&
	grep -q "^              app_gauge (gauge) last 42, peak 42, low 42; $kept of " "$T/keep.txt" || test_why "$(grep -A3 scraped "$T/keep.txt")"'
check "report --json: kept_from_seq is the first kept sample" sh -c \
	"'$TM' report -o '$T/keep.db' --json | jq -e '.scraped[0].kept_from_seq == $first and .scraped[0].values == $kept'"
# tidemark prune on the ended run, keeping its last second: more samples go, with their values
"$TM" prune -o "$T/keep.db" --keep raw=1s >"$T/prune.out" 2>&1
first2=$(sql "$T/keep.db" "SELECT min(seq) FROM samples")
test_expect "tidemark prune removes the scraped values below the first kept sample ($first2), integrity ok" '
	[ "$first2" -gt "$first" ] &&
	[ "$(sql "$T/keep.db" "SELECT count(*) FROM scrape_values WHERE seq < $first2")" = 0 ] &&
	[ "$(sql "$T/keep.db" "SELECT count(*) FROM scrape_values WHERE seq >= $first2")" -gt 0 ] &&
	[ "$(sql "$T/keep.db" "SELECT count(*) FROM scrape_series")" = 1 ] &&
	[ "$(sql "$T/keep.db" "PRAGMA integrity_check")" = ok ] && grep -q "scraped values)" "$T/prune.out" || test_why "first $first2; $(cat "$T/prune.out")"'
kill $epid 2>/dev/null
wait $epid 2>/dev/null

# ---- Go through its own /metrics ----
if ! command -v go >/dev/null; then
	skip scrape_go "no go (scripts/deps.sh --test installs golang-go)"
	finish
fi
if ! GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS=-mod=mod GO111MODULE=off \
	go build -o "$T/promserve" "$TM_ROOT/tests/progs/go/promserve.go" >"$T/build.log" 2>&1; then
	fail scrape_go_builds "$(tail -5 "$T/build.log")"
	finish
fi
port=$(free_port)
"$TM" record -o "$T/go.db" -i 200ms --no-cgroup \
	--scrape "http://127.0.0.1:$port/metrics,go_memstats_heap_alloc_bytes,app_held_bytes,app_requests_total,app_latency_seconds,app_absent{x=\"1\"}" \
	-- "$T/promserve" 24 3 "$port" >"$T/go.out" 2>"$T/go.err"
"$TM" report -o "$T/go.db" --series >"$T/go.csv"
check "what tidemark stored is what the Go program served, answer by answer" python3 - \
	"$T/go.out" "$T/go.csv" <<'EOP'
import csv, sys
served = {}
for l in open(sys.argv[1]):
    w = l.split()
    if w and w[0] == "served":
        served[int(w[1])] = (int(w[3]), int(w[5]), int(w[7]))
rows = [r for r in csv.DictReader(open(sys.argv[2]))]
got = [r for r in rows if r["app_requests_total"]]
assert len(got) >= 6, (len(got), len(rows))
last = 0
for r in got:
    n = int(float(r["app_requests_total"]))
    assert n > last, (n, last)     # never a value repeated
    last = n
    heap, inuse, gcs = served[n]   # the answer the program logged as number n
    assert int(float(r["go_memstats_heap_alloc_bytes"])) == heap, (r, served[n])
    assert int(r["go_heap_alloc_bytes"]) == heap and int(r["go_heap_inuse_bytes"]) == inuse, r
    assert int(r["gc_cycles"]) == gcs, (r["gc_cycles"], gcs)
    assert heap >= 24 << 20, heap
    assert float(r['app_held_bytes{kind="slabs",zone="a"}']) == 24 << 20, r
    assert float(r["app_latency_seconds_count"]) == n, r
assert "app_latency_seconds_bucket" not in ",".join(rows[0].keys()), rows[0].keys()
absent = [r for r in rows if not r["app_requests_total"]]
assert all(not r["go_heap_alloc_bytes"] and not r["gc_cycles"] for r in absent), absent
EOP
"$TM" report -o "$T/go.db" >"$T/go.txt"
test_expect "report shows the scraped series, n/a for one never served" '
	grep -q '\''^              app_held_bytes{kind="slabs",zone="a"} (gauge) last 24.0 MiB, peak 24.0 MiB'\'' "$T/go.txt" &&
	grep -q '\''^              app_requests_total (counter) last [0-9]*, rose'\'' "$T/go.txt" &&
	grep -q '\''^              app_absent{x="1"} (unknown) n/a: never served'\'' "$T/go.txt" || test_why "$(grep -A8 scraped "$T/go.txt")"'
check "report --json: the never-served series is null" sh -c \
	"'$TM' report -o '$T/go.db' --json | python3 -c 'import json,sys; s={g[\"name\"]: g for g in json.load(sys.stdin)[\"scraped\"]}; a=s[\"app_absent{x=\\\"1\\\"}\"]; assert a[\"last\"] is None and a[\"max\"] is None and a[\"values\"] == 0, a; assert s[\"app_requests_total\"][\"rise\"] > 0'"
check "report --series=NAME: one scraped series" sh -c \
	"'$TM' report -o '$T/go.db' '--series=app_held_bytes{kind=\"slabs\",zone=\"a\"}' | sed -n 2p | grep -q ',25165824$'"
check "report --series NAME (no =), before or after the run id" sh -c \
	"'$TM' report -o '$T/go.db' --series app_requests_total 1 | sed -n 2p | grep -q ',1\$' &&
	 '$TM' report -o '$T/go.db' 1 --series go_heap_alloc_bytes | sed -n 1p | grep -q '^seq,t_wall_usec,go_heap_alloc_bytes\$'"
check_fails "report --series=NAME of no series" "no series 'nope'" "$TM" report -o "$T/go.db" --series=nope
# ---- --runtime go --scrape: the GC lines and the program's own /metrics together ----
port=$(free_port)
"$TM" record -o "$T/both.db" -i 200ms --no-cgroup --runtime go \
	--scrape "http://127.0.0.1:$port/metrics,app_requests_total" \
	-- "$T/promserve" 16 2 "$port" >"$T/both.out" 2>"$T/both.err"
"$TM" report -o "$T/both.db" --series >"$T/both.csv"
check "--runtime go --scrape: live after GC from gctrace beside HeapAlloc from /metrics" python3 - \
	"$T/both.csv" "$T/both.err" <<'EOP'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
both = [r for r in rows if r["gc_heap_live_bytes"] and r["go_heap_alloc_bytes"]]
assert len(both) >= 3, len(both)
for r in both:
    # the GC lines (whole MiB, truncated) win for the live heap: never HeapAlloc
    assert int(r["gc_heap_live_bytes"]) % (1 << 20) == 0, r["gc_heap_live_bytes"]
    assert int(r["gc_heap_live_bytes"]) >= 16 << 20, r["gc_heap_live_bytes"]
# and gc_cycles counts the gctrace lines seen (the GC lines win there too)
lines = len([l for l in open(sys.argv[2]) if re.match(r"gc \d+ @", l)])
last = int([r for r in rows if r["gc_cycles"]][-1]["gc_cycles"])
assert last <= lines, (last, lines)
EOP

# ---- record --metrics-listen: the scraped series beside tidemark's ----
port=$(free_port)
mport=$(free_port)
"$TM" record -o "$T/live.db" -i 200ms --no-cgroup --metrics-listen "127.0.0.1:$mport" \
	--scrape "http://127.0.0.1:$port/metrics,app_held_bytes,app_requests_total" \
	-- "$T/promserve" 8 2.5 "$port" >"$T/live.out" 2>/dev/null &
rpid=$!
sleep 1.5
curl -s "http://127.0.0.1:$mport/metrics" >"$T/live.prom"
wait $rpid
test_expect "--metrics-listen exports the scraped series and Go's heap" '
	grep -q '\''^tidemark_scraped{machine="[^"]*",series="app_held_bytes{kind=\\"slabs\\",zone=\\"a\\"}",kind="gauge"} 8388608$'\'' "$T/live.prom" &&
	grep -q '\''^tidemark_scraped{machine="[^"]*",series="app_requests_total",kind="counter"} [0-9]'\'' "$T/live.prom" &&
	grep -q '\''^tidemark_go_heap_alloc_bytes{machine="[^"]*"} [0-9]'\'' "$T/live.prom" || test_why "$(grep -i '\''scraped\|go_heap'\'' "$T/live.prom" | head -5)"'
n=$(sed -n 's/^tidemark_scraped{.*series="app_requests_total".*} \([0-9]*\)$/\1/p' "$T/live.prom")
test_expect "its value is one the program served ($n)" '[ -n "$n" ] && grep -q "^served $n " "$T/live.out" || test_why "$(tail -3 "$T/live.out")"'
if command -v promtool >/dev/null; then
	check "promtool check metrics passes on it" sh -c "promtool check metrics <'$T/live.prom'"
fi

# ---- pushed to a server: stored there too, on its /metrics ----
. "$(dirname "$0")/serve.d/lib.sh"
SRV_PID=
trap '[ -n "$SRV_PID" ] && stop_server; rm -rf "$T"' EXIT
S=$T/server.db
"$TM" serve token add pi --db "$S" >"$T/pi.tok" && "$TM" serve token add --read prom --db "$S" >"$T/read.tok"
chmod 600 "$T"/*.tok
if start_server "$S"; then
	port=$(free_port)
	"$TM" record -o "$T/pushed.db" -i 200ms --no-cgroup --push "$URL" --token-file "$T/pi.tok" \
		--scrape "http://127.0.0.1:$port/metrics,app_held_bytes,app_requests_total" \
		-- "$T/promserve" 8 3 "$port" >"$T/pushed.out" 2>"$T/pushed.err" &
	rpid=$!
	sleep 2
	curl -s -H "Authorization: Bearer $(cat "$T/read.tok")" "$URL/metrics" >"$T/server.prom"
	wait $rpid
	test_expect "the server's /metrics has the pushed scraped series" 'grep -q '\''^tidemark_scraped{machine="pi",series="app_held_bytes{kind=\\"slabs\\",zone=\\"a\\"}",kind="gauge"} 8388608$'\'' "$T/server.prom" || test_why "$(grep -c . "$T/server.prom") lines; $(grep scraped "$T/server.prom" | head -3)"'
	sleep 0.5
	q="SELECT s.name, s.kind, v.seq, v.t_wall_usec, v.value FROM scrape_values v JOIN scrape_series s ON s.id = v.series_id ORDER BY v.seq, s.name"
	sql "$T/pushed.db" "$q" >"$T/local.rows"
	sql "$S" "$q" >"$T/server.rows"
	test_expect "the server stored every scraped value once, as recorded ($(wc -l <"$T/local.rows") values)" '[ -s "$T/local.rows" ] && cmp -s "$T/local.rows" "$T/server.rows" || test_why "$(wc -l <"$T/local.rows") local, $(wc -l <"$T/server.rows") on the server; $(diff "$T/local.rows" "$T/server.rows" | head -4)"'
	stop_server
	SRV_PID=
else
	fail "the server starts" "$(cat "$T/srv.err")"
fi

# ---- the bench table: a gauge served in every arm, its peak and last ----
port=$(free_port)
"$TM" bench -o "$T/bench.db" -n 2 --arm small:MIB=8 --arm big:MIB=24 -i 200ms \
	--scrape "http://127.0.0.1:$port/metrics,app_held_bytes,app_requests_total,only_somewhere" \
	-- sh -c "exec '$T/promserve' \$MIB 1.5 $port" >"$T/bench.txt" 2>&1
check "bench table: the scraped gauge's peak and last per arm" python3 - "$T/bench.db" "$TM" <<'EOP'
import json, subprocess, sys
d = json.loads(subprocess.check_output([sys.argv[2], "bench", "-o", sys.argv[1], "--table", "1", "--json"]))
assert d["scraped"] == ['app_held_bytes{kind="slabs",zone="a"}', None, None, None], d["scraped"]
small, big = d["arms"]
for key in ("scraped_1_peak_bytes", "scraped_1_last_bytes"):
    assert small["figures"][key]["median"] == 8 << 20 and small["figures"][key]["n"] == 2, small["figures"][key]
    assert big["figures"][key]["median"] == 24 << 20 and big["figures"][key]["ratio"] == 3, big["figures"][key]
# a counter gets no gauge row
assert "scraped_3_peak" not in small["figures"] or small["figures"]["scraped_3_peak"]["n"] == 0, small["figures"].get("scraped_3_peak")
assert any(n["kind"] == "scraped" and "app_held_bytes" in n["text"] for n in d["notes"]), d["notes"]
EOP
test_expect "bench's text table has the scraped row" 'grep -q '\''^scraped 1 peak MiB  *8 \[8–8\]  *24 \[24–24\] ×3.00'\'' "$T/bench.txt" || test_why "$(grep -i scraped "$T/bench.txt")"'

# ---- the panel draws them (report --html, headless chromium) ----
BROWSER_DIR=$TM_ROOT/tests/browser
if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null; then
	skip "scraped series in the panel" "needs /usr/bin/chromium and node"
	finish
fi
if [ ! -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	(cd "$BROWSER_DIR" && npm install --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip "scraped series in the panel" "cannot npm install playwright-core: $(tail -2 "$T/npm.log")"; finish; }
fi
"$TM" report -o "$T/go.db" --html "$T/go.html"
node "$BROWSER_DIR/charts.mjs" "$T/go.html" "$TM_BUILD/test-artifacts/scrape/run.png" \
	'scraped=app_held_bytes{kind="slabs",zone="a"}' scraped=app_requests_total \
	scraped=go_memstats_heap_alloc_bytes 2>&1 | sed 's/^ok - /ok - panel: /'
finish
