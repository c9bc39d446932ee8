#!/bin/sh
# advise end to end: real benches in fresh cgroups, the profiles and their
# rules, two regimes, the refusal when nothing survived, the drop-in checked
# by systemd-analyze.
. "$(dirname "$0")/../lib.sh"
DB=$T/a.db
P=$TM_BUILD/progs/bench_alloc
if [ ! -x "$P" ]; then
	skip "advise" "build/progs/bench_alloc is not built (make check builds it)"
	finish
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip "advise" "python3 is needed to read the JSON advice"
	finish
fi
# json FILE EXPR: a Python expression over the advice as `a`
json() { python3 -c "import json,sys; a=json.load(open(sys.argv[1])); print($2)" "$1"; }
MIB=1048576

test_expect "advise --help shows usage with examples" '
	out=$("$TM" advise --help 2>&1) && echo "$out" | grep -q "^examples:" ||
	test_why "$out"'
"$TM" advise -o "$DB" >/dev/null 2>"$T/e"
rc=$?
test_expect "advise without runs exits 2" '
	[ $rc -eq 2 ] && grep -q "name the runs" "$T/e" ||
	test_why "exit $rc: $(cat "$T/e")"'
check_fails "bad reserve" "expected NAME=SIZE" "$TM" advise -o "$DB" --reserve miner 1
check_fails "bad window" "window" "$TM" advise -o "$DB" --steady nonsense 1

# ---- a workload with a known peak: 48 MiB, in 8 steps (progress 1..8) ----
"$TM" bench -o "$DB" --arm glibc --arm arena1 --runs 2 -i 50ms --memory-max 128M \
	--progress 'progress=([0-9]+)' -- "$P" --mib 48 --steps 8 --step-ms 150 --hold-ms 300 \
	>"$T/b1.txt" 2>&1 || fail "bench for advice" "$(tail -5 "$T/b1.txt")"
test_expect "a bench whose runs cannot reach a verdict says so at its start" '
	grep -q "^note: 2 runs per arm cannot reach p < 0.05 .*it takes --runs 4" "$T/b1.txt" ||
	test_why "$(head -5 "$T/b1.txt")"'
"$TM" advise -o "$DB" --bench 1 --ram 8G --reserve miner=2.5G --json >"$T/a1.json" 2>"$T/a1.err"
rc=$?
test_expect "advice from a bench where every run survived" '
	[ $rc -eq 0 ] && [ "$(json "$T/a1.json" "a['\''refused'\'']")" = None ] ||
	test_why "exit $rc: $(cat "$T/a1.err" "$T/a1.json" | head -20)"'
r=$(json "$T/a1.json" "all(p['figures']['memory_max_bytes']['value'] >= p['figures']['anon_peak_bytes']['value'] + p['figures']['margin_bytes']['value'] and p['figures']['anon_peak_bytes']['value'] >= 48*$MIB for x in a['arms'] for p in x['profiles'])" 2>&1)
test_expect "every MemoryMax is at least the 48 MiB peak plus the margin" '[ "$r" = True ] || test_why "$r"'
r=$(json "$T/a1.json" "all(f['memory_high_bytes']['value'] >= f['needed_bytes']['value'] + f['headroom_bytes']['value'] and f['needed_bytes']['value'] >= max(48*$MIB, f['anon_peak_bytes']['value'] + f['cache_bytes']['value']) and f['memory_max_bytes']['value'] >= f['memory_high_bytes']['value'] for x in a['arms'] for f in [p['figures'] for p in x['profiles']])" 2>&1)
test_expect "every MemoryHigh is at least the peak needed (48 MiB or more) plus the headroom, and MemoryMax not below it" '
	[ "$r" = True ] ||
	test_why "$r"'
r=$(json "$T/a1.json" "[round(p['figures']['leaves_bytes']['value'] - (8192*$MIB - 2560*$MIB - p['figures']['memory_max_bytes']['value'])) for x in a['arms'] for p in x['profiles']]" 2>&1)
test_expect "the sum leaves RAM - reserve - MemoryMax" '[ "$r" = "[0, 0]" ] || test_why "$r"'
r=$(json "$T/a1.json" "[x['environment'] for x in a['arms'] if x['name']=='arena1'][0]" 2>&1)
test_expect "arena1's setting is MALLOC_ARENA_MAX=1" '
	[ "$r" = "['\''MALLOC_ARENA_MAX=1'\'']" ] ||
	test_why "$r"'

"$TM" advise -o "$DB" --bench 1 >"$T/a1.txt" 2>&1
test_expect "the text names the recommended arm, each number and its rule" '
	grep -q "^recommended: " "$T/a1.txt" && grep -qE "^ +MemoryMax +[0-9]+M +peak needed \+ margin" "$T/a1.txt" &&
	grep -qE "survived, peak ×" "$T/a1.txt" ||
	test_why "$(head -30 "$T/a1.txt")"'

# ---- two regimes: the first half of the steps and the second ----
"$TM" advise -o "$DB" --bench 1 --steady 1:4 --catch-up 5: --json >"$T/a2.json" 2>"$T/a2.err"
r=$(json "$T/a2.json" "[(p['regime'], p['figures']['anon_peak_bytes']['value'] >= 47*$MIB) for p in a['arms'][0]['profiles']]" 2>&1)
s=$(json "$T/a2.json" "a['arms'][0]['profiles'][0]['figures']['anon_peak_bytes']['value'] <= 32*$MIB" 2>&1)
test_expect "two windows give two profiles, each from its own window" '
	[ "$r" = "[('\''steady'\'', False), ('\''catch-up'\'', True)]" ] && [ "$s" = True ] ||
	test_why "$r $s $(cat "$T/a2.err")"'

# ---- the drop-in, checked by systemd ----
"$TM" advise -o "$DB" --bench 1 --catch-up 5: --drop-in "catch-up=$T/50-memory.conf" >/dev/null 2>"$T/d.err"
rc=$?
test_expect "--drop-in writes [Service] with the settings and where they came from" '
	[ $rc -eq 0 ] && grep -q "^\[Service\]" "$T/50-memory.conf" && grep -qE '\''^MemoryMax=[0-9]+M$'\'' "$T/50-memory.conf" &&
	grep -q "^# runs " "$T/50-memory.conf" && grep -q "window 5:" "$T/50-memory.conf" ||
	test_why "exit $rc: $(cat "$T/d.err" "$T/50-memory.conf" 2>&1 | head)"'
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir -p "$T/units/tm-advise.service.d"
	printf '[Unit]\nDescription=advise test\n[Service]\nExecStart=/bin/true\n' >"$T/units/tm-advise.service"
	cp "$T/50-memory.conf" "$T/units/tm-advise.service.d/"
	out=$(SYSTEMD_UNIT_PATH="$T/units:" systemd-analyze verify "$T/units/tm-advise.service" 2>&1)
	rc=$?
	# the check can fail: a misspelt key is reported
	cp "$T/50-memory.conf" "$T/bad.conf"
	echo 'MemoryMaxx=1M' >>"$T/bad.conf"
	cp "$T/bad.conf" "$T/units/tm-advise.service.d/60-bad.conf"
	bad=$(SYSTEMD_UNIT_PATH="$T/units:" systemd-analyze verify "$T/units/tm-advise.service" 2>&1)
	test_expect "the drop-in parses with systemd-analyze verify" '
		[ $rc -eq 0 ] && [ -z "$out" ] && echo "$bad" | grep -q "Unknown key '\''MemoryMaxx'\''" ||
		test_why "exit $rc: $out / $bad"'
else
	skip "the drop-in parses with systemd-analyze verify" "systemd-analyze is not installed"
fi

# ---- nothing survived: a refusal, with the reason, and no drop-in ----
"$TM" bench -o "$DB" --arm glibc --runs 2 -i 50ms --memory-max 24M \
	--progress 'progress=([0-9]+)' -- "$P" --mib 48 --steps 8 --step-ms 30 >"$T/b2.txt" 2>&1
"$TM" advise -o "$DB" --bench 2 --drop-in "$T/none.conf" >"$T/a3.txt" 2>"$T/a3.err"
rc=$?
test_expect "advise refuses when no run survived, and writes no drop-in" '
	[ $rc -eq 3 ] && grep -q "no run survived" "$T/a3.err" && grep -q "no run survived" "$T/a3.txt" && [ ! -e "$T/none.conf" ] ||
	test_why "exit $rc: $(cat "$T/a3.txt" "$T/a3.err" | head; tail -3 "$T/b2.txt")"'

# ---- throttle limbo: a run that cannot tell says so, in text and JSON ----
"$TM" report -o "$DB" 1 >"$T/r.txt" 2>&1
"$TM" report -o "$DB" 1 --json >"$T/r.json" 2>&1
mode=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['run']['cgroup_mode'])" "$T/r.json" 2>/dev/null)
known=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['throttle']['known'])" "$T/r.json" 2>&1)
if [ "$mode" = hybrid ] || [ "$mode" = v1 ]; then
	test_expect "on cgroup v1 the report says throttle limbo cannot be told (n/a, null)" '
		grep -q "^  throttle    n/a: memory.high events were not measured" "$T/r.txt" && [ "$known" = False ] ||
		test_why "$known $(grep throttle "$T/r.txt")"'
else
	test_expect "an unthrottled run reports no throttle limbo" '
		grep -q "^  throttle    none" "$T/r.txt" && [ "$known" = True ] ||
		test_why "$mode $known $(grep throttle "$T/r.txt")"'
fi
finish
