# Helpers for the tests that run in the cgroup v2 guest (scripts/vm/).
# Source it instead of tests/lib.sh: on the host, it runs the calling
# script again inside a guest (scripts/vm/run-in-guest: a fresh one, or
# under tests/run.sh the pooled guest of its kind, put back after each
# script as the script found it) and exits with its status; in the guest it sources tests/lib.sh and checks that
# the guest is what the tests assume (cgroup2 alone, memory controller).
# A script sets, before sourcing it: V2_TIMEOUT (seconds, default 240),
# V2_SWAP_MIB (a swap disk; default none), V2_SYSTEMD=1 (boot the guest
# with systemd as PID 1: run-in-guest --systemd; the script then runs as
# tm-job.service and may start units of its own).
if [ -z "${TM_IN_GUEST:-}" ]; then
	[ "${V2_SYSTEMD:-0}" = 1 ] && set -- --systemd "$0" "$@" || set -- "$0" "$@"
	exec sh "$(dirname "$0")/../../scripts/vm/run-in-guest" -t "${V2_TIMEOUT:-240}" \
		-s "${V2_SWAP_MIB:-0}" "$@"
fi
. "$(dirname "$0")/../lib.sh"
CG=/sys/fs/cgroup
P=$TM_BUILD/progs/alloc_touch
cd "$T" || exit 1
if ! grep -qw memory $CG/cgroup.controllers 2>/dev/null || grep -q ' cgroup ' /proc/mounts; then
	fail "the guest runs cgroup v2 alone with the memory controller" \
		"controllers: $(cat $CG/cgroup.controllers 2>&1); $(grep cgroup /proc/mounts)"
	finish
fi

# last_run DB: the id of the newest run.
last_run() { sql "$1" "select max(id) from runs"; }

# fig DB RUN NAME: one figure of the run (`tidemark report --csv`, whose
# columns are the figures of `report --json`), as an integer (empty when
# null).  (awk, not python3: starting python3 takes seconds in the guest.)
fig()
{
	"$TM" report -o "$1" --csv "$2" | awk -F, -v k="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i }
		NR == 2 && c { v = $c; if (v != "" && v !~ /^-?[0-9]+$/) v = sprintf("%.0f", int(v)); print v; found = 1 }
		END { if (!found) { print "fig: no figure " k > "/dev/stderr"; exit 1 } }'
}

# series DB RUN COLUMN: that column of the run's samples, one a line
# (empty lines where the metric is absent).
series()
{
	"$TM" report -o "$1" --series "$2" | awk -F, -v k="$3" '
		NR == 1 { if (index($0, "\"")) bad = 1; for (i = 1; i <= NF; i++) if ($i == k) c = i }
		NR == 1 && (bad || !c) { print "series: no plain column " k > "/dev/stderr"; exit 1 }
		NR > 1 { print $c }'
}

# kv FILE KEY: the value of KEY in a flat-keyed cgroup file (memory.events).
kv() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# psi_total FILE some|full: the total= of a pressure file, in microseconds.
psi_total() { awk -v k="$2" '$1 == k { sub("total=", "", $5); print $5 }' "$1"; }

# is N OP M NAME [DETAIL]: ok when the integer test holds.
is()
{
	if [ -n "$1" ] && [ -n "$3" ] && [ "$1" "$2" "$3" ]; then
		ok "$4"
	else
		fail "$4" "got '$1' $2 '$3'${5:+; $5}"
	fi
}

# is_null VALUE NAME: ok when VALUE is empty (a null figure, a missing value).
is_null() { [ -z "$1" ] && ok "$2" || fail "$2" "got '$1'"; }
