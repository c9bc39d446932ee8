#!/bin/sh
# Throttle limbo on a service that waits between units of work (issue 25):
# a program that holds 16 MiB, then maps and touches 8 MiB a unit under
# --memory-high 20M and sleeps 300 ms between units, sampled every 200 ms.
# Each sleep gives an interval or two without stall in the middle of the
# throttled stretch; the report still says one stretch, covering the time
# memory.high events kept rising, judged against the pace of the first
# (small, unthrottled) units.
V2_TIMEOUT=200
. "$(dirname "$0")/lib.sh"
DB=$T/t.db
C=$TM_BUILD/progs/churn_idle
if [ ! -x "$C" ]; then
	skip "throttle on an idling service" "build/progs/churn_idle is not built (make test-build builds it)"
	finish
fi
"$TM" record -q -o "$DB" -i 200ms --memory-high 20M --timeout 40s --progress 'progress=([0-9]+)' \
	-- "$C" --hold-mib 16 --unit-mib 8 --warm 12 --units 60 --sleep-ms 300 >/dev/null 2>"$T/err"
run=$(last_run "$DB")
"$TM" report -o "$DB" "$run" >"$T/r.txt" 2>&1
"$TM" report -o "$DB" "$run" --json >"$T/r.json" 2>&1
grep '^  throttle ' "$T/r.txt" | sed 's/^/# /'
# the truth from the kernel's own counters: the first sample after events
# began to rise and the last where they rose
series "$DB" "$run" cg_events_high >"$T/high"
series "$DB" "$run" t_mono_usec >"$T/t"
truth=$(paste -d, "$T/t" "$T/high" | awk -F, '
	$2 == "" { next }
	NR > 1 && $2 > last { if (!from) from = prev_t; to = $1 }
	{ last = $2; prev_t = $1 }
	END { if (from) printf "%.0f", (to - from) / 1e6; else print 0 }')
echo "# memory.high events rose over ${truth} s"
r=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["throttle"]
sp = t.get("spans", [])
tot = sum(s["end_wall_usec"] - s["start_wall_usec"] for s in sp) / 1e6
print(t["known"], len(sp), int(round(tot)))' "$T/r.json" 2>&1)
echo "# report: known, stretches, seconds: $r"
set -- $r
test_expect "memory.high throttled the program for ${truth} s (the kernel's events)" '[ "$truth" -ge 6 ] || test_why "want at least 6 s; $(cat "$T/err")"'
is "${2:-}" -eq 1 "one throttled stretch, though the program idles 300 ms between units (got ${2:-?})" "$r"
secs=${3:-}
test_expect "the stretch covers at least 80 % of the ${truth} s the events rose (${3} s)" '
	[ -n "$secs" ] && [ $((secs * 10)) -ge $((truth * 8)) ] || test_why "report: ${secs:-?} s"'
finish
