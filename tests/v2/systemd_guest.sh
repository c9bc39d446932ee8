#!/bin/sh
# The systemd guest (run-in-guest --systemd, scripts/vm/systemd.sh): Debian's
# systemd is PID 1 on an overlay root, the boot reaches "running" with
# nothing failed, /etc is writable, a unit written there starts in its own
# cgroup with the limit it asks for, and its output reaches the journal.
V2_SYSTEMD=1
. "$(dirname "$0")/lib.sh"
is "$(cat /proc/1/comm)" = systemd "systemd is the guest's PID 1"
state=$(timeout 60 systemctl is-system-running --wait 2>&1)
is "$state" = running "the boot reaches 'running'" "$(systemctl --failed --no-legend --no-pager 2>&1)"
is "$(sed 's/^0:://' /proc/self/cgroup)" = /system.slice/tm-job.service "the script runs as tm-job.service"
is "$(awk '$2 == "/" { print $3 }' /proc/mounts)" = overlay "the root is an overlay"
cat >/etc/systemd/system/tm-smoke.service <<-UNIT
	[Service]
	ExecStart=/bin/sh -c 'echo tm-smoke-says-hello; exec sleep 30'
	MemoryMax=48M
UNIT
check "a unit written to /etc/systemd/system starts" sh -c 'systemctl daemon-reload && systemctl start tm-smoke.service'
C=$CG/system.slice/tm-smoke.service
is "$(cat $C/memory.max 2>&1)" = $((48 * 1048576)) "in its own cgroup with its MemoryMax"
is "$(systemctl show -P MainPID tm-smoke.service)" = "$(cat $C/cgroup.procs 2>&1)" "its main process is in that cgroup"
for _ in $(seq 50); do
	journalctl -q -u tm-smoke.service --no-pager 2>/dev/null | grep -q tm-smoke-says-hello && break
	sleep 0.1
done
test_expect "its output reaches the journal" 'journalctl -q -u tm-smoke.service --no-pager | grep -q tm-smoke-says-hello || test_why "$(journalctl -n 20 --no-pager 2>&1)"'
check "systemctl stop stops it" systemctl stop tm-smoke.service
finish
