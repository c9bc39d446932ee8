#!/bin/sh
# tidemark guard --restart under a real systemd (the systemd guest,
# run-in-guest --systemd): a unit that grows to 24 MiB once told to is
# recorded with `record --unit`; a guard with two rules over its run (the
# same line, 12M and 12582912 bytes: they fire at the same sample, before
# the restart ends the run) and --restart --unit restarts it once when the
# first rule fires (its InvocationID and MainPID change), and the second
# rule, firing within --act-every, does not restart it again: that is
# stored as rate-limited.
# A guard without --restart over the unit's next run leaves it alone.
V2_SYSTEMD=1
V2_TIMEOUT=300
. "$(dirname "$0")/lib.sh"
DB=$T/g.db
U=tm-guard.service
GO=/run/tm-guard-go
cat >/etc/systemd/system/$U <<UNIT
[Service]
ExecStart=/bin/sh -c 'while [ ! -e $GO ]; do sleep 0.2; done; exec $P 24 3600000 256 20'
MemoryMax=200M
UNIT
systemctl daemon-reload
check "the unit starts" systemctl start $U
inv0=$(systemctl show -P InvocationID $U)
pid0=$(systemctl show -P MainPID $U)

# wait_sql DB SQL WANT [TRIES]: until SQL prints WANT (0.2 s apart)
wait_sql()
{
	for _ in $(seq "${4:-100}"); do
		[ "$(sql "$1" "$2" 2>/dev/null)" = "$3" ] && return 0
		sleep 0.2
	done
	return 1
}

"$TM" record -o "$DB" -q -i 200ms --unit $U 2>"$T/rec.err" &
rec=$!
wait_sql "$DB" "select count(*) from runs" 1 300 || fail "record --unit starts its run" "$(cat "$T/rec.err")"
timeout 200 "$TM" guard -o "$DB" --run 1 --when 'current > 12M' --when 'current > 12582912' --snapshot none \
	--restart --unit $U >"$T/g.out" 2>"$T/g.err" &
g=$!
for _ in $(seq 300); do
	grep -q '^guarding run' "$T/g.out" && break
	sleep 0.2
done
touch $GO
wait $g
rcg=$?
is "$rcg" = 0 "the guard ends when the restart ends the run" "$(cat "$T/g.out" "$T/g.err")"
inv1=$(systemctl show -P InvocationID $U)
pid1=$(systemctl show -P MainPID $U)
test_expect "the unit was restarted (invocation $inv0 -> $inv1, pid $pid0 -> $pid1)" '[ -n "$inv1" ] && [ "$inv1" != "$inv0" ] && [ "$pid1" != "$pid0" ] || test_why "invocation $inv0 -> $inv1, pid $pid0 -> $pid1; $(cat "$T/g.out")"'
is "$(grep -c '^fired current>\(12M\|12582912\) at ' "$T/g.out")" = 2 "both rules fired, live" "$(cat "$T/g.out")"
is "$(sql "$DB" "select group_concat(ok || ' ' || summary, '; ') from (select * from snapshots where run_id=1 and kind='restart' order by id)")" = \
	"1 restart of $U queued; 0 rate-limited (one every 600 s)" "one restart; the second firing's is rate-limited"
# no second restart: the invocation stays
sleep 3
is "$(systemctl show -P InvocationID $U)" = "$inv1" "restarted once only"
wait_sql "$DB" "select count(*) from runs" 2 150
is "$(sql "$DB" "select count(*) from runs")" = 2 "the restart is the unit's second run"

# a guard without --restart over the second run: the unit is left alone
"$TM" guard -o "$DB" --run 2 --when 'current > 12M' --snapshot none >"$T/n.out" 2>&1 &
n2=$!
for _ in $(seq 100); do
	grep -q '^fired' "$T/n.out" && break
	sleep 0.2
done
sleep 2
kill $n2 2>/dev/null
wait $n2
is "$(grep -c '^fired current>12M' "$T/n.out")" = 1 "the rule fires on the second run too" "$(cat "$T/n.out")"
is "$(systemctl show -P InvocationID $U)" = "$inv1" "a guard without --restart does not restart"
kill $rec 2>/dev/null
wait $rec
systemctl stop $U
rm -f $GO
finish
