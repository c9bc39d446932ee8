#!/bin/sh
# The panel's charts and pages at 800 and 1400 px, on a real `tidemark
# serve` reading a store with a sweep (two arms), a recording with marks
# close together and late samples, and a 0.4 s bench with an OOM-killed arm
# made after the recording:
#   - labels (events, marks, kills) never cover a plotted point nor each
#     other, everything drawn is in the chart's key or legend, and no page
#     overflows sideways (tests/browser/layout.mjs: the home, run, killed
#     run, bench and sweep pages, and the run's `report --html` file);
#   - the home page shows the recording, not the newer bench run, and lists
#     benches and sweeps; the sweep has its page with every arm on one curve
#     (tests/browser/pages.mjs).
# Screenshots: build/test-artifacts/panel/ (docs/img/panel-*.png are copies).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT
P=$TM_BUILD/progs/bench_alloc
BROWSER_DIR=$TM_ROOT/tests/browser
ART=$TM_BUILD/test-artifacts/panel
if [ ! -x "$P" ]; then
	skip "panel pages" "build/progs/bench_alloc is not built (make test-build builds it)"
	finish
fi
if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null; then
	skip "panel pages in headless chromium" "needs /usr/bin/chromium and node"
	finish
fi
if [ ! -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	(cd "$BROWSER_DIR" && npm install --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip "panel pages in headless chromium" "cannot npm install playwright-core: $(tail -2 "$T/npm.log")"; finish; }
fi

DB=$T/s.db
"$TM" bench -o "$DB" --arm glibc --arm arena1 --runs 1 -i 50ms --sweep MemoryMax=16M..64M --resolution 16M \
	-- "$P" --mib 32 --steps 4 --step-ms 20 >"$T/sweep.txt" 2>"$T/sweep.err" ||
	{ fail "a sweep of two arms" "$(tail -5 "$T/sweep.err")"; finish; }
# marks a few samples apart ("load-1 flush end load-2" overlapped), and two
# late samples (the recorder missed its interval: counted, not drawn)
"$TM" record -q --db "$DB" -i 100ms -- sh -c 'x=$(head -c 3000000 /dev/zero | tr "\0" a)
	echo load-1 >"$TIDEMARK_MARK"; sleep 1; echo flush >"$TIDEMARK_MARK"; sleep 0.1
	echo "flush end" >"$TIDEMARK_MARK"; sleep 0.1; echo load-2 >"$TIDEMARK_MARK"; sleep 1' >"$T/rec.out" 2>&1 ||
	fail "a recording with marks" "$(tail -3 "$T/rec.out")"
rec=$(sql "$DB" "select max(id) from runs")
sql "$DB" "insert into events(run_id, t_wall_usec, t_mono_usec, kind, pid, value, detail)
	select run_id, t_wall_usec + 300000, t_mono_usec + 300000, 'late', 0, 250000, 'sample 3 late' from events where run_id = $rec and kind = 'start';
	insert into events(run_id, t_wall_usec, t_mono_usec, kind, pid, value, detail)
	select run_id, t_wall_usec + 1500000, t_mono_usec + 1500000, 'late', 0, 250000, 'sample 15 late' from events where run_id = $rec and kind = 'start'"
"$TM" bench -o "$DB" --name "quick" --runs 1 -i 100ms --arm roomy:MemoryMax=256M --arm tight:MemoryMax=24M \
	-- "$P" --mib 32 --steps 2 --step-ms 30 >"$T/bench.out" 2>&1
bench=$(sql "$DB" "select max(id) from benches")
killed=$(sql "$DB" "select min(id) from runs where bench_id = $bench and outcome = 'oom-killed'")
test_expect "a 0.4 s bench with an OOM-killed arm (bench $bench, run $killed)" '
	[ -n "$killed" ] || test_why "$(tail -5 "$T/bench.out")"'
"$TM" report --db "$DB" --html "$T/run.html" "$rec" >"$T/html.out" 2>&1 || fail "report --html of the recording" "$(tail -3 "$T/html.out")"

start_server "$DB" --public-read || { fail "server starts" "$(cat "$T/srv.err")"; finish; }
first=$(sed -n 's/^the runs are in benches \([0-9]*\)-.*/\1/p' "$T/sweep.txt")
mkdir -p "$ART"
node "$BROWSER_DIR/layout.mjs" "$ART" "home=$URL/#/" "run=$URL/#/run/$rec" "killed=$URL/#/run/$killed" \
	"bench=$URL/#/bench/$bench" "sweep=$URL/#/sweep/$first" "report=file://$T/run.html" 2>&1
node "$BROWSER_DIR/pages.mjs" "$URL" "$rec" "$bench" "$T/sweep.txt" 2>&1
finish
