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
# other anon and is in the hsperfdata series.
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
	if [ $rc -eq 0 ] && echo "$out" | grep -q 'version'; then
		ok "heap_jvm_version_$name (java -version under $(basename "$so"), sampling every $sample)"
	else
		fail "heap_jvm_version_$name" "exit $rc (124: hung, killed after 30 s): $(echo "$out" | head -3)"
	fi
done

fig() { echo "$1" | sed -n "s/.*\"$2\": *\([0-9.-]*\).*/\1/p" | cut -d. -f1; }
for lib in "" libjemalloc.so.2 libmimalloc.so.2 libtcmalloc_minimal.so.4; do
	name=heap_jvm_record_${lib:-glibc}
	if [ -n "$lib" ] && [ ! -r "$LIBDIR/$lib" ]; then
		skip "$name" "$LIBDIR/$lib not installed"
		continue
	fi
	db=$T/${lib:-glibc}.db
	start=$(date +%s)
	LD_PRELOAD=${lib:+$LIBDIR/$lib} timeout -k 5 90 "$TM" record -o "$db" -i 100ms --timeout 40s \
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
	if [ -n "$live" ] && [ "$live" -ge $((64 * M)) ] && [ "$live" -lt $((128 * M)) ] &&
		[ -n "$allocs" ] && [ "$allocs" -ge 1000 ]; then
		ok "$name counts the JVM's malloc, not the Java heap (live peak $((live / M)) MiB in $allocs allocations)"
	else
		fail "$name counts the JVM's malloc, not the Java heap" "live peak '$live' allocations '$allocs'"
	fi
	# the sites: the buffers are HotSpot's os::malloc called by
	# Unsafe_AllocateMemory0 (ByteBuffer.allocateDirect)
	prof=$(ls "$T/prof${lib:+.$lib}".*.final.pb.gz 2>/dev/null | head -1)
	top=$([ -n "$prof" ] && "$TM" heap top "$prof" -n 3 2>&1)
	if echo "$top" | grep -q 'Unsafe_AllocateMemory0'; then
		ok "$name: the profile names the direct buffers' site"
	else
		fail "$name: the profile names the direct buffers' site" "$prof: $top"
	fi
	if [ -n "$other" ] && [ "$other" -ge $((200 * M)) ] && [ -n "$jheap" ] && [ "$jheap" -ge $((256 * M)) ]; then
		ok "$name: the Java heap is other anon ($((other / M)) MiB) and in hsperfdata ($((jheap / M)) MiB used)"
	else
		fail "$name: the Java heap is other anon and in hsperfdata" "other anon '$other' jvm heap used '$jheap'"
	fi
done

# the single-file source launcher compiles in the JVM first (more threads,
# the compiler's native allocations), and every allocation is sampled
start=$(date +%s)
TIDEMARK_HEAP_SAMPLE=1 timeout -k 5 90 "$TM" record -o "$T/src.db" -i 100ms --timeout 60s --heap \
	-- java "$TM_ROOT/tests/progs/java/NativeAndHeap.java" 8 8 10 >"$T/out" 2>"$T/err"
rc=$?
live=$(fig "$("$TM" report 1 --db "$T/src.db" --json)" heap_live_peak_bytes)
if [ $rc -eq 0 ] && grep -q '^done ' "$T/out" && [ -n "$live" ] && [ "$live" -ge $((8 * M)) ]; then
	ok "heap_jvm_source_launcher_sampled (exit 0 after $(($(date +%s) - start)) s, live peak $((live / M)) MiB)"
else
	fail heap_jvm_source_launcher_sampled "exit $rc, live peak '$live': $(head -c 300 "$T/err")"
fi
finish
