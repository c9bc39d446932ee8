#!/bin/sh
# build/churn, the demo workload: height lines in order, "done", bad options
# exit 2 with a message, --hold keeps it running, and glibc's per-thread
# arenas really do hold more than one arena (the effect the demo shows).
. "$(dirname "$0")/../lib.sh"
CHURN=$TM_BUILD/churn
# shellcheck disable=SC2086 # $TINY and $args are word lists on purpose
TINY="--threads 2 --objects 2000 --working-set 1 --interval-ms 5"

if [ ! -x "$CHURN" ]; then
	fail churn_built "no $CHURN (make builds it)"
	exit 1
fi

check churn_help sh -c "'$CHURN' --help | grep -q '^examples:'"

# Heights 1..N in order, then done, and nothing else on stdout.
"$CHURN" $TINY --heights 12 --busy 3:8 >"$T/out" 2>"$T/err"
rc=$?
{ seq 1 12 | sed 's/^/height=/'; echo 'done'; } >"$T/want"
test_expect churn_heights_in_order '
	[ $rc -eq 0 ] && cmp -s "$T/out" "$T/want" && [ ! -s "$T/err" ] ||
	test_why "exit $rc; stdout: $(head -3 "$T/out" | tr '\''\n'\'' '\'' '\'')stderr: $(head -2 "$T/err")"'

# bad NAME REGEX ARGS...: exit status exactly 2, the message on stderr.
bad()
{
	name=$1 pattern=$2
	shift 2
	"$CHURN" "$@" >"$T/bout" 2>"$T/berr"
	rc=$?
	test_expect "$name" '
		[ $rc -eq 2 ] && grep -qE "$pattern" "$T/berr" && [ ! -s "$T/bout" ] ||
		test_why "exit $rc, stderr: $(head -2 "$T/berr")"'
}
bad churn_bad_threads 'threads' --threads 0
bad churn_bad_number 'objects.*12x' --objects 12x
bad churn_bad_busy_order 'busy' --busy 5:3
bad churn_bad_busy_form 'busy' --busy 7
bad churn_bad_busy_past_end 'busy.*after the last height' --heights 4 --busy 2:5
bad churn_bad_sizes 'min-size' --min-size 100 --max-size 50
bad churn_bad_seed 'seed' --seed -1
bad churn_unknown_option 'unrecognized|bogus' --bogus
bad churn_missing_value 'requires an argument' --threads
bad churn_extra_argument 'unexpected argument' $TINY extra

# --hold: "done" first, then it keeps running for the hold time.
start=$(date +%s%N)
"$CHURN" $TINY --heights 2 --hold 1 >"$T/hout" 2>&1
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
test_expect churn_hold '
	[ $rc -eq 0 ] && [ "$(tail -n 1 "$T/hout")" = "done" ] && [ $ms -ge 1000 ] ||
	test_why "exit $rc after $ms ms, last line $(tail -n 1 "$T/hout")"'

# The effect itself, small: 4 threads bursting 20k objects (~20 MiB) each.
# glibc keeps one burst per arena; one arena keeps about one burst in all.
if [ -x /usr/bin/time ]; then
	args="--threads 4 --objects 20000 --heights 6 --busy 2:5 --working-set 0 --interval-ms 0"
	/usr/bin/time -f %M -o "$T/g" "$CHURN" $args >/dev/null 2>&1
	MALLOC_ARENA_MAX=1 /usr/bin/time -f %M -o "$T/a" "$CHURN" $args >/dev/null 2>&1
	g=$(tail -n 1 "$T/g") a=$(tail -n 1 "$T/a")
	test_expect churn_arenas_hold_bursts '
		[ "$g" -gt $((a * 2)) ] 2>/dev/null ||
		test_why "max RSS glibc ${g:-?} kB, one arena ${a:-?} kB: want more than 2x"'
else
	skip churn_arenas_hold_bursts "no /usr/bin/time"
fi
finish
