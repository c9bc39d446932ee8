#!/bin/sh
# --runtime go: a real Go program (tests/progs/go/hold.go, 32 MiB live)
# recorded with GODEBUG=gctrace=1 set by the recorder; the stored live heap
# after the last GC matches the program's own runtime.ReadMemStats (Go
# prints whole MiB: HeapAlloc within [live, live + 1 MiB)), the GC count
# equals NumGC, the program's stdout and its gctrace lines on stderr still
# arrive; a GODEBUG the user set is kept.  Without --runtime the series are
# absent, not 0.
. "$(dirname "$0")/../lib.sh"

if ! command -v go >/dev/null; then
	skip runtime_go "no go (scripts/deps.sh --test installs golang-go)"
	finish
fi
if ! GOCACHE=$T/gocache GOPATH=$T/gopath go build -o "$T/hold" "$TM_ROOT/tests/progs/go/hold.go" \
	>"$T/build.log" 2>&1; then
	fail runtime_go_builds "$(tail -5 "$T/build.log")"
	finish
fi

GODEBUG=madvdontneed=1 "$TM" record -o "$T/go.db" -i 100ms --no-cgroup --runtime go -- "$T/hold" 32 \
	>"$T/out" 2>"$T/err"
test_expect "the Go program's stdout still arrives" 'grep -q '\''^heap_alloc [0-9]* num_gc [0-9]*$'\'' "$T/out" || test_why "$(cat "$T/out" | head -3)"'
test_expect "its gctrace lines still reach stderr" 'grep -q '\''^gc [0-9]* @.* MB goal'\'' "$T/err" || test_why "$(head -3 "$T/err")"'
"$TM" report -o "$T/go.db" --series >"$T/go.csv"
check "live heap after the last GC matches runtime.ReadMemStats" python3 - "$T/out" "$T/go.csv" <<'EOP'
import csv, sys
w = open(sys.argv[1]).read().split()
heap, num_gc = int(w[1]), int(w[3])
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r.get('gc_heap_live_bytes')]
assert rows, 'no sample has gc_heap_live_bytes'
live, cycles = int(rows[-1]['gc_heap_live_bytes']), int(rows[-1]['gc_cycles'])
assert live <= heap < live + (1 << 20), (live, heap)
assert cycles == num_gc, (cycles, num_gc)
assert 32 << 20 <= live, live
EOP
check "the user's GODEBUG is kept beside gctrace=1" sh -c \
	"'$TM' report -o '$T/go.db' --json | grep -q 'madvdontneed=1,gctrace=1'"
"$TM" report -o "$T/go.db" >"$T/go.txt"
test_expect "report shows the GC heap" 'grep -q '\''^  gc heap     live after the last GC 3[23]\.0 MiB, peak 3[23]\.0 MiB; [0-9]* GCs'\'' "$T/go.txt" || test_why "$(grep -A1 '\''gc heap\|anon'\'' "$T/go.txt")"'

"$TM" record -q -o "$T/plain.db" -i 100ms --no-cgroup -- "$T/hold" 8 >/dev/null 2>&1
"$TM" report -o "$T/plain.db" --series >"$T/plain.csv"
check "without --runtime the GC series are absent" python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$T/plain.csv')))
assert rows and all(not r.get('gc_heap_live_bytes') for r in rows), rows[:1]"
check "without --runtime the JSON figure is null" sh -c \
	"'$TM' report -o '$T/plain.db' --json | python3 -c 'import json,sys; f=json.load(sys.stdin)[\"figures\"]; assert f[\"gc_heap_live_end_bytes\"] is None, f'"
finish
