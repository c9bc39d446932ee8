#!/bin/sh
# An allocator linked into the program (docs/heap.md, "Allocators linked
# into the program"): the shim sees none of its calls, so the live heap
# comes from the allocator's own statistics, read inside the process at
# each sample and checked here against what the program itself reads
# through mallctl; the allocator is named from the executable's symbols;
# no exact peak is claimed; a program whose allocator has no statistics
# entry point gets n/a with the reason, never 0.  Debian ships no static
# mimalloc (libmimalloc-dev has only the shared library): not tested.
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs
fig() { "$TM" report -o "$1" --json | python3 -c "import json,sys; v=json.load(sys.stdin)['figures'].get('$2'); print('null' if v is None else int(v))"; }

# A non-PIE executable that takes malloc from libc and its address: dlsym
# finds its canonical PLT entry for malloc inside the executable, which is
# no allocator of its own (python3 on Debian is one): the shim counts it as
# usual, exactly.
cat >"$T/nopie.c" <<'EOF_C'
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* malloc's address taken, as python3 does for its default allocator: a
 * non-PIE executable then has a canonical PLT entry that stands for it */
void *(*volatile alloc)(size_t);
int main(void)
{
	char *b[40];
	alloc = malloc; /* an absolute address in the code: -no-pie's canonical PLT */
	for (int i = 0; i < 40; i++)
		memset(b[i] = alloc(1 << 20), 1, 1 << 20);
	sleep(1);
	for (int i = 0; i < 40; i++)
		free(b[i]);
	return 0;
}
EOF_C
if ${CC:-cc} -O1 -no-pie -fno-pie -o "$T/nopie" "$T/nopie.c" 2>"$T/nopie.cc"; then
	"$TM" record --heap -i 200ms -o "$T/nopie.db" -- "$T/nopie" >"$T/nopie.out" 2>&1
	live=$(fig "$T/nopie.db" heap_live_peak_bytes)
	rep=$("$TM" report -o "$T/nopie.db")
	test_expect "heap_static_nopie_counted (live peak $live)" '
		[ "$live" != null ] && [ "$live" -ge 41943040 ] && ! echo "$rep" | grep -q "(static)" ||
		test_why "live peak $live (want >= 41943040), $(echo "$rep" | grep -E '\''machine|  heap'\''); $(tail -3 "$T/nopie.out")"'
else
	skip heap_static_nopie_counted "no C compiler for a -no-pie program: $(head -1 "$T/nopie.cc")"
fi

if [ ! -x "$P/static_je" ]; then
	skip heap_static "no $P/static_je: libjemalloc-dev (libjemalloc.a) not installed"
	finish
fi
# what jemalloc counted as allocated inside the program while it held its blocks
own() { sed -n 's/^allocated=//p' "$1"; }
# |A - B| <= 256 KiB: the allocator's own figure, read at two moments of a
# program that allocates nothing in between but tidemark's answering thread
# (its stack is mmapped; its TLS block is a few KiB)
near() { [ "$1" -ge $(($2 - 262144)) ] && [ "$1" -le $(($2 + 262144)) ]; }

# name PROG ALLOCATOR: records PROG holding 40 MiB for 2 s
run() {
	"$TM" record --heap -i 200ms -o "$T/$1.db" -- "$P/$1" 40 2 >"$T/$1.out" 2>"$T/$1.err"
}

for prog in static_je static_rjem static_tc; do
	case $prog in
	static_je) name="jemalloc (static)" fam=jemalloc ;;
	static_rjem) name="glibc+jemalloc (static)" fam=jemalloc ;;
	*) name="tcmalloc (static)" fam=tcmalloc ;;
	esac
	if [ ! -x "$P/$prog" ]; then
		skip "heap_static_$prog" "no $P/$prog: libgoogle-perftools-dev (libtcmalloc_minimal.a) not installed"
		continue
	fi
	if ! run $prog; then
		fail "heap_static_$prog" "record failed: $(cat "$T/$prog.err")"
		continue
	fi
	rep=$("$TM" report -o "$T/$prog.db")
	test_expect "heap_static_${prog}_named" '
		echo "$rep" | grep -q "allocator $name ($prog)" ||
		test_why "wanted '\''allocator $name ($prog)'\'' in: $(echo "$rep" | grep machine)"'
	live=$(fig "$T/$prog.db" heap_live_peak_bytes)
	mine=$(own "$T/$prog.out")
	test_expect "heap_static_${prog}_live" '
		[ "$live" != null ] && [ -n "$mine" ] && near "$live" "$mine" ||
		test_why "tidemark'\''s live $live, the program'\''s own stats.allocated $mine (within 256 KiB)"'
	peak=$(fig "$T/$prog.db" heap_peak_bytes)
	procs=$(fig "$T/$prog.db" heap_exe_procs)
	test_expect "heap_static_${prog}_no_exact_peak" '
		[ "$peak" = null ] && [ "$procs" = 1 ] &&
		echo "$rep" | grep -q "live peak n/a ($fam is linked into the executable: live from its own statistics at each sample, peak between samples unknown)" ||
		test_why "heap_peak_bytes $peak (want null), heap_exe_procs $procs (want 1); $(echo "$rep" | grep '\''  heap'\'')"'
done

# the region from inside: the program asks its own region the way the
# recorder does (tests/progs/static_alloc.c "self"; tests/e2e/aarch64.sh
# runs the same under qemu-aarch64)
for prog in static_je static_rjem static_tc; do
	[ -x "$P/$prog" ] || continue
	check "heap_static_${prog}_region" env TIDEMARK_HEAP_KEEP=2 TIDEMARK_HEAP_DIR="$T" \
		LD_PRELOAD="$TM_BUILD/libtidemark-heap.so" "$P/$prog" 20 0 self
done

# stripped: the allocator and its entry points are not in its symbols
if run static_je_stripped; then
	rep=$("$TM" report -o "$T/static_je_stripped.db")
	live=$(fig "$T/static_je_stripped.db" heap_live_peak_bytes)
	test_expect heap_static_stripped_na '
		[ "$live" = null ] && echo "$rep" | grep -q "allocator malloc (static)" &&
		echo "$rep" | grep -q "  heap        live n/a (malloc is linked into the executable, and it gives no allocated figure tidemark can read" ||
		test_why "live $live (want null); $(echo "$rep" | grep -E '\''machine|  heap'\'')"'
else
	fail heap_static_stripped_na "record failed: $(cat "$T/static_je_stripped.err")"
fi
finish
