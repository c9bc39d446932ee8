#!/bin/sh
# Arms compared phase by phase on real runs: one workload that marks its
# phases from inside and allocates per phase what the arm's PHASES says:
# small 32 0 16 -16, big 32 0 48 -16, short 32 0 48 (no phase-4).  Per
# phase, each arm's median anon change is what it allocated, phase-3's
# ratio big/small is 3 with the table's Mann–Whitney verdict (4 runs
# against 4), phase-1's is 1, and the arm that never marked phase-4 shows
# n/a there (null in JSON), with a note.  bench --phases prints both tables; the
# same comparison from report --bench ID --phases and at progress values.
. "$(dirname "$0")/../lib.sh"

PROG="$TM_BUILD/progs/alloc_phases"
DB="$T/b.db"
"$TM" bench -o "$DB" --arm small:PHASES='32 0 16 -16' --arm big:PHASES='32 0 48 -16' \
	--arm short:PHASES='32 0 48' --runs 4 -i 100ms --progress 'progress=([0-9]+)' --phases -- \
	sh -c "exec '$PROG' 5 20 200 300 \$PHASES" >"$T/bench.txt" 2>"$T/bench.err"
test_expect "bench --phases prints the table, then the arms phase by phase" '
	grep -q "^survived  *4/4  *4/4  *4/4" "$T/bench.txt" && grep -q "^phases of bench 1, split at the runs" "$T/bench.txt" ||
	test_why "$(cat "$T/bench.txt" "$T/bench.err" | head -40)"'

"$TM" bench -o "$DB" --table 1 --phases --json >"$T/ph.json"
check "each arm's phase changes are what it allocated; phase-3 big/small is 3, significant" \
	python3 - "$T/ph.json" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
MIB = 1 << 20
ph = {p['name']: p['figures'] for p in d['phases']}
bad = []
arms = d['arms']
assert arms == ['small', 'big', 'short'], arms
want = {'phase-1': (32, 32, 32), 'phase-2': (0, 0, 0), 'phase-3': (16, 48, 48), 'phase-4': (-16, -16, None)}
for name, mibs in want.items():
    cells = ph[name]['anon_change_bytes']
    for c, mib in zip(cells, mibs):
        if mib is None:
            if c['n'] != 0 or c['median'] is not None or c['runs_without'] != 4:
                bad.append('%s %s: want no value, got %s' % (name, c['arm'], c))
            continue
        exp = mib * 260 / 256 * MIB
        if c['n'] != 4 or abs(c['median'] - exp) > 0.03 * abs(exp) + MIB:
            bad.append('%s %s: median %s, want %.0f' % (name, c['arm'], c['median'], exp))
r = ph['phase-3']['anon_change_bytes'][1]
if r['ratio'] is None or abs(r['ratio'] - 3) > 0.1 or r['verdict'] != 'significant':
    bad.append('phase-3 big/small: %s' % r)
r = ph['phase-1']['anon_change_bytes'][1]
if r['ratio'] is None or abs(r['ratio'] - 1) > 0.03:
    bad.append('phase-1 big/small: %s' % r)
p = ph['phase-3']['peak_anon_bytes'][1]
if p['median'] is None or abs(p['median'] - 80 * 260 / 256 * MIB) > 0.03 * 80 * MIB + MIB:
    bad.append('phase-3 big peak: %s' % p)
if bad:
    print('\n'.join(bad)); sys.exit(1)
EOP

sed -n '/^phases of bench/,$p' "$T/bench.txt" >"$T/ph.txt"
test_expect "the phase table's text: ratios, tests, n/a and a note for the phase an arm lacks" '
	grep -q "short: 4 of its 4 surviving runs have no phase '\''phase-4'\''" "$T/ph.txt" &&
	sed -n '\''/^phase-4/,/^$/p'\'' "$T/ph.txt" | grep "^  anon change MiB" | grep -q '\''n/a$'\'' &&
	sed -n "/^phase-3/,/^phase-4/p" "$T/ph.txt" | grep -Eq "^  anon change MiB +16\.[0-9].* 48\.[0-9].* ×(2\.9|3\.0)[0-9] p=0\.029" ||
	test_why "$(cat "$T/ph.txt")"'

check "report --bench ID --phases prints the same comparison" sh -c \
	"'$TM' report -o '$DB' --bench 1 --phases | grep -q '^phase-3'"
"$TM" report -o "$DB" --bench 1 --phases-at 10 --json >"$T/at.json"
check "the arms compared at a progress value" python3 -c "
import json
d = json.load(open('$T/at.json'))
assert d['split'] == 'progress', d
assert [p['name'] for p in d['phases']] == ['start..10', '10..end'], d['phases']
c = d['phases'][1]['figures']['anon_change_bytes']
# from progress 10 (phase-2) on: 0 + 16 - 16, 0 + 48 - 16, 0 + 48
for cell, mib in zip(c, (0, 32, 48)):
    assert abs(cell['median'] - mib * 260 / 256 * 2**20) < 0.03 * 48 * 2**20 + 2**20, (cell, mib)
"
check_fails "--phases with --bench and --csv is refused" "no CSV" \
	"$TM" report -o "$DB" --bench 1 --phases --csv

# a bench with --param: phase-2 allocates N MiB, so its anon change is N
# per value of N, never one median pooled over N=8 and N=40 (that would be
# 8 or 40 at random, or between them)
"$TM" bench -o "$T/p.db" --arm glibc --param N=8,40 --runs 2 -i 100ms --phases -- \
	"$PROG" 3 20 200 200 16 {N} >"$T/p.txt" 2>"$T/p.err"
"$TM" bench -o "$T/p.db" --table 1 --phases --json >"$T/p.json" 2>>"$T/p.err"
check "bench --param --phases compares the phases per value of N" python3 - "$T/p.json" "$T/p.txt" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
MIB = 1 << 20
bad = []
if d.get('param') != 'N' or [v['text'] for v in d.get('values', [])] != ['8', '40']:
    sys.exit('want values N=8 and N=40, got %s' % json.dumps(d)[:300])
for v in d['values']:
    ph = {p['name']: p['figures'] for p in v['phases']}
    c = ph['phase-2']['anon_change_bytes'][0]
    exp = int(v['text']) * 260 / 256 * MIB
    if c['n'] != 2 or c['median'] is None or abs(c['median'] - exp) > 0.03 * exp + MIB:
        bad.append('N=%s phase-2: %s, want %.0f over 2 runs' % (v['text'], c, exp))
for n in ('8', '40'):
    if "phases of bench 1 at N=%s, split at the runs' marks" % n not in text:
        bad.append('no text table at N=%s' % n)
sys.exit('\n'.join(bad) or None)
EOP
finish
