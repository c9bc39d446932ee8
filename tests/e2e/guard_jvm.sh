#!/bin/sh
# tidemark guard on a real JVM whose old gen fills (tests/progs/java/
# OldFill.java steps: 300,000 OldFill$Sidecar, 18.3 MiB, added in ten steps,
# once the guard follows the run,
# with a System.gc() after each, then a GC every 200 ms), recorded with its
# GC log (-Xlog:gc*) and hsperfdata, -Xms = -Xmx and Serial GC so that the
# old gen's committed size is fixed: the jvm_old rule fires once, after the
# old gen after GC passed its line (the GC log says it did, twice in a
# row), not at the start; its snapshots jvm_histogram (the summary names
# OldFill$Sidecar with the instances it had then, 270,000 or 300,000) and
# jvm_heap_dump (the top holder is the ArrayList holding them) are stored with the run and shown
# by `tidemark report` and `--json`; nothing else is done (no action asked);
# --dry-run over the stored run fires at the same sample; a line the old gen
# never reaches never fires.
. "$(dirname "$0")/../lib.sh"

if ! command -v javac >/dev/null || ! command -v jcmd >/dev/null; then
	skip guard_jvm "no javac/jcmd (scripts/deps.sh --test installs openjdk-17-jdk-headless)"
	finish
fi
javac -d "$T" "$TM_ROOT/tests/progs/java/OldFill.java" || { fail guard_jvm_java_builds "javac failed"; finish; }

latest_run() { sql "$1" "select id from runs order by id desc limit 1" 2>/dev/null; }
has_run() { test -n "$(latest_run "$1")"; }
RULE='jvm_old > 35%committed x2'
DB=$T/j.db
mkfifo "$T/in"
timeout 300 "$TM" record -o "$DB" -i 100ms -- java -Xms64m -Xmx64m -XX:+UseSerialGC \
	"-Xlog:gc*:file=$T/gc.log" -cp "$T" OldFill steps <"$T/in" >"$T/j.out" 2>"$T/rec.err" &
rec=$!
exec 3>"$T/in"
wait_for 60 has_run "$DB"
run=$(latest_run "$DB")
timeout 300 "$TM" guard -o "$DB" --run "$run" --when "$RULE" --snapshot jvm_histogram \
	--snapshot jvm_heap_dump --snapshot-timeout 120s >"$T/g.out" 2>"$T/g.err" 3>&- &
g=$!
# the JVM fills its old gen once the guard follows the run (a firing from
# before the guard started takes nothing), and holds it until both
# snapshots are taken (or 180 s passed)
wait_for 60 grep -q '^guarding run' "$T/g.out"
wait_for 60 grep -q '^waiting' "$T/j.out"
echo go >&3
wait_for 180 grep -q '^  snapshot jvm_heap_dump' "$T/g.out"
wait_for 60 grep -q '^ready' "$T/j.out"
exec 3>&-
wait $rec
rcr=$?
wait $g
rcg=$?
check_eq guard_jvm_exits "$rcr $rcg" "0 0"
check_eq guard_jvm_old_fired_once "$(grep -c '^fired jvm_old>35%committedx2 at .*old generation' "$T/g.out")" 1

# the GC log, read independently: the old gen after each full GC against
# its capacity ("Tenured: 2448K(43712K)->4712K(43712K)" in Serial's log)
sed -n 's/.*Tenured: [0-9]*K([0-9]*K)->\([0-9]*\)K(\([0-9]*\)K).*/\1 \2/p' "$T/gc.log" |
	awk '{ print ($1 > 0.35 * $2) ? "above" : "below" }' >"$T/old"
check guard_jvm_log_starts_below sh -c "head -1 '$T/old' | grep -q below"
check guard_jvm_log_twice_above sh -c "uniq -c '$T/old' | awk '\$2 == \"above\" && \$1 >= 2 { f = 1 } END { exit !f }'"
# not at the first sample with a GC: the old gen was below the line there
first_gc=$("$TM" guard -o "$DB" --run "$run" --when 'jvm_old > 1K x1' --dry-run |
	sed -n 's/^would fire .*(run [0-9]*, sample \([0-9]*\)).*/\1/p')
fired=$(sed -n 's/^fired .*(run [0-9]*, sample \([0-9]*\)).*/\1/p' "$T/g.out")
test_expect "guard_jvm_fired_after_the_fill (first GC at sample $first_gc, fired at $fired)" '
	[ -n "$first_gc" ] && [ -n "$fired" ] && [ "$fired" -gt "$first_gc" ] ||
	test_why "first GC at sample '\''$first_gc'\'', fired at '\''$fired'\''"'

# the snapshots: stored, named, shown.  The rule fires once the old gen
# stayed above its line for two GCs, which may be after the ninth step of
# 30,000 as well as the tenth (the guard was quick, or the JVM slow): each
# snapshot names OldFill$Sidecar with the count it had then, a whole number
# of steps, 64 bytes each, at least five steps (half the fill) in
hsum=$(sql "$DB" "select summary from snapshots where run_id=$run and kind='jvm_histogram' and ok=1")
hfile=$(sql "$DB" "select path from snapshots where run_id=$run and kind='jvm_histogram' and ok=1")
hn=$(echo "$hsum" | sed -n 's/^[0-9]* classes, [0-9.]* MiB; top: OldFill\$Sidecar [0-9.]* MiB (\([0-9]*\)).*/\1/p')
steps_of() { [ -n "$1" ] && [ $(($1 % 30000)) = 0 ] && [ "$1" -ge 150000 ] && [ "$1" -le 300000 ]; }
test_expect "guard_jvm_histogram_names_the_class ($hsum)" '
	steps_of "$hn" && grep -qE "^ +1: +$hn +$((hn * 64)) +OldFill\\\$Sidecar\$" "$hfile" ||
	test_why "summary '\''$hsum'\'' (count '\''$hn'\''), file '\''$hfile'\'': $(head -5 "$hfile" 2>&1); $(cat "$T/g.out" "$T/g.err" | head -20)"'
dsum=$(sql "$DB" "select summary from snapshots where run_id=$run and kind='jvm_heap_dump' and ok=1")
dfile=$(sql "$DB" "select path from snapshots where run_id=$run and kind='jvm_heap_dump' and ok=1")
# the ArrayList holds the Sidecars and its array: count + 2 objects
dn=$(echo "$dsum" | sed -n 's/^top holder: java\.util\.ArrayList retains [0-9.]* MiB (\([0-9]*\) objects).*/\1/p')
dn=$((${dn:-2} - 2))
dmib=$(awk -v n="$dn" 'BEGIN { printf "%.2f", n * 64 / 1048576 }')
test_expect "guard_jvm_heap_dump_names_the_holder ($dsum)" '
	steps_of "$dn" && [ "$dn" -ge "${hn:-0}" ] &&
	"$TM" hprof top "$dfile" -n 1 2>&1 | grep -qE "$dn +$dmib .* OldFill\\\$Sidecar\$" ||
	test_why "summary '\''$dsum'\'' (count $dn, histogram $hn), hprof top: $("$TM" hprof top "$dfile" -n 1 2>&1 | tail -2)"'
check_eq guard_jvm_only_snapshots "$(sql "$DB" "select group_concat(kind) from (select kind from snapshots where run_id=$run order by kind)")" \
	"jvm_heap_dump,jvm_histogram"
"$TM" report -o "$DB" "$run" >"$T/report" 2>&1
check guard_jvm_report_text grep -qE "^  guard .* jvm_old>35%committedx2: jvm_histogram of pid [0-9]* .*OldFill\\\$Sidecar [0-9.]+ MiB \\($hn\\)" "$T/report"
"$TM" report -o "$DB" "$run" --json >"$T/report.json" 2>&1
check_eq guard_jvm_report_json "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sorted(r["kind"] + " " + r["rule"] for r in d["guard_snapshots"]))' "$T/report.json")" \
	"['jvm_heap_dump jvm_old>35%committedx2', 'jvm_histogram jvm_old>35%committedx2']"

# --dry-run: the same sample; a line never reached never fires
"$TM" guard -o "$DB" --run "$run" --when "$RULE" --dry-run >"$T/d.out" 2>&1
check_eq guard_jvm_dry_run_same_sample "$(sed -n 's/^would fire .*(run [0-9]*, sample \([0-9]*\)).*/\1/p' "$T/d.out")" "$fired"
"$TM" guard -o "$DB" --run "$run" --when 'jvm_old>90%committed x2' --dry-run >"$T/n.out" 2>&1
check_eq guard_jvm_line_not_reached "$(tail -1 "$T/n.out")" "0 firings"
finish
