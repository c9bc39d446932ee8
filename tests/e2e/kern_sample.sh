#!/bin/sh
# The kernel readers end to end, through build/tm-sample (bench/sampler/tm_sample.c):
# a real process's RssAnon against its own /proc/PID/status, a fixture proc
# root, a fresh limited cgroup (limit read back from the kernel's own file),
# a real OOM kill confirmed by oom_kill, no cgroup left behind, bad arguments.
. "$(dirname "$0")/../lib.sh"
S=$TM_BUILD/tm-sample
PY=$(command -v /usr/bin/python3 || command -v python3 || true)

if [ ! -x "$S" ]; then
	fail kern_probe_built "no $S (make build/tm-sample)"
	exit 1
fi

# value NAME FILE: the number after NAME in "name value" lines
value() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

# --- a real process: 48 MiB touched; RssAnon as the kernel shows it ---------
if [ -n "$PY" ]; then
	"$PY" -c 'import time; x = bytearray(48 << 20); x[::4096] = b"x" * (12 << 10); open("'"$T"'/ready", "w").close(); time.sleep(60)' &
	pid=$!
	i=0
	while [ ! -e "$T/ready" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	"$S" pid $pid >"$T/pid.out" 2>&1
	kb=$(awk '/^RssAnon:/ { print $2 }' /proc/$pid/status)
	kill $pid
	wait $pid 2>/dev/null
	ours=$(value proc_rss_anon_bytes "$T/pid.out")
	test_expect kern_pid_rss_anon_matches_status '
		[ -n "$ours" ] && [ -n "$kb" ] &&
		awk -v a="$ours" -v b="$kb" "BEGIN { d = a - b * 1024; if (d < 0) d = -d; exit !(d <= b * 1024 / 100) }" ||
		test_why "ours=$ours status=${kb}kB"'
	ours_mib=$(awk -v a="$ours" 'BEGIN { printf "%d", a / 1048576 }')
	test_expect kern_pid_rss_anon_48mib '
		[ "$ours_mib" -ge 48 ] && [ "$ours_mib" -le 64 ] ||
		test_why "RssAnon ${ours_mib} MiB"'
	check kern_pid_one_process test "$(value proc_count "$T/pid.out")" = 1
else
	skip kern_pid_rss_anon_matches_status "no python3"
fi

# --- a fixture proc root ---------------------------------------------------
"$S" pid 8439 --proc-root "$TM_ROOT/tests/fixtures/procfs/proc" --no-host >"$T/fx.out" 2>&1
check kern_fixture_count test "$(value proc_count "$T/fx.out")" = 3
check kern_fixture_rss test "$(value proc_rss_bytes "$T/fx.out")" = $(((1716 + 1796 + 32816) * 1024))
test_expect kern_fixture_no_host '! grep -q "^host_" "$T/fx.out" || test_why "host metrics with --no-host"'

# --- bad arguments: a message and exit 2 (no root needed) --------------------------------------
check_fails kern_bad_pid "bad pid" "$S" pid abc
check_fails kern_bad_size "bad size" "$S" run --max 12Q -- true
"$S" --help >"$T/help.out" 2>&1
check kern_help_examples grep -q 'examples:' "$T/help.out"

# --- fresh cgroups (root and a cgroup memory controller) ---------------------
if [ "$(id -u)" != 0 ] || ! grep -qE ' - cgroup2? ' /proc/self/mountinfo; then
	skip kern_cgroup_limit "needs root and cgroups"
	finish
fi
"$S" run --max 64M --high 32M -- sh -c 'exit 3' >"$T/run.out" 2>&1
dir=$(value cgroup "$T/run.out")
check kern_run_exit_code grep -qx 'exit 3' "$T/run.out"
check kern_run_limit_value test "$(value cg_max_bytes "$T/run.out")" = 67108864
check kern_run_limits_json grep -q '"memory_max":{"requested":67108864,"file":"memory\.\(limit_in_bytes\|max\)","value":67108864' "$T/run.out"
test_expect kern_run_cgroup_removed '[ -n "$dir" ] && [ ! -d "$dir" ] || test_why "'\''$dir'\'' still there"'

if [ -n "$PY" ]; then
	"$S" run --max 50M -- "$PY" -c 'x = bytearray(200 << 20); x[::4096] = b"x" * (50 << 10)' >"$T/oom.out" 2>&1
	check kern_oom_killed grep -qx 'signal 9' "$T/oom.out"
	check kern_oom_kill_counted test "$(value cg_events_oom_kill "$T/oom.out")" = 1
	peak=$(value cg_peak_bytes "$T/oom.out")
	check kern_oom_peak_at_limit test "${peak:-0}" -ge $((45 << 20)) -a "${peak:-0}" -le $((50 << 20))
else
	skip kern_oom_kill_counted "no python3"
fi

finish
