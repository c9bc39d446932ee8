#!/bin/sh
# An idle recording's wakes: `record --progress-file` on a file nobody
# writes, the recorder's voluntary context switches over SECONDS (after its
# first 2 s), for each tidemark binary given.
# usage: sh bench/record/wakes.sh TIDEMARK... SECONDS
set -eu
eval "S=\${$#}"
n=0
for TM in "$@"; do
	n=$((n + 1))
	[ "$n" -eq "$#" ] && break
	D=$(mktemp -d /tmp/tidemark-wakes.XXXXXX)
	: >"$D/log"
	"$TM" record -q -o "$D/db" -i 1s --progress 'h=([0-9]+)' --progress-file "$D/log" \
		-- sleep 1000 2>/dev/null &
	P=$!
	sleep 2
	a=$(awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$P/status")
	sleep "$S"
	b=$(awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$P/status")
	kill -TERM "$P"
	wait "$P" || true
	echo "$TM: $((b - a)) wakes in ${S} s ($(awk "BEGIN {printf \"%.1f\", ($b - $a) / $S}")/s)"
	rm -rf "$D"
done
