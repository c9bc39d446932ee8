#!/bin/sh
# `tidemark heap stats PID` for a program whose allocator is linked into it
# (docs/heap.md "Allocators linked into the program"), launched under
# `record --heap`: the shim sees none of its calls, so its own counters
# (0 live) are withheld, and the allocator's own statistics are shown, read
# inside the process on request: within 256 KiB of what the program reads
# through mallctl itself (the answering thread's TLS block), in text and
# JSON (null for the withheld counters, never 0).
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs
if [ ! -x "$P/static_je" ]; then
	skip heap_static_stats "no $P/static_je: libjemalloc-dev (libjemalloc.a) not installed"
	finish
fi
T=$(mktemp -d /tmp/tm-static-stats.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
near() { [ "$1" -ge $(($2 - 262144)) ] && [ "$1" -le $(($2 + 262144)) ]; }
holding() { grep -q "^allocated=" "$1"; }

"$TM" record --heap -i 200ms -o "$T/je.db" -- "$P/static_je" 58 6 >"$T/je.out" 2>"$T/je.err" &
rpid=$!
wait_for 30 holding "$T/je.out"
pid=$(pgrep -n -f "$P/static_je 58 6")
own=$(sed -n 's/^allocated=//p' "$T/je.out")
text=$("$TM" heap stats "$pid" 2>&1)
json=$("$TM" heap stats "$pid" --json 2>&1)
wait "$rpid"
got=$(echo "$json" | sed -n 's/.*"allocator_allocated_bytes":\([0-9]*\).*/\1/p')
test_expect heap_static_stats_text '
	echo "$text" | grep -q "^pid $pid (running): malloc is linked into the executable (jemalloc): the shim sees none of its calls; live, peak, allocations and frees n/a$" &&
	echo "$text" | grep -q "^the allocator'\''s own figures: allocated [0-9.]* MiB, held beyond that [0-9.]* MiB$" &&
	! echo "$text" | grep -q "live 0.0 MiB" ||
	test_why "$text"'
test_expect heap_static_stats_json '
	[ -n "$got" ] && [ -n "$own" ] && near "$got" "$own" &&
	echo "$json" | grep -q "\"malloc_in_exe\":true,\"exe_allocator\":\"jemalloc\",\"live_bytes\":null," ||
	test_why "allocated '\''$got'\'' against the program'\''s own '\''$own'\'': $json"'
finish
