#!/bin/sh
# tidemark serve: tokens, pushes, reads, and refusing what should be refused.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT

out=$("$TM" serve --help)
test_expect "serve --help shows examples" 'case $out in *examples:*) ;; *) test_why "$out" ;; esac'
check_fails "serve refuses a bad option" "unrecognized|unexpected" "$TM" serve --bogus
check_fails "serve refuses a bad address" "listen address" "$TM" serve --listen nowhere
check_fails "token add refuses a hostile name" "invalid name" "$TM" serve token add '<script>' --db "$T/s.db"

S=$T/s.db
"$TM" serve token add pi --db "$S" >"$T/pi.tok" && "$TM" serve token add vps --db "$S" >"$T/vps.tok" &&
	"$TM" serve token add --read viewer --db "$S" >"$T/read.tok"
chmod 600 "$T"/*.tok
test_expect "token add prints a token" 'grep -qE '\''^tm_[0-9a-f]{64}$'\'' "$T/pi.tok" || test_why "$(cat "$T/pi.tok")"'
tok=$(cat "$T/pi.tok")
test_expect "tokens are stored hashed" '
	[ "$(q "$S" "select count(*) from tokens where hash = '\''$tok'\''")" = 0 ] &&
	[ "$(q "$S" "select count(*) from tokens where length(hash) = 64")" = 3 ]'
test_expect "token list" '"$TM" serve token list --db "$S" | grep -q "write pi"'

start_server "$S" --max-body 256K
started=$?
test_expect "server starts on ${URL:-no URL}" '[ $started = 0 ] || test_why "$(cat "$T/srv.err")"'
[ $started = 0 ] || exit 1
check_fails "a second server on the same port says why" "cannot listen" "$TM" serve --db "$T/other.db" --listen "127.0.0.1:$PORT"
test_expect "listens on loopback" 'case $URL in http://127.0.0.1:*) ;; *) test_why "$URL" ;; esac'

# two collectors push
"$FEED" "$T/pi.db" pi 1200 0 "$URL" "$T/pi.tok" >"$T/pi.uuid" 2>"$T/feed.err" &&
	"$FEED" "$T/vps.db" vps 700 0 "$URL" "$T/vps.tok" >"$T/vps.uuid" 2>>"$T/feed.err"
check "collectors push" test -s "$T/vps.uuid"
pi_run=$(q "$S" "select id from runs where uuid = '$(cat "$T/pi.uuid")'")
n=$(q "$S" "select count(*) || '/' || count(distinct seq) || '/' || min(seq) || '/' || max(seq) from samples where run_id = '$pi_run'")
test_expect "every sample stored once" '[ "$n" = "1200/1200/0/1199" ] || test_why "$n"'
for kind in events progress marks; do
	a=$(q "$T/pi.db" "select count(*) from $kind") b=$(q "$S" "select count(*) from $kind where run_id = '$pi_run'")
	test_expect "$kind arrive ($a)" '
		[ "$a" = "$b" ] && [ "$a" -gt 0 ] || test_why "local $a, server $b"'
done
test_expect "run filed under the token's machine, with its end" '
	[ "$(q "$S" "select machine || '\'':'\'' || outcome from runs where id = '\''$pi_run'\''")" = "pi:completed" ]'
# the same collector data pushed again changes nothing
"$FEED" "$T/pi.db" pi 0 0 "$URL" "$T/pi.tok" >/dev/null 2>&1
test_expect "no duplicates" '
	[ "$(q "$S" "select count(*) from samples")" = 1900 ] || test_why "$(q "$S" "select count(*) from samples")"'

R="Authorization: Bearer $(cat "$T/read.tok")"
W="Authorization: Bearer $(cat "$T/pi.tok")"
body='{"v":1,"run":{"uuid":"x1","interval_usec":1000000,"started_wall_usec":1790000000000000}}'
before=$(q "$S" "select count(*) from runs")

# auth
expect_status "push without a token is refused" 401 POST /api/v1/push -d "$body"
expect_status "push with a wrong token is refused" 401 POST /api/v1/push -H "Authorization: Bearer tm_$(printf '%064d' 0)" -d "$body"
expect_status "push with a read token is refused" 401 POST /api/v1/push -H "$R" -d "$body"
expect_status "reads need a read token" 401 GET /api/v1/runs
expect_status "/metrics needs a read token" 401 GET /metrics
expect_status "reads with a read token" 200 GET /api/v1/machines -H "$R"
test_expect "machines listed" '
	grep -q '\''"name":"vps"'\'' "$T/body" || test_why "$(cat "$T/body")"'
expect_status "the panel page itself needs no token" 200 GET /
expect_status "unknown pages are 404" 404 GET /nope
expect_status "GET on push is refused" 405 GET /api/v1/push -H "$W"

# malformed, hostile, oversized
expect_status "malformed JSON is refused" 400 POST /api/v1/push -H "$W" -d '{"v":1,'
test_expect "the refusal says why" '
	grep -q "not valid JSON" "$T/body" || test_why "$(cat "$T/body")"'
expect_status "HTML in a machine name is refused" 400 POST /api/v1/push -H "$W" \
	-d '{"v":1,"run":{"uuid":"x2","machine":"<script>alert(1)</script>","interval_usec":1000000,"started_wall_usec":1790000000000000}}'
expect_status "a bad uuid is refused" 400 POST /api/v1/push -H "$W" \
	-d '{"v":1,"run":{"uuid":"\"><img src=x>","interval_usec":1000000,"started_wall_usec":1790000000000000}}'
expect_status "an unknown metric is refused" 400 POST /api/v1/push -H "$W" \
	-d '{"v":1,"run":{"uuid":"x3","interval_usec":1000000,"started_wall_usec":1790000000000000},"samples":[{"seq":0,"t_wall_usec":1790000000000000,"values":{"rm -rf":1}}]}'
expect_status "a wrong type is refused" 400 POST /api/v1/push -H "$W" \
	-d '{"v":1,"run":{"uuid":"x4","interval_usec":"soon","started_wall_usec":1790000000000000}}'
awk 'BEGIN { printf "{\"v\":1,\"run\":{\"uuid\":\"x5\",\"interval_usec\":1000000,\"started_wall_usec\":1790000000000000},\"marks\":[{\"i\":0,\"t_wall_usec\":1790000000000000,\"text\":\""; for (i = 0; i < 300000; i++) printf "a"; printf "\"}]}" }' >"$T/big.json"
expect_status "an oversized body is refused" 413 POST /api/v1/push -H "$W" --data-binary @"$T/big.json"
expect_status "an oversized chunked body is refused" 413 POST /api/v1/push -H "$W" -H "Transfer-Encoding: chunked" --data-binary @"$T/big.json"
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]" }' >"$T/deep.json"
expect_status "deeply nested JSON is refused" 400 POST /api/v1/push -H "$W" --data-binary @"$T/deep.json"
printf '{"v":1,"run":{"uuid":"x6","kernel":"\377\376","interval_usec":1000000,"started_wall_usec":1790000000000000}}' >"$T/utf8.json"
expect_status "invalid UTF-8 is refused" 400 POST /api/v1/push -H "$W" --data-binary @"$T/utf8.json"
expect_status "a NUL inside a string is refused" 400 POST /api/v1/push -H "$W" \
	-d '{"v":1,"run":{"uuid":"x7","kernel":"a\u0000b","interval_usec":1000000,"started_wall_usec":1790000000000000}}'
expect_status "a negative memory value is refused" 400 POST /api/v1/push -H "$W" \
	-d '{"v":1,"run":{"uuid":"x8","interval_usec":1000000,"started_wall_usec":1790000000000000},"samples":[{"seq":0,"t_wall_usec":1790000000000000,"values":{"cg_anon_bytes":-5}}]}'
test_expect "the negative value is named" '
	grep -q "cg_anon_bytes'\'' is -5" "$T/body" || test_why "$(cat "$T/body")"'
expect_status "a limit of -1 (none) is accepted" 200 POST /api/v1/push -H "$W" \
	-d '{"v":1,"run":{"uuid":"x9","interval_usec":1000000,"started_wall_usec":1790000000000000},"samples":[{"seq":0,"t_wall_usec":1790000000000000,"values":{"cg_max_bytes":-1}}]}'
before=$(q "$S" "select count(*) from runs")
printf '{"v":1,"run":{"uuid":"x10","interval_usec":1000000,"started_wall_usec":1790000000000000},"marks":[{"i":0,"t_wall_usec":1790000000000000,"text":"tip \342\200\256gnp.exe"}]}' >"$T/bidi.json"
expect_status "a bidi override in a mark is refused" 400 POST /api/v1/push -H "$W" --data-binary @"$T/bidi.json"
printf '{"v":1,"run":{"uuid":"x11","interval_usec":1000000,"started_wall_usec":1790000000000000},"marks":[{"i":0,"t_wall_usec":1790000000000000,"text":"a\302\233[2Jb"}]}' >"$T/c1.json"
expect_status "a C1 control in a mark is refused" 400 POST /api/v1/push -H "$W" --data-binary @"$T/c1.json"
# a client trickling a body does not hold up anyone else
awk 'BEGIN { printf "{\"v\":1,"; for (i = 0; i < 60000; i++) printf " "; printf "\"run\":{\"uuid\":\"slow\",\"interval_usec\":1000000,\"started_wall_usec\":1790000000000000}}" }' >"$T/slow.json"
curl -s -o /dev/null --limit-rate 2k -H "$W" --data-binary @"$T/slow.json" "$URL/api/v1/push" &
SLOW=$!
sleep 0.5
t=$(curl -s -o /dev/null -w '%{time_total}' "$URL/healthz")
kill $SLOW 2>/dev/null
wait $SLOW 2>/dev/null
test_expect "a slow client does not block others (${t}s)" 'awk -v t="$t" '\''BEGIN { exit !(t < 1) }'\'' || test_why "${t}s"'
expect_status "bad series arguments are refused" 400 GET "/api/v1/runs/$pi_run/series?points=-1" -H "$R"
expect_status "a missing run is 404" 404 GET /api/v1/runs/424242 -H "$R"
test_expect "refused requests changed nothing" '
	[ "$(q "$S" "select count(*) from runs")" = "$before" ]'

# reads
expect_status "series" 200 GET "/api/v1/runs/$pi_run/series?points=100" -H "$R"
test_expect "series has min/max buckets" '
	grep -q '\''"cg_anon_bytes":{"min":\['\'' "$T/body" || test_why "$(head -c 300 "$T/body")"'
expect_status "run document" 200 GET "/api/v1/runs/$pi_run" -H "$R"
test_expect "collector text passed as JSON text" 'grep -q "killed <b>worker" "$T/body"'
http GET / -D "$T/headers" >/dev/null
test_expect "panel sent with a strict CSP" '
	grep -qi "content-security-policy: default-src '\''none'\''; script-src '\''self'\''" "$T/headers"'

# record with a read token: fails at once with the reason, before the command runs
t0=$(date +%s)
"$TM" record -q --db "$T/ro.db" -i 100ms --push "$URL" --token-file "$T/read.tok" -- touch "$T/ro.ran" >"$T/ro.out" 2>&1
rc=$? t1=$(date +%s)
test_expect "record with a read token fails at once, saying why" '[ "$rc" -ne 0 ] && [ $((t1 - t0)) -lt 5 ] && grep -q "refused the token (HTTP 401" "$T/ro.out" && [ ! -e "$T/ro.ran" ] || test_why "rc=$rc $((t1 - t0))s $(cat "$T/ro.out")"'
test_expect "... and its local run is ended as failed" '
	[ "$(q "$T/ro.db" "select outcome from runs")" = failed ] || test_why "$(q "$T/ro.db" "select outcome, reason from runs")"'
# record --machine NAME names the run; a bad name is refused
check "record --machine" "$TM" record -q --db "$T/m.db" -i 100ms --machine node-7.lab -- true
test_expect "--machine is the run's machine" '
	[ "$(q "$T/m.db" "select machine from runs")" = node-7.lab ] || test_why "$(q "$T/m.db" "select machine from runs")"'
check_fails "record refuses a bad --machine" "expected 1-64" "$TM" record -q --db "$T/m2.db" --machine 'a b' -- true
# /metrics: both runs ended, so only which run each machine had and when
expect_status "/metrics with a read token" 200 GET /metrics -H "$R"
cp "$T/body" "$T/ended.txt"
test_expect "/metrics: tidemark_run_info names each machine's run by its uuid" '
	grep -q '\''^tidemark_run_info{machine="pi",run="'\''"$(cat "$T/pi.uuid")"'\''",cgroup="/tidemark/feed",state="ended"} 1$'\'' "$T/ended.txt" ||
	test_why "$(grep run_info "$T/ended.txt")"'
test_expect "/metrics: an ended run's last sample time" '
	grep -q '\''^tidemark_last_sample_timestamp_seconds{machine="vps"} '\'' "$T/ended.txt" ||
	test_why "$(head -12 "$T/ended.txt")"'
test_expect "/metrics: an ended run's values are not exported as current" '
	! grep -q "^tidemark_memory_anon_bytes{" "$T/ended.txt" || test_why "$(grep anon_bytes "$T/ended.txt")"'
# a live collector: its values, under its machine only
"$FEED" "$T/live.db" pi 200 100 "$URL" "$T/pi.tok" >/dev/null 2>"$T/live.err" &
LIVE=$!
n=0
while [ "$(q "$S" "select count(*) from samples s join runs r on r.id = s.run_id where r.uuid = '$(q "$T/live.db" "select uuid from runs" 2>/dev/null)'" 2>/dev/null)" -lt 3 ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
expect_status "/metrics with a live run" 200 GET /metrics -H "$R"
cp "$T/body" "$T/metrics.txt"
kill $LIVE 2>/dev/null
wait $LIVE 2>/dev/null
test_expect "/metrics has each live machine's latest sample" '
	grep -q '\''^tidemark_memory_anon_bytes{machine="pi"} '\'' "$T/metrics.txt" ||
	test_why "$(head -20 "$T/metrics.txt")"'
test_expect "/metrics: the live run's info" '
	grep -q '\''^tidemark_run_info{machine="pi",run="'\''"$(q "$T/live.db" "select uuid from runs")"'\''",cgroup="/tidemark/feed",state="live"} 1$'\'' "$T/metrics.txt" ||
	test_why "$(grep run_info "$T/metrics.txt")"'
test_expect "/metrics has memory events" '
	grep -q '\''^tidemark_memory_events_total{machine="pi",event="oom_kill"} '\'' "$T/metrics.txt"'
test_expect "/metrics: no empty cgroup labels" '! grep -q '\''cgroup=""'\'' "$T/metrics.txt"'
test_expect "/metrics: cAdvisor's name and a real HELP line" '
	grep -q "^# HELP tidemark_memory_usage_bytes Memory charged to the cgroup (memory.current)" "$T/metrics.txt" ||
	test_why "$(grep HELP "$T/metrics.txt" | head -5)"'
if command -v promtool >/dev/null; then
	check "promtool check metrics" sh -c "promtool check metrics <'$T/metrics.txt'"
else
	skip "promtool check metrics" "promtool not installed"
fi

# a run recorded while the server was away, sent afterwards
"$FEED" "$T/late.db" pi 250 0 >"$T/late.uuid"
check "serve push sends a local store" "$TM" serve push --token-file "$T/pi.tok" --db "$T/late.db" "$URL"
n=$(q "$S" "select count(*) from samples s join runs r on r.id = s.run_id where r.uuid = '$(cat "$T/late.uuid")'")
test_expect "late run arrived whole" '[ "$n" = 250 ] || test_why "$n"'
check_fails "serve push without a token file" "token-file" "$TM" serve push "$URL"
# by run id: the one named is sent (again: acknowledged, nothing doubled); a bad id is refused
out=$("$TM" serve push --token-file "$T/pi.tok" --db "$T/late.db" "$URL" 1 2>&1)
n=$(q "$S" "select count(*) from samples s join runs r on r.id = s.run_id where r.uuid = '$(cat "$T/late.uuid")'")
test_expect "serve push URL 1 sends run 1 once" '
	[ "$out" = "1 run(s) sent, 0 incomplete" ] && [ "$n" = 250 ] || test_why "$out; $n samples"'
check_fails "serve push URL x: not a run id" "'x' is not a run id" "$TM" serve push --token-file "$T/pi.tok" \
	--db "$T/late.db" "$URL" x

# rate limit: 1 sample/s leaves a burst of one full batch; --public-read
stop_server
PORT= start_server "$S" --max-rate 1 --public-read || fail "server restarts"
expect_status "--public-read: reads need no token" 200 GET /api/v1/runs
expect_status "--public-read: /metrics needs no token" 200 GET /metrics
expect_status "--public-read: pushes still need a token" 401 POST /api/v1/push -d "$body"
awk 'BEGIN { printf "{\"v\":1,\"run\":{\"uuid\":\"rate-1\",\"interval_usec\":1000000,\"started_wall_usec\":1790000000000000},\"samples\":["; for (i = 0; i < 2000; i++) printf "%s{\"seq\":%d,\"t_wall_usec\":1790000000000000,\"values\":{\"cg_anon_bytes\":1}}", (i ? "," : ""), i; printf "]}" }' >"$T/rate.json"
expect_status "a full batch within the burst" 200 POST /api/v1/push -H "$W" --data-binary @"$T/rate.json"
expect_status "more than the rate allows is refused" 429 POST /api/v1/push -H "$W" --data-binary @"$T/rate.json"
stop_server
test_expect "server ran clean" '! grep -q "ERROR: .*Sanitizer" "$T/srv.err" || test_why "$(head -20 "$T/srv.err")"'
finish
