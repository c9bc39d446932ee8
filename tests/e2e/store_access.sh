#!/bin/sh
# A store tidemark may not write beside (a read-only mount, a user who
# cannot create its -shm file) is not "not a tidemark store": the message
# names the file and the reason; a read-only mount is still read.
. "$(dirname "$0")/../lib.sh"

D=$T/ro/r.db
mkdir -p "$T/ro"
"$TM" record -q --db "$D" -i 50ms -- true || fail "a store to read" "record failed"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "a reader who cannot create the -shm file" "needs root and setpriv to become uid 65534"
else
	chmod 755 "$T" "$T/ro"
	chmod 644 "$D"
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	check_fails "a reader who cannot create the -shm file is told so, with its path" \
		"cannot read store '$D': SQLite must create '$D-shm' .*: Permission denied" \
		nobody "$TM" runs --db "$D"
	check_fails "a writer without permission on the store is told so" \
		"cannot write store '$D': .*Permission denied" \
		nobody "$TM" record -q --db "$D" -i 50ms -- true
	: >"$D-shm"
	chmod 600 "$D-shm"
	chmod 777 "$T/ro"
	check_fails "a -shm file the reader may not write is named, with its owner" \
		"cannot read store '$D': '$D-shm' \(owner uid 0, mode 600\): Permission denied" \
		nobody "$TM" runs --db "$D"
	rm -f "$D-shm"
	chmod 755 "$T/ro"
fi
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	skip "a store on a read-only mount" "needs root and unshare -m for a read-only bind mount"
else
	unshare -m sh -c "mount --bind '$T/ro' '$T/ro' && mount -o remount,bind,ro '$T/ro' &&
		'$TM' runs --db '$D' >'$T/runs.txt' 2>'$T/runs.err'; echo \$? >'$T/runs.rc';
		'$TM' record -q --db '$D' -i 50ms -- true >'$T/rec.txt' 2>&1; echo \$? >'$T/rec.rc'"
	test_expect "a store on a read-only mount is read" '[ "$(cat "$T/runs.rc")" = 0 ] && grep -q " completed " "$T/runs.txt" || test_why "exit $(cat "$T/runs.rc"): $(cat "$T/runs.err")"'
	test_expect "a writer on a read-only mount is told the file system is read-only" '[ "$(cat "$T/rec.rc")" = 1 ] && grep -q "cannot write store '\''$D'\'': '\''$D'\'' is on a read-only file system" "$T/rec.txt" || test_why "exit $(cat "$T/rec.rc"): $(cat "$T/rec.txt")"'
fi
finish
