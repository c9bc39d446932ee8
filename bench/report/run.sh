#!/bin/sh
# Reading a long run: `tidemark report` over a week and over 30 days at 1 s,
# this tree against the array-based report of REF (default d98db2a, main
# before rollups), side by side on the same stores; and the panel's series
# request over the week (rollups against decoding every sample).
#   sh bench/report/run.sh [ROUNDS]     (default 3; REF=commit to compare)
# Results: bench/README.md ("Reading a long run").
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
REF=${REF:-d98db2a}
make --no-print-directory all build/bench/serve/gen_week >/dev/null
NEW=$PWD/build/tidemark
D=$(mktemp -d /tmp/tm-report-bench.XXXXXX)
SRV=
trap '[ -n "$SRV" ] && kill "$SRV" 2>/dev/null; git worktree remove --force "$D/ref" 2>/dev/null; rm -rf "$D"' EXIT
git worktree add --detach "$D/ref" "$REF" >/dev/null 2>&1
make --no-print-directory -C "$D/ref" all >/dev/null 2>&1
OLD=$D/ref/build/tidemark

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# measure BIN DB: "seconds maxrss_kib" of one report, output kept to compare
measure() { /usr/bin/time -f "%e %M" "$1" report --db "$2" 1 2>&1 >"$D/out.$(basename "$1")" | tail -1; }
# side BIN_A BIN_B DB LABEL: ROUNDS interleaved runs of each, medians
side()
{
	: >"$D/a" && : >"$D/b"
	for i in $(seq "$ROUNDS"); do
		measure "$1" "$3" >>"$D/a"
		measure "$2" "$3" >>"$D/b"
	done
	ta=$(cut -d' ' -f1 "$D/a" | median) ma=$(cut -d' ' -f2 "$D/a" | median)
	tb=$(cut -d' ' -f1 "$D/b" | median) mb=$(cut -d' ' -f2 "$D/b" | median)
	printf '%s: array-based %s s %.1f MiB | streaming %s s %.1f MiB | time x%.1f, RSS x%.1f less\n' \
		"$4" "$ta" "$(echo "$ma / 1024" | bc -l)" "$tb" "$(echo "$mb / 1024" | bc -l)" \
		"$(echo "$ta / $tb" | bc -l)" "$(echo "$ma / $mb" | bc -l)"
}

echo "== a week at 1 s (604800 samples)"
build/bench/serve/gen_week "$D/week.db" 1 604800
side "$OLD" "$NEW" "$D/week.db" "week, report"
"$OLD" report --db "$D/week.db" 1 >"$D/old.txt"
"$NEW" report --db "$D/week.db" 1 >"$D/new.txt"
echo "text report differences (old < > new):"
diff "$D/old.txt" "$D/new.txt" || true

echo "== 30 days at 1 s (2592000 samples)"
build/bench/serve/gen_week "$D/month.db" 1 2592000
side "$OLD" "$NEW" "$D/month.db" "30 days, all raw"
cp "$D/month.db" "$D/pruned.db"
"$NEW" prune --db "$D/pruned.db" --keep raw=7d
: >"$D/b"
for i in $(seq "$ROUNDS"); do measure "$NEW" "$D/pruned.db" >>"$D/b"; done
printf '30 days, raw kept 7 d (the rest from minute rollups): streaming %s s %.1f MiB\n' \
	"$(cut -d' ' -f1 "$D/b" | median)" "$(echo "$(cut -d' ' -f2 "$D/b" | median) / 1024" | bc -l)"
"$NEW" report --db "$D/pruned.db" 1 | grep -E "page cache|rollups|throttle|progress"
echo "store: $(du -m "$D/month.db" | cut -f1) MiB all raw, $(du -m "$D/pruned.db" | cut -f1) MiB pruned (before VACUUM)"

echo "== the panel's series request over the week (points=2000, median of 5)"
"$NEW" serve token add --read bench --db "$D/week.db" >"$D/read.tok"
"$NEW" serve --db "$D/week.db" --listen 127.0.0.1:0 >"$D/srv.out" 2>&1 &
SRV=$!
sleep 0.5
URL=$(sed -n 's|^listening on \(http://[0-9.:]*\)/$|\1|p' "$D/srv.out")
H="Authorization: Bearer $(cat "$D/read.tok")"
for q in "points=2000" "points=2000&from_seq=1"; do
	for i in 1 2 3 4 5; do
		curl -s -o /dev/null -w '%{time_total}\n' -H "$H" "$URL/api/v1/runs/1/series?$q"
	done | median >"$D/t"
	echo "series?$q: $(cat "$D/t") s ($( [ "$q" = points=2000 ] && echo 'from rollups' || echo 'from_seq set: every sample decoded'))"
done
