#!/bin/sh
# bench --param: {N} substituted per value, the per-value table, the cost
# per unit (slope), the growth exponent and R², from the store again
# (--table), as JSON, CSV and Markdown, the option's errors, and the HTML
# report's footprint-against-N plot in headless chromium (screenshot:
# build/test-artifacts/bench/param.png).
#
# The exact workload (build/progs/param_units) holds N blocks of K = 1000
# bytes of live heap, and nothing else per unit; under glibc a 1000-byte
# block's usable size is exactly 1000 (a 1008-byte chunk), and the heap
# shim counts usable bytes exactly, so its heap peak is 1000 N + c.  c is
# stdio's 4 KiB buffer (printed before the blocks are allocated): it moves
# the intercept, not the slope, and at the smallest N (1000, 1 MB of blocks)
# it is 0.4 % of the heap, which bends the log–log slope by under 0.002.
. "$(dirname "$0")/../lib.sh"
P=$TM_BUILD/progs/param_units
BROWSER_DIR=$TM_ROOT/tests/browser
ART=$TM_BUILD/test-artifacts/bench
if [ ! -x "$P" ]; then
	skip "bench --param" "build/progs/param_units is not built (make check builds it)"
	finish
fi
DB=$T/p.db

# ---- the exact workload ----
# 3 runs a value and 1 s held: on a loaded machine a sample can come late,
# and a run whose last sample came before its blocks were all allocated has
# a smaller heap peak; the median of 3 is the others'.
"$TM" bench -o "$DB" --arm glibc --runs 3 -i 50ms --heap --param N=1000..100000:x10 \
	-- "$P" --units '{N}' --bytes 1000 --hold-ms 1000 >"$T/exact.txt" 2>"$T/exact.err"
rc=$?
test_expect "bench --param N=1000..100000:x10 runs" '[ $rc -eq 0 ] || test_why "$(tail -5 "$T/exact.err")"'
[ $rc -eq 0 ] || finish
n=$(sql "$DB" "SELECT count(*) FROM bench_params WHERE bench_id = 1 AND name = 'N'")
vals=$(sql "$DB" "SELECT group_concat(text, ' ') FROM (SELECT DISTINCT text FROM bench_params ORDER BY value)")
test_expect "each run's value is stored (9 runs at 1000 10000 100000)" '
	[ "$n" = 9 ] && [ "$vals" = "1000 10000 100000" ] ||
	test_why "n=$n values=$vals"'
# {N} was replaced: each run's command line says its value
cmds=$(sql "$DB" "SELECT group_concat(r.command_json, ' ') FROM runs r JOIN bench_params p ON p.run_id = r.id WHERE p.text = '10000'")
test_expect "{N} is replaced in the command of each run" '
	case $cmds in
	*\"10000\"*\"10000\"*) ;;
	*) test_why "$cmds" ;;
	esac'
"$TM" bench -o "$DB" --table 1 --json >"$T/exact.json" 2>"$T/json.err"
cat >"$T/exact.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["param"]
fit = [f for f in p["fits"] if f["arm"] == "glibc" and f["figure"] == "heap_peak_bytes"][0]
k = 1000.0
print("slope %.3f exponent %.5f r2 %.6f intercept %.0f n %d" % (fit["slope_per_unit"], fit["exponent"], fit["r2"], fit["intercept"], fit["n"]))
assert fit["n"] == 3
assert abs(fit["slope_per_unit"] - k) <= 0.01 * k, "slope"
assert abs(fit["exponent"] - 1) <= 0.02, "exponent"
assert fit["r2"] > 0.9999
# per value: the table of the runs at that value, 2 of 2 survived
assert [v["text"] for v in p["by_value"]] == ["1000", "10000", "100000"]
for v in p["by_value"]:
    a = v["table"]["arms"][0]
    assert a["runs"] == 3 and a["survived"] == 3, a
    med = a["figures"]["heap_peak_bytes"]["median"]
    assert abs(med - (k * v["value"] + fit["intercept"])) < 64, (v["value"], med)
# no median across values at the top: figures per value only
assert "figures" not in d["arms"][0]
assert all(r["param_value"] in (1000, 10000, 100000) for r in d["runs"])
# every run's own heap peak: none takes the previous run's (a region of the
# bench's earlier run left in /dev/shm used to be read as the next run's)
for r in d["runs"]:
    want = k * r["param_value"] + fit["intercept"]
    assert abs(r["figures"]["heap_peak_bytes"] - want) < 64, ("run", r["run_id"], r["param_value"], r["figures"]["heap_peak_bytes"])
PY
out=$(python3 "$T/exact.py" "$T/exact.json" 2>&1)
rc=$?
test_expect "heap peak per N is 1000 B within 1 %, growth exponent 1 ± 0.02 ($out)" '[ $rc -eq 0 ] || test_why "$out"'
# the text table: a block per figure, a line per value, the fits
test_expect "the table shows heap peak per value, 1000 B per N and exponent 1.00" '
	grep -q '\''^heap peak MiB$'\'' "$T/exact.txt" && grep -q "^  N=100000  " "$T/exact.txt" &&
	grep -Eq "^  per N +1000 B  R² 1\.0000" "$T/exact.txt" &&
	grep -Eq '\''^  fixed part +[0-9.]+ (B|KiB)$'\'' "$T/exact.txt" &&
	grep -Eq "^  growth exponent +1\.00  R² n/a \(3 values\)" "$T/exact.txt" &&
	grep -q "^parameter N: 3 values (1000, 10000, 100000), 3 runs per arm at each" "$T/exact.txt" ||
	test_why "$(cat "$T/exact.txt")"'
"$TM" bench -o "$DB" --table 1 >"$T/again.txt" 2>&1
test_expect "bench --table re-renders the same table from the store" '
	cmp -s "$T/exact.txt" "$T/again.txt" ||
	test_why "$(diff "$T/exact.txt" "$T/again.txt" | head)"'
"$TM" report --db "$DB" --bench 1 >"$T/report.txt" 2>&1
check "report --bench prints the same table" cmp -s "$T/exact.txt" "$T/report.txt"
"$TM" bench -o "$DB" --table 1 --export "csv:$T/p.csv" --export "md:$T/p.md" >/dev/null 2>&1
test_expect "CSV (value columns, fit lines with raw numbers) and Markdown exports" '
	head -1 "$T/p.csv" | grep -q "^param,param_value,kind,bench_id,arm," &&
	grep -q "^N,100000,arm,1,glibc,,,heap_peak_bytes,3," "$T/p.csv" &&
	grep -Eq "^N,,fit-slope,1,glibc,,,heap_peak_bytes,3,,,,,,,,(999\.|1000)" "$T/p.csv" &&
	grep -Eq "^\| +per N \| 1000 B  R² 1\.0000 \|" "$T/p.md" ||
	test_why "$(head -3 "$T/p.csv"; grep fit-slope "$T/p.csv" | head -2; grep '\''per N'\'' "$T/p.md")"'

# ---- too few values: say so instead of a number ----
"$TM" bench -o "$T/few.db" --arm glibc --runs 1 -i 50ms --heap --param N=1000 \
	-- "$P" --units '{N}' --bytes 1000 --hold-ms 500 >"$T/one.txt" 2>&1
"$TM" bench -o "$T/few.db" --arm glibc --runs 1 -i 50ms --heap --param N=1000,2000 \
	-- "$P" --units '{N}' --bytes 1000 --hold-ms 500 >"$T/two.txt" 2>&1
test_expect "one value gives no slope, two a slope without R²" '
	grep -Eq '\''^  per N +n/a: 1 value$'\'' "$T/one.txt" && grep -Eq '\''^  growth exponent +n/a: 1 value$'\'' "$T/one.txt" &&
	grep -Eq "^  per N +[0-9.]+ (B|KiB)  R² n/a \(2 values\)" "$T/two.txt" ||
	test_why "$(grep -A2 '\''^heap peak'\'' "$T/one.txt" "$T/two.txt")"'
python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))
f=[f for f in d["param"]["fits"] if f["figure"]=="heap_peak_bytes"][0]
assert f["n"]==1 and f["slope_per_unit"] is None and f["r2"] is None and f["exponent"] is None
' "$(cd "$T" && "$TM" bench -o few.db --table 1 --export json:one.json >/dev/null 2>&1; echo "$T/one.json")" 2>"$T/py.err"
rc=$?
test_expect "one value: slope, R² and exponent are null in JSON" '[ $rc -eq 0 ] || test_why "$(cat "$T/py.err")"'

# ---- an OOM kill at one value: counted, its figures missing (not 0), the fits over the rest ----
# (killed at anon: the run's anon peak, or n/a when the kernel's high-water mark
# rose above every sample, as it may at 50 ms: no peak below the kernel's)
"$TM" bench -o "$T/k.db" --arm glibc --runs 1 -i 50ms --heap --memory-max 48M --swap-max 0 \
	--param N=1000,10000,100000 -- "$P" --units '{N}' --bytes 1000 --hold-ms 500 >"$T/k.txt" 2>&1
"$TM" bench -o "$T/k.db" --table 1 --json >"$T/k.json" 2>/dev/null
heapblk=$(sed -n '/^heap peak MiB$/,/growth exponent/p' "$T/k.txt")
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); p=d["param"]
big=p["by_value"][2]["table"]["arms"][0]
assert big["outcomes"]["oom-killed"]==1 and big["figures"]["heap_peak_bytes"]["median"] is None
f=[f for f in p["fits"] if f["figure"]=="heap_peak_bytes"][0]
assert f["n"]==2 and f["r2"] is None and abs(f["slope_per_unit"]-1000)<10
' "$T/k.json"
rc=$?
test_expect "an OOM-killed value: survived 0/1 (1 oom-killed), n/a for its figures, killed at anon, fits over the 2 others" '
	grep -q '\''^  N=100000  *0/1 (1 oom-killed)$'\'' "$T/k.txt" &&
	echo "$heapblk" | grep -q '\''^  N=100000  *n/a$'\'' &&
	echo "$heapblk" | grep -Eq '\''^  per N +1000 B  R² n/a \(2 values\)$'\'' &&
	sed -n '\''/^killed at anon MiB$/,/^  N=100000/p'\'' "$T/k.txt" | grep -Eq '\''^  N=100000 +([0-9.]+|n/a)$'\'' &&
	[ $rc -eq 0 ] ||
	test_why "$(sed -n '\''/^survived/,/^peak anon/p;/^heap peak/,/growth/p;/^killed at anon/,/100000/p'\'' "$T/k.txt")"'

# the notes: said once when every value has them, else under the values that
# do.  Which rows are 0 in every run (psi, io) depends on the machine, and two
# values may differ in them, so the lines expected are derived from each
# value's own notes in the JSON: a text all three values have is said once,
# one only some have is prefixed with those values.  The OOM-killed value has
# no run that survived, so no row of it is 0 in every run: its rows have no
# data, and it has none of the zero notes the others have.
python3 -c '
import json,sys
d=json.load(open(sys.argv[1])); p=d["param"]
have={}
for bv in p["by_value"]:
    for n in bv["table"]["notes"]:
        have.setdefault((n["kind"],n["text"]),[]).append(bv["text"])
want=[]
for (kind,text),vals in have.items():
    want.append(text if len(vals)==len(p["by_value"]) else "N=%s: %s" % (", ".join(vals),text))
got=[l.rstrip("\n") for l in open(sys.argv[2])]
missing=[w for w in want if w not in got]
zero=[w for (k,t),v in have.items() if k=="zero" for w in v]
assert not missing, "expected lines not printed: %r" % missing
assert sum(1 for l in got if l.startswith("median [min")) == 1, "the legend is not said once"
assert zero and "100000" not in zero, "values with zero notes: %r" % zero
' "$T/k.json" "$T/k.txt" 2>"$T/notes.err"
rc=$?
test_expect "a note every value has is said once; one some values have names them" '
	[ "$(grep -c "^median \[min–max\] over the runs that survived" "$T/exact.txt")" = 1 ] &&
	[ $rc -eq 0 ] && grep -q "^N=[0-9, ]*: not shown, 0 in every run: " "$T/k.txt" &&
	! grep -q "^N=100000: not shown" "$T/k.txt" ||
	test_why "$(cat "$T/notes.err"; sed -n '\''/^median/,$p'\'' "$T/exact.txt" "$T/k.txt")"'

# ---- the option ----
check_fails "a second --param is refused" "a bench has one parameter" \
	"$TM" bench -o "$T/e.db" --arm glibc --param N=1,2 --param M=3,4 -- echo '{N}' '{M}'
check_fails "--param without {N} anywhere is refused" "\{N\} is in neither the command" \
	"$TM" bench -o "$T/e.db" --arm glibc --param N=1,2 -- true
check_fails "--param with --sweep is refused" "param N=1,2 and --sweep" \
	"$TM" bench -o "$T/e.db" --arm glibc --param N=1,2 --sweep MemoryMax=16M..64M -- echo '{N}'
check_fails "a bad range is refused with its reason" "param '0..10:x2': expected A <= B and A >= 1" \
	"$TM" bench -o "$T/e.db" --arm glibc --param N=0..10:x2 -- echo '{N}'
"$TM" bench -o "$T/e.db" --arm glibc --param N=1..x -- echo '{N}' >/dev/null 2>&1
rc=$?
test_expect "a bad --param exits 2" '[ $rc -eq 2 ] || test_why "exit $rc"'
cat >"$T/exp.ini" <<INI
[bench]
Runs=1
Interval=50ms
Param=N=3,5
ExecStart=sh -c 'echo ran {N}'

[glibc]
INI
"$TM" bench -o "$T/ini.db" -f "$T/exp.ini" >"$T/ini.txt" 2>&1
"$TM" bench -o "$T/ini.db" -f "$T/exp.ini" --param N=7 >"$T/ini2.txt" 2>&1
a=$(sql "$T/ini.db" "SELECT group_concat(text, ' ') FROM bench_params WHERE bench_id = 1")
b=$(sql "$T/ini.db" "SELECT group_concat(text, ' ') FROM bench_params WHERE bench_id = 2")
test_expect "Param= in the experiment file; --param on the command line replaces it" '
	[ "$a" = "3 5" ] && [ "$b" = "7" ] ||
	test_why "file: $a, command line: $b; $(tail -3 "$T/ini2.txt")"'
printf '[bench]\nParam=N=1\nParam=M=2\nExecStart=echo {N}\n[glibc]\n' >"$T/two.ini"
check_fails "two Param= in a file are refused with the line" "two.ini:3: .*a bench has one parameter" \
	"$TM" bench -o "$T/e.db" -f "$T/two.ini"
# {N} in an arm's Environment= value and the hooks
"$TM" bench -o "$T/env.db" --arm 'big:WORK_SIZE={N}' --runs 1 -i 50ms --param N=11,22 \
	--prepare "echo prep {N} >>$T/hooks" --cleanup "echo clean {N} >>$T/hooks" \
	-- sh -c '{ test "$WORK_SIZE" = 11 || test "$WORK_SIZE" = 22; } && sleep 0.3' >"$T/env.txt" 2>&1
test_expect "{N} is replaced in an arm's environment and in --prepare/--cleanup" '
	grep -q "^  N=22 .*1/1" "$T/env.txt" && grep -q "^  N=11 .*1/1" "$T/env.txt" &&
	[ "$(sort "$T/hooks" | tr "\n" " ")" = "clean 11 clean 22 prep 11 prep 22 " ] ||
	test_why "$(cat "$T/hooks"; grep -A3 '\''^survived'\'' "$T/env.txt")"'
# a store from before bench_params: a plain bench reads, and a bench with a
# parameter adds the table
"$TM" bench -o "$T/old.db" --arm glibc --runs 1 -i 50ms -- sleep 0.3 >/dev/null 2>&1
t0=$(sql "$T/old.db" "SELECT count(*) FROM sqlite_master WHERE name = 'bench_params'")
"$TM" bench -o "$T/old.db" --table 1 >"$T/old.txt" 2>&1
r1=$?
"$TM" bench -o "$T/old.db" --arm glibc --runs 1 -i 50ms --param N=1,2 -- echo '{N}' >/dev/null 2>&1
t1=$(sql "$T/old.db" "SELECT count(*) FROM sqlite_master WHERE name = 'bench_params'")
test_expect "a store without bench_params reads as before; a bench with a parameter adds it" '
	[ "$t0" = 0 ] && [ $r1 -eq 0 ] && grep -q "^survived  *1/1" "$T/old.txt" && [ "$t1" = 1 ] ||
	test_why "before $t0, after $t1, table rc $r1: $(head -8 "$T/old.txt")"'

# ---- the HTML report: the footprint against N by arm ----
"$TM" bench -o "$T/h.db" --arm glibc --arm jemalloc --runs 1 -i 50ms --heap --param N=1000..100000:x10 \
	-- "$P" --units '{N}' --bytes 1000 >"$T/h.txt" 2>"$T/h.err"
"$TM" report --db "$T/h.db" --bench 1 --html "$T/p.html" >"$T/html.out" 2>&1
rc=$?
test_expect "report --bench --html of a bench with a parameter" '[ $rc -eq 0 ] || test_why "$(tail -3 "$T/html.out" "$T/h.err")"'
[ $rc -eq 0 ] || finish
if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null; then
	skip "the footprint plot in headless chromium" "needs /usr/bin/chromium and node"
	finish
fi
if [ ! -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
	(cd "$BROWSER_DIR" && npm install --no-audit --no-fund --silent) >"$T/npm.log" 2>&1 ||
		{ skip "the footprint plot in headless chromium" "cannot npm install playwright-core: $(tail -2 "$T/npm.log")"; finish; }
fi
mkdir -p "$ART"
"$TM" bench -o "$T/h.db" --table 1 --json >"$T/h.json" 2>/dev/null
node "$BROWSER_DIR/param.mjs" "$T/p.html" "$T/h.txt" "$T/h.json" "$ART/param.png" 2>&1
finish
