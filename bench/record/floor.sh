#!/bin/sh
# Where a recorder's RSS is, beside the floor: for each tidemark given, a
# `record -i 100ms -p PID` of a lone sleep, and build/bench/record/floor (a
# program that only inserts a row into an SQLite WAL store every 100 ms),
# each on its own, ROUNDS times in turn; after SECONDS, its peak RSS
# (VmHWM) and its resident KiB by mapping (/proc/PID/smaps): libc, SQLite,
# libm, ld.so, the executable, the other libraries, the heap, the rest
# anonymous (other mappings, the stack).  Medians over the rounds.
#
#   sh bench/record/floor.sh SECONDS ROUNDS TIDEMARK...
#
# The kernel maps a file 64 KiB around each fault (a whole large folio on
# newer kernels), so a library's resident text is the windows its used
# functions touch: these are figures of this machine's kernel.
set -eu
S=$1 R=$2
shift 2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FLOOR=$ROOT/build/bench/record/floor
make -C "$ROOT" --no-print-directory -s build/bench/record/floor
D=$(mktemp -d /tmp/tidemark-floor.XXXXXX)
sleep 3600 &
SP=$!
trap 'kill $SP 2>/dev/null; rm -rf "$D"' EXIT

# measure NAME CMD...: one run of CMD for S seconds; appends a line to $D/NAME
measure()
{
	name=$1
	shift
	rm -f "$D/db" "$D/db-wal" "$D/db-shm"
	"$@" >/dev/null 2>&1 &
	p=$!
	sleep "$S"
	# the command itself, or its one child when it was started through a shell
	awk -v exe="$(readlink "/proc/$p/exe")" '
		/^VmHWM:/ { hwm = $2 }
		FILENAME ~ /status$/ { next }
		/^[0-9a-f]+-[0-9a-f]+ / {
			f = $6; k = "anon"
			if (f ~ /libc\.so/) k = "libc"
			else if (f ~ /libsqlite3/) k = "sqlite"
			else if (f ~ /libm\.so/) k = "libm"
			else if (f ~ /ld-linux/) k = "ldso"
			else if (f == exe) k = "exe"
			else if (f ~ /\.so/) k = "libs"
			else if (f == "[heap]") k = "heap"
		}
		/^Rss:/ { r[k] += $2 }
		END { printf "%d %d %d %d %d %d %d %d %d\n", hwm, r["libc"], r["sqlite"], r["libm"],
			r["ldso"], r["exe"], r["libs"], r["heap"], r["anon"] }' \
		"/proc/$p/status" "/proc/$p/smaps" >>"$D/$name"
	# SIGINT ends a recording; the floor program, started in the background
	# of a script, ignores it (as sh sets it up) and ends with SIGTERM
	kill -INT "$p"
	sleep 0.5
	kill -TERM "$p" 2>/dev/null || true
	wait "$p" 2>/dev/null || true
}

i=0
while [ "$i" -lt "$R" ]; do
	n=0
	for tm in "$@"; do
		n=$((n + 1))
		measure "tm$n" "$tm" record -q -o "$D/db" -i 100ms -p "$SP"
	done
	measure floor "$FLOOR" "$D/db" 100
	i=$((i + 1))
done

echo "| program | peak RSS KiB | libc | SQLite | libm | ld.so | executable | other libraries | heap | other anonymous |"
echo "|---|---|---|---|---|---|---|---|---|---|"
n=0
for tm in "$@" floor; do
	n=$((n + 1))
	f=$D/tm$n
	[ "$tm" = floor ] && f=$D/floor
	python3 -c '
import statistics, sys
rows = [list(map(int, l.split())) for l in open(sys.argv[1])]
med = [int(statistics.median(c)) for c in zip(*rows)]
print("| %s | %s |" % (sys.argv[2], " | ".join(map(str, med))))' "$f" "$tm"
done
