#!/bin/sh
# The bench table's runtime rows on real JVMs: two arms of one Java program
# that retains RETAIN_MIB MiB (32 and 64) and runs a full GC.  The table's
# "old after GC" row holds each arm's retained size (+ < 1.5 MiB of other
# old objects), its ratio is 2 within 3 % with the table's Mann–Whitney
# verdict (4 runs against 4), the Java heap used and committed rows are
# there, the Go/GHC row is not (no such run), and the figure is the old gen
# the runs' own series show after the GC.  report --phases of a JVM run
# carries the old gen after GC too.
. "$(dirname "$0")/../lib.sh"

if ! command -v javac >/dev/null; then
	skip bench_jvm "no javac (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
javac -d "$T" "$TM_ROOT/tests/progs/java/RetainEnv.java" || { fail bench_jvm_java_builds "javac failed"; finish; }

DB="$T/b.db"
"$TM" bench -o "$DB" --arm r32:RETAIN_MIB=32 --arm r64:RETAIN_MIB=64 --runs 4 -i 100ms -- \
	java -XX:+UseSerialGC -Xmx256m -cp "$T" RetainEnv 1200 >"$T/bench.txt" 2>"$T/bench.err"
check "a bench of two JVM arms runs" grep -q 'survived  *4/4  *4/4' "$T/bench.txt"

"$TM" bench -o "$DB" --table 1 --json >"$T/table.json"
check "old after GC compares the JVM arms: each arm's retained size, ratio 2, significant" \
	python3 - "$T/table.json" <<'EOP'
import json, sys
t = json.load(open(sys.argv[1]))
MIB = 1 << 20
arms = {a['name']: a for a in t['arms']}
bad = []
for name, mib in (('r32', 32), ('r64', 64)):
    f = arms[name]['figures']['jvm_old_after_gc_end_bytes']
    if f['n'] != 4 or not mib * MIB <= f['median'] <= (mib + 1.5) * MIB:
        bad.append('%s old after GC %s, want %d MiB + < 1.5' % (name, f, mib))
    for k in ('jvm_heap_used_end_bytes', 'jvm_heap_committed_end_bytes'):
        if arms[name]['figures'][k]['n'] != 4:
            bad.append('%s %s: %s' % (name, k, arms[name]['figures'][k]))
    if arms[name]['figures']['gc_heap_live_end_bytes']['n'] != 0:
        bad.append('a JVM has no gctrace live heap, yet %s' % arms[name]['figures']['gc_heap_live_end_bytes'])
r = arms['r64']['figures']['jvm_old_after_gc_end_bytes']
if r['ratio'] is None or abs(r['ratio'] - 2) > 0.06 or r['verdict'] != 'significant':
    bad.append('r64 against r32: %s' % r)
if bad:
    print('\n'.join(bad)); sys.exit(1)
EOP

test_expect "the text table shows the runtime rows across arms" '
	grep -Eq "^old after GC MiB +3[23]\.[0-9] +\[[0-9.–]+\] +6[45]\.[0-9] \[[0-9.–]+\] ×(1\.9[4-9]|2\.0[0-6]) p=0\.029" "$T/bench.txt" &&
	grep -q "^java heap used MiB" "$T/bench.txt" && grep -q "^java committed MiB" "$T/bench.txt" &&
	! grep -q "^gc live after" "$T/bench.txt" ||
	test_why "$(cat "$T/bench.txt")"'

# the figure is the old gen of the run's own series after its GC
check "old after GC is the old gen the run's series show after the GC" python3 - "$TM" "$DB" <<'EOP'
import csv, io, json, subprocess, sys
tm, db = sys.argv[1], sys.argv[2]
for run in range(1, 9):
    f = json.loads(subprocess.check_output([tm, 'report', '-o', db, str(run), '--json']))['figures']
    rows = list(csv.DictReader(io.StringIO(subprocess.check_output(
        [tm, 'report', '-o', db, str(run), '--series']).decode())))
    t = [r for r in rows if r['jvm_full_gc_usec'] not in ('', '0')]
    if not t:
        sys.exit('run %d: no sample after the full GC' % run)
    want = int(t[0]['jvm_old_used_bytes'])
    if f['jvm_old_after_gc_end_bytes'] != want:
        sys.exit('run %d: old after GC %s, the series %s' % (run, f['jvm_old_after_gc_end_bytes'], want))
EOP

"$TM" report -o "$DB" 2 --phases --json >"$T/ph.json"
check "report --phases of a JVM run has the old gen after GC and the Java heap" python3 -c "
import json
d = json.load(open('$T/ph.json'))
t = d['total']
assert 64 << 20 <= t['jvm_old_after_gc_end_bytes'] <= 66 << 20, t
assert t['jvm_heap_used_end_bytes'] >= 64 << 20, t
"
finish
