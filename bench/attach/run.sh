#!/bin/sh
# heap attach's costs (bench/README.md "attach"), side by side in one run:
#  1. the time the target's thread is stopped at attach (a sleeping
#     process, one busy in malloc/free, a sleeping one with jemalloc linked
#     in) and at detach (none: the agent's own thread lets go; the detach's
#     wall time is given);
#  2. the cost per malloc/free pair while attached against the preloaded
#     shim: two processes run at the same time, one attached (after rounds
#     without anything) and one under the preloaded shim, so that both see
#     the same load; the per-round differences give the cost and, from two
#     preloaded processes run the same way first, the noise;
#  3. the CPU time of the agent's statistics thread in a program with
#     jemalloc linked in, recorded at 1 s (its schedstat, in ns).
#   sh bench/attach/run.sh [REPEATS] [ROUNDS]
set -e
B=${TM_BUILD:-build}
TM=$B/tidemark
BENCH=$B/bench/attach_bench
JE=$B/progs/static_je
N=${1:-10}
R=${2:-20}
[ -x "$BENCH" ] || { echo "make $BENCH first" >&2; exit 1; }
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# a column's median, quartiles and the median's standard error (from the
# IQR, as for a normal spread: 1.2533 * IQR / 1.349 / sqrt(n))
quart() { sort -n | awk '{a[NR]=$1} END {lo=a[int((NR+3)/4)]; hi=a[int((3*NR+1)/4)]; printf "%.2f +- %.2f (IQR %.2f..%.2f, %d rounds)", a[int((NR+1)/2)], 1.2533*(hi-lo)/1.349/sqrt(NR), lo, hi, NR}'; }
lines() { wc -l <"$1"; }

# 1. stop times
for kind in idle busy static; do
	[ $kind = static ] && [ ! -x "$JE" ] && { echo "attach stop static: no $JE (libjemalloc-dev)"; continue; }
	: >"$T/stops"
	: >"$T/detach"
	for i in $(seq "$N"); do
		case $kind in
		idle) sleep 30 & ;;
		busy) "$BENCH" 1000 100 >/dev/null & ;;
		static) "$JE" 40 30 >"$T/je.out" & ;;
		esac
		pid=$!
		sleep 0.5
		# the program with jemalloc prints once it holds its 40 MiB, then sleeps
		[ $kind = static ] && while [ ! -s "$T/je.out" ]; do sleep 0.1; done && rm "$T/je.out"
		"$TM" heap attach "$pid" | sed -n 's/.*stopped \([0-9.]*\) ms.*/\1/p' >>"$T/stops"
		t0=$(date +%s%N)
		"$TM" heap detach "$pid" >/dev/null
		echo $((($(date +%s%N) - t0) / 1000)) >>"$T/detach"
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	done
	sort -n "$T/stops" | awk -v k=$kind '{a[NR]=$1} END {printf "attach stop %s: median %.1f ms, max %.1f ms over %d attaches", k, a[int((NR+1)/2)], a[NR], NR}'
	echo "; detach stops nothing (its wall time, median: $(med <"$T/detach") us)"
done

# 2. per pair, side by side: noise (shim | shim), then plain | shim, attached | shim
pair() { # A-FILE B-FILE: per-round differences A - B over the rounds both ran
	paste "$1" "$2" | awk -v lo="$3" -v hi="$4" 'NR >= lo && NR <= hi {print $4 - $8}'
}
SHIM="LD_PRELOAD=$B/libtidemark-heap.so TIDEMARK_HEAP_SAMPLE=0"
env $SHIM "$BENCH" "$R" 300 >"$T/n1" &
a=$!
env $SHIM "$BENCH" "$R" 300 >"$T/n2" &
b=$!
wait $a $b
noise=$(pair "$T/n1" "$T/n2" 2 "$R" | quart)
shim_alone=$(sed -n "2,${R}p" "$T/n2" | awk '{print $4}' | quart)
rounds=$((2 * R + 8))
"$BENCH" $rounds 300 >"$T/att" &
a=$!
env $SHIM "$BENCH" $rounds 300 >"$T/shim" &
b=$!
while [ "$(lines "$T/att")" -lt $((R / 2 + 2)) ]; do sleep 0.1; done
"$TM" heap attach "$a" --sample 0 >/dev/null # no sites: the shim arm samples none either
at=$(($(lines "$T/att") + 2))
while [ "$(lines "$T/att")" -lt $((at + R)) ]; do sleep 0.1; done
"$TM" heap detach "$a" >/dev/null
wait $a $b
plain=$(pair "$T/att" "$T/shim" 2 $((at - 3)) | quart)
attached=$(pair "$T/att" "$T/shim" "$at" $((at + R - 1)) | quart)
att_abs=$(sed -n "${at},$((at + R - 1))p" "$T/att" | awk '{print $4}' | quart)
echo "ns per malloc/free pair, rounds of 300 ms CPU, two processes at once (per-round differences, median and IQR):"
echo "  noise, preloaded shim - preloaded shim:  $noise"
echo "  no shim - preloaded shim:                $plain"
echo "  attached - preloaded shim:               $attached"
echo "  attached alone: $att_abs; preloaded shim alone: $shim_alone"

# 3. the statistics thread's CPU at 1 s, jemalloc linked in
if [ -x "$JE" ]; then
	"$JE" 40 60 >/dev/null &
	pid=$!
	sleep 0.5
	"$TM" record -o "$T/r.db" -p "$pid" --heap -i 1s --timeout 60s >/dev/null 2>&1 &
	rec=$!
	tid=
	while [ -z "$tid" ]; do
		sleep 0.2
		tid=$(grep -lx tidemark-attach /proc/$pid/task/*/comm 2>/dev/null | cut -d/ -f5 || true)
	done
	sleep 2
	c0=$(cut -d' ' -f1 /proc/$pid/task/$tid/schedstat)
	t0=$(date +%s%N)
	sleep 30
	c1=$(cut -d' ' -f1 /proc/$pid/task/$tid/schedstat)
	t1=$(date +%s%N)
	kill "$rec"
	wait "$rec" 2>/dev/null || true
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	echo "statistics thread (jemalloc linked in, recorded at 1 s): $(((c1 - c0) / 1000)) us of CPU in $(((t1 - t0) / 1000000)) ms: $(awk -v c=$((c1 - c0)) -v t=$((t1 - t0)) 'BEGIN {printf "%.4f", 100 * c / t}') % of a CPU"
fi
