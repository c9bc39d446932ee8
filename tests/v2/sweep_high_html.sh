#!/bin/sh
# A MemoryHigh sweep's curve in the HTML bench report and the server's API.
# In the cgroup v2 guest (the only place memory.high throttles) a real
# MemoryHigh sweep: below the 48 MiB the workload needs its runs are held
# in throttle limbo, above it they are not; the store and what `bench
# --sweep` printed come back to the host (TM_GUEST_OUT), where `report
# --bench N --html` is opened in headless chromium (tests/browser/sweep.mjs:
# the terminal's rows with rate, psi and throttled, the progress rate and
# memory pressure plotted per arm against the ceiling, the throttled
# limits marked) and `tidemark serve` answers /api/v1/bench/N/sweep with
# the same curve.  Screenshot: build/test-artifacts/bench/sweep-high.png.
if [ -n "${TM_IN_GUEST:-}" ]; then
	V2_TIMEOUT=280
	. "$(dirname "$0")/lib.sh"
	W="$TM_BUILD/progs/bench_alloc --mib 48 --steps 24 --step-ms 20"
	"$TM" bench -o "$T/s.db" --arm glibc --runs 1 -i 200ms --timeout 12s --swap-max 0 \
		--sweep MemoryHigh=16M..128M --resolution 16M --progress 'progress=([0-9]+)' \
		-- $W >"$TM_GUEST_OUT/sweep.txt" 2>"$TM_GUEST_OUT/sweep.err"
	is "$?" = 0 "a MemoryHigh sweep in the guest" "$(tail -5 "$TM_GUEST_OUT/sweep.err")"
	list=$(sed -n 's/^the runs are in benches \([0-9,-]*\):.*/\1/p' "$TM_GUEST_OUT/sweep.txt")
	"$TM" advise -o "$T/s.db" --bench "$list" >"$TM_GUEST_OUT/advise.txt" 2>&1
	# advise over the sweep's runs: the throttled runs below its smallest
	# passing MemoryHigh are not held against the arm, and MemoryHigh is at
	# least that limit
	"$TM" bench -o "$T/s.db" --arm glibc --runs 1 -i 200ms --timeout 12s --swap-max 0 \
		--sweep MemoryHigh=16M..128M --resolution 16M --json --progress 'progress=([0-9]+)' \
		-- $W >"$T/s.json" 2>/dev/null
	"$TM" advise -o "$T/s.db" --bench "$list" --json >"$T/a.json" 2>&1
	r=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["arms"][0]
a = json.load(open(sys.argv[2]))
arm = a["arms"][0]
p = arm["profiles"][0]
print(a["recommended"], arm["survived"] == arm["runs"],
      p["figures"]["memory_high_bytes"]["value"] >= s["smallest_passing_bytes"],
      p["sweep_high_min_bytes"] == s["smallest_passing_bytes"])' "$T/s.json" "$T/a.json" 2>&1)
	is "$r" = "glibc True True True" "advise over a MemoryHigh sweep: recommended, MemoryHigh at least the sweep's smallest passing limit" \
		"$(head -c 600 "$T/a.json")"
	cp "$T/s.db" "$TM_GUEST_OUT/s.db"
	finish
fi

# ---- on the host: run the part above in a guest, then read what it made ----
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
sh "$ROOT/scripts/vm/run-in-guest" -k -t 280 "$0" >"$T/guest.out" 2>"$T/guest.err"
rc=$?
grep -v '^# tidemark-test-finished$' "$T/guest.out"
job=$(sed -n 's/^run-in-guest: job directory //p' "$T/guest.err")
trap 'rm -rf "$T" ${job:+"$job"}' EXIT
O=$job/out.d
if [ $rc -ne 0 ] || [ ! -s "$O/s.db" ]; then
	fail "the guest's sweep came back" "exit $rc: $(tail -5 "$T/guest.err")"
	finish
fi
first=$(sed -n 's/^the runs are in benches \([0-9]*\).*/\1/p' "$O/sweep.txt")
check "report --bench $first --html of the MemoryHigh sweep's bench" \
	"$TM" report --db "$O/s.db" --bench "$first" --html "$T/s.html"
test_expect "the report embeds a MemoryHigh curve" 'grep -q '\''"limit":"MemoryHigh"'\'' "$T/s.html" || grep -q '\''"limit": "MemoryHigh"'\'' "$T/s.html" || test_why "$(grep -o '\''"/api/v1/bench/[0-9]*/sweep"[^}]*'\'' "$T/s.html" | head -c 300)"'

. "$ROOT/tests/e2e/serve.d/lib.sh"
if start_server "$O/s.db" --public-read; then
	got=$(http GET "/api/v1/bench/$first/sweep")
	r=$(python3 "$ROOT/tests/e2e/sweep_api.py" "$T/body" "$O/sweep.txt" 2>&1)
	test_expect "the API's /api/v1/bench/$first/sweep has the MemoryHigh curve bench --sweep printed" '[ "$got" = 200 ] && [ "$r" = same ] || test_why "HTTP $got: $r"'
	stop_server
else
	fail "the API's MemoryHigh curve" "the server did not start: $(cat "$T/srv.err")"
fi

BROWSER_DIR=$ROOT/tests/browser
if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null; then
	skip "the MemoryHigh curve in headless chromium" "needs /usr/bin/chromium and node"
	finish
fi
if [ ! -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	(cd "$BROWSER_DIR" && npm install --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip "the MemoryHigh curve in headless chromium" "cannot npm install playwright-core: $(tail -2 "$T/npm.log")"; finish; }
fi
ART=$TM_BUILD/test-artifacts/bench
mkdir -p "$ART"
node "$BROWSER_DIR/sweep.mjs" "$T/s.html" "$O/sweep.txt" "$O/advise.txt" "$ART/sweep-high.png" 2>&1
finish
