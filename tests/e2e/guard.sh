#!/bin/sh
# tidemark guard over real runs under a real memory.max (cgroup v1 on the
# host, through record --memory-max): a program under the shim grows; the
# guard fires on anon over a share of memory.max, takes a heap profile that
# names the growing site, sends SIGUSR1 (counted by the program) only when
# asked, rate-limits a second action, runs --exec; a guard without action
# flags sends nothing; --dry-run over the stored run fires at the same
# samples and wall times as the live guard did; a program OOM-killed at
# memory.max gets its profile before the kill.  Bad rules are refused.
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs/heap_guard_grow
if [ ! -x "$P" ] || [ ! -r "$TM_BUILD/libtidemark-heap.so" ]; then
	skip guard "no $P or shim (make test-build)"
	finish
fi
if ! "$TM" record -q -o "$T/probe.db" --memory-max 64M -- true 2>"$T/probe"; then
	skip guard "this host cannot limit memory: $(head -1 "$T/probe")"
	finish
fi

# latest_run DB: the newest run's id, once it is there
latest_run() { sql "$1" "select id from runs order by id desc limit 1" 2>/dev/null; }
has_run() { test -n "$(latest_run "$1")"; }

# start_record DB ARGS...: record the program in the background (pid in $rec)
start_record()
{
	db=$1
	shift
	"$TM" record -q -o "$db" -i 50ms --heap --memory-max 64M -- "$P" "$@" 2>"$T/rec.err" &
	rec=$!
	wait_for 10 has_run "$db"
	run=$(latest_run "$db")
}

# the firing lines, without what differs between live and dry-run
firings() { sed -n 's/^\(fired\|would fire\) \(.*(run [0-9]*, sample [0-9]*)\).*/\2/p' "$1"; }

# --- 1. a guard with actions, a guard without, the same run ---------------
DB=$T/g.db
start_record "$DB" 1500 30 40 2500 "$T/count"
"$TM" guard -o "$DB" --run "$run" --when 'anon>40%max' --when 'anon>50%max' --signal USR1 \
	--exec "echo \"\$TIDEMARK_GUARD_RULE \$TIDEMARK_GUARD_RUN\" >>'$T/exec'" >"$T/a.out" 2>"$T/a.err" &
ga=$!
"$TM" guard -o "$DB" --run "$run" --when 'anon>50%max' --snapshot none >"$T/b.out" 2>"$T/b.err" &
gb=$!
wait $rec
wait $ga
rca=$?
wait $gb
rcb=$?
check_eq guard_live_exit "$rca $rcb" "0 0"
check_eq guard_fired_each_rule "$(grep -c '^fired anon>[45]0%max at ' "$T/a.out")" 2
check_eq guard_signal_delivered_once "$(cat "$T/count" 2>/dev/null)" 1
check_eq guard_signal_rows "$(sql "$DB" "select ok || ' ' || summary from snapshots where run_id=$run and kind='signal' order by id")" \
	"1 SIGUSR1 sent to pid $(sql "$DB" "select pid from events where run_id=$run and kind='start'")
0 rate-limited (one every 600 s)"
check_eq guard_exec_ran "$(cat "$T/exec" 2>/dev/null)" "anon>40%max $run"
check_eq guard_no_flags_no_action "$(grep -c 'signal\|exec\|restart\|snapshot' "$T/b.out")" 0
prof=$(sql "$DB" "select path from snapshots where run_id=$run and kind='heap_profile' and ok=1 and rule='anon>40%max'")
test_expect guard_heap_profile_names_site '
	[ -n "$prof" ] && [ -r "$prof" ] && "$TM" heap top "$prof" -n 3 >"$T/top" 2>&1 && grep -q grow_leak_site "$T/top" ||
	test_why "profile '\''$prof'\'': $(cat "$T/top" "$T/a.out" "$T/a.err" 2>/dev/null | head -20)"'
check guard_profile_summary_names_site sh -c "sql() { sqlite3 -batch -noheader \"\$1\" \"\$2\"; }; sql '$DB' \"select summary from snapshots where kind='heap_profile' and run_id=$run\" | grep -q grow_leak_site"

# the report and the panel: the snapshot and the action by the run, the
# firings as events (drawn as markers by the panel and the HTML report)
"$TM" report -o "$DB" "$run" >"$T/report" 2>&1
check guard_report_text grep -q "^  guard .* anon>40%max: heap_profile of pid [0-9]* .*grow_leak_site" "$T/report"
check guard_report_action grep -q "^  guard .* anon>50%max: signal not done: rate-limited" "$T/report"
"$TM" report -o "$DB" "$run" --json >"$T/report.json" 2>&1
check_eq guard_report_json "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted(set(r["kind"] for r in d["guard_snapshots"])))' "$T/report.json")" "['exec', 'heap_profile', 'signal']"
# (each live guard records its own firings: A's two, B's one)
check_eq guard_fired_events "$(sql "$DB" "select group_concat(detail) from (select detail from events where run_id=$run and kind='guard_fired' order by detail)")" "anon>40%max,anon>50%max,anon>50%max"

# --- 2. dry-run over the stored run: the same firings, nothing written ----
rows=$(sql "$DB" "select count(*) from snapshots")
"$TM" guard -o "$DB" --run "$run" --when 'anon>40%max' --when 'anon>50%max' --dry-run --signal USR1 >"$T/d.out" 2>"$T/d.err"
check_eq guard_dry_run_same_firings "$(firings "$T/d.out")" "$(firings "$T/a.out")"
check_eq guard_dry_run_writes_nothing "$(sql "$DB" "select count(*) from snapshots") $(cat "$T/count")" "$rows 1"
"$TM" guard -o "$DB" --run "$run" --when 'heap_live grows for 500ms' --dry-run >"$T/h.out" 2>&1
check guard_heap_grows_fires_on_real_run grep -q '^would fire heap_live.*grows.*for.*500ms' "$T/h.out"

# --- 3. a guard without action flags: the program counts no signal -------
DB2=$T/n.db
start_record "$DB2" 800 20 40 1500 "$T/count2"
"$TM" guard -o "$DB2" --run "$run" --when 'anon>30%max' >"$T/n.out" 2>"$T/n.err"
rcn=$?
wait $rec
check_eq guard_quiet_fired "$rcn $(grep -c '^fired anon>30%max' "$T/n.out")" "0 1"
check_eq guard_quiet_no_signal "$(cat "$T/count2" 2>/dev/null || echo none)" none
check_eq guard_quiet_rows "$(sql "$DB2" "select group_concat(kind) from snapshots")" heap_profile

# --- 4. into memory.max: the profile is taken before the OOM kill --------
DB3=$T/o.db
start_record "$DB3" 800 60 400 0 "$T/count3"
"$TM" guard -o "$DB3" --run "$run" --when 'anon>50%max' >"$T/o.out" 2>"$T/o.err"
wait $rec
check_eq guard_oom_run_killed "$(sql "$DB3" "select outcome from runs where id=$run")" oom-killed
prof=$(sql "$DB3" "select path from snapshots where run_id=$run and kind='heap_profile' and ok=1")
test_expect guard_profile_before_oom_kill '
	[ -n "$prof" ] && "$TM" heap top "$prof" >"$T/top3" 2>&1 && grep -q grow_leak_site "$T/top3" ||
	test_why "$(cat "$T/o.out" "$T/o.err" "$T/top3" 2>/dev/null | head)"'

# --- 5. refusals ----------------------------------------------------------
check_fails guard_bad_rule "'anon>90%': a share needs max or high" "$TM" guard -o "$DB" --when 'anon>90%'
check_fails guard_needs_rule "guard needs a rule" "$TM" guard -o "$DB"
check_fails guard_restart_needs_unit "needs --unit" "$TM" guard -o "$DB" --when 'anon>1G' --restart
check_fails guard_no_live_run "no live run" "$TM" guard -o "$DB" --when 'anon>1G'
printf 'anon>90%%max   # a comment\n\npsi_full>oops\n' >"$T/rules"
check_fails guard_rules_file_line "rules:3: 'psi_full>oops'" "$TM" guard -o "$DB" --rules "$T/rules" --dry-run
"$TM" guard --help >"$T/help" && check guard_help_lists_kinds grep -q 'heap_live grows for DUR' "$T/help"
finish
