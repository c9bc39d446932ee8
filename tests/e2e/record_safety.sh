#!/bin/sh
# The observer never harms the observed: the command's output reaches ours,
# no descriptor of ours leaks into it, it outlives a killed recorder, its
# daemons are followed and never killed, a failing store stops the
# recording and not the command; -p names, --cgroup ends, progress that
# arrives in blocks.
. "$(dirname "$0")/../lib.sh"
DB=$T/s.db

# A child of PID named NAME.
child_of() { pgrep -P "$1" -x "$2" | head -1; }

# ---- output --------------------------------------------------------------
# without --progress, with it, with --progress-file: stdout and stderr
# arrive unchanged; -q hides them
echo >"$T/plog"
for mode in plain progress file; do
	case $mode in
	plain) set -- ;;
	progress) set -- --progress 'h=([0-9]+)' ;;
	file) set -- --progress 'h=([0-9]+)' --progress-file "$T/plog" ;;
	esac
	"$TM" record -o "$DB" -i 50ms "$@" -- sh -c 'echo out1; echo err1 >&2; echo h=1' \
		>"$T/o" 2>"$T/e"
	test_expect "output reaches our stdout and stderr unchanged ($mode)" '
		[ "$(cat "$T/o")" = "$(printf '\''out1\nh=1'\'')" ] && grep -qx err1 "$T/e" ||
		test_why "out: $(cat "$T/o") err: $(cat "$T/e")"'
	"$TM" record -q -o "$DB" -i 50ms "$@" -- sh -c 'echo out1; echo err1 >&2' >"$T/o" 2>"$T/e"
	test_expect "-q hides the command's output ($mode)" '
		[ ! -s "$T/o" ] && ! grep -q err1 "$T/e" || test_why "out: $(cat "$T/o") err: $(cat "$T/e")"'
done

# through a pipe, too
n=$("$TM" record -o "$DB" -i 50ms -- sh -c 'seq 1 1000' 2>/dev/null | wc -l)
test_expect "output reaches a pipe" '[ "$n" = 1000 ] || test_why "$n lines"'

# no descriptor of ours in the command: only 0, 1 and 2
for mode in plain progress quiet; do
	case $mode in
	plain) set -- ;;
	progress) set -- --progress 'h=([0-9]+)' ;;
	quiet) set -- -q ;;
	esac
	"$TM" record -o "$DB" -i 50ms "$@" -- sleep 2.37 >/dev/null 2>&1 &
	rpid=$!
	wait_for 5 pgrep -P $rpid -x sleep >/dev/null
	cpid=$(child_of $rpid sleep)
	fds=$(ls /proc/"$cpid"/fd 2>/dev/null | sort -n | tr '\n' ' ')
	wait $rpid
	test_expect "no descriptor of ours leaks into the command ($mode)" '
		[ "$fds" = "0 1 2 " ] || test_why "pid '\''$cpid'\'' fds: $fds"'
done

# ---- the recorder's death ------------------------------------------------
# A command that writes a line every 100 ms for 4 s; kill -9 the recorder
# after 1 s; the command must be alive 2 s later, and its last line must
# reach the file our output went to.
ticker='i=0; while [ $i -lt 40 ]; do echo "tick $i"; i=$((i+1)); sleep 0.1; done; echo done'
for mode in progress plain bench; do
	: >"$T/k.out"
	case $mode in
	progress) "$TM" record -o "$T/k.db" -i 100ms --progress 'tick ([0-9]+)' -- sh -c "$ticker" >"$T/k.out" 2>/dev/null & ;;
	plain) "$TM" record -o "$T/k.db" -i 100ms -- sh -c "$ticker" >"$T/k.out" 2>/dev/null & ;;
	bench) "$TM" bench -o "$T/k.db" --arm glibc -n 1 --show-output --progress 'tick ([0-9]+)' \
		-- sh -c "$ticker" >"$T/k.out" 2>/dev/null & ;;
	esac
	rpid=$!
	wait_for 5 grep -q 'tick 5' "$T/k.out"
	cpid=$(pgrep -x sh -P $rpid | head -1)
	kill -9 $rpid
	wait $rpid 2>/dev/null
	sleep 2
	alive=no
	[ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null && alive=yes
	wait_for 5 grep -qx done "$T/k.out"
	test_expect "kill -9 of the recorder: the command lives on and its output arrives ($mode)" '[ $alive = yes ] && grep -qx '\''tick 39'\'' "$T/k.out" && grep -qx done "$T/k.out" || test_why "alive=$alive pid='\''$cpid'\'' last: $(tail -2 "$T/k.out" | tr '\''\n'\'' '\'' '\'')"'
done
# -p: the recorder only watches
sh -c "$ticker" >"$T/k.out" 2>/dev/null &
cpid=$!
"$TM" record -o "$T/k.db" -i 100ms -p $cpid >/dev/null 2>&1 &
rpid=$!
sleep 0.5
kill -9 $rpid
wait $rpid 2>/dev/null
sleep 1
test_expect "kill -9 of the recorder: a -p target lives on" 'kill -0 $cpid 2>/dev/null'
wait $cpid

# a mark written after the recorder died does not block the command
: >"$T/k.out"
"$TM" record -o "$T/k.db" -i 100ms --progress 'x([0-9]+)' -- \
	sh -c 'sleep 1; echo m >"$TIDEMARK_MARK"; echo marked' >"$T/k.out" 2>/dev/null &
rpid=$!
sleep 0.4
kill -9 $rpid
wait $rpid 2>/dev/null
test_expect "a mark after the recorder died does not block" '
	wait_for 5 grep -qx marked "$T/k.out" || test_why "$(cat "$T/k.out")"'
# the same without --progress (nothing captured), and marks from a daemon
# whose first process has exited
for mode in plain daemon; do
	: >"$T/k.out"
	case $mode in
	plain) cmd='sleep 1; echo m >"$TIDEMARK_MARK"; echo marked' ;;
	daemon) cmd='(sleep 1; echo m >"$TIDEMARK_MARK"; echo marked) & exit 0' ;;
	esac
	"$TM" record -o "$T/k.db" -i 100ms -- sh -c "$cmd" >"$T/k.out" 2>/dev/null &
	rpid=$!
	sleep 0.4
	kill -9 $rpid
	wait $rpid 2>/dev/null
	test_expect "a mark after the recorder died does not block ($mode, no --progress)" '
		wait_for 5 grep -qx marked "$T/k.out" || test_why "$(cat "$T/k.out")"'
done

# ---- daemons -------------------------------------------------------------
start=$(date +%s%N)
"$TM" record -o "$T/d.db" -i 100ms -- sh -c 'sleep 2.41 & exit 0' >/dev/null 2>"$T/d.err"
ms=$((($(date +%s%N) - start) / 1000000))
r=$(sql "$T/d.db" "select outcome from runs order by id desc limit 1")
test_expect "a daemon is followed until its last process leaves" '
	[ $ms -ge 2000 ] && [ "$r" = completed ] && grep -q "the first process exited after 0.[0-9] s; recorded until the last one left after 2.[0-9] s" "$T/d.err" ||
	test_why "$ms ms, $r, $(cat "$T/d.err")"'
test_expect "report says when the first and the last process left" '
	"$TM" report -o "$T/d.db" | grep -q "first process exited after" ||
	test_why "$("$TM" report -o "$T/d.db")"'
# a daemon started after the first sample by a process that leaves at once
# (issue 19): from the launched process's exit on, the cgroup's members are
# the target, for every per-process figure and the heap; stopped by an
# interrupt while it runs, "held after the work" is the daemon's 30 MiB (not
# the sample before it started), and the report says it was measured when
# the recording stopped; a daemon that exits by itself leaves no sample
# after its work: n/a, and why
if [ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	# (interrupted once the daemon holds its 30 MiB and a sample saw it:
	# a loaded machine may take seconds to get there)
	"$TM" record -q -o "$T/dd.db" --heap --timeout 20s -- sh -c "sleep 0.3; ('$TM_BUILD/progs/alloc_touch' 30 15000 >'$T/dd.ready' &); exit 0" 2>"$T/dd.err" &
	rpid=$!
	wait_for 15 grep -q ready "$T/dd.ready"
	sleep 1.5
	kill -INT $rpid
	wait $rpid
	later=$("$TM" report -o "$T/dd.db" --series=proc_count | awk -F, 'NR > 2 && NR < 5 { print $3 }' | tr '\n' ' ')
	js=$("$TM" report -o "$T/dd.db" --json)
	held=$(echo "$js" | python3 -c 'import json,sys; f=json.load(sys.stdin)["figures"]; print(int((f["held_anon_bytes"] or 0) / 2**20), int((f["heap_live_peak_bytes"] or 0) / 2**20), f["held_anon_end_is"])')
	heldm=${held%% *} rest=${held#* }
	livem=${rest% *} how=${rest#* }
	test_expect "a daemon's processes are the target once the launched one left (proc_count $later, held $heldm MiB when the recording stopped, heap live $livem MiB)" '[ "$later" = "1 1 " ] && [ "$heldm" -ge 29 ] && [ "$livem" -ge 29 ] && [ "$livem" -le 31 ] && [ "$how" = recording_stopped ] || test_why "proc_count of samples 2-3 '\''$later'\'' (want 1 1), held after '\''$heldm'\'' MiB (want >= 29) measured '\''$how'\'' (want recording_stopped), heap live peak '\''$livem'\'' MiB (want 29-31): $(cat "$T/dd.err")"'
	"$TM" record -q -o "$T/de.db" -i 200ms -- sh -c "('$TM_BUILD/progs/alloc_touch' 30 600 >/dev/null &); exit 0" 2>"$T/de.err"
	js=$("$TM" report -o "$T/de.db" --json)
	test_expect "a daemon that exits by itself has no held after the work (n/a, and why)" '
		echo "$js" | jq -e '\''.figures.held_anon_bytes == null and .figures.heap_live_end_bytes == null and (.figures.held_anon_na_reason | test("ended by itself")) and .figures.peak_anon_bytes >= 29 * 1048576'\'' >/dev/null &&
		"$TM" report -o "$T/de.db" | grep -q "held after the work n/a: the program ended by itself during the work" ||
		test_why "$(echo "$js" | jq -c ".figures | {held_anon_bytes, held_anon_na_reason, peak_anon_bytes}")"'
fi
start=$(date +%s%N)
"$TM" record -o "$T/d.db" -i 100ms --until-first-exit -- sh -c 'sleep 1.43 & exit 0' >/dev/null 2>&1
ms=$((($(date +%s%N) - start) / 1000000))
test_expect "--until-first-exit ends at the first exit and kills nothing" '[ $ms -lt 1200 ] && pgrep -f '\''sleep 1.43'\'' >/dev/null || test_why "$ms ms, $(pgrep -af '\''sleep 1.43'\'')"'
sleep 1.5

# ---- store failures ------------------------------------------------------
# a disk that fills mid-run and stays full for 2 s (40 intervals): the
# command goes on at its pace, the error is said once (not at every retry
# of the run's end), the run ends as failed with the reason once the end
# can be written, and tidemark exits with the command's status (3)
if mkdir -p "$T/full" && mount -t tmpfs -o size=2m tmpfs "$T/full" 2>/dev/null; then
	: >"$T/f.out"
	start=$(date +%s%N)
	"$TM" record -o "$T/full/f.db" -i 50ms -- sh -c "$ticker; exit 3" >"$T/f.out" 2>"$T/f.err" &
	rpid=$!
	wait_for 5 grep -q 'tick 5' "$T/f.out"
	dd if=/dev/zero of="$T/full/fill" bs=64k 2>/dev/null
	wait_for 5 grep -q 'store write failed' "$T/f.err"
	sleep 2
	rm -f "$T/full/fill"
	wait $rpid
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	r=$(sql "$T/full/f.db" "select outcome || ': ' || reason from runs")
	said=$(grep -c 'disk is full' "$T/f.err")
	errors=$(grep -c 'error:' "$T/f.err")
	# the one line, and the run's summary with its reason
	test_expect "a full disk: the command goes on, the failure is said once, the run ends as failed with the reason, the exit status is the command's" '
		[ $rc -eq 3 ] && grep -qx done "$T/f.out" && [ $ms -lt 6500 ] && [ "$said" -le 2 ] &&
		[ "$errors" -eq 0 ] && [ "$(grep -c '\''recording stops here'\'' "$T/f.err")" = 1 ] &&
		echo "$r" | grep -q '\''^failed: a store write failed (.*disk is full)'\'' || test_why "rc $rc (want 3), $ms ms, '\''disk is full'\'' $said lines (want <= 2: the warning and the summary), $errors error lines, '\''$r'\'', $(head -5 "$T/f.err")"'
	umount "$T/full"
else
	skip "a full disk" "cannot mount a tmpfs here"
fi
# the store's file removed mid-run
: >"$T/f.out"
"$TM" record -o "$T/rm.db" -i 50ms -- sh -c "$ticker" >"$T/f.out" 2>"$T/f.err" &
rpid=$!
wait_for 5 grep -q 'tick 5' "$T/f.out"
rm -f "$T/rm.db" "$T/rm.db-wal" "$T/rm.db-shm"
wait $rpid
rc=$?
test_expect "a removed store: the command goes on, the error is said, the status is the command's" '
	[ $rc -eq 0 ] && grep -qx done "$T/f.out" && grep -q "removed while recording" "$T/f.err" ||
	test_why "rc $rc, $(tail -3 "$T/f.err")"'

# ---- -p and --cgroup -----------------------------------------------------
sleep 1.27 &
spid=$!
"$TM" record -o "$T/p.db" -i 100ms -p $spid >/dev/null 2>&1
c=$(sql "$T/p.db" "select command_json from runs")
test_expect "a -p run is named by the process's command line" '
	[ "$c" = '\''["sleep","1.27"]'\'' ] || test_why "$c"'
test_expect "report names a -p run" '
	"$TM" report -o "$T/p.db" | grep -q "sleep 1.27" || test_why "$("$TM" report -o "$T/p.db" | head -3)"'

CG=/sys/fs/cgroup/memory/tidemark-test-$$
if [ -d /sys/fs/cgroup/memory ] && mkdir "$CG" 2>/dev/null; then
	sh -c 'echo $$ >'"$CG"'/cgroup.procs; exec sleep 1.5' &
	sleep 0.2
	start=$(date +%s%N)
	timeout -s KILL 10 "$TM" record -o "$T/c.db" -i 100ms --cgroup "$CG" >/dev/null 2>&1
	rc=$?
	ms=$((($(date +%s%N) - start) / 1000000))
	test_expect "--cgroup ends when the cgroup is empty" '
		[ $rc -eq 0 ] && [ $ms -lt 3000 ] || test_why "rc $rc after $ms ms"'
	start=$(date +%s%N)
	timeout -s KILL 10 "$TM" record -o "$T/c.db" -i 100ms --cgroup "$CG" --stay-when-empty \
		--timeout 1s >/dev/null 2>&1
	ms=$((($(date +%s%N) - start) / 1000000))
	test_expect "--stay-when-empty records an empty cgroup" '[ $ms -ge 900 ] || test_why "$ms ms"'
	# a watched cgroup whose last process left by itself (issue 19): its
	# last sample alive is from its work, so "held after" is n/a and why;
	# the samples saw the 40 MiB (v1 re-reads of a kept cgroup.procs go
	# stale: the run ends when the process has left, not before)
	if command -v python3 >/dev/null; then
		sh -c 'echo $$ >'"$CG"'/cgroup.procs; exec python3 -c "import time; b = b\"x\" * (40 << 20); time.sleep(2)"' &
		# once the 40 MiB are in (a loaded machine may take a while to get there)
		wait_for 8 sh -c "[ \$(cat $CG/memory.usage_in_bytes) -ge 41943040 ]"
		timeout -s KILL 10 "$TM" record -o "$T/h.db" -i 100ms --cgroup "$CG" >/dev/null 2>&1
		wait
		js=$("$TM" report -o "$T/h.db" --json)
		test_expect "--cgroup: a cgroup whose last process left by itself has no held after (n/a, and why)" '
			echo "$js" | jq -e '\''.figures.held_anon_bytes == null and (.figures.held_anon_na_reason | test("ended by itself")) and .figures.peak_anon_bytes >= 35 * 1048576'\'' >/dev/null ||
			test_why "$(echo "$js" | jq -c ".figures | {held_anon_bytes, held_anon_na_reason, peak_anon_bytes}")"'
	fi
	rmdir "$CG"
else
	skip "--cgroup ends when the cgroup is empty" "no cgroup v1 memory hierarchy to make one in"
fi

# ---- progress that arrives in blocks ------------------------------------
# python3 block-buffers a pipe and line-buffers a terminal: through the
# pseudo-terminal its points arrive as it prints them; with --no-pty they
# all arrive at exit, and record and report say so instead of a rate
if command -v python3 >/dev/null; then
	py='import time
for i in range(1, 6):
    print("h=%d" % i); time.sleep(0.2)'
	env -u PYTHONUNBUFFERED "$TM" record -o "$T/b.db" -i 100ms --progress 'h=([0-9]+)' \
		-- python3 -c "$py" >/dev/null 2>"$T/b.err"
	"$TM" report -o "$T/b.db" >"$T/b.rep"
	span=$(sql "$T/b.db" "select max(t_mono_usec) - min(t_mono_usec) from progress where run_id = (select max(id) from runs)")
	test_expect "stdout through a pseudo-terminal: progress arrives line by line" '
		[ "${span:-0}" -ge 500000 ] && grep -q "units/min" "$T/b.rep" && ! grep -q "at once" "$T/b.err" ||
		test_why "span $span us; $(cat "$T/b.err" "$T/b.rep")"'
	env -u PYTHONUNBUFFERED "$TM" record -o "$T/b.db" -i 100ms --no-pty \
		--progress 'h=([0-9]+)' -- python3 -c "$py" >/dev/null 2>"$T/b.err"
	"$TM" report -o "$T/b.db" >"$T/b.rep"
	"$TM" report -o "$T/b.db" --json >"$T/b.json"
	test_expect "progress that arrived at once: a warning, no rate, no per-unit figures" '
		grep -q "arrived at once" "$T/b.err" && grep -q "arrived at once" "$T/b.rep" &&
		! grep -q '\''units/min\|per unit'\'' "$T/b.rep" &&
		jq -e ".figures.progress_bunched == true and .figures.progress_rate_per_min == null" "$T/b.json" >/dev/null ||
		test_why "$(cat "$T/b.err" "$T/b.rep")"'
	# the program sees a terminal only for stdout, and only with --progress
	t=$("$TM" record -o "$T/b.db" -i 100ms --progress 'h=([0-9]+)' -- \
		sh -c '[ -t 1 ] && echo tty1; [ -t 2 ] || echo pipe2' 2>/dev/null | tr -d '\r')
	test_expect "with --progress, stdout is a terminal and stderr is not" '
		[ "$t" = "$(printf '\''tty1\npipe2'\'')" ] || test_why "$t"'
else
	skip "progress that arrives in blocks" "no python3"
fi

finish
