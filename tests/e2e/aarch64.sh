#!/bin/sh
# aarch64 (Raspberry Pi 3/4/5, arm64 servers) under qemu-aarch64 user mode:
# the unit tests and the heap shim's tests (exact counts with each allocator,
# C++ operators, threads and fork, sampled stacks by frame pointers), built
# by `make cross ARCH=aarch64` into build/aarch64/.  The CPU is qemu's "max"
# (memory tagging and pointer authentication included), so the shim's
# aarch64-only paths (shim/arch.h) run too.  README, "What runs where", says
# what this does not exercise.
. "$(dirname "$0")/../lib.sh"

A=$TM_ROOT/build/aarch64
S=$A/libtidemark-heap.so
P=$A/progs
LIBDIR=/usr/lib/aarch64-linux-gnu
QEMU=qemu-aarch64-static
cd "$TM_ROOT" || exit 1
if ! command -v $QEMU >/dev/null 2>&1 || [ ! -r /lib/ld-linux-aarch64.so.1 ]; then
	fail aarch64_qemu "$QEMU or the arm64 libc missing: sh scripts/deps.sh --test"
	finish
fi
if [ ! -x "$A/tidemark" ] || [ ! -r "$S" ] || [ ! -x "$P/heap_sites_pac" ] || [ ! -x "$A/tests/test_store" ]; then
	fail aarch64_build "build/aarch64 incomplete: make cross ARCH=aarch64"
	finish
fi
arm() { $QEMU -cpu max "$@"; }
field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# A child that a test program starts (test_heap's heap_sites) is exec'ed by
# the kernel, which needs qemu registered for aarch64 in binfmt_misc.
binfmt=0
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && binfmt=1

# --- the unit tests ------------------------------------------------------------
# cmocka's TAP says "not ok N # SKIP" for a skip: it becomes a skip here.
for t in "$A"/tests/test_*; do
	n=$(basename "$t")
	CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 $QEMU -cpu max "$t" >"$T/$n.log" 2>&1
	rc=$?
	why="skipped by the test (a child could not start"
	[ $binfmt = 0 ] && why="$why: no binfmt_misc entry for qemu-aarch64"
	sed -n -e "s/^ok [0-9]* - \(.*\)/ok - aarch64 $n \1/p" \
		-e "s/^not ok [0-9]* # SKIP *\(.*\)/ok - aarch64 $n \1 # SKIP $why)/p" \
		-e "s/^not ok [0-9]* - \(.*\)/not ok - aarch64 $n \1/p" "$T/$n.log"
	if grep -q '^not ok [0-9]* -' "$T/$n.log"; then
		sed 's/^/# /' "$T/$n.log" | tail -30
	elif [ $rc -ne 0 ]; then
		fail "aarch64 $n exited with status $rc" "$(tail -5 "$T/$n.log")"
	fi
done

# --- the shim: exact counts, each allocator, C++ operators --------------------
exact_ok() { [ -n "$(field "$1" peak)" ] && [ "$(field "$1" peak)" = "$(field "$1" expected_peak)" ] &&
	[ "$(field "$1" end_live)" = "$(field "$1" baseline)" ] && [ "$(field "$1" allocs)" = "$(field "$1" frees)" ]; }
for lib in "" libjemalloc.so.2 libmimalloc.so.2 libtcmalloc_minimal.so.4; do
	name=${lib:-glibc}
	# (scripts/deps.sh --test installs each: one missing is a failure, not a skip)
	if [ -n "$lib" ] && [ ! -r "$LIBDIR/$lib" ]; then
		fail "aarch64_heap_exact_$name" "$LIBDIR/$lib not installed (scripts/deps.sh --test)"
		continue
	fi
	out=$(LD_PRELOAD="$S${lib:+ $LIBDIR/$lib}" arm "$P/heap_exact" 2>&1)
	test_expect "aarch64_heap_exact_$name ($out)" 'exact_ok "$out" || test_why "$out"'
	out=$(LD_PRELOAD="$S${lib:+ $LIBDIR/$lib}" arm "$P/heap_cxx_exact" 2>&1)
	check "aarch64_heap_cxx_new_delete_$name" sh -c "[ $? -eq 0 ] || { echo '$out'; exit 1; }"
done
if [ -r "$LIBDIR/libjemalloc.so.2" ]; then
	out=$(MALLOC_CONF=tcache:false LD_PRELOAD="$S $LIBDIR/libjemalloc.so.2" arm "$P/heap_jemalloc" 2>&1)
	check aarch64_heap_jemalloc_stats_allocated sh -c "[ $? -eq 0 ] || { echo '$out'; exit 1; }"
fi
# glibc's memory tagging (MTE): the chunk header cannot be read through a
# tagged pointer; the shim must notice and still count exactly
out=$(GLIBC_TUNABLES=glibc.mem.tagging=1 LD_PRELOAD="$S" arm "$P/heap_exact" 2>&1)
test_expect "aarch64_heap_exact_memory_tagging" 'exact_ok "$out" || test_why "$out"'
out=$(TIDEMARK_HEAP_SAMPLE=1 LD_PRELOAD="$S" arm "$P/heap_coro" 2>&1)
check aarch64_heap_coroutine_stack sh -c "[ $? -eq 0 ] || { echo '$out'; exit 1; }"
# a thread whose first call is pthread_getattr_np (a JVM's): no deadlock
for lib in "" libjemalloc.so.2; do
	[ -n "$lib" ] && [ ! -r "$LIBDIR/$lib" ] && continue
	out=$(timeout -k 5 120 env TIDEMARK_HEAP_SAMPLE=1 LD_PRELOAD="$S${lib:+ $LIBDIR/$lib}" \
		$QEMU -cpu max "$P/heap_getattr" 2>&1)
	check "aarch64_heap_getattr_first_${lib:-glibc}" sh -c "[ $? -eq 0 ] || { echo 'exit $? (124: hung) $out'; exit 1; }"
done
out=$(timeout -k 5 120 env LD_PRELOAD="$S" $QEMU -cpu max "$P/heap_dlopen_ctor" 2>&1)
check aarch64_heap_dlopen_constructor_thread sh -c "[ $? -eq 0 ] || { echo 'exit $? (124: hung) $out'; exit 1; }"
out=$(LD_PRELOAD="$S" arm "$P/heap_early" 2>&1)
check aarch64_heap_malloc_before_constructors sh -c "[ $? -eq 0 ] || { echo '$out'; exit 1; }"
a=$(arm "$P/heap_cxx" 2>&1)
b=$(LD_PRELOAD="$S" arm "$P/heap_cxx" 2>&1)
test_expect aarch64_heap_cxx_unchanged '[ -n "$a" ] && [ "$a" = "$b" ] || test_why "$a | $b"'

# --- threads, cross-thread frees, exiting threads, fork ------------------------
good=0
for i in 1 2 3; do
	out=$(timeout 120 env LD_PRELOAD="$S" $QEMU -cpu max "$P/heap_stress" 3 10000 2>&1) && good=$((good + 1))
done
test_expect "aarch64_heap_stress_balances (3 runs: $out)" '[ $good -eq 3 ] || test_why "$good of 3: $out"'
out=$(timeout 120 env TIDEMARK_HEAP_SAMPLE=4096 LD_PRELOAD="$S" $QEMU -cpu max "$P/heap_stress" 2 10000 2>&1)
check aarch64_heap_stress_sampling sh -c "[ $? -eq 0 ] || { echo '$out'; exit 1; }"
out=$(timeout 120 env GLIBC_TUNABLES=glibc.mem.tagging=1 TIDEMARK_HEAP_SAMPLE=4096 LD_PRELOAD="$S" \
	$QEMU -cpu max "$P/heap_stress" 2 5000 2>&1)
check aarch64_heap_stress_memory_tagging sh -c "[ $? -eq 0 ] || { echo '$out'; exit 1; }"
if [ -r "$LIBDIR/libjemalloc.so.2" ]; then
	out=$(timeout 120 env LD_PRELOAD="$S $LIBDIR/libjemalloc.so.2" $QEMU -cpu max "$P/heap_stress" 2 10000 2>&1)
	check aarch64_heap_stress_jemalloc sh -c "[ $? -eq 0 ] || { echo '$out'; exit 1; }"
fi
out=$(timeout 120 env TIDEMARK_HEAP_SAMPLE=4K LD_PRELOAD="$A/libtidemark-heap-sites.so" \
	$QEMU -cpu max "$P/heap_stress" 2 5000 2>&1)
rc=$?
test_expect aarch64_heap_sites_only_threads_fork '
	[ $rc -le 1 ] && echo "$out" | grep -q "^baseline=0 end=0 allocs=0 frees=0" ||
	test_why "exit $rc: $out"'

# --- an allocator linked into the program (docs/heap.md) ------------------------
# the shim finds the executable's malloc and jemalloc's entry points (mallctl,
# and _rjem_mallctl beside glibc's malloc), and its answering thread reads
# them: the program checks the answer in its own region against its own
# mallctl (tests/progs/static_alloc.c "self")
for prog in static_je static_rjem; do
	if [ ! -x "$P/$prog" ]; then
		skip "aarch64_heap_static_$prog" "no $P/$prog: the arm64 libjemalloc.a is not in build/deps/ (sh scripts/deps.sh --test)"
		continue
	fi
	out=$(timeout 120 env TIDEMARK_HEAP_KEEP=2 TIDEMARK_HEAP_DIR="$T" LD_PRELOAD="$S" \
		$QEMU -cpu max "$P/$prog" 20 0 self 2>&1)
	check "aarch64_heap_static_$prog" sh -c "[ $? -eq 0 ] || { echo '$out'; exit 1; }"
done

# --- sampled stacks by frame pointers, read by the aarch64 tidemark -----------
# sites PROG NAME [CPU]: heap_sites under the shim (with TIDEMARK_HEAP_UNWIND
# set to $UNW when set) on qemu's CPU model CPU (max); its stacks and the
# estimate.  Its stderr (the shim's warnings) is left in $T/prog.err.
sites()
{
	prog=$1 name=$2 cpu=${3:-max}
	rm -f "$T/in" "$T/out"
	mkfifo "$T/in"
	env ${UNW:+TIDEMARK_HEAP_UNWIND=$UNW} TIDEMARK_HEAP_SAMPLE=32K LD_PRELOAD="$S" \
		$QEMU -cpu "$cpu" "$prog" 40 <"$T/in" >"$T/out" 2>"$T/prog.err" &
	pid=$!
	exec 3>"$T/in"
	n=0
	while ! grep -q ready "$T/out" 2>/dev/null && [ $n -lt 200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	known=$(sed -n 's/.*known_bytes=\([0-9]*\).*/\1/p' "$T/out")
	arm "$A/tidemark" heap $pid --collapsed >"$T/collapsed" 2>"$T/err"
	stats=$(arm "$A/tidemark" heap stats --json $pid 2>&1)
	echo >&3
	exec 3>&-
	wait $pid
	est=$(awk '/main;keep_known_site/ { s += $NF } END { print s + 0 }' "$T/collapsed")
	test_expect "$name (main;keep_known_site: true $known, estimated $est)" '
		[ -n "$known" ] && [ "$est" -gt $((known * 9 / 10)) ] && [ "$est" -lt $((known * 11 / 10)) ] ||
		test_why "true '\''$known'\'' estimated $est: $(head -5 "$T/collapsed") $(cat "$T/err")"'
}
sites "$P/heap_sites" aarch64_heap_frame_pointer_stacks
test_expect aarch64_heap_stats_json 'echo "$stats" | grep -q '\''"state":"running"'\'' || test_why "$stats"'
# return addresses signed with pointer authentication (Ubuntu's arm64 builds)
sites "$P/heap_sites_pac" aarch64_heap_stacks_pointer_authentication
# libunwind is refused on aarch64 (Debian 12's gets code built with
# -mbranch-protection wrong, on the Raspberry Pi 4's Cortex-A72 as on a CPU
# with pointer authentication): the frame walk's stacks, and a warning
for cpu in cortex-a72 max; do
	UNW=libunwind sites "$P/heap_sites_pac" "aarch64_heap_libunwind_refused_$cpu" $cpu
	test_expect "aarch64_heap_libunwind_says_why_$cpu" '
		grep -q "libunwind gives wrong stacks on aarch64" "$T/prog.err" || test_why "$(cat "$T/prog.err")"'
done

# The rest starts aarch64 programs from aarch64 programs: binfmt_misc only.
# scripts/deps.sh --test registers qemu-aarch64 there (binfmt-support): a
# missing entry is a failure, not a skip.
if [ $binfmt = 0 ]; then
	fail aarch64_binfmt "no binfmt_misc entry for qemu-aarch64: the recorder, doctor and the unit tests' children cannot run as aarch64 (sh scripts/deps.sh --test; in a container, binfmt_misc must be mounted and writable)"
	finish
fi

# --- the recorder: a run recorded on aarch64, read back by this host's build --
# (under qemu-user the figures are qemu's process, so only the run is checked)
out=$(arm "$A/tidemark" record -q -o "$T/a.db" -i 50ms -- "$A/churn" -t 2 -n 3 2>&1)
rc=$?
rep=$("$TM" report 1 --db "$T/a.db" --json 2>&1)
test_expect aarch64_record_store_portable '
	[ $rc -eq 0 ] && echo "$rep" | grep -q '\''"outcome": "completed"'\'' &&
	echo "$rep" | grep -q '\''"peak_anon_bytes": [1-9]'\'' ||
	test_why "exit $rc: $out / $(echo "$rep" | head -20)"'

# --- tidemark doctor, aarch64: the bench's library search finds the arm64
# allocators, and the aarch64 shim loads into an aarch64 program
arm "$A/tidemark" doctor --json >"$T/doc.json" 2>"$T/doc.err"
python3 -c 'import json, sys
v = {c["name"]: c for c in json.load(open(sys.argv[1]))["checks"]}
assert v["heap_shim"]["status"] == "ok", v["heap_shim"]
for a in ("jemalloc", "mimalloc", "tcmalloc"):
    c = v["allocator_" + a]
    assert c["status"] == "ok" and "/aarch64-linux-gnu/" in c["value"], c' "$T/doc.json" 2>"$T/doc.py"
rc=$?
test_expect aarch64_doctor_allocators_and_shim '[ $rc -eq 0 ] || test_why "$(cat "$T/doc.py" "$T/doc.err")"'
finish
