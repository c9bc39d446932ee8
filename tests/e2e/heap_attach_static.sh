#!/bin/sh
# heap attach to a program whose allocator is linked into it (docs/heap.md
# "Attach", "An allocator linked into the program"): no relocation entry is
# rewritten; the agent's thread reads the allocator's own statistics at each
# sample.  A C program linked with Debian's libjemalloc.a, attached by
# `record -p PID --heap` while it holds 40 MiB: the live heap against what
# the program read itself through mallctl("stats.allocated"), within the
# documented 256 KiB; its output and exit code unchanged; the agent's thread
# gone after the detach and after the recorder's SIGKILL, the program still
# running.  A stripped one is refused with the reason.  A Rust program with
# #[global_allocator] jemalloc under the _rjem_ prefix (built offline by
# rustc, no crate: tests/progs/rjem_hold.rs), attached the same way.
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs
AGENT=$TM_BUILD/libtidemark-heap-attach.so
if [ ! -r "$AGENT" ]; then
	fail attach_static_build "missing $AGENT (make all)"
	finish
fi
if [ ! -x "$P/static_je" ]; then
	skip attach_static "no $P/static_je: libjemalloc-dev (libjemalloc.a) not installed"
	finish
fi
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
fig() { "$TM" report -o "$1" --json | python3 -c "import json,sys; v=json.load(sys.stdin)['figures'].get('$2'); print('null' if v is None else int(v))"; }
# |A - B| <= 256 KiB (docs/heap.md: the agent's thread's TLS block and stack
# bookkeeping, jemalloc's thread caches)
near() { [ "$1" != null ] && [ -n "$2" ] && [ "$1" -ge $(($2 - 262144)) ] && [ "$1" -le $(($2 + 262144)) ]; }
agent_thread() { cat /proc/"$1"/task/*/comm 2>/dev/null | grep -qx tidemark-attach; }
no_agent_thread() { kill -0 "$1" 2>/dev/null && ! agent_thread "$1"; }
own() { sed -n 's/^allocated=//p' "$1"; }
# PID runs PROG (no longer the shell that forked it)
runs() { [ "$(readlink /proc/"$1"/exe)" = "$(readlink -f "$2")" ]; }

# attach PROG NAME MODE: records PROG (started with "40 15") for 2 s through
# an attach, checks the live heap, the detach and (MODE kill) that a second
# recorder killed lets go too; then its output and exit code
attach_run() {
	prog=$1 name=$2
	ref=$("$prog" 40 00)
	"$prog" 40 15 >"$T/$name.out" &
	pid=$!
	wait_for 20 test -s "$T/$name.out"
	"$TM" record -o "$T/$name.db" -p "$pid" --heap -i 200ms --timeout 2s >/dev/null 2>"$T/$name.err"
	live=$(fig "$T/$name.db" heap_live_peak_bytes)
	mine=$(own "$T/$name.out")
	test_expect "attach_${name}_live" '
		grep -q "attached the heap agent to $pid" "$T/$name.err" && near "$live" "$mine" ||
		test_why "tidemark'\''s live $live, the program'\''s own stats.allocated $mine (within 256 KiB); $(grep -v cgroup "$T/$name.err" | head -3)"'
	test_expect "attach_${name}_detached_running" '
		grep -q "detached the heap agent from $pid" "$T/$name.err" && wait_for 3 no_agent_thread "$pid" ||
		test_why "alive: $(kill -0 "$pid" && echo yes), agent thread: $(agent_thread "$pid" && echo yes); $(tail -2 "$T/$name.err")"'
	# attached again (the agent stays loaded: no dlopen), the recorder killed
	"$TM" record -o "$T/$name.2.db" -p "$pid" --heap -i 200ms --timeout 60s >/dev/null 2>&1 &
	rec=$!
	if wait_for 20 agent_thread "$pid"; then
		kill -9 "$rec"
		wait "$rec" 2>/dev/null
		test_expect "attach_${name}_recorder_killed" '
			wait_for 3 no_agent_thread "$pid" ||
			test_why "the agent'\''s thread still runs 3 s after the recorder'\''s SIGKILL"'
	else
		kill -9 "$rec" 2>/dev/null
		fail "attach_${name}_recorder_killed" "no agent thread within 20 s of record -p"
	fi
	wait "$pid"
	rc=$?
	check_eq "attach_${name}_output" "$(cat "$T/$name.out") rc=$rc" "$ref rc=0"
}

# --- a C program with Debian's libjemalloc.a --------------------------------------
"$P/static_je" 40 15 >/dev/null &
pid=$!
wait_for 5 runs "$pid" "$P/static_je"
out=$("$TM" heap attach --dry-run "$pid" 2>&1)
test_expect attach_static_dry_run '
	echo "$out" | grep -q "read jemalloc'\''s own statistics (linked into its executable)" &&
	echo "$out" | grep -q "a thread waiting in a syscall" ||
	test_why "$out"'
kill "$pid"
wait "$pid" 2>/dev/null
attach_run "$P/static_je" static_je
test_expect attach_static_je_named '
	"$TM" report -o "$T/static_je.db" | grep -q "allocator jemalloc (static)" ||
	test_why "$("$TM" report -o "$T/static_je.db" | grep machine)"'

# --- stripped: no entry point to read: refused, nothing loaded ------------------------
"$P/static_je_stripped" 40 15 >/dev/null &
pid=$!
wait_for 5 runs "$pid" "$P/static_je_stripped"
check_fails attach_static_stripped_refused "malloc is defined in its executable.*stripped" \
	"$TM" heap attach "$pid"
test_expect attach_static_stripped_untouched '
	! grep -q libtidemark-heap-attach "/proc/$pid/maps" ||
	test_why "the agent is mapped in the refused process"'
kill "$pid"
wait "$pid" 2>/dev/null

# --- Rust, #[global_allocator] jemalloc with the _rjem_ prefix ---------------------------
RUSTC=$(command -v rustc || true)
if [ -z "$RUSTC" ]; then
	skip attach_rust_rjem "no rustc (Debian's rustc, or rustup's)"
elif [ ! -r "$P/librjem.a" ]; then
	skip attach_rust_rjem "no $P/librjem.a (libjemalloc-dev not installed)"
elif ! "$RUSTC" -O -o "$T/rjem_hold" "$TM_ROOT/tests/progs/rjem_hold.rs" -L "$P" -l static=rjem \
	-C link-arg=-lpthread -C link-arg=-ldl -C link-arg=-lm >"$T/rustc.out" 2>&1; then
	fail attach_rust_rjem_builds "$(tail -5 "$T/rustc.out")"
else
	attach_run "$T/rjem_hold" rust_rjem
	test_expect attach_rust_rjem_named '
		"$TM" report -o "$T/rust_rjem.db" | grep -q "allocator glibc+jemalloc (static)" ||
		test_why "$("$TM" report -o "$T/rust_rjem.db" | grep machine)"'
fi
finish
