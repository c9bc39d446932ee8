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

if out=$("$TM" advise --help 2>&1) && echo "$out" | grep -q '^examples:'; then
	ok "advise --help shows usage with examples"
else
	fail "advise --help shows usage with examples" "$out"
fi
"$TM" advise -o "$DB" >/dev/null 2>"$T/e"
rc=$?
if [ $rc -eq 2 ] && grep -q 'name the runs' "$T/e"; then ok "advise without runs exits 2"; else fail "advise without runs exits 2" "exit $rc: $(cat "$T/e")"; fi
check_fails "bad reserve" "expected NAME=SIZE" "$TM" advise -o "$DB" --reserve miner 1
check_fails "bad window" "window" "$TM" advise -o "$DB" --steady nonsense 1

# ---- a workload with a known peak: 48 MiB, in 8 steps (progress 1..8) ----
"$TM" bench -o "$DB" --arm glibc --arm arena1 --runs 2 -i 50ms --memory-max 128M \
	--progress 'progress=([0-9]+)' -- "$P" --mib 48 --steps 8 --step-ms 150 --hold-ms 300 \
	>"$T/b1.txt" 2>&1 || fail "bench for advice" "$(tail -5 "$T/b1.txt")"
if grep -q '^note: 2 runs per arm cannot reach p < 0.05 .*it takes --runs 4' "$T/b1.txt"; then
	ok "a bench whose runs cannot reach a verdict says so at its start"
else
	fail "a bench whose runs cannot reach a verdict says so at its start" "$(head -5 "$T/b1.txt")"
fi
"$TM" advise -o "$DB" --bench 1 --ram 8G --reserve miner=2.5G --json >"$T/a1.json" 2>"$T/a1.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(json "$T/a1.json" "a['refused']")" = None ]; then
	ok "advice from a bench where every run survived"
else
	fail "advice from a bench where every run survived" "exit $rc: $(cat "$T/a1.err" "$T/a1.json" | head -20)"
fi
r=$(json "$T/a1.json" "all(p['figures']['memory_max_bytes']['value'] >= p['figures']['anon_peak_bytes']['value'] + p['figures']['margin_bytes']['value'] and p['figures']['anon_peak_bytes']['value'] >= 48*$MIB for x in a['arms'] for p in x['profiles'])" 2>&1)
if [ "$r" = True ]; then ok "every MemoryMax is at least the 48 MiB peak plus the margin"; else fail "every MemoryMax is at least the 48 MiB peak plus the margin" "$r"; fi
r=$(json "$T/a1.json" "all(f['memory_high_bytes']['value'] >= f['needed_bytes']['value'] + f['headroom_bytes']['value'] and f['needed_bytes']['value'] >= max(48*$MIB, f['anon_peak_bytes']['value'] + f['cache_bytes']['value']) and f['memory_max_bytes']['value'] >= f['memory_high_bytes']['value'] for x in a['arms'] for f in [p['figures'] for p in x['profiles']])" 2>&1)
if [ "$r" = True ]; then ok "every MemoryHigh is at least the peak needed (48 MiB or more) plus the headroom, and MemoryMax not below it"; else fail "every MemoryHigh is at least the peak needed (48 MiB or more) plus the headroom, and MemoryMax not below it" "$r"; fi
r=$(json "$T/a1.json" "[round(p['figures']['leaves_bytes']['value'] - (8192*$MIB - 2560*$MIB - p['figures']['memory_max_bytes']['value'])) for x in a['arms'] for p in x['profiles']]" 2>&1)
if [ "$r" = "[0, 0]" ]; then ok "the sum leaves RAM - reserve - MemoryMax"; else fail "the sum leaves RAM - reserve - MemoryMax" "$r"; fi
r=$(json "$T/a1.json" "[x['environment'] for x in a['arms'] if x['name']=='arena1'][0]" 2>&1)
if [ "$r" = "['MALLOC_ARENA_MAX=1']" ]; then ok "arena1's setting is MALLOC_ARENA_MAX=1"; else fail "arena1's setting is MALLOC_ARENA_MAX=1" "$r"; fi

"$TM" advise -o "$DB" --bench 1 >"$T/a1.txt" 2>&1
if grep -q '^recommended: ' "$T/a1.txt" && grep -qE '^ +MemoryMax +[0-9]+M +peak needed \+ margin' "$T/a1.txt" &&
	grep -qE 'survived, peak ×' "$T/a1.txt"; then
	ok "the text names the recommended arm, each number and its rule"
else
	fail "the text names the recommended arm, each number and its rule" "$(head -30 "$T/a1.txt")"
fi

# ---- two regimes: the first half of the steps and the second ----
"$TM" advise -o "$DB" --bench 1 --steady 1:4 --catch-up 5: --json >"$T/a2.json" 2>"$T/a2.err"
r=$(json "$T/a2.json" "[(p['regime'], p['figures']['anon_peak_bytes']['value'] >= 47*$MIB) for p in a['arms'][0]['profiles']]" 2>&1)
s=$(json "$T/a2.json" "a['arms'][0]['profiles'][0]['figures']['anon_peak_bytes']['value'] <= 32*$MIB" 2>&1)
if [ "$r" = "[('steady', False), ('catch-up', True)]" ] && [ "$s" = True ]; then
	ok "two windows give two profiles, each from its own window"
else
	fail "two windows give two profiles, each from its own window" "$r $s $(cat "$T/a2.err")"
fi

# ---- the drop-in, checked by systemd ----
"$TM" advise -o "$DB" --bench 1 --catch-up 5: --drop-in "catch-up=$T/50-memory.conf" >/dev/null 2>"$T/d.err"
rc=$?
if [ $rc -eq 0 ] && grep -q '^\[Service\]' "$T/50-memory.conf" && grep -qE '^MemoryMax=[0-9]+M$' "$T/50-memory.conf" &&
	grep -q '^# runs ' "$T/50-memory.conf" && grep -q 'window 5:' "$T/50-memory.conf"; then
	ok "--drop-in writes [Service] with the settings and where they came from"
else
	fail "--drop-in writes [Service] with the settings and where they came from" "exit $rc: $(cat "$T/d.err" "$T/50-memory.conf" 2>&1 | head)"
fi
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
	if [ $rc -eq 0 ] && [ -z "$out" ] && echo "$bad" | grep -q "Unknown key 'MemoryMaxx'"; then
		ok "the drop-in parses with systemd-analyze verify"
	else
		fail "the drop-in parses with systemd-analyze verify" "exit $rc: $out / $bad"
	fi
else
	skip "the drop-in parses with systemd-analyze verify" "systemd-analyze is not installed"
fi

# ---- nothing survived: a refusal, with the reason, and no drop-in ----
"$TM" bench -o "$DB" --arm glibc --runs 2 -i 50ms --memory-max 24M \
	--progress 'progress=([0-9]+)' -- "$P" --mib 48 --steps 8 --step-ms 30 >"$T/b2.txt" 2>&1
"$TM" advise -o "$DB" --bench 2 --drop-in "$T/none.conf" >"$T/a3.txt" 2>"$T/a3.err"
rc=$?
if [ $rc -eq 3 ] && grep -q 'no run survived' "$T/a3.err" && grep -q 'no run survived' "$T/a3.txt" && [ ! -e "$T/none.conf" ]; then
	ok "advise refuses when no run survived, and writes no drop-in"
else
	fail "advise refuses when no run survived, and writes no drop-in" "exit $rc: $(cat "$T/a3.txt" "$T/a3.err" | head; tail -3 "$T/b2.txt")"
fi

# ---- throttle limbo: a run that cannot tell says so, in text and JSON ----
"$TM" report -o "$DB" 1 >"$T/r.txt" 2>&1
"$TM" report -o "$DB" 1 --json >"$T/r.json" 2>&1
mode=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['run']['cgroup_mode'])" "$T/r.json" 2>/dev/null)
known=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['throttle']['known'])" "$T/r.json" 2>&1)
if [ "$mode" = hybrid ] || [ "$mode" = v1 ]; then
	if grep -q '^  throttle    n/a: memory.high events were not measured' "$T/r.txt" && [ "$known" = False ]; then
		ok "on cgroup v1 the report says throttle limbo cannot be told (n/a, null)"
	else
		fail "on cgroup v1 the report says throttle limbo cannot be told (n/a, null)" "$known $(grep throttle "$T/r.txt")"
	fi
elif grep -q '^  throttle    none' "$T/r.txt" && [ "$known" = True ]; then
	ok "an unthrottled run reports no throttle limbo"
else
	fail "an unthrottled run reports no throttle limbo" "$mode $known $(grep throttle "$T/r.txt")"
fi
finish
