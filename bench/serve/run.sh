#!/bin/sh
# Server benchmark: ingest throughput, server RSS with 10 machines x 1 week
# at 1 s, and the time to serve a week-long range to the panel.
#   sh bench/serve/run.sh [MACHINES] [SAMPLES_PER_MACHINE]   (defaults 10 604800)
# Results: bench/serve/README.md.
set -eu
cd "$(dirname "$0")/../.."
M=${1:-10}
N=${2:-604800}
make --no-print-directory all build/tests/progs/serve_feed build/bench/serve/gen_week >/dev/null
TM=$PWD/build/tidemark
D=$(mktemp -d /tmp/tm-serve-bench.XXXXXX)
SRV=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; rm -rf "$D"' EXIT

now() { date +%s.%N; }
rss() { awk '/^VmRSS/ {r=$2} /^VmHWM/ {h=$2} END {printf "%.1f MiB (peak %.1f MiB)", r/1024, h/1024}' "/proc/$1/status"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "== data: $M machines x $N samples at 1 s"
t0=$(now)
build/bench/serve/gen_week "$D/s.db" "$M" "$N"
t1=$(now)
echo "generated in $(echo "$t1 - $t0" | bc) s; store $(du -m "$D/s.db" | cut -f1) MiB"
"$TM" serve token add --read bench --db "$D/s.db" >"$D/read.tok"
"$TM" serve token add pusher --db "$D/s.db" >"$D/w.tok"
"$TM" serve token add pusher2 --db "$D/s.db" >"$D/w2.tok"
chmod 600 "$D"/*.tok
"$TM" serve --db "$D/s.db" --listen 127.0.0.1:0 --max-rate 10000000 >"$D/srv.out" 2>&1 &
SRV=$!
sleep 0.5
URL=$(sed -n 's|^listening on \(http://[0-9.:]*\)/$|\1|p' "$D/srv.out")
H="Authorization: Bearer $(cat "$D/read.tok")"
echo "server RSS after start-up: $(rss $SRV)"

echo "== time to serve a range to the panel (median of 5, points=2000, default metric set)"
for range in week day hour; do
	case $range in week) span=$N ;; day) span=86400 ;; hour) span=3600 ;; esac
	last=$(sqlite3 "$D/s.db" "select max(t_wall_usec) from samples where run_id = 1")
	from=$((last - span * 1000000 + 1000000))
	for i in 1 2 3 4 5; do
		curl -s -o "$D/series.json" -w '%{time_total}\n' -H "$H" "$URL/api/v1/runs/1/series?points=2000&from=$from"
	done | median >"$D/t.$range"
	echo "$range: $(cat "$D/t.$range") s, $(wc -c <"$D/series.json") bytes"
done
echo "week/hour time ratio: $(echo "scale=1; $(cat "$D/t.week") / $(cat "$D/t.hour")" | bc)"
t0=$(now)
for r in $(seq 1 "$M"); do
	curl -s -o /dev/null -H "$H" "$URL/api/v1/runs/$r/series?points=1000"
done
t1=$(now)
echo "all $M machines' week series (the overview page): $(echo "$t1 - $t0" | bc) s"
curl -s -o /dev/null -H "$H" "$URL/metrics"
curl -s -o /dev/null -w "run document: %{time_total} s; " -H "$H" "$URL/api/v1/runs/1"
curl -s -o /dev/null -w "its summary (reads every sample, fetched after the charts): %{time_total} s\n" -H "$H" "$URL/api/v1/runs/1/summary"
if [ -x /usr/bin/chromium ] && [ -d tests/browser/node_modules/playwright-core ]; then
	echo "panel run page, week at 1 s, open to charts drawn in chromium: $(node bench/serve/open.mjs "$URL/#token=$(cat "$D/read.tok")" | tail -1 | sed 's/$/ s (home page)/')"
	echo "panel run page of one machine's week: $(node bench/serve/open.mjs "$URL/#token=$(cat "$D/read.tok")&/run/1" 2>&1 | tail -1) s"
fi
echo "server RSS after serving every machine's week: $(rss $SRV)"

echo "== ingest (samples/s; local store write rate of the same collector alongside)"
"$PWD/build/tests/progs/serve_feed" "$D/c1.db" pusher 100000 0 "$URL" "$D/w.tok" 2>&1 >/dev/null | tee "$D/one.txt"
awk '/pushed/ {printf "one collector: %.0f samples/s pushed, %.0f samples/s written locally, ratio %.2f\n", $3/$11, $3/$6, ($3/$11)/($3/$6)}' "$D/one.txt"
"$PWD/build/tests/progs/serve_feed" "$D/c2.db" pusher 100000 0 "$URL" "$D/w.tok" 2>"$D/two-a.txt" >/dev/null &
A=$!
"$PWD/build/tests/progs/serve_feed" "$D/c3.db" pusher2 100000 0 "$URL" "$D/w2.tok" 2>"$D/two-b.txt" >/dev/null &
B=$!
wait $A $B
cat "$D/two-a.txt" "$D/two-b.txt" | awk '/pushed/ {n += $3; if ($11 > t) t = $11} END {printf "two collectors at once: %.0f samples/s in total\n", n / t}'
echo "server RSS at the end: $(rss $SRV)"
