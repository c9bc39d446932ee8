#!/bin/sh
# Bad input gets a clear error and a non-zero exit before anything runs: arm
# names that are typos, memory limits no program can start in (record and
# bench, command line and experiment file), memory.high on cgroup v1 said to
# be a soft limit, and a bench table asked of a store that has no benches.
. "$(dirname "$0")/../lib.sh"
DB=$T/b.db

# ---- arm names ----
check_fails "an arm name that is no shortcut and sets nothing is refused, with the nearest" \
	"arm 'tcmaloc' is not a shortcut and sets nothing: did you mean 'tcmalloc'\\? \\(an arm with no settings on purpose: --arm tcmaloc:\\)" \
	"$TM" bench -o "$DB" --arm glibc --arm tcmaloc -- true
check_fails "a name far from every shortcut lists them" \
	"arm 'roomy' is not a shortcut \\(glibc, arena1, jemalloc, mimalloc, tcmalloc, tcmalloc-full\\)" \
	"$TM" bench -o "$DB" --arm glibc --arm roomy -- true
out=$("$TM" bench --arm glibc --arm plain: --dry-run -- true 2>&1)
test_expect "NAME: is an arm with no settings, on purpose" '
	echo "$out" | grep -qE '\''^  plain +allocator glibc +env: \(no allocator variables\)'\'' ||
	test_why "$out"'
printf '[bench]\nRuns=1\n[glibc]\n\n[tcmaloc]\n' >"$T/typo.ini"
check_fails "INI: an empty section that is no shortcut names the line and the nearest" \
	"typo.ini:5: arm 'tcmaloc' is not a shortcut and sets nothing: did you mean 'tcmalloc'" \
	"$TM" bench -f "$T/typo.ini" -- true
printf '[glibc]\n[plain]\nAllocator=glibc\n' >"$T/plain.ini"
check "INI: Allocator=glibc makes an arm with nothing else changed explicit" \
	"$TM" bench -f "$T/plain.ini" --dry-run -- true

# ---- limits no program can start in ----
for v in 0 1K 64K; do
	check_fails "record --memory-max $v is refused with the reason" \
		"error: --memory-max [0-9]+ bytes is below 128 KiB, the least any program can start in" \
		"$TM" record -o "$DB" --memory-max "$v" -- true
done
check_fails "record --memory-high 1K is refused" "error: --memory-high 1024 bytes is below 128 KiB" \
	"$TM" record -o "$DB" --memory-high 1K -- true
check_fails "bench --memory-max 0 is refused" "error: --memory-max 0 bytes is below 128 KiB" \
	"$TM" bench -o "$DB" --arm glibc --memory-max 0 -- true
check_fails "an arm's MemoryMax=1K is refused" "MemoryMax 1024 bytes is below 128 KiB" \
	"$TM" bench -o "$DB" --arm glibc --arm tiny:MemoryMax=1K -- true
printf '[bench]\nMemoryMax=1K\n[glibc]\n' >"$T/lim.ini"
check_fails "INI: [bench] MemoryMax=1K names the line" "lim.ini:2: MemoryMax 1024 bytes is below 128 KiB" \
	"$TM" bench -f "$T/lim.ini" -- true
printf '[glibc]\nMemoryHigh=0\n' >"$T/lim2.ini"
check_fails "INI: an arm's MemoryHigh=0 names the line" "lim2.ini:2: \\[glibc\\] MemoryHigh 0 bytes is below 128 KiB" \
	"$TM" bench -f "$T/lim2.ini" -- true
n=$(sql "$DB" "select count(*) from runs" 2>/dev/null)
test_expect "nothing ran and nothing was stored" '[ "${n:-0}" = 0 ] || test_why "$n runs"'
check "the floor itself is fine, and no swap at all" \
	"$TM" bench --arm glibc --arm edge:MemoryMax=128K,MemorySwapMax=0 --dry-run -- true

# ---- memory.high on cgroup v1 is a soft limit ----
if grep -qE ' - cgroup cgroup [^ ]*memory' /proc/self/mountinfo; then
	"$TM" record -o "$T/h.db" -i 100ms --memory-high 32M -- sh -c 'sleep 0.2' >"$T/rec.out" 2>&1
	test_expect "record's start line says memory.high on v1 is a soft limit" '
		grep -q "^tidemark: recording with --memory-high 32.0 MiB; on cgroup v1 memory.high is memory.soft_limit_in_bytes: a reclaim target under host memory pressure, not a throttle" "$T/rec.out" ||
		test_why "$(cat "$T/rec.out")"'
	"$TM" report -o "$T/h.db" >"$T/rep.out" 2>&1
	test_expect "the report says so under the limits" '
		sed -n "/^  cgroup /{n;p}" "$T/rep.out" | grep -q "on cgroup v1 memory.high is memory.soft_limit_in_bytes" ||
		test_why "$(cat "$T/rep.out")"'
	"$TM" bench -o "$T/h.db" --runs 1 -i 100ms --arm glibc --arm hi:MemoryHigh=32M \
		-- sh -c 'sleep 0.2' >"$T/bench.out" 2>&1
	test_expect "bench says so before the runs and in the table's header" '
		[ "$(grep -c "^  MemoryHigh: on cgroup v1 memory.high is memory.soft_limit_in_bytes" "$T/bench.out")" = 2 ] ||
		test_why "$(cat "$T/bench.out")"'
	"$TM" record -o "$T/h.db" -i 100ms --memory-max 64M -- true >"$T/rec2.out" 2>&1
	test_expect "no soft-limit line without --memory-high" '
		! grep -q "soft_limit" "$T/rec2.out" || test_why "$(cat "$T/rec2.out")"'
else
	skip "memory.high on cgroup v1" "this host's memory controller is not on cgroup v1"
fi

# ---- a bench table from a store that has no benches ----
"$TM" record -q -o "$T/nb.db" -i 100ms -- true 2>/dev/null
before=$(sql "$T/nb.db" "select group_concat(name) from sqlite_master where type = 'table'")
check_fails "report --bench on a store without benches says so" "error: no bench 1 in $T/nb.db\$" \
	"$TM" report -o "$T/nb.db" --bench 1
check_fails "bench --table too" "error: no bench 1 in $T/nb.db\$" "$TM" bench -o "$T/nb.db" --table 1
out=$("$TM" report -o "$T/nb.db" --bench 1 2>&1)
after=$(sql "$T/nb.db" "select group_concat(name) from sqlite_master where type = 'table'")
test_expect "asking for a table writes nothing" '
	if echo "$out" | grep -q readonly || [ "$before" != "$after" ]; then
		test_why "$out; tables $before -> $after"
	fi'

finish
