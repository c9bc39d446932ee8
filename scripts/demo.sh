#!/bin/sh
# `make demo`: the main jobs on the bundled workload (examples/churn, a node
# syncing a chain), about four minutes on two cores, as root.
#
#  1. tidemark record --heap: one run under glibc as shipped, and the report
#     that splits its anon memory into live heap and what glibc retains;
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
echo "   tidemark record --heap -i 200ms --progress 'height=([0-9]+)' --until-progress 30 --settle 3s -- churn --hold 30" >&2
"$B/tidemark" record -o "$DB" -q --heap -i 200ms --progress 'height=([0-9]+)' \
	--until-progress 30 --settle 3s -- "$B/churn" --hold 30
"$B/tidemark" report -o "$DB"
echo
echo "== 2. the same work under three allocator settings, 3 runs each, MemoryMax=512M" >&2
sh scripts/demo-bench.sh
