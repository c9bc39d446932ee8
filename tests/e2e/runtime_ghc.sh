#!/bin/sh
# --runtime ghc on a real Haskell program that exits normally
# (tests/progs/haskell/Hold.hs: a Map of 200000 Ints live across two major
# GCs, then its own GHC.Stats printed, then exit).  The RTS collects once
# more while it shuts down, with every thread gone (Live 44376 bytes): that
# teardown GC is not "live after the last GC".  The stored live heap equals
# the program's own gcdetails_live_bytes, the GC count its own gcs; the -S
# lines still reach stderr unchanged.  When the program's own options send
# -S to a file (+RTS -S<file>, or GHCRTS), the recorder adds no -S of its
# own, leaves stderr alone and reads the file, never a stale one.
. "$(dirname "$0")/../lib.sh"

if ! command -v ghc >/dev/null; then
	skip runtime_ghc "no ghc (scripts/deps.sh --test installs Debian's ghc 9.0)"
	finish
fi
if ! ghc -O1 -rtsopts -outputdir "$T/o" -o "$T/hold" "$TM_ROOT/tests/progs/haskell/Hold.hs" \
	>"$T/build.log" 2>&1; then
	fail runtime_ghc_builds "$(tail -5 "$T/build.log")"
	finish
fi

# the program's own figures: "max_live_bytes M gcdetails_live_bytes L gcs G"
own() { sed -n 's/^max_live_bytes [0-9]* gcdetails_live_bytes \([0-9]*\) gcs \([0-9]*\)$/\1 \2/p' "$1"; }
stored() {
	"$TM" report -o "$1" --json | jq -r '.figures | "\(.gc_heap_live_end_bytes) \(.gc_cycles)"'
}

"$TM" record -o "$T/g.db" -i 100ms --no-cgroup --runtime ghc -- "$T/hold" 200000 \
	>"$T/out" 2>"$T/err"
want=$(own "$T/out")
got=$(stored "$T/g.db")
test_expect "live after the last GC and GCs: the program's own, not the teardown's" '[ -n "$want" ] && [ "$got" = "$want" ] || test_why "stored '\''$got'\'', GHC.Stats '\''$want'\''; $(tail -4 "$T/err")"'
"$TM" report -o "$T/g.db" >"$T/rep"
test_expect "report: the GHC line, without Go's whole MiB" 'grep -q '\''^  gc heap     live after the last GC 12\.[0-9] MiB, peak [0-9.]* MiB; [0-9]* GCs (the runtime.s own GC lines)$'\'' "$T/rep" || test_why "$(grep '\''gc heap'\'' "$T/rep")"'
test_expect "the -S lines, the RTS's exit line with them, still reach stderr" 'grep -q '\''^ *0  *0\.000  *0\.000$'\'' "$T/err" && grep -q '\''(Gen:  1)$'\'' "$T/err" || test_why "$(tail -3 "$T/err")"'

# the program's own +RTS -S<file>, over a stale file of another run
printf '%s\n' '  1031544  12798760  99999999  0.006  0.056    0.042    0.336    0    0  (Gen:  1)' >"$T/gc.log"
touch -d '2020-01-01' "$T/gc.log"
"$TM" record -o "$T/f.db" -i 100ms --no-cgroup --runtime ghc -- "$T/hold" 200000 +RTS "-S$T/gc.log" -RTS \
	>"$T/out" 2>"$T/err"
want=$(own "$T/out")
got=$(stored "$T/f.db")
test_expect "+RTS -S<file>: read from its file, not the stale one" '[ -n "$want" ] && [ "$got" = "$want" ] || test_why "stored '\''$got'\'', GHC.Stats '\''$want'\''"'
test_expect "+RTS -S<file>: stderr untouched, the file the RTS's" '! grep -q '\''(Gen:'\'' "$T/err" && grep -q '\''(Gen:  1)$'\'' "$T/gc.log" && ! grep -q 99999999 "$T/gc.log" || test_why "$(head -3 "$T/err")"'

GHCRTS="-S$T/gc2.log" "$TM" record -o "$T/e.db" -i 100ms --no-cgroup --runtime ghc -- \
	"$T/hold" 100000 >"$T/out" 2>"$T/err"
want=$(own "$T/out")
got=$(stored "$T/e.db")
test_expect "GHCRTS=-S<file>: read from its file" '[ -n "$want" ] && [ "$got" = "$want" ] && ! grep -q '\''(Gen:'\'' "$T/err" || test_why "stored '\''$got'\'', GHC.Stats '\''$want'\''; $(head -2 "$T/err")"'
finish
