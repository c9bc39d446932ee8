#!/bin/sh
# The HTML bench report of a sweep's bench: its survival curve (the rows
# `bench --sweep` printed, plotted per arm) and the advice (the recommended
# MemoryMax `advise` printed, with its rule), in headless chromium; a bench
# without a sweep has no curve section.  Screenshot:
# build/test-artifacts/bench/sweep.png.
. "$(dirname "$0")/../lib.sh"
P=$TM_BUILD/progs/bench_alloc
BROWSER_DIR=$TM_ROOT/tests/browser
ART=$TM_BUILD/test-artifacts/bench
if [ ! -x "$P" ]; then
	skip "sweep in the HTML report" "build/progs/bench_alloc is not built (make check builds it)"
	finish
fi
W="$P --mib 48 --steps 8 --step-ms 20"
"$TM" bench -o "$T/s.db" --arm glibc --runs 2 -i 50ms --sweep MemoryMax=16M..128M --resolution 16M \
	-- $W >"$T/sweep.txt" 2>"$T/sweep.err"
rc=$?
list=$(sed -n 's/^the runs are in benches \([0-9,-]*\):.*/\1/p' "$T/sweep.txt")
"$TM" advise -o "$T/s.db" --bench "$list" >"$T/advise.txt" 2>"$T/advise.err"
first=${list%%[-,]*}
[ $rc -eq 0 ] && [ -n "$first" ] && "$TM" report --db "$T/s.db" --bench "$first" --html "$T/s.html" >"$T/html.out" 2>&1
html_rc=$?
test_expect "report --bench $first --html of a sweep's bench" '[ $html_rc = 0 ] || test_why "exit $rc: $(tail -5 "$T/sweep.err" "$T/html.out")"'
[ $html_rc = 0 ] || finish
# no sweep: one limit only; every run killed, so advise refuses
"$TM" bench -o "$T/k.db" --arm glibc --runs 1 -i 50ms --memory-max 16M -- $W >"$T/k.txt" 2>&1
"$TM" advise -o "$T/k.db" --bench 1 >"$T/nadvise.txt" 2>&1
"$TM" bench -o "$T/n.db" --arm glibc --runs 1 -i 50ms --memory-max 128M -- $W >"$T/n.txt" 2>&1 &&
	"$TM" report --db "$T/n.db" --bench 1 --html "$T/n.html" >>"$T/n.txt" 2>&1 &&
	"$TM" report --db "$T/k.db" --bench 1 --html "$T/k.html" >>"$T/n.txt" 2>&1 ||
	fail "a bench without a sweep" "$(tail -5 "$T/n.txt")"
test_expect "a bench without a sweep embeds no curve" '
	! grep -q '\''"/api/v1/bench/1/sweep"'\'' "$T/n.html" "$T/k.html" || test_why "a sweep document is in a report without a sweep"'

# the server's API serves the same curve (and none for a bench without a sweep)
. "$(dirname "$0")/serve.d/lib.sh"
if start_server "$T/s.db" --public-read; then
	got=$(http GET "/api/v1/bench/$first/sweep")
	r=$(python3 "$(dirname "$0")/sweep_api.py" "$T/body" "$T/sweep.txt" 2>&1)
	test_expect "the API's /api/v1/bench/$first/sweep has the curve bench --sweep printed" '[ "$got" = 200 ] && [ "$r" = same ] || test_why "HTTP $got: $r"'
	stop_server
else
	fail "the API's sweep curve" "the server did not start: $(cat "$T/srv.err")"
fi
if start_server "$T/n.db" --public-read; then
	got=$(http GET "/api/v1/bench/1/sweep")
	test_expect "the API serves no curve for a bench without a sweep" '[ "$got" = 200 ] && [ "$(python3 -c '\''import json,sys; d=json.load(open(sys.argv[1])); print(d["limit"], d["arms"])'\'' "$T/body" 2>&1)" = "None []" ] || test_why "HTTP $got: $(head -c 300 "$T/body")"'
	stop_server
else
	fail "the API's sweep curve without a sweep" "the server did not start: $(cat "$T/srv.err")"
fi

if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null; then
	skip "sweep and advice in headless chromium" "needs /usr/bin/chromium and node"
	finish
fi
if [ ! -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	(cd "$BROWSER_DIR" && npm install --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip "sweep and advice in headless chromium" "cannot npm install playwright-core: $(tail -2 "$T/npm.log")"; finish; }
fi
mkdir -p "$ART"
node "$BROWSER_DIR/sweep.mjs" "$T/s.html" "$T/sweep.txt" "$T/advise.txt" "$ART/sweep.png" 2>&1
node "$BROWSER_DIR/sweep.mjs" --no-sweep "$T/n.html" 2>&1
node "$BROWSER_DIR/sweep.mjs" --no-sweep "$T/k.html" "$T/nadvise.txt" 2>&1 | sed 's/^ok - /ok - all killed: /'
finish
