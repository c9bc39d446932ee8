#!/bin/sh
# report --phases on a real recording: a workload that marks four phases
# from inside (echo > $TIDEMARK_MARK) and allocates a known amount in each
# (32, 0, 64, then frees 16 MiB, in 256 KiB chunks: each is an mmap of
# 256 KiB + one page, so anon grows by 260/256 of it), under the heap shim.
# Each phase's anon change is within 3 % + 1 MiB of that, its live-heap
# change within 0.1 MiB of the exact bytes (phases 2-4; the shim's first
# reading may come during phase 1, which then has no heap change: n/a),
# the changes add up to the run's, and the
# same in JSON, CSV and text; --phases-at splits at progress values.  A
# JVM marking phases: its old gen after GC per phase.
. "$(dirname "$0")/../lib.sh"

PROG="$TM_BUILD/progs/alloc_phases"
DB="$T/ph.db"
"$TM" record -q --heap -o "$DB" -i 100ms --progress 'progress=([0-9]+)' -- \
	"$PROG" 10 30 300 500 32 0 64 -16 >"$T/rec.out" 2>"$T/rec.err"
check "the phases workload recorded" test -s "$DB"

"$TM" report -o "$DB" --phases --json >"$T/ph.json" 2>"$T/ph.err"
check "report --phases --json exits 0" test -s "$T/ph.json"
check "each phase's anon and heap change is what the workload allocated; the changes add up" \
	python3 - "$T/ph.json" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
MIB = 1 << 20
ph = {p['name']: p for p in d['phases']}
want = {'phase-1': 32, 'phase-2': 0, 'phase-3': 64, 'phase-4': -16}
bad = []
for name, mib in want.items():
    p = ph.get(name)
    if p is None:
        bad.append('no phase %s in %s' % (name, list(ph))); continue
    exp = mib * 260 / 256 * MIB
    got = p['anon_change_bytes']
    if got is None or abs(got - exp) > 0.03 * abs(exp) + MIB:
        bad.append('%s anon change %s, want %.0f +- 3%% + 1 MiB' % (name, got, exp))
    if name != 'phase-1':
        h = p['heap_live_change_bytes']
        if h is None or abs(h - mib * MIB) > 0.1 * MIB:
            bad.append('%s heap change %s, want %d MiB' % (name, h, mib))
        if p['units'] != 10:
            bad.append('%s units %s, want 10' % (name, p['units']))
        # a rate unless the phase's points came at once (a loaded machine
        # can deliver a phase's lines in one burst: its rate is withheld)
        if p['progress_bunched'] != (p['rate_per_min'] is None) or (p['rate_per_min'] or 1) <= 0:
            bad.append('%s rate %s, bunched %s' % (name, p['rate_per_min'], p['progress_bunched']))
    if p['samples'] < 3:
        bad.append('%s has %d samples' % (name, p['samples']))
tot = d['total']
s = sum(p['anon_change_bytes'] for p in d['phases'] if p['anon_change_bytes'] is not None)
if s != tot['anon_change_bytes']:
    bad.append('anon changes sum to %s, the run changed by %s' % (s, tot['anon_change_bytes']))
if abs(tot['anon_change_bytes'] - 80 * 260 / 256 * MIB) > 0.03 * 80 * MIB + MIB:
    bad.append('run anon change %s' % tot['anon_change_bytes'])
p3 = ph.get('phase-3', {})
if p3.get('anon_bytes_per_unit') is None or abs(p3['anon_bytes_per_unit'] * 10 - p3['anon_change_bytes']) > 1:
    bad.append('phase-3 per unit %s' % p3.get('anon_bytes_per_unit'))
if p3.get('jvm_heap_used_change_bytes', 0) is not None:
    bad.append('no JVM, yet jvm_heap_used_change_bytes is %s' % p3.get('jvm_heap_used_change_bytes'))
if bad:
    print('\n'.join(bad)); sys.exit(1)
EOP

"$TM" report -o "$DB" --phases >"$T/ph.txt"
test_expect "report --phases prints a row per phase in MiB, and the run's" '
	grep -Eq "^  phase-3 +[0-9.]+ +[0-9.]+ +[0-9]+ +3[2-4]\.[0-9] +9[6-9]\.[0-9] +\+6[4-7]\.[0-9] " "$T/ph.txt" &&
	grep -Eq "^  run " "$T/ph.txt" && grep -q "heap start" "$T/ph.txt" ||
	test_why "$(cat "$T/ph.txt")"'
"$TM" report -o "$DB" --phases --csv >"$T/ph.csv"
check "report --phases --csv: a header, a row per phase, the total" python3 -c "
import csv, sys
rows = list(csv.DictReader(open('$T/ph.csv')))
names = [r['phase'] for r in rows]
assert [r['row'] for r in rows][-1] == 'total', names
assert {'phase-1', 'phase-2', 'phase-3', 'phase-4'} <= set(names), names
assert all(r['jvm_heap_used_end_bytes'] == '' for r in rows), 'missing must be empty'
"

"$TM" report -o "$DB" --phases-at 10,20,30 --json >"$T/at.json"
check "--phases-at splits where progress reaches each value" python3 -c "
import json
d = json.load(open('$T/at.json'))
assert d['split'] == 'progress', d['split']
n = [p['name'] for p in d['phases']]
assert n == ['start..10', '10..20', '20..30', '30..end'], n
u = [p['units'] for p in d['phases']]
assert u[1:] == [10, 10, 10], u
# a boundary's figures come from the last sample before it: the one
# before progress 20 comes in phase 2, which allocates nothing, so from
# 20 on the heap changes by 64 - 16 MiB, and all of them add up
h = sum(p['heap_live_change_bytes'] for p in d['phases'][2:])
assert abs(h - 48 * 2**20) < 0.1 * 2**20, h
s = sum(p['anon_change_bytes'] for p in d['phases'])
assert s == d['total']['anon_change_bytes'], (s, d['total'])
# the shim's first reading may come after the run's first sample: then the
# first phase and the run have no heap start, so no change (never 0)
for r in [d['phases'][0], d['total']]:
    assert (r['heap_live_start_bytes'] is None) == (r['heap_live_change_bytes'] is None), r
"

check_fails "--phases-at with values that do not increase is refused" "must increase" \
	"$TM" report -o "$DB" --phases-at 20,10
check_fails "--phases with --window is refused" "give one of them" \
	"$TM" report -o "$DB" --phases --window 1:5

# a JVM marking its phases: the old gen after GC grows by what each phase
# keeps (16, 32, 0, 8 MiB, then a full GC); the first phase has the first
# GC, so no start for it (n/a), the others start where it ended
if command -v javac >/dev/null && javac -d "$T" "$TM_ROOT/tests/progs/java/PhasesRetain.java"; then
	"$TM" record -q -o "$T/jvm.db" -i 100ms -- java -XX:+UseSerialGC -Xmx256m -cp "$T" \
		PhasesRetain 300 16 32 0 8 >"$T/jvm.out" 2>&1
	"$TM" report -o "$T/jvm.db" --phases --json >"$T/jvm.json"
	check "per phase, the JVM's old gen after GC grows by what the phase kept" python3 -c "
import json
d = json.load(open('$T/jvm.json'))
ph = {p['name']: p for p in d['phases']}
MIB = 2**20
p1 = ph['phase-1']
assert p1['jvm_old_after_gc_start_bytes'] is None and p1['jvm_old_after_gc_change_bytes'] is None, p1
assert 16 * MIB <= p1['jvm_old_after_gc_end_bytes'] <= 17.5 * MIB, p1
for name, mib in (('phase-2', 32), ('phase-3', 0), ('phase-4', 8)):
    c = ph[name]['jvm_old_after_gc_change_bytes']
    assert c is not None and abs(c - mib * MIB) < 0.5 * MIB, (name, c)
"
else
	skip phases_jvm "no javac (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
fi

# a run without marks: one phase, the whole run, and the note says how to mark
"$TM" record -q -o "$T/none.db" -i 100ms -- sleep 0.5
"$TM" report -o "$T/none.db" --phases >"$T/none.txt"
test_expect "a run without marks is one phase, and the note says how to mark" '
	grep -q "(whole run)" "$T/none.txt" && grep -q "has no marks" "$T/none.txt" && grep -q "n/a\|anon" "$T/none.txt" ||
	test_why "$(cat "$T/none.txt")"'
finish
