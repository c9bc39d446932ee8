#!/bin/sh
# A process that came and went between two samples (a script that runs
# short programs in turn) leaves its final heap profile, as one the
# recorder listed does: it saved its memory map in the region it kept at
# exit (docs/heap.md, "Profiles from the recorder").  Before, only its
# counters were taken and its profile was lost.
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs
if [ ! -x "$P/heap_sites" ]; then
	fail heap_between_build "missing $P/heap_sites (make test-build)"
	finish
fi
# one sample at the start and one at the end (-i 5s): heap_sites runs for
# milliseconds in the middle, never listed
TIDEMARK_HEAP_SAMPLE=64K "$TM" record --heap --heap-profile "$T/p" -i 5s -o "$T/r.db" \
	-- sh -c "sleep 0.5; $P/heap_sites 8 >/dev/null; sleep 1" \
	>"$T/out" 2>"$T/err" </dev/null
rep=$("$TM" report -o "$T/r.db")
ls "$T" >"$T/files"
n=$(grep -c '\.final\.pb\.gz$' "$T/files")
test_expect heap_between_profile_written '[ "$n" -ge 1 ] || test_why "final profiles: $n; $(cat "$T/files" | tr "\n" " "); $(cat "$T/err")"'
# its sites, symbolized with the map it saved (it freed them all before
# exiting, so they are in the profile's allocated space, not in use)
test_expect heap_between_profile_sites 'gzip -dc "$T"/p.*.final.pb.gz | grep -aq keep_known_site || test_why "no keep_known_site in $(ls "$T"/p.*.final.pb.gz)"'
test_expect heap_between_report_lists 'echo "$rep" | grep -q "^  profiles    [0-9]* heap profiles\? written" || test_why "$(echo "$rep" | grep -E "profiles|unwinder")"'
finish
