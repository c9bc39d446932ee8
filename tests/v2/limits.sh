#!/bin/sh
# Fresh cgroups on a real cgroup v2 kernel: each limit written and what the
# kernel made of it, memory.peak against the recorded figures, an OOM kill
# and memory.events as events, all checked against the kernel's own files.
. "$(dirname "$0")/lib.sh"
DB=$T/l.db
PARENT=$CG/tidemark

# What the run's own cgroup says, read from inside it: its limits before the
# work, memory.peak and memory.events after.
cat >"$T/self.sh" <<'SH'
d=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
cat "$d/memory.max" "$d/memory.high" "$d/memory.swap.max" >"$OUT/limits"
"$@" >/dev/null
cat "$d/memory.peak" >"$OUT/peak"
echo "$d" >"$OUT/dir"
SH

# 1. limits: unaligned limits are rounded down to pages by the kernel.
#    The work holds its 64 MiB for 2 s, 20 intervals: the guest is emulated
#    (TCG), and on a busy host its recorder was once not scheduled for all
#    of a 400 ms hold, so the samples missed the peak and peak anon was,
#    rightly, n/a (summary_acc.c's kernel_peak)
OUT=$T "$TM" record -q -o "$DB" -i 100ms --memory-max 100000000 --memory-high 83886081 \
	--swap-max 50000001 \
	-- sh "$T/self.sh" "$P" 64 2000
rc=$?
run=$(last_run "$DB")
is "$rc" -eq 0 "a 64 MiB run under 95 MiB completes"
mode=$(sql "$DB" "select cgroup_mode from runs where id=$run")
is "$mode" = v2 "the run says cgroup v2"
set -- $(cat "$T/limits")
is "$1" = 99999744 "memory.max holds the request rounded down to pages"
is "$2" = 83886080 "memory.high holds the request rounded down to pages (80 MiB)"
is "$3" = 49999872 "memory.swap.max holds the request rounded down to pages"
lim=$(sql "$DB" "select limits_json from runs where id=$run")
got=$(echo "$lim" | python3 -c '
import json, sys
l = json.load(sys.stdin)
print(" ".join(str(l[k]["requested"]) + ":" + l[k]["file"] + ":" + str(l[k]["value"])
               for k in ("memory_max", "memory_high", "swap_max")))')
is "$got" = "100000000:memory.max:99999744 83886081:memory.high:83886080 50000001:memory.swap.max:49999872" \
	"the run says what each limit became (requested, file, value)" "$lim"
is "$(series "$DB" "$run" cg_max_bytes | sort -u | tr '\n' ' ')" = "99999744 " \
	"every sample's cg_max_bytes is the kernel's memory.max"
is "$(series "$DB" "$run" cg_swap_max_bytes | sort -u | tr '\n' ' ')" = "49999872 " \
	"every sample's cg_swap_max_bytes is the kernel's memory.swap.max"
test_expect "the run's cgroup is removed after it" '[ ! -d "$(cat "$T/dir")" ] || test_why "$(cat "$T/dir")"'

# 2. memory.peak: the recorded kernel peak is memory.peak as the run's
#    cgroup last showed it; peak anon is under it and close (anon is most of
#    a malloc-and-touch program's charge)
kpeak=$(cat "$T/peak")
cgpeak=$(fig "$DB" "$run" cg_peak_bytes)
anon=$(fig "$DB" "$run" peak_anon_bytes)
is "$cgpeak" -ge "$kpeak" "the recorded memory.peak is at least the kernel's at the work's end" "kernel $kpeak"
is "$cgpeak" -le $((kpeak + 1048576)) "the recorded memory.peak is the kernel's (+1 MiB of sh)" "kernel $kpeak"
# (when one fails: the report's anon lines, which say why a peak is n/a,
# and the samples' memory.current)
why="memory.peak $kpeak; $("$TM" report -o "$DB" "$run" | grep -A2 '^  anon' | tr -s ' \n' ' ');\
 memory.current: $(series "$DB" "$run" cg_current_bytes | tr '\n' ' ')"
is "$anon" -le "$kpeak" "peak anon is under memory.peak" "$why"
is "$anon" -ge $((kpeak - 4194304)) "peak anon is within 4 MiB of memory.peak" "$why"
# (the kernel flushes memory.stat in batches of up to 64 pages a CPU)
is "$anon" -ge $((63 * 1048576)) "peak anon holds the 64 MiB touched (-1 MiB)" "$why"

# 2b. khugepaged (THP "always", Debian's default, as in this guest): it
#    collapses the program's small pages into huge ones, charging each new
#    huge page before it frees the pages it copied, so memory.peak passes the
#    steady memory.current by a huge page while anon never grew (the CI run
#    that failed case 2: memory.peak 66.9 MiB, every sample 64.9).  Scanning
#    every 100 ms (the default is 10 s) makes it happen in every run: the
#    anon peak stands, and the report says why memory.peak is above it.
K=/sys/kernel/mm/transparent_hugepage
if [ "$(cat $K/enabled)" = "[always] madvise never" ]; then
	scan=$(cat $K/khugepaged/scan_sleep_millisecs)
	echo 100 >$K/khugepaged/scan_sleep_millisecs
	# (at -i 1s: at 100 ms a sample often catches memory.current inside a
	# collapse, and memory.peak is then no higher than the samples')
	OUT=$T "$TM" record -q -o "$DB" -i 1s -- sh "$T/self.sh" "$P" 64 3000
	echo "$scan" >$K/khugepaged/scan_sleep_millisecs
	run=$(last_run "$DB")
	kpeak=$(cat "$T/peak")
	hpage=$(cat $K/hpage_pmd_size)
	anon=$(fig "$DB" "$run" peak_anon_bytes)
	cur=$(series "$DB" "$run" cg_current_bytes | sort -n | tail -1)
	"$TM" report -o "$DB" "$run" >"$T/rep"
	why="memory.peak $kpeak, samples' memory.current $cur, huge page $hpage; $(grep -A3 '^  anon' "$T/rep" | tr -s ' \n' ' ')"
	n=$(fig "$DB" "$run" thp_collapses)
	is "$n" -ge 1 "khugepaged's collapses are counted (memory.stat thp_collapse_alloc)" "$why"
	is "$(fig "$DB" "$run" hpage_bytes)" = "$hpage" "the host's huge page is recorded (hpage_pmd_size)"
	is "$anon" -ge $((63 * 1048576)) "with collapses, peak anon is a number and holds the 64 MiB touched (-1 MiB)" "$why"
	is "$anon" -ge $((kpeak - hpage - 4194304)) "peak anon is within a huge page and 4 MiB of memory.peak" "$why"
	# (above noise, as the summary's tm_anon_fell_steeply: 1 MiB and 2 %)
	if [ $((kpeak - cur)) -ge 1048576 ] && [ $((cur * 50)) -lt $((kpeak * 49)) ]; then
		test_expect "the report says memory.peak is above the samples by a collapse's huge page" \
			'grep -q "khugepaged charges before freeing" "$T/rep" || test_why "$why"'
	else
		skip "the report's collapse line" "memory.peak $kpeak was within noise of the samples' $cur this run"
	fi
else
	skip "khugepaged's collapse" "THP is not 'always' here ($(cat $K/enabled))"
fi

# 3. OOM: 200 MiB under a 64 MiB memory.max without swap. The parent's
#    memory.events is hierarchical: its change over the run is the run's.
ev() { kv "$PARENT/memory.events" "$1"; }
b_max=$(ev max) b_oom=$(ev oom) b_kill=$(ev oom_kill)
start=$(date +%s%6N)
"$TM" record -q -o "$DB" -i 100ms --memory-max 64M --swap-max 0 -- "$P" 200 2000 2>"$T/err"
rc=$?
end=$(date +%s%6N)
run=$(last_run "$DB")
is "$rc" -eq 137 "record exits 128+9 for the OOM-killed child" "$(cat "$T/err")"
is "$(sql "$DB" "select outcome from runs where id=$run")" = oom-killed "the run is recorded as oom-killed"
"$TM" report -o "$DB" "$run" >"$T/rep"
test_expect "the report says the kill is confirmed by the oom_kill counter" 'grep -q '\''oom-killed (confirmed by the oom_kill counter)'\'' "$T/rep" || test_why "$(cat "$T/rep")"'
d_kill=$(($(ev oom_kill) - b_kill)) d_oom=$(($(ev oom) - b_oom)) d_max=$(($(ev max) - b_max))
is "$d_kill" -ge 1 "the kernel counted the OOM kill"
is "$(fig "$DB" "$run" oom_kills)" = "$d_kill" "oom kills recorded = memory.events oom_kill"
is "$(fig "$DB" "$run" oom_events)" = "$d_oom" "oom events recorded = memory.events oom"
rmax=$(fig "$DB" "$run" max_events)
is "$rmax" -ge 1 "max events are recorded"
is "$rmax" -le "$d_max" "max events recorded are no more than memory.events max" "kernel $d_max"
for k in oom_kill oom max_hit; do
	n=$(sql "$DB" "select count(*) from events where run_id=$run and kind='$k'
		and t_wall_usec between $start and $end")
	all=$(sql "$DB" "select count(*) from events where run_id=$run and kind='$k'")
	test_expect "memory.events '$k' is recorded as events timed within the run ($n)" '[ "$n" -ge 1 ] && [ "$n" = "$all" ] || test_why "$n of $all in [$start, $end]"'
done
sum=$(sql "$DB" "select sum(value) from events where run_id=$run and kind='oom_kill'")
is "$sum" = "$d_kill" "the oom_kill events add up to the kernel's count"
peak_cur=$(fig "$DB" "$run" peak_current_bytes)
# the kernel charges a task the OOM killer chose past the limit ("force"
# in mm/memcontrol.c's try_charge: the memory is freed very soon), so the
# peak may pass memory.max by a few pages while the victim exits (18 pages
# in one run); 1 MiB bounds that and is far below what one more step of the
# program would add
is "$peak_cur" -le $((67108864 + 1048576)) "memory.current never exceeds memory.max (but for the kernel's forced charge of an exiting OOM victim, under 1 MiB)"

# 4. the same kill at the default 1 s interval, growing 1 MiB every 2 ms
#    (issue 19): killed between two samples.  No headline peak is below
#    memory.peak, memory.events max hits are a number, and "held after the
#    work" is n/a: there is no after
"$TM" record -q -o "$T/oom1.db" --memory-max 64M --swap-max 0 -- "$P" 200 2000 1024 2 2>"$T/err"
why=$("$TM" report -o "$T/oom1.db" --json | python3 -c '
import json, sys
d = json.load(sys.stdin); f = d["figures"]
k = f["cg_peak_bytes"]
bad = []
if d["run"]["outcome"] != "oom-killed": bad.append("outcome %s" % d["run"]["outcome"])
if k is None or k < 60 * 2**20: bad.append("memory.peak %s" % k)
for name in ("peak_current_bytes", "peak_anon_bytes"):
    v = f[name]
    if v is not None and k is not None and v < k * 0.98 - 2**20:
        bad.append("%s %s below memory.peak %s" % (name, v, k))
if f["peak_current_bytes"] is None: bad.append("peak_current_bytes null")
if not f["max_events"]: bad.append("memory.max hits %s" % f["max_events"])
if f["held_anon_bytes"] is not None: bad.append("held after %s" % f["held_anon_bytes"])
print("; ".join(bad) or "ok")')
is "$why" = ok "an OOM kill between two samples: no peak below memory.peak, max hits counted, no held after"
finish
