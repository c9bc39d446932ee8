#!/bin/sh
# bench end to end: real runs in fresh cgroups, the table, OOM kills, the
# /proc/PID/maps check, --restore, hooks, --until-progress, the stored table.
. "$(dirname "$0")/../lib.sh"
DB=$T/b.db
P=$TM_BUILD/progs/bench_alloc
if [ ! -x "$P" ]; then
	skip "bench runs" "build/progs/bench_alloc is not built (make check builds it)"
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip "bench runs" "python3 is needed to read the JSON table"
	exit 0
fi

# json FILE EXPR: evaluates a Python expression over the table as `t`.
json() { python3 -c "import json,sys; t=json.load(open(sys.argv[1])); print($2)" "$1"; }
arm() { echo "[a for a in t['arms'] if a['name']=='$1'][0]"; }

# ---- two arms that differ in a known way: one allocates twice as much ----
cat >"$T/two.ini" <<EOF
[bench]
Name=twice
Runs=2
Interval=100ms
Progress=progress=([0-9]+)

[small]
ExecStart=$P --mib 32 --steps 4 --step-ms 60

[double]
ExecStart=$P --mib 64 --steps 4 --step-ms 60
