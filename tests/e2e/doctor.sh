#!/bin/sh
# tidemark doctor: this host, the fixture hosts of tests/fixtures/doctor
# (v1, hybrid, v2, Raspberry Pi), --json, a shim that does not load, a user
# who is not root, and the one-line notice of record, bench and advise --verify.
. "$(dirname "$0")/../lib.sh"

FX=$TM_ROOT/tests/fixtures/doctor
jq_py() { python3 -c "import json, sys; d = json.load(sys.stdin); $1"; }

out=$("$TM" doctor --help)
test_expect doctor_help '
	echo "$out" | grep -q "examples:" && echo "$out" | grep -q "cmdline.txt" ||
	test_why "$out"'
check_fails doctor_bad_option "unknown|usage" "$TM" doctor --bogus
check_fails doctor_bad_root "cannot read the root" "$TM" doctor --root "$T/nothing"
check_fails doctor_extra_argument "unexpected argument" "$TM" doctor now

# --- this host ----------------------------------------------------------------
# 14 checks: 8 of the host, one per allocator with a library in the
# registry (src/base/allocators.h: jemalloc, mimalloc, tcmalloc,
# tcmalloc-full), the heap shim, pseudo-terminals
"$TM" doctor >"$T/text" 2>&1
rc=$?
n=$(grep -cE '^  (ok|note|warn|PROBLEM|skipped) ' "$T/text")
test_expect "doctor_this_host (exit $rc, 14 checks)" '
	[ $rc -le 1 ] && [ "$n" -eq 14 ] && tail -1 "$T/text" | grep -q "problem" ||
	test_why "exit $rc, $n checks: $(cat "$T/text")"'
"$TM" doctor --json >"$T/json"
jq_py 'assert len(d["checks"]) == 14; assert d["root"] == "/"
assert d["problems"] == sum(c["status"] == "problem" for c in d["checks"])
assert all(c["fix"] is None or c["fix"] for c in d["checks"])' <"$T/json" 2>"$T/err"
rc=$?
test_expect doctor_json_valid '[ $rc -eq 0 ] || test_why "$(cat "$T/err") $(head -c 600 "$T/json")"'
# the doctor's cgroup mode is the one a recording stores
mode=$(jq_py 'print([c["value"] for c in d["checks"] if c["name"] == "cgroup_mode"][0])' <"$T/json")
"$TM" record -q -o "$T/r.db" -- true 2>/dev/null
rmode=$("$TM" report 1 --db "$T/r.db" --json | sed -n 's/.*"cgroup_mode": *"\([a-z0-9]*\)".*/\1/p')
test_expect "doctor_mode_matches_record ($mode)" '
	[ -n "$mode" ] && [ "$mode" = "$rmode" ] || test_why "doctor '\''$mode'\'', record '\''$rmode'\''"'
status() { jq_py "print([c['status'] for c in d['checks'] if c['name'] == '$1'][0])"; }
test_expect doctor_shim_loads '
	[ "$(status heap_shim <"$T/json")" = ok ] || test_why "$(grep "heap shim" -A2 "$T/text")"'
# a shim that is not a library for this machine
printf 'not an ELF file\n' >"$T/bad.so"
TIDEMARK_HEAP_LIB=$T/bad.so "$TM" doctor --json >"$T/bad.json"
rc=$?
test_expect doctor_shim_does_not_load '
	[ $rc -eq 1 ] && [ "$(status heap_shim <"$T/bad.json")" = problem ] &&
	grep -q "does not load" "$T/bad.json" ||
	test_why "exit $rc: $(grep -A3 heap_shim "$T/bad.json")"'
# a user who is not root cannot create tidemark's cgroups
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ] &&
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TM" --version >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TM" doctor --json >"$T/nobody.json" 2>/dev/null
	test_expect doctor_not_root '
		[ "$(status create_cgroups <"$T/nobody.json")" = problem ] &&
		grep -q "sudo tidemark record" "$T/nobody.json" ||
		test_why "$(grep -A3 create_cgroups "$T/nobody.json")"'
else
	skip doctor_not_root "cannot run tidemark as nobody here (setpriv, or the build is not readable)"
fi

# --- fixture hosts -------------------------------------------------------------
out=$("$TM" doctor --root "$FX/pi-bookworm")
rc=$?
test_expect doctor_pi_bookworm '
	[ $rc -eq 1 ] && echo "$out" | grep -q "PROBLEM  memory controller" &&
	echo "$out" | grep -q "/boot/firmware/cmdline.txt" && echo "$out" | grep -q "psi=1" &&
	echo "$out" | grep -q "^2 problems" ||
	test_why "exit $rc: $out"'
out=$("$TM" doctor --root "$FX/pi-bullseye")
test_expect doctor_pi_bullseye_cmdline_txt '
	echo "$out" | grep -q "/boot/cmdline.txt" || test_why "$out"'
# every problem found on any fixture host comes with its fix
bad=""
for h in "$FX"/*/; do
	"$TM" doctor --root "$h" --json | jq_py '
bad = [c["name"] for c in d["checks"] if c["status"] == "problem" and not c["fix"]]
assert not bad, bad' 2>/dev/null || bad="$bad $(basename "$h")"
done
test_expect "doctor_every_problem_has_a_fix ($(ls -d "$FX"/*/ | wc -l) fixture hosts)" '
	[ -z "$bad" ] || test_why "a problem without a fix on:$bad"'
# a Pi's SD card on this machine: its boot partition's cmdline.txt, not a GRUB fix
out=$("$TM" doctor --root "$FX/pi-sdcard-bootfs")
rc=$?
test_expect doctor_pi_sdcard_boot_partition '
	[ $rc -eq 1 ] && echo "$out" | grep -q "^2 problems" && echo "$out" | grep -q "psi=1" &&
	echo "$out" | grep -q "cgroup_enable=memory" && ! echo "$out" | grep -qi "grub" ||
	test_why "exit $rc: $out"'
for h in v2 hybrid; do
	"$TM" doctor --root "$FX/$h" >"$T/$h" 2>&1
	check "doctor_root_${h}_no_problem" sh -c "grep -q '^0 problems' '$T/$h' || { cat '$T/$h'; exit 1; }"
done
out=$("$TM" doctor --root "$FX/v1" --json)
echo "$out" | jq_py 'v = {c["name"]: c for c in d["checks"]}
assert v["cgroup_mode"]["value"] == "v1" and v["memory_high"]["status"] == "warn"
assert "soft" in v["memory_high"]["summary"] and "swapaccount=1" in v["swap_accounting"]["fix"]' 2>"$T/err"
rc=$?
test_expect doctor_root_v1_json '[ $rc -eq 0 ] || test_why "$(cat "$T/err")"'

# --- the notice of the other commands: once, only when there is a problem -------
# (the root is a fixture's through TIDEMARK_HOST_ROOT, a hook only the test
# build of the tool has: build/tests/tidemark-hooks; the installed tool
# ignores the variable)
TMH=$TM_BUILD/tests/tidemark-hooks
if [ ! -x "$TMH" ]; then
	skip doctor_notice "needs $TMH (make test-build builds it)"
	finish
fi
"$TM" record -q -o "$T/r0.db" -- true 2>"$T/rel0.err"
TIDEMARK_HOST_ROOT=$FX/pi-bookworm "$TM" record -q -o "$T/r1.db" -- true 2>"$T/rel1.err"
test_expect doctor_release_ignores_host_root '
	test_eq "notice lines with TIDEMARK_HOST_ROOT (without)" \
		"$(grep -c "tidemark doctor" "$T/rel1.err")" "$(grep -c "tidemark doctor" "$T/rel0.err")"'
TIDEMARK_HOST_ROOT=$FX/pi-bookworm "$TMH" record -q -o "$T/n.db" -- true 2>"$T/rec.err"
test_expect doctor_notice_record_once '
	test_eq "notice lines" "$(grep -c "tidemark doctor" "$T/rec.err")" 1 &&
	test_grep "PSI is off" "$T/rec.err"'
TIDEMARK_HOST_ROOT=$FX/pi-bullseye "$TMH" bench --dry-run --arm glibc --arm arena1 -- true 2>"$T/b.err" >/dev/null
test_expect doctor_notice_bench_once '
	test_eq "notice lines" "$(grep -c "tidemark doctor" "$T/b.err")" 1 &&
	test_eq "lines on the memory controller" "$(grep -c "memory controller" "$T/b.err")" 0'
# every other path that records or benches on the host says it exactly once
# per command: not per sample, per run, per arm or per bench of a sweep
P=$TM_BUILD/progs/alloc_touch
notice_once() # NAME CMD...: CMD's stderr holds the notice once
{
	name=$1
	shift
	TIDEMARK_HOST_ROOT=$FX/pi-bookworm "$@" >"$T/once.out" 2>"$T/once.err"
	test_expect "doctor_notice_once_$name" '
		test_eq "notice lines" "$(grep -c "tidemark doctor" "$T/once.err")" 1 ||
		{ head -c 800 "$T/once.err"; false; }'
}
notice_once record_samples "$TMH" record -q -o "$T/o.db" -i 50ms -- sleep 0.5
sleep 3 &
notice_once record_p "$TMH" record -q -o "$T/o.db" -i 100ms --timeout 500ms -p $!
kill $! 2>/dev/null
CG=/sys/fs/cgroup/memory/tidemark-doctor-$$
if [ -d /sys/fs/cgroup/memory ] && mkdir "$CG" 2>/dev/null; then
	sh -c 'echo $$ >'"$CG"'/cgroup.procs; exec sleep 3' &
	notice_once record_cgroup "$TMH" record -q -o "$T/o.db" -i 100ms --timeout 500ms --cgroup "$CG"
	kill $! 2>/dev/null
	wait $! 2>/dev/null
	rmdir "$CG"
else
	skip doctor_notice_once_record_cgroup "no cgroup v1 memory hierarchy to make a cgroup in here"
fi
# (--unit: said before systemd is asked, so here without systemd as well)
notice_once record_unit "$TMH" record -q -o "$T/o.db" --timeout 1s --unit tm-doctor-none.service
notice_once bench_runs "$TMH" bench -o "$T/o.db" -n 2 -i 100ms --arm glibc --arm arena1 -- sleep 0.3
notice_once bench_sweep "$TMH" bench -o "$T/o.db" -n 1 -i 100ms --arm glibc \
	--sweep MemoryMax=16M..64M --resolution 16M -- true
notice_once bench_param "$TMH" bench -o "$T/o.db" -n 1 -i 100ms --arm glibc --param N=1,2 \
	-- sh -c 'exit 0 # {N}'
notice_once bench_phases "$TMH" bench -o "$T/o.db" -n 1 -i 100ms --arm glibc --phases -- true
notice_once bench_unit "$TMH" bench -o "$T/o.db" -n 1 --arm glibc --unit tm-doctor-none.service
# advise --verify benches the proposed limits on this host
"$TM" bench -o "$T/v.db" -n 2 -i 100ms --arm glibc -- "$P" 16 1500 >/dev/null 2>&1
notice_once advise_verify "$TMH" advise -o "$T/v.db" --bench 1 --verify --verify-runs 1
test_expect doctor_notice_advise_verify_ran 'test_grep verified "$T/once.out" || tail -5 "$T/once.err"'
TIDEMARK_HOST_ROOT=$FX/pi-bookworm "$TMH" advise -o "$T/v.db" --bench 1 >/dev/null 2>"$T/adv.err"
# advise without --verify runs nothing here: no notice
test_expect doctor_notice_advise_reads_only '
	test_eq "notice lines" "$(grep -c "tidemark doctor" "$T/adv.err")" 0'
TIDEMARK_HOST_ROOT=$FX/v2 "$TMH" record -q -o "$T/n.db" -- true 2>"$T/rec2.err"
test_expect doctor_notice_quiet_when_fine '
	test_eq "notice lines" "$(grep -c "tidemark doctor" "$T/rec2.err")" 0'
finish
