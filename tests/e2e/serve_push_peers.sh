#!/bin/sh
# record --push beside a hostile peer: a server that accepts and never
# answers (a black hole) and a slow one (each answer 1 s late) cost the
# local series nothing (the pushing has a thread of its own, reading the
# store), and once the server answers again every sample, event and mark
# arrives exactly once.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/serve.d/lib.sh"
trap 'stop_server; for p in ${PEER:-} ${BASE:-}; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT
PEER= BASE=
if ! command -v python3 >/dev/null 2>&1; then
	skip "record --push beside hostile peers" "needs python3"
	finish
fi
PY=$TM_ROOT/tests/e2e/serve.d/peer.py
# samples a 12 s run at -i 100ms may miss against one that does not push
# (the two run side by side, on a machine shared with other tests)
TOLERANCE=4

S=$T/s.db
"$TM" serve token add box --db "$S" >"$T/box.tok" && chmod 600 "$T/box.tok"

# peer MODE [ARGS]: starts peer.py; sets PEER and PEER_AT (its port)
peer()
{
	rm -f "$T/peer.port"
	python3 "$PY" "$1" "$T/peer.port" "${2:-}" "${3:-}" 2>"$T/peer.err" &
	PEER=$!
	n=0
	while [ ! -s "$T/peer.port" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
	PEER_AT=$(cat "$T/peer.port")
}

# rec DB [ARGS]: a 12 s recording at -i 100ms into $T/DB, with a mark and
# a progress point each second
cat >"$T/work.sh" <<'EOW'
i=0
while [ $i -lt 12 ]; do
	i=$((i + 1))
	echo "step-$i" >"$TIDEMARK_MARK"
	echo "done=$i"
	sleep 1
done
EOW
rec() { db=$1; shift; "$TM" record -q --db "$T/$db" -i 100ms --progress 'done=([0-9]+)' "$@" -- sh "$T/work.sh" >"$T/$db.out" 2>&1; }

# exactly_once DB WHAT: the run of $T/DB is on the server whole, each row once
exactly_once()
{
	log=$T/$1.out uuid=$(q "$T/$1" "select uuid from runs")
	run=$(q "$S" "select id from runs where uuid = '$uuid'")
	a=$(q "$T/$1" "select count(*) || '/' || min(seq) || '/' || max(seq) from samples")
	b=$(q "$S" "select count(distinct seq) || '/' || min(seq) || '/' || max(seq) from samples where run_id = '${run:-0}'")
	c=$(q "$S" "select count(*) from samples where run_id = '${run:-0}'")
	test_expect "$2: every sample arrived exactly once ($a)" '[ -n "$run" ] && [ "$a" = "$b" ] && [ "$c" = "${a%%/*}" ] || test_why "local $a, server $b in $c rows; $(cat "$log")"'
	for kind in events marks progress; do
		a=$(q "$T/$1" "select count(*) from $kind") b=$(q "$S" "select count(*) from $kind where run_id = '${run:-0}'")
		test_expect "$2: $kind exactly once ($a)" '[ -n "$run" ] && [ "$a" = "$b" ] || test_why "local $a, server $b"'
	done
	test_expect "$2: the run's end arrived" '[ "$(q "$S" "select ended_wall_usec > 0 from runs where id = '\''${run:-0}'\''")" = 1 ] || test_why "$(cat "$log")"'
}

# compare NAME DB BASE: DB's samples against BASE, the run beside it that did not push
compare()
{
	n=$(q "$T/$2" "select count(*) from samples") want=$(q "$T/$3" "select count(*) from samples")
	test_expect "$1: $n local samples against $want without pushing (tolerance $TOLERANCE)" '[ "$n" -ge $((want - TOLERANCE)) ] || test_why "$n local samples against $want without pushing (tolerance $TOLERANCE)"'
}

# ---- a black hole for 5 s, then the server comes back on its port ----
peer blackhole
rec base.db &
BASE=$!
rec hole.db --push "http://127.0.0.1:$PEER_AT" --token-file "$T/box.tok" &
REC=$!
sleep 5
kill "$PEER"
wait "$PEER" 2>/dev/null
PEER=
PORT=$PEER_AT
start_server "$S" || { fail "the server comes back on port $PORT" "$(cat "$T/srv.err")"; finish; exit 1; }
wait "$BASE"
BASE=
wait "$REC"
rec_rc=$?
test_expect "record --push beside a black hole finished" '[ $rec_rc = 0 ] || test_why "exit $rec_rc: $(cat "$T/hole.db.out")"'
compare "black hole" hole.db base.db
exactly_once hole.db "black hole, then the server"

# ---- a slow server: each answer a second late ----
peer slow "$PORT" 1
rec base2.db &
BASE=$!
test_expect "record --push beside a slow server finished" 'rec slow.db --push "http://127.0.0.1:$PEER_AT" --token-file "$T/box.tok" || test_why "$(cat "$T/slow.db.out")"'
wait "$BASE"
BASE=
compare "slow server" slow.db base2.db
exactly_once slow.db "slow server"
finish
