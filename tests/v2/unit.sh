#!/bin/sh
# record --unit on a real systemd (the systemd guest, run-in-guest
# --systemd): a unit that allocates 40 MiB and logs height=N to the
# journal; `record --unit` records it over sd-bus, a `systemctl restart`
# gives a second run linked to the first by the unit's name, progress
# comes from the journal (the second run's from the invocation's first
# line), the cgroup figures are the unit's own (memory.max, memory.peak),
# the recorder waits while the unit is stopped and never stops it;
# tidemark-record@X.service (dist/systemd), started by systemd, records X.
V2_SYSTEMD=1
V2_TIMEOUT=300
. "$(dirname "$0")/lib.sh"
DB=$T/u.db
U=tm-alloc.service
C=$CG/system.slice/$U
cat >/etc/systemd/system/$U <<EOF
[Service]
ExecStart=/bin/sh -c '$P 40 3600000 & i=0; while :; do i=\$((i+1)); echo "height=\$i"; sleep 0.3; done'
MemoryMax=200M
EOF
systemctl daemon-reload
check "the unit starts" systemctl start $U

# wait_sql DB SQL WANT [TRIES]: until SQL prints WANT (0.2 s apart)
wait_sql()
{
	for _ in $(seq "${4:-100}"); do
		[ "$(sql "$1" "$2" 2>/dev/null)" = "$3" ] && return 0
		sleep 0.2
	done
	return 1
}
progress_of() { sql "$DB" "select count(*) >= $2 from progress where run_id=$1"; }

"$TM" record -o "$DB" -q -i 200ms --unit tm-alloc --progress 'height=([0-9]+)' 2>"$T/err" &
rec=$!
wait_sql "$DB" "select count(*) >= 3 from progress where run_id=1" 1 150 ||
	fail "progress reaches run 1 from the journal" "$(cat "$T/err")"
is "$(sql "$DB" "select target || ' ' || cgroup_path from runs where id=1")" = "cgroup $C" \
	"record --unit records the unit's cgroup" "$(cat "$T/err")"
is "$(sql "$DB" "select detail || ' ' || value from events where run_id=1 and kind='unit'")" = \
	"$U 1" "the run names the unit (the first of its runs)"
inv1=$(sql "$DB" "select detail from events where run_id=1 and kind='unit_invocation'")
is "$inv1" = "$(systemctl show -P InvocationID $U)" "and its invocation"
ok "progress from the journal: $(sql "$DB" "select count(*) from progress where run_id=1") points in run 1"

check "systemctl restart" systemctl restart $U
wait_sql "$DB" "select count(*) >= 5 from progress where run_id=2" 1 150 ||
	fail "the restart is a second run, with progress" "$(cat "$T/err"; sql "$DB" 'select * from runs')"
is "$(sql "$DB" "select count(*) from runs")" = 2 "the restart is a second run in the same store"
is "$(sql "$DB" "select outcome from runs where id=1")" = completed "the first run ended" \
	"$(sql "$DB" 'select reason from runs where id=1')"
# (a restart is a stop then a start: the recorder polls every 200 ms and
# may see the unit inactive between them, which is as true a reason)
test_expect "because the unit started again (or was seen stopped in between)" 'sql "$DB" "select reason from runs where id=1" | grep -Eq "started again|stopped \(inactive\)" || test_why "$(sql "$DB" '\''select reason from runs where id=1'\'')"'
inv2=$(sql "$DB" "select detail from events where run_id=2 and kind='unit_invocation'")
test_expect "run 2 is the new invocation" '[ -n "$inv2" ] && [ "$inv2" != "$inv1" ] && [ "$inv2" = "$(systemctl show -P InvocationID $U)" ] || test_why "$inv1 / $inv2"'
is "$(sql "$DB" "select detail || ' ' || value from events where run_id=2 and kind='unit'")" = \
	"$U 2" "linked to run 1 by the unit's name"
is "$(sql "$DB" "select cast(min(value) as int) from progress where run_id=2")" = 1 \
	"its journal progress begins at the invocation's first line"
first_p=$(sql "$DB" "select t_wall_usec from progress where run_id=2 order by id limit 1")
j1=$(journalctl -q -o json _SYSTEMD_INVOCATION_ID=$inv2 MESSAGE=height=1 | python3 -c '
import json, sys
print(json.loads(sys.stdin.readline())["__REALTIME_TIMESTAMP"])')
is "$first_p" = "$j1" "stamped with the journal's own time"

# the unit's own figures: memory.max, and memory.peak read as it stops
sleep 1
kpeak=$(cat $C/memory.peak)
check "systemctl stop" systemctl stop $U
wait_sql "$DB" "select outcome from runs where id=2" completed 50
test_expect "the stop ends run 2" 'sql "$DB" "select reason from runs where id=2" | grep -q "stopped (inactive)" || test_why "$(sql "$DB" '\''select reason from runs where id=2'\'')"'
is "$(fig "$DB" 2 limit_max_bytes)" = $((200 * 1048576)) "run 2's memory.max is the unit's MemoryMax"
cgpeak=$(fig "$DB" 2 cg_peak_bytes)
is "$cgpeak" -le $((kpeak + 1048576)) "its memory.peak is the unit's (kernel: $kpeak)" "recorded $cgpeak"
is "$cgpeak" -ge $((kpeak - 1048576)) "within 1 MiB" "recorded $cgpeak"
is "$(fig "$DB" 2 peak_anon_bytes)" -ge $((39 * 1048576)) "and its anon holds the 40 MiB"
sleep 1
test_expect "the recorder waits while the unit is stopped" 'kill -0 $rec 2>/dev/null || test_why "$(cat "$T/err")"'
test_expect "and says so" 'grep -q "waiting for it to start" "$T/err" || test_why "$(cat "$T/err")"'

systemctl start $U
wait_sql "$DB" "select count(*) from runs" 3 100 || fail "a start after a stop is run 3"
kill -TERM $rec
wait $rec
is "$?" = 0 "SIGTERM ends the recorder (status 0)" "$(cat "$T/err")"
is "$(systemctl is-active $U)" = active "the unit was left running"
is "$(sql "$DB" "select outcome from runs where id=3")" = detached "its last run is detached"

# --until-stop: the recorder ends with the unit
"$TM" record -o "$T/s.db" -q -i 200ms --unit $U --until-stop 2>"$T/err2" &
rec=$!
test_expect "record --until-stop records the running unit" 'wait_sql "$T/s.db" "select count(*) >= 1 from samples" 1 100 || test_why "$(cat "$T/err2")"'
systemctl stop $U
for _ in $(seq 50); do kill -0 $rec 2>/dev/null || break; sleep 0.2; done
still=no
kill -0 $rec 2>/dev/null && still=yes
test_expect "--until-stop ends when the unit stops" '[ $still = no ]'
[ $still = yes ] && kill $rec
wait $rec

# errors: no such unit, a bad name
"$TM" record -o "$T/e.db" --unit no-such-thing >"$T/out" 2>&1
rc=$?
is "$rc" = 1 "a unit that does not exist: exit 1" "$(cat "$T/out")"
test_expect "and says so" 'grep -q "unit '\''no-such-thing.service'\'' does not exist" "$T/out" || test_why "$(cat "$T/out")"'

# tidemark-record@X.service, as make install makes it, started by systemd
install -m 755 "$TM" /usr/local/bin/tidemark
sed 's|@bindir@|/usr/local/bin|g' "$TM_ROOT/dist/systemd/tidemark-record@.service.in" \
	>/etc/systemd/system/tidemark-record@.service
systemctl daemon-reload
systemctl start $U
check "tidemark-record@tm-alloc.service starts" systemctl start tidemark-record@tm-alloc.service
R=/var/lib/tidemark/tm-alloc.db
wait_sql $R "select count(*) >= 3 from samples" 1 150 ||
	fail "it records" "$(journalctl -u tidemark-record@tm-alloc.service --no-pager | tail)"
is "$(sql $R "select cgroup_path from runs where id=1")" = "$C" "tidemark-record@tm-alloc records tm-alloc.service"
is "$(sql $R "select detail from events where run_id=1 and kind='unit'")" = "$U" "as a run of the unit"
check "systemctl stop tidemark-record@tm-alloc" systemctl stop tidemark-record@tm-alloc.service
is "$(sql $R "select outcome from runs where id=1")" = detached "its run ends when it is stopped"
is "$(systemctl is-active $U)" = active "and the unit it watched still runs"

# tidemark-serve.service beside it: a token added by the recipe in the
# unit's comment is the running server's to read, and starting the server
# (a DynamicUser= unit) leaves the recorders' /var/lib/tidemark alone
sed "s|@bindir@|$(dirname "$TM")|g" "$TM_ROOT/dist/systemd/tidemark-serve.service.in" \
	>/etc/systemd/system/tidemark-serve.service
systemctl daemon-reload
recipe=$(sed -n '/^#   systemd-run/,/serve token add/p' /etc/systemd/system/tidemark-serve.service |
	sed 's/^# *//; s/\\$//' | tr '\n' ' ' | sed 's/ NAME / tm-guest /')
tok=$(sh -c "$recipe" 2>"$T/tok.err" | tail -1)
check "tidemark-serve.service starts" systemctl start tidemark-serve.service
code=000
for _ in $(seq 50); do
	code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $tok" \
		http://127.0.0.1:7070/api/v1/runs)
	[ "$code" = 200 ] && break
	sleep 0.2
done
is "$code" = 200 "the token the recipe added is the server's to read" \
	"recipe: $recipe; $(cat "$T/tok.err"); $(journalctl -u tidemark-serve --no-pager | tail -5)"
tok2=$(sh -c "$recipe" 2>>"$T/tok.err" | tail -1)
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $tok2" \
	http://127.0.0.1:7070/api/v1/runs)
is "$code" = 200 "and one added while it runs, too" "$(cat "$T/tok.err")"
systemctl restart tidemark-record@tm-alloc.service
sleep 1
is "$(stat -c '%U %F' /var/lib/tidemark)" = "root directory" \
	"the recorders' state directory stays root's beside the server's" "$(ls -la /var/lib /var/lib/private 2>&1)"
is "$(stat -c %U $R)" = root "and so does their store"
# options from /etc/tidemark/record@X.conf without a drop-in (issue 24:
# --remote-write and --metrics-listen in tidemark-record@'s config): the
# instance's file wins over the one of all units
mkdir -p /etc/tidemark
# where make install puts the network library --metrics-listen loads
install -D -m 644 "$TM_BUILD/libtidemark-net.so" /usr/local/lib/tidemark/libtidemark-net.so
echo 'TIDEMARK_RECORD_OPTS=--metrics-listen 127.0.0.1:9101' >/etc/tidemark/record.conf
echo 'TIDEMARK_RECORD_OPTS=--metrics-listen 127.0.0.1:9177 --machine guest-a' >/etc/tidemark/record@tm-alloc.conf
systemctl restart tidemark-record@tm-alloc.service
m=
for _ in $(seq 50); do
	m=$(curl -s http://127.0.0.1:9177/metrics | grep '^tidemark_run_info{') && break
	sleep 0.2
done
test_expect "tidemark-record@ takes its options from /etc/tidemark/record@X.conf ($m)" 'echo "$m" | grep -q '\''machine="guest-a"'\'' || test_why "/metrics on 9177: '\''$m'\''; $(journalctl -u tidemark-record@tm-alloc --no-pager | tail -5)"'
rm -f /etc/tidemark/record.conf /etc/tidemark/record@tm-alloc.conf /usr/local/lib/tidemark/libtidemark-net.so
systemctl stop tidemark-record@tm-alloc.service tidemark-serve.service
finish
