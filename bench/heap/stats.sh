#!/bin/sh
# What one reading of the allocator's own statistics costs inside the
# process (bench/heap/stats_bench.c), under each allocator, for a small heap
# and one with many free chunks.  Prints a markdown table for
# bench/heap/README.md.
#   sh bench/heap/stats.sh [READINGS]        (after `make all heap-progs`)
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
BIN=$B/progs/heap_stats_bench
SHIM=$PWD/$B/libtidemark-heap.so
LIB=/usr/lib/x86_64-linux-gnu
N=${1:-20}
[ -x "$BIN" ] && [ -r "$SHIM" ] || { echo "build first: make all heap-progs" >&2; exit 1; }
echo "| allocator | live blocks (as many freed) | median µs per reading | p90 µs |"
echo "|---|---|---|---|"
for lib in "" libjemalloc.so.2 libtcmalloc_minimal.so.4 libmimalloc.so.2; do
	[ -z "$lib" ] || [ -r "$LIB/$lib" ] || continue
	for blocks in 2000 200000; do
		# 200 000 blocks: 100 000 free chunks, slow for glibc's mallinfo2,
		# whose 1 % rule then spaces the readings: fewer of them
		n=$N
		[ -z "$lib" ] && [ "$blocks" -gt 2000 ] && n=3
		out=$(TIDEMARK_HEAP_KEEP=2 LD_PRELOAD="$SHIM${lib:+ $LIB/$lib}" "$BIN" "$blocks" "$n")
		med=$(echo "$out" | sed -n 's/.*median_ns=\([0-9]*\).*/\1/p')
		p90=$(echo "$out" | sed -n 's/.*p90_ns=\([0-9]*\).*/\1/p')
		printf '| %s | %d | %s | %s |\n' "${lib:-glibc}" $((blocks / 2)) \
			"$(awk -v v="$med" 'BEGIN { printf "%.1f", v / 1000 }')" \
			"$(awk -v v="$p90" 'BEGIN { printf "%.1f", v / 1000 }')"
	done
done
