#!/bin/sh
# The bench table's GC-runtime row on real Go programs: two arms of one
# program that keeps MIB MiB live (16 and 48) under --runtime go.  The
# "gc live after" row holds each arm's live heap after its last GC (Go
# prints whole MiB, truncated: [MIB, MIB + 1)), the ratio is 3 within 5 %
# with the table's Mann–Whitney verdict (4 runs against 4), and the JVM
# rows are absent (no JVM in these runs).
. "$(dirname "$0")/../lib.sh"

if ! command -v go >/dev/null; then
	skip bench_go "no go (scripts/deps.sh --test installs golang-go)"
	finish
fi
if ! GOCACHE=$T/gocache GOPATH=$T/gopath go build -o "$T/hold" "$TM_ROOT/tests/progs/go/hold.go" \
	>"$T/build.log" 2>&1; then
	fail bench_go_builds "$(tail -5 "$T/build.log")"
	finish
fi
DB="$T/b.db"
"$TM" bench -o "$DB" --arm g16:MIB=16 --arm g48:MIB=48 --runs 4 -i 100ms --runtime go -- \
	sh -c "exec '$T/hold' \$MIB" >"$T/bench.txt" 2>"$T/bench.err"
check "a bench of two Go arms runs" grep -q 'survived  *4/4  *4/4' "$T/bench.txt"
"$TM" bench -o "$DB" --table 1 --json >"$T/table.json"
check "gc live after compares the Go arms: each arm's live heap, ratio 3, significant" \
	python3 - "$T/table.json" <<'EOP'
import json, sys
t = json.load(open(sys.argv[1]))
MIB = 1 << 20
arms = {a['name']: a for a in t['arms']}
bad = []
for name, mib in (('g16', 16), ('g48', 48)):
    f = arms[name]['figures']['gc_heap_live_end_bytes']
    if f['n'] != 4 or not mib * MIB <= f['median'] <= (mib + 1) * MIB:
        bad.append('%s gc live after %s, want [%d, %d] MiB' % (name, f, mib, mib + 1))
    for k in ('jvm_old_after_gc_end_bytes', 'jvm_heap_used_end_bytes'):
        if arms[name]['figures'][k]['n'] != 0:
            bad.append('no JVM, yet %s: %s' % (k, arms[name]['figures'][k]))
r = arms['g48']['figures']['gc_heap_live_end_bytes']
if r['ratio'] is None or abs(r['ratio'] - 3) > 0.15 or r['verdict'] != 'significant':
    bad.append('g48 against g16: %s' % r)
if bad:
    print('\n'.join(bad)); sys.exit(1)
EOP
test_expect "the text table shows gc live after across the Go arms, no JVM rows" '
	grep -Eq "^gc live after MiB +1[67] .* 4[89] .*×(2\.9|3\.0)[0-9] p=0\.029" "$T/bench.txt" &&
	! grep -q "^old after GC" "$T/bench.txt" ||
	test_why "$(cat "$T/bench.txt")"'
finish
