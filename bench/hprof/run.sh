#!/bin/sh
# tidemark hprof top against the size of the dump: read speed and peak RSS
# beside a plain Python reader of the same one pass (ref_histogram.py) and
# `cat` (the I/O floor), interleaved in one run on the same warm file.
#   sh bench/hprof/run.sh [SIZE_MIB] [RUNS]     (default 1024 MiB of live heap, 3 runs)
# Needs javac/jcmd (openjdk-17-jdk-headless) and about 1.2x SIZE_MIB of disk
# in ${TMPDIR:-/var/tmp}.  Prints one table; figures go to bench/README.md.
set -eu
cd "$(dirname "$0")/../.."
SIZE=${1:-1024}
RUNS=${2:-3}
TM=${TM:-build/tidemark}
W=$(mktemp -d "${TMPDIR:-/var/tmp}/tm-hprof-bench.XXXXXX")
trap 'exec 3>&- 2>/dev/null; [ -n "${JPID:-}" ] && kill $JPID 2>/dev/null; rm -rf "$W"' EXIT
javac -d "$W" bench/hprof/Big.java
mkfifo "$W/in"
java -Xmx$((SIZE * 2))m -XX:+UseSerialGC -cp "$W" Big "$SIZE" <"$W/in" >"$W/out" 2>&1 &
JPID=$!
exec 3>"$W/in"
while ! grep -q ready "$W/out"; do sleep 0.5; done
jcmd $JPID GC.heap_dump "$W/big.hprof" >/dev/null
exec 3>&-
wait $JPID || true
JPID=
bytes=$(stat -c %s "$W/big.hprof")
cat "$W/big.hprof" >/dev/null # warm: every reader then reads from the page cache

# one READER: "seconds max_rss_kib"
one()
{
	case $1 in
	tidemark) /usr/bin/time -f '%e %M' -o "$W/t" "$TM" hprof top "$W/big.hprof" >"$W/o.tm" ;;
	python) /usr/bin/time -f '%e %M' -o "$W/t" python3 bench/hprof/ref_histogram.py "$W/big.hprof" >"$W/o.py" ;;
	cat) /usr/bin/time -f '%e %M' -o "$W/t" cat "$W/big.hprof" >/dev/null ;;
	esac
	cat "$W/t"
}
: >"$W/all"
i=0
while [ $i -lt "$RUNS" ]; do
	for r in tidemark python cat; do echo "$r $(one $r)" >>"$W/all"; done
	i=$((i + 1))
done
echo "dump: $(awk -v b="$bytes" 'BEGIN { printf "%.0f MiB", b / 1048576 }') ($SIZE MiB of live objects asked), $RUNS runs each, interleaved"
awk -v b="$bytes" '
{ t[$1] = t[$1] " " $2; m[$1] = m[$1] " " $3 }
function med(s,   a, n, i, j, x) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	printf "%-10s %10s %10s %12s %14s\n", "reader", "median s", "MB/s", "peak RSS MiB", "s vs tidemark"
	split("tidemark python cat", order, " ")
	for (k = 1; k <= 3; k++) {
		r = order[k]; s = med(t[r]); if (s <= 0) s = 0.01
		printf "%-10s %10.2f %10.0f %12.1f %14s\n", r, s, b / 1e6 / s, med(m[r]) / 1024,
		    sprintf("x%.2f", s / (med(t["tidemark"]) > 0 ? med(t["tidemark"]) : 0.01))
	}
}' "$W/all"
echo "tidemark: $(tail -1 "$W/o.tm")"
echo "python:   $(cat "$W/o.py") (no java.lang.Class row)"
