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
	finish
fi
if [ ! -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	(cd "$BROWSER_DIR" && npm install --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip "panel in headless chromium" "cannot npm install playwright-core: $(tail -2 "$T/npm.log")"; finish; }
fi

S=$T/s.db
"$TM" serve token add pi-home --db "$S" >"$T/a.tok" && "$TM" serve token add vps-1 --db "$S" >"$T/b.tok" &&
	"$TM" serve token add --read viewer --db "$S" >"$T/read.tok"
chmod 600 "$T"/*.tok
start_server "$S" || { fail "server starts" "$(cat "$T/srv.err")"; exit 1; }

# two collectors at once: two real recordings of two workloads, pushing as
# they record; one writes a mark that tries to run script in the panel
cat >"$T/work.sh" <<'EOW'
x=
i=0
while [ $i -lt "$1" ]; do
	x="$x$(head -c "$2" /dev/zero | tr '\0' a)"
	i=$((i + 1))
	echo "height=$i"
	[ $i = 5 ] && echo '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>' >"$TIDEMARK_MARK"
	sleep 0.05
done
EOW
"$TM" record -q --db "$T/a.db" -i 100ms --progress 'height=([0-9]+)' --push "$URL" --token-file "$T/a.tok" \
	--heap -- sh "$T/work.sh" 40 300000 >"$T/a.out" 2>&1 &
A=$!
"$TM" record -q --db "$T/b.db" -i 100ms --progress 'height=([0-9]+)' --push "$URL" --token-file "$T/b.tok" \
	--heap -- sh "$T/work.sh" 30 150000 >"$T/b.out" 2>&1 &
B=$!
wait $A
a_rc=$?
wait $B
b_rc=$?
test_expect "two collectors recorded and pushed" '[ $a_rc = 0 ] && [ $b_rc = 0 ] || test_why "exit $a_rc, $b_rc: $(tail -3 "$T/a.out" "$T/b.out")"'
for m in a b; do
	l=$(sqlite3 "$T/$m.db" "select count(*) from samples")
	n=$(sqlite3 "$S" "select count(*) from samples where run_id = (select id from runs where uuid = '$(sqlite3 "$T/$m.db" "select uuid from runs")')")
	test_expect "collector $m: all $n samples on the server" '[ "$l" = "$n" ] && [ "$n" -gt 5 ] || test_why "local $l, server $n"'
done

mkdir -p "$ART"
node "$BROWSER_DIR/panel.mjs" "$URL/#token=$(cat "$T/read.tok")" "$ART" pi-home vps-1 >"$T/panel.tap" 2>&1
cat "$T/panel.tap"
grep -qE '^(not )?ok' "$T/panel.tap" || fail "panel test ran" "$(tail -5 "$T/panel.tap")"
test_expect "screenshot kept: build/test-artifacts/serve/panel.png" '[ -s "$ART/panel.png" ]'

# the panel's modules are served as JavaScript (a browser refuses a module
# of any other type), without a read token like the rest of the panel
mods=0
for m in $(cd "$TM_ROOT/web" && ls js/*.js) js/allocators.js; do # and the generated one
	ct=$(curl -s -o /dev/null -w '%{http_code} %{content_type}' "$URL/$m")
	case $ct in
	"200 text/javascript"*) ;;
	*) fail "panel module /$m served as JavaScript" "$ct"; continue ;;
	esac
	mods=$((mods + 1))
done
test_expect "the panel's $mods modules are served as text/javascript" '[ "$mods" -ge 5 ] || test_why "$mods modules"'

# a live recording: its page follows it without a reload and stops when left
# (live.mjs needs the run live for about 25 s)
"$TM" record -q --db "$T/c.db" -i 100ms --push "$URL" --token-file "$T/a.tok" -- sleep 30 >"$T/c.out" 2>&1 &
C=$!
sleep 1.5
node "$BROWSER_DIR/live.mjs" "$URL/#token=$(cat "$T/read.tok")&/machine/pi-home" 2>&1
wait $C

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

# more than a page of runs, the newest one's recorder killed: the runs
# table pages, and the dead recorder's run shows as stale
i=0
while [ $i -lt 60 ]; do
	"$FEED" "$S" vps-1 2 0 >/dev/null || break
	i=$((i + 1))
done
"$TM" record -q --db "$S" -i 100ms -- sleep 30 >"$T/d.out" 2>&1 &
D=$!
n=0
while [ "$(sqlite3 "$S" "select count(*) from samples where run_id = (select max(id) from runs)")" -lt 3 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -9 $D
wait $D 2>/dev/null
last=$(sqlite3 "$S" "select max(id) from runs")
kill "$(sqlite3 "$S" "select pid from events where kind = 'start' and run_id = $last")" 2>/dev/null
sqlite3 "$S" "update runs set started_wall_usec = started_wall_usec - 600000000 where id = $last;
	update samples set t_wall_usec = t_wall_usec - 600000000 where run_id = $last"
node "$BROWSER_DIR/runs.mjs" "$URL/#token=$(cat "$T/read.tok")" 2>&1
finish
