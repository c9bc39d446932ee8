#!/bin/sh
# A program growing past memory.high on a real kernel is throttled, not
# killed: high events rise, the cgroup's memory pressure grows, and the
# recorded figures agree with the kernel's memory.events and
# memory.pressure (read from the parent, whose files are hierarchical).
. "$(dirname "$0")/lib.sh"
DB=$T/t.db
PARENT=$CG/tidemark
"$TM" record -q -o "$DB" -- true # creates the parent
b_high=$(kv $PARENT/memory.events high) b_oom=$(kv $PARENT/memory.events oom_kill)
b_some=$(psi_total $PARENT/memory.pressure some)

# 64 MiB in 256 KiB steps under memory.high 32M, no swap: anon cannot be
# reclaimed, so past 32 MiB each step waits in the kernel's throttle.
"$TM" record -q -o "$DB" -i 200ms --memory-high 32M --timeout 12s -- "$P" 64 0 256 10 2>"$T/err"
run=$(last_run "$DB")
d_high=$(($(kv $PARENT/memory.events high) - b_high))
d_kill=$(($(kv $PARENT/memory.events oom_kill) - b_oom))
d_some=$(($(psi_total $PARENT/memory.pressure some) - b_some))

is "$(sql "$DB" "select outcome from runs where id=$run")" = timeout \
	"the throttled program is still running at --timeout (not killed, not done)" "$(cat "$T/err")"
is "$d_kill" -eq 0 "the kernel killed nothing"
high=$(fig "$DB" "$run" high_events)
is "$high" -ge 10 "memory.high events are recorded (kernel: $d_high)"
is "$high" -le "$d_high" "no more high events recorded than memory.events counted"
# the last sample is at most one interval before the cgroup goes: most of
# the kernel's events are in it
is $((high * 10)) -ge $((d_high * 7)) "the recorded high events are most of the kernel's" "$high of $d_high"
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
# The parent's stall time and its child's are aggregated separately (over
# each CPU's non-idle time); measured here they differ by up to ~12%.
is $((some * 4)) -le $((d_some * 5)) "and within 25% of the kernel's memory.pressure" "kernel $d_some usec"
is $((some * 4)) -ge $((d_some * 3)) "(not under it by 25% either)" "kernel $d_some usec"
full=$(fig "$DB" "$run" psi_mem_full_usec)
is "$full" -gt 0 "memory pressure (full) is recorded"
"$TM" report -o "$DB" "$run" >"$T/rep"
grep -q "memory.high throttling $high" "$T/rep" && ok "the report counts the throttling" ||
	fail "the report counts the throttling" "$(grep events "$T/rep")"
finish
