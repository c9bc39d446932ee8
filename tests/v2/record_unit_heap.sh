#!/bin/sh
# record --unit NAME --heap under real systemd (the systemd guest, issue
# 21): a service already running (heap_attach_loop, holding 4 MiB in
# blocks of 16..2048 bytes and replacing them at random) gets the heap
# split without a restart.  The recorder attaches the agent to the unit's
# main pid, and the run's live heap, sampled while the program holds still,
# is the program's own sum of malloc_usable_size within the precision
# docs/heap.md "Attach" states; at the recorder's end the agent lets go
# (the region says detached), the unit keeps running under the same main
# pid, and its output and exit status are those of a run never attached.
V2_SYSTEMD=1
V2_TIMEOUT=420
. "$(dirname "$0")/lib.sh"
DB=$T/h.db
U=tm-heap.service
L=$TM_BUILD/progs/heap_attach_loop
HOLD=4000 STEPS=200000
# until SECS CMD...: CMD until it succeeds, for at most SECS of wall time (a
# TCG guest on a loaded host runs wait_for's 0.1 s steps far slower)
until_s()
{
	end=$(($(date +%s) + $1))
	shift
	while [ "$(date +%s)" -lt $end ]; do
		"$@" && return 0
		sleep 0.5
	done
	return 1
}
if [ ! -x "$L" ] || [ ! -r "$TM_BUILD/libtidemark-heap-attach.so" ]; then
	fail record_unit_heap_build "missing $L or the agent (make test-build)"
	finish
fi

ref=$("$L" $HOLD $STEPS)
echo "# reference run: $ref"
cat >/etc/systemd/system/$U <<EOF
[Service]
ExecStart=$L $HOLD $STEPS $T/st
StandardOutput=file:$T/out
EOF
systemctl daemon-reload
check "the unit starts" systemctl start $U
state_ready() { [ -s "$T/st" ]; }
until_s 60 state_ready || fail "the unit's program is ready" "$(systemctl status $U 2>&1 | tail -5)"
main=$(systemctl show -P MainPID $U)
echo "# the unit runs, main pid $main"

"$TM" record -o "$DB" -q -i 200ms --unit tm-heap --heap --timeout 150s 2>"$T/err" &
rec=$!
attached() { grep -q "attached the heap agent to $main" "$T/err"; }
until_s 90 attached || fail "record --unit --heap attaches to the unit's main pid $main" "$(cat "$T/err")"
test_expect "the agent is loaded into the unit's main process" '
	grep -q libtidemark-heap-attach "/proc/$main/maps" || test_why "$(cat "$T/err")"'
echo "# $(grep "attached the heap agent" "$T/err")"
echo "# recorder's stderr so far: $(head -c 600 "$T/err")"
sleep 2
# the program writes its own figure and holds still while the recorder
# samples it (5 samples or more at 200 ms), then the recorder ends (SIGINT)
held_still() { [ "$(cut -d' ' -f2 "$T/st")" != 0 ]; }
touch "$T/st.req"
until_s 60 held_still || fail "the program holds still on request" "$(cat "$T/st")"
self=$(cut -d' ' -f1 "$T/st")
blocks=$(cut -d' ' -f3 "$T/st")
sleep 1.5
kill -INT $rec
wait $rec
rc=$?
rm -f "$T/st.req"
is "$rc" -eq 0 "the recorder ends at SIGINT" "$(cat "$T/err")"
test_expect "it detaches at its end" '
	grep -q "detached the heap agent from $main" "$T/err" || test_why "$(cat "$T/err")"'

run=$(last_run "$DB")
live=$(series "$DB" "$run" heap_live_bytes | grep . | tail -1)
# docs/heap.md "Attach": glibc's in-use figure at the attach counts each
# block's 8-byte header and the chunks in the thread's tcache (240128 bytes
# at most), + 16 KiB (stdio's buffers)
bound=$((blocks * 8 + 240128 + 16384))
diff=$((${live:-0} - self))
[ "$diff" -lt 0 ] && diff=$((-diff))
echo "# recorded $live, program $self, |diff| $diff, bound $bound"
test_expect "the run's live heap is the program's own within the stated precision" '
	{ [ -n "$live" ] && [ "$diff" -le "$bound" ]; } ||
		test_why "recorded '"'"'$live'"'"', program'"'"'s own $self, |diff| $diff > $bound; $(cat "$T/err")"'
"$TM" report -o "$DB" "$run" >"$T/rep.txt" 2>&1
test_expect "the report has the heap line" '
	grep -q "^  heap        live peak" "$T/rep.txt" || test_why "$(cat "$T/rep.txt")"'
sed -n '/^  heap /p' "$T/rep.txt" | sed 's/^/# /'

"$TM" heap stats "$main" >"$T/stats" 2>&1
test_expect "the unit's region says detached" '
	grep -q "(detached)" "$T/stats" || test_why "$(cat "$T/stats")"'
is "$(systemctl is-active $U)" = active "the unit is still running after the recorder"
is "$(systemctl show -P MainPID $U)" = "$main" "under the same main pid"
touch "$T/st.end"
inactive() { [ "$(systemctl is-active $U)" != active ]; }
until_s 120 inactive || fail "the unit's program ends when told" "$(systemctl status $U 2>&1 | tail -5)"
is "$(systemctl show -P ExecMainStatus $U)" = 0 "it exits 0, as never attached"
is "$(cat "$T/out")" = "$ref" "and its output is that of a run never attached"
finish
