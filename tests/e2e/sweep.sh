#!/bin/sh
# bench --sweep and advise --verify on a workload whose anon peak is known:
# bench_alloc --mib 48 touches 48 MiB of heap.  The smallest MemoryMax that
# survives every run lies between that peak and the peak + the resolution +
# a stated overhead (8 MiB: the program, libc, page tables and kernel memory
# the cgroup is charged for); at 90 % of the peak every run is killed; a
# sweep run again reuses its runs; advise proposes at least the sweep's
# minimum + its margin, and --verify at that setting survives every run.
. "$(dirname "$0")/../lib.sh"
DB=$T/s.db
P=$TM_BUILD/progs/bench_alloc
if [ ! -x "$P" ]; then
	skip "sweep" "build/progs/bench_alloc is not built (make check builds it)"
	finish
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip "sweep" "python3 is needed to read the JSON"
	finish
fi
json() { python3 -c "import json,sys; a=json.load(open(sys.argv[1])); print($2)" "$1"; }
MIB=1048576 PEAK=48 RES=8 OVERHEAD=8
W="$P --mib $PEAK --steps 8 --step-ms 20"

check_fails "bad sweep" "expected MemoryMax=LO..HI" "$TM" bench -o "$DB" --arm glibc --sweep MemoryMax=64M -- true
check_fails "sweep of another limit" "only MemoryMax or MemoryHigh" "$TM" bench -o "$DB" --arm glibc --sweep MemorySwapMax=1M..2M -- true
check_fails "sweep LO above HI" "LO < HI" "$TM" bench -o "$DB" --arm glibc --sweep MemoryMax=64M..32M -- true

"$TM" bench -o "$DB" --arm glibc --runs 2 -i 50ms --sweep MemoryMax=16M..128M --resolution ${RES}M \
	--json -- $W >"$T/s1.json" 2>"$T/s1.err"
rc=$?
min=$(json "$T/s1.json" "a['arms'][0]['smallest_passing_bytes'] // $MIB" 2>&1)
test_expect "the smallest surviving MemoryMax ($min MiB) lies between the peak and peak + resolution + overhead" '[ $rc -eq 0 ] && [ "$min" -ge $PEAK ] 2>/dev/null && [ "$min" -le $((PEAK + RES + OVERHEAD)) ] || test_why "exit $rc, $min: $(tail -5 "$T/s1.err")"'
r=$(json "$T/s1.json" "all((p['survived'] == p['runs']) == (p['limit_bytes'] >= a['arms'][0]['smallest_passing_bytes']) for p in a['arms'][0]['curve'])" 2>&1)
test_expect "the curve: every run survives at and above it, not below" '[ "$r" = True ] || test_why "$r"'
runs=$(sqlite3 "$DB" 'select count(*) from runs')

"$TM" bench -o "$DB" --arm glibc --runs 2 -i 50ms --sweep MemoryMax=16M..128M --resolution ${RES}M \
	-- $W >"$T/s2.txt" 2>"$T/s2.err"
test_expect "a sweep run again reuses its runs and finds the same limit" '
	[ "$(sqlite3 "$DB" '\''select count(*) from runs'\'')" = "$runs" ] && grep -q '\''reused from the store'\'' "$T/s2.err" &&
	grep -qE "^glibc: smallest MemoryMax passing every run $min\.0 MiB" "$T/s2.txt" || test_why "$runs runs before; $(head -5 "$T/s2.txt" "$T/s2.err")"'

# --export json: the sweep's curve (here from the stored runs), as --json
# prints it; csv and md have no curve and are refused before anything runs
"$TM" bench -o "$DB" --arm glibc --runs 2 -i 50ms --sweep MemoryMax=16M..128M --resolution ${RES}M \
	--export json:"$T/curve.json" -- $W >/dev/null 2>"$T/x.err"
rc=$?
r=$(python3 -c "
import json, sys
a, b = json.load(open('$T/s1.json')), json.load(open('$T/curve.json'))
pts = lambda d: [(p['limit_bytes'], p['runs'], p['survived']) for p in d['arms'][0]['curve']]
print(a['arms'][0]['smallest_passing_bytes'] == b['arms'][0]['smallest_passing_bytes'] and pts(a) == pts(b))" 2>&1)
test_expect "bench --sweep --export json writes the sweep's curve" '[ $rc -eq 0 ] && [ "$r" = True ] && grep -q "wrote $T/curve.json" "$T/x.err" || test_why "exit $rc, $r: $(tail -3 "$T/x.err")"'
runs=$(sqlite3 "$DB" 'select count(*) from runs')
check_fails "bench --sweep --export csv is refused, with the reason" "exports its curve as json only" \
	"$TM" bench -o "$DB" --arm glibc --runs 2 -i 50ms --sweep MemoryMax=8M..300M --export csv -- $W
test_expect "the refused sweep ran nothing" '[ "$(sqlite3 "$DB" '\''select count(*) from runs'\'')" = "$runs" ] || test_why "$runs runs before, $(sqlite3 "$DB" '\''select count(*) from runs'\'') after"'

# 90 % of the peak: killed in every run
LOW=$((PEAK * 9 / 10))
"$TM" bench -o "$DB" --arm glibc --runs 3 -i 50ms --memory-max ${LOW}M -- $W >"$T/k.txt" 2>&1
test_expect "at 90 % of the peak (${LOW}M) every run is killed" 'grep -qE '\''^survived +0/3'\'' "$T/k.txt" || test_why "$(head -20 "$T/k.txt")"'

# advise from the sweep's benches
list=$(sed -n 's/^the runs are in benches \([0-9,-]*\):.*/\1/p' "$T/s2.txt")
"$TM" advise -o "$DB" --bench "$list" --json >"$T/a.json" 2>"$T/a.err"
r=$(json "$T/a.json" "[(p['figures']['memory_max_bytes']['value'] >= p['sweep_min_bytes'] + p['figures']['margin_bytes']['value'], int(p['sweep_min_bytes'] // $MIB)) for p in a['arms'][0]['profiles']]" 2>&1)
test_expect "advise proposes MemoryMax >= the sweep's minimum + its margin" '[ "$r" = "[(True, $min)]" ] || test_why "$r $(cat "$T/a.err")"'

"$TM" advise -o "$DB" --bench "$list" --verify --verify-runs 3 --json >"$T/v.json" 2>"$T/v.err"
r=$(json "$T/v.json" "(a['verify']['runs'], a['verify']['survived'])" 2>&1)
test_expect "advise --verify: every run survives under the proposed limits" '[ "$r" = "(3, 3)" ] || test_why "$r $(tail -5 "$T/v.err")"'
vb=$(json "$T/v.json" "a['verify']['bench_id']")
mm=$(json "$T/v.json" "int(a['arms'][0]['profiles'][0]['figures']['memory_max_bytes']['value'])")
got=$(sqlite3 "$DB" "select count(*) from runs where bench_id=$vb and json_extract(limits_json,'\$.memory_max.requested')=$mm and json_extract(limits_json,'\$.swap_max.requested')=0")
test_expect "the verification ran under the proposed MemoryMax and MemorySwapMax=0" '[ "$got" = 3 ] || test_why "$got runs of bench $vb at $mm"'
verified=$(json "$T/v.json" "a['verify']['verified']")
mode=$(sqlite3 "$DB" "select cgroup_mode from runs where bench_id=$vb limit 1")
if [ "$mode" = v2 ]; then
	test_expect "verified on cgroup v2" '[ "$verified" = True ] || test_why "$(cat "$T/v.err")"'
else
	test_expect "on cgroup v1 it is not marked verified: throttling cannot be measured here" '
		[ "$verified" = False ] && grep -q "throttling was not measured" "$T/v.err" || test_why "$verified $(cat "$T/v.err")"'
fi

# MemoryHigh: the curve is about throttling, which cgroup v1 cannot do
if [ "$mode" != v2 ]; then
	"$TM" bench -o "$DB" --arm glibc --runs 1 -i 50ms --sweep MemoryHigh=16M..128M -- $W >"$T/h.txt" 2>"$T/h.err"
	rc=$?
	test_expect "a MemoryHigh sweep on cgroup v1 says it cannot be done" '[ $rc -eq 1 ] && grep -q '\''cgroup v1 cannot throttle'\'' "$T/h.err" || test_why "exit $rc: $(tail -3 "$T/h.err")"'
fi

# an interrupted sweep keeps what it measured
"$TM" bench -o "$T/i.db" --arm glibc --runs 2 -i 50ms --sweep MemoryMax=16M..128M --resolution ${RES}M \
	-- $P --mib $PEAK --steps 8 --step-ms 100 >"$T/i.txt" 2>"$T/i.err" &
pid=$!
for _ in $(seq 100); do
	grep -q '^sweep glibc at' "$T/i.err" 2>/dev/null && break
	sleep 0.1
done
kill -TERM $pid # (a background job of sh ignores SIGINT)
wait $pid
rc=$?
kept=$(sqlite3 "$T/i.db" "select count(*) from runs where outcome in ('completed','oom-killed','killed')")
"$TM" bench -o "$T/i.db" --arm glibc --runs 2 -i 50ms --sweep MemoryMax=16M..128M --resolution ${RES}M \
	-- $P --mib $PEAK --steps 8 --step-ms 100 >"$T/i2.txt" 2>"$T/i2.err"
test_expect "an interrupted sweep keeps its runs, and the next one reuses them" '[ $rc -ne 0 ] && [ "$kept" -ge 2 ] && grep -q '\''reused from the store'\'' "$T/i2.err" || test_why "exit $rc, kept $kept; $(tail -3 "$T/i.err" "$T/i2.err")"'
finish
