#!/bin/sh
# tidemark hprof holders (retained sizes, out of core) beside hprof top (the
# one-pass histogram) on the same dump: wall time, peak RSS (VmHWM: file
# pages of the mapped arrays included), peak anonymous memory (RssAnon,
# sampled every 20 ms), CPU seconds (user + system: the figure to trust on a
# loaded machine) and the temporary files' size at their peak.
#   sh bench/hprof/holders.sh [SIZE_MIB] [RUNS]   (default 1024 MiB of live heap, 1 run)
# Needs javac/jcmd and about 2.2x SIZE_MIB of disk in ${TMPDIR:-/var/tmp}.
# Prints one table; figures go to bench/README.md.
set -eu
cd "$(dirname "$0")/../.."
SIZE=${1:-1024}
RUNS=${2:-1}
TM=${TM:-build/tidemark}
W=$(mktemp -d "${TMPDIR:-/var/tmp}/tm-holders-bench.XXXXXX")
trap 'exec 3>&- 2>/dev/null; [ -n "${JPID:-}" ] && kill $JPID 2>/dev/null; rm -rf "$W"' EXIT
javac -d "$W" bench/hprof/Big.java
mkfifo "$W/in"
java -Xmx$((SIZE * 2 + 256))m -XX:+UseSerialGC -cp "$W" Big "$SIZE" <"$W/in" >"$W/out" 2>&1 &
JPID=$!
exec 3>"$W/in"
while ! grep -q ready "$W/out"; do sleep 0.5; done
jcmd $JPID GC.heap_dump "$W/big.hprof" >/dev/null
exec 3>&-
wait $JPID || true
JPID=
bytes=$(stat -c %s "$W/big.hprof")
mkdir "$W/tmp"

# one MODE: "seconds vmhwm_kib anon_peak_kib temp_peak_bytes cpu_seconds"
one()
{
	case $1 in
	top) set -- hprof top "$W/big.hprof" ;;
	holders) set -- hprof holders "$W/big.hprof" --json ;;
	esac
	start=$(date +%s.%N)
	/usr/bin/time -f '%U %S' -o "$W/cpu" env TMPDIR="$W/tmp" "$TM" "$@" >"$W/o.json" &
	tpid=$!
	pid=
	while [ -z "$pid" ] && kill -0 $tpid 2>/dev/null; do
		pid=$(pgrep -P $tpid | head -1)
		sleep 0.01
	done
	anon=0
	hwm=0
	while kill -0 $pid 2>/dev/null; do
		set -- $(awk '/^RssAnon:/ { a = $2 } /^VmHWM:/ { h = $2 } END { print a + 0, h + 0 }' \
			/proc/$pid/status 2>/dev/null || echo 0 0)
		[ "$1" -gt "$anon" ] && anon=$1
		[ "$2" -gt "$hwm" ] && hwm=$2
		sleep 0.02
	done
	wait $tpid
	end=$(date +%s.%N)
	temp=$(python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1])).get("temp_disk_peak_bytes", 0))
except Exception: print(0)' "$W/o.json")
	echo "$(echo "$end - $start" | bc) $hwm $anon $temp $(awk '{ print $1 + $2 }' "$W/cpu")"
}
cat "$W/big.hprof" >/dev/null # warm
: >"$W/all"
i=0
while [ $i -lt "$RUNS" ]; do
	for m in top holders; do echo "$m $(one $m)" >>"$W/all"; done
	i=$((i + 1))
done
"$TM" hprof holders "$W/big.hprof" -n 1 >"$W/holders.txt"
objs=$(awk '/^objects:/ { print $2 }' "$W/holders.txt" | tr -d ,)
refs=$(awk '/^objects:/ { print $(NF - 1) }' "$W/holders.txt")
echo "dump: $(awk -v b="$bytes" 'BEGIN { printf "%.0f MiB", b / 1048576 }'), $objs objects, $refs references ($SIZE MiB of live objects asked), $RUNS run(s)"
awk -v b="$bytes" '
{ n[$1]++; t[$1] += $2; c[$1] += $6; h[$1] = $3 > h[$1] ? $3 : h[$1]; a[$1] = $4 > a[$1] ? $4 : a[$1]; d[$1] = $5 > d[$1] ? $5 : d[$1] }
END {
	printf "%-8s %8s %8s %9s %14s %13s %14s\n", "mode", "mean s", "CPU s", "MB/s", "VmHWM MiB", "anon MiB", "temp MiB"
	split("top holders", order, " ")
	for (k = 1; k <= 2; k++) {
		m = order[k]; s = t[m] / n[m]
		printf "%-8s %8.2f %8.2f %9.0f %14.1f %13.1f %14.1f\n", m, s, c[m] / n[m], b / 1e6 / s, h[m] / 1024, a[m] / 1024, d[m] / 1048576
	}
}' "$W/all"
sed -n '1,6p' "$W/holders.txt"
