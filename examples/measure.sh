#!/bin/sh
# Runs build/churn under three allocator settings, each run in a fresh cgroup
# v1 memory group (optionally with a limit), and prints one line per run:
# exit status, whether the OOM killer fired, peak and held anon memory
# (RssAnon sampled every 100 ms), max RSS from /usr/bin/time, the group's
# max usage, wall time and the last line churn printed.
#
#   examples/measure.sh [-n RUNS] [-l LIMIT_MIB] [-a ARMS] [-- CHURN_ARGS...]
#
#   examples/measure.sh                       one unlimited run per arm
#   examples/measure.sh -n 5 -l 550           five runs per arm under 550 MiB
#   examples/measure.sh -a glibc -- --hold 5  glibc only, five seconds held
#
# Arms: glibc (as shipped), arena1 (MALLOC_ARENA_MAX=1), jemalloc (LD_PRELOAD).
# "held" is the last sample before churn printed "done" (what it holds after
# its last height; with --hold, during the hold); "-" when it failed.  Needs root and the v1
# memory controller at /sys/fs/cgroup/memory.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CHURN=${CHURN:-$ROOT/build/churn}
JEMALLOC=${JEMALLOC:-/usr/lib/x86_64-linux-gnu/libjemalloc.so.2}
CGROOT=${CGROOT:-/sys/fs/cgroup/memory}
runs=1 limit='' arms="glibc arena1 jemalloc"

usage()
{
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
}

while getopts n:l:a:h opt; do
	case $opt in
	n) runs=$OPTARG ;;
	l) limit=$OPTARG ;;
	a) arms=$OPTARG ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
case $runs in '' | *[!0-9]*) echo "measure.sh: -n wants a number" >&2; exit 2 ;; esac
case $limit in *[!0-9]*) echo "measure.sh: -l wants MiB" >&2; exit 2 ;; esac
[ -x "$CHURN" ] || { echo "measure.sh: no $CHURN (run make)" >&2; exit 1; }
[ -w "$CGROOT" ] || { echo "measure.sh: cannot write $CGROOT (root, cgroup v1?)" >&2; exit 1; }

T=$(mktemp -d /tmp/churn-measure.XXXXXX)
cg=
cleanup()
{
	[ -n "$cg" ] && [ -d "$cg" ] && rmdir "$cg" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

arm_env()
{
	case $1 in
	glibc) echo "" ;;
	arena1) echo "MALLOC_ARENA_MAX=1" ;;
	jemalloc) echo "LD_PRELOAD=$JEMALLOC" ;;
	*) echo "measure.sh: unknown arm '$1'" >&2; return 1 ;;
	esac
}

rss_anon_kb()
{
	while read -r key val _; do
		[ "$key" = "RssAnon:" ] && { echo "$val"; return 0; }
	done <"/proc/$1/status"
	return 1
}

mib() { [ "$1" = - ] && echo - || echo $(($1 / 1024)); }

# run_one ARM N CHURN_ARGS...: one run in a fresh group; prints one line.
run_one()
{
	arm=$1 n=$2
	shift 2
	env_set=$(arm_env "$arm") || return 1
	cg=$CGROOT/churn-measure-$$-$arm-$n
	mkdir "$cg" || return 1
	[ -n "$limit" ] && echo $((limit * 1024 * 1024)) >"$cg/memory.limit_in_bytes"
	start=$(date +%s.%N)
	# The shell joins the group, then becomes /usr/bin/time, which runs churn.
	# shellcheck disable=SC2086 # $env_set is empty or one VAR=value
	sh -c 'echo $$ >"$1/cgroup.procs"; shift; exec "$@"' sh "$cg" \
		/usr/bin/time -f '%M' -o "$T/time" env $env_set "$CHURN" "$@" >"$T/out" 2>"$T/err" &
	tpid=$!
	pid=
	while [ -z "$pid" ] && kill -0 $tpid 2>/dev/null; do
		pid=$(pgrep -P $tpid -x churn)
		[ -n "$pid" ] || sleep 0.01
	done
	peak=0 held=-
	while [ -n "$pid" ] && r=$(rss_anon_kb "$pid" 2>/dev/null); do
		[ "$r" -gt "$peak" ] && peak=$r
		# Sampled before "done" was printed: not yet tearing down.
		[ "$(tail -n 1 "$T/out")" = "done" ] || held=$r
		sleep 0.1
	done
	wait $tpid
	rc=$?
	[ $rc -eq 0 ] || held=-
	end=$(date +%s.%N)
	oom=$(awk '$1 == "oom_kill" {print $2}' "$cg/memory.oom_control")
	maxuse=$(($(cat "$cg/memory.max_usage_in_bytes") / 1048576))
	maxrss=$(tail -n 1 "$T/time")
	rmdir "$cg" && cg=
	printf '%-9s %3s %4s %8s %8s %8s %8s %8.1f  %s\n' "$arm" "$rc" "${oom:-?}" \
		"$(mib "$peak")" "$(mib "$held")" "$(mib "$maxrss")" "$maxuse" \
		"$(awk "BEGIN {print $end - $start}")" "$(tail -n 1 "$T/out")"
}

echo "# churn $* ; limit ${limit:-none} MiB; sizes in MiB"
printf '%-9s %3s %4s %8s %8s %8s %8s %8s  %s\n' arm rc oom peak held maxrss cgmax wall_s last
for arm in $arms; do
	i=1
	while [ "$i" -le "$runs" ]; do
		run_one "$arm" "$i" "$@" || exit 1
		i=$((i + 1))
	done
done
