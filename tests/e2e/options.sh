#!/bin/sh
# One option table: an option refused on the command line is refused in an
# experiment file too, for the same reason; one size grammar everywhere;
# bad usage exits 2 naming the option, in every command.
. "$(dirname "$0")/../lib.sh"
DB=$T/o.db

# reason CMD...: the exit status and the error after the option's name
# ("'0': expected a count from 1 to 1000"), without "FILE:LINE: " and the
# name itself (--runs or Runs).
reason()
{
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	echo "$rc $(echo "$out" | grep 'error:' | head -1 |
		sed -e 's/^tidemark: error: //' -e 's/^[^ ]*:[0-9]*: //' -e 's/^[^ ]* //')"
}

# same NAME FLAG-ARGS KEY=VALUE: the command line and the file refuse
# alike, exit 2, with the same reason.
same()
{
	name=$1 flag=$2 kv=$3
	printf '[bench]\n%s\n[glibc]\n' "$kv" >"$T/x.ini"
	# shellcheck disable=SC2086
	cli=$(reason "$TM" bench -o "$DB" --arm glibc $flag --dry-run -- true)
	file=$(reason "$TM" bench -o "$DB" -f "$T/x.ini" --dry-run -- true)
	test_expect "$name: refused alike ($cli)" '
		case $cli in
		"2 "?*) [ "$cli" = "$file" ] ;;
		*) false ;;
		esac || test_why "command line: $cli; file: $file"'
}

same "Order=random" "--order random" "Order=random"
same "Runs=0" "--runs 0" "Runs=0"
same "Runs=5000" "--runs 5000" "Runs=5000"
same "Interval=10ms" "--interval 10ms" "Interval=10ms"
same "Warmup=101" "--warmup 101" "Warmup=101"
same "MemoryMax=lots" "--memory-max lots" "MemoryMax=lots"
same "UntilProgress=soon" "--until-progress soon" "UntilProgress=soon"
same "Timeout=forever" "--timeout forever" "Timeout=forever"
same "MemoryMax=1K (below the floor)" "--memory-max 1K" "MemoryMax=1K"
same "Units=0" "--units 0" "Units=0"

# what the file accepts, it means: Order=shuffle shuffles (with its seed)
printf '[bench]\nOrder=shuffle\nSeed=7\nRuns=2\n[glibc]\n[arena1]\n' >"$T/s.ini"
out=$("$TM" bench -o "$DB" -f "$T/s.ini" --dry-run -- true 2>&1)
rc=$?
test_expect "Order=shuffle is accepted" '[ $rc -eq 0 ] || test_why "$out"'

# the command line wins over the file
printf '[bench]\nRuns=0\n[glibc]\n' >"$T/r.ini"
out=$("$TM" bench -o "$DB" -f "$T/r.ini" --runs 2 --dry-run -- true 2>&1)
test_expect "a bad value in the file is refused even when the command line sets it" '
	echo "$out" | grep -q "Runs '\''0'\''" || test_why "$out"'

# the file's values hold unless the command line says otherwise: Runs=3 in
# the file, --runs 1 on the command line; Interval=100ms from the file
printf '[bench]\nRuns=3\nInterval=100ms\nGrace=2s\n[glibc]\n' >"$T/o.ini"
if "$TM" bench -o "$T/over.db" -f "$T/o.ini" --runs 1 -- true >/dev/null 2>"$T/err"; then
	n=$(sql "$T/over.db" "select count(*) from runs")
	spec=$(sql "$T/over.db" "select spec_json from benches")
	test_expect "the command line wins over the file, the file's other keys hold" '
		[ "$n" = 1 ] && echo "$spec" | grep -q '\''"interval_usec":100000'\'' &&
		echo "$spec" | grep -q '\''"runs":1'\'' ||
		test_why "$n runs; $spec"'
else
	fail "the command line wins over the file, the file's other keys hold" "$(cat "$T/err")"
fi

# one size grammar, one message: record, bench, [bench], an arm's section, --arm, heap run
want="'1.5x': expected a size like 400M, 1.5G, 512KiB or max"
printf '[bench]\nMemoryHigh=1.5x\n[glibc]\n' >"$T/b.ini"
printf '[glibc]\nMemorySwapMax=1.5x\n' >"$T/a.ini"
n=0
for cmd in "record -o $DB --memory-max 1.5x -- true" \
	"bench -o $DB --arm glibc --swap-max 1.5x --dry-run -- true" \
	"bench -o $DB -f $T/b.ini --dry-run -- true" \
	"bench -o $DB -f $T/a.ini --dry-run -- true" \
	"bench -o $DB --arm g:MemoryMax=1.5x --dry-run -- true" \
	"heap run --sample 1.5x -- true"; do
	# shellcheck disable=SC2086
	out=$("$TM" $cmd 2>&1)
	rc=$?
	if [ $rc -eq 2 ] && echo "$out" | grep -qF "$want"; then
		n=$((n + 1))
	else
		fail "one message for a bad size: tidemark $cmd" "exit $rc: $out"
	fi
done
test_expect "one message for a bad size in all six places" '[ $n -eq 6 ] || test_why "$n of 6"'

# and one meaning for a good one: 1.5M is 1572864 bytes for the tool and the shim
out=$("$TM" bench -o "$DB" --arm glibc --memory-max 1.5M --dry-run -- true 2>&1)
test_expect "--memory-max 1.5M is 1572864 bytes" '
	echo "$out" | grep -q "MemoryMax=1572864" || test_why "$out"'
SHIM=$TM_BUILD/libtidemark-heap.so
if [ -f "$SHIM" ]; then
	check "heap run --sample 1.5M is accepted" "$TM" heap run --sample 1.5M -o "$T/p.pb.gz" -- ls /
	# the shim reads 1.5M as the tool does (it was 512K: its own parser refused the fraction)
	env LD_PRELOAD="$SHIM" TIDEMARK_HEAP_KEEP=1 TIDEMARK_HEAP_SAMPLE=1.5M sh -c 'echo $$ >"$0"' "$T/pid"
	pid=$(cat "$T/pid")
	out=$("$TM" heap stats "$pid" --json 2>&1)
	rm -f "/dev/shm/tidemark-heap-$(id -u)/$pid"
	test_expect "TIDEMARK_HEAP_SAMPLE=1.5M: the shim samples every 1572864 bytes" '
		echo "$out" | grep -q '\''"sample_mean_bytes":1572864'\'' || test_why "$out"'
	env LD_PRELOAD="$SHIM" TIDEMARK_HEAP_SAMPLE=lots sh -c : 2>"$T/err"
	test_expect "the shim says so when TIDEMARK_HEAP_SAMPLE is not a size" '
		grep -q "TIDEMARK_HEAP_SAMPLE is not a size" "$T/err" || test_why "$(cat "$T/err")"'
else
	skip "heap run --sample 1.5M" "no $SHIM (make builds it)"
fi

# bad usage: exit 2 and a message naming the option, in every command
usage_error()
{
	name=$1 opt=$2
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	test_expect "$name: exit 2 naming $opt" '
		[ $rc -eq 2 ] && echo "$out" | grep -qF -- "$opt" ||
		test_why "exit $rc: $(echo "$out" | head -2)"'
}
usage_error "record --interval 0" "--interval" "$TM" record -o "$DB" --interval 0 -- true
usage_error "record --interval abc" "--interval" "$TM" record -o "$DB" --interval abc -- true
usage_error "record --heap-every without a profile" "--heap-every" "$TM" record -o "$DB" --heap-every 5s -- true
usage_error "record --until-progress without a regex" "--until-progress" "$TM" record -o "$DB" --until-progress 3 -- true
usage_error "record: a value missing" "--interval" "$TM" record -o "$DB" --interval
usage_error "record: an unknown option" "--bogus" "$TM" record --bogus -- true
usage_error "bench --runs x" "--runs" "$TM" bench -o "$DB" --arm glibc --runs x -- true
usage_error "bench: an unknown option" "--bogus" "$TM" bench --bogus
usage_error "report --bench x" "--bench" "$TM" report -o "$DB" --bench x
usage_error "report: an unknown option" "--bogus" "$TM" report --bogus
usage_error "report --json --csv" "--json, --csv" "$TM" report -o "$DB" --json --csv
usage_error "runs: an unknown option" "--bogus" "$TM" runs --bogus
usage_error "mark --to x" "--to" "$TM" mark --to x hello
usage_error "mark without TEXT" "TEXT" "$TM" mark
usage_error "runs with an operand" "'extra'" "$TM" runs -o "$DB" extra
usage_error "heap --every x" "--every" "$TM" heap 1 --every x
usage_error "heap run --sample x" "--sample" "$TM" heap run --sample x -- true
usage_error "serve --max-body x" "--max-body" "$TM" serve --max-body x
usage_error "serve: an unknown option" "--bogus" "$TM" serve --bogus
usage_error "doctor: an unknown option" "--bogus" "$TM" doctor --bogus
usage_error "doctor --root without a value" "--root" "$TM" doctor --root
usage_error "hprof: an unknown option" "--bogus" "$TM" hprof top --bogus x
usage_error "guard: an unknown option" "--bogus" "$TM" guard --bogus
usage_error "guard --when x" "--when" "$TM" guard -o "$DB" --when 'anon>90%'
usage_error "guard --signal x" "--signal" "$TM" guard -o "$DB" --when 'anon>1G' --signal NOPE
usage_error "guard --restart without --unit" "--unit" "$TM" guard -o "$DB" --when 'anon>1G' --restart
finish
