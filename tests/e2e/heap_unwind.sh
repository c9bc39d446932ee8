#!/bin/sh
# Which unwinder the heap shim takes by itself (docs/heap.md, "Which
# unwinder"): a program built without frame pointers (as Debian builds its
# packages) is unwound with its DWARF tables (libunwind), so its sites have
# their callers, and the report and the profile say so; one with frame
# pointers keeps the frame-pointer walk; TIDEMARK_HEAP_UNWIND still decides
# when it is set.
. "$(dirname "$0")/../lib.sh"

P=$TM_BUILD/progs
if [ ! -x "$P/nofp_alloc" ] || [ ! -x "$P/heap_sites" ]; then
	fail heap_unwind_build "missing $P/nofp_alloc or $P/heap_sites (make test-build)"
	finish
fi

# rec NAME PROG [ARGS]: records PROG with a final profile; its report
rec() {
	name=$1
	shift
	TIDEMARK_HEAP_SAMPLE=64K "$TM" record --heap --heap-profile "$T/$name" -i 200ms \
		-o "$T/$name.db" -- "$@" >"$T/$name.out" 2>"$T/$name.err" </dev/null
	"$TM" report -o "$T/$name.db"
}
top() { "$TM" heap top "$T"/$1.*.final.pb.gz -n 3 2>&1; }

rep=$(rec nofp "$P/nofp_alloc")
test_expect heap_unwind_auto_said '
	echo "$rep" | grep -q "^  unwinder    libunwind (no frame pointers in $P/nofp_alloc) (pid [0-9]*)$" ||
	test_why "$(echo "$rep" | grep -E '\''profiles|unwinder'\''; cat "$T/nofp.err")"'
out=$(top nofp)
test_expect heap_unwind_auto_callers '
	echo "$out" | grep -q "leaf_alloc < middle_caller < outer_caller" ||
	test_why "wanted leaf_alloc < middle_caller < outer_caller: $out"'
# the profile itself says it (a pprof comment)
test_expect heap_unwind_profile_comment '
	gzip -dc "$T"/nofp.*.final.pb.gz | grep -aq "tidemark unwinder: libunwind (no frame pointers in $P/nofp_alloc)" ||
	test_why "no '\''tidemark unwinder: libunwind (no frame pointers in $P/nofp_alloc)'\'' in the profile"'

# the variable decides: frame pointers through a program without them give the leaf only
rep=$(TIDEMARK_HEAP_UNWIND=fp rec nofpenv "$P/nofp_alloc")
out=$(top nofpenv)
test_expect heap_unwind_env_decides '
	echo "$rep" | grep -q "^  unwinder    frame pointers (pid" && echo "$out" | grep -q "leaf_alloc *$" ||
	test_why "$(echo "$rep" | grep unwinder) | $out"'

# a program with frame pointers keeps the frame-pointer walk (200 MiB: it
# runs for a second or more, so the recorder lists it; one gone before its
# first look leaves its profile too: heap_between.sh)
rep=$(rec fp "$P/heap_sites" 200)
test_expect heap_unwind_fp_kept '
	echo "$rep" | grep -q "^  unwinder    frame pointers (pid" ||
	test_why "$(echo "$rep" | grep -E '\''profiles|unwinder'\''; tail -3 "$T/fp.err")"'
finish
