#!/bin/sh
# The job of a pooled cgroup v2 guest (run-in-guest --pool-start): instead
# of one script and a power-off, it runs scripts one after another, each
# as a fresh guest would, until the host asks it to stop.
#
# The pool's directory is the guest's /run/job.  A job is a directory
# jobs/ID there, holding the job's `run` (written by run-in-guest, as for a
# fresh guest), `limit` (seconds) and `swap` (1: swap on the pool's disk
# while it runs); the host asks for it by writing ID into `request`.  The
# job's output goes to jobs/ID/out, its exit status to jobs/ID/status
# (written last); `timedout` says it was stopped at its limit.  The console
# shows "vm-pool: [UPTIME] begin ID" and "... end ID" around each job, so that
# the host can keep each job's part of it.
#
# After each job the guest is put back as the job found it: every process
# the job left is killed, the units it started are stopped (systemd guest),
# the cgroups it made are removed, new files in /tmp, /dev/shm and /run are
# removed, and (systemd guest, whose root is an overlay) what it wrote to
# the root is undone.  What cannot be undone is reported as a failed test
# of that job ("not ok - ... leaves the guest as it found it"), and the
# guest then powers off, so that the next job gets a fresh one.
#
# `stop` in the pool's directory, or 10 minutes without a request, ends it.
set -u
export LC_ALL=C
J=/run/job
CG=/sys/fs/cgroup
S=/run/tm-pool # this script's own state
OV=/run/tm-overlay # the systemd guest's overlay, upper and lower (systemd.sh)
kind=plain
[ "${TM_SYSTEMD:-0}" = 1 ] && kind=systemd
mkdir -p $S
# say: a line on the console, stamped with the guest's uptime
say()
{
	read -r up _ </proc/uptime
	echo "vm-pool: [$up] $*" >/dev/console 2>/dev/null
}

# the swap disk is swap only while a job that asks for it runs
[ -b /dev/vda ] && swapoff /dev/vda 2>/dev/null
if [ $kind = systemd ]; then
	timeout 120 systemctl is-system-running --wait >/dev/null 2>&1
	me=$(sed -n 's/^0:://p' /proc/self/cgroup)
fi
# this script and its ancestors (in the systemd guest, the service's shell)
keep=" 1 $$ "
p=$$
while [ "$p" -gt 1 ]; do
	read -r st </proc/$p/stat
	set -- ${st##*) }
	p=$2
	keep="$keep$p "
done

# active_units: the loaded units that are not inactive, one a line.
active_units()
{
	systemctl list-units --all --plain --no-legend --no-pager 2>/dev/null |
		awk '$3 != "inactive" { print $1 }' | sort
}
# upper_list: what the overlay's upper layer holds (path, type, mtime).
upper_list() { (cd $OV/upper && find . -mindepth 1 -printf '%p %y %T@\n') | sort; }
top_entries() { for d in /tmp /dev/shm /run; do find $d -mindepth 1 -maxdepth 1; done | sort; }
snapshot()
{
	find $CG -mindepth 1 -type d | sort >$S/cgroups
	top_entries >$S/files
	if [ $kind = systemd ]; then
		active_units >$S/units
		upper_list >$S/upper
	fi
}

# leftover_pids: the processes a job may have left: not this script or its
# ancestors, not its own descendants (the subshells running this: what a
# job leaves running is reparented to PID 1 or systemd), not kernel
# threads; in the systemd guest, only those in this service's cgroup (the
# units a job started are stopped through systemd).
leftover_pids()
{
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		case "$keep" in *" $p "*) continue ;; esac
		[ -e /proc/$p/exe ] || continue
		q=$p
		while [ "$q" -gt 1 ] && [ "$q" != $$ ]; do
			read -r st </proc/$q/stat 2>/dev/null || break
			set -- ${st##*) }
			q=$2
		done
		[ "$q" = $$ ] && continue
		if [ $kind = systemd ]; then
			read -r cg </proc/$p/cgroup 2>/dev/null || continue
			[ "${cg#0::}" = "$me" ] || continue
		fi
		echo "$p"
	done
}

# undo_root: puts back what a job changed in the systemd guest's root
# (through the overlay: new files removed, changed or removed ones copied
# back from the lower layer), from $S/upper.now.  Prints what it could not
# put back.
undo_root()
{
	comm -13 $S/upper $S/upper.now | while read -r p t _; do
		p=${p#./}
		[ -e "$OV/upper/$p" ] || [ -h "$OV/upper/$p" ] || continue # gone with its directory
		if [ -e "$OV/lower/$p" ] || [ -h "$OV/lower/$p" ]; then
			[ "$t" = d ] && [ -d "$OV/lower/$p" ] && continue # a directory copied up
			rm -rf "/$p" && cp -a "$OV/lower/$p" "/$p" || echo "/$p (changed)"
		elif grep -qF "./$p " $S/upper; then
			echo "/$p (changed)" # there before the job, not in the lower layer
		else
			rm -rf "/$p" || echo "/$p"
		fi
	done
}

# clean: puts the guest back as the snapshot found it; prints what is left.
# (What it finds to undo it looks at again afterwards; what it does not
# find is not there: each listing costs seconds in a loaded TCG guest.)
clean()
{
	left=""
	if [ $kind = systemd ]; then
		active_units >$S/units.now
		new=$(comm -13 $S/units $S/units.now | grep -vx 'tm-job.service')
		if [ -n "$new" ]; then
			timeout 60 systemctl stop $new >/dev/null 2>&1
			active_units >$S/units.now
			u=$(comm -13 $S/units $S/units.now | grep -vx 'tm-job.service')
			[ -n "$u" ] && left="$left units: $(echo $u)"
		fi
		systemctl reset-failed >/dev/null 2>&1
	fi
	pids=$(leftover_pids)
	if [ -n "$pids" ]; then
		for _ in $(seq 30); do # (an exit takes its time in a loaded TCG guest)
			kill -9 $pids 2>/dev/null
			sleep 0.1
			pids=$(leftover_pids)
			[ -z "$pids" ] && break
		done
		[ -n "$pids" ] && left="$left processes: $(for p in $pids; do tr '\0' ' ' </proc/$p/cmdline; echo ";"; done | tr -d '\n')"
	fi
	# the job's cgroups, children first (cgroup.kill: what is still in them)
	find $CG -mindepth 1 -type d | sort >$S/cgroups.now
	new=$(comm -13 $S/cgroups $S/cgroups.now)
	[ $kind = systemd ] && new=$(echo "$new" | grep -vE "^$CG/([^/]*\.slice|init\.scope)")
	if [ -n "$new" ]; then
		echo "$new" | sort -r | while read -r d; do
			echo 1 >"$d/cgroup.kill" 2>/dev/null
			for _ in $(seq 50); do
				grep -qx 'populated 0' "$d/cgroup.events" 2>/dev/null && break
				sleep 0.1
			done
			rmdir "$d" 2>/dev/null
		done
		c=$(for d in $new; do [ -d "$d" ] && echo "$d"; done)
		[ -n "$c" ] && left="$left cgroups: $(echo $c)"
	fi
	top_entries >$S/files.now
	new=$(comm -13 $S/files $S/files.now)
	if [ -n "$new" ]; then
		for f in $new; do rm -rf --one-file-system "$f"; done
		f=$(for f in $new; do [ -e "$f" ] || [ -h "$f" ] && echo "$f"; done)
		[ -n "$f" ] && left="$left files: $(echo $f)"
	fi
	if [ $kind = systemd ]; then
		upper_list >$S/upper.now
		if ! cmp -s $S/upper $S/upper.now; then
			changed=$(undo_root)
			[ -n "$changed" ] && left="$left root: $(echo $changed)"
			comm -13 $S/upper $S/upper.now | grep -qE '^\./(etc|usr/lib|lib)/systemd/' &&
				systemctl daemon-reload
			# what was put back from the lower layer is as good as before
			[ -z "$changed" ] && upper_list >$S/upper
		fi
	fi
	echo "$left"
}

run_job()
{
	d=$J/jobs/$1
	limit=$(cat "$d/limit") swap=$(cat "$d/swap")
	[ "$swap" = 1 ] && { swapon /dev/vda || echo "not ok - the pool's swap disk" >>"$d/out"; }
	say "begin $1"
	start=$(date +%s)
	(cd "$d" && exec timeout -k 5 "$limit" /bin/sh ./run) >>"$d/out" 2>&1
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] && [ $(($(date +%s) - start)) -ge "$limit" ] && : >"$d/timedout"
	say "end $1 status $rc"
	[ "$swap" = 1 ] && swapoff /dev/vda
	left=$(clean)
	say "cleaned after $1"
	if [ -n "$left" ]; then
		echo "not ok - ${1%.*} leaves the guest as it found it (the pool cleans up after each script)" >>"$d/out"
		echo "# left:$left" >>"$d/out"
		say "after $1, left:$left; powering off"
		# (before the status: the host must not hand this guest another job)
		rm -f $J/ready
		: >$J/stop
	fi
	sync
	echo $rc >"$d/status.tmp" && mv "$d/status.tmp" "$d/status"
	[ -z "$left" ]
}

snapshot
: >$J/ready
say "ready ($kind)"
idle=0
while [ ! -e $J/stop ] && [ $idle -lt 6000 ]; do
	if [ -s $J/request ]; then
		id=$(cat $J/request)
		rm -f $J/request
		run_job "$id" || break
		idle=0
	else
		sleep 0.1
		idle=$((idle + 1))
	fi
done
say "stopping"
