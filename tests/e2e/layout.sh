#!/bin/sh
# The executable's layout (mk/layout.mk, issue 23): what a plain recorder
# maps.  The libraries loaded when first used are in no NEEDED entry; the
# functions mk/record.order names are all in the build and lie together at
# the start of .text, its source files' strings at the start of .rodata;
# the executable exports what libtidemark-net.so takes from it, not every
# symbol; and a recording maps fewer of its pages than the executable has.
. "$(dirname "$0")/../lib.sh"

ORDER=$TM_ROOT/mk/record.order
needed=$(readelf -dW "$TM" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
test_expect "the libraries loaded when used are not linked (libsystemd, libdw, zlib, inih)" '
	! echo "$needed" | grep -Eq "libsystemd|libdw|libz\.|libinih" &&
	echo "$needed" | grep -q "libjansson" || test_why "NEEDED: $needed"'
# SQLite is linked in (the Makefile's CORE_LIBS): the executable defines it
# and needs no libsqlite3.so, and nothing it loads brings a second SQLite
# into the process (two copies of SQLite in one process do not see each
# other's POSIX locks, and corrupt a store both write)
netneed=$(readelf -dW "$TM_BUILD/libtidemark-net.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
netsql=$(nm -D -u "$TM_BUILD/libtidemark-net.so" | grep -c " sqlite3_" || true)
test_expect "SQLite is linked into the executable, and libtidemark-net.so has none of its own" '
	nm --defined-only "$TM" | grep -q " T sqlite3_open_v2$" && ! echo "$needed" | grep -q libsqlite3 &&
	! echo "$netneed" | grep -q libsqlite3 && [ "$netsql" -eq 0 ] ||
	test_why "NEEDED: $needed; libtidemark-net.so NEEDED: $netneed, $netsql sqlite3_ symbols taken"'

# every name of the order file is a function of the build: a renamed or
# inlined one fails here rather than silently leaving the recorder's text
nm --defined-only "$TM" | awk '$2 ~ /^[tT]$/ { print $3 }' | LC_ALL=C sort -u >"$T/funcs"
grep -v '^#' "$ORDER" | grep -v '\.c$' | grep -v ':' | LC_ALL=C sort -u >"$T/order"
missing=$(LC_ALL=C comm -23 "$T/order" "$T/funcs" | head -20 | tr '\n' ' ')
test_expect "every function mk/record.order names is in the build" '
	[ -s "$T/order" ] && [ -z "$missing" ] ||
	test_why "not in build/tidemark: $missing(sh bench/record/order.sh > mk/record.order makes it anew)"'
nofile=$(grep '\.c$' "$ORDER" | while read -r f; do [ -f "$TM_ROOT/$f" ] || printf '%s ' "$f"; done)
test_expect "every source file it names exists" '
	[ -n "$(grep "\.c$" "$ORDER")" ] && [ -z "$nofile" ] || test_why "no such file: $nofile"'

# every archive member it names is one of SQLite's
ar t "$(cc -print-file-name=libsqlite3.a)" | sed 's/^/libsqlite3.a:/' | LC_ALL=C sort -u >"$T/members"
nomember=$(grep '^[^#].*\.a:' "$ORDER" | LC_ALL=C sort -u | LC_ALL=C comm -23 - "$T/members" |
	head -5 | tr '\n' ' ')
test_expect "every archive member it names is in libsqlite3.a" '
	[ -n "$(grep "\.a:" "$ORDER")" ] && [ -z "$nomember" ] || test_why "not in libsqlite3.a: $nomember"'

# the listed functions together: the span from the first to the end of the
# last is their summed size, give or take alignment (16 bytes a function),
# and no other function of the build lies inside it
nm -S --defined-only "$TM" | awk '$3 ~ /^[tT]$/ && NF == 4 { print $4, $1, $2 }' |
	LC_ALL=C sort -k1,1 >"$T/sized"
span=$(LC_ALL=C join "$T/order" "$T/sized" | python3 -c '
import sys
rows = [(int(a, 16), int(s, 16)) for _, a, s in (l.split() for l in sys.stdin)]
lo = min(a for a, s in rows); hi = max(a + s for a, s in rows); total = sum(s for a, s in rows)
print(lo, hi, total, len(rows))')
read -r lo hi total nfn <<EOF
$span
EOF
inside=$(awk -v lo="$lo" -v hi="$hi" 'NR == FNR { listed[$1] = 1; next }
	!($1 in listed) { a = 0; h = $2; n = length(h)
		for (i = 1; i <= n; i++) a = a * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		if (a >= lo && a < hi) print $1 }' "$T/order" "$T/sized" | head -5 | tr '\n' ' ')
test_expect "the recorder's functions lie together, nothing else among them" '
	[ "$nfn" -gt 100 ] && [ $((hi - lo)) -le $((total + 16 * nfn)) ] && [ -z "$inside" ] ||
	test_why "$nfn functions of $total bytes span $((hi - lo)) bytes; others inside: $inside"'

# and none comes in at run time: a server (libtidemark-net.so,
# libmicrohttpd, GnuTLS) and a recorder pushing to it (libcurl) map no
# libsqlite3.so
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT
"$TM" serve token add box --db "$T/s.db" >"$T/box.tok" 2>"$T/tok.err" && chmod 600 "$T/box.tok"
if start_server "$T/s.db"; then
	"$TM" record -q -o "$T/p.db" -i 100ms --push "$URL" --token-file "$T/box.tok" -- sleep 3 \
		>/dev/null 2>"$T/push.err" &
	pp=$!
	sleep 2
	srvmaps=$(awk '{ print $6 }' "/proc/$SRV_PID/maps" | grep '\.so' | sort -u | tr '\n' ' ')
	pushmaps=$(awk '{ print $6 }' "/proc/$pp/maps" 2>/dev/null | grep '\.so' | sort -u | tr '\n' ' ')
	wait $pp
	test_expect "a server and a pushing recorder map no libsqlite3.so beside the SQLite linked in" '
		case $srvmaps in *libmicrohttpd*) ;; *) false ;; esac &&
		case $pushmaps in *libcurl*) ;; *) false ;; esac &&
		! echo "$srvmaps $pushmaps" | grep -q libsqlite3 ||
		test_why "server maps: $srvmaps; recorder maps: $pushmaps; $(tail -2 "$T/push.err")"'
	stop_server
else
	fail "a server starts" "$(cat "$T/srv.err" "$T/tok.err" 2>/dev/null)"
fi

exported=$(nm -D --defined-only "$TM" | wc -l)
test_expect "the executable exports what libtidemark-net.so uses, not every symbol" '
	[ "$exported" -gt 20 ] && [ "$exported" -lt 300 ] &&
	nm -D --defined-only "$TM" | grep -q " tm_store_open" || test_why "$exported exported"'

# a recording maps little of the executable's text past what the list
# names: the listed functions and SQLite's listed members lie first, and
# the kernel's 64 KiB fault-around (a whole large folio on newer kernels)
# maps them and little more, not the rest of the text (report, bench,
# serve; SQLite's members no recording runs)
nm -A --defined-only "$(cc -print-file-name=libsqlite3.a)" 2>/dev/null |
	awk '$2 ~ /^[tT]$/ { split($1, p, ":"); print $3, "libsqlite3.a:" p[2] }' >"$T/memberfns"
"$TM" record -q -o "$T/r.db" -i 100ms -- sleep 2 >/dev/null 2>&1 &
rp=$!
sleep 1
past=$(python3 - "$rp" "$(readlink -f "$TM")" "$ORDER" "$T/memberfns" "$T/sized" <<'PY' 2>&1
import struct, sys
pid, exe, order, memberfns, sized = sys.argv[1:]
listed = {l.strip() for l in open(order) if l.strip() and not l.startswith("#")}
member = dict(l.split() for l in open(memberfns))
# the first function that neither the list nor a listed member names, past
# the first listed one: where the rest of the text begins
funcs = [(int(a, 16), n) for n, a, s in (l.split() for l in open(sized))]
first = min(a for a, n in funcs if n in listed)
rest = min(a for a, n in funcs if a > first and n not in listed and member.get(n) not in listed)
end = max(a for a, n in funcs)
for line in open(f"/proc/{pid}/maps"):
    f = line.split()
    if len(f) > 5 and f[5] == exe and f[1] == "r-xp":
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        base = lo - int(f[2], 16)
        break
pm = open(f"/proc/{pid}/pagemap", "rb")
n = 0
for page in range((base + rest) // 4096, min(hi, base + end) // 4096 + 1):
    pm.seek(page * 8)
    n += struct.unpack("Q", pm.read(8))[0] >> 63
print(n * 4, (end - rest) // 1024)
PY
)
wait $rp
test_expect "a recording maps at most 128 KiB of the text past what mk/record.order names" '
	[ "${past%% *}" -ge 0 ] 2>/dev/null && [ "${past%% *}" -le 128 ] ||
	test_why "resident past the listed: ${past%% *} KiB of ${past#* } KiB"'
finish
