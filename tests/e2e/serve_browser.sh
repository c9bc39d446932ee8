#!/bin/sh
# Two collectors push to a server on 127.0.0.1; the panel, opened in Debian's
# headless chromium (driven by playwright-core), shows both machines' charts
# with data points.  Screenshots: build/test-artifacts/serve/.  The HTML
# report of a run is opened the same way and must draw its charts offline.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT

BROWSER_DIR=$TM_ROOT/tests/browser
ART=$TM_BUILD/test-artifacts/serve
if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null; then
	skip "panel in headless chromium" "needs /usr/bin/chromium and node"
	exit 0
fi
if [ ! -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	(cd "$BROWSER_DIR" && npm install --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip "panel in headless chromium" "cannot npm install playwright-core: $(tail -2 "$T/npm.log")"; exit 0; }
fi

S=$T/s.db
"$TM" serve token add pi-home --db "$S" >"$T/a.tok" && "$TM" serve token add vps-1 --db "$S" >"$T/b.tok" &&
	"$TM" serve token add --read viewer --db "$S" >"$T/read.tok"
chmod 600 "$T"/*.tok
start_server "$S" || { fail "server starts" "$(cat "$T/srv.err")"; exit 0; }

# two collectors at once, each recording and pushing as it goes
"$FEED" "$T/a.db" pi-home 150 20 "$URL" "$T/a.tok" >/dev/null 2>"$T/a.err" &
A=$!
"$FEED" "$T/b.db" vps-1 120 20 "$URL" "$T/b.tok" >/dev/null 2>"$T/b.err" &
B=$!
wait $A && wait $B && ok "two collectors pushed" || fail "two collectors pushed" "$(cat "$T/a.err" "$T/b.err")"

# hostile text from a collector: a mark that tries to run script
sqlite3 "$S" "insert into marks(run_id, t_wall_usec, t_mono_usec, text) select id, started_wall_usec + 2000000, 3000000, '<img src=x onerror=\"window.__pwned=1\"><script>window.__pwned=1</script>' from runs"

mkdir -p "$ART"
node "$BROWSER_DIR/panel.mjs" "$URL/#token=$(cat "$T/read.tok")" "$ART" pi-home vps-1 >"$T/panel.tap" 2>&1
cat "$T/panel.tap"
grep -qE '^(not )?ok' "$T/panel.tap" || fail "panel test ran" "$(tail -5 "$T/panel.tap")"
[ -s "$ART/panel.png" ] && ok "screenshot kept: build/test-artifacts/serve/panel.png" || fail "screenshot kept"

# the self-contained HTML report of one run, opened from a file
run=$(sqlite3 "$S" "select min(id) from runs")
if "$TM" report --help 2>&1 | grep -q -- "--html"; then
	if "$TM" report --db "$S" --html "$T/report.html" "$run" >"$T/report.out" 2>&1; then
		node "$BROWSER_DIR/report.mjs" "$T/report.html" "$ART" 2>&1
	else
		fail "report --html" "$(tail -3 "$T/report.out")"
	fi
else
	skip "report --html in chromium" "this build's report has no --html"
fi
exit 0
