#!/bin/sh
# Heap shim overhead: ns per malloc/free pair (bench/heap/heap_bench.c),
# every arm side by side in the same run, ROUNDS interleaved rounds, median.
#   sh bench/heap/run.sh [PAIRS] [ROUNDS] [BLOCKS [touch]]   (after `make all heap-progs`)
# REF=GIT-REV adds the counting arms of the shim built from that revision
# (+count@ref), to compare the fast path before and after a change.
# ARMS_ONLY="a b ..." runs only those arms (their bases are added).
# BLOCKS: working set per thread (default 4096); touch: the benchmark writes
# the first word of every block it gets, as a program does.
# Prints a markdown table for bench/heap/README.md.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${B:-build}
BIN=$B/progs/heap_bench
SHIM=$PWD/$B/libtidemark-heap.so
SITES=$PWD/$B/libtidemark-heap-sites.so
LIB=/usr/lib/x86_64-linux-gnu
JE=$LIB/libjemalloc.so.2
NAIVE=$PWD/$B/bench/libnaive-shim.so # reference: per-thread counters + malloc_usable_size
FORWARD=$PWD/$B/bench/libforward-shim.so # reference: interposes, counts nothing
PAIRS=${1:-3000000}
ROUNDS=${2:-5}
BLOCKS=${3:-4096}
TOUCH=${4:-}
SLOW=$((PAIRS / 20)) # heaptrack and massif: fewer pairs, same per-pair figure
OUT=$(mktemp -d /tmp/tidemark-heapbench.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
make -s -C "$PWD" all heap-progs >/dev/null 2>&1 || make -s -C "$PWD" heap-progs "$B/libtidemark-heap.so" >/dev/null
[ -x "$BIN" ] && [ -r "$SHIM" ] && [ -r "$SITES" ] && [ -r "$NAIVE" ] && [ -r "$FORWARD" ] ||
	{ echo "build first: make all heap-progs" >&2; exit 1; }

REFSHIM=
if [ -n "${REF:-}" ]; then
	mkdir -p "$OUT/ref"
	git archive "$REF" shim include | tar -x -C "$OUT/ref" || exit 1
	REFSHIM=$OUT/ref/libtidemark-heap.so
	(cd "$OUT/ref" && ${CC:-cc} -std=gnu17 -D_GNU_SOURCE -Iinclude -O2 -g -fPIC -fvisibility=hidden \
		-ftls-model=initial-exec -fno-omit-frame-pointer -fno-builtin -fno-stack-protector \
		-fno-semantic-interposition -fexceptions -shared -Wl,-z,now -o libtidemark-heap.so \
		shim/*.c -ldl -lpthread) || exit 1
fi

# arm NAME THREADS: one run, appends ns/pair to $OUT/NAME.THREADS
arm()
{
	name=$1 th=$2
	set -- "$th" "$PAIRS" "$BLOCKS" $TOUCH
	case $name in
	glibc) v=$("$BIN" "$@") ;;
	glibc+forward) v=$(LD_PRELOAD=$FORWARD "$BIN" "$@") ;;
	glibc+naive) v=$(LD_PRELOAD=$NAIVE "$BIN" "$@") ;;
	glibc+count) v=$(TIDEMARK_HEAP_SAMPLE=0 LD_PRELOAD=$SHIM "$BIN" "$@") ;;
	glibc+sample512K) v=$(LD_PRELOAD=$SHIM "$BIN" "$@") ;;
	glibc+sites512K) v=$(LD_PRELOAD=$SITES "$BIN" "$@") ;;
	jemalloc) v=$(LD_PRELOAD=$JE "$BIN" "$@") ;;
	jemalloc+forward) v=$(LD_PRELOAD="$FORWARD $JE" "$BIN" "$@") ;;
	jemalloc+count) v=$(TIDEMARK_HEAP_SAMPLE=0 LD_PRELOAD="$SHIM $JE" "$BIN" "$@") ;;
	glibc+count@ref) v=$(TIDEMARK_HEAP_SAMPLE=0 LD_PRELOAD=$REFSHIM "$BIN" "$@") ;;
	jemalloc+count@ref) v=$(TIDEMARK_HEAP_SAMPLE=0 LD_PRELOAD="$REFSHIM $JE" "$BIN" "$@") ;;
	jemalloc+sample512K) v=$(LD_PRELOAD="$SHIM $JE" "$BIN" "$@") ;;
	jemalloc+sites512K) v=$(LD_PRELOAD="$SITES $JE" "$BIN" "$@") ;;
	jemalloc-prof512K) v=$(MALLOC_CONF=prof:true,lg_prof_sample:19 LD_PRELOAD=$JE "$BIN" "$@") ;;
	heaptrack) v=$(heaptrack -o "$OUT/ht" "$BIN" "$th" "$SLOW" "$BLOCKS" $TOUCH 2>/dev/null) ;;
	massif) v=$(valgrind --tool=massif --massif-out-file="$OUT/ms" "$BIN" "$th" "$SLOW" "$BLOCKS" $TOUCH 2>/dev/null) ;;
	esac
	rm -f "$OUT"/ht* "$OUT"/ms*
	echo "$v" | sed -n "s/^ns_per_pair=\([0-9.]*\).*/\1/p" >>"$OUT/$name.$th"
	echo "$v" | sed -n "s/.*wall_ns_per_pair=\([0-9.]*\).*/\1/p" >>"$OUT/$name.$th.wall"
}

ARMS="glibc glibc+forward glibc+naive glibc+count glibc+sample512K glibc+sites512K"
ARMS="$ARMS jemalloc jemalloc+forward jemalloc+count jemalloc+sample512K jemalloc+sites512K jemalloc-prof512K"
command -v heaptrack >/dev/null && ARMS="$ARMS heaptrack"
command -v valgrind >/dev/null && ARMS="$ARMS massif"
[ -n "$REFSHIM" ] && ARMS="$ARMS glibc+count@ref jemalloc+count@ref"
if [ -n "${ARMS_ONLY:-}" ]; then
	ARMS="glibc jemalloc"
	for a in $ARMS_ONLY; do case " $ARMS " in *" $a "*) ;; *) ARMS="$ARMS $a" ;; esac; done
fi
r=0
while [ $r -lt "$ROUNDS" ]; do
	for th in 1 2; do
		for a in $ARMS; do arm "$a" "$th"; done
	done
	r=$((r + 1))
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# table SUFFIX TITLE
table()
{
	echo
	echo "$2"
	echo
	echo "| arm | 1 thread ns/pair | vs base | added ns | 2 threads ns/pair | vs base | added ns |"
	echo "|---|---|---|---|---|---|---|"
	for a in $ARMS; do
		case $a in jemalloc*) base=jemalloc ;; *) base=glibc ;; esac
		line="| $a"
		for th in 1 2; do
			m=$(median "$OUT/$a.$th$1")
			bm=$(median "$OUT/$base.$th$1")
			line="$line | $m | $(awk -v a="$m" -v b="$bm" 'BEGIN { printf "%.2fx", a / b }') | $(awk -v a="$m" -v b="$bm" 'BEGIN { printf "%+.1f", a - b }')"
		done
		echo "$line |"
	done
}

echo "pairs per thread: $PAIRS (heaptrack, massif: $SLOW), working set $BLOCKS blocks per thread${TOUCH:+, blocks touched}; median of $ROUNDS interleaved rounds"
table "" "CPU time of the benchmark threads per pair (robust to other tenants; heaptrack's and valgrind's helper threads and processes not included):"
table ".wall" "Wall time per pair per thread:"
