#!/bin/sh
# A JVM under the heap shim (rule 1: the observer never harms the observed).
# Every HotSpot thread calls pthread_getattr_np first, which allocates while
# it holds the thread's lock; the shim used to call it again from inside
# that allocation and java hung at start-up, with or without the recorder.
# Each run here is bounded (a hang fails, it does not stall the suite):
# `java -version` under both shims, then a program holding 64 MiB of direct
# buffers (HotSpot mallocs them) and 256 MiB of Java arrays (the Java heap,
# which HotSpot maps itself) under `record --heap` and every allocator: it
# completes, its output arrives, the shim counts the JVM's malloc (the
# buffers and its own native allocations) and not the Java heap, which is
# other anon and is in the hsperfdata series.  The program marks the end of
# its work once it holds all that; --settle keeps sampling it until it exits
# (what it holds after the work is measured only so: issue 19).
. "$(dirname "$0")/../lib.sh"

SHIM=$TM_BUILD/libtidemark-heap.so
LIBDIR=/usr/lib/x86_64-linux-gnu
[ "$(uname -m)" = aarch64 ] && LIBDIR=/usr/lib/aarch64-linux-gnu
if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
	skip heap_jvm "no java/javac (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
if [ ! -r "$SHIM" ]; then
	fail heap_jvm_build "missing $SHIM"
	finish
fi
javac -d "$T" "$TM_ROOT/tests/progs/java/NativeAndHeap.java" ||
	{ fail heap_jvm_java_builds "javac failed"; finish; }
M=1048576

# the bare case of the report: no recorder; the default sampling, every
# allocation sampled, and the sites-only build
for case in "full:512K:$SHIM" "sampled:1:$SHIM" "sites:512K:$TM_BUILD/libtidemark-heap-sites.so"; do
	name=${case%%:*} rest=${case#*:}
	sample=${rest%%:*} so=${rest#*:}
	out=$(TIDEMARK_HEAP_SAMPLE=$sample LD_PRELOAD="$so" timeout -k 5 30 java -version 2>&1)
	rc=$?
	test_expect "heap_jvm_version_$name (java -version under $(basename "$so"), sampling every $sample)" '
		[ $rc -eq 0 ] && echo "$out" | grep -q "version" ||
		test_why "exit $rc (124: hung, killed after 30 s): $(echo "$out" | head -3)"'
done

fig() { echo "$1" | sed -n "s/.*\"$2\": *\([0-9.-]*\).*/\1/p" | cut -d. -f1; }
# the JVM split of a report's JSON: its three parts (Java heap used, the
# JVM's malloc, other anon) each >= 0 adding up to the anon of "held after
# the work" within 1 MiB, or n/a with the reason and none of them (MODE any);
# MODE made: a split, with the parts this program holds
split_sane() { # JSON MODE: MODE any (split or n/a) or made (a split)
	echo "$1" | python3 -c '
import json, sys
f = json.load(sys.stdin)["figures"]
M = 1 << 20
# the Java heap part: the resident anon of its mappings when read (used + free
# but touched), else used
res = f["jvm_anon_java_heap_resident_end_bytes"]
parts = [res if res is not None else f["jvm_anon_java_heap_end_bytes"], f["jvm_anon_malloc_end_bytes"], f["jvm_anon_other_end_bytes"]]
why = f["jvm_split_na_reason"]
if why is not None:
    assert sys.argv[1] == "any", "split n/a: %s (over by %s)" % (why, f["jvm_anon_over_end_bytes"])
    assert parts == [None, None, None] and f["jvm_anon_over_end_bytes"] > 0, f
    print("n/a: %s, over by %.1f MiB" % (why, f["jvm_anon_over_end_bytes"] / M))
    sys.exit(0)
assert all(p is not None and p >= 0 for p in parts), parts
assert abs(sum(parts) - f["jvm_anon_end_bytes"]) <= M, (parts, f["jvm_anon_end_bytes"])
assert abs(f["jvm_anon_end_bytes"] - f["held_anon_bytes"]) <= M, (f["jvm_anon_end_bytes"], f["held_anon_bytes"])
used = f["jvm_anon_java_heap_end_bytes"]
assert used is None or used == f["jvm_heap_used_end_bytes"], f
if res is not None and used is not None:
    assert abs(used + f["jvm_anon_java_heap_free_end_bytes"] - res) <= M, (used, res)
if sys.argv[1] == "made":
    assert 256 * M <= f["jvm_heap_used_end_bytes"] < 320 * M, f["jvm_heap_used_end_bytes"]
    assert res is None or res >= 256 * M, res
    assert 64 * M <= parts[1] < 128 * M, parts
    assert parts[2] >= 4 * M, parts
print("anon %.1f MiB = %.1f Java heap used + %.1f malloc + %.1f other" % ((f["jvm_anon_end_bytes"] / M,) + tuple(p / M for p in parts)))
' "$2"
}
for lib in "" libjemalloc.so.2 libmimalloc.so.2 libtcmalloc_minimal.so.4; do
	name=heap_jvm_record_${lib:-glibc}
	if [ -n "$lib" ] && [ ! -r "$LIBDIR/$lib" ]; then
		skip "$name" "$LIBDIR/$lib not installed"
		continue
	fi
	db=$T/${lib:-glibc}.db
	start=$(date +%s)
	LD_PRELOAD=${lib:+$LIBDIR/$lib} timeout -k 5 90 "$TM" record -o "$db" -i 100ms --timeout 40s --settle 30s \
		--heap --heap-profile "$T/prof${lib:+.$lib}" -- java -Xmx512m -cp "$T" NativeAndHeap 64 256 1500 >"$T/out" 2>"$T/err"
	rc=$? secs=$(($(date +%s) - start))
	if [ $rc -ne 0 ] || ! grep -q '^held direct=64 MiB heap=256 MiB$' "$T/out" ||
		! grep -q '^done ' "$T/out"; then
		fail "$name completes with its output" "exit $rc after $secs s (124: hung, stopped after 40 s); \
out: $(head -c 300 "$T/out"); err: $(head -c 300 "$T/err")"
		continue
	fi
	ok "$name completes with its output (exit 0 after $secs s)"
	js=$("$TM" report 1 --db "$db" --json)
	live=$(fig "$js" heap_live_peak_bytes)
	allocs=$(fig "$js" heap_allocs)
	other=$(fig "$js" anon_other_end_bytes)
	jheap=$(fig "$js" jvm_heap_used_end_bytes)
	# live: the 64 MiB of buffers and the JVM's own malloc (about 10 MiB),
	# never the 256 MiB of arrays
	test_expect "$name counts the JVM's malloc, not the Java heap (live peak $((live / M)) MiB in $allocs allocations)" '
		[ -n "$live" ] && [ "$live" -ge $((64 * M)) ] && [ "$live" -lt $((128 * M)) ] &&
		[ -n "$allocs" ] && [ "$allocs" -ge 1000 ] ||
		test_why "live peak '\''$live'\'' allocations '\''$allocs'\''"'
	# the sites: the buffers are HotSpot's os::malloc called by
	# Unsafe_AllocateMemory0 (ByteBuffer.allocateDirect)
	prof=$(ls "$T/prof${lib:+.$lib}".*.final.pb.gz 2>/dev/null | head -1)
	top=$([ -n "$prof" ] && "$TM" heap top "$prof" -n 3 2>&1)
	test_expect "$name: the profile names the direct buffers' site" '
		echo "$top" | grep -q "Unsafe_AllocateMemory0" ||
		test_why "$prof: $top"'
	test_expect "$name: the Java heap is other anon ($((other / M)) MiB) and in hsperfdata ($((jheap / M)) MiB used)" '
		[ -n "$other" ] && [ "$other" -ge $((200 * M)) ] && [ -n "$jheap" ] && [ "$jheap" -ge $((256 * M)) ] ||
		test_why "other anon '\''$other'\'' jvm heap used '\''$jheap'\''"'
	# 256 KiB arrays leave G1's 1 MiB regions a filled-in, untouched end,
	# which Java heap used counts: the split may not fit in anon, and then
	# it says n/a and why, never a negative part
	check "$name: the JVM split adds up or says n/a with the reason" split_sane "$js" any
done

# The JVM split on a real run: anon at the end = Java heap used + the JVM's
# malloc + other anon, all from one sample.  Arrays of 262128 bytes (256 KiB
# with their header) fill G1's regions whole, so used is all touched.
# Tolerance 1 MiB: the parts are MiB-rounded nowhere, but anon and heap
# counts are whole bytes read at one moment; the anon they add up to must be
# "held after the work" (the same end sample), the malloc the shim's live
# bytes of the JVM (64 MiB of buffers and HotSpot's own), and other anon at
# least 4 MiB (code cache, thread stacks and GC data are never nothing).
db=$T/split.db
if timeout -k 5 90 "$TM" record -o "$db" -i 100ms --timeout 40s --settle 30s --heap -- \
	java -Xmx512m -cp "$T" NativeAndHeap 64 256 1500 262128 >"$T/out" 2>"$T/err" &&
	grep -q '^done ' "$T/out"; then
	js=$("$TM" report 1 --db "$db" --json)
	check "heap_jvm_split: anon = Java heap used + the JVM's malloc + other anon, within 1 MiB" \
		split_sane "$js" made
	txt=$("$TM" report 1 --db "$db")
	test_expect "heap_jvm_split_text: the report's line names the three parts" '
		echo "$txt" | grep -q "anon at the end .* MiB = .* MiB Java heap \(used\|resident (.*)\) + .* MiB the JVM'\''s malloc (.* live, .* held by the allocator) + .* MiB other anon" ||
		test_why "$(echo "$txt" | grep -A2 '\''java heap'\'')"'
else
	fail heap_jvm_split "the run failed: $(head -c 300 "$T/err")"
fi

# the single-file source launcher compiles in the JVM first (more threads,
# the compiler's native allocations), and every allocation is sampled
start=$(date +%s)
TIDEMARK_HEAP_SAMPLE=1 timeout -k 5 90 "$TM" record -o "$T/src.db" -i 100ms --timeout 60s --settle 30s --heap \
	-- java "$TM_ROOT/tests/progs/java/NativeAndHeap.java" 8 8 10 >"$T/out" 2>"$T/err"
rc=$?
live=$(fig "$("$TM" report 1 --db "$T/src.db" --json)" heap_live_peak_bytes)
test_expect "heap_jvm_source_launcher_sampled (exit 0 after $(($(date +%s) - start)) s, live peak $((live / M)) MiB)" '
	[ $rc -eq 0 ] && grep -q "^done " "$T/out" && [ -n "$live" ] && [ "$live" -ge $((8 * M)) ] ||
	test_why "exit $rc, live peak '\''$live'\'': $(head -c 300 "$T/err")"'
finish
