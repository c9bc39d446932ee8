#!/bin/sh
# record takes a listening socket passed the systemd way (LISTEN_FDS=1,
# LISTEN_PID, fd 3; sd_listen_fds(3)), as tidemark-record@.socket passes
# it, and serves /metrics on it without --metrics-listen: a scrape queued
# on the socket before the recorder started is answered, the series name
# the run, and the command it runs inherits neither the socket nor the
# variables.  (Under real systemd, across the unit's restarts:
# tests/v2/record_socket.sh.)
. "$(dirname "$0")/../lib.sh"
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT

if ! command -v python3 >/dev/null; then
	skip record_socket "python3 (the socket's helper, tests/lib.sh listen_fd) is not installed"
	finish
fi
# the command: says what it inherited, then lives a few seconds
cat >"$T/child.sh" <<'EOF'
fd3=$(readlink /proc/$$/fd/3 2>/dev/null)
echo "LISTEN_FDS=${LISTEN_FDS:-unset} LISTEN_PID=${LISTEN_PID:-unset} fd3=${fd3:-none}" >"$1"
sleep 6
EOF
LISTEN_DELAY=3 listen_fd "$T/port" "$TM" record --db "$T/r.db" -i 200ms -q -- sh "$T/child.sh" "$T/child.out" \
	>"$T/rec.out" 2>&1 &
PIDS="$PIDS $!"
wait_for 30 test -s "$T/port" || { fail "the helper listens" "$(cat "$T/rec.out")"; finish; }
port=$(cat "$T/port")
# queued: the recorder has not taken the socket yet (LISTEN_DELAY)
curl -s --max-time 30 -o "$T/queued.txt" -w '%{http_code}' "http://127.0.0.1:$port/metrics" >"$T/queued.code" &
CURL=$!
PIDS="$PIDS $CURL"
wait "$CURL"
check_eq "a scrape queued before the recorder took the socket is answered" "$(cat "$T/queued.code")" 200
got=
for _ in $(seq 50); do
	curl -s --max-time 5 "http://127.0.0.1:$port/metrics" >"$T/m.txt" 2>/dev/null
	grep -q '^tidemark_run_info{' "$T/m.txt" && { got=1; break; }
	sleep 0.2
done
uuid=$(sql "$T/r.db" "select uuid from runs")
test_expect "/metrics on the passed socket names the live run ($uuid)" '[ -n "$got" ] && grep -q "^tidemark_run_info{.*run=\"$uuid\".*state=\"live\"} 1" "$T/m.txt" || test_why "$(head -5 "$T/m.txt"; cat "$T/rec.out")"'
test_expect "with its values" 'grep -q '\''^tidemark_processes{'\'' "$T/m.txt" || test_why "$(head -20 "$T/m.txt")"'
wait_for 10 test -s "$T/child.out"
test_expect "the command inherits neither the socket nor the variables" '
	case $(cat "$T/child.out") in
	"LISTEN_FDS=unset LISTEN_PID=unset fd3="socket:*) test_why "$(cat "$T/child.out")" ;;
	"LISTEN_FDS=unset LISTEN_PID=unset fd3="*) ;;
	*) test_why "$(cat "$T/child.out")" ;;
	esac'
test_expect "the run completes" 'wait_for 20 sh -c "sqlite3 '\''$T/r.db'\'' '\''select outcome from runs'\'' | grep -q completed" || test_why "$(cat "$T/rec.out")"'

# two sockets: refused with a reason (systemd's unit has one ListenStream)
python3 -c 'import os, socket, sys
a, b = socket.socket(), socket.socket()
for s in (a, b):
    s.bind(("127.0.0.1", 0)); s.listen(4)
os.dup2(a.fileno(), 3); os.dup2(b.fileno(), 4)
os.set_inheritable(3, True); os.set_inheritable(4, True)
os.environ["LISTEN_FDS"] = "2"; os.environ["LISTEN_PID"] = str(os.getpid())
os.execvp(sys.argv[1], sys.argv[1:])' "$TM" record --db "$T/two.db" -q -- true >"$T/two.out" 2>&1
rc=$?
test_expect "two passed sockets: exit 2 with the reason" '[ $rc = 2 ] && grep -q "systemd passed 2 sockets" "$T/two.out" || test_why "exit $rc: $(cat "$T/two.out")"'
finish
