#!/bin/sh
# --progress-cmd CMD: progress read from the stdout of a command of ours
# (tail -F here; journalctl -fu in the field), stopped when the run ends;
# one that dies or hangs costs the run its progress only: the observed
# command's output, exit status and samples are untouched.  --unit's
# option errors (systemd itself: tests/v2/unit.sh).
. "$(dirname "$0")/../lib.sh"
DB=$T/p.db
last() { sql "$DB" "select max(id) from runs"; }

# 1. tail -F on the log a command writes; its stdout passes straight on
: >"$T/log"
script="for i in 1 2 3 4 5; do echo \"height=\$i\" >>'$T/log'; echo out\$i; sleep 0.2; done; exit 4"
"$TM" record -o "$DB" -i 50ms --progress 'height=([0-9]+)' \
	--progress-cmd "tail -n +1 -F '$T/log'" -- sh -c "$script" >"$T/out" 2>"$T/err"
rc=$?
run=$(last)
# is_eq ACTUAL WANT NAME [MORE]: one check; a failure says both, and MORE
is_eq()
{
	_got=$1 _want=$2 _more=${4:-}
	test_expect "$3" '[ "$_got" = "$_want" ] || test_why "got '\''$_got'\'', want '\''$_want'\''${_more:+; $_more}"'
}
is_eq "$(sql "$DB" "select group_concat(cast(value as int), ' ') from progress where run_id=$run")" \
	"1 2 3 4 5" "--progress-cmd: each height tail -F printed is a point" "$(cat "$T/err")"
is_eq "$rc" 4 "the command's exit status is ours"
is_eq "$(tr '\n' ' ' <"$T/out")" "out1 out2 out3 out4 out5 " "its stdout reaches ours unchanged"
test_expect "the progress command is stopped when the run ends" '
	! pgrep -f "tail -n +1 -F $T/log" >/dev/null || test_why "$(pgrep -af "tail -n +1 -F $T/log")"'

# 2. attached (-p): progress from the command while the process runs
sh -c "sleep 0.3; for i in 7 8 9; do echo \"height=\$i\" >>'$T/log'; sleep 0.2; done; sleep 0.5" &
pid=$!
"$TM" record -q -o "$DB" -i 50ms -p $pid --progress 'height=([0-9]+)' \
	--progress-cmd "tail -n 0 -F '$T/log'" 2>"$T/err"
run=$(last)
is_eq "$(sql "$DB" "select group_concat(cast(value as int), ' ') from progress where run_id=$run")" \
	"7 8 9" "-p with --progress-cmd" "$(cat "$T/err")"

# 3. a progress command that dies: a warning, the run goes on to its end
"$TM" record -o "$DB" -i 50ms --progress 'height=([0-9]+)' \
	--progress-cmd 'echo height=3; exit 3' -- sh -c 'sleep 1.5; echo done' >"$T/out" 2>"$T/err"
rc=$?
run=$(last)
is_eq "$rc" 0 "a progress command that dies: the command's status is still ours"
is_eq "$(cat "$T/out")" done "and its output"
is_eq "$(sql "$DB" "select outcome from runs where id=$run")" completed "the run completes"
is_eq "$(sql "$DB" "select cast(value as int) from progress where run_id=$run")" 3 "with what it said before dying"
n=$(sql "$DB" "select count(*) from samples where run_id=$run")
test_expect "sampling goes on after it died ($n samples)" '[ "$n" -ge 10 ] || test_why "$n samples"'
test_expect "the recorder says it died" '
	grep -q "progress command exited with status 3" "$T/err" || test_why "$(cat "$T/err")"'
is_eq "$(sql "$DB" "select count(*) from events where run_id=$run and kind in ('exit','signal') and pid <> (select pid from events where run_id=$run and kind='start')")" \
	0 "its exit is not an event of the run (only the command's is)"

# 4. one that hangs, deaf to SIGTERM: the run ends with the command
start=$(date +%s%N)
"$TM" record -o "$DB" -i 50ms --progress 'height=([0-9]+)' \
	--progress-cmd 'trap "" TERM; echo height=1; while :; do sleep 0.1; done; : tm-hang-marker' \
	-- sh -c 'sleep 1; exit 0' >/dev/null 2>"$T/err"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
is_eq "$rc" 0 "a hanging progress command: the run ends with the command"
test_expect "and does not wait for it ($ms ms)" '[ $ms -lt 5000 ] || test_why "$ms ms"'
sleep 0.3
test_expect "it is killed (SIGKILL after SIGTERM)" '
	! pgrep -f tm-hang-marker >/dev/null || test_why "$(pgrep -af tm-hang-marker)"'
pgrep -f tm-hang-marker >/dev/null && pkill -9 -f tm-hang-marker

# 5. options
check_fails "--progress-cmd needs --progress" "needs --progress REGEX" \
	"$TM" record -o "$DB" --progress-cmd true -- true
check_fails "--progress-cmd or --progress-file, not both" "give one progress source" \
	"$TM" record -o "$DB" --progress 'h=(1)' --progress-cmd true --progress-file "$T/log" -- true
for bad in 'a b' 'x;y' foo.target foo@.service '@.service' ''; do
	"$TM" record -o "$DB" --unit "$bad" >"$T/out" 2>&1
	rc=$?
	test_expect "--unit '$bad' is refused (exit 2): $(head -1 "$T/out" | cut -c18-)" '
		[ $rc = 2 ] && grep -q -- "--unit '\''$bad'\''" "$T/out" || test_why "status $rc: $(cat "$T/out")"'
done
check_fails "--unit and a command: one target" "one target" "$TM" record -o "$DB" --unit x -- true
check_fails "--until-stop needs --unit" "needs --unit" "$TM" record -o "$DB" --until-stop -- true
if [ "$(cat /proc/1/comm)" != systemd ]; then
	"$TM" record -o "$DB" --unit x >"$T/out" 2>&1
	rc=$?
	test_expect "--unit without systemd: a clear error, exit 1" '
		[ $rc = 1 ] && grep -q "cannot reach systemd" "$T/out" || test_why "status $rc: $(cat "$T/out")"'
else
	skip "--unit without systemd" "systemd runs here (tests/v2/unit.sh covers it)"
fi
finish
