#!/bin/sh
# heap attach: the agent loaded into running programs through ptrace.
# Outputs and exit codes unchanged (a C loop, python3, a multithreaded C++
# program, redis-server under redis-benchmark), the live heap after attach
# against the program's own sum of malloc_usable_size (and the shim started
# with it), detach (by command, at record's end, when the recorder dies),
# every step failed on purpose leaving the process as it was, and the
# refusals: another tracer, a seccomp filter, a static binary.
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs
AGENT=$TM_BUILD/libtidemark-heap-attach.so
if [ ! -r "$AGENT" ] || [ ! -x "$P/heap_attach_loop" ]; then
	fail attach_build "missing $AGENT or $P/heap_attach_* (make heap-progs)"
	finish
fi
T=$(mktemp -d /tmp/tm-attach.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
STEPS=1500000
HOLD=8000
loaded() { grep -q libtidemark-heap-attach "/proc/$1/maps"; }
state_ready() { [ -s "$1" ]; }

ref=$("$P/heap_attach_loop" $HOLD $STEPS)
echo "# reference: $ref"

# --- attach, the live figure, detach -----------------------------------------
rm -f "$T/st.end"
"$P/heap_attach_loop" $HOLD $STEPS "$T/st" >"$T/out" &
pid=$!
wait_for 10 state_ready "$T/st"
out=$("$TM" heap attach "$pid" 2>&1)
test_expect attach_c_loop '
	echo "$out" | grep -qE "attached to $pid: .* stopped [0-9.]+ ms" && loaded "$pid" || test_why "$out"'
echo "# $(echo "$out" | head -1)"
sleep 1
# the program writes its own figure and waits while we read the agent's
held_still() { [ "$(cut -d' ' -f2 "$1")" != 0 ]; }
touch "$T/st.req"
wait_for 10 held_still "$T/st"
self=$(cut -d' ' -f1 "$T/st")
blocks=$(cut -d' ' -f3 "$T/st")
live=$("$TM" heap stats "$pid" --json | sed -n 's/.*"live_bytes":\([0-9-]*\).*/\1/p')
rm -f "$T/st.req"
# docs/heap.md "Attach": glibc's in-use figure counts each block's 8-byte
# header, and the chunks in the thread's tcache (7 of each of its 64 sizes,
# 32..1040 bytes: 240128 bytes at most), + 16 KiB (stdio's buffers)
bound=$((blocks * 8 + 240128 + 16384))
diff=$((live - self))
[ "$diff" -lt 0 ] && diff=$((-diff))
test_expect "attach_live_exact agent $live, program $self, |diff| $diff <= $bound" '
	[ -n "$live" ] && [ "$diff" -le "$bound" ] ||
	test_why "agent live '\''$live'\'', program'\''s own $self, |diff| $diff > $bound"'
check_fails attach_twice "attached already" "$TM" heap attach "$pid"
out=$("$TM" heap detach "$pid" 2>&1)
test_expect detach_command '
	echo "$out" | grep -q "detached from $pid" && "$TM" heap stats "$pid" | grep -q "(detached)" ||
	test_why "$out"'
check_fails detach_twice "not attached" "$TM" heap detach "$pid"
touch "$T/st.end"
wait "$pid"
rc=$?
check_eq attach_c_output "$(cat "$T/out") rc=$rc" "$ref rc=0"

# the shim started with the same program: its error against the program's own
LD_PRELOAD=$TM_BUILD/libtidemark-heap.so "$P/heap_attach_loop" $HOLD $STEPS "$T/st2" >/dev/null &
spid=$!
wait_for 10 state_ready "$T/st2"
sleep 1
touch "$T/st2.req"
wait_for 10 held_still "$T/st2"
slive=$("$TM" heap stats "$spid" --json | sed -n 's/.*"live_bytes":\([0-9-]*\).*/\1/p')
sself=$(cut -d' ' -f1 "$T/st2")
rm -f "$T/st2.req"
touch "$T/st2.end"
wait "$spid"
echo "# shim from the start: live $slive, program's own $sself (attach: $live against $self)"

# --- every step failed on purpose -----------------------------------------------
rm -f "$T/st"
rm -f "$T/st.end"
"$P/heap_attach_loop" $HOLD $STEPS "$T/st" >"$T/out" &
pid=$!
wait_for 10 state_ready "$T/st"
# (the test build's hook: build/tests/tidemark-hooks, with the agent of the
# build beside it named; the installed tool reads no such variable)
TMH=$TM_BUILD/tests/tidemark-hooks
for n in 1 2 3 4 5 6 7; do
	out=$(TIDEMARK_ATTACH_FAIL_AT=$n TIDEMARK_HEAP_ATTACH_LIB=$TM_BUILD/libtidemark-heap-attach.so \
		"$TMH" heap attach "$pid" 2>&1)
	rc=$?
	test_expect "attach_fail_at_$n" '
		[ $rc -ne 0 ] && echo "$out" | grep -q "step $n .* failed on purpose" && ! loaded "$pid" &&
		kill -0 "$pid" && ! "$TM" heap stats "$pid" >/dev/null 2>&1 ||
		test_why "exit $rc: $out; agent loaded: $(loaded "$pid" && echo yes)"'
done
out=$(TIDEMARK_ATTACH_FAIL_AT=1 "$TM" heap attach "$pid" 2>&1)
rc=$?
"$TM" heap detach "$pid" >/dev/null 2>&1
test_expect attach_fail_at_not_in_the_tool '
	[ $rc -eq 0 ] && echo "$out" | grep -q "attached to $pid" ||
	test_why "exit $rc: $out"'
touch "$T/st.end"
wait "$pid"
rc=$?
check_eq attach_failed_steps_output "$(cat "$T/out") rc=$rc" "$ref rc=0"

# --- dry run ----------------------------------------------------------------------
sleep 30 &
spid=$!
# once it is sleep: right after the fork it may still be mid-exec (no libc mapped yet)
is_sleep() { readlink "/proc/$spid/exe" | grep -q 'sleep$' && grep -q 'libc' "/proc/$spid/maps"; }
wait_for 10 is_sleep
out=$("$TM" heap attach --dry-run "$spid" 2>&1)
test_expect attach_dry_run '
	echo "$out" | grep -q "would attach to $spid" && echo "$out" | grep -q "dlopen at 0x" &&
	! loaded "$spid" ||
	test_why "$out"'

# --- refusals -----------------------------------------------------------------------
if command -v strace >/dev/null; then
	strace -p "$spid" -o /dev/null &
	st=$!
	wait_for 5 sh -c "grep -q 'TracerPid:[[:space:]]*[1-9]' /proc/$spid/status"
	check_fails attach_refuses_tracer "another tracer is attached" "$TM" heap attach "$spid"
	kill "$st"
	wait "$st" 2>/dev/null
else
	skip attach_refuses_tracer "no strace"
fi
kill "$spid"
"$P/heap_attach_seccomp" 20 &
spid=$!
wait_for 5 sh -c "grep -q 'Seccomp:[[:space:]]*2' /proc/$spid/status"
check_fails attach_refuses_seccomp "seccomp filter" "$TM" heap attach "$spid"
kill "$spid"
"$P/heap_attach_static" 100 100000000 >/dev/null &
spid=$!
sleep 0.3
check_fails attach_refuses_static "no dlopen" "$TM" heap attach "$spid"
kill "$spid"
check_fails attach_refuses_self "no process" "$TM" heap attach 4194000

# --- record -p PID --heap, and the recorder killed --------------------------------------
rm -f "$T/st"
rm -f "$T/st.end"
"$P/heap_attach_loop" $HOLD $STEPS "$T/st" >"$T/out" &
pid=$!
wait_for 10 state_ready "$T/st"
out=$("$TM" record --db "$T/r.db" -p "$pid" --heap -i 200ms --timeout 2s 2>&1)
heap_line=$("$TM" report --db "$T/r.db" 2>&1 | grep -A1 "anon after")
test_expect record_pid_heap '
	echo "$out" | grep -q "attached the heap agent to $pid" && echo "$out" | grep -q "detached" &&
	echo "$heap_line" | grep -qE "live heap [1-9]" ||
	test_why "$out / $heap_line"'
"$TM" record --db "$T/r2.db" -p "$pid" --heap -i 200ms --timeout 60s >/dev/null 2>&1 &
rec=$!
wait_for 10 sh -c "\"$TM\" heap stats $pid 2>/dev/null | grep -q '(running)'"
kill -9 "$rec"
wait "$rec" 2>/dev/null
test_expect recorder_killed_detaches '
	wait_for 3 sh -c "\"$TM\" heap stats $pid | grep -q '\''(detached)'\''" ||
	test_why "$("$TM" heap stats "$pid" 2>&1 | head -1)"'
touch "$T/st.end"
wait "$pid"
rc=$?
check_eq record_pid_output "$(cat "$T/out") rc=$rc" "$ref rc=0"

# --- real programs under load ---------------------------------------------------------------
# with TM_END set, it goes on allocating (outside the figures it prints)
# until that file exists, so the attach finds it busy on any machine
PY='import os, time
d = {}
s = 0
for i in range(1500000):
    d[i % 50000] = {"k": i, "v": str(i) * 3}
    s = (s * 31 + len(d[i % 50000]["v"])) % 1000000007
end, give_up = os.environ.get("TM_END"), time.time() + 120
while end and not os.path.exists(end) and time.time() < give_up:
    for j in range(1000):
        d[j] = {"k": j, "v": str(j) * 3}
print(len(d), s)'
PY3=/usr/bin/python3 # not a wrapper script (pyenv's): the pid must be python's
pyref=$($PY3 -c "$PY")
TM_END="$T/py.end" $PY3 -c "$PY" >"$T/py" &
pid=$!
sleep 0.8
out=$("$TM" heap attach "$pid" 2>&1)
"$TM" heap stats "$pid" >"$T/pystats" 2>&1
"$TM" heap detach "$pid" >/dev/null 2>&1
touch "$T/py.end"
wait "$pid"
rc=$?
test_expect attach_python3 '
	echo "$out" | grep -q "attached to $pid" && grep -qE "live [1-9]" "$T/pystats" &&
	[ "$(cat "$T/py") rc=$rc" = "$pyref rc=0" ] ||
	test_why "$out / $(head -1 "$T/pystats") / $(cat "$T/py") rc=$rc vs $pyref"'

# a fork child of an attached process is not attached: no region of its own
cat >"$T/fork.py" <<'PYEOF'
import os, time
time.sleep(1.0)
pid = os.fork()
if pid == 0:
    x = [bytearray(1000) for i in range(20000)]
    region = "/dev/shm/tidemark-heap-%d/%d" % (os.geteuid(), os.getpid())
    print("child region", os.path.exists(region), flush=True)
    os._exit(0)
os.waitpid(pid, 0)
print("parent done", flush=True)
PYEOF
$PY3 "$T/fork.py" >"$T/fork" &
pid=$!
sleep 0.3
out=$("$TM" heap attach "$pid" 2>&1)
wait "$pid"
rc=$?
check_eq attach_fork_child "$(cat "$T/fork") rc=$rc" "child region False
parent done rc=0"

mtref=$("$P/heap_attach_mt" 1500000)
"$P/heap_attach_mt" 1500000 "$T/mt.end" >"$T/mt" &
pid=$!
sleep 0.5
out=$("$TM" heap attach "$pid" 2>&1)
sleep 0.5
"$TM" heap stats "$pid" >"$T/mtstats" 2>&1
"$TM" heap detach "$pid" >/dev/null 2>&1
touch "$T/mt.end"
wait "$pid"
rc=$?
test_expect attach_cxx_threads '
	echo "$out" | grep -q "attached to $pid" && grep -qE "allocated [0-9.]+ MiB in [1-9]" "$T/mtstats" &&
	[ "$(cat "$T/mt") rc=$rc" = "$mtref rc=0" ] ||
	test_why "$out / $(head -1 "$T/mtstats") / $(cat "$T/mt") rc=$rc vs $mtref"'

# the thread stopped for the calls was in its own code with values in its
# vector registers, which dlopen uses too: they are put back with the rest
# (before, the sum came out 0.0: xmm0 and xmm1 cleared under it)
"$P/heap_attach_fp" 3 >"$T/fp" &
pid=$!
sleep 0.3
out=$("$TM" heap attach "$pid" 2>&1)
wait "$pid"
rc=$?
test_expect attach_keeps_vector_registers '
	echo "$out" | grep -q "attached to $pid" && [ "$(cat "$T/fp") rc=$rc" = "sum kept rc=0" ] ||
	test_why "attach: $out / the program: $(cat "$T/fp") rc=$rc (wanted: sum kept rc=0)"'

if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null; then
	redis-server --port 0 --unixsocket "$T/redis.sock" --save "" --appendonly no \
		--daemonize no >"$T/redis.log" 2>&1 &
	rpid=$!
	wait_for 10 test -S "$T/redis.sock"
	redis-benchmark -s "$T/redis.sock" -n 100000 -q -t set,get,lpush >"$T/bench" 2>&1 &
	bpid=$!
	sleep 0.5
	out=$("$TM" heap attach "$rpid" 2>&1)
	"$TM" heap stats "$rpid" >"$T/rstats" 2>&1
	wait "$bpid"
	brc=$?
	"$TM" heap detach "$rpid" >/dev/null 2>&1
	pong=$(redis-cli -s "$T/redis.sock" ping 2>&1)
	redis-cli -s "$T/redis.sock" shutdown nosave >/dev/null 2>&1
	wait "$rpid"
	rrc=$?
	test_expect attach_redis_under_benchmark '
		echo "$out" | grep -q "attached to $rpid" && [ "$brc" = 0 ] && [ "$pong" = PONG ] &&
		[ "$rrc" = 0 ] && grep -qE "live [0-9.]+ MiB" "$T/rstats" ||
		test_why "$out / bench rc $brc / ping $pong / redis rc $rrc"'
else
	skip attach_redis_under_benchmark "no redis-server or redis-benchmark"
fi
finish
