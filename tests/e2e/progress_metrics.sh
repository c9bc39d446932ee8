#!/bin/sh
# The service's own progress on /metrics (issue 24): its units as its
# output gave them (tidemark_progress_units) and their rate over the last
# minute (tidemark_progress_units_per_second), on the recorder's
# --metrics-listen and on the server's /metrics from pushed progress; both
# pages pass promtool.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
	skip "progress on /metrics" "needs python3"
	finish
fi
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# value FILE FAMILY: the value of FAMILY's one series in FILE
value() { sed -n "s/^$2{machine=\"[^\"]*\"} \\([0-9.e+-]*\\)\$/\\1/p" "$1" | head -1; }
# between V LO HI
between() { python3 -c 'import sys; v, lo, hi = map(float, sys.argv[1:]); sys.exit(not lo <= v <= hi)' "$@" 2>/dev/null; }
promtool_ok()
{
	if command -v promtool >/dev/null 2>&1; then
		check "$1: promtool check metrics passes" sh -c "promtool check metrics <'$2'"
	else
		skip "$1: promtool check metrics" "promtool not installed"
	fi
}

# ---- the recorder: 10 units every 100 ms, 100 a second ----
mport=$(free_port)
"$TM" record -q -o "$T/r.db" -i 100ms --no-cgroup --metrics-listen "127.0.0.1:$mport" \
	--progress 'done=([0-9]+)' -- sh -c 'i=0; while [ $i -lt 50 ]; do i=$((i + 1)); echo done=$((i * 10)); sleep 0.1; done' \
	>"$T/r.out" 2>&1 &
rpid=$!
sleep 2.5
curl -s "http://127.0.0.1:$mport/metrics" >"$T/r.prom"
wait $rpid
u=$(value "$T/r.prom" tidemark_progress_units) r=$(value "$T/r.prom" tidemark_progress_units_per_second)
# 2.5 s in: 150-250 units on a quiet machine, fewer on a loaded one; the
# rate is the units over the time since the first line (sleep 0.1 takes
# at least 100 ms, so never above 100 a second, and the loop's own cost
# lowers it)
test_expect "record --metrics-listen exports the progress ($u units, $r a second)" '
	[ -n "$u" ] && between "$u" 20 500 && [ -n "$r" ] && between "$r" 40 101 &&
	grep -q "^# HELP tidemark_progress_units_per_second " "$T/r.prom" ||
	test_why "units '\''$u'\'' (want 20-500), rate '\''$r'\'' (want 40-101): $(grep progress "$T/r.prom"; cat "$T/r.out")"'
promtool_ok "the recorder's page" "$T/r.prom"

# ---- the server: progress pushed, 10 units a second for 10 s ----
S=$T/s.db
"$TM" serve token add box --db "$S" >"$T/box.tok"
chmod 600 "$T/box.tok"
start_server "$S" --public-read || { fail "server starts" "$(cat "$T/srv.err")"; finish; exit 1; }
now=$(($(date +%s) * 1000000))
python3 - "$now" >"$T/push.json" <<'EOP'
import json, sys
now = int(sys.argv[1])
t0 = now - 10000000
print(json.dumps({"v": 1,
    "run": {"uuid": "p-1", "interval_usec": 1000000, "started_wall_usec": t0},
    "samples": [{"seq": 0, "t_wall_usec": now, "values": {"cg_anon_bytes": 4096}}],
    "progress": [{"i": i, "t_wall_usec": t0 + i * 500000, "value": 5 * i} for i in range(21)]}))
EOP
code=$(http POST /api/v1/push -H "Authorization: Bearer $(cat "$T/box.tok")" --data-binary @"$T/push.json")
test_expect "a run with 10 s of progress pushed" '
	[ "$code" = 200 ] ||
	test_why "HTTP $code: $(cat "$T/body")"'
before=$(date +%s%6N)
curl -s "$URL/metrics" >"$T/s.prom"
after=$(date +%s%6N)
u=$(value "$T/s.prom" tidemark_progress_units) r=$(value "$T/s.prom" tidemark_progress_units_per_second)
# 100 units since the first line, 10 s before the push; the rate runs to the
# moment the page is made, between BEFORE and AFTER (later on a loaded host)
lo=$(awk -v a="$after" -v t="$now" 'BEGIN { printf "%.6f", 100 / ((a - t) / 1e6 + 10) * 0.98 }')
hi=$(awk -v b="$before" -v t="$now" 'BEGIN { printf "%.6f", 100 / ((b - t) / 1e6 + 10) * 1.02 }')
test_expect "the server's /metrics exports the pushed progress ($u units, $r a second)" '
	[ "$u" = 100 ] && [ -n "$r" ] && between "$r" "$lo" "$hi" ||
	test_why "units '\''$u'\'' (want 100), rate '\''$r'\'' (want $lo-$hi from the time the page was read): $(grep progress "$T/s.prom")"'
promtool_ok "the server's page" "$T/s.prom"
finish
