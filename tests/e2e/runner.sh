#!/bin/sh
# tests/run.sh cannot hide a failure: a script that stops before `finish`
# fails even though every line it printed was "ok", one that exits non-zero
# without a "not ok" fails (twice: its status, and no finish), and a whole
# one passes.  Each runs in a copy of
# run.sh and lib.sh in a tree of its own.
. "$(dirname "$0")/../lib.sh"
R=$T/tree
mkdir -p "$R/tests/e2e"
cp "$TM_ROOT/tests/run.sh" "$TM_ROOT/tests/lib.sh" "$R/tests/"
for s in early whole crash; do
	{
		echo '. "$(dirname "$0")/../lib.sh"'
		echo 'ok "one check"'
		case $s in
		early) echo 'exit 0' ;;
		whole) echo 'finish' ;;
		crash) echo 'exit 3' ;;
		esac
	} >"$R/tests/e2e/$s.sh"
done

# runs NAME: run.sh over e2e/NAME.sh alone; its exit status and last line
# (each run counts its own "[run] ok - no leftovers" line besides the script's)
runs()
{
	out=$(B="$T/b-$1" sh "$R/tests/run.sh" e2e "$1" 2>&1)
	echo "$? $(echo "$out" | tail -1)"
	echo "$out" | sed 's/^/# /' >"$T/$1.out" # its "not ok" lines are not ours
}

r=$(runs early)
test_expect "a script that stops before finish fails" '[ "$r" = "1 2 passed, 1 failed, 0 skipped" ] && grep -q "not ok - e2e/early stopped before its end" "$T/early.out" || test_why "$r: $(cat "$T/early.out")"'
r=$(runs crash)
test_expect "a script that exits non-zero without 'not ok' fails" '[ "$r" = "1 2 passed, 2 failed, 0 skipped" ] && grep -q "not ok - e2e/crash exited with status 3" "$T/crash.out" || test_why "$r: $(cat "$T/crash.out")"'
r=$(runs whole)
test_expect "a whole script passes" '[ "$r" = "0 2 passed, 0 failed, 0 skipped" ] && grep -q "ok - no leftovers" "$T/whole.out" || test_why "$r: $(cat "$T/whole.out")"'
finish
