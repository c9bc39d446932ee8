#!/bin/sh
# The OOM kill itself: under `record --heap`, without --heap-profile or any
# rule, a C program that grows into --memory-max (tests/progs/heap_oomgrow.c)
# is OOM-killed by the kernel, and the recorder writes its heap as it was at
# the kill (from the shim's region, which outlives it) into STORE-snaps/:
# `tidemark heap top` names the growing function as the top site, with
# most of the limit in use; the run's report lists it (text and JSON
# "oom_kill": true).  A process that exits on its own gets no such profile.
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs
"$TM" record -q -o "$T/oom.db" -i 50ms --memory-max 64M --heap -- "$P/heap_oomgrow" >"$T/out" 2>"$T/err"
f=$(ls "$T"/oom.db-snaps/run-1-oom-heap-*.pb.gz 2>/dev/null | head -1)
top=$([ -n "$f" ] && "$TM" heap top "$f" -n 1 2>&1)
row=$(echo "$top" | sed -n 2p)
# the top site, and its in-use MiB: at least 32 of the 64 MiB limit
mib=$(echo "$row" | awk '{ print int($1) }')
test_expect "oom_profile_names_the_growing_site ($(echo "$row" | tr -s ' '))" '
	echo "$row" | grep -q " grow_into_the_limit < main" && [ "${mib:-0}" -ge 32 ] ||
	test_why "file '\''$f'\''; top: $top; $(cat "$T/err")"'
check_eq oom_profile_dir_private "$(stat -c %a "$T/oom.db-snaps" 2>&1)" 700
check oom_profile_said_on_stderr grep -q "heap profile of pid [0-9]* at its OOM kill: $f" "$T/err"
"$TM" report 1 --db "$T/oom.db" >"$T/report.txt" 2>&1
check oom_profile_in_report grep -qF "; at the OOM kill: $f" "$T/report.txt"
check oom_profile_outcome grep -q "outcome     oom-killed" "$T/report.txt"
"$TM" report 1 --db "$T/oom.db" --json >"$T/report.json"
check oom_profile_in_json python3 -c "
import json
p = json.load(open('$T/report.json'))['heap_profiles']
assert len(p) == 1 and p[0]['oom_kill'] is True and p[0]['final'] is True and p[0]['path'] == '$f', p
"

# a process that exits on its own: no profile, no directory
"$TM" record -q -o "$T/ok.db" -i 50ms --memory-max 64M --heap -- "$P/heap_sites" 2 </dev/null >/dev/null 2>"$T/ok.err"
check_eq oom_profile_none_without_kill "$(ls -d "$T"/ok.db-snaps 2>/dev/null)" ""
finish
