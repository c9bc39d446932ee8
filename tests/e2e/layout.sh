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
	echo "$needed" | grep -q "libsqlite3" || test_why "NEEDED: $needed"'

# every name of the order file is a function of the build: a renamed or
# inlined one fails here rather than silently leaving the recorder's text
nm --defined-only "$TM" | awk '$2 ~ /^[tT]$/ { print $3 }' | LC_ALL=C sort -u >"$T/funcs"
grep -v '^#' "$ORDER" | grep -v '\.c$' | LC_ALL=C sort -u >"$T/order"
missing=$(LC_ALL=C comm -23 "$T/order" "$T/funcs" | head -20 | tr '\n' ' ')
test_expect "every function mk/record.order names is in the build" '
	[ -s "$T/order" ] && [ -z "$missing" ] ||
	test_why "not in build/tidemark: $missing(sh bench/record/order.sh > mk/record.order makes it anew)"'
nofile=$(grep '\.c$' "$ORDER" | while read -r f; do [ -f "$TM_ROOT/$f" ] || printf '%s ' "$f"; done)
test_expect "every source file it names exists" '
	[ -n "$(grep "\.c$" "$ORDER")" ] && [ -z "$nofile" ] || test_why "no such file: $nofile"'

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

exported=$(nm -D --defined-only "$TM" | wc -l)
test_expect "the executable exports what libtidemark-net.so uses, not every symbol" '
	[ "$exported" -gt 20 ] && [ "$exported" -lt 300 ] &&
	nm -D --defined-only "$TM" | grep -q " tm_store_open" || test_why "$exported exported"'

# a recording maps few of the executable's pages: its text is 0.5 MiB, the
# recorder's part about 0.12 MiB, so the kernel's 64 KiB fault-around (a
# whole large folio on newer kernels) maps well under all of it
"$TM" record -q -o "$T/r.db" -i 100ms -- sleep 2 >/dev/null 2>&1 &
rp=$!
sleep 1
textk=$(awk -v exe="$(readlink -f "$TM")" '$0 ~ /^[0-9a-f]+-[0-9a-f]+ r-xp/ && $6 == exe { t = 1; next }
	/^[0-9a-f]+-/ { t = 0 } t && /^Rss:/ { print $2 }' "/proc/$rp/smaps" 2>/dev/null)
wait $rp
textall=$(size -A "$TM" | awk '$1 == ".text" { print int($2 / 1024) }')
test_expect "a recording maps under half of the executable's text" '
	[ -n "$textk" ] && [ "$textk" -lt $((textall / 2)) ] ||
	test_why "resident text ${textk:-?} KiB of ${textall} KiB"'
finish
