#!/bin/sh
# A report's cost against the run's length: `tidemark report` of one run of
# a day, a week and 30 days at 1 s and of a year at 10 s (bench/serve/gen_week,
# one store each), this tree against BEFORE (another tidemark binary, e.g. a
# build of main), side by side on the same stores, ROUNDS interleaved rounds,
# medians of wall time, CPU (user + system) and peak RSS.
#   sh bench/store/report.sh [ROUNDS] [BEFORE]      (default 3, no BEFORE)
# Results: bench/README.md ("A report of any length").
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
BEFORE=${2:-}
make --no-print-directory all build/bench/serve/gen_week >/dev/null
NEW=$PWD/build/tidemark
D=$(mktemp -d /tmp/tm-report-length.XXXXXX)
trap 'rm -rf "$D"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# measure BIN DB: "wall_s cpu_s maxrss_kib" of one report
measure()
{
	/usr/bin/time -f "%e %U %S %M" "$1" report --db "$2" 1 2>&1 >/dev/null | tail -1 |
		awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}'
}
# row LABEL DB: one table row, BEFORE's figures first when there is one
row()
{
	: >"$D/a" && : >"$D/b"
	for i in $(seq "$ROUNDS"); do
		[ -n "$BEFORE" ] && measure "$BEFORE" "$2" >>"$D/a"
		measure "$NEW" "$2" >>"$D/b"
	done
	b="– | – | –"
	if [ -n "$BEFORE" ]; then
		b="$(cut -d' ' -f1 "$D/a" | median) | $(cut -d' ' -f2 "$D/a" | median) |"
		b="$b $(echo "$(cut -d' ' -f3 "$D/a" | median) / 1024" | bc -l | xargs printf '%.1f')"
	fi
	n="$(cut -d' ' -f1 "$D/b" | median) | $(cut -d' ' -f2 "$D/b" | median) |"
	n="$n $(echo "$(cut -d' ' -f3 "$D/b" | median) / 1024" | bc -l | xargs printf '%.1f')"
	echo "| $1 | $b | $n |"
}

echo "# load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs, $ROUNDS rounds, medians"
echo "| run | before: wall s | before: CPU s | before: RSS MiB | after: wall s | after: CPU s | after: RSS MiB |"
echo "|---|---|---|---|---|---|---|"
build/bench/serve/gen_week "$D/day.db" 1 86400
row "a day at 1 s (86 400 samples)" "$D/day.db"
rm -f "$D/day.db"*
build/bench/serve/gen_week "$D/week.db" 1 604800
row "a week at 1 s (604 800)" "$D/week.db"
rm -f "$D/week.db"*
build/bench/serve/gen_week "$D/month.db" 1 2592000
row "30 days at 1 s (2 592 000)" "$D/month.db"
rm -f "$D/month.db"*
build/bench/serve/gen_week "$D/year.db" 1 3153600 10
row "a year at 10 s (3 153 600)" "$D/year.db"
