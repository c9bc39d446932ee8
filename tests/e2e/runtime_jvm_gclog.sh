#!/bin/sh
# A JVM started with production flags that turn its hsperfdata counters off
# (-XX:-UsePerfData, -XX:+PerfDisableSharedMem): the report says why there
# is no Java heap line, and reads the JVM's own GC log where one is written
# (-Xlog:gc* to a file, or to stderr, passed on unchanged): the heap before
# and after the last GC and, for Serial and Parallel, the old gen after it,
# equal to the program's own MemoryPoolMXBean to the KiB.
# (tests/progs/java/GcLogRetain.java: 32 MiB retained, System.gc().)
. "$(dirname "$0")/../lib.sh"

if ! command -v javac >/dev/null; then
	skip runtime_jvm_gclog "no javac (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
javac -d "$T" "$TM_ROOT/tests/progs/java/GcLogRetain.java" || { fail jvm_gclog_builds "javac failed"; finish; }

fig() { "$TM" report -o "$1" --json | jq -r ".figures.$2"; }
# the program's own old gen after its last GC, in bytes
own_old() { sed -n 's/^old_after_gc \([0-9]*\) .*/\1/p' "$1"; }
pauses() { grep -c '\[gc *\] GC([0-9]*) Pause .*->' "$1"; }

# 1. counters off, the log in a file
"$TM" record -o "$T/f.db" -i 100ms --no-cgroup -- java -XX:+UseSerialGC -XX:-UsePerfData \
	-Xmx256m "-Xlog:gc*:file=$T/gc.log" -cp "$T" GcLogRetain 32 >"$T/out" 2>"$T/err"
"$TM" report -o "$T/f.db" >"$T/rep"
test_expect "-XX:-UsePerfData: the report says why the Java heap is missing" 'grep -q '\''^  java heap   n/a: the JVM publishes no hsperfdata counters (-XX:-UsePerfData or -XX:+PerfDisableSharedMem); its GC log below$'\'' "$T/rep" || test_why "$(grep java "$T/rep")"'
want=$(own_old "$T/out")
old=$(fig "$T/f.db" jvm_log_old_after_end_bytes)
test_expect "old gen after the last GC from the log: the MXBean's to the KiB" '[ -n "$want" ] && [ "$old" != null ] && [ "$old" -le "$want" ] && [ "$want" -lt $((old + 1024)) ] || test_why "log $old, MXBean $want"'
gcs=$(fig "$T/f.db" jvm_log_gcs)
after=$(fig "$T/f.db" jvm_log_heap_after_end_bytes)
n=$(pauses "$T/gc.log")
last=$(grep '\[gc *\] GC([0-9]*) Pause .*->' "$T/gc.log" | tail -1 | sed 's/.*->\([0-9]*\)M(.*/\1/')
test_expect "GCs and heap after the last one: as the log says" '[ "$gcs" = "$n" ] && [ "$after" = $((last << 20)) ] || test_why "stored $gcs GCs, after $after; log $n, ${last}M"'
test_expect "report: the GC log's line" 'grep -q '\''^  java gc log heap after the last GC 32\.0 MiB'\'' "$T/rep" || test_why "$(grep '\''java'\'' "$T/rep")"'

# 2. PerfDisableSharedMem, the log on stderr: read, and passed on unchanged
"$TM" record -o "$T/e.db" -i 100ms --no-cgroup -- java -XX:+UseParallelGC -XX:+PerfDisableSharedMem \
	-Xmx256m "-Xlog:gc*:stderr" -cp "$T" GcLogRetain 32 >"$T/out" 2>"$T/err"
want=$(own_old "$T/out")
old=$(fig "$T/e.db" jvm_log_old_after_end_bytes)
test_expect "+PerfDisableSharedMem, log on stderr: read, and still on stderr" '
	[ -n "$want" ] && [ "$old" != null ] && [ "$old" -le "$want" ] && [ "$want" -lt $((old + 1024)) ] &&
	grep -q '\''ParOldGen: '\'' "$T/err" || test_why "log $old, MXBean $want"'
test_expect "one JVM without counters; no hsperfdata figure" '[ "$(fig "$T/e.db" jvm_procs_no_counters)" = 1 ] && [ "$(fig "$T/e.db" jvm_heap_used_end_bytes)" = null ] || test_why "$(fig "$T/e.db" jvm_procs_no_counters)"'

# 3. counters off and no log: said, with what to do
"$TM" record -o "$T/n.db" -i 100ms --no-cgroup -- java -XX:-UsePerfData -Xmx256m -cp "$T" GcLogRetain 8 \
	>/dev/null 2>&1
"$TM" report -o "$T/n.db" >"$T/rep"
test_expect "no counters and no log: said, and no GC log figures" '
	grep -q '\''java heap   n/a: the JVM publishes no hsperfdata counters .*; start it with -Xlog:gc\* for its GC log to be read'\'' "$T/rep" &&
	! grep -q '\''java gc log'\'' "$T/rep" || test_why "$(grep java "$T/rep")"'

# 4. counters on: no note
"$TM" record -o "$T/c.db" -i 100ms --no-cgroup -- java -Xmx256m -cp "$T" GcLogRetain 8 >/dev/null 2>&1
"$TM" report -o "$T/c.db" >"$T/rep"
test_expect "counters on: the Java heap line, no note" '
	grep -q '\''^  java heap   used at the end'\'' "$T/rep" && ! grep -q '\''n/a: the JVM publishes'\'' "$T/rep" &&
	[ "$(fig "$T/c.db" jvm_procs_no_counters)" = null ] || test_why "$(grep java "$T/rep")"'
finish
