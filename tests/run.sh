#!/bin/sh
# Runs every test and ends with one line "N passed, N failed, N skipped".
#
#   tests/run.sh            everything: unit (plain, then ASan+UBSan), end-to-end
#   tests/run.sh unit       only the unit tests
#   tests/run.sh e2e [PAT]  only end-to-end tests whose file name matches PAT
#   tests/run.sh v2 [PAT]   only the tests in the cgroup v2 guest (tests/v2/,
#                           in one pooled guest of each kind: scripts/vm/run-in-guest)
#
# Every test speaks TAP ("ok - name", "not ok - name", "ok - name # SKIP why");
# cmocka is told to do so too.  A test binary or script that dies without
# reporting counts as one failure.
set -u
# text output wraps at $COLUMNS, else 80: the tests pin it unwrapped (the
# ones of the width set their own; tests/lib.sh says the same)
COLUMNS=1000
export COLUMNS
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
B=${B:-build}
LOG=$B/test-logs
mkdir -p "$LOG"
what=${1:-all}
pat=${2:-}
results=$LOG/results.tap
: >"$results"
failures=$LOG/failures.txt # the failures with their "# " lines, for the summary
: >"$failures"
started=$LOG/started
: >"$started" # what this run made is newer than this file

# run_tap NAME TIMEOUT CMD...: runs CMD, keeps its TAP lines, counts a crash.
run_tap()
{
	name=$1 limit=$2
	shift 2
	out=$LOG/$(echo "$name" | tr '/ ' '__').log
	timeout -k 10 "$limit" "$@" >"$out" 2>&1
	rc=$?
	grep -E '^(not )?ok( |$)' "$out" | sed "s|^|[$name] |" >>"$results"
	with_why "$name" <"$out" >"$out.tap"
	cat "$out.tap"
	grep -vE '^\[[^]]*\] ok( |$)' "$out.tap" >>"$failures"
	rm -f "$out.tap"
	if [ $rc -ne 0 ] && ! grep -qE '^not ok' "$out"; then
		echo "not ok - $name exited with status $rc (see $out)" | tee -a "$results" "$failures"
	fi
}

# with_why NAME <TAP: the TAP lines, each failure with the first 15 of
# the "# " lines that follow it (what the test compared: CI shows the
# end of this run's output, and the summary there repeats them)
with_why()
{
	awk -v n="$1" '
		/^(not )?ok( |$)/ { why = /^not ok/; k = 0; print "[" n "] " $0; next }
		why && /^[ \t]*#/ && $0 != "# tidemark-test-finished" && k++ < 15 { print "[" n "]     " $0; next }
		{ why = 0 }'
}

if [ "$what" = all ] || [ "$what" = unit ]; then
	export CMOCKA_MESSAGE_OUTPUT=TAP
	for t in "$B"/tests/test_*; do
		[ -x "$t" ] && run_tap "unit/$(basename "$t")" 300 "$t"
	done
	for t in "$B"/asan/tests/test_*; do
		[ -x "$t" ] && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
			run_tap "asan/$(basename "$t")" 600 "$t"
	done
	unset CMOCKA_MESSAGE_OUTPUT
fi

if [ "$what" = all ] || [ "$what" = e2e ]; then
	export TM="$ROOT/$B/tidemark" TM_ROOT="$ROOT" TM_BUILD="$ROOT/$B"
	for t in tests/e2e/*.sh; do
		[ -f "$t" ] || continue
		case "$t" in *"$pat"*) ;; *) continue ;; esac
		run_tap "e2e/$(basename "$t" .sh)" 1200 sh "$t"
		if ! grep -qx '# tidemark-test-finished' "$out"; then
			echo "not ok - e2e/$(basename "$t" .sh) stopped before its end (no 'finish'; see $out)" |
				tee -a "$results" "$failures"
		fi
	done
fi

# tests/v2: each script runs in the cgroup v2 guest (scripts/vm/): in a
# pooled guest of its kind, booted once for all of them (run-in-guest with
# TM_VM_POOL=1: the plain guest's scripts, then those that set V2_SYSTEMD=1
# in the systemd guest), each with its own limit and log, the guest put
# back as it found it after each; it prints its part of the guest's console
# when it fails.
if [ "$what" = all ] || [ "$what" = v2 ]; then
	export TM="$ROOT/$B/tidemark" TM_ROOT="$ROOT" TM_BUILD="$ROOT/$B" TM_VM_POOL=1
	plain="" sysd=""
	for t in tests/v2/*.sh; do
		[ "$(basename "$t")" = lib.sh ] && continue
		case "$t" in *"$pat"*) ;; *) continue ;; esac
		if grep -q '^V2_SYSTEMD=1' "$t"; then sysd="$sysd $t"; else plain="$plain $t"; fi
	done
	# the pools stop on every way out: the end, a failure, a signal
	stop_pools() { sh scripts/vm/run-in-guest --pool-stop; sh scripts/vm/run-in-guest --pool-stop --systemd; }
	trap 'stop_pools' EXIT
	trap 'exit 130' INT TERM
	for kind in plain systemd; do
		if [ $kind = plain ]; then list=$plain opt=""; else list=$sysd opt=--systemd; fi
		[ -n "$list" ] || continue
		# (a pool that does not boot: each script then says so as its failure)
		sh scripts/vm/run-in-guest --pool-start $opt >"$LOG/v2_pool_$kind.log" 2>&1
		for t in $list; do
			run_tap "v2/$(basename "$t" .sh)" 600 env -u TM_IN_GUEST sh "$t"
			if ! grep -qx '# tidemark-test-finished' "$out"; then
				echo "not ok - v2/$(basename "$t" .sh) stopped before its end (no 'finish'; see $out)" |
					tee -a "$results" "$failures"
			fi
		done
		sh scripts/vm/run-in-guest --pool-stop $opt
	done
	stop_pools
	trap - EXIT INT TERM
fi

# The tests' shimmed processes keep their heap regions after exit (for a
# final read); the shim reaps them a minute later. Leave none behind.
for f in /dev/shm/tidemark-heap-*/*; do
	[ -f "$f" ] || continue
	pid=${f##*/}
	kill -0 "$pid" 2>/dev/null || rm -f "$f"
done

# Whatever failed, this run leaves nothing behind: no guest (a qemu of this
# build directory), no process of this build's programs, no cgroup of a
# recorder that is gone (tidemark-PID-N under a tidemark/ parent, made
# since this run began), no mount in a test's temporary directory.
leftovers()
{
	vm=$ROOT/$B/vm
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[ "$pid" = $$ ] && continue
		cmd=$({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null) || continue
		exe=$(readlink "$p/exe" 2>/dev/null) || exe=""
		case "$exe" in */qemu-system-*) case "$cmd" in *"$vm/"*) echo "qemu $pid: $cmd" ;; esac ;; esac
		case "$exe" in "$ROOT/$B/"*) echo "process $pid: $cmd" ;; esac
	done
	find /sys/fs/cgroup -maxdepth 3 -type d -path '*/tidemark/tidemark-*' -newer "$started" 2>/dev/null |
		while read -r d; do
			pid=${d##*/tidemark-}
			pid=${pid%%-*}
			case "$pid" in '' | *[!0-9]*) continue ;; esac
			kill -0 "$pid" 2>/dev/null || echo "cgroup $d (its recorder $pid is gone)"
		done
	awk '$5 ~ "^/tmp/tidemark-test\\." { print "mount " $5 }' /proc/self/mountinfo
}
left=$(leftovers)
if [ -z "$left" ]; then
	echo "[run] ok - no leftovers (guests, processes, cgroups, mounts)" | tee -a "$results"
else
	echo "[run] not ok - no leftovers (guests, processes, cgroups, mounts)" | tee -a "$results" "$failures"
	echo "$left" | sed 's/^/[run]     # /' | tee -a "$failures"
fi

passed=$(grep -E '\] ok' "$results" | grep -vc '# SKIP')
skipped=$(grep -cE '\] ok.*# SKIP' "$results")
failed=$(grep -cE '\] not ok|^not ok' "$results")
if [ "$failed" -gt 0 ]; then
	echo
	echo "failures:"
	sed 's/^/  /' "$failures"
fi
echo
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
