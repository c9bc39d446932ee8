#!/bin/sh
# The bench demo (`make demo` runs it): the churn workload under three arms,
# glibc as shipped, one glibc arena and jemalloc, three runs each, under a
# memory limit between what jemalloc and glibc's default need, so the glibc
# default is the arm at risk.  Prints the comparison table and writes it as
# Markdown next to the store.
#
#   sh scripts/demo-bench.sh              (needs root for the cgroups)
#   RUNS=5 LIMIT=700M sh scripts/demo-bench.sh
#
# churn here runs with its defaults (examples/README.md): 15 long-lived
# threads, bursts of 40k objects in rounds 3..17 of 30, a 32 MiB working set.
# Measured on a 2-core Debian 12 VM: glibc peaks ~655 MiB of anon and keeps
# it, one arena ~90 MiB, jemalloc ~370 MiB and falls back to ~80 MiB.  Under
# 512 MiB the glibc default is killed.  --settle 6s keeps sampling after the
# last height, so "held after" shows who gives the memory back; --heap splits
# what is held into live heap and what the allocator retains, and says how
# much of a killed run's memory was live when it died.  Takes about three
# minutes.
set -eu
cd "$(dirname "$0")/.."
B=${B:-build}
TM=$B/tidemark
CHURN=$B/churn
RUNS=${RUNS:-3}
LIMIT=${LIMIT:-512M}
DB=${DB:-$B/demo-bench.db}
MD=${DB%.db}.md

for f in "$TM" "$CHURN"; do
	if [ ! -x "$f" ]; then
		echo "demo-bench: $f is missing; run make first" >&2
		exit 1
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	echo "demo-bench: needs root (each run gets a fresh memory-limited cgroup)" >&2
	exit 1
fi
rm -f "$DB" "$DB-wal" "$DB-shm"

echo "demo-bench: churn under glibc, MALLOC_ARENA_MAX=1 and jemalloc, $RUNS runs each," \
	"MemoryMax=$LIMIT, no swap, heap shim on" >&2
"$TM" bench -o "$DB" --name churn --runs "$RUNS" --interval 200ms \
	--memory-max "$LIMIT" --swap-max 0 \
	--arm glibc --arm arena1 --arm jemalloc --heap \
	--progress 'height=([0-9]+)' --until-progress 30 --settle 6s --timeout 2m \
	--export "md:$MD" \
	-- "$CHURN" --hold 60
