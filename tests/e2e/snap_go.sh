#!/bin/sh
# tidemark snap go-heap on a real Go program serving net/http/pprof
# (tests/progs/go/pprofserve.go, 32 MiB allocated in growCache): the
# profile is fetched over HTTP into DIR, `tidemark heap top` reads it, and
# the summary names growCache as the top in-use site; refusals say why (no
# URL, a 404, a port that does not answer, no such pid, the deadline).
. "$(dirname "$0")/../lib.sh"

if ! command -v go >/dev/null; then
	skip snap_go "no go (scripts/deps.sh --test installs golang-go)"
	finish
fi
if ! GOCACHE=$T/gocache GOPATH=$T/gopath go build -o "$T/pprofserve" "$TM_ROOT/tests/progs/go/pprofserve.go" \
	>"$T/build.log" 2>&1; then
	fail snap_go_builds "$(tail -5 "$T/build.log")"
	finish
fi
mkdir -m 700 "$T/snaps"
mkfifo "$T/in"
"$T/pprofserve" 32 <"$T/in" >"$T/out" 2>&1 &
GPID=$!
exec 3>"$T/in"
wait_for 30 grep -q '^port ' "$T/out"
port=$(awk '/^port/ { print $2 }' "$T/out")
url=http://127.0.0.1:$port/debug/pprof/heap

"$TM" snap go-heap $GPID --url "$url" -d "$T/snaps" >"$T/s.out" 2>"$T/s.err"
rc=$?
file=$(head -1 "$T/s.out")
sum=$(sed -n 2p "$T/s.out")
check_eq snap_go_exit "$rc" 0
test_expect "snap_go_names_the_site ($sum)" '
	echo "$sum" | grep -qE "^top in-use site: main\.growCache < main\.main < runtime\.main, [0-9]+\.[0-9] MiB in use \([0-9.]+% of the sampled\), [0-9]+ objects$" &&
	"$TM" heap top "$file" -n 1 | grep -q '\''main.growCache'\'' || test_why "summary '\''$sum'\'' file '\''$file'\'': $(cat "$T/s.err")"'
check_eq snap_go_private "$(stat -c %a "$file")" 600

check_fails snap_go_no_url "no URL of the program's /debug/pprof/heap" "$TM" snap go-heap $GPID -d "$T/snaps"
check_fails snap_go_404 "HTTP status 404" "$TM" snap go-heap $GPID --url "http://127.0.0.1:$port/nope" -d "$T/snaps"
check_fails snap_go_no_pid "no process 999999999" "$TM" snap go-heap 999999999 --url "$url" -d "$T/snaps"
# a listener that never answers: given up at the deadline
python3 -c "
import socket, sys, time
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(20)" >"$T/mute" &
MPID=$!
wait_for 10 test -s "$T/mute"
start=$(date +%s%N)
check_fails snap_go_deadline "[Tt]imeout|timed out" "$TM" snap go-heap $GPID --url "http://127.0.0.1:$(cat "$T/mute")/debug/pprof/heap" -d "$T/snaps" --timeout 500ms
ms=$((($(date +%s%N) - start) / 1000000))
test_expect "snap_go_deadline_bounded (${ms} ms)" '[ $ms -lt 5000 ] || test_why "took ${ms} ms"'
kill $MPID
check_eq snap_go_refusals_leave_nothing "$(ls "$T/snaps" | wc -l)" 1
exec 3>&-
wait $GPID
finish
