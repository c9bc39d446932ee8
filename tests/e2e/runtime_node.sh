#!/bin/sh
# --runtime node on a real node (Debian's nodejs) running
# tests/progs/node/hold.js (MIB MiB of arrays of doubles live across a
# forced full GC, then its own v8.getHeapStatistics()): the recorder adds
# --trace-gc after `node`, reads V8's lines from stdout and passes them on;
# the stored live heap after the last full GC matches the program's own
# used_heap_size (--trace-gc: 0.1 MiB, rounded; --trace-gc-nvp: bytes), the
# GC count the lines on stdout; the report has the gc heap line with V8's
# note and the split of anon; a bench compares two arms by gc live after.
# Without --runtime nothing is read (absent, not 0).
. "$(dirname "$0")/../lib.sh"

if ! command -v node >/dev/null; then
	skip runtime_node "no node (scripts/deps.sh --test installs Debian's nodejs)"
	finish
fi
HOLD="$TM_ROOT/tests/progs/node/hold.js"
MIB=1048576

# the program's own figure, then the stored one and the GC count
own() { sed -n 's/^used_heap_size \([0-9]*\) held [0-9]*$/\1/p' "$1"; }
stored() {
	"$TM" report -o "$1" --json | jq -r '.figures | "\(.gc_heap_live_end_bytes) \(.gc_cycles)"'
}
gc_lines() { grep -Ec '^\[[0-9]+:0x[0-9a-f]+\] +[0-9.]+ ms: (Scavenge|Mark-|Minor |pause=)' "$1"; }

# the work ends at its own figure's line, with node alive and holding for
# --settle: the end's split is measured then (an end that is only the
# program's exit has none: issue 19)
"$TM" record -o "$T/n.db" -i 100ms --no-cgroup --runtime node \
	--progress 'held ([0-9]+)' --until-progress 1 --settle 200ms -- node --expose-gc "$HOLD" 24 \
	>"$T/out" 2>"$T/err"
used=$(own "$T/out")
st=$(stored "$T/n.db")
live=${st% *} cycles=${st#* }
lines=$(gc_lines "$T/out")
test_expect "live after the last full GC matches the program's used_heap_size" '
	[ -n "$used" ] && [ -n "$live" ] && [ "$live" != null ] &&
	[ $((live - MIB / 20)) -le "$used" ] && [ "$used" -lt $((live + MIB)) ] &&
	[ $((live)) -ge $((24 * MIB)) ] || test_why "stored '\''$live'\'', used_heap_size '\''$used'\''; $(tail -3 "$T/err")"'
test_expect "the GC count is the GC lines on stdout" '[ "$cycles" = "$lines" ] && [ "$lines" -gt 0 ] || test_why "stored '\''$cycles'\'', lines on stdout '\''$lines'\''"'
check "the command line launched has --trace-gc after node" sh -c \
	"'$TM' report -o '$T/n.db' --json | jq -e '.run.command | .[0] == \"node\" and .[1] == \"--trace-gc\" and .[2] == \"--expose-gc\"' >/dev/null"
"$TM" report -o "$T/n.db" >"$T/rep"
gc_note='\(the runtime.s own GC lines; V8.s heap after its last full GC, in 0\.1 MiB unless --trace-gc-nvp\)$'
test_expect "report: the gc heap line with V8's note" 'grep -Eq "^  gc heap     live after the last GC 2[5-9]\.[0-9] MiB, peak [0-9.]+ MiB; [0-9]+ GCs $gc_note" "$T/rep" || test_why "$(grep -A1 '\''gc heap'\'' "$T/rep")"'
check "report: anon after split into the live JS heap and other anon, adding up" python3 - "$T/rep" <<'EOP'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r'^  anon after  ([0-9.]+) MiB: live JS heap after the last full GC ([0-9.]+) MiB, other anon ([0-9.]+) MiB$', t, re.M)
assert m, t
a, j, o = map(float, m.groups())
assert abs(a - j - o) <= 0.11 and j >= 24, (a, j, o)
EOP

# the panel (report --html renders the panel's run page offline): the
# summary's row of the GC runtime, with the JSON's figure
BROWSER_DIR=$TM_ROOT/tests/browser
if [ -x /usr/bin/chromium ] && [ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	"$TM" report -o "$T/n.db" --html "$T/n.html"
	node "$BROWSER_DIR/report.mjs" "$T/n.html" "$T/art" memory "gc live after the last GC" >"$T/panel.tap" 2>&1
	want=$(awk -v b="$live" -v c="$cycles" 'BEGIN { printf "%.1f MiB (%d GCs)", b / 1048576, c }')
	test_expect "the panel's run page shows the live heap after GC and the GCs" 'grep -qF "ok - HTML report'\''s summary: gc live after the last GC = $want" "$T/panel.tap" || test_why "want '\''$want'\'': $(cat "$T/panel.tap")"'
else
	skip "the panel's run page shows the live heap after GC" \
		"needs /usr/bin/chromium and tests/browser's playwright-core (e2e/serve_browser installs it)"
fi

# --trace-gc-nvp of the user's own: kept as it is, bytes
"$TM" record -o "$T/v.db" -i 100ms --no-cgroup --runtime node -- node --trace-gc-nvp --expose-gc "$HOLD" 24 \
	>"$T/out" 2>"$T/err"
used=$(own "$T/out")
st=$(stored "$T/v.db")
live=${st% *} cycles=${st#* }
test_expect "--trace-gc-nvp: live in bytes within the program's used_heap_size, the GCs its lines" '
	[ -n "$used" ] && [ -n "$live" ] && [ "$live" != null ] && [ "$live" -le "$used" ] && [ "$used" -lt $((live + MIB)) ] &&
	[ "$cycles" = "$(gc_lines "$T/out")" ] || test_why "stored '\''$st'\'', used_heap_size '\''$used'\'', lines $(gc_lines "$T/out")"'
check "--trace-gc-nvp: the command line is the user's" sh -c \
	"'$TM' report -o '$T/v.db' --json | jq -e '.run.command | index(\"--trace-gc\") == null' >/dev/null"

# without --runtime: not read, even with --trace-gc on the command line
"$TM" record -q -o "$T/p.db" -i 100ms --no-cgroup -- node --trace-gc --expose-gc "$HOLD" 8 >/dev/null 2>&1
check "without --runtime the GC figures are null" sh -c \
	"'$TM' report -o '$T/p.db' --json | jq -e '.figures.gc_heap_live_end_bytes == null and .figures.gc_cycles == null' >/dev/null"

# the bench table's gc live after row, across two arms
"$TM" bench -o "$T/b.db" --arm n16:MIB=16 --arm n48:MIB=48 --runs 3 -i 100ms --runtime node -- \
	node --expose-gc "$HOLD" >"$T/bench.txt" 2>"$T/bench.err"
"$TM" bench -o "$T/b.db" --table 1 --json >"$T/table.json"
check "bench: gc live after holds each node arm's live JS heap" python3 - "$T/table.json" <<'EOP'
import json, sys
t = json.load(open(sys.argv[1]))
MIB = 1 << 20
arms = {a['name']: a for a in t['arms']}
bad = []
for name, mib in (('n16', 16), ('n48', 48)):
    f = arms[name]['figures']['gc_heap_live_end_bytes']
    if f['n'] != 3 or not mib * MIB <= f['median'] <= (mib + 5) * MIB:
        bad.append('%s gc live after %s, want [%d, %d] MiB' % (name, f, mib, mib + 5))
if bad:
    print('\n'.join(bad)); sys.exit(1)
EOP
check "bench: the text table has the gc live after row" grep -Eq '^gc live after MiB +(1[6-9]|2[01])\.' "$T/bench.txt"
finish
