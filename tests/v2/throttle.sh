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

# The run's own cgroup as the kernel shows it, every 100 ms until it goes:
# its last high count and memory stall before the recorder removed it.
(
	for _ in $(seq 200); do
		d=$(ls -d $PARENT/tidemark-* 2>/dev/null | head -1)
		[ -n "$d" ] && break
		sleep 0.05
	done
	for _ in $(seq 400); do
		[ -n "$d" ] && [ -d "$d" ] || break
		w="$(kv "$d/memory.events" high) $(psi_total "$d/memory.pressure" some)"
		[ "$w" != " " ] && echo "$w" >"$T/watch"
		sleep 0.1
	done
) &
watcher=$!

# 64 MiB in 256 KiB steps under memory.high 32M, no swap: anon cannot be
# reclaimed, so past 32 MiB each step waits in the kernel's throttle.
"$TM" record -q -o "$DB" -i 200ms --memory-high 32M --timeout 12s -- "$P" 64 0 256 10 2>"$T/err"
run=$(last_run "$DB")
wait $watcher
set -- $(cat "$T/watch" 2>/dev/null)
w_high=${1:--1} w_some=${2:--1}
d_high=$(($(kv $PARENT/memory.events high) - b_high))
d_kill=$(($(kv $PARENT/memory.events oom_kill) - b_oom))

is "$(sql "$DB" "select outcome from runs where id=$run")" = timeout \
	"the throttled program is still running at --timeout (not killed, not done)" "$(cat "$T/err")"
is "$d_kill" -eq 0 "the kernel killed nothing"
high=$(fig "$DB" "$run" high_events)
is "$high" -ge 10 "memory.high events are recorded (kernel: $d_high)"
is "$high" -le "$d_high" "no more high events recorded than memory.events counted"
# the last sample and the watcher's last look are both within an interval
# or two of the cgroup's end: the counts agree to within 10%
last=$(series "$DB" "$run" cg_events_high | tail -1)
is $((last * 10)) -ge $((w_high * 9)) "the last sampled high count is the cgroup's memory.events (-10%)" "$last vs $w_high"
is $((last * 10)) -le $((w_high * 11)) "the last sampled high count is the cgroup's memory.events (+10%)" "$last vs $w_high"
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
lsome=$(series "$DB" "$run" cg_psi_mem_some_usec | tail -1)
is "$lsome" -ge $((w_some - 500000)) "the last sampled stall is the cgroup's memory.pressure (-0.5 s)" "$lsome vs $w_some usec"
is "$lsome" -le $((w_some + 500000)) "the last sampled stall is the cgroup's memory.pressure (+0.5 s)" "$lsome vs $w_some usec"
full=$(fig "$DB" "$run" psi_mem_full_usec)
is "$full" -gt 0 "memory pressure (full) is recorded"
"$TM" report -o "$DB" "$run" >"$T/rep"
grep -q "memory.high throttling $high" "$T/rep" && ok "the report counts the throttling" ||
	fail "the report counts the throttling" "$(grep events "$T/rep")"
finish
