"""The server's sweep curve (/api/v1/bench/N/sweep) against what `bench
--sweep` printed: the same limit kind, one arm per arm printed, and for
each arm the same limits with the same survived k/n (and, for MemoryHigh,
the same throttled k/n), in order, in the cells the server serves for the
panel (each point's "text").  Used by tests/e2e/sweep_html.sh and
tests/v2/sweep_high_html.sh.

    python3 sweep_api.py API_JSON SWEEP_TXT    prints "same", or what differs
"""
import json
import re
import sys

doc = json.load(open(sys.argv[1]))
want, arm, kind = {}, None, None
for line in open(sys.argv[2]):
    m = re.match(r"^sweep (MemoryMax|MemoryHigh) ", line)
    if m:
        kind = m.group(1)
    m = re.match(r"^(\S+): ", line)
    if m:
        arm = m.group(1)
        want[arm] = []
        continue
    if arm and re.match(r"^  \d", line):
        f = line.split()
        row = [f[0] + " " + f[1], f[2]]  # "16.0 MiB", "0/2"
        if kind == "MemoryHigh":
            row.append(f[-1])  # throttled k/n
        want[arm].append(row)
    elif not line.strip():
        arm = None
got = {}
for a in doc.get("arms", []):
    rows = []
    for p in a["curve"]:
        # the cells the C code made (report/sweep/sweepcurve.c), which the panel shows
        cells = p.get("text") or ["?", "?"]
        row = cells[:2]
        if kind == "MemoryHigh":
            row.append(cells[-1])
        rows.append(row)
    got[a["arm"]] = rows
if doc.get("limit") == kind and want and got == want:
    print("same")
else:
    print("differs: printed %s %s, served %s %s" % (kind, want, doc.get("limit"), got))
