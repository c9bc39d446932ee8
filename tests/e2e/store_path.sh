#!/bin/sh
# Which store a command uses: -o/--db, else $TIDEMARK_DB, else ./tidemark.db
# (the server: --db, else $TIDEMARK_SERVER_DB, else ./tidemark-server.db),
# resolved in one place (src/cmd/ctx.c) for every command.
. "$(dirname "$0")/../lib.sh"
W=$T/cwd
mkdir -p "$W"
cd "$W" || exit 1
unset TIDEMARK_DB TIDEMARK_SERVER_DB

runs_in() { sql "$1" "select count(*) from runs" 2>/dev/null || echo none; }

# no option, no variable: ./tidemark.db
"$TM" record -q -i 50ms -- true 2>"$T/err1"
test_expect "record writes ./tidemark.db by default" '
	[ "$(runs_in "$W/tidemark.db")" = 1 ] || test_why "$(ls "$W"; cat "$T/err1")"'
test_expect "the hint names no --db for the default store" '
	grep -q "(tidemark report 1)" "$T/err1" || test_why "$(cat "$T/err1")"'

# $TIDEMARK_DB
TIDEMARK_DB=$T/env.db "$TM" record -q -i 50ms -- true 2>"$T/err2"
test_expect "record writes \$TIDEMARK_DB when it is set" '
	[ "$(runs_in "$T/env.db")" = 1 ] && [ "$(runs_in "$W/tidemark.db")" = 1 ] ||
	test_why "$(cat "$T/err2")"'
test_expect "the hint names the store when it is not the default" '
	grep -q "(tidemark report 1 --db $T/env.db)" "$T/err2" || test_why "$(cat "$T/err2")"'
TIDEMARK_DB=$T/env.db "$TM" record -q -i 50ms -- true 2>/dev/null
n=$(TIDEMARK_DB=$T/env.db "$TM" runs --json | wc -l)
test_expect "runs reads \$TIDEMARK_DB" '[ "$n" = 2 ] || test_why "got $n lines"'
id=$(TIDEMARK_DB=$T/env.db "$TM" report --json | jq -r .run.id)
test_expect "report reads \$TIDEMARK_DB" '[ "$id" = 2 ] || test_why "run '\''$id'\''"'

# -o and --db win over the variable
TIDEMARK_DB=$T/env.db "$TM" record -q -o "$T/opt.db" -i 50ms -- true 2>/dev/null
TIDEMARK_DB=$T/env.db "$TM" record -q --db="$T/opt.db" -i 50ms -- true 2>/dev/null
test_expect "-o and --db= win over \$TIDEMARK_DB" '
	[ "$(runs_in "$T/opt.db")" = 2 ] && [ "$(runs_in "$T/env.db")" = 2 ] ||
	test_why "opt $(runs_in "$T/opt.db") env $(runs_in "$T/env.db")"'
n=$(TIDEMARK_DB=$T/env.db "$TM" runs -o "$T/opt.db" --json | wc -l)
test_expect "runs -o wins over \$TIDEMARK_DB" '[ "$n" = 2 ] || test_why "$n"'
TIDEMARK_DB= "$TM" runs --json >"$T/runs-empty" 2>&1
test_expect "an empty \$TIDEMARK_DB means the default" '
	[ "$(wc -l <"$T/runs-empty")" = 1 ] || test_why "$(cat "$T/runs-empty")"'

# readers never create a store
check_fails "report on a missing \$TIDEMARK_DB fails" "cannot open store" \
	env TIDEMARK_DB="$T/missing.db" "$TM" report
check_fails "bench --table on a missing store fails" "cannot open store" \
	env TIDEMARK_DB="$T/missing.db" "$TM" bench --table 1
check_fails "serve push of a missing store fails" "cannot open store" \
	"$TM" serve push --token-file /dev/null --db "$T/missing.db" http://127.0.0.1:1
test_expect "reading a missing store creates nothing" '[ ! -e "$T/missing.db" ]'

# bad arguments are refused before any store is opened
"$TM" record -o "$T/never.db" --bogus -- true >/dev/null 2>&1
test_expect "a refused command line opens no store" '[ ! -e "$T/never.db" ]'

# the server's store has its own default and variable
TIDEMARK_SERVER_DB=$T/srv.db "$TM" serve token add pi >/dev/null
test_expect "serve token uses \$TIDEMARK_SERVER_DB" '
	[ "$(sql "$T/srv.db" "select count(*) from tokens")" = 1 ]'
"$TM" serve token add pi2 >/dev/null
test_expect "serve token defaults to ./tidemark-server.db" '
	[ "$(sql "$W/tidemark-server.db" "select count(*) from tokens")" = 1 ]'
TIDEMARK_DB=$T/env.db "$TM" serve token list >/dev/null
test_expect "\$TIDEMARK_DB is not the server's store" '
	[ "$(sql "$T/env.db" "select count(*) from sqlite_master where name = '\''tokens'\''")" = 0 ]'

check "help CMD shows the command's help" sh -c "'$TM' help runs | grep -q 'TIDEMARK_DB'"
finish
