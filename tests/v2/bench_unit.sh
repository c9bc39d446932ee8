#!/bin/sh
# bench --unit in the systemd guest (Debian's systemd as PID 1): each arm a
# drop-in of a real service, the unit restarted from the same restored
# state for each run, its cgroup recorded, its outcome as systemd saw it
# (an OOM kill under an arm's MemoryMax), progress from its journal; the guard refusing while another
# drop-in (or an EnvironmentFile it names) sets an allocation variable; the
# drop-in gone afterwards whatever happens: after a clean end, after
# SIGTERM, and after SIGKILL (the cleaner), with a unit that ran before the
# bench started again as it was.
V2_SYSTEMD=1
V2_TIMEOUT=560
. "$(dirname "$0")/lib.sh"
timeout 60 systemctl is-system-running --wait >/dev/null 2>&1
DB=$T/u.db
E=/etc/systemd/system
D=/run/systemd/system/tm-bench.service.d
B=$TM_BUILD/progs/bench_alloc
mkdir -p /var/lib/tm-bench /var/lib/tm-snap
echo clean >/var/lib/tm-snap/state
# the service: notes its allocation variables and the state it starts from,
# dirties the state, then (after 2 s: time to attach to its cgroup on a slow
# guest) allocates 48 MiB and holds it a moment
cat >$E/tm-bench.service <<-UNIT
	[Service]
	Type=exec
	ExecStart=/bin/sh -c 'echo "\$\$ \$(env | grep -E "^(LD_PRELOAD|MALLOC_)" | sort | tr "\\\\n" " ")" >>/run/tm-bench.env; cat /var/lib/tm-bench/state >>/run/tm-bench.seen; echo dirty >>/var/lib/tm-bench/state; sleep 2; exec $B --mib 48 --steps 8 --step-ms 60 --hold-ms 400'
UNIT
cat >$E/tm-long.service <<-UNIT
	[Service]
	Type=exec
	ExecStart=$B --mib 8 --steps 1 --hold-ms 600000
UNIT
systemctl daemon-reload

# ---- the guard ----
mkdir -p $E/tm-bench.service.d
printf '[Service]\nEnvironment="LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"\n' >$E/tm-bench.service.d/10-pre.conf
systemctl daemon-reload
check_fails "the guard refuses while another drop-in sets LD_PRELOAD (file and line named)" \
	"tm-bench.service.d/10-pre.conf:2: LD_PRELOAD=" "$TM" bench -o "$DB" --unit tm-bench --arm glibc --runs 1
printf 'MALLOC_ARENA_MAX=4\n' >/etc/tm-bench.env
printf '[Service]\nEnvironmentFile=-/etc/tm-bench.env\n' >$E/tm-bench.service.d/10-pre.conf
systemctl daemon-reload
check_fails "the guard refuses while a drop-in's EnvironmentFile sets MALLOC_ARENA_MAX" \
	"/etc/tm-bench.env:1: MALLOC_ARENA_MAX=4" "$TM" bench -o "$DB" --unit tm-bench --arm glibc --runs 1
is "$(ls $D 2>/dev/null | wc -l)" = 0 "a refused bench writes no drop-in"
rm -rf $E/tm-bench.service.d /etc/tm-bench.env
systemctl daemon-reload

# ---- a bench of three arms, two runs each ----
"$TM" bench -o "$DB" --unit tm-bench --arm glibc --arm arena1 --arm jemalloc \
	--arm tight:MemoryMax=24M --runs 1 -i 100ms --swap-max 0 --progress 'progress=([0-9]+)' \
	--restore /var/lib/tm-snap:/var/lib/tm-bench >"$T/b.txt" 2>"$T/b.err"
rc=$?
is "$rc" = 0 "bench --unit runs every arm" "$(grep -v '^  ' "$T/b.err" | tail -25)"
out=$(sql "$DB" "select arm || ':' || group_concat(outcome, ',') from runs group by arm order by arm" | tr '\n' ' ')
is "$out" = "arena1:completed glibc:completed jemalloc:completed tight:oom-killed " \
	"each arm's runs end as systemd saw them (tight: an OOM kill under its drop-in's MemoryMax)" "$(cat "$T/b.txt" | head -30)"
# what each start of the unit saw: its allocation variables, its state
env=$(python3 -c '
import sys, collections
c = collections.Counter(" ".join(l.split()[1:]) for l in open(sys.argv[1]))
print(";".join("%d %s" % (n, v) for v, n in sorted(c.items())))' /run/tm-bench.env 2>&1)
is "$env" = "2 ;1 LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2;1 MALLOC_ARENA_MAX=1" \
	"the service ran with each arm's variables from its drop-in, and nothing else" "$(cat /run/tm-bench.env)"
is "$(sort -u /run/tm-bench.seen | tr '\n' ' ')" = "clean " "every run started from the restored state" \
	"$(cat /run/tm-bench.seen | tr '\n' ' ')"
is "$(wc -l </run/tm-bench.seen)" = 4 "the unit was started once per run (4)"
tight=$(sql "$DB" "select id from runs where arm = 'tight' limit 1")
is "$(series "$DB" "$tight" cg_max_bytes | grep -c '^25165824$')" -gt 0 \
	"the tight arm's cgroup had MemoryMax=24M from its drop-in" "$(series "$DB" "$tight" cg_max_bytes | sort | uniq -c)"
jem=$(sql "$DB" "select id from runs where arm = 'jemalloc' limit 1")
is "$(fig "$DB" "$jem" peak_anon_bytes | awk '{ print ($1 >= 48 * 1048576) }')" = 1 \
	"the unit's cgroup was recorded (the 48 MiB it allocates)" "$("$TM" report -o "$DB" "$jem" 2>&1 | head -20)"
glibc=$(sql "$DB" "select id from runs where arm = 'glibc' limit 1")
is "$(fig "$DB" "$glibc" progress_last)" = 8 "progress came from the unit's journal (its 8 steps)" \
	"$("$TM" report -o "$DB" "$glibc" 2>&1 | grep -i progress)"
test_expect "the plan names the drop-in" 'grep -q "zz-tidemark-bench.conf" "$T/b.err" || test_why "$(head -5 "$T/b.err")"'
is "$(ls -A $D 2>/dev/null | wc -l)" = 0 "afterwards the drop-in is gone"
is "x$(systemctl show -P DropInPaths tm-bench.service)" = x "systemd no longer reads a drop-in for the unit"
is "$(systemctl is-active tm-bench.service)" = inactive "a unit that was stopped before the bench is stopped after it"
test_expect "the bench table names each arm's setting" 'grep -q "MALLOC_ARENA_MAX\|LD_PRELOAD" "$T/b.txt" || test_why "$(head -12 "$T/b.txt")"'

# ---- whatever happens: SIGTERM, then SIGKILL with a unit that was running ----
# wait_dropin: until the bench's drop-in is in place and the unit runs with it
wait_dropin()
{
	for _ in $(seq 300); do
		[ -f $2/zz-tidemark-bench.conf ] && [ "$(systemctl is-active "$1")" = active ] &&
			systemctl show -P DropInPaths "$1" | grep -q zz-tidemark && return 0
		sleep 0.1
	done
	return 1
}
L=/run/systemd/system/tm-long.service.d
"$TM" bench -o "$T/t.db" --unit tm-long --arm arena1 --runs 3 -i 200ms >/dev/null 2>"$T/t.err" &
pid=$!
# gone: until the drop-in is gone and the unit is in state $2 (the cleaner
# of a bench killed by a signal works after the bench is gone)
gone()
{
	for _ in $(seq 300); do
		[ ! -e $L/zz-tidemark-bench.conf ] && [ "$(systemctl is-active "$1")" = "$2" ] &&
			[ -z "$(systemctl show -P DropInPaths "$1")" ] && return 0
		sleep 0.1
	done
	return 1
}
if wait_dropin tm-long.service $L; then
	kill -TERM $pid
	wait $pid
	gone tm-long.service inactive
	is "$(ls -A $L 2>/dev/null | wc -l)/$(systemctl is-active tm-long.service)" = "0/inactive" \
		"after SIGTERM the drop-in is removed and the unit stopped" "$(tail -5 "$T/t.err")"
else
	fail "after SIGTERM the drop-in is removed" "the drop-in never came: $(tail -5 "$T/t.err")"
	kill -KILL $pid
fi
systemctl start tm-long.service
main=$(systemctl show -P MainPID tm-long.service)
is "$(systemctl is-active tm-long.service)" = active "a unit runs before the next bench"
"$TM" bench -o "$T/k.db" --unit tm-long --arm jemalloc --runs 3 -i 200ms >/dev/null 2>"$T/k.err" &
pid=$!
if wait_dropin tm-long.service $L; then
	kill -KILL $pid
	# the cleaner's line is its last act (after the stop and the start):
	# before it, the drop-in is gone and the arm's run still active, which
	# gone() alone takes for the end (a loaded clean-clone run did)
	for _ in $(seq 600); do
		grep -q "ended without cleaning up" "$T/k.err" && break
		sleep 0.1
	done
	gone tm-long.service active
	now=$(systemctl show -P MainPID tm-long.service)
	is "$(ls -A $L 2>/dev/null | wc -l)/$(systemctl show -P DropInPaths tm-long.service)" = "0/" \
		"after SIGKILL the cleaner removed the drop-in and reloaded systemd" "$(tail -5 "$T/k.err")"
	envs=$(tr '\0' '\n' </proc/"$now"/environ 2>/dev/null | grep -c '^LD_PRELOAD=')
	is "$(systemctl is-active tm-long.service)/$envs" = "active/0" \
		"the unit that ran before the bench runs again, without the arm's LD_PRELOAD" "main pid $main then $now"
	test_expect "the cleaner says what it did" 'grep -q "ended without cleaning up" "$T/k.err" || test_why "$(tail -5 "$T/k.err")"'
else
	fail "after SIGKILL the cleaner removed the drop-in" "the drop-in never came: $(tail -5 "$T/k.err")"
	kill -KILL $pid
fi
systemctl stop tm-long.service
finish
