#!/bin/sh
# Work without a progress line: --units N or --units-from REGEX gives a batch
# job's work, so record, report and bench give its cost per unit.
. "$(dirname "$0")/../lib.sh"
DB=$T/u.db
if ! command -v python3 >/dev/null 2>&1; then
	skip "units" "python3 is needed to read the JSON"
	finish
fi
# fig FILE KEY: one figure of `report --json`
fig() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['figures'][sys.argv[2]])" "$1" "$2"; }
# a batch job: a second of work, no progress line; the last lines say what it did
job='i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; echo "imported rows=100"; echo "rows=4000 in total"; echo bye'

"$TM" record -o "$DB" -i 100ms --units 500 -- sh -c "$job" >"$T/r1.out" 2>"$T/r1.err"
test_expect "record says the cost per unit of a job with --units" '
	grep -qE "^tidemark: run 1 completed after .*, 500 units, cpu [0-9.]+ ms/unit" "$T/r1.err" ||
	test_why "$(cat "$T/r1.err")"'
"$TM" report -o "$DB" 1 >"$T/rep1.txt" 2>&1
"$TM" report -o "$DB" 1 --json >"$T/rep1.json" 2>&1
cpu=$(fig "$T/rep1.json" cpu_usec)
per=$(fig "$T/rep1.json" cpu_usec_per_unit)
r=$(python3 -c "print(abs($cpu / 500 - $per) < 1e-6 and $per > 0)" 2>&1)
test_expect "report: the work and cpu per unit (cpu / units) of a job with --units" '
	grep -q "^  work        500 units (--units)" "$T/rep1.txt" && grep -q "^  per unit    cpu " "$T/rep1.txt" &&
	[ "$r" = True ] && [ "$(fig "$T/rep1.json" units)" = 500.0 ] ||
	test_why "$r $cpu $per; $(cat "$T/rep1.txt")"'

"$TM" record -o "$DB" -i 100ms --units-from 'rows=([0-9]+)' -- sh -c "$job" >"$T/r2.out" 2>"$T/r2.err"
"$TM" report -o "$DB" 2 --json >"$T/rep2.json" 2>&1
test_expect "--units-from takes the number from the last line it matches (output still shown)" '
	[ "$(fig "$T/rep2.json" units)" = 4000.0 ] && grep -q "rows=4000 in total" "$T/r2.out" ||
	test_why "$(fig "$T/rep2.json" units); $(cat "$T/r2.out" "$T/r2.err")"'
"$TM" record -o "$DB" -i 100ms --units-from 'blocks=([0-9]+)' -- sh -c "$job" >/dev/null 2>"$T/r3.err"
"$TM" report -o "$DB" 3 --json >"$T/rep3.json" 2>&1
test_expect "--units-from that matches nothing says so and records no units (null)" '
	grep -q "units-from '\''blocks=(\[0-9\]+)'\'': no line of the output gave a number" "$T/r3.err" &&
	[ "$(fig "$T/rep3.json" units)" = None ] ||
	test_why "$(cat "$T/r3.err")"'
"$TM" report -o "$DB" 3 >"$T/rep3.txt" 2>&1
test_expect "a run without progress or units points to --units" '
	grep -q "none recorded (use --progress REGEX, or --units N" "$T/rep3.txt" ||
	test_why "$(cat "$T/rep3.txt")"'

check_fails "--units 0 is refused" "units '0': expected a count above 0" "$TM" record -o "$DB" --units 0 -- true
check_fails "--units abc is refused" "units 'abc': expected a count above 0" "$TM" record -o "$DB" --units abc -- true
check_fails "--units-from with --progress is refused" "give it alone" \
	"$TM" record -o "$DB" --units-from 'x=([0-9]+)' --progress 'y=([0-9]+)' -- true
check_fails "bench --units -1 is refused" "expected a count above 0" \
	"$TM" bench -o "$DB" --arm glibc --units -1 -- true

# bench: per-unit rows for a job that prints no progress; the file's Units= too
printf '[bench]\nRuns=2\nInterval=100ms\nUnits=250\n[glibc]\n[arena1]\n' >"$T/u.ini"
"$TM" bench -o "$DB" -f "$T/u.ini" --export "json:$T/b.json" -- sh -c "$job" >"$T/b.txt" 2>"$T/b.err"
r=$(python3 -c "
import json; t = json.load(open('$T/b.json'))
ok = all(abs(r['figures']['wall_usec_per_unit'] - r['figures']['wall_usec'] / 250) < 1 and
         abs(r['figures']['cpu_usec_per_unit'] - r['figures']['cpu_usec'] / 250) < 1 and
         r['figures']['progress'] == 250 for r in t['runs'])
print(ok, len(t['runs']))" 2>&1)
test_expect "bench (Units= in the file): wall and cpu per unit of a job with no progress line" '
	[ "$r" = "True 4" ] && grep -q "^wall ms/unit " "$T/b.txt" && grep -q "^cpu ms/unit " "$T/b.txt" &&
	grep -q '\''^work: 250 units a run (--units), no progress line$'\'' "$T/b.txt" ||
	test_why "$r; $(cat "$T/b.txt" "$T/b.err")"'
"$TM" bench -o "$DB" --runs 1 -i 100ms --arm glibc --units-from 'rows=([0-9]+)' \
	--export "json:$T/b2.json" -- sh -c "$job" >"$T/b2.txt" 2>&1
r=$(python3 -c "import json; t = json.load(open('$T/b2.json')); print(t['runs'][0]['figures']['progress'], t['runs'][0]['figures']['cpu_usec_per_unit'] > 0)" 2>&1)
test_expect "bench --units-from" '
	[ "$r" = "4000.0 True" ] || test_why "$r; $(cat "$T/b2.txt")"'
finish
