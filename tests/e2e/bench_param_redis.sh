#!/bin/sh
# bench --param on a real server: the memory per idle connection of
# Debian's redis-server.  Each run starts redis-server on a free loopback
# port, opens {N} idle connections with build/progs/param_conns (which
# allocates nothing per connection but an int), waits until redis reports
# connected_clients = N + 1 (INFO clients), holds them open for 1 s and
# ends, stopping redis.  The arm is jemalloc: Debian's redis-server is
# linked with libjemalloc, which the allocator check requires an arm to
# claim.
#
# Measured on this project's 2-core VM (N = 500, 2000, 4000): 1.36 KiB of
# anon per connection (R² 1.0000; redis's client struct and lists; the
# 16 KiB reply buffer each client gets is allocated but never touched, so
# not resident) and 6.4 KiB of the cgroup's memory (with the kernel's
# socket buffers of both ends).  The test checks the anon slope is positive
# and between 512 B and 32 KiB per connection, that its R² is above 0.9,
# that it lies over a fixed part (3.5 MiB here) with a growth exponent of
# 1 (0.8-1.2; the log-log slope of the totals said 0.36), and that the
# table shows both.
. "$(dirname "$0")/../lib.sh"
C=$TM_BUILD/progs/param_conns
if [ ! -x "$C" ]; then
	skip "redis-server per connection" "build/progs/param_conns is not built (make check builds it)"
	finish
fi
if ! command -v redis-server >/dev/null; then
	skip "redis-server per connection" "redis-server is not installed (scripts/deps.sh installs it)"
	finish
fi
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/serve.sh" <<EOF
# one run: redis on 127.0.0.1:$PORT, \$1 idle connections held for 1 s
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --daemonize no \\
	--logfile '' --loglevel warning --maxclients 10000 --tcp-backlog 4096 &
r=\$!
"$C" --port $PORT --conns "\$1" --hold-ms 1000
rc=\$?
kill \$r
wait \$r
exit \$rc
EOF
"$TM" bench -o "$T/r.db" --arm jemalloc --runs 2 -i 50ms --timeout 60s --param N=500,2000,4000 \
	-- sh "$T/serve.sh" '{N}' >"$T/r.txt" 2>"$T/r.err"
rc=$?
left=$(pgrep -f "redis-server 127.0.0.1:$PORT" || true)
test_expect "nothing of the runs is left (no redis-server on port $PORT)" '
	[ -z "$left" ] || test_why "redis-server still running: $left"'
if [ -n "$left" ]; then
	kill $left 2>/dev/null
fi
completed=0
[ $rc -eq 0 ] && grep -q '^  N=4000 .*2/2' "$T/r.txt" && completed=1
test_expect "bench --param N=500,2000,4000 of redis-server: every run completed" '
	[ $completed = 1 ] || test_why "exit $rc: $(tail -5 "$T/r.err"; grep -A4 "^survived" "$T/r.txt")"'
[ $completed = 1 ] || finish
"$TM" bench -o "$T/r.db" --table 1 --json >"$T/r.json" 2>&1
cat >"$T/fit.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [f for f in d["param"]["fits"] if f["figure"] == "peak_anon_bytes"][0]
m = [f for f in d["param"]["fits"] if f["figure"] == "peak_memory_bytes"][0]
print("%.0f B of anon per connection (R² %.4f, exponent %.2f), %.0f B of memory" % (
    f["slope_per_unit"], f["r2"], f["exponent"], m["slope_per_unit"] or float("nan")))
assert f["n"] == 3
assert 512 <= f["slope_per_unit"] <= 32768, "anon per connection out of range"
assert f["r2"] > 0.9, "not a line"
# a line over the MiBs redis holds with no client: its growth is linear (the
# log-log slope of the totals said 0.15, "nearly flat")
assert f["intercept"] > 1 << 20, "fixed part %r" % f["intercept"]
assert 0.8 <= f["exponent"] <= 1.2, "growth exponent %r of a line over a base" % f["exponent"]
PY
out=$(python3 "$T/fit.py" "$T/r.json" 2>&1)
rc=$?
test_expect "redis-server: $out" '[ $rc -eq 0 ] || test_why "$out"'
sed -n '/^peak anon MiB$/,/growth exponent/p' "$T/r.txt" | sed 's/^/# /'
test_expect "the table shows peak anon per value and per connection (KiB per N)" '
	sed -n '\''/^peak anon MiB$/,/growth exponent/p'\'' "$T/r.txt" | grep -Eq '\''^  per N +[0-9.]+ KiB  R² [01]\.[0-9]{4}$'\'' &&
	sed -n '\''/^peak anon MiB$/,/growth exponent/p'\'' "$T/r.txt" | grep -Eq '\''^  fixed part +[0-9.]+ MiB$'\'' ||
	test_why "$(sed -n '\''/^peak anon MiB$/,/growth/p'\'' "$T/r.txt")"'
finish
