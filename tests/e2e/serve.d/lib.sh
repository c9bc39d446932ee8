# Helpers for the serve_*.sh tests (sourced after tests/lib.sh).
FEED=$TM_BUILD/tests/progs/serve_feed

# start_server DB [ARGS...]: starts `tidemark serve` on 127.0.0.1 ($PORT, or
# a free port); sets SRV_PID, URL and PORT.  Returns 1 if it did not start.
start_server()
{
	db=$1
	shift
	: >"$T/srv.out"
	"$TM" serve --db "$db" --listen "127.0.0.1:${PORT:-0}" "$@" >"$T/srv.out" 2>>"$T/srv.err" &
	SRV_PID=$!
	URL=
	n=0
	while [ $n -lt 100 ]; do
		URL=$(sed -n 's|^listening on \(http://[0-9.:]*\)/$|\1|p' "$T/srv.out")
		[ -n "$URL" ] && break
		kill -0 "$SRV_PID" 2>/dev/null || return 1
		sleep 0.1
		n=$((n + 1))
	done
	[ -n "$URL" ] || return 1
	PORT=${URL##*:}
}

stop_server()
{
	# a test that skipped before starting one has none to stop
	[ -n "${SRV_PID:-}" ] || return 0
	kill "$SRV_PID" 2>/dev/null
	wait "$SRV_PID" 2>/dev/null
}

# http METHOD PATH [CURL ARGS...]: prints the status; the body is in $T/body.
http()
{
	m=$1 p=$2
	shift 2
	curl -s -o "$T/body" -w '%{http_code}' -X "$m" "$@" "$URL$p"
}

# expect_status NAME WANT METHOD PATH [CURL ARGS...]
expect_status()
{
	name=$1 want=$2
	shift 2
	got=$(http "$@")
	if [ "$got" = "$want" ]; then
		ok "$name"
	else
		fail "$name" "HTTP $got, want $want: $(head -c 300 "$T/body")"
	fi
}

# q DB SQL: one value.
q() { sqlite3 -batch -noheader "$1" "$2"; }
