#!/bin/sh
# `make demo`: the main jobs on the bundled workload (examples/churn, a node
# syncing a chain), about four minutes on two cores, as root.
#
#  1. tidemark record --heap: one run under glibc as shipped, the report
#     that splits its anon memory into live heap and what glibc retains, and
#     the allocation sites that hold the live heap at the end;
#  2. tidemark bench: glibc as shipped, one glibc arena and jemalloc, three
#     runs each in fresh 512 MiB cgroups: which survive, their peaks, what
#     they hold afterwards, time and CPU.
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
DB=$B/demo-record.db
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: needs root (each run gets a fresh memory cgroup)" >&2
	exit 1
fi
rm -f "$DB" "$DB-wal" "$DB-shm"

echo "== 1. one run of churn under glibc, with the heap shim" >&2
echo "   tidemark record --heap --heap-profile $B/demo-heap -i 200ms --progress 'height=([0-9]+)' --until-progress 30 --settle 3s -- churn --hold 30" >&2
rm -f "$B"/demo-heap.*.pb.gz
"$B/tidemark" record -o "$DB" -q --heap --heap-profile "$B/demo-heap" -i 200ms \
	--progress 'height=([0-9]+)' --until-progress 30 --settle 3s -- "$B/churn" --hold 30
"$B/tidemark" report -o "$DB"
echo
echo "== what holds the live heap at the end: the sampled allocation sites" >&2
for f in "$B"/demo-heap.*.final.pb.gz; do
	echo "   tidemark heap top $f -n 5" >&2
	"$B/tidemark" heap top "$f" -n 5
done
echo
echo "== 2. the same work under three allocator settings, 3 runs each, MemoryMax=512M" >&2
sh scripts/demo-bench.sh
