#!/bin/sh
# The bench rig's own cost, measured side by side in one run:
#  1. overhead: wall time per run of a short command, plain vs under
#     `tidemark bench` (fresh cgroup, sampling, store, table);
#  2. resolution: two identical arms, N runs each: the spread of each figure
#     and the ratio between the arms, i.e. how small a difference the rig can
#     tell apart on this machine.
#
#   sh bench/rig/run.sh [RUNS]        (default 6; needs root for cgroups)
set -eu
cd "$(dirname "$0")/../.."
TM=${TM:-build/tidemark}
P=build/progs/bench_alloc
RUNS=${1:-6}
[ -x "$TM" ] && [ -x "$P" ] || make --no-print-directory all build/progs/bench_alloc >/dev/null
W=$(mktemp -d /tmp/tidemark-rig.XXXXXX)
trap 'rm -rf "$W"' EXIT
SHORT="$P --mib 16 --steps 2 --step-ms 100"
WORK="$P --mib 256 --steps 8 --step-ms 100 --threads 2 --hold-ms 300"

now() { date +%s.%N; }

# 1. overhead: plain, then under bench (one arm, RUNS runs), interleaved twice
plain=0
bench=0
for rep in 1 2; do
	t0=$(now)
	i=0
	while [ $i -lt "$RUNS" ]; do
		$SHORT >/dev/null
		i=$((i + 1))
	done
	t1=$(now)
	"$TM" bench -o "$W/o.db" -i 100ms --runs "$RUNS" --arm plain: -- $SHORT >/dev/null 2>&1
	t2=$(now)
	plain=$(echo "$plain + $t1 - $t0" | bc -l)
	bench=$(echo "$bench + $t2 - $t1" | bc -l)
done
n=$((RUNS * 2))
printf 'overhead: %d runs of `%s`\n' "$n" "$SHORT"
printf '  plain       %.1f ms per run\n' "$(echo "$plain * 1000 / $n" | bc -l)"
printf '  under bench %.1f ms per run (whole bench incl. store and table)\n' \
	"$(echo "$bench * 1000 / $n" | bc -l)"
printf '  added       %.1f ms per run, x%.2f\n' "$(echo "($bench - $plain) * 1000 / $n" | bc -l)" \
	"$(echo "$bench / $plain" | bc -l)"

# 2. resolution: identical arms a and b
"$TM" bench -o "$W/r.db" -i 100ms --runs "$RUNS" --arm a: --arm b: \
	--export "json:$W/r.json" -- $WORK >"$W/r.txt" 2>/dev/null
echo
printf 'resolution: arms a and b identical, %d runs each of `%s`\n' "$RUNS" "$WORK"
python3 - "$W/r.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
a, b = t["arms"]
print("  %-20s %12s %12s %10s %10s" % ("figure", "a spread", "b spread", "b/a", "overlap"))
for key, scale, unit in (("wall_usec", 1e-6, "s"), ("cpu_usec", 1e-6, "s"),
                         ("peak_anon_bytes", 1 / 2**20, "MiB"),
                         ("peak_memory_bytes", 1 / 2**20, "MiB")):
    fa, fb = a["figures"][key], b["figures"][key]
    if not fa["n"] or not fb["n"] or fb["ratio"] is None:
        continue
    sa = (fa["max"] - fa["min"]) / fa["median"] * 100 if fa["median"] else 0
    sb = (fb["max"] - fb["min"]) / fb["median"] * 100 if fb["median"] else 0
    print("  %-20s %11.1f%% %11.1f%% %10.3f %10s" % (key, sa, sb, fb["ratio"],
          "n.s." if fb["overlaps_control"] else "DIFFERS"))
print("  noisy machine flagged: %s" % t["noisy"])
PY
echo
sed -n '/^ *survived/,/^$/p' "$W/r.txt"
