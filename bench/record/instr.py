#!/usr/bin/env python3
"""User-space instructions per sample of `tidemark record`, from callgrind.

    python3 bench/record/instr.py OLD/tidemark NEW/tidemark [--procs 1]
                                  [--zero 8] [--seconds 20]

For each build in turn, runs `valgrind --tool=callgrind tidemark record
-i 100ms -p ROOT` on a lone `sleep` (or a shell with PROCS-1 sleeping
children), zeroes the counters at --zero seconds (`callgrind_control -z`),
dumps them --seconds later (`-d`), and divides the program's instructions
(Ir) and take_sample's inclusive Ir by the calls of take_sample in between.
The kernel's part (procfs) is not counted.  For where `perf stat -e
instructions` is `<not supported>` (a VM without a PMU).  --zero 70 measures
past the run's first minute, where samples wait for the commit window.
"""
import argparse, os, re, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import spawn_tree as tree  # the same tree run.py measures


def take_sample_calls(path):
    """The calls of take_sample in a callgrind dump (cfn= ... calls=N)."""
    names, calls = {}, 0
    lines = open(path).read().splitlines()
    for i, l in enumerate(lines):
        m = re.match(r"c?fn=\((\d+)\)(?: (.*))?", l)
        if not m:
            continue
        if m.group(2):
            names[m.group(1)] = m.group(2)
        if (l.startswith("cfn=") and names.get(m.group(1)) == "take_sample"
                and i + 1 < len(lines) and lines[i + 1].startswith("calls=")):
            calls += int(lines[i + 1].split()[0][6:])
    return calls


def annotate_ir(path, inclusive, sym=None):
    out = subprocess.run(["callgrind_annotate", "--inclusive=" + ("yes" if inclusive else "no"), path],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        if (sym is None and "PROGRAM TOTALS" in line) or (sym and sym in line):
            return int(line.split()[0].replace(",", ""))
    return 0


def measure(tm, procs, zero, seconds, d):
    t = tree(procs)
    out = os.path.join(d, "cg.out")
    v = subprocess.Popen(["valgrind", "--tool=callgrind", "-q", "--callgrind-out-file=" + out,
                          tm, "record", "-q", "-o", os.path.join(d, "r.db"), "-i", "100ms",
                          "-p", str(t.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(zero)
    subprocess.run(["callgrind_control", "-z", str(v.pid)], capture_output=True)
    time.sleep(seconds)
    subprocess.run(["callgrind_control", "-d", str(v.pid)], capture_output=True)
    time.sleep(1)
    os.killpg(t.pid, signal.SIGTERM)
    t.wait()  # reaped: a zombie would still be a process to record
    v.wait()
    dumps = sorted((f for f in os.listdir(d) if f.startswith("cg.out.")),
                   key=lambda f: os.path.getmtime(os.path.join(d, f)))
    dump = os.path.join(d, dumps[-1])
    calls = take_sample_calls(dump)
    total, ts = annotate_ir(dump, False), annotate_ir(dump, True, "take_sample")
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    return calls, total / max(calls, 1), ts / max(calls, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="+", help="tidemark binaries to compare")
    ap.add_argument("--procs", type=int, default=1)
    ap.add_argument("--zero", type=float, default=8)
    ap.add_argument("--seconds", type=float, default=20)
    a = ap.parse_args()
    print("| build | procs | samples | Ir per sample (program) | Ir per sample (take_sample) |")
    print("|---|---|---|---|---|")
    for tm in a.builds:
        with tempfile.TemporaryDirectory() as d:
            n, total, ts = measure(tm, a.procs, a.zero, a.seconds, d)
        print("| %s | %d | %d | %.1fk | %.1fk |" % (tm, a.procs, n, total / 1e3, ts / 1e3))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
