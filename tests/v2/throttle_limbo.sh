#!/bin/sh
# Throttle limbo on a real kernel: a program growing past --memory-high,
# with no swap, is held there by the kernel (memory.high events rise,
# memory PSI full climbs, its progress all but stops); report says
# "throttled by memory.high from ... to ...", its JSON carries the stretch,
# and the bench table notes it.  The same program without the ceiling is
# not reported.
V2_TIMEOUT=200
. "$(dirname "$0")/lib.sh"
DB=$T/t.db
B=$TM_BUILD/progs/bench_alloc
# 96 steps of 1 MiB, 20 ms apart: 3000 steps a minute while it is free;
# past 32 MiB each step waits in the kernel's throttle
W="$B --mib 96 --steps 96 --step-ms 20"

# The bench of the same (below) runs at the same time, in a cgroup and a
# store of its own: each run is held by its own cgroup's memory.high, and
# both wait out their 15 s together rather than one after the other.
"$TM" bench -o "$T/b.db" --arm glibc --runs 1 -i 200ms --memory-high 32M --timeout 15s \
	--progress 'progress=([0-9]+)' -- $W >"$T/b.txt" 2>&1 &
bench=$!
"$TM" record -q -o "$DB" -i 200ms --memory-high 32M --timeout 15s --progress 'progress=([0-9]+)' \
	-- $W >/dev/null 2>"$T/err"
run=$(last_run "$DB")
"$TM" report -o "$DB" "$run" >"$T/r.txt" 2>&1
"$TM" report -o "$DB" "$run" --json >"$T/r.json" 2>&1
line=$(grep '^  throttle ' "$T/r.txt")
echo "# $line"
test_expect "report says the run was throttled by memory.high, with the events, the stall and the rate" 'echo "$line" | grep -qE '\''throttled by memory\.high from [0-9:]+ to [0-9:]+: [0-9,]+ high events, memory full [0-9]+ %, rate [0-9]+ → [0-9]+ units/min'\'' || test_why "$line; $(cat "$T/err")"'
r=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["throttle"]
s = t["spans"][0]
print(t["known"], len(t["spans"]) >= 1, s["high_events"] > 0, s["mem_full_share"] >= 0.10,
      s["rate_during_per_min"] < 0.5 * s["rate_before_per_min"])' "$T/r.json" 2>&1)
test_expect "report --json: the stretch, its high events, memory full >= 10 %, the rate fallen" '[ "$r" = "True True True True True" ] || test_why "$r"'

# a bench of the same (started above): the table's notes say it
wait $bench
test_expect "the bench table notes the throttled run" 'grep -q '\''^run [0-9]* (glibc) throttled by memory.high from'\'' "$T/b.txt" || test_why "$(tail -15 "$T/b.txt")"'

# without the ceiling: not throttled, and said so
"$TM" record -q -o "$DB" -i 200ms --timeout 15s --progress 'progress=([0-9]+)' -- $W >/dev/null 2>&1
run=$(last_run "$DB")
"$TM" report -o "$DB" "$run" >"$T/n.txt" 2>&1
test_expect "the same program without memory.high: no throttle limbo reported" 'grep -q '\''^  throttle    none'\'' "$T/n.txt" || test_why "$(grep throttle "$T/n.txt")"'
finish
