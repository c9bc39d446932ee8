#!/bin/sh
# Whether a recorder's memory stays flat over months: each tidemark given
# records the same lone sleep at once, `record -i INTERVAL --commit-every
# 5m -p PID` (the 5-minute window a run has past its tenth minute, from its
# start), and every STEP seconds for SECONDS this prints each one's peak
# RSS (VmHWM) and anonymous RSS (RssAnon) in KiB.  The rows that wait for
# the commit and SQLite's page cache fill in the first minutes; what is
# left after that is what months of recording hold.
#
#   sh bench/record/flat.sh SECONDS STEP INTERVAL TIDEMARK...
set -eu
S=$1 STEP=$2 I=$3
shift 3
D=$(mktemp -d /tmp/tidemark-flat.XXXXXX)
sleep 36000 &
SP=$!
PIDS=""
trap 'kill $SP $PIDS 2>/dev/null; rm -rf "$D"' EXIT

n=0
head="| s |"
rule="|---|"
for tm in "$@"; do
	n=$((n + 1))
	"$tm" record -q -o "$D/$n.db" -i "$I" --commit-every 5m -p "$SP" >/dev/null 2>&1 &
	PIDS="$PIDS $!"
	head="$head $tm VmHWM | RssAnon |"
	rule="$rule---|---|"
done
echo "$head"
echo "$rule"
t=0
while [ "$t" -lt "$S" ]; do
	sleep "$STEP"
	t=$((t + STEP))
	line="| $t |"
	for p in $PIDS; do
		line="$line $(awk '/^VmHWM:/ { h = $2 } /^RssAnon:/ { a = $2 } END { print h " | " a }' \
			"/proc/$p/status") |"
	done
	echo "$line"
done
for p in $PIDS; do kill -INT "$p"; done
wait $PIDS 2>/dev/null || true
PIDS=""
