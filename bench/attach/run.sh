#!/bin/sh
# heap attach's costs (bench/README.md "attach"): the time the target's
# thread is stopped at attach (and that detach stops nothing), and the
# cost per malloc/free pair while attached against the preloaded shim and
# against no shim, in one run of each.
#   sh bench/attach/run.sh [REPEATS]
set -e
B=${TM_BUILD:-build}
TM=$B/tidemark
BENCH=$B/bench/attach_bench
N=${1:-10}
[ -x "$BENCH" ] || { echo "make $BENCH first" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# stop times: a sleeping process and one busy in malloc/free
for kind in idle busy; do
	: >"$T/stops"
	for i in $(seq "$N"); do
		if [ $kind = idle ]; then sleep 30 & else "$BENCH" 1000 100 >/dev/null & fi
		pid=$!
		sleep 0.3
		"$TM" heap attach "$pid" | sed -n 's/.*stopped \([0-9.]*\) ms.*/\1/p' >>"$T/stops"
		"$TM" heap detach "$pid" >/dev/null
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	done
	sort -n "$T/stops" | awk -v k=$kind '{a[NR]=$1} END {printf "attach stop %s: median %.1f ms, max %.1f ms over %d attaches\n", k, a[int((NR+1)/2)], a[NR], NR}'
done

# per pair: rounds 1-4 plain, attach, rounds 5-12 attached, detach, rest
"$BENCH" 20 500 >"$T/att" &
pid=$!
while [ "$(wc -l <"$T/att")" -lt 4 ]; do sleep 0.1; done
"$TM" heap attach "$pid" >/dev/null
while [ "$(wc -l <"$T/att")" -lt 13 ]; do sleep 0.1; done
"$TM" heap detach "$pid" >/dev/null
wait "$pid"
LD_PRELOAD=$B/libtidemark-heap.so TIDEMARK_HEAP_SAMPLE=0 "$BENCH" 8 500 >"$T/shim"
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
plain=$(sed -n '2,4p' "$T/att" | awk '{print $4}' | med)
attached=$(sed -n '6,12p' "$T/att" | awk '{print $4}' | med)
after=$(sed -n '15,20p' "$T/att" | awk '{print $4}' | med)
shim=$(sed -n '2,8p' "$T/shim" | awk '{print $4}' | med)
echo "ns per malloc/free pair (median of rounds): no shim $plain, attached $attached, after detach $after, preloaded shim (TIDEMARK_HEAP_SAMPLE=0) $shim"
