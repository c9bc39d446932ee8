#!/bin/sh
# What the JSON and CSV outputs hold, on real runs: "no limit" is null in
# JSON and an empty field in CSV, never -1 (rule 3); a count or an amount
# (bytes, usec, events, kills, allocations) that is a whole number is a
# JSON integer, not 1508435.0; a bench that scraped nothing has no
# "scraped" at all (not four nulls).
. "$(dirname "$0")/../lib.sh"
DB=$T/j.db
P=$TM_BUILD/progs/alloc_touch

if [ ! -x "$P" ] || ! command -v python3 >/dev/null 2>&1; then
	skip "json figures" "needs build/progs/alloc_touch (make test-build) and python3"
	finish
fi
if [ ! -d /sys/fs/cgroup/memory ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	skip "json figures" "no memory cgroup on this host"
	finish
fi

# a run with no limit, then one under --memory-max 256M
"$TM" record -q -o "$DB" -i 50ms --heap -- "$P" 8 300 2>"$T/r.err" &&
	"$TM" record -q -o "$DB" -i 50ms --memory-max 256M -- "$P" 8 300 2>>"$T/r.err" ||
	fail "two runs are recorded" "$(tail -3 "$T/r.err")"
"$TM" report -o "$DB" --json 1 >"$T/1.json" && "$TM" report -o "$DB" --json 2 >"$T/2.json" &&
	"$TM" report -o "$DB" --csv 1 >"$T/1.csv" && "$TM" report -o "$DB" --series 1 >"$T/1s.csv" ||
	fail "the runs' reports are written" "$(ls -l "$T")"

check "report --json: no limit is null, a limit is its bytes as an integer" python3 - "$T/1.json" "$T/2.json" <<'EOP'
import json, sys
a, b = (json.load(open(p))["figures"] for p in sys.argv[1:3])
bad = []
for k in ("limit_max_bytes", "limit_high_bytes"):
    if a[k] is not None:
        bad.append(f"run 1 (no limit) {k} = {a[k]!r}, want null")
if b["limit_max_bytes"] != 256 << 20 or type(b["limit_max_bytes"]) is not int:
    bad.append(f"run 2 limit_max_bytes = {b['limit_max_bytes']!r}, want the integer {256 << 20}")
sys.exit("; ".join(bad) or None)
EOP

check "report --json: counts and byte figures are integers, rates and R² are numbers" python3 - "$T/1.json" <<'EOP'
import json, sys
f = json.load(open(sys.argv[1]))["figures"]
ints = ["peak_anon_bytes", "oom_kills", "heap_allocs", "heap_alloc_bytes", "duration_usec",
        "samples", "heap_live_peak_bytes"]
bad = [f"{k} = {f[k]!r} ({type(f[k]).__name__})" for k in ints
       if f.get(k) is not None and type(f[k]) is not int]
missing = [k for k in ("peak_anon_bytes", "heap_allocs", "oom_kills") if f.get(k) is None]
floats = [k for k, v in f.items() if isinstance(v, float) and (k.endswith("_bytes") or k.endswith("_usec"))
          and "_per_" not in k and v == int(v)]
sys.exit("; ".join(bad + [f"{k} missing" for k in missing] + [f"{k} = {f[k]!r} is a whole float" for k in floats]) or None)
EOP

check "report --csv and --series: no limit is an empty field, never -1" python3 - "$T/1.csv" "$T/1s.csv" <<'EOP'
import csv, sys
row = list(csv.DictReader(open(sys.argv[1])))[0]
bad = [f"--csv {k} = {row[k]!r}" for k in ("limit_max_bytes", "limit_high_bytes") if row[k] != ""]
rows = list(csv.DictReader(open(sys.argv[2])))
for k in ("cg_max_bytes", "cg_high_bytes"):
    vals = sorted({r[k] for r in rows})
    if vals != [""]:
        bad.append(f"--series {k}: {vals}")
if not rows:
    bad.append("--series has no rows")
sys.exit("; ".join(bad) or None)
EOP

# a bench with no scrape: no "scraped"; its run figures are integers
"$TM" bench -o "$DB" --arm glibc --runs 1 -i 50ms -- "$P" 4 200 >"$T/b.txt" 2>"$T/b.err"
bench=$(sql "$DB" "select max(bench_id) from runs")
"$TM" bench -o "$DB" --table "$bench" --json >"$T/b.json" 2>>"$T/b.err"
check "bench JSON: no scrape, no \"scraped\"; run figures in bytes are integers" python3 - "$T/b.json" <<'EOP'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if "scraped" in d:
    bad.append(f"scraped = {d['scraped']!r}")
fig = d["runs"][0]["figures"]
if type(fig["peak_anon_bytes"]) is not int:
    bad.append(f"runs[0] peak_anon_bytes = {fig['peak_anon_bytes']!r}")
med = d["arms"][0]["figures"]["peak_anon_bytes"]["median"]
if type(med) is not int:
    bad.append(f"arms[0] peak_anon_bytes median = {med!r} (one run: a whole number)")
sys.exit("; ".join(bad) or None)
EOP
finish
