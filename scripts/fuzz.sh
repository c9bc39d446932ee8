#!/bin/sh
# Runs one libFuzzer target over its seeds, then for SECONDS more.
#   scripts/fuzz.sh NAME SECONDS      (NAME: one of FUZZ_TARGETS in mk/fuzz.mk)
# Seeds: fuzz/corpus/NAME/ when present (with inputs that once crashed); kern's are made from the fixture
# files under tests/fixtures, one copy per parser (the first byte picks it);
# ini's are tests/fixtures/bench/*.ini.  New inputs the fuzzer finds go to
# build/fuzz/corpus-NAME (not committed).  A crash leaves its input in
# build/fuzz/ and exits non-zero.
set -u
cd "$(dirname "$0")/.." || exit 2
name=${1:?usage: scripts/fuzz.sh NAME SECONDS}
secs=${2:-60}
B=${B:-build}
bin=$B/fuzz/fuzz_$name
[ -x "$bin" ] || { echo "fuzz: no $bin (make fuzz-build)" >&2; exit 2; }
corpus=$B/fuzz/corpus-$name
mkdir -p "$corpus"
case $name in
kern)
	# the first byte picks the parser modulo their count (fuzz/fuzz_kern.c,
	# at most 32): each fixture file once for each of 32 first bytes
	i=0
	for f in $(find tests/fixtures/procfs tests/fixtures/cgroup-v1 tests/fixtures/cgroup-v2 \
		tests/fixtures/hybrid -type f | sort); do
		p=0
		while [ $p -lt 32 ]; do
			{ printf "\\$(printf %03o $p)"; cat "$f"; } >"$corpus/seed-$i-$p"
			p=$((p + 1))
		done
		i=$((i + 1))
	done
	;;
ini) cp tests/fixtures/bench/*.ini "$corpus/" ;;
runtime)
	# the first byte picks the parser (fuzz/fuzz_runtime.c): 0 hsperfdata
	i=0
	for f in tests/fixtures/hsperf/*.hsperf; do
		{ printf '\000'; cat "$f"; } >"$corpus/seed-hsperf-$i"
		i=$((i + 1))
	done
	printf '\001%s\n' '7f00-7f08 rw-s 00000000 fd:01 4 /tmp/hsperfdata_u/7' >"$corpus/seed-maps"
	printf '\002%s\n' '# TYPE x gauge' 'x{a="b\\"c",le="+Inf"} 1.5e3 1700000000000' 'y NaN' >"$corpus/seed-prom"
	for f in tests/fixtures/runtime/*.txt; do
		head -3 "$f" | tail -1 | { printf '\003'; cat; } >"$corpus/seed-gc-$(basename "$f")"
	done
	for f in tests/fixtures/jvmhisto/*.txt; do
		{ printf '\005'; cat "$f"; } >"$corpus/seed-histo-$(basename "$f")"
	done
	;;
esac
# committed seeds (inputs that once crashed a parser among them)
[ -d "fuzz/corpus/$name" ] && cp "fuzz/corpus/$name"/* "$corpus/"
dict=
[ -r "fuzz/$name.dict" ] && dict=-dict=fuzz/$name.dict
# -close_fd_mask=2: the parsers' error messages would flood the terminal
exec "$bin" -max_total_time="$secs" -max_len=65536 -close_fd_mask=2 $dict \
	-artifact_prefix="$B/fuzz/$name-" "$corpus"
