#!/bin/sh
# The heap shim's series on a real v2 kernel: live heap against what the
# program allocated, and against the cgroup's anon and memory.peak; the
# split of anon (live heap, allocator-held, other).
. "$(dirname "$0")/lib.sh"
DB=$T/h.db
cat >"$T/self.sh" <<'SH'
d=/sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)
"$@" >/dev/null
read -r peak <"$d/memory.peak"
echo "$peak" >"$OUT/peak"
SH
# the allocator answers the recorder between samples: under TCG on a loaded
# host a sample can come before its answer; the split takes the answer of a
# neighbouring sample with the same heap counts (report/run/summary.c), and the
# reading after the work is not one inside the exit.  memory.peak is read by
# the shell itself: a process started after the work (cat, under the shim
# too) would be the target's last, and the split of the last sample while
# it allocated before any answer of its own cannot be known (n/a).  The
# work holds its 40 MiB for 2 s, 20 intervals: a recorder the busy host did
# not schedule for a whole shorter hold misses the peak, and peak anon is
# then rightly n/a (as CI once saw in tests/v2/limits.sh with 400 ms)
OUT=$T "$TM" record -q -o "$DB" -i 100ms --heap -- sh "$T/self.sh" "$P" 40 2000 2>"$T/err"
rc=$?
run=$(last_run "$DB")
is "$rc" -eq 0 "a 40 MiB run under the shim completes" "$(cat "$T/err")"
want=$((40 * 1048576))
live=$(series "$DB" "$run" heap_live_bytes | sort -n | tail -1)
is "$live" -ge "$want" "the live heap series reaches the 40 MiB allocated"
is "$live" -le $((want + 1048576)) "and not over it by more than 1 MiB"
n=$(series "$DB" "$run" heap_live_bytes | grep -c .)
is "$n" -ge 3 "the live heap is in several samples ($n)"
hp=$(fig "$DB" "$run" heap_peak_bytes)
is "$hp" -ge "$want" "the shim's exact heap peak is at least 40 MiB"
anon=$(fig "$DB" "$run" peak_anon_bytes)
kpeak=$(cat "$T/peak")
# (+1 MiB: the kernel flushes memory.stat in batches of up to 64 pages a CPU)
is "$hp" -le $((anon + 1048576)) "the heap peak is within the cgroup's peak anon" "anon $anon"
is "$anon" -le "$kpeak" "peak anon is under the kernel's memory.peak" "memory.peak $kpeak"
lp=$(fig "$DB" "$run" anon_heap_live_at_peak_bytes)
is "$lp" -ge "$want" "the split of anon at its peak: live heap holds the 40 MiB"
# (the split at the anon peak: at the end there is none, the program ended
# by itself during its work and no sample came after it: issue 19)
other=$(fig "$DB" "$run" anon_other_at_peak_bytes)
# (on failure: the samples the split is made of)
split=$("$TM" report -o "$DB" --series "$run" | python3 -c '
import csv, sys
k = ("seq", "proc_count", "cg_anon_bytes", "heap_procs", "heap_live_bytes", "heap_allocs", "heap_frees", "heap_held_bytes")
print(" | ".join(" ".join(r[c] or "-" for c in k) for r in csv.DictReader(sys.stdin)))')
is "$other" -ge 0 "anon other than heap and allocator-held is a figure" "samples (seq procs anon heap_procs live allocs frees held): $split"
is "$other" -le 8388608 "and small for a program whose anon is its heap (<= 8 MiB)"
ret=$(fig "$DB" "$run" anon_allocator_held_at_peak_bytes)
is "$ret" -ge 0 "what the allocator holds at the peak is a figure"
is "$ret" -le 8388608 "and small for a program that holds what it allocated (<= 8 MiB)"
finish
