#!/bin/sh
# tidemark hprof top on real HotSpot dumps: for a quiesced JVM, every class's
# instances and shallow bytes equal jcmd GC.class_histogram's taken around
# the dump (java.lang.Class aside: docs/hprof.md), under the default layout
# and with compressed oops and class pointers off; JSON and CSV; truncated
# and foreign files refused with the offset.
. "$(dirname "$0")/../lib.sh"
JAVA_SRC=$TM_ROOT/tests/progs/java/Hold.java

if ! command -v javac >/dev/null || ! command -v jcmd >/dev/null; then
	skip hprof_jvm "no javac/jcmd (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
javac -d "$T" "$JAVA_SRC" || { fail hprof_java_builds "javac failed"; exit 1; }

# dump_jvm TAG JAVA_FLAGS...: runs Hold, takes histogram, dump, histogram.
dump_jvm()
{
	tag=$1
	shift
	mkfifo "$T/$tag.in"
	java "$@" -Xmx128m -XX:+UseSerialGC -cp "$T" Hold <"$T/$tag.in" >"$T/$tag.out" 2>&1 &
	jpid=$!
	exec 3>"$T/$tag.in"
	i=0
	while ! grep -q ready "$T/$tag.out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	jcmd $jpid GC.class_histogram >"$T/$tag.h1" 2>&1
	jcmd $jpid GC.heap_dump "$T/$tag.hprof" >/dev/null 2>&1
	jcmd $jpid GC.class_histogram >"$T/$tag.h2" 2>&1
	exec 3>&-
	wait $jpid
}

# compare TAG: every class of ours equals h1 or h2 (but java.lang.Class).
compare()
{
	python3 - "$T/$1.h1" "$T/$1.h2" "$T/$1.csv" <<'EOP'
import csv, re, sys
def jcmd(path):
    rows = {}
    for line in open(path):
        m = re.match(r'\s*\d+:\s+(\d+)\s+(\d+)\s+(\S+)', line)
        if m:
            n, b = rows.get(m.group(3), (0, 0))
            rows[m.group(3)] = (n + int(m.group(1)), b + int(m.group(2)))
    return rows
h1, h2 = jcmd(sys.argv[1]), jcmd(sys.argv[2])
ours = {}
for r in csv.DictReader(open(sys.argv[3])):
    n, b = ours.get(r['class'], (0, 0))
    ours[r['class']] = (n + int(r['instances']), None if r['shallow_bytes'] == '' else b + int(r['shallow_bytes']))
bad = [k for k in set(h1) | set(ours) if k != 'java.lang.Class' and ours.get(k) not in (h1.get(k), h2.get(k))]
if not h1 or bad:
    print('%d classes differ of %d: %s' % (len(bad), len(h1), ', '.join('%s ours %s jcmd %s' % (k, ours.get(k), h1.get(k)) for k in sorted(bad)[:8])))
    sys.exit(1)
print('%d classes equal' % len(ours))
EOP
}

for arm in default full; do
	if [ $arm = default ]; then
		dump_jvm $arm
		flags=
	else
		dump_jvm $arm -XX:-UseCompressedOops -XX:-UseCompressedClassPointers
		flags="--oops full --class-pointers full"
	fi
	if [ ! -s "$T/$arm.hprof" ]; then
		fail "hprof_$arm: jcmd wrote a dump" "$(cat "$T/$arm.out" | head -5)"
		continue
	fi
	# shellcheck disable=SC2086 # two options or none
	"$TM" hprof top "$T/$arm.hprof" $flags --csv -n 0 >"$T/$arm.csv" 2>"$T/$arm.err"
	out=$(compare $arm)
	rc=$?
	test_expect "hprof_$arm: every class equals jcmd's histogram ($out)" '[ $rc -eq 0 ] || test_why "$out"'
done

# the known figures of the test program, in the text table
"$TM" hprof top "$T/default.hprof" -n 0 >"$T/top.txt" 2>&1
check hprof_text_leaf grep -qE '^ +10000 +0\.31 .* Hold\$Leaf$' "$T/top.txt"
check hprof_text_mirrors_na grep -qE '^ +[0-9]+ +n/a +java\.lang\.Class$' "$T/top.txt"
"$TM" hprof top "$T/default.hprof" --json -n 3 >"$T/top.json"
check hprof_json python3 -c "
import json, sys
d = json.load(open('$T/top.json'))
assert d['id_size'] == 8 and d['layout']['compressed_oops'] is True, d
assert len(d['rows']) == 3 and d['classes'] > 100, d
leaf = [r for r in d['rows'] if r['class'] == 'Hold\$Leaf']
assert leaf and leaf[0]['instances'] == 10000 and leaf[0]['shallow_bytes'] == 320000, d['rows']
"
"$TM" hprof top "$T/default.hprof" --json -n 0 >"$T/all.json"
check hprof_json_unknown_is_null python3 -c "
import json
rows = json.load(open('$T/all.json'))['rows']
assert [r for r in rows if r['class'] == 'java.lang.Class'][0]['shallow_bytes'] is None
"

# bad input: a clear message with the offset, exit 1, never a crash
size=$(stat -c %s "$T/default.hprof")
head -c $((size / 2)) "$T/default.hprof" >"$T/cut.hprof"
check_fails hprof_truncated "truncated at offset [0-9]+" "$TM" hprof top "$T/cut.hprof"
printf 'JAVA PROFILE 1.0.2\0\0\0\0\5\0\0\0\0\0\0\0\0' >"$T/id5.hprof"
check_fails hprof_bad_id_size "identifier size other than 4 or 8 at offset 19" "$TM" hprof top "$T/id5.hprof"
check_fails hprof_not_a_dump "not a valid HPROF dump: no 'JAVA PROFILE' header" "$TM" hprof top "$JAVA_SRC"
: >"$T/empty.hprof"
check_fails hprof_empty "an empty file" "$TM" hprof top "$T/empty.hprof"
check_fails hprof_missing "cannot open" "$TM" hprof top "$T/nope.hprof"
check_fails hprof_bad_usage "expected 'top DUMP'" "$TM" hprof "$T/default.hprof"
check_fails hprof_bad_oops "oops takes compressed or full" "$TM" hprof top "$T/default.hprof" --oops maybe
finish
