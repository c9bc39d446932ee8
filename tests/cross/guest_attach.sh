# Runs inside the arm64 guest (scripts/arm64-guest.sh run), under the arm64
# busybox sh, as root: `tidemark heap attach` on a real arm64 kernel, where
# ptrace works (qemu-user does not emulate it).  The aarch64 build's
# injector loads the aarch64 agent into heap_attach_loop while it runs;
# `heap stats` gives the live heap, compared with the program's own sum of
# malloc_usable_size; `heap detach`; the program goes on and ends with the
# output it gives without an attach (REF, computed by the host under
# qemu-aarch64).  Prints TAP; tests/e2e/aarch64_attach.sh starts it.
# usage: guest_attach.sh HOLD_KIB STEPS REF
set -u
ok() { echo "ok - $*"; }
fail() { echo "not ok - $1"; shift; [ $# -gt 0 ] && echo "# $*"; return 0; }
HOLD=$1 STEPS=$2 REF=$3
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
wait_for 60 test -s $S/st || fail arm64_attach_started "no state file within 60 s"
out=$("$TM" heap attach "$pid" 2>&1)
rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -qE "attached to $pid: .* stopped [0-9.]+ ms" && loaded "$pid"; then
	ok "arm64_attach ($(echo "$out" | head -1))"
else
	fail arm64_attach "exit $rc: $out; agent mapped: $(loaded "$pid" && echo yes || echo no)"
fi
sleep 1
if ask $S/st; then
	self=$(cut -d' ' -f1 $S/st)
	blocks=$(cut -d' ' -f3 $S/st)
	live=$(live_of "$pid")
	rm -f $S/st.req
	# docs/heap.md "Attach": glibc's in-use figure counts each block's 8-byte
	# header, and the chunks in the thread's tcache (7 of each of its 64
	# sizes, 32..1040 bytes: 240128 bytes at most), + 16 KiB (stdio's buffers)
	bound=$((blocks * 8 + 240128 + 16384))
	diff=$((${live:-0} - self))
	[ "$diff" -lt 0 ] && diff=$((-diff))
	if [ -n "$live" ] && [ "$diff" -le "$bound" ]; then
		ok "arm64_attach_live (agent $live, program's own $self, |diff| $diff <= $bound)"
	else
		fail arm64_attach_live "agent live '$live', program's own $self, |diff| $diff > $bound; $("$TM" heap stats "$pid" 2>&1 | head -5)"
	fi
else
	rm -f $S/st.req
	fail arm64_attach_live "the program did not answer within 60 s"
fi
out=$("$TM" heap detach "$pid" 2>&1)
rc=$?
st=$("$TM" heap stats "$pid" 2>&1)
if [ $rc -eq 0 ] && echo "$out" | grep -q "detached from $pid" && echo "$st" | grep -q "(detached)"; then
	ok "arm64_detach ($out)"
else
	fail arm64_detach "exit $rc: $out; stats: $st"
fi
# still allocating after the detach: its step count moves on (it counts
# again from 1 once its counted steps are done: a change, not a rise)
before=$(cut -d' ' -f2 $S/st)
sleep 1
if ask $S/st && [ "$(cut -d' ' -f2 $S/st)" != "$before" ]; then
	ok "arm64_detach_running (steps $before, then $(cut -d' ' -f2 $S/st))"
else
	fail arm64_detach_running "steps $before, then '$(cut -d' ' -f2 $S/st 2>/dev/null)'; alive: $(kill -0 $pid && echo yes)"
fi
rm -f $S/st.req
touch $S/st.end
wait "$pid"
rc=$?
got="$(cat $S/out) rc=$rc"
if [ "$got" = "$REF rc=0" ]; then
	ok "arm64_attach_output_unchanged ($got)"
else
	fail arm64_attach_output_unchanged "expected: $REF rc=0; actual: $got"
fi
