#!/bin/sh
# What a recorder's CPU per sample is made of: each tidemark given records
# a lone sleep (`record -i 100ms -p PID`), beside build/bench/record/wakefloor
# (a program that only wakes at the same interval and reads the same files),
# all at once; after WARMUP seconds (past a run's first minute, where each
# sample is its own commit), the CPU (schedstat, ns) each spends over
# SECONDS, per wake: the floor is what the wake and the kernel's procfs text
# cost here, the rest is tidemark's own.
#
#   sh bench/record/wakefloor.sh WARMUP SECONDS TIDEMARK...
set -eu
W=$1 S=$2
shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FLOOR=$ROOT/build/bench/record/wakefloor
make -C "$ROOT" --no-print-directory -s build/bench/record/wakefloor
D=$(mktemp -d /tmp/tidemark-wakefloor.XXXXXX)
sleep 36000 &
SP=$!
PIDS=""
trap 'kill $SP $PIDS 2>/dev/null; rm -rf "$D"' EXIT

"$FLOOR" "$SP" 100 &
PIDS=$!
names="wakefloor"
n=0
for tm in "$@"; do
	n=$((n + 1))
	"$tm" record -q -o "$D/$n.db" -i 100ms -p "$SP" >/dev/null 2>&1 &
	PIDS="$PIDS $!"
	names="$names $tm"
done
cpu_ns() { awk '{ s += $1 } END { print s }' /proc/"$1"/task/*/schedstat; }
sleep "$W"
before=""
for p in $PIDS; do before="$before $(cpu_ns "$p")"; done
sleep "$S"
echo "| program | µs of CPU a wake (100 ms, over ${S} s) |"
echo "|---|---|"
set -- $before
for p in $PIDS; do
	name=${names%% *}
	names=${names#* }
	echo "| $name | $(( ($(cpu_ns "$p") - $1) / (S * 10) / 1000 )) |"
	shift
done
