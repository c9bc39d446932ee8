# Runs inside the arm64 guest (scripts/arm64-guest.sh run), under the arm64
# busybox sh, as root: `tidemark heap attach` on a real arm64 kernel, where
# ptrace works (qemu-user does not emulate it).  The aarch64 build's
# injector loads the aarch64 agent into heap_attach_loop while it runs;
# `heap stats` gives the live heap, compared with the program's own sum of
# malloc_usable_size; `heap detach`; the program goes on and ends with the
# output it gives without an attach (REF, computed by the host under
# qemu-aarch64).  Then the statistics path: static_je (Debian's arm64
# libjemalloc.a linked in) attached, `heap stats`' allocated figure against
# the program's own mallctl("stats.allocated"), detached, its output (JE_REF,
# empty: no static_je built) and exit code unchanged.  Also: a program
# stopped with its sum in vector registers keeps it.  Prints TAP;
# tests/e2e/aarch64_attach.sh starts it.
# usage: guest_attach.sh HOLD_KIB STEPS REF [JE_REF]
set -u
# CONDITION; judge NAME $? WHAT: CONDITION's status decides the check
# NAME, named once; WHAT (the values compared) is said either way.  ($? as
# an argument: expanded before WHAT's command substitutions run)
judge() {
	what=$(printf '%s' "$3" | tr '\n' ' ')
	if [ "$2" -eq 0 ]; then
		echo "ok - $1 ($what)"
	else
		echo "not ok - $1"
		echo "# $what"
	fi
}
HOLD=$1 STEPS=$2 REF=$3 JE_REF=${4:-}
TM=$A/tidemark
P=$A/progs
S=/tmp/attach
mkdir -p $S
# wait_for SECONDS CMD...: until CMD succeeds, at most SECONDS
wait_for() {
	n=$(($1 * 10))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}
loaded() { grep -q libtidemark-heap-attach "/proc/$1/maps"; }
held_still() { [ -s "$1" ] && [ "$(cut -d' ' -f2 "$1")" != 0 ]; }
live_of() { "$TM" heap stats "$1" --json 2>&1 | sed -n 's/.*"live_bytes":\([0-9-]*\).*/\1/p'; }
# ask PID's program for its own figure (STATE: "LIVE STEPS BLOCKS"); it
# waits, still, until the .req is removed
ask() {
	rm -f "$1"
	touch "$1.req"
	wait_for 60 held_still "$1"
}

echo "# $(uname -m) $(uname -r), ptrace_scope $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo n/a)"
"$P/heap_attach_loop" "$HOLD" "$STEPS" $S/st >$S/out 2>&1 &
pid=$!
wait_for 60 test -s $S/st || echo "# no state file within 60 s"
out=$("$TM" heap attach "$pid" 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -qE "attached to $pid: .* stopped [0-9.]+ ms" && loaded "$pid"
judge arm64_attach $? "exit $rc: $out; agent mapped: $(loaded "$pid" && echo yes || echo no)"
sleep 1
ask $S/st || echo "# the program did not answer within 60 s"
self=$(cut -d' ' -f1 $S/st 2>/dev/null)
blocks=$(cut -d' ' -f3 $S/st 2>/dev/null)
live=$(live_of "$pid")
rm -f $S/st.req
# docs/heap.md "Attach": glibc's in-use figure counts each block's 8-byte
# header, and the chunks in the thread's tcache (7 of each of its 64
# sizes, 32..1040 bytes: 240128 bytes at most), + 16 KiB (stdio's buffers)
bound=$((${blocks:-0} * 8 + 240128 + 16384))
diff=$((${live:-0} - ${self:-0}))
[ "$diff" -lt 0 ] && diff=$((-diff))
[ -n "$live" ] && [ -n "$self" ] && [ "$diff" -le "$bound" ]
judge arm64_attach_live $? "agent live '$live', program's own '$self', |diff| $diff, at most $bound"
out=$("$TM" heap detach "$pid" 2>&1)
rc=$?
st=$("$TM" heap stats "$pid" 2>&1)
[ $rc -eq 0 ] && echo "$out" | grep -q "detached from $pid" && echo "$st" | grep -q "(detached)"
judge arm64_detach $? "exit $rc: $out; stats: $(echo "$st" | head -1)"
# still allocating after the detach: its step count moves on (it counts
# again from 1 once its counted steps are done: a change, not a rise)
before=$(cut -d' ' -f2 $S/st)
sleep 1
ask $S/st && [ "$(cut -d' ' -f2 $S/st)" != "$before" ]
judge arm64_detach_running $? "steps $before, then '$(cut -d' ' -f2 $S/st 2>/dev/null)'; alive: $(kill -0 $pid && echo yes)"
rm -f $S/st.req
touch $S/st.end
wait "$pid"
rc=$?
got="$(cat $S/out) rc=$rc"
[ "$got" = "$REF rc=0" ]
judge arm64_attach_output_unchanged $? "expected: $REF rc=0; actual: $got"

# the thread stopped for the calls was in its own code with its sum in
# vector registers (d0, d1), which dlopen uses too: put back with the rest
# (NT_PRFPREG); the program ends by itself after 10 s
"$P/heap_attach_fp" 10 >$S/fp.out 2>&1 &
pid=$!
sleep 2
out=$("$TM" heap attach "$pid" 2>&1)
rc=$?
wait "$pid"
prc=$?
[ $rc -eq 0 ] && [ "$(cat $S/fp.out) rc=$prc" = "sum kept rc=0" ]
judge arm64_attach_keeps_vector_registers $? "attach exit $rc: $(echo "$out" | head -1); the program: $(cat $S/fp.out) rc=$prc"

# --- the statistics path: jemalloc linked into the program -------------------
if [ -z "$JE_REF" ]; then
	echo "ok - arm64_attach_static_je # SKIP no $P/static_je (the arm64 libjemalloc.a: sh scripts/deps.sh --test)"
	echo "# arm64 attach job done"
	exit 0
fi
"$P/static_je" 40 25 again $S/je.again >$S/je.out 2>&1 &
pid=$!
wait_for 60 grep -q '^allocated=' $S/je.out || echo "# static_je: no output within 60 s"
mine=$(sed -n 's/^allocated=//p' $S/je.out)
out=$("$TM" heap attach "$pid" 2>&1)
rc=$?
[ $rc -eq 0 ] && echo "$out" | grep -q "attached to $pid" && loaded "$pid"
judge arm64_attach_static_je $? "exit $rc: $out"
js=$("$TM" heap stats "$pid" --json 2>&1)
got=$(echo "$js" | sed -n 's/.*"allocator_allocated_bytes":\([0-9]*\).*/\1/p')
# the program reads its own figure again (SIGUSR1), with what the attach
# added (dlopen's and the agent thread's allocations, and the thread-cache
# fills they caused, bigger with Debian's arm64 jemalloc's 64 KiB pages:
# 549 KiB, docs/heap.md "aarch64")
rm -f $S/je.again
kill -USR1 "$pid"
wait_for 10 test -s $S/je.again
again=$(cat $S/je.again 2>/dev/null)
# docs/heap.md "Allocators linked into the program": within 256 KiB (the
# thread caches, the agent's thread's TLS block and stack bookkeeping)
[ -n "$got" ] && [ -n "$again" ] && [ "$got" -ge $((again - 262144)) ] && [ "$got" -le $((again + 262144)) ]
judge arm64_attach_static_je_allocated $? "agent's answer '$got', the program's own stats.allocated '$again' (within 256 KiB; before the attach $mine); $(echo "$js" | head -c 300)"
out=$("$TM" heap detach "$pid" 2>&1)
rc=$?
agent_thread() { cat /proc/"$1"/task/*/comm 2>/dev/null | grep -qx tidemark-attach; }
no_agent_thread() { kill -0 "$1" 2>/dev/null && ! agent_thread "$1"; }
[ $rc -eq 0 ] && echo "$out" | grep -q "detached from $pid" && wait_for 5 no_agent_thread "$pid"
judge arm64_detach_static_je $? "exit $rc: $out; alive: $(kill -0 $pid && echo yes), agent thread: $(agent_thread $pid && echo yes)"
wait "$pid"
rc=$?
got="$(cat $S/je.out) rc=$rc"
[ "$got" = "$JE_REF rc=0" ]
judge arm64_attach_static_je_output_unchanged $? "expected: $JE_REF rc=0; actual: $got"
echo "# arm64 attach job done"
