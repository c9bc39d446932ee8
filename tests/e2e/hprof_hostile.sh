#!/bin/sh
# tidemark hprof top on hostile and damaged dumps (no JVM needed: a small
# dump is written here the way HotSpot lays one out, docs/hprof.md):
# - every truncation of it exits non-zero with a message, never a crash;
# - a dump cut inside its heap prints the histogram of what it read,
#   marked PARTIAL (and "partial": true in JSON), and exits 1;
# - a gzip-compressed dump is read directly, with the same rows;
# - a dump of huge strings costs bounded memory (max RSS), not its size.
. "$(dirname "$0")/../lib.sh"

# mkdump FILE [BIG_STRINGS MIB]: the dump of tests/unit/test_hprof.c's build()
# (8-byte ids), with BIG_STRINGS extra strings of MIB MiB before its classes.
mkdump()
{
	/usr/bin/python3 - "$@" <<'EOP'
import struct, sys
out = open(sys.argv[1], "wb")
big, mib = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (0, 0)
u1 = lambda v: struct.pack(">B", v)
u2 = lambda v: struct.pack(">H", v)
u4 = lambda v: struct.pack(">I", v)
ident = lambda v: struct.pack(">Q", v)
def rec(tag, body): out.write(u1(tag) + u4(0) + u4(len(body)) + body)
out.write(b"JAVA PROFILE 1.0.2\0" + u4(8) + u4(0) + u4(0))
for i in range(big):
    out.write(u1(1) + u4(0) + u4(8 + (mib << 20)) + ident(0x9000 + i))
    chunk = b"x" * (1 << 20)
    for _ in range(mib):
        out.write(chunk)
for sid, s in ((0x50, b"java/lang/Object"), (0x51, b"Leaf"), (0x52, b"Node"), (0x53, b"[Ljava/lang/Object;")):
    rec(1, ident(sid) + s)
for cls, name in ((0x100, 0x50), (0x200, 0x51), (0x300, 0x52), (0x400, 0x53)):
    rec(2, u4(1) + ident(cls) + u4(0) + ident(name))
def class_dump(cls, sup, types):
    b = u1(0x20) + ident(cls) + u4(0) + ident(sup) + ident(0) * 5 + u4(99) + u2(0)
    b += u2(1) + ident(0x700) + u1(10) + u4(42) + u2(len(types))
    for i, t in enumerate(types):
        b += ident(0x800 + i) + u1(t)
    return b
def instance(obj, cls, n): return u1(0x21) + ident(obj) + u4(0) + ident(cls) + u4(n) + b"\xab" * n
heap = u1(0xff) + ident(0x10) + u1(0x08) + ident(0x11) + u4(1) + u4(2)
heap += class_dump(0x100, 0, []) + class_dump(0x200, 0x100, [10, 11, 2]) + class_dump(0x300, 0x200, [8, 9, 2])
for i in range(3):
    heap += instance(0x1000 + i, 0x200, 4 + 8 + 8)
heap += instance(0x2000, 0x300, 4 + 8 + 8 + 1 + 2 + 8)
heap += u1(0x23) + ident(0x3000) + u4(0) + u4(10) + u1(8) + bytes(range(10))
heap += u1(0x22) + ident(0x3001) + u4(0) + u4(3) + ident(0x400) + b"".join(ident(0x1000 + i) for i in range(3))
rec(0x1c, heap)
rec(0x2c, b"")
EOP
}

D=$T/small.hprof
mkdump "$D"
check "hprof top reads the whole small dump" sh -c "'$TM' hprof top '$D' | grep -q Leaf"

# every truncation: non-zero, a message on stderr, no signal
size=$(stat -c %s "$D")
len=0 silent=0 crashed=0 partial=0 bad=""
while [ $len -lt "$size" ]; do
	head -c $len "$D" >"$T/cut.hprof"
	"$TM" hprof top "$T/cut.hprof" >"$T/cut.out" 2>"$T/cut.err"
	rc=$?
	if [ $rc -eq 0 ] || [ ! -s "$T/cut.err" ]; then
		silent=$((silent + 1))
		bad="$bad $len:rc=$rc"
	fi
	[ $rc -ge 128 ] && crashed=$((crashed + 1))
	grep -q '^PARTIAL' "$T/cut.out" && partial=$((partial + 1))
	len=$((len + 1))
done
test_expect "each of $size truncations exits non-zero with a message ($partial print a partial histogram)" '
	[ $silent -eq 0 ] && [ $crashed -eq 0 ] ||
	test_why "$silent accepted or silent (cut:status$(echo "$bad" | cut -c1-300)), $crashed crashed"'

# a cut inside the heap, after the instances: their rows, marked partial
cut=$((size - 60))
head -c $cut "$D" >"$T/part.hprof"
"$TM" hprof top "$T/part.hprof" >"$T/part.out" 2>"$T/part.err"
rc=$?
"$TM" hprof top --json "$T/part.hprof" >"$T/part.json" 2>/dev/null
test_expect "a dump cut inside its heap prints what it read, marked partial, and exits 1" '
	[ $rc -eq 1 ] && grep -q "^PARTIAL" "$T/part.out" && grep -qE '\'' 3 .* Leaf$'\'' "$T/part.out" &&
	grep -q "truncated at offset" "$T/part.err" &&
	/usr/bin/python3 -c '\''import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["partial"] is True else 1)'\'' "$T/part.json" ||
	test_why "rc $rc, out: $(head -4 "$T/part.out"), err: $(cat "$T/part.err")"'

# gzip: the same rows as the plain dump
gzip -c "$D" >"$T/small.hprof.gz"
"$TM" hprof top "$D" | tail -n +2 >"$T/plain.rows"
"$TM" hprof top "$T/small.hprof.gz" >"$T/gz.out" 2>&1
rc=$?
test_expect "a gzip-compressed dump is read directly, with the plain dump's rows" '
	[ $rc -eq 0 ] && tail -n +2 "$T/gz.out" | cmp -s - "$T/plain.rows" ||
	test_why "rc $rc: $(head -3 "$T/gz.out")"'
head -c $(($(stat -c %s "$T/small.hprof.gz") - 20)) "$T/small.hprof.gz" >"$T/cut.hprof.gz"
check_fails "a cut gzip dump is said" "truncated|unexpected end|cannot read" "$TM" hprof top "$T/cut.hprof.gz"

# memory: 4 strings of 32 MiB (a 128 MiB dump) must not cost 128 MiB
mkdump "$T/big.hprof" 4 32
rss=$(/usr/bin/time -f %M "$TM" hprof top "$T/big.hprof" 2>&1 >/dev/null | tail -1)
rm -f "$T/big.hprof"
bounded=0
[ -n "$rss" ] && [ "$rss" -lt 65536 ] && bounded=1
what="a dump of 128 MiB of strings is read in bounded memory"
[ $bounded = 1 ] && what="a dump of 128 MiB of strings is read in $((rss / 1024)) MiB of RSS (< 64)"
test_expect "$what" '
	[ $bounded = 1 ] ||
	test_why "max RSS '\''$rss'\'' KiB (want < 65536)"'
finish
