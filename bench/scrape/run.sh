#!/bin/sh
# record --scrape's cost to the recorder, side by side in one invocation:
# the same Go program (tests/progs/go/promserve.go, 16 MiB held, its own
# /metrics) recorded SECONDS at 100 ms plain, with --scrape of every series
# it serves, and with --scrape of an endpoint that accepts and never answers.
# Per run: the recorder's CPU per sample and peak RSS (GNU time), the samples
# taken, how late the latest one started, and scraped values stored.
#   sh bench/scrape/run.sh [SECONDS]
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-20}
TM=${TM:-build/tidemark}
T=$(mktemp -d /tmp/tidemark-bench-scrape.XXXXXX)
trap 'kill $hang 2>/dev/null; rm -rf "$T"' EXIT
GOCACHE=$T/gocache GOPATH=$T/gopath GOFLAGS=-mod=mod GO111MODULE=off \
	go build -o "$T/promserve" tests/progs/go/promserve.go
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
hport=$(free_port)
python3 - "$hport" <<'EOP' &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); held = []
while True:
    c, _ = s.accept(); held.append(c)
EOP
hang=$!
sleep 0.3
echo "| recorder | samples | with a scrape | max late ms | CPU ms/sample | peak RSS MiB | scraped values |"
echo "|---|---|---|---|---|---|---|"
for mode in plain scrape hung; do
	port=$(free_port)
	case $mode in
	plain) opt= ;;
	scrape) opt="--scrape http://127.0.0.1:$port/metrics" ;;
	hung) opt="--scrape http://127.0.0.1:$hport/metrics" ;;
	esac
	# the program runs on its own and the recorder attaches (-p), so GNU
	# time counts the recorder alone, not the program's CPU and RSS
	"$T/promserve" 16 "$secs" "$port" >/dev/null &
	pid=$!
	sleep 0.3
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S %M' -o "$T/$mode.time" "$TM" record -q -o "$T/$mode.db" -i 100ms \
		-p $pid $opt 2>/dev/null
	wait $pid || true
	read -r u s m <"$T/$mode.time"
	n=$(sqlite3 "$T/$mode.db" "SELECT count(*) FROM samples")
	late=$(sqlite3 "$T/$mode.db" "SELECT max(late_usec) / 1000.0 FROM samples")
	vals=$(sqlite3 "$T/$mode.db" "SELECT count(*) FROM scrape_values")
	with=$(sqlite3 "$T/$mode.db" "SELECT count(DISTINCT seq) FROM scrape_values")
	echo "| $mode | $n | $with | $late | $(echo "$u $s $n" | awk '{printf "%.2f", ($1 + $2) * 1000 / $3}') | $(echo "$m" | awk '{printf "%.1f", $1 / 1024}') | $vals |"
done
