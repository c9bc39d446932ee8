#!/bin/sh
# tidemark guard takes a Go program's heap profile (--snapshot go_heap
# --go-url): a real Go program serving net/http/pprof (tests/progs/go/
# pprofserve.go, 32 MiB allocated in growCache) is recorded under a
# memory.max; once the guard follows the run, it grows by 32 MiB (every page
# touched), the guard fires on its anon and fetches its
# /debug/pprof/heap: stored with the run, named in `tidemark report`, the
# summary and `tidemark heap top` name growCache.  Without --go-url the
# kind applies to no process, and that is stored as such.
. "$(dirname "$0")/../lib.sh"

if ! command -v go >/dev/null; then
	skip guard_go "no go (scripts/deps.sh --test installs golang-go)"
	finish
fi
if ! "$TM" record -q -o "$T/probe.db" --memory-max 64M -- true 2>"$T/probe"; then
	skip guard_go "this host cannot limit memory: $(head -1 "$T/probe")"
	finish
fi
if ! GOCACHE=$T/gocache GOPATH=$T/gopath go build -o "$T/pprofserve" "$TM_ROOT/tests/progs/go/pprofserve.go" \
	>"$T/build.log" 2>&1; then
	fail guard_go_builds "$(tail -5 "$T/build.log")"
	finish
fi
latest_run() { sql "$1" "select id from runs order by id desc limit 1" 2>/dev/null; }
has_run() { test -n "$(latest_run "$1")"; }

DB=$T/g.db
mkfifo "$T/in"
timeout 300 "$TM" record -o "$DB" -i 100ms --memory-max 256M -- "$T/pprofserve" 32 <"$T/in" >"$T/out" 2>"$T/rec.err" &
rec=$!
exec 3>"$T/in"
wait_for 60 grep -q '^port ' "$T/out"
wait_for 30 has_run "$DB"
run=$(latest_run "$DB")
url=http://127.0.0.1:$(awk '/^port/ { print $2 }' "$T/out")/debug/pprof/heap
timeout 300 "$TM" guard -o "$DB" --run "$run" --when 'anon > 8%max' --snapshot go_heap --go-url "$url" \
	>"$T/g.out" 2>"$T/g.err" 3>&- &
g=$!
# the same, without --go-url: no process it applies to
timeout 300 "$TM" guard -o "$DB" --run "$run" --when 'anon > 9%max' --snapshot go_heap >"$T/n.out" 2>&1 3>&- &
gn=$!
wait_for 60 grep -q '^guarding run' "$T/g.out"
wait_for 60 grep -q '^guarding run' "$T/n.out"
echo "grow 32" >&3
wait_for 120 grep -q '^  snapshot go_heap' "$T/g.out"
wait_for 120 grep -q '^  snapshot go_heap' "$T/n.out"
exec 3>&-
wait $rec
rcr=$?
wait $g
rcg=$?
wait $gn
check_eq guard_go_exits "$rcr $rcg" "0 0"
check_eq guard_go_fired_once "$(grep -c '^fired anon>8%max at ' "$T/g.out")" 1
sum=$(sql "$DB" "select summary from snapshots where run_id=$run and kind='go_heap' and ok=1")
file=$(sql "$DB" "select path from snapshots where run_id=$run and kind='go_heap' and ok=1")
test_expect "guard_go_heap_names_the_site ($sum)" '
	echo "$sum" | grep -qE "^top in-use site: main\.growCache < main\.main < runtime\.main, [0-9]+\.[0-9] MiB in use" &&
	"$TM" heap top "$file" -n 1 2>&1 | grep -q "main.growCache" ||
	test_why "summary '\''$sum'\'' file '\''$file'\'': $(cat "$T/g.out" "$T/g.err" | head -20)"'
check_eq guard_go_no_url_stored "$(sql "$DB" "select ok || ' ' || summary from snapshots where run_id=$run and rule='anon>9%max'")" \
	"0 no process it applies to"
"$TM" report -o "$DB" "$run" >"$T/report" 2>&1
check guard_go_report_text grep -q '^  guard .* anon>8%max: go_heap of pid [0-9]* .*main\.growCache' "$T/report"
check_eq guard_go_no_action "$(sql "$DB" "select count(*) from snapshots where run_id=$run and kind in ('signal','exec','restart')")" 0
finish
