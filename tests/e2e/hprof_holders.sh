#!/bin/sh
# tidemark hprof holders: retained sizes from the dominator tree.
# - dumps of known shapes (tests/progs/hprof/shapes.py: a map holding a
#   known number of bytes, a subgraph shared by two parents, a cycle, an
#   object only a thread stack holds, an unreachable island, a random graph
#   with long chains): every reachable object's dominator, retained bytes
#   and objects equal a plain iterative dominator computation's, exactly;
# - a gzip-compressed dump gives the same rows; a dump cut short is refused;
#   no temporary file is left in TMPDIR, after success or error;
# - a real JVM whose leak is one HashMap: the first holder is that map, with
#   its exact retained size, its path from a GC root through Leak.index,
#   and what it retains by class;
# - 1.5 M objects: the working set in temporary files, anon under 32 MiB.
. "$(dirname "$0")/../lib.sh"
SHAPES=$TM_ROOT/tests/progs/hprof/shapes.py
mkdir -p "$T/tmp"
export TMPDIR="$T/tmp"

for seed in 1 2 3; do
	python3 "$SHAPES" "$T/s$seed.hprof" $seed
	"$TM" hprof holders "$T/s$seed.hprof" --csv >"$T/s$seed.csv" 2>"$T/s$seed.err" &&
		"$TM" hprof holders "$T/s$seed.hprof" --json -n 0 >"$T/s$seed.json" 2>>"$T/s$seed.err" ||
		fail "holders_shapes_$seed: tidemark ran" "$(head -3 "$T/s$seed.err")"
	python3 "$SHAPES" --check "$T/s$seed.hprof" "$T/s$seed.csv" "$T/s$seed.json" >"$T/s$seed.res"
	while read -r verdict name what; do
		test_expect "holders_${name}_seed$seed" '[ "$verdict" = "ok" ] || test_why "$what"'
	done <"$T/s$seed.res"
done
check_eq holders_no_temp_files_left "$(ls -A "$T/tmp")" ""

gzip -c "$T/s1.hprof" >"$T/s1.hprof.gz"
"$TM" hprof holders "$T/s1.hprof.gz" --csv >"$T/gz.csv" 2>&1
check holders_gzip_same_rows cmp -s "$T/gz.csv" "$T/s1.csv"

head -c $(($(stat -c %s "$T/s1.hprof") - 100)) "$T/s1.hprof" >"$T/cut.hprof"
"$TM" hprof holders "$T/cut.hprof" >"$T/cut.out" 2>"$T/cut.err"
rc=$?
check holders_cut_dump_refused sh -c "[ $rc -ne 0 ] && grep -q 'truncated at offset' '$T/cut.err'"
check_eq holders_cut_no_output "$(cat "$T/cut.out")" ""
check_eq holders_no_temp_files_after_error "$(ls -A "$T/tmp")" ""
"$TM" hprof holders /dev/null >/dev/null 2>"$T/null.err"
check holders_not_regular_refused grep -q "not a regular file" "$T/null.err"

# Bounded anonymous memory: 1.5 M objects (15 Object[100000] under JNI
# globals, each element a byte[] of 0 to 3 bytes) need about 110 MB of
# working set, which must be in the temporary files, not in anon.
python3 - "$T/many.hprof" <<'EOP'
import struct, sys
out = open(sys.argv[1], 'wb')
u1, u4, idb = (lambda v: struct.pack('>B', v)), (lambda v: struct.pack('>I', v)), (lambda v: struct.pack('>Q', v))
rec = lambda tag, body: out.write(u1(tag) + u4(0) + u4(len(body)) + body)
out.write(b'JAVA PROFILE 1.0.2\0' + u4(8) + u4(0) + u4(0))
rec(1, idb(0x50) + b'[Ljava/lang/Object;')
rec(2, u4(1) + idb(0x100) + u4(0) + idb(0x50))
seg = bytearray(u1(0x20) + idb(0x100) + u4(0) + idb(0) * 6 + u4(0) + b'\0' * 6)
nid = 0x10000
for a in range(15):
    arr = nid + 16 * 100001 * a
    seg += u1(0x01) + idb(arr) + idb(0)
    seg += u1(0x22) + idb(arr) + u4(0) + u4(100000) + idb(0x100)
    seg += b''.join(idb(arr + 16 * (i + 1)) for i in range(100000))
    for i in range(100000):
        seg += u1(0x23) + idb(arr + 16 * (i + 1)) + u4(0) + u4(i % 4) + u1(8) + b'\0' * (i % 4)
rec(0x1c, bytes(seg))
rec(0x2c, b'')
EOP
"$TM" hprof holders "$T/many.hprof" --json -n 3 >"$T/many.json" 2>"$T/many.err" &
pid=$!
anon=0
while kill -0 $pid 2>/dev/null; do
	a=$(awk '/^RssAnon:/ { print $2 }' /proc/$pid/status 2>/dev/null)
	[ -n "$a" ] && [ "$a" -gt "$anon" ] && anon=$a
	sleep 0.01
done
wait $pid
temp=$(python3 -c 'import json,sys; j = json.load(open(sys.argv[1])); print(j["temp_disk_peak_bytes"], j["reachable"], j["top"][0]["retained_objects"])' "$T/many.json" 2>&1)
# 15 arrays, their 1.5 M elements and the arrays' class mirror
check_eq holders_many_objects_all_reachable "${temp#* }" "1500016 100001"
check holders_working_set_in_files [ "${temp%% *}" -gt 100000000 ]
test_expect "holders_anon_bounded (peak RssAnon $anon KiB for ${temp%% *} bytes of temporary files)" '
	[ "$anon" -lt 32768 ] ||
	test_why "peak RssAnon $anon KiB, over 32 MiB, for ${temp%% *} bytes of temporary files"'

if ! command -v javac >/dev/null || ! command -v jcmd >/dev/null; then
	skip holders_jvm "no javac/jcmd (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
javac -d "$T" "$TM_ROOT/tests/progs/java/Leak.java" || { fail holders_java_builds "javac failed"; finish; }
mkfifo "$T/in"
java -Xmx128m -XX:+UseSerialGC -cp "$T" Leak <"$T/in" >"$T/out" 2>&1 &
jpid=$!
exec 3>"$T/in"
i=0
while ! grep -q ready "$T/out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
jcmd $jpid GC.heap_dump "$T/leak.hprof" >/dev/null 2>&1
exec 3>&-
wait $jpid
"$TM" hprof holders "$T/leak.hprof" -n 3 --json >"$T/leak.json" 2>"$T/leak.err"
"$TM" hprof holders "$T/leak.hprof" -n 3 >"$T/leak.txt" 2>&1
# the map's retained bytes, by the layout rule (docs/hprof.md): the HashMap
# (48), its table of 32768 slots (16 + 4 x 32768), 20000 nodes (32 each),
# 20000 byte[1000] (1016 each), and the 19872 Integer keys outside the
# Integer cache (-128..127, held by that cache: 16 each)
want=$((48 + 16 + 4 * 32768 + 20000 * 32 + 20000 * 1016 + 19872 * 16))
got=$(python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))["top"][0]
path = " > ".join(s["via"] for s in h["path"])
parts = {p["class"]: p["objects"] for p in h["retains"]}
print(h["class"], h["retained_bytes"], h["retained_objects"], path.split(" > ")[-1], parts.get("[B"), parts.get("java.util.HashMap$Node"))
' "$T/leak.json" 2>&1)
check_eq holders_jvm_names_the_map "$got" "java.util.HashMap $want 59874 static Leak.index 20000 20000"
check holders_jvm_text_path grep -q "static Leak.index" "$T/leak.txt"
finish
