#!/bin/sh
# The pooled guest (tests/run.sh, scripts/vm/pool.sh) puts itself back as
# each script found it: after a script that leaves processes behind (one in
# a session of its own), cgroups, files in /tmp, /dev/shm and /run, and its
# swap on, the next script in the same guest finds none of them; and what
# the pool cannot undo (a mount left in /tmp) fails the script that left
# it, and the next script gets a fresh guest.
if [ -n "${TM_IN_GUEST:-}" ]; then
	. "$(dirname "$0")/lib.sh"
	echo "# boot $(cat /proc/sys/kernel/random/boot_id)"
	case "$1" in
	dirty)
		mkdir -p $CG/app.slice/left.service $CG/left
		echo +memory >$CG/app.slice/cgroup.subtree_control
		sh -c 'echo $$ >'"$CG"'/app.slice/left.service/cgroup.procs; exec sleep 1000' &
		setsid sleep 1001 &
		mkdir /tmp/left-dir && echo x >/dev/shm/left-shm && echo y >/run/left-run
		is "$(awk 'NR > 1' /proc/swaps | wc -l)" = 1 "a script that asks for swap has it on (-s)"
		ok "a script leaves processes, cgroups and files behind"
		;;
	check)
		is "$(find $CG -mindepth 1 -type d | tr '\n' ' ')" = "$CG/init.scope " \
			"the next script finds no cgroup but init.scope"
		is "$(ls -A /tmp /dev/shm | grep -c left)" = 0 "nor the files in /tmp and /dev/shm"
		test_expect "nor the file in /run" '[ ! -e /run/left-run ]'
		left=$(ps -e -o args= | grep -cE '^sleep 100[01]$')
		is "$left" = 0 "nor the processes (the one in its own session too)"
		is "$(awk 'NR > 1' /proc/swaps | wc -l)" = 0 "and no swap on"
		;;
	stuck)
		mkdir /tmp/stuck && mount -t tmpfs stuck /tmp/stuck && echo z >/tmp/stuck/z
		ok "a script leaves a mount in /tmp"
		;;
	esac
	finish
fi

# ---- on the host: three scripts in the pooled guest, one after another ----
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM=$ROOT/${B:-build}/vm
had=0
[ -e "$VM/pool/plain/ready" ] && had=1
export TM_VM_POOL=1
job() { sh "$ROOT/scripts/vm/run-in-guest" -t 120 "$@" 2>&1; }
boot() { sed -n 's/^# boot //p' "$1"; }
job -s 256 "$0" dirty >"$T/dirty"
job "$0" check >"$T/check"
job "$0" stuck >"$T/stuck"
job "$0" check >"$T/after"
# the guest's own checks, as they are
grep -hE '^(not )?ok' "$T/dirty" "$T/check" "$T/after"
test_expect "the second script ran in the same guest as the first" '[ -n "$(boot "$T/dirty")" ] && [ "$(boot "$T/dirty")" = "$(boot "$T/check")" ] || test_why "$(sed '\''s/^/# /'\'' "$T/dirty" "$T/check")"'
test_expect "what the pool cannot undo fails the script that left it, and says what" '
	grep -q '\''^not ok - pool leaves the guest as it found it'\'' "$T/stuck" &&
	grep -q '\''^# left: files: /tmp/stuck'\'' "$T/stuck" || test_why "$(sed '\''s/^/# /'\'' "$T/stuck")"'
test_expect "and the next script gets a fresh guest" '[ -n "$(boot "$T/after")" ] && [ "$(boot "$T/after")" != "$(boot "$T/stuck")" ] || test_why "$(sed '\''s/^/# /'\'' "$T/stuck" "$T/after")"'
# the pool's guest never outlives its shell: a TERM to the shell that runs
# it (what stopping a pool did, and left its qemu spinning under its
# 2-hour timeout) stops its qemu too
P=$VM/pool/plain
qemu_of_pool() { pgrep -f "path=$P," || true; }
sh "$ROOT/scripts/vm/run-in-guest" --pool-start >"$T/start" 2>&1
spid=$(cat "$P/pid" 2>/dev/null) qpid=$(cat "$P/qemu.pid" 2>/dev/null)
if [ -n "$spid" ] && [ -n "$qpid" ] && kill -0 "$qpid" 2>/dev/null; then
	kill -TERM "$spid"
	for _ in $(seq 150); do
		[ -z "$(qemu_of_pool)" ] && break
		sleep 0.2
	done
	left=$(qemu_of_pool)
	test_expect "a pool's shell stopped by a signal stops its qemu" '[ -z "$left" ] || test_why "qemu $left still runs 30 s after TERM to $spid"'
	kill -KILL $left 2>/dev/null
else
	fail "a pool's shell stopped by a signal stops its qemu" "no pool to stop: pid '$spid', qemu '$qpid': $(cat "$T/start")"
fi
sh "$ROOT/scripts/vm/run-in-guest" --pool-stop
test_expect "--pool-stop leaves no qemu of the pool" '[ -z "$(qemu_of_pool)" ] || test_why "$(qemu_of_pool)"'
[ $had = 1 ] && sh "$ROOT/scripts/vm/run-in-guest" --pool-start >/dev/null 2>&1
finish
