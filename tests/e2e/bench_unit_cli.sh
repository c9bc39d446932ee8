#!/bin/sh
# bench --unit's checks before anything runs, on a host without systemd as
# PID 1 (the bench itself is tested in the systemd guest: tests/v2/bench_unit.sh):
# a command or a sweep with it is refused, a bad or non-service name is
# refused, the guard reads no drop-in here and a host without systemd is
# said to be one, with nothing written.
. "$(dirname "$0")/../lib.sh"
DB=$T/u.db
check_fails "--unit with a command is refused" "runs the unit's own command" \
	"$TM" bench -o "$DB" --unit tm-x --arm glibc -- true
check_fails "--unit with --sweep is refused" "not yet" \
	"$TM" bench -o "$DB" --unit tm-x --arm glibc --sweep MemoryMax=16M..64M
check_fails "a unit name with a slash is refused" "a unit name has only" \
	"$TM" bench -o "$DB" --unit a/b --arm glibc
check_fails "a timer is refused" "no cgroup of its own|only a .service" \
	"$TM" bench -o "$DB" --unit x.timer --arm glibc
if [ "$(cat /proc/1/comm 2>/dev/null)" != systemd ]; then
	check_fails "without systemd the bench says it cannot reach it" "systemctl|systemd" \
		"$TM" bench -o "$DB" --unit tm-x --arm glibc --runs 1
	test_expect "nothing was written under /run/systemd/system" '
		[ ! -e /run/systemd/system/tm-x.service.d ] || test_why "$(ls -la /run/systemd/system/tm-x.service.d)"'
else
	skip "without systemd the bench says it cannot reach it" "this host runs systemd as PID 1"
fi
finish
