#!/bin/sh
# A damaged store: a sample whose bytes no longer decode (bit rot) is left
# out with the samples that depend on it, and said so, instead of stopping
# report and serve; `runs check` finds and quarantines it; a damaged page
# of the file is found by quick_check after an unclean close and named as
# damage when a read hits it.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT

D=$T/r.db
# 700 samples: keyframes at 0, 256 and 512
"$FEED" "$D" pi 700 0 >/dev/null || fail "a run of 700 samples" "serve_feed failed"
# bit rot in two samples: 300 (its deltas to 511 go with it), 600 (to the end)
sql "$D" "update samples set data = x'02ff' where seq in (300, 600)"

"$TM" report --db "$D" >"$T/rep.txt" 2>"$T/rep.err"
rc=$?
want="figures exclude 312 damaged samples: seq 300, 600 cannot be decoded"
test_expect "report prints the run's figures and says they exclude the damaged samples" '[ $rc = 0 ] && grep -q "$want" "$T/rep.txt" || test_why "exit $rc, want '\''$want'\'' in: $(cat "$T/rep.txt" "$T/rep.err" | tail -4)"'
test_expect "report warns of each damaged sample by its id" '
	grep -q "run 1 sample 300 cannot be decoded" "$T/rep.err" &&
	grep -q "run 1 sample 600 cannot be decoded" "$T/rep.err" ||
	test_why "$(cat "$T/rep.err")"'
got=$("$TM" report --db "$D" --json 2>/dev/null | jq -c '.damaged_samples')
test_expect "report --json: damaged_samples" '
	[ "$got" = '\''{"left_out":312,"damaged":2,"seqs":[300,600]}'\'' ] || test_why "got $got"'
# one sample a second: the samples that decode end at 599
got=$("$TM" report --db "$D" --json 2>/dev/null | jq '.figures.duration_usec')
test_expect "the figures are of the samples that decode" '
	[ "$got" = 599000000 ] || test_why "duration_usec $got, want 599000000"'

# the server starts (it reads each run's last sample, here a damaged one's
# delta) and serves the run
"$TM" serve token add --read viewer --db "$D" >"$T/read.tok"
if start_server "$D"; then
	ok "serve starts on a store with damaged samples"
	R="Authorization: Bearer $(cat "$T/read.tok")"
	expect_status "the damaged run's series" 200 GET /api/v1/runs/1/series -H "$R"
	got=$(jq -c '[.last_seq, .bucket_usec > 100000, (.t | length)]' "$T/body")
	test_expect "its series: the 388 samples that decode, over the run's whole time" '
		[ "$got" = "[599,true,388]" ] || test_why "[last_seq, wide buckets, points]: $got"'
	expect_status "the damaged run's summary" 200 GET /api/v1/runs/1/summary -H "$R"
	test_expect "serve warns of the damaged sample" '
		grep -q "sample 300 cannot be decoded" "$T/srv.err" || test_why "$(cat "$T/srv.err")"'
	stop_server
else
	fail "serve starts on a store with damaged samples" "$(cat "$T/srv.err")"
fi

# runs check finds them, --quarantine moves them aside (kept)
"$TM" runs check --db "$D" >"$T/chk.txt" 2>&1
rc=$?
test_expect "runs check lists the damaged samples and exits 1" '
	[ $rc = 1 ] && grep -q "run 1: 2 damaged samples (seq 300, 600), 312 samples" "$T/chk.txt" ||
	test_why "exit $rc: $(cat "$T/chk.txt")"'
test_expect "runs check alone changes nothing" '
	[ "$(sql "$D" "select count(*) from samples")" = 700 ] || test_why "$(sql "$D" "select count(*) from samples") samples"'
"$TM" runs check --db "$D" --quarantine >"$T/chk.txt" 2>&1
rc=$?
got=$(sql "$D" "select count(*), sum(why = 'cannot be decoded') from damaged_samples")
left=$(sql "$D" "select count(*) from samples")
test_expect "runs check --quarantine moves the damaged samples and their deltas to damaged_samples" '
	[ $rc = 0 ] && [ "$got" = "312|2" ] && [ "$left" = 388 ] || test_why "exit $rc, damaged_samples $got, samples $left: $(cat "$T/chk.txt")"'
test_expect "runs check finds nothing after" '
	"$TM" runs check --db "$D" >"$T/chk.txt" 2>&1 || test_why "$(cat "$T/chk.txt")"'
"$TM" report --db "$D" >"$T/rep.txt" 2>"$T/rep.err"
rc=$?
test_expect "report after the quarantine: no warning, a note" '
	[ $rc = 0 ] && [ ! -s "$T/rep.err" ] && grep -q "figures exclude 312 samples moved aside as damaged" "$T/rep.txt" ||
	test_why "exit $rc: $(cat "$T/rep.err" "$T/rep.txt" | tail -3)"'
test_expect "runs check --help" '"$TM" runs check --help | grep -q -- "--quarantine"'

# a damaged page after an unclean close: a recorder killed with SIGKILL
K=$T/k.db
"$TM" record -q --db "$K" -i 50ms -- sleep 30 >"$T/rec.out" 2>&1 &
REC=$!
n=0
while [ "$(sql "$K" "select count(*) from events where kind = 'start'" 2>/dev/null || echo 0)" -lt 1 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill -9 $REC
wait $REC 2>/dev/null
kill "$(sql "$K" "select pid from events where kind = 'start'")" 2>/dev/null
page=$(sql "$K" "select rootpage from sqlite_master where name = 'events'")
psize=$(sql "$K" "pragma page_size")
dd if=/dev/zero of="$K" bs="$psize" seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
"$TM" runs --db "$K" >"$T/runs.txt" 2>"$T/runs.err"
test_expect "an open after an unclean close runs quick_check and says the file is damaged" '
	grep -q "was not closed cleanly and is damaged" "$T/runs.err" && grep -q "quick_check" "$T/runs.err" ||
	test_why "$(cat "$T/runs.err")"'
"$TM" report --db "$K" >"$T/rep.txt" 2>"$T/rep.err"
rc=$?
test_expect "a report that reads a damaged page says so and exits 1" '
	[ $rc = 1 ] && grep -q "the file is damaged" "$T/rep.err" || test_why "exit $rc: $(cat "$T/rep.err")"'
"$TM" runs check --db "$K" >"$T/chk.txt" 2>&1
rc=$?
test_expect "runs check says the file is damaged" '
	[ $rc = 1 ] && grep -q "quick_check" "$T/chk.txt" || test_why "exit $rc: $(cat "$T/chk.txt")"'
# a clean close leaves no handle behind: no check at the next open
"$TM" record -q --db "$T/c.db" -i 50ms -- true
test_expect "a clean close removes its open_handles row" '
	[ "$(sql "$T/c.db" "select count(*) from open_handles")" = 0 ] ||
	test_why "$(sql "$T/c.db" "select * from open_handles")"'
finish
