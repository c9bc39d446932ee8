#!/bin/sh
# The aarch64 build on a real arm64 kernel: Debian's linux-image-arm64 under
# qemu-system-aarch64 (scripts/arm64-guest.sh), cgroup2 alone.  The guest
# runs tests/cross/guest_job.sh (tidemark doctor, a run OOM-killed by
# --memory-max, a run's peak against the kernel's memory.peak, the heap
# shim's exact counts, record --heap); this script checks what it left with
# this host's tidemark, which reads the arm64 stores as they are.
. "$(dirname "$0")/../lib.sh"

O=$TM_ROOT/build/aarch64/guest/results
if [ ! -x "$TM_ROOT/build/aarch64/tidemark" ] || [ ! -x "$TM_ROOT/build/aarch64/progs/alloc_touch" ]; then
	fail arm64_guest_build "build/aarch64 incomplete: make cross ARCH=aarch64"
	finish
fi
sh "$TM_ROOT/scripts/arm64-guest.sh" run tests/cross/guest_job.sh >"$T/guest.tap" 2>&1
rc=$?
cat "$T/guest.tap"
if [ $rc -ne 0 ] || [ ! -d "$O" ]; then
	fail arm64_guest_ran "status $rc (sh scripts/arm64-guest.sh fetch, then see the console above)"
	finish
fi
fig() { "$TM" report --db "$O/$1.db" --json 2>/dev/null; }

# doctor on arm64 with cgroup2: nothing to fix, and what it found
python3 -c 'import json, sys
v = {c["name"]: c for c in json.load(open(sys.argv[1]))["checks"]}
assert v["cgroup_mode"]["value"] == "v2", v["cgroup_mode"]
for n in ("memory_controller", "psi", "kernel_files", "heap_shim", "create_cgroups",
          "memory_high", "allocator_jemalloc", "allocator_mimalloc", "allocator_tcmalloc"):
    assert v[n]["status"] == "ok", v[n]
assert "arm64" in v["kernel_files"]["value"] and "memory.peak yes" in v["kernel_files"]["summary"]
assert "aarch64-linux-gnu" in v["allocator_jemalloc"]["value"]' "$O/doctor.json" 2>"$T/err"
rc=$?
test_expect "arm64_guest_doctor (no problems: $(grep -c '^  ok' "$O/doctor.txt") ok)" '
	[ "$(cat "$O/doctor.rc")" = 0 ] && [ $rc -eq 0 ] ||
	test_why "exit $(cat "$O/doctor.rc"): $(cat "$T/err") $(cat "$O/doctor.txt")"'

# --memory-max 64M of 200 MiB: OOM-killed, confirmed by the kernel's counter
fig oom >"$T/oom.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); f = d["figures"]
assert d["run"]["outcome"] == "oom-killed", d["run"]
assert f["oom_kills"] == 1 and f["max_events"] > 0, f
assert f["limit_max_bytes"] == 64 << 20, f["limit_max_bytes"]
assert f["peak_current_bytes"] <= f["cg_peak_bytes"] <= 64 << 20, f' "$T/oom.json" 2>"$T/err"
rc=$?
test_expect arm64_guest_oom_killed '[ $rc -eq 0 ] || test_why "$(cat "$T/err") $(cat "$O/oom.out")"'

# 96 MiB held: the sampled peaks under the kernel's own memory.peak
fig peak >"$T/peak.json"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); f = d["figures"]
assert d["run"]["outcome"] == "completed", d["run"]
assert f["peak_anon_bytes"] >= 96 << 20, f["peak_anon_bytes"]
assert f["peak_anon_bytes"] <= f["peak_current_bytes"] <= f["cg_peak_bytes"], f
assert f["psi_mem_some_usec"] is not None, f' "$T/peak.json" 2>"$T/err"
rc=$?
peaks=
[ $rc -eq 0 ] && peaks=$(python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["figures"]
print("anon %d, memory.current %d, memory.peak %d bytes" %
      (f["peak_anon_bytes"], f["peak_current_bytes"], f["cg_peak_bytes"]))' "$T/peak.json")
test_expect "arm64_guest_peak_vs_memory_peak${peaks:+ ($peaks)}" '
	[ $rc -eq 0 ] || test_why "$(cat "$T/err") $(cat "$O/peak.out")"'

# the shim on arm64: exact counts, and record --heap's peak
out=$(cat "$O/exact.out")
field() { echo "$out" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
test_expect "arm64_guest_heap_exact ($out)" '
	[ -n "$(field peak)" ] && [ "$(field peak)" = "$(field expected_peak)" ] &&
	[ "$(field end_live)" = "$(field baseline)" ] && [ "$(field allocs)" = "$(field frees)" ] ||
	test_why "$out"'
fig heap >"$T/heap.json"
python3 -c 'import json, sys
f = json.load(open(sys.argv[1]))["figures"]
# heap_exact holds 80009680 requested bytes at its peak; glibc rounds up
assert 80009680 <= f["heap_peak_bytes"] < 81 << 20, f["heap_peak_bytes"]' "$T/heap.json" 2>"$T/err"
rc=$?
test_expect arm64_guest_record_heap_peak '[ $rc -eq 0 ] || test_why "$(cat "$T/err") $(cat "$O/heap.out")"'
finish
