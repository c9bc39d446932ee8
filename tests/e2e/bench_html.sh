#!/bin/sh
# One bench table everywhere: the terminal's table (`report --bench N`), the
# table's JSON `text` (what the API serves), the HTML bench report opened
# offline in chromium and the panel's bench page show the same rows, cells,
# header lines, legend and notes.  The bench has a killed arm (so the kill
# rows, "(N oom-killed)" and the reference note appear) and runs under the
# heap shim.  Screenshots: build/test-artifacts/bench/.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT
P=$TM_BUILD/progs/bench_alloc
BROWSER_DIR=$TM_ROOT/tests/browser
ART=$TM_BUILD/test-artifacts/bench
if [ ! -x "$P" ] || ! command -v python3 >/dev/null 2>&1; then
	skip "one bench table everywhere" "needs build/progs/bench_alloc (make check builds it) and python3"
	finish
fi

DB=$T/b.db
"$TM" bench -o "$DB" --name "three arms" --runs 3 -i 100ms --heap --settle 300ms \
	--arm tight:MemoryMax=48M --arm roomy:MemoryMax=256M --arm arena1:MemoryMax=256M \
	-- "$P" --mib 80 --steps 4 --step-ms 60 --hold-ms 200 >"$T/bench.out" 2>&1
rc=$?
"$TM" report --db "$DB" --bench 1 >"$T/term.txt" 2>"$T/term.err"
test_expect "bench with a killed control arm" '
	[ $rc -eq 0 ] && grep -qE "^survived +0/3 \(3 oom-killed\)" "$T/term.txt" ||
	test_why "exit $rc: $(tail -30 "$T/bench.out" "$T/term.txt" "$T/term.err")"'

# The JSON's text and notes put back together are the terminal's table (whitespace aside).
"$TM" bench -o "$DB" --table 1 --json >"$T/table.json"
r=$(python3 - "$T/table.json" "$T/term.txt" <<'EOF'
import json, re, sys
j = json.load(open(sys.argv[1]))
t = j["text"]
norm = lambda s: re.sub(r"\s+", " ", s).strip()
term = [norm(l) for l in open(sys.argv[2], encoding="utf-8") if l.strip()]
# a figure not known is n/a in the terminal, — in the JSON's cells for HTML (docs/output.md)
cell = lambda c: "n/a" if c == "—" else c
mine = [norm(l) for l in t["header"]] + [norm(" ".join([r["label"]] + [cell(c) for c in r["cells"]])) for r in t["rows"]] \
	+ [norm(n["text"]) for n in j["notes"]]
print("same" if mine == term else "differs:\n" + "\n".join(
	("  " if a == b else "≠ ") + a + ("" if a == b else " | " + b) for a, b in zip(term + [""] * 9, mine + [""] * 9)))
EOF
)
test_expect "the table's JSON text is the terminal's table" '[ "$r" = same ] || test_why "$r"'

if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null; then
	skip "bench table in headless chromium" "needs /usr/bin/chromium and node"
	finish
fi
if [ ! -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	(cd "$BROWSER_DIR" && npm install --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip "bench table in headless chromium" "cannot npm install playwright-core: $(tail -2 "$T/npm.log")"; finish; }
fi
mkdir -p "$ART"

# the HTML bench report, opened from disk with the network off
if "$TM" report --db "$DB" --bench 1 --html "$T/bench.html" >"$T/html.out" 2>&1; then
	node "$BROWSER_DIR/bench.mjs" report "$T/bench.html" "$T/term.txt" "$ART" 2>&1
else
	fail "report --bench --html" "$(tail -3 "$T/html.out")"
fi

# arm colours follow the name: a second bench with two of the same arms, in
# another order, beside a new one
if "$TM" bench -o "$DB" --runs 1 -i 100ms --arm arena1:MemoryMax=256M --arm other:MemoryMax=256M \
	--arm roomy:MemoryMax=256M -- "$P" --mib 8 --steps 2 --step-ms 30 >"$T/bench2.out" 2>&1 &&
	"$TM" report --db "$DB" --bench 2 --html "$T/bench2.html" >>"$T/bench2.out" 2>&1; then
	node "$BROWSER_DIR/colors.mjs" "$T/bench.html" "$T/bench2.html" 2>&1
else
	fail "a second bench for the colours" "$(tail -5 "$T/bench2.out")"
fi

# a killed run's page in the bench report: binary ticks, axis titles, the
# all-zero charts said, the OOM kill labelled as such, its last sample not a
# drop to 0; a finished one's too
oom=$(sql "$DB" "select min(id) from runs where bench_id = 1 and outcome = 'oom-killed'")
done_run=$(sql "$DB" "select max(id) from runs where bench_id = 1 and outcome = 'completed'")
node "$BROWSER_DIR/charts.mjs" "$T/bench.html#/run/$oom" "$ART/run-oom.png" oom exited 2>&1 | sed 's/^ok - /ok - killed run: /'
node "$BROWSER_DIR/charts.mjs" "$T/bench.html#/run/$done_run" "$ART/run-completed.png" exited 2>&1 | sed 's/^ok - /ok - completed run: /'

# a run with many marks: all listed, labelled where they fit, none covering another
"$TM" record -q --db "$T/m.db" -i 50ms -- sh -c 'i=1; while [ $i -le 40 ]; do
	echo "phase $i of the work" >"$TIDEMARK_MARK"; i=$((i + 1)); sleep 0.05; done' >"$T/m.out" 2>&1
if "$TM" report --db "$T/m.db" --html "$T/marks.html" >"$T/mh.out" 2>&1; then
	node "$BROWSER_DIR/charts.mjs" "$T/marks.html" "$ART/run-marks.png" marks=40 zero 2>&1 | sed 's/^ok - /ok - 40 marks: /'
else
	fail "report --html of a run with marks" "$(tail -3 "$T/m.out" "$T/mh.out")"
fi

# the panel's bench page, from a server reading the same store
start_server "$DB" --public-read || { fail "server starts" "$(cat "$T/srv.err")"; finish; }
node "$BROWSER_DIR/bench.mjs" panel "$URL/#/bench/1" "$T/term.txt" "$ART" 2>&1
finish
