#!/bin/sh
# A small bench on a real v2 kernel: each run in a fresh cgroup with its
# arm's memory.max; the arm under the workload's size is OOM-killed (the
# kernel's oom_kill counter confirms it), the other survives, and the table
# says so.
. "$(dirname "$0")/lib.sh"
DB=$T/b.db
PARENT=$CG/tidemark
"$TM" record -q -o "$DB" -- true # creates the parent
k0=$(kv $PARENT/memory.events oom_kill)
"$TM" bench -o "$DB" -n 2 -i 100ms --swap-max 0 --arm small:MemoryMax=48M --arm big:MemoryMax=160M \
	-- "$P" 96 200 >"$T/table" 2>"$T/err"
rc=$?
k1=$(kv $PARENT/memory.events oom_kill)
is "$rc" -eq 0 "the bench runs to its end" "$(cat "$T/err")"
bench=$(sql "$DB" "select max(bench_id) from runs")
got=$(sql "$DB" "select group_concat(arm || '=' || outcome, ' ') from
	(select arm, outcome from runs where bench_id=$bench order by arm, bench_seq)")
is "$got" = "big=completed big=completed small=oom-killed small=oom-killed" \
	"the small arm's runs are OOM-killed, the big arm's complete" "$(cat "$T/err")"
is $((k1 - k0)) -eq 2 "the kernel counted two OOM kills"
kills=$(sql "$DB" "select count(*) from events e join runs r on e.run_id = r.id
	where r.bench_id=$bench and e.kind='oom_kill' and r.arm='small'")
is "$kills" -eq 2 "each killed run has its oom_kill event"
lims=$(sql "$DB" "select group_concat(arm || ':' || json_extract(limits_json, '$.memory_max.value'), ' ')
	from (select distinct arm, limits_json from runs where bench_id=$bench order by arm)")
is "$lims" = "big:167772160 small:50331648" "each arm's runs had the arm's memory.max"
test_expect "the table shows the OOM kills" 'grep -q '\''oom-killed'\'' "$T/table" || test_why "$(cat "$T/table")"'
test_expect "no run's cgroup is left" '! ls $PARENT | grep -q "^tidemark-" || test_why "$(ls $PARENT)"'
finish
