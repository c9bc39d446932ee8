#!/bin/sh
# What each unwinder costs per sampled allocation, attached and preloaded
# (bench/README.md "Unwinders: the cost of a sampled allocation"): for a
# program with frame pointers (walked by them) and one without (libunwind,
# the shim's and the agent's own choice), the ns per malloc/free pair with
# sampling every MEAN bytes on average against sampling off, under the
# preloaded shim and after `heap attach`, all in one run; the difference
# divided by the share of allocations sampled (1 - exp(-256/MEAN): every
# malloc is of 256 bytes) is the cost of one sampled allocation.
#   sh bench/attach/unwind.sh [MEAN_BYTES [DEPTH]]
set -e
B=${TM_BUILD:-build}
TM=$B/tidemark
MEAN=${1:-1024}
DEPTH=${2:-10}
ROUNDS=10
for k in fp nofp; do
	[ -x "$B/bench/unwind_bench_$k" ] || { echo "make $B/bench/unwind_bench_$k first" >&2; exit 1; }
done
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
lines() { wc -l <"$1"; }
# unwinder PID: what `tidemark heap PID` says it used
# (or, when it did not say, what it said instead: never an empty column)
unwinder() {
	said=$("$TM" heap "$1" -o "$T/p.pb.gz" 2>&1) || true
	u=$(printf '%s\n' "$said" | sed -n 's/.*unwinder \([^;]*\).*/\1/p')
	[ -n "$u" ] && echo "$u" || echo "not known: $(printf '%s' "$said" | head -1)"
}

# preloaded PROG SAMPLE: median ns per pair of rounds 3..ROUNDS (and the unwinder)
preloaded() {
	LD_PRELOAD=$B/libtidemark-heap.so TIDEMARK_HEAP_SAMPLE=$2 "$1" $ROUNDS 300 "$DEPTH" >"$T/out" &
	pid=$!
	while [ "$(lines "$T/out")" -lt 2 ]; do sleep 0.05; done
	[ "$2" = 0 ] || echo "$(unwinder $pid)" >"$T/unw"
	wait "$pid"
	sed -n "3,${ROUNDS}p" "$T/out" | awk '{print $4}' | med
}

# attached PROG SAMPLE: the same, of the rounds that start after the attach
attached() {
	"$1" $((ROUNDS + 3)) 300 "$DEPTH" >"$T/out" &
	pid=$!
	while [ "$(lines "$T/out")" -lt 2 ]; do sleep 0.05; done
	"$TM" heap attach "$pid" --sample "$2" >/dev/null
	from=$(($(lines "$T/out") + 2))
	[ "$2" = 0 ] || echo "$(unwinder $pid)" >"$T/unw"
	wait "$pid"
	sed -n "${from},\$p" "$T/out" | awk '{print $4}' | med
}

p=$(awk -v m="$MEAN" 'BEGIN {printf "%.5f", 1 - exp(-256 / m)}')
echo "malloc of 256 bytes $DEPTH calls deep, sampling every $MEAN bytes on average: $p of allocations sampled"
for k in fp nofp; do
	prog=$B/bench/unwind_bench_$k
	for how in preloaded attached; do
		off=$($how "$prog" 0)
		on=$($how "$prog" "$MEAN")
		unw=$(cat "$T/unw")
		awk -v k=$k -v how=$how -v off="$off" -v on="$on" -v p="$p" -v u="$unw" 'BEGIN {
			printf "%-5s %-9s unwinder %s: %.2f ns per pair sampling off, %.2f on: %.0f ns per sampled allocation\n",
			    k, how, u, off, on, (on - off) / p }'
	done
done
