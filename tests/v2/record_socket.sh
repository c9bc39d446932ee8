#!/bin/sh
# tidemark-record@X keeps its /metrics across restarts, under real systemd
# (the systemd guest): with tidemark-record@X.socket enabled (ListenStream=
# in a drop-in, as its comment says) the recorder serves /metrics on the
# socket systemd passes it; while the watched unit is stopped /metrics
# answers with the last run, state "ended"; when it starts again, the new
# run, live; and while the recorder itself is restarted, killed (Restart=
# always, 10 s later) or stopped, a scrape is queued by the socket and
# answered when the recorder is back: no scrape is refused.
V2_SYSTEMD=1
V2_TIMEOUT=600
. "$(dirname "$0")/lib.sh"
U=tm-sock.service
R=tidemark-record@tm-sock
ADDR=127.0.0.1:9178
cat >/etc/systemd/system/$U <<UNIT
[Service]
ExecStart=/bin/sleep 3600
UNIT
install -m 755 "$TM" /usr/local/bin/tidemark
install -D -m 644 "$TM_BUILD/libtidemark-net.so" /usr/local/lib/tidemark/libtidemark-net.so
for u in tidemark-record@.service tidemark-record@.socket; do
	sed 's|@bindir@|/usr/local/bin|g' "$TM_ROOT/dist/systemd/$u.in" >/etc/systemd/system/$u
done
mkdir -p /etc/systemd/system/$R.socket.d
printf '[Socket]\nListenStream=%s\n' $ADDR >/etc/systemd/system/$R.socket.d/listen.conf
systemctl daemon-reload
check "the watched unit starts" systemctl start $U
check "$R.socket starts" systemctl start $R.socket
check "$R.service starts" systemctl start $R.service

# scrape [MAX_SECONDS]: /metrics into $T/m.txt; prints the HTTP status
scrape() { curl -s --max-time "${1:-5}" -o "$T/m.txt" -w '%{http_code}' "http://$ADDR/metrics"; }
# run_info: the run_info line's "run state" (empty when none)
run_info() { sed -n 's/^tidemark_run_info{.*run="\([^"]*\)".*state="\([a-z]*\)"} 1$/\1 \2/p' "$T/m.txt"; }
# wait_state STATE: until /metrics names a run in STATE (at most 60 s)
wait_state()
{
	end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt $end ]; do
		[ "$(scrape 3)" = 200 ] && run_info | grep -q " $1\$" && return 0
		sleep 0.2
	done
	return 1
}
journal() { journalctl -u $R.service --no-pager -n 8 2>&1; }

wait_state live || {
	fail "/metrics on the socket names the live run" "$(cat "$T/m.txt"; journal; systemctl status --no-pager $R.socket $R.service 2>&1 | head -30)"
	systemctl stop $R.socket $R.service $U
	finish
}
run1=$(run_info | cut -d' ' -f1)
ok "the recorder serves /metrics on the socket systemd passed (run $run1)"
test_expect "without --metrics-listen" '
	! grep -q -- --metrics-listen /proc/"$(systemctl show -P MainPID $R.service)"/cmdline ||
	test_why "$(tr "\\0" " " </proc/"$(systemctl show -P MainPID $R.service)"/cmdline)"'

# between the watched unit's runs: the last run, ended
check "the watched unit stops" systemctl stop $U
wait_state ended
ended_rc=$?
test_expect "while the unit is stopped /metrics answers: run $(run_info)" '[ $ended_rc = 0 ] || test_why "$(cat "$T/m.txt"; journal)"'
is "$(run_info | cut -d' ' -f1)" = "$run1" "the run it names is the one that ended" "$(run_info)"
test_expect "and no value that would read as current" '
	! grep -q "^tidemark_processes{" "$T/m.txt" || test_why "$(grep -v "^#" "$T/m.txt")"'
test_expect "but its last sample's date" 'grep -q '\''^tidemark_last_sample_timestamp_seconds{'\'' "$T/m.txt" || test_why "$(cat "$T/m.txt")"'
check "the watched unit starts again" systemctl start $U
for _ in $(seq 5); do
	wait_state live && [ "$(run_info | cut -d' ' -f1)" != "$run1" ] && break
	sleep 0.2
done
run2=$(run_info | cut -d' ' -f1)
test_expect "when it starts again, the new run, live ($run2)" '[ -n "$run2" ] && [ "$run2" != "$run1" ] || test_why "$(run_info; journal)"'

# the recorder's own restarts: every scrape answered, none refused
pid0=$(systemctl show -P MainPID $R.service)
( for _ in $(seq 15); do echo "$(scrape 15)"; sleep 0.1; done >"$T/codes" ) &
loop=$!
sleep 0.5
check "systemctl restart $R.service" systemctl restart $R.service
wait $loop
is "$(grep -vc '^200$' "$T/codes")" = 0 "no scrape refused or lost while the recorder restarts" \
	"$(sort "$T/codes" | uniq -c | tr '\n' ' ')"
pid1=$(systemctl show -P MainPID $R.service)
test_expect "(it did restart: pid $pid0, then $pid1)" '[ "$pid1" != "$pid0" ] && [ "$pid1" != 0 ] || test_why "pid $pid0, then $pid1"'

# killed: systemd starts it again after RestartSec=10s; meanwhile a scrape
# waits in the socket's queue and is answered when it is back
kill -9 "$pid1"
sleep 0.5
t0=$(date +%s)
code=$(scrape 30)
t1=$(date +%s)
is "$code" = 200 "a scrape while the killed recorder waits to restart is answered ($((t1 - t0)) s later)" \
	"$(journal)"
wait_state live
live_rc=$?
test_expect "by the restarted recorder, recording again ($(run_info))" '[ $live_rc = 0 ] || test_why "$(cat "$T/m.txt"; journal)"'

# stopped: the socket still listens; a scrape starts the recorder again
systemctl stop $R.service 2>/dev/null
is "$(systemctl is-active $R.socket)" = active "with the recorder stopped, the socket still listens"
code=$(scrape 30)
is "$code" = 200 "and a scrape is answered (it starts the recorder)" "$(journal)"
is "$(systemctl is-active $R.service)" = active "the recorder runs again" "$(journal)"
systemctl stop $R.socket $R.service $U
finish
