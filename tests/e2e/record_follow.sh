#!/bin/sh
# record --progress-file: the file is followed as tail -F follows it
# (rotated, truncated, created late), and an idle recording wakes for its
# samples only: inotify says when the file changed, nothing polls it.
. "$(dirname "$0")/../lib.sh"
DB=$T/t.db

# The recorder's own voluntary context switches (its main thread): each
# wait in poll() that sleeps and wakes is one.
switches() { awk '/^voluntary_ctxt_switches/ {print $2}' "/proc/$1/status"; }

# 1. idle: a sample every 2 s over 4 s is 2 or 3 wakes (and a commit's);
# looking at the file every 100 ms was 40 more
: >"$T/idle.log"
"$TM" record -q -o "$DB" -i 2s --progress 'h=([0-9]+)' --progress-file "$T/idle.log" \
	-- sleep 30 2>"$T/idle.err" &
rec=$!
wait_for 10 test -s "$DB"
sleep 1
a=$(switches $rec)
sleep 4
b=$(switches $rec)
kill -TERM $rec
wait $rec
n=$((b - a))
test_expect "an idle recording with --progress-file wakes $n times in 4 s (a sample every 2 s; fewer than 12)" '[ "$n" -lt 12 ] || test_why "$n voluntary context switches (before: $a, after: $b); $(cat "$T/idle.err")"'

# 2. rotated (renamed away, created again), written, truncated, written:
# every line after the start, none of the history
echo 'h=1' >"$T/rot.log"
"$TM" record -q -o "$DB" -i 2s --progress 'h=([0-9]+)' --progress-file "$T/rot.log" -- sh -c "
	sleep 0.4; echo h=2 >>'$T/rot.log'
	sleep 0.4; mv '$T/rot.log' '$T/rot.log.1'; echo h=3 >'$T/rot.log'
	sleep 0.4; echo h=4 >>'$T/rot.log'
	sleep 0.4; : >'$T/rot.log'
	sleep 0.4; echo h=5 >>'$T/rot.log'
	sleep 0.4" 2>"$T/rot.err"
p=$(sql "$DB" "select group_concat(value, ',') from progress where run_id = (select max(id) from runs)")
check_eq "a rotated, then truncated file is followed to its last line" "$p" "2.0,3.0,4.0,5.0"

# 3. not there at the start: created by a rename into place, then written
"$TM" record -q -o "$DB" -i 2s --progress 'h=([0-9]+)' --progress-file "$T/late.log" -- sh -c "
	sleep 0.4; echo h=7 >'$T/late.tmp'; mv '$T/late.tmp' '$T/late.log'
	sleep 0.4; echo h=8 >>'$T/late.log'
	sleep 0.4" 2>"$T/late.err"
p=$(sql "$DB" "select group_concat(value, ',') from progress where run_id = (select max(id) from runs)")
check_eq "a file that appears during the run is followed from its start" "$p" "7.0,8.0"
finish
