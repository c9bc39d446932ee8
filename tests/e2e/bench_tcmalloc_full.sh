#!/bin/sh
# The allocator added through the registry (src/base/allocators.h):
# tcmalloc-full, gperftools' full libtcmalloc.so.4.  Its shortcut resolves to
# that library (not the minimal one the tcmalloc arm takes), a real bench of
# it against tcmalloc runs, /proc/PID/maps shows its family, and the heap
# shim reads its own statistics (the allocator-held figure).
. "$(dirname "$0")/../lib.sh"
P=$TM_BUILD/progs/bench_alloc
if [ ! -x "$P" ]; then
	skip "bench tcmalloc-full" "build/progs/bench_alloc is not built (make check builds it)"
	finish
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip "bench tcmalloc-full" "python3 is needed to read the JSON table"
	finish
fi

out=$("$TM" bench --arm tcmalloc --arm tcmalloc-full --dry-run -- true 2>&1)
echo "$out" | grep -qE 'tcmalloc-full +allocator tcmalloc +env: LD_PRELOAD=/[^ ]*/libtcmalloc\.so\.4$' &&
	echo "$out" | grep -qE '^  tcmalloc +allocator tcmalloc +env: LD_PRELOAD=/[^ ]*/libtcmalloc_minimal\.so\.4$'
resolved=$?
test_expect "tcmalloc-full resolves to the full libtcmalloc.so.4, tcmalloc to the minimal one" '
	[ $resolved -eq 0 ] || test_why "$out"'
[ $resolved -eq 0 ] || finish
TIDEMARK_LIB_PATH=$T check_fails "a missing full tcmalloc names its Debian package" \
	"install the Debian package libgoogle-perftools4" "$TM" bench --arm tcmalloc-full --dry-run -- true
check_fails "an unknown allocator lists the registry's, tcmalloc-full too" \
	"expected an allocator: glibc, arena1, jemalloc, mimalloc, tcmalloc or tcmalloc-full" \
	"$TM" bench --arm x:Allocator=tcmalloc-fool -- true

# the work ends at the last step with the program alive and holding (--settle),
# so what the allocator holds after it is measured, not n/a (issue 19)
"$TM" bench -o "$T/b.db" --runs 1 -i 100ms --settle 300ms --heap --arm tcmalloc --arm tcmalloc-full \
	--progress 'progress=([0-9]+)' --until-progress 2 \
	--export "json:$T/t.json" -- "$P" --mib 16 --steps 2 --step-ms 50 --hold-ms 800 \
	>"$T/out.txt" 2>&1
rc=$?
res=$(python3 - "$T/t.json" <<'PY' 2>&1
import json, sys
t = json.load(open(sys.argv[1]))
a = {x["name"]: x for x in t["arms"]}
f = a["tcmalloc-full"]
held = f["figures"]["allocator_held_end_bytes"]["median"]
print(f["allocator"], f["survived"], f["runs"], held is not None and held > 0)
PY
)
test_expect "a bench of the tcmalloc-full arm runs, survives the maps check, and its held figure is read" '
	[ $rc -eq 0 ] && [ "$res" = "tcmalloc-full 1 1 True" ] ||
	test_why "rc $rc, want '\''tcmalloc-full 1 1 True'\'', got '\''$res'\''; $(tail -5 "$T/out.txt")"'
maps=$(sqlite3 "$T/b.db" "SELECT allocator FROM runs WHERE arm = 'tcmalloc-full'" 2>&1)
check_eq "the run's mapped allocator is tcmalloc's family" "$maps" "tcmalloc (bench_alloc)"
finish
