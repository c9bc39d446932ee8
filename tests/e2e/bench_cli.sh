#!/bin/sh
# bench: help, bad arguments, the experiment file, the guard, allocator
# shortcuts.  Nothing here runs a workload (see bench_runs.sh).
. "$(dirname "$0")/../lib.sh"
DB=$T/b.db
FIX=$TM_ROOT/tests/fixtures/bench

test_expect "bench --help shows usage with examples" '
	out=$("$TM" bench --help 2>&1) && echo "$out" | grep -q "^examples:" ||
	test_why "$out"'
check_fails "unknown option exits 2" "bad option '--bogus'" "$TM" bench --bogus
check_fails "no arms" "no arms" "$TM" bench -o "$DB" -- true
check_fails "no command" "no command for arm 'glibc'" "$TM" bench -o "$DB" --arm glibc
check_fails "bad arm setting" "'oops' is not KEY=VALUE" "$TM" bench --arm x:oops -- true
check_fails "unknown allocator" "Allocator 'ptmalloc9': expected an allocator" "$TM" bench --arm x:Allocator=ptmalloc9 -- true
check_fails "bad runs" "runs '0': expected a count" "$TM" bench --arm glibc --runs 0 -- true
check_fails "bad order" "interleave or shuffle" "$TM" bench --arm glibc --order random -- true
check_fails "until-progress needs a regex" "needs --progress" "$TM" bench --arm glibc --until-progress 5 -- true
check_fails "progress window needs a regex" "needs --progress" "$TM" bench --arm glibc --window 1:5 -- true
check_fails "bad restore" "expected SNAPSHOT:DIR" "$TM" bench --arm glibc --restore nowhere -- true
check_fails "table of a store that is not there" "cannot open store" "$TM" bench -o "$T/none.db" --table 42

# INI errors name the file and the line
check_fails "INI: unknown key names the line" "bad_key.ini:6: unknown key 'Colour'" "$TM" bench -f "$FIX/bad_key.ini" -- true
check_fails "INI: syntax error names the line" "bad_syntax.ini:4: syntax error" "$TM" bench -f "$FIX/bad_syntax.ini" -- true
check_fails "INI: bad size names the line" "bad_size.ini:4: .arena1. MemoryMax 'lots': expected a size like" "$TM" bench -f "$FIX/bad_size.ini" -- true
check_fails "INI: missing file" "cannot read" "$TM" bench -f "$T/none.ini" -- true

# the experiment file: arms in order, per-arm commands and limits
out=$("$TM" bench -f "$FIX/good.ini" --dry-run 2>&1)
test_expect "INI: arms, environments, limits and ExecStart= per arm" '
	echo "$out" | grep -q "^  glibc .*no allocator variables" &&
	echo "$out" | grep -q "arena1 .*MALLOC_ARENA_MAX=1" &&
	echo "$out" | grep -q "MemoryMax=400M MemoryHigh=350M" &&
	echo "$out" | grep -q "command: build/churn --threads 6 --rounds 6 --extra" ||
	test_why "$out"'

# shortcuts resolve to this host's libraries, and say which package is missing
out=$("$TM" bench --arm glibc --arm jemalloc --arm mimalloc --arm tcmalloc --arm arena1 --dry-run -- true 2>&1)
test_expect "allocator shortcuts resolve to this host's libraries" '
	echo "$out" | grep -qE '\''jemalloc +allocator jemalloc +env: LD_PRELOAD=/[^ ]*libjemalloc\.so\.2'\'' &&
	echo "$out" | grep -qE "mimalloc +allocator mimalloc +env: LD_PRELOAD=/[^ ]*libmimalloc" &&
	echo "$out" | grep -qE "tcmalloc +allocator tcmalloc +env: LD_PRELOAD=/[^ ]*libtcmalloc" &&
	echo "$out" | grep -qE '\''arena1 +allocator glibc +env: MALLOC_ARENA_MAX=1$'\'' ||
	test_why "$out"'
TIDEMARK_LIB_PATH=$T check_fails "a missing library names the Debian package" \
	"install the Debian package libjemalloc2" "$TM" bench --arm glibc --arm jemalloc --dry-run -- true

# the guard: a leftover LD_PRELOAD (or MALLOC_*) no arm declares refuses to start
JE=$(echo "$out" | sed -n 's/.*LD_PRELOAD=\([^ ]*libjemalloc[^ ]*\).*/\1/p' | head -1)
check_fails "the guard refuses a leftover LD_PRELOAD" "refusing to start.*" \
	env LD_PRELOAD="$JE" "$TM" bench -o "$DB" --arm glibc --arm jemalloc -- true
out=$(env LD_PRELOAD="$JE" "$TM" bench -o "$DB" --arm glibc --arm jemalloc -- true 2>&1)
test_expect "the guard names the variable" '
	echo "$out" | grep -q "LD_PRELOAD=$JE" || test_why "$out"'
check_fails "the guard refuses a leftover MALLOC_ARENA_MAX" "MALLOC_ARENA_MAX=2" \
	env MALLOC_ARENA_MAX=2 "$TM" bench --arm glibc --dry-run -- true
check "an arm that declares the variable is fine" \
	env MALLOC_ARENA_MAX=2 "$TM" bench --arm glibc --arm two:MALLOC_ARENA_MAX=2 --dry-run -- true
out=$(env MALLOC_ARENA_MAX=2 "$TM" bench --arm glibc --arm two:MALLOC_ARENA_MAX=2 --dry-run -- true 2>&1)
test_expect "a variable one arm declares does not leak into the control" '
	echo "$out" | grep -qE "^  glibc .*no allocator variables" || test_why "$out"'
out=$(env MALLOC_ARENA_MAX=2 "$TM" bench --inherit-env --arm glibc --dry-run -- true 2>&1)
test_expect "--inherit-env keeps it and shows it" '
	echo "$out" | grep -qE "^  glibc .*env: MALLOC_ARENA_MAX=2" || test_why "$out"'
finish
