#!/bin/sh
# tidemark doctor in the cgroup v2 guest (a real Debian kernel, cgroup2
# alone): what it says agrees with the kernel's own files, it finds no
# problem, and record says nothing about the host.
. "$(dirname "$0")/lib.sh"

"$TM" doctor --json >"$T/d.json" 2>"$T/d.err"
rc=$?
"$TM" doctor >"$T/d.txt" 2>&1
# what the kernel itself shows, for the doctor's answers to agree with
peak=no
ls $CG/*/memory.peak >/dev/null 2>&1 && peak=yes
psi=off
cat /proc/pressure/memory >/dev/null 2>&1 && psi=on
sacc=off
ls $CG/*/memory.swap.current >/dev/null 2>&1 && sacc=on
test_expect "v2_doctor_agrees_with_the_kernel (memory.peak $peak, PSI $psi, swap accounting $sacc, $(uname -r))" '
	python3 -c '\''import json, sys
v = {c["name"]: c for c in json.load(open(sys.argv[1]))["checks"]}
peak, psi, sacc = sys.argv[2], sys.argv[3], sys.argv[4]
assert v["swap_accounting"]["value"] == sacc, v["swap_accounting"]
# the allocators scripts/deps.sh --test installs, found as bench finds them
for a in ("jemalloc", "mimalloc", "tcmalloc"):
    assert v["allocator_" + a]["status"] == "ok", v["allocator_" + a]
assert v["cgroup_mode"]["value"] == "v2", v["cgroup_mode"]
assert v["memory_controller"]["status"] == "ok" and v["memory_controller"]["value"] == "v2"
assert v["psi"]["value"] == psi and v["psi"]["status"] == ("ok" if psi == "on" else "problem")
assert ("memory.peak " + peak) in v["kernel_files"]["summary"], v["kernel_files"]
assert v["create_cgroups"]["value"] == "root" and v["memory_high"]["value"] == "throttles"
assert v["heap_shim"]["status"] == "ok", v["heap_shim"]
assert json.load(open(sys.argv[1]))["problems"] == 0'\'' "$T/d.json" "$peak" "$psi" "$sacc" 2>"$T/err" &&
	[ $rc -eq 0 ] || test_why "exit $rc: $(cat "$T/err" "$T/d.err" "$T/d.txt")"'
# the swap check against /proc/swaps (none unless the guest has a swap disk)
n=$(($(wc -l </proc/swaps) - 1))
test_expect "v2_doctor_swap ($n areas)" '
	python3 -c '\''import json, sys
v = {c["name"]: c for c in json.load(open(sys.argv[1]))["checks"]}["swap"]
if int(sys.argv[2]) == 0:
    assert v["status"] == "note" and v["value"] == 0, v
else:
    assert v["status"] == "ok" and v["value"] > 0 and "%s area" % sys.argv[2] in v["summary"], v'\'' \
	"$T/d.json" "$n" 2>"$T/err" || test_why "$(cat "$T/err")"'
"$TM" record -q -o "$T/r.db" -- true 2>"$T/r.err"
test_expect v2_record_no_host_notice '! grep -q "tidemark doctor" "$T/r.err" || test_why "$(cat "$T/r.err")"'
finish
