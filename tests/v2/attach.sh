#!/bin/sh
# -p and --cgroup on existing cgroups of a real v2 host, the way a service
# runs under systemd (app.slice/svc.service): the figures are the kernel's
# own (memory.max, memory.peak, memory.events, memory.pressure, read back
# from the cgroup after the run), and tidemark leaves what it only watched
# in place.  A cgroup without the memory controller has no memory figures:
# they are missing, not zero.
. "$(dirname "$0")/lib.sh"
DB=$T/a.db
S=$CG/app.slice SVC=$CG/app.slice/svc.service
mkdir -p $SVC
echo +memory >$S/cgroup.subtree_control
echo 128M >$SVC/memory.max

# start_in CGROUP CMD...: runs CMD in CGROUP in the background ($! its pid).
start_in()
{
	dir=$1
	shift
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$dir" "$@" >"$T/svc.out" 2>&1 &
	svc=$!
	for _ in $(seq 100); do
		grep -qx "$svc" "$dir/cgroup.procs" && return 0
		sleep 0.05
	done
	return 1
}

# 1. -p PID: a service that touches 48 MiB and holds it (6 s: on a loaded
#    TCG guest, starting the recorder can take longer than 2.5 s, and a
#    service gone before it attaches is "no process with pid")
start_in $SVC "$P" 48 6000
for _ in $(seq 100); do grep -q ready "$T/svc.out" && break; sleep 0.1; done
"$TM" record -q -o "$DB" -i 100ms -p $svc 2>"$T/err"
rc=$?
wait $svc
run=$(last_run "$DB")
is "$rc" -eq 0 "record -p follows the service to its end" "$(cat "$T/err")"
is "$(sql "$DB" "select cgroup_path from runs where id=$run")" = $SVC "the run is of the service's cgroup"
is "$(fig "$DB" "$run" limit_max_bytes)" = "$(cat $SVC/memory.max)" "its memory.max is the cgroup's"
kpeak=$(cat $SVC/memory.peak)
cgpeak=$(fig "$DB" "$run" cg_peak_bytes)
is "$cgpeak" -le "$kpeak" "the recorded memory.peak is no more than the kernel's"
is "$cgpeak" -ge $((kpeak - 262144)) "and within 256 KiB of it" "kernel $kpeak"
anon=$(fig "$DB" "$run" peak_anon_bytes)
# (the kernel flushes memory.stat in batches of up to 64 pages a CPU)
is "$anon" -ge $((47 * 1048576)) "peak anon holds the 48 MiB touched (-1 MiB)"
is "$anon" -le "$kpeak" "peak anon is under memory.peak"
test_expect "-p leaves the service's cgroup and its limit alone" '[ -d $SVC ] && [ "$(cat $SVC/memory.max)" = 134217728 ]'

# 1b. -p of a process whose cgroup it shares with others (this shell's
#     init.scope): no cgroup figures, they would be the others' too
sh -c "exec $P 8 4000" >/dev/null &
pid=$!
"$TM" record -q -o "$DB" -i 100ms -p $pid 2>"$T/err"
wait $pid
run=$(last_run "$DB")
is_null "$(sql "$DB" "select cgroup_path from runs where id=$run")" "-p in a shared cgroup records no cgroup"
is_null "$(fig "$DB" "$run" peak_current_bytes)" "and no cgroup figures (null, not the others' or 0)"
test_expect "and says why" 'grep -q "with process" "$T/err" || test_why "$(cat "$T/err")"'

# 2. --cgroup PATH: the service now grows past a memory.high set by its
#    operator; watched for 6 s, then compared with the cgroup's own files
echo 32M >$SVC/memory.high
h0=$(kv $SVC/memory.events high) s0=$(psi_total $SVC/memory.pressure some)
start_in $SVC "$P" 64 0 256 10
"$TM" record -q -o "$DB" -i 200ms --cgroup $SVC --timeout 6s 2>"$T/err"
kh=$(kv $SVC/memory.events high) ks=$(psi_total $SVC/memory.pressure some)
kill -9 $svc
wait $svc 2>/dev/null
run=$(last_run "$DB")
is "$(sql "$DB" "select target || ' ' || cgroup_path from runs where id=$run")" = "cgroup $SVC" \
	"record --cgroup records the cgroup" "$(cat "$T/err")"
is "$(sql "$DB" "select count(*) from events where run_id=$run and kind='timeout'")" = 1 \
	"and watches it until --timeout"
last_high=$(series "$DB" "$run" cg_events_high | tail -1)
is "$last_high" -le "$kh" "the last sampled high count is no more than memory.events says after"
is $(((last_high - h0) * 10)) -ge $(((kh - h0) * 7)) "and most of its rise over the run" "$last_high vs $kh, from $h0"
is "$(fig "$DB" "$run" high_events)" -gt 10 "the throttling is recorded as high events"
# memory.events high as timed events: each carries the counter's rise at the
# sample it follows, and comes before the next sample
sql "$DB" "select t_wall_usec, value from events where run_id=$run and kind='high_throttle'" >"$T/hev"
set -- $("$TM" report -o "$DB" --series "$run" | python3 -c '
import csv, sys
s = [(int(r["t_wall_usec"]), int(r["cg_events_high"])) for r in csv.DictReader(sys.stdin)
     if r["cg_events_high"]]
n = bad = 0
for line in open(sys.argv[1]):
    t, v = (int(x) for x in line.split("|"))
    i = max([k for k, (ts, _) in enumerate(s) if ts <= t], default=0)
    n += 1
    bad += not (i >= 1 and s[i][1] - s[i - 1][1] == v and (i + 1 == len(s) or t < s[i + 1][0]))
print(n, bad)' "$T/hev" 2>&1)
is "${1:-0}" -ge 5 "memory.events high is recorded as timed events (${1:-0})"
is "${2:-1}" -eq 0 "each high event is the counter's rise at its sample, timed before the next" "$*"
last_some=$(series "$DB" "$run" cg_psi_mem_some_usec | tail -1)
is "$last_some" -le "$ks" "the last sampled memory stall is no more than memory.pressure says after"
is $((last_some - s0)) -ge 1000000 "and the stall grew by over 1 s" "from $s0 to $last_some"
is "$(fig "$DB" "$run" limit_high_bytes)" = 33554432 "the run shows the operator's memory.high"
test_expect "--cgroup leaves the cgroup in place" '[ -d $SVC ]'

# 3. a process in a cgroup whose parent does not hand it the memory controller
#    (each program here holds for 4 s: a loaded TCG guest can take seconds
#    to start the recorder)
mkdir -p $CG/nomem.slice/x.service
start_in $CG/nomem.slice/x.service "$P" 16 4000
"$TM" record -q -o "$DB" -i 100ms -p $svc 2>"$T/err"
wait $svc
run=$(last_run "$DB")
is_null "$(fig "$DB" "$run" peak_current_bytes)" "without the memory controller, memory.current is missing (null), not 0"
is_null "$(fig "$DB" "$run" cg_peak_bytes)" "and so is memory.peak"
is "$(sql "$DB" "select cgroup_path from runs where id=$run")" = $CG/nomem.slice/x.service \
	"the run still names the process's cgroup"
anon=$(fig "$DB" "$run" peak_anon_bytes)
# (RssAnon from /proc/PID/status: the kernel batches a task's RSS counts,
# so it may lag the pages touched by a few dozen)
is "${anon:-0}" -ge $((15 * 1048576)) "the process tree's own figures are still there" "$(cat "$T/err")"
"$TM" report -o "$DB" "$run" >"$T/rep"
test_expect "the report says n/a for them" 'grep -q '\''n/a'\'' "$T/rep" || test_why "$(cat "$T/rep")"'
finish
