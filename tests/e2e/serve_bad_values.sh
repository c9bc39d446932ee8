#!/bin/sh
# One machine's bad value must not break /metrics: a cgroup path longer
# than any fixed buffer (once cut at 255 bytes, inside a UTF-8 character,
# which made the whole page invalid for every machine) stays whole and
# valid; a sample dated 2099 is stored but never decides which run is a
# machine's latest (it once held /metrics on the old run, "live"), nor
# makes a run "live" in `tidemark runs` or the API's run list (it once did,
# for ever).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; rm -rf "$T"' EXIT
if ! command -v python3 >/dev/null 2>&1; then
	skip "bad values in /metrics" "needs python3"
	finish
fi
S=$T/s.db
for m in longcg plain fut; do
	"$TM" serve token add $m --db "$S" >"$T/$m.tok"
done
chmod 600 "$T"/*.tok
start_server "$S" --public-read || { fail "server starts" "$(cat "$T/srv.err")"; finish; exit 1; }
now=$(($(date +%s) * 1000000))

# push MACHINE UUID T_WALL [CGROUP]: one sample at T_WALL
push()
{
	cg=
	[ -n "${4:-}" ] && cg=",\"cgroup_path\":\"$4\""
	printf '{"v":1,"run":{"uuid":"%s","interval_usec":1000000,"started_wall_usec":%s%s},"samples":[{"seq":0,"t_wall_usec":%s,"values":{"cg_anon_bytes":4096}}]}' \
		"$2" "$3" "$cg" "$3" >"$T/push.json"
	http POST /api/v1/push -H "Authorization: Bearer $(cat "$T/$1.tok")" --data-binary @"$T/push.json"
}

# valid_page NAME: /metrics is valid UTF-8 (and passes promtool when installed)
valid_page()
{
	curl -s "$URL/metrics" >"$T/metrics.txt"
	test_expect "$1: /metrics is valid UTF-8" 'python3 -c '\''import sys; open(sys.argv[1], "rb").read().decode("utf-8")'\'' "$T/metrics.txt" 2>"$T/utf8.err" || test_why "$(cat "$T/utf8.err")"'
	if command -v promtool >/dev/null 2>&1; then
		check "$1: promtool check metrics passes" sh -c "promtool check metrics <'$T/metrics.txt'"
	else
		skip "$1: promtool check metrics" "promtool not installed (Debian's prometheus package ships it)"
	fi
}

# ---- a 302-byte cgroup path of 2-byte characters, byte 255 inside one ----
cg=$(python3 -c 'print("/x" + "\u00e9" * 150)')
a=$(push longcg lc-1 "$now" "$cg") b=$(push plain pl-1 "$now" "/plain.slice")
test_expect "runs with a long cgroup path and a plain one pushed" '
	[ "$a$b" = 200200 ] || test_why "HTTP $a, $b"'
valid_page "long cgroup path"
test_expect "the long cgroup path is exported whole" '
	grep -qF "cgroup=\"$cg\"" "$T/metrics.txt" || test_why "$(grep -a run_info "$T/metrics.txt")"'
test_expect "the other machine's series are there" '
	grep -q '\''^tidemark_run_info{machine="plain",run="pl-1",cgroup="/plain.slice",state="live"} 1$'\'' "$T/metrics.txt" ||
	test_why "$(grep -a run_info "$T/metrics.txt")"'

# ---- a sample dated 2099, then a new run ----
a=$(push fut f-old 4070908800000000) b=$(push fut f-new "$now")
test_expect "a run dated 2099 and a new run pushed" '
	[ "$a$b" = 200200 ] || test_why "HTTP $a, $b"'
latest()
{
	curl -s "$URL/metrics" | grep '^tidemark_run_info{machine="fut"' >"$T/fut.txt"
	grep -q '^tidemark_run_info{machine="fut",run="f-new",state="live"} 1$' "$T/fut.txt"
}
test_expect "the new run is the machine's latest, not the one dated 2099" '
	latest || test_why "$(cat "$T/fut.txt")"'
stop_server
start_server "$S" --public-read || { fail "server restarts" "$(cat "$T/srv.err")"; finish; exit 1; }
test_expect "and after a restart" 'latest || test_why "$(cat "$T/fut.txt")"'
valid_page "after a restart"
test_expect "the sample dated 2099 is stored" '
	[ "$(q "$S" "select count(*) from samples where t_wall_usec = 4070908800000000")" = 1 ]'

# ---- a run whose newest sample is dated 2099: live nowhere ----
# samples an hour old, then one dated 2099 (seq 1): the run was last seen
# an hour ago, so it is stale, as f-old (started and sampled in 2099) is;
# f-now (sampled now) is live
now=$(($(date +%s) * 1000000))
hour_ago=$((now - 3600000000))
printf '{"v":1,"run":{"uuid":"f-hour","interval_usec":1000000,"started_wall_usec":%s},"samples":[{"seq":0,"t_wall_usec":%s,"values":{"cg_anon_bytes":4096}},{"seq":1,"t_wall_usec":4070908800000000,"values":{"cg_anon_bytes":4096}}]}' \
	"$hour_ago" "$hour_ago" >"$T/push.json"
a=$(http POST /api/v1/push -H "Authorization: Bearer $(cat "$T/fut.tok")" --data-binary @"$T/push.json")
b=$(push fut f-now "$now")
test_expect "a run of samples an hour old, the last dated 2099, and one of now pushed" '
	[ "$a$b" = 200200 ] || test_why "HTTP $a, $b: $(cat "$T/body")"'
http GET "/api/v1/runs?machine=fut" >/dev/null
states=$(python3 -c 'import json, sys
print(" ".join("%s=%s" % (r["uuid"], r["state"]) for r in sorted(json.load(open(sys.argv[1])), key=lambda r: r["uuid"]) if r["uuid"] != "f-new"))' "$T/body" 2>&1)
test_expect "the API's run list: no run is live by a date in 2099 ($states)" '
	[ "$states" = "f-hour=stale f-now=live f-old=stale" ] || test_why "got '\''$states'\'', want '\''f-hour=stale f-now=live f-old=stale'\''"'
# `tidemark runs` on the server's store: the state column, by uuid's run id
ids=$(q "$S" "select uuid || '=' || id from runs where machine = 'fut' and uuid != 'f-new' order by uuid" | tr '\n' ' ')
"$TM" runs --db "$S" >"$T/runs.txt" 2>&1
got=
for pair in $ids; do
	st=$(awk -v id="${pair#*=}" '$1 == id { for (i = 2; i <= NF; i++) if ($i ~ /^(live|stale|ended)$/) { print $i; exit } }' "$T/runs.txt")
	got="$got${got:+ }${pair%%=*}=$st"
done
test_expect "tidemark runs: no run is live by a date in 2099 ($got)" '
	[ "$got" = "f-hour=stale f-now=live f-old=stale" ] || test_why "got '\''$got'\'', want '\''f-hour=stale f-now=live f-old=stale'\'': $(cat "$T/runs.txt")"'
finish
