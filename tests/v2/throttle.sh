#!/bin/sh
# A program growing past memory.high on a real kernel is throttled, not
# killed: high events rise, the cgroup's memory pressure grows, and the
# recorded figures agree with the kernel's memory.events and
# memory.pressure (the run's cgroup's, watched until it goes, and the
# parent's, whose counts are hierarchical).
. "$(dirname "$0")/lib.sh"
DB=$T/t.db
PARENT=$CG/tidemark
"$TM" record -q -o "$DB" -- true # creates the parent
b_high=$(kv $PARENT/memory.events high) b_oom=$(kv $PARENT/memory.events oom_kill)

# The run's own cgroup as the kernel shows it, as often as the guest's shell
# can, until it goes: "before high some after" (wall-clock usec around the
# reads).  Its counters only rise, so each reading must lie between the
# recorder's samples before and after it.  (bash, for EPOCHREALTIME and
# reads by builtins: a reading starts no process, so a loaded guest, where
# each exec takes a tenth of a second or more, still reads it many times a
# second and between most samples.)
PARENT=$PARENT bash -c '
	d=""
	for _ in $(seq 400); do
		for d in "$PARENT"/tidemark-*; do [ -d "$d" ] && break; done
		[ -d "$d" ] && break
		d=""
		sleep 0.05
	done
	[ -n "$d" ] || exit 0
	for _ in $(seq 1000); do
		[ -d "$d" ] || break
		t1=${EPOCHREALTIME/./} h="" p=""
		while read -r k v; do [ "$k" = high ] && h=$v; done <"$d/memory.events"
		while read -r k _ _ _ tot; do [ "$k" = some ] && p=${tot#total=}; done <"$d/memory.pressure"
		t2=${EPOCHREALTIME/./}
		# (both read before the cgroup went: a half-read pair is not kept)
		[ -n "$h" ] && [ -n "$p" ] && echo "$t1 $h $p $t2" >>"$0"
		sleep 0.1
	done
' "$T/watch" 2>/dev/null &
watcher=$!

# 64 MiB in 256 KiB steps under memory.high 32M, no swap: anon cannot be
# reclaimed, so past 32 MiB each step waits in the kernel's throttle.
"$TM" record -q -o "$DB" -i 200ms --memory-high 32M --timeout 12s -- "$P" 64 0 256 10 2>"$T/err"
run=$(last_run "$DB")
wait $watcher
d_high=$(($(kv $PARENT/memory.events high) - b_high))
d_kill=$(($(kv $PARENT/memory.events oom_kill) - b_oom))

is "$(sql "$DB" "select outcome from runs where id=$run")" = timeout \
	"the throttled program is still running at --timeout (not killed, not done)" "$(cat "$T/err")"
is "$d_kill" -eq 0 "the kernel killed nothing"
high=$(fig "$DB" "$run" high_events)
is "$high" -ge 10 "memory.high events are recorded (kernel: $d_high)"
is "$high" -le "$d_high" "no more high events recorded than memory.events counted"
# against_watch COLUMN FIELD: "checked bad" - watcher readings bracketed by
# the samples around them, and those outside their samples' values.
against_watch()
{
	"$TM" report -o "$DB" --series "$run" | python3 -c '
import csv, sys
col, field, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = [(int(r["t_wall_usec"]), int(r[col])) for r in csv.DictReader(sys.stdin) if r[col]]
checked = bad = 0
for line in open(path):
    t1, v, t2 = int(line.split()[0]), int(line.split()[field]), int(line.split()[3])
    # a sample reads its files just after its time stamp: 150 ms of margin
    lo = [x for t, x in s if t <= t1 - 150000]
    hi = [x for t, x in s if t >= t2]
    if lo and hi:
        checked += 1
        bad += not (lo[-1] <= v <= hi[0])
print(checked, bad)' "$1" "$2" "$T/watch" 2>/dev/null || echo "0 1"
}
set -- $(against_watch cg_events_high 1)
is "${1:-0}" -ge 3 "the kernel's memory.events was read between samples ${1:-0} times"
is "${2:-1}" -eq 0 "each reading of its high count lies between the samples around it" "${2:-?} of ${1:-?} outside"
set -- $(against_watch cg_psi_mem_some_usec 2)
is "${2:-1}" -eq 0 "each reading of its memory.pressure lies between the samples around it" "${2:-?} of ${1:-?} outside"
rising=$(series "$DB" "$run" cg_events_high | python3 -c '
import sys
v = [int(x) for x in sys.stdin.read().split()]
ups = sum(1 for a, b in zip(v, v[1:]) if b > a)
print(ups if all(b >= a for a, b in zip(v, v[1:])) else -1)')
is "$rising" -ge 5 "the high counter rises over the run, sample after sample"
ev=$(sql "$DB" "select coalesce(sum(value), 0) from events where run_id=$run and kind='high_throttle'")
first=$(series "$DB" "$run" cg_events_high | head -1)
is "$ev" -eq $((high - first)) "the high_throttle events add up to the counter's rise"
cur=$(fig "$DB" "$run" peak_current_bytes)
is "$cur" -le $((40 * 1048576)) "memory.current stays near memory.high (<= 40 MiB)"
some=$(fig "$DB" "$run" psi_mem_some_usec)
is "$some" -ge 1000000 "the cgroup's memory pressure (some) is over 1 s"
full=$(fig "$DB" "$run" psi_mem_full_usec)
is "$full" -gt 0 "memory pressure (full) is recorded"
"$TM" report -o "$DB" "$run" >"$T/rep"
test_expect "the report counts the throttling" 'grep -q "memory.high throttling $high" "$T/rep" || test_why "$(grep events "$T/rep")"'
finish
