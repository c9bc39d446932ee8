#!/bin/sh
# A host with no pseudo-terminals (a minimal container, an initramfs: no
# /dev/pts): record and bench --progress fall back to a pipe for the
# command's stdout and say so, instead of failing (issue 25); doctor names
# the missing /dev/pts.  Simulated in a mount namespace of our own with an
# empty tmpfs over /dev/pts.
. "$(dirname "$0")/../lib.sh"
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null 2>&1 ||
	! unshare -m sh -c 'mount -t tmpfs none /dev/pts' 2>/dev/null; then
	skip "no pseudo-terminal: fall back to a pipe" "needs root and unshare -m to hide /dev/pts"
	finish
fi
# nopty CMD...: CMD with /dev/pts hidden
nopty() { unshare -m sh -c 'mount -t tmpfs none /dev/pts && exec "$@"' nopty "$@"; }
prog='for i in 1 2 3 4 5; do echo "n=$i"; sleep 0.1; done'

nopty "$TM" record -o "$T/r.db" -i 100ms --progress 'n=([0-9]+)' -- sh -c "$prog" \
	>"$T/r.out" 2>"$T/r.err"
rc=$?
n=$(sql "$T/r.db" "select count(*) from progress where run_id = (select max(id) from runs)")
test_expect "record --progress without a pseudo-terminal: a pipe instead, said, the progress kept" '
	[ $rc -eq 0 ] && [ "$n" = 5 ] && grep -q "cannot open a pseudo-terminal" "$T/r.err" &&
	grep -q "goes through a pipe instead" "$T/r.err" ||
	test_why "exit $rc, $n progress points; $(cat "$T/r.err")"'

nopty "$TM" bench -o "$T/b.db" --arm glibc --runs 2 -i 100ms --progress 'n=([0-9]+)' \
	-- sh -c "$prog" >"$T/b.out" 2>&1
rc=$?
n=$(sql "$T/b.db" "select count(*) from runs where outcome = 'completed'")
test_expect "bench --progress without a pseudo-terminal runs every run" '
	[ $rc -eq 0 ] && [ "$n" = 2 ] ||
	test_why "exit $rc, $n completed; $(tail -5 "$T/b.out")"'

# pty CHECK-JSON: the doctor's pty check as "status|summary|fix"
pty() { python3 -c 'import json, sys
c = [c for c in json.load(sys.stdin)["checks"] if c["name"] == "pty"][0]
print("%s|%s|%s" % (c["status"], c["summary"], c["fix"]))'; }
d=$(nopty "$TM" doctor --json 2>/dev/null | pty)
test_expect "doctor names the missing /dev/pts and --no-pty" '
	case "$d" in
	warn\|*"no devpts mounted at /dev/pts"*\|*--no-pty*) ;;
	*) test_why "$d" ;;
	esac'
d=$("$TM" doctor --json 2>/dev/null | pty)
test_expect "doctor on this host: a pseudo-terminal opens" '
	case "$d" in
	ok\|*) ;;
	*) test_why "$d" ;;
	esac'
finish
