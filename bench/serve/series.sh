#!/bin/sh
# The panel's series request against the run's length: a week at 1 s and a
# year at 10 s (bench/serve/gen_week, every raw sample kept), and a year at
# 10 s under tidemark-record@'s retention (bench/store/gen_year), served by
# this tree and by BEFORE (another tidemark binary, e.g. a build of main) on
# the same stores, side by side; for each range ending at the run's last
# sample (an hour, a day, a week, 30 days, the whole run): the median of
# ROUNDS requests' wall time (curl's time_total, points=2000, the panel's
# default metrics), and the server's CPU (user + system from its
# /proc/PID/stat, 10 ms ticks) over the ROUNDS requests divided by ROUNDS,
# the figure that holds on a loaded machine.
#   [STORES=DIR] sh bench/serve/series.sh [ROUNDS] [BEFORE]   (default 5, no BEFORE)
# Results: bench/README.md ("The panel's series of any range").
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${1:-5}
BEFORE=${2:-}
make --no-print-directory all build/bench/serve/gen_week build/bench/store/gen_year >/dev/null
NEW=$PWD/build/tidemark
D=$(mktemp -d /tmp/tm-series-bench.XXXXXX)
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$D"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {printf "%.3f", a[int((NR+1)/2)]}'; }
# cpu_ticks PID: user + system clock ticks of the server so far
cpu_ticks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
TCK=$(getconf CLK_TCK)

# STORES=DIR: week.db, year.db and kept.db made by an earlier run (copied)
if [ -n "${STORES:-}" ]; then
	cp "$STORES/week.db" "$STORES/year.db" "$STORES/kept.db" "$D/"
else
	build/bench/serve/gen_week "$D/week.db" 1 604800 >/dev/null
	build/bench/serve/gen_week "$D/year.db" 1 3153600 10 >/dev/null
	build/bench/store/gen_year "$D/kept.db" 365 10 365 >/dev/null
fi

# serve BIN DB NAME: starts a server; its URL in $D/NAME.url
serve()
{
	"$1" serve --db "$2" --listen 127.0.0.1:0 >"$D/$3.out" 2>&1 &
	PIDS="$PIDS $!"
	echo $! >"$D/$3.pid"
	for _ in $(seq 50); do
		grep -q '^listening on' "$D/$3.out" && break
		sleep 0.1
	done
	sed -n 's|^listening on \(http://[0-9.:]*\)/$|\1|p' "$D/$3.out" >"$D/$3.url"
}

echo "| store | range | before: wall s | before: CPU ms | after: wall s | after: CPU ms | bytes |"
echo "|---|---|---|---|---|---|---|"
for s in week year kept; do
	"$NEW" serve token add --read bench --db "$D/$s.db" >"$D/$s.tok"
	chmod 600 "$D/$s.tok"
	H="Authorization: Bearer $(cat "$D/$s.tok")"
	serve "$NEW" "$D/$s.db" "$s-new"
	[ -n "$BEFORE" ] && serve "$BEFORE" "$D/$s.db" "$s-old"
	last=$(sqlite3 "$D/$s.db" "select max(t_wall_usec) from samples where run_id = 1")
	for span in 3600 86400 604800 2592000 whole; do
		q="points=2000"
		[ "$span" != whole ] && q="$q&from=$((last - span * 1000000 + 1000000))"
		: >"$D/a" && : >"$D/b"
		oa=0 ob=0
		for _ in $(seq "$ROUNDS"); do
			if [ -n "$BEFORE" ]; then
				c0=$(cpu_ticks "$(cat "$D/$s-old.pid")")
				curl -s -o /dev/null -w '%{time_total}\n' -H "$H" \
					"$(cat "$D/$s-old.url")/api/v1/runs/1/series?$q" >>"$D/a"
				oa=$((oa + $(cpu_ticks "$(cat "$D/$s-old.pid")") - c0))
			fi
			c0=$(cpu_ticks "$(cat "$D/$s-new.pid")")
			curl -s -o "$D/o.json" -w '%{time_total}\n' -H "$H" \
				"$(cat "$D/$s-new.url")/api/v1/runs/1/series?$q" >>"$D/b"
			ob=$((ob + $(cpu_ticks "$(cat "$D/$s-new.pid")") - c0))
		done
		b="– | –"
		[ -n "$BEFORE" ] && b="$(median <"$D/a") | $(echo "$oa * 1000 / $TCK / $ROUNDS" | bc)"
		echo "| $s | $span | $b | $(median <"$D/b") | $(echo "$ob * 1000 / $TCK / $ROUNDS" | bc) | $(wc -c <"$D/o.json") |"
	done
done
