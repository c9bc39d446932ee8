#!/bin/sh
# The JVM split's Java heap from the heap's own mappings (issue 19): a real
# JVM (G1, Parallel, Serial) churns 200 MiB through a 512 MiB heap and keeps
# 32 MiB, so its heap holds free but touched pages.  While it idles after
# its work ("end" mark, --settle; the test interrupts the recording after
# its reads), the test reads the heap's range from the
# JVM itself (jcmd GC.heap_info) and sums Anonymous over that range in
# /proc/PID/smaps; tidemark's jvm_heap_resident_bytes (which finds the
# range from hsperfdata's sizes, not from jcmd) equals it within 1 MiB, and
# the split of anon at the end is Java heap resident (used + free but
# touched) + the JVM's malloc + other anon, adding up to anon.
. "$(dirname "$0")/../lib.sh"

if ! command -v javac >/dev/null || ! command -v jcmd >/dev/null; then
	skip jvm_resident "no javac/jcmd (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
javac -d "$T" "$TM_ROOT/tests/progs/java/HeapChurn.java" || { fail jvm_resident_builds "javac failed"; finish; }
M=1048576

# heap_range PID: "START END" of the Java heap's reserved range as the JVM
# itself gives it (GC.heap_info: G1's [low, high), each generation's
# [low, committed high, reserved high) of the generational collectors)
heap_range() {
	jcmd "$1" GC.heap_info 2>/dev/null | python3 -c '
import re, sys
r = re.findall(r"\[(0x[0-9a-f]+), (0x[0-9a-f]+)(?:, (0x[0-9a-f]+))?\)", sys.stdin.read())
if not r:
    sys.exit(1)
print(min(int(a, 16) for a, b, c in r), max(int(c or b, 16) for a, b, c in r))'
}
# smaps_anon PID START END: Anonymous summed over the mappings in the range
smaps_anon() {
	python3 -c '
import re, sys
s, e = int(sys.argv[2]), int(sys.argv[3])
t, inr = 0, False
for l in open("/proc/%s/smaps" % sys.argv[1]):
    h = re.match(r"^([0-9a-f]+)-([0-9a-f]+) ", l)
    if h:
        inr = int(h.group(1), 16) >= s and int(h.group(2), 16) <= e
    elif inr and l.startswith("Anonymous:"):
        t += int(l.split()[1]) * 1024
print(t)' "$@"
}

for gc in G1 Parallel Serial; do
	tn=jvm_resident_$(echo $gc | tr 'A-Z' 'a-z')
	db=$T/$gc.db
	timeout -k 5 90 "$TM" record -o "$db" -i 200ms --settle 60s --heap -- \
		java -XX:+Use${gc}GC -Xmx512m -cp "$T" HeapChurn 200 32 60000 >"$T/$gc.out" 2>"$T/$gc.err" &
	rec=$!
	wait_for 30 grep -q '^held ' "$T/$gc.out"
	sleep 1 # the recorder's next look for the range, then idle
	jpid=""
	for p in $(pgrep -f "HeapChurn 200 32 60000"); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = java ] && grep -q "$T" /proc/$p/cmdline 2>/dev/null && jpid=$p
	done
	range=$([ -n "$jpid" ] && heap_range "$jpid")
	a=$([ -n "$range" ] && smaps_anon "$jpid" $range)
	sleep 0.5
	b=$([ -n "$range" ] && smaps_anon "$jpid" $range)
	sleep 0.5 # a sample after the reads
	# the JVM would idle a minute: interrupt the recording (its work ended
	# at its mark, so what it holds now is measured after the work)
	kill -INT $(pgrep -P $rec) 2>/dev/null
	wait $rec
	rc=$([ "$("$TM" report 1 --db "$db" --json | jq -r '.figures.held_anon_end_is')" = after_work_end ] && echo 0 || echo "held after not measured after the work's end")
	js=$("$TM" report 1 --db "$db" --json)
	res=$(echo "$js" | jq '.figures.jvm_anon_java_heap_resident_end_bytes')
	last=$("$TM" report 1 --db "$db" --series=jvm_heap_resident_bytes | awk -F, 'NR > 1 && $3 != "" { v = $3 } END { print v }')
	want=$b
	same=0
	[ $rc -eq 0 ] && [ -n "$want" ] && [ "$want" = "$a" ] && [ "$res" != null ] &&
		python3 -c "import sys; sys.exit(abs($res - $want) > $M or abs($last - $want) > $M)" && same=1
	what="$tn: the Java heap's resident anon is smaps' of its range"
	[ $same = 1 ] && what="$what (tidemark $((res / M)) MiB, smaps $((want / M)) MiB of the range $range)"
	test_expect "$what" '
		[ $same = 1 ] ||
		test_why "rc $rc; heap range '\''$range'\'' (jcmd GC.heap_info), smaps anon of it '\''$a'\'' then '\''$b'\''; report $res, last sample $last: $(head -c 300 "$T/$gc.err")"'
	[ $same = 1 ] || continue
	# the split: resident = used + free but touched; the parts add up to anon
	check "$tn: anon = Java heap resident (used + free) + malloc + other, within 1 MiB" python3 -c '
import json, sys
f = json.loads(sys.argv[1])["figures"]
M = 1 << 20
res, used, free = f["jvm_anon_java_heap_resident_end_bytes"], f["jvm_anon_java_heap_end_bytes"], f["jvm_anon_java_heap_free_end_bytes"]
parts = [res, f["jvm_anon_malloc_end_bytes"], f["jvm_anon_other_end_bytes"]]
assert f["jvm_split_na_reason"] is None, f["jvm_split_na_reason"]
assert all(p is not None and p >= 0 for p in parts), parts
assert abs(sum(parts) - f["jvm_anon_end_bytes"]) <= M, (parts, f["jvm_anon_end_bytes"])
# used + free but touched = resident; or used (whole G1 eden regions, garbage
# and all) is more than the resident pages, and the two are not told apart
if free is not None:
    assert used is not None and abs(used + free - res) <= M, (used, free, res)
else:
    assert used is None and f["jvm_heap_used_end_bytes"] > res, (f["jvm_heap_used_end_bytes"], res)
print("anon %.1f = heap %.1f (used %s + free %s) + malloc %.1f + other %.1f MiB" % (f["jvm_anon_end_bytes"] / M, res / M, used and used / M, free and free / M, parts[1] / M, parts[2] / M))
' "$js"
	txt=$("$TM" report 1 --db "$db")
	test_expect "$tn: the report's line names the heap's free but touched pages apart from other anon" '
		echo "$txt" | grep -q "MiB Java heap resident (.*) + .* MiB the JVM'\''s malloc .* MiB other anon (code cache, thread stacks, GC data)" ||
		test_why "$(echo "$txt" | grep -A1 '\''java heap'\'')"'
done
finish
