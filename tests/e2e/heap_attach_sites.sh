#!/bin/sh
# Sites after an attach (docs/heap.md "Sites after an attach"): a running
# program, one built with frame pointers and one without (as distributions
# build), allocates from two call sites, 3/4 and 1/4 of the bytes, after
# `heap attach`; `tidemark heap PID` names both sites with their callers and
# their shares within 5 points, says which unwinder it used (frame pointers,
# or libunwind for the one without) and since when the sites count; after
# `heap detach` nothing more is sampled; the programs' outputs and exit codes
# are those of a run without tidemark.  Then the recorder's own profile of an
# attached process (`record -p PID --heap=sites`).
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs
if [ ! -r "$TM_BUILD/libtidemark-heap-attach.so" ] || [ ! -x "$P/heap_attach_sites" ] ||
	[ ! -x "$P/nofp_attach_sites" ]; then
	fail attach_sites_build "missing the agent or $P/*attach_sites (make test-build)"
	finish
fi
T=$(mktemp -d /tmp/tm-attach-sites.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
ROUNDS=100000
TOL=5 # percentage points: about 6000 samples at 64 KiB, one standard deviation 0.6
there() { [ -e "$1" ]; }

# alloc_of FILE PATTERN: the allocated bytes of the collapsed lines matching PATTERN
alloc_of() { grep -E "$2" "$1" | awk '{s += $NF} END {printf "%d\n", s}'; }

# run NAME PROG UNWINDER_RE: the whole check for one program
run() {
	name=$1 prog=$2 unw=$3 s=$T/$1
	touch "$T/$name-ref.go" "$T/$name-ref.end"
	ref=$("$prog" $ROUNDS "$T/$name-ref")
	"$prog" $ROUNDS "$s" >"$T/$name.out" &
	pid=$!
	wait_for 10 there "$s.ready"
	out=$("$TM" heap attach "$pid" --sample 64K 2>&1)
	test_expect "${name}_attached" '
		echo "$out" | grep -q "attached to $pid: .*sites sampled every 64 KiB on average" ||
		test_why "$out"'
	touch "$s.go"
	wait_for 60 there "$s.done1"
	"$TM" heap "$pid" --collapsed --alloc -o "$T/$name.txt" 2>"$T/$name.err"
	"$TM" heap "$pid" -o "$T/$name.pb.gz" 2>"$T/$name.note"
	big=$(alloc_of "$T/$name.txt" ";caller_big;site_big ")
	small=$(alloc_of "$T/$name.txt" ";caller_small;site_small ")
	all=$(alloc_of "$T/$name.txt" ".")
	share=$(((big * 100 + (big + small) / 2) / (big + small + 1)))
	test_expect "${name}_shares" '
		[ "$big" -gt 0 ] && [ "$small" -gt 0 ] && [ $((share - 75)) -le $TOL ] &&
		[ $((75 - share)) -le $TOL ] ||
		test_why "site_big $share % of the two (75 +- $TOL): big $big small $small of $all;" \
			"$(sort -k2 -n "$T/$name.txt" | tail -4; cat "$T/$name.err")"'
	# the two sites are nearly all that came after the attach (pre_site's
	# churn until `go` is the rest)
	test_expect "${name}_sites_are_those" '
		[ $(((big + small) * 100)) -ge $((all * 90)) ] ||
		test_why "the two sites $((big + small)) of $all bytes"'
	want="unwinder $unw; sites since the attach at 20[0-9-]* [0-9:]* UTC"
	test_expect "${name}_unwinder_said" '
		grep -q "$want" "$T/$name.note" &&
		gzip -dc "$T/$name.pb.gz" | grep -aq "tidemark unwinder: $unw; sites since the attach at" ||
		test_why "wanted '\''$want'\'' in the note and the profile: $(cat "$T/$name.note")"'
	"$TM" heap detach "$pid" >"$T/$name.detach" 2>&1
	touch "$s.more"
	wait_for 60 there "$s.done2"
	"$TM" heap "$pid" --collapsed --alloc -o "$T/$name.after.txt" 2>"$T/$name.after.err"
	"$TM" heap "$pid" -o "$T/$name.after.pb.gz" 2>"$T/$name.after.note"
	after=$(alloc_of "$T/$name.after.txt" ";site_after ")
	all2=$(alloc_of "$T/$name.after.txt" ".")
	test_expect "${name}_detach_stops_sampling" '
		[ "$after" = 0 ] && [ "$all2" = "$all" ] &&
		grep -q "sites since the attach at .* until the detach" "$T/$name.after.note" ||
		test_why "site_after $after, total $all then $all2;" \
			"$(cat "$T/$name.detach" "$T/$name.after.err" "$T/$name.after.note")"'
	touch "$s.end"
	wait "$pid"
	rc=$?
	check_eq "${name}_output" "$(cat "$T/$name.out") rc=$rc" "$ref rc=0"
}

run fp "$P/heap_attach_sites" "frame pointers"
run nofp "$P/nofp_attach_sites" "libunwind (no frame pointers in $P/nofp_attach_sites)"

# the recorder: attaches with sites, writes the final profile of what came after
s=$T/rec
"$P/heap_attach_sites" $ROUNDS "$s" >"$T/rec.out" &
pid=$!
wait_for 10 there "$s.ready"
TIDEMARK_HEAP_SAMPLE=64K "$TM" record -p "$pid" --heap=sites --heap-profile "$T/rec" -i 200ms \
	-o "$T/rec.db" >/dev/null 2>"$T/rec.err" &
rpid=$!
wait_for 20 grep -q "attached the heap agent" "$T/rec.err"
touch "$s.go"
wait_for 60 there "$s.done1"
sleep 0.5
touch "$s.end"
wait "$pid"
wait "$rpid"
rep=$("$TM" report -o "$T/rec.db" 2>&1)
top=$("$TM" heap top "$T"/rec.*.final.pb.gz -n 3 2>&1)
test_expect record_attach_sites '
	echo "$rep" | grep -q "^  unwinder    frame pointers; sites since the attach at .* UTC" &&
	echo "$top" | grep -q "site_big < caller_big" && echo "$top" | grep -q "site_small < caller_small" ||
	test_why "$(echo "$rep" | grep -E "unwinder|profiles"; echo "$top"; cat "$T/rec.err")"'
finish
