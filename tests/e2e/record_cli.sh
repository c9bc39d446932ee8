#!/bin/sh
# record/report/runs/mark: help, bad arguments, exit status, progress, marks.
. "$(dirname "$0")/../lib.sh"
DB=$T/t.db

for c in record report runs mark bench heap serve; do
	test_expect "$c --help shows usage with examples" '
		out=$("$TM" "$c" --help 2>&1) && echo "$out" | grep -q "^examples:" ||
		test_why "$out"'
done

check_fails "unknown option exits 2" "bad option '--bogus'" "$TM" record --bogus -- true
check_fails "interval below 50ms is refused" "at least 50ms" "$TM" record -o "$DB" -i 10ms -- true
check_fails "bad size is refused" "memory-max '12Q': expected a size like" "$TM" record -o "$DB" --memory-max 12Q -- true
check_fails "missing command is a clear error" "cannot run 'no-such-command-x'" \
	"$TM" record -o "$DB" -- no-such-command-x
check_fails "a pid that does not exist" "no process with pid" "$TM" record -o "$DB" -p 999999
check_fails "a cgroup that does not exist" "nonexistent" "$TM" record -o "$DB" --cgroup /sys/fs/cgroup/memory/nonexistent-x
check_fails "no target" "nothing to record" "$TM" record -o "$DB"
check_fails "report on a store that is not there" "cannot open store" "$TM" report -o "$T/none.db"
echo "not a database at all" >"$T/junk.db"
check_fails "report on a file that is not a store" "not a tidemark store" "$TM" report -o "$T/junk.db"
check_fails "report of a run that does not exist" "no run 4242" "$TM" report -o "$DB" 4242
check_fails "bad window" "bad window" "$TM" report -o "$DB" --window 5:2
check_fails "mark with no recorder" "no recorder" env -u TIDEMARK_MARK TIDEMARK_RUNTIME_DIR="$T" "$TM" mark hello

# exit status passes through
"$TM" record -q -o "$DB" -i 50ms -- sh -c 'exit 3' 2>/dev/null
rc=$?
test_expect "exit status of the command is ours" '[ $rc -eq 3 ] || test_why "got $rc"'
outcome=$(sql "$DB" "select outcome || ' ' || exit_code from runs order by id desc limit 1")
test_expect "a non-zero exit is recorded as failed" '[ "$outcome" = "failed 3" ] || test_why "$outcome"'

# progress: the output passes through unchanged and each height is a point
script='for i in 1 2 3 4 5; do echo "height=$i"; echo "warn $i" >&2; sleep 0.05; done'
"$TM" record -o "$DB" -i 50ms --progress 'height=([0-9]+)' -- sh -c "$script" >"$T/out" 2>"$T/err"
test_expect "the command's stdout and stderr reach the terminal unchanged" '
	[ "$(cat "$T/out")" = "$(sh -c "$script" 2>/dev/null)" ] && grep -q '\''^warn 5$'\'' "$T/err" ||
	test_why "$(head -3 "$T/out")"'
p=$(sql "$DB" "select group_concat(value, ',') from progress where run_id = (select max(id) from runs)")
test_expect "progress points from the regex" '
	[ "$p" = "1.0,2.0,3.0,4.0,5.0" ] || test_why "$p"'

# progress from a followed file, with \d accepted
(sleep 0.3; for i in 10 20 30; do echo "block height=$i" >>"$T/log"; sleep 0.2; done) &
: >"$T/log"
"$TM" record -q -o "$DB" -i 50ms --progress-file "$T/log" --progress 'height=(\d+)' -- sleep 1.5 2>/dev/null
wait
p=$(sql "$DB" "select group_concat(value, ',') from progress where run_id = (select max(id) from runs)")
test_expect "progress from a followed file" '[ "$p" = "10.0,20.0,30.0" ] || test_why "$p"'

# --until-progress stops the command, and the run counts as completed
"$TM" record -q -o "$DB" -i 50ms --progress 'h=([0-9]+)' --until-progress 3 --grace 1s \
	-- sh -c 'i=0; while true; do i=$((i+1)); echo h=$i; sleep 0.1; done' 2>/dev/null
rc=$?
test_expect "record exits 0 when it stopped the command because the work was done" '
	[ $rc -eq 0 ] || test_why "rc $rc"'
r=$(sql "$DB" "select outcome from runs order by id desc limit 1")
e=$(sql "$DB" "select count(*) from events where kind='progress_target' and run_id=(select max(id) from runs)")
test_expect "--until-progress ends the run as completed" '
	[ "$r" = completed ] && [ "$e" = 1 ] || test_why "$r $e"'

# marks: from inside the command through $TIDEMARK_MARK, and from another shell
export TIDEMARK_RUNTIME_DIR="$T/rt"
"$TM" record -q -o "$DB" -i 50ms -- sh -c 'echo busy-start > "$TIDEMARK_MARK"; sleep 1; echo busy-end > "$TIDEMARK_MARK"; sleep 0.3' 2>/dev/null &
rec=$!
sleep 0.5
env -u TIDEMARK_MARK "$TM" mark --to $rec "from outside" || fail "tidemark mark --to PID" "exit $?"
env -u TIDEMARK_MARK "$TM" mark "only recorder"
wait $rec
m=$(sql "$DB" "select group_concat(text, '|') from marks where run_id = (select max(id) from runs)")
test_expect "marks from the command and from any shell, in order" '
	[ "$m" = "busy-start|from outside|only recorder|busy-end" ] || test_why "$m"'
check "report --window between marks" "$TM" report -o "$DB" --window @busy-start:@busy-end
unset TIDEMARK_RUNTIME_DIR

# report and runs in their machine forms
test_expect "report --json is valid JSON with the figures" '
	"$TM" report -o "$DB" --json | python3 -c '\''import json,sys; d=json.load(sys.stdin); assert d["figures"]["duration_usec"] > 0; assert d["run"]["outcome"] == "completed"'\'''
n=$("$TM" report -o "$DB" --csv | python3 -c 'import csv,sys; r=list(csv.reader(sys.stdin)); assert len(r)==2 and len(r[0])==len(r[1]); print(len(r[0]))')
test_expect "report --csv has a header and a row" '[ "${n:-0}" -gt 20 ] || test_why "$n"'
s=$("$TM" report -o "$DB" --series | python3 -c 'import csv,sys; r=list(csv.reader(sys.stdin)); print(len(r)-1, r[0][4])')
test_expect "report --series dumps the samples" '
	[ "${s#* }" = proc_count ] && [ "${s% *}" -gt 5 ] || test_why "$s"'
n=$("$TM" runs -o "$DB" | wc -l)
test_expect "runs lists the runs" '[ "$n" -ge 7 ] || test_why "$n lines"'
test_expect "runs --json" '
	"$TM" runs -o "$DB" --json | python3 -c "import json,sys; [json.loads(l) for l in sys.stdin]"'

"$TM" record -q -o "$DB" -i 50ms --timeout 300ms -- sleep 5 2>/dev/null
rc=$?
o=$(sql "$DB" "select outcome from runs order by id desc limit 1")
test_expect "--timeout ends the run as timeout, exit 124" '[ $rc -eq 124 ] && [ "$o" = timeout ] || test_why "rc $rc outcome $o"'

# metadata: the allocator actually mapped, and the variables that chose it
JE=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
if [ -f "$JE" ]; then
	LD_PRELOAD=$JE MALLOC_CONF=narenas:2 "$TM" record -q -o "$DB" -i 50ms -- sleep 0.4 2>/dev/null
	m=$(sql "$DB" "select allocator || ' ' || env_json from runs order by id desc limit 1")
	case "$m" in
	"jemalloc (sleep) "*'"LD_PRELOAD":"'"$JE"'"'*'"MALLOC_CONF":"narenas:2"'*) named=yes ;;
	*) named=no ;;
	esac
	test_expect "the run names the allocator mapped and the variables that chose it" '[ $named = yes ] || test_why "$m"'
else
	skip "the run names the allocator mapped" "libjemalloc2 is not installed"
fi
k=$(sql "$DB" "select kernel = '$(uname -r)' and machine = '$(hostname)' and cgroup_mode in ('v1','v2','hybrid','none') from runs order by id desc limit 1")
test_expect "the run records host, kernel and cgroup mode" '[ "$k" = 1 ] || test_why "$k"'

# a reader that goes away (| head) neither kills the recorder nor the run
"$TM" record -o "$T/pipe.db" -i 50ms --progress 'h=([0-9]+)' \
	-- sh -c 'for i in $(seq 1 20); do echo h=$i; sleep 0.02; done' 2>/dev/null | head -2 >/dev/null
sleep 1
p=$(sql "$T/pipe.db" "select outcome || ' ' || (select count(*) from progress) from runs")
test_expect "record ... | head: the run goes on to the end" '
	[ "$p" = "completed 20" ] || test_why "$p"'
# argv from elsewhere cannot forge a line or reorder text in runs and report
"$TM" record -q -o "$T/esc.db" -i 50ms -- sh -c 'exit 0' "$(printf 'x\n    9  2026-01-01 00:00:00       0.0  completed          1  forged')" \
	"$(printf 'a\342\200\256b')" 2>/dev/null
"$TM" runs --db "$T/esc.db" >"$T/esc.runs"
test_expect "runs: a newline in argv is shown escaped, one line per run" '
	[ "$(wc -l <"$T/esc.runs")" = 2 ] && ! grep -q "^    9 " "$T/esc.runs" && grep -qF '\''x\x0a'\'' "$T/esc.runs" ||
	test_why "$(cat "$T/esc.runs")"'
"$TM" report --db "$T/esc.db" >"$T/esc.rep"
test_expect "report: argv escaped (newline, bidi override)" '
	grep -qF '\''a\u{202e}b'\'' "$T/esc.rep" && [ "$(grep -c forged "$T/esc.rep")" = 1 ] ||
	test_why "$(head -3 "$T/esc.rep")"'
finish
