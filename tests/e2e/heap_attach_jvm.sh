#!/bin/sh
# heap attach to a running JVM (docs/heap.md "Attach"): HotSpot takes its
# malloc through libjvm.so's relocation entries, which the agent rewrites.
# A JVM churning direct byte buffers (tests/progs/java/NativeChurn.java) is
# attached by `record -p PID --heap` for 3 s (the allocations since the
# attach are counted, the live heap is there), then by `heap attach` and let
# go by `heap detach`; it keeps running and ends with its normal output and
# exit code; the agent's thread is gone after each detach.
. "$(dirname "$0")/../lib.sh"

AGENT=$TM_BUILD/libtidemark-heap-attach.so
if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
	skip attach_jvm "no java/javac (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
if [ ! -r "$AGENT" ]; then
	fail attach_jvm_build "missing $AGENT (make all)"
	finish
fi
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
javac -d "$T" "$TM_ROOT/tests/progs/java/NativeChurn.java" ||
	{ fail attach_jvm_java_builds "javac failed"; finish; }
fig() { "$TM" report -o "$1" --json | python3 -c "import json,sys; v=json.load(sys.stdin)['figures'].get('$2'); print('null' if v is None else int(v))"; }
agent_thread() { cat /proc/"$1"/task/*/comm 2>/dev/null | grep -qx tidemark-attach; }
no_agent_thread() { kill -0 "$1" 2>/dev/null && ! agent_thread "$1"; }
started() { grep -q churning "$1"; }

ref=$(timeout -k 5 60 java -cp "$T" NativeChurn 64 1 2>&1)
echo "# reference: $ref"
# the JVM (not a wrapper) churns until $T/end exists, at most 120 s
java -cp "$T" NativeChurn 64 120 "$T/end" >"$T/out" 2>&1 &
pid=$!
wait_for 60 started "$T/out"
"$TM" record -o "$T/r.db" -p "$pid" --heap -i 200ms --timeout 3s >/dev/null 2>"$T/rec.err"
allocs=$(fig "$T/r.db" heap_allocs)
live=$(fig "$T/r.db" heap_live_end_bytes)
test_expect attach_jvm_record '
	grep -q "attached the heap agent to $pid" "$T/rec.err" && grep -q "detached the heap agent" "$T/rec.err" &&
	[ "$allocs" != null ] && [ "$allocs" -gt 0 ] && [ "$live" != null ] && [ "$live" -gt 0 ] ||
	test_why "allocations since the attach $allocs, live at the end $live; $(grep -v cgroup "$T/rec.err" | head -3)"'
test_expect attach_jvm_record_detached '
	wait_for 3 no_agent_thread "$pid" ||
	test_why "alive: $(kill -0 "$pid" && echo yes), agent thread: $(agent_thread "$pid" && echo yes)"'

out=$("$TM" heap attach "$pid" 2>&1)
sleep 1
st=$("$TM" heap stats "$pid" 2>&1 | head -1)
det=$("$TM" heap detach "$pid" 2>&1)
test_expect attach_jvm_attach_detach '
	echo "$out" | grep -q "attached to $pid" && echo "$st" | grep -qE "allocated [0-9.]+ MiB in [1-9]" &&
	echo "$det" | grep -q "detached from $pid" && wait_for 3 no_agent_thread "$pid" ||
	test_why "$out / $st / $det"'

touch "$T/end"
wait "$pid"
rc=$?
check_eq attach_jvm_output "$(cat "$T/out") rc=$rc" "$ref rc=0"
finish
