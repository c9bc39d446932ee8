#!/usr/bin/env python3
"""Recorder overhead, side by side with atop in one run.

For a target of 1 and of 50 processes, at 1 s and 100 ms intervals, runs
`tidemark record -p PID` and `atop -w FILE INTERVAL` for the same duration
and reports CPU time per sample, peak RSS, and bytes on disk per sample.

    python3 bench/record/run.py [--seconds 20] [--tidemark build/tidemark]
                                [--before OLD/tidemark | --peers] [--rounds 3]

With --before OLD (another build of tidemark), the two recorders instead
watch the same target at the same time, in --rounds rounds, and the table
gives each one's CPU per sample and their ratio (no atop); then the steady
state: each recorder's CPU from --warmup seconds on to the end, from its
threads' /proc/PID/task/TID/schedstat (nanoseconds, where GNU time counts
10 ms ticks), over the samples it took in that time, and the new build's
RssAnon / RssFile (status) and PSS (smaps_rollup) at the end.

With --peers, tidemark, pidstat (-r -u -d of every process of the tree),
a lean bash sampler (statm, stat and io of each process read with the
shell's own `read`, one `sleep` a sample) and atop all watch the same target
at the same time, in --rounds rounds (medians), and the table gives each
one's CPU per sample, peak RSS and its CPU as a multiple of tidemark's.
pidstat and atop take whole seconds only: the 100 ms rows have tidemark and
the bash sampler.
"""
import argparse, os, shutil, signal, sqlite3, subprocess, sys, tempfile, time


def spawn_tree(n):
    """A shell with n-1 sleeping children, or a lone sleep: n processes in all."""
    if n == 1:
        return subprocess.Popen(["sleep", "3600"], start_new_session=True)
    script = "for i in $(seq %d); do sleep 3600 & done; wait" % (n - 1)
    p = subprocess.Popen(["sh", "-c", script], start_new_session=True)
    time.sleep(0.5)
    return p


def measure(cmd, seconds, sig=signal.SIGINT):
    """Runs cmd under GNU time for `seconds`, then SIGINT to its process group
    (time itself ignores it); returns (cpu_s, maxrss_kib) of cmd alone."""
    out = tempfile.mktemp()
    p = subprocess.Popen(["/usr/bin/time", "-o", out, "-f", "%U %S %M"] + cmd,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    time.sleep(seconds)
    # signal the measured command itself (GNU time would pass on nothing)
    with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
        child = int(f.read().split()[0])
    os.kill(child, sig)
    p.wait()
    with open(out) as f:
        u, s_, m = f.read().split()[-3:]
    os.unlink(out)
    return float(u) + float(s_), int(m)


def cpu_ns(pid):
    """The CPU time of every thread of PID so far, in ns (schedstat's first
    field: nanosecond resolution, where GNU time's is 10 ms)."""
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def memory_split(pid):
    """RssAnon/RssFile/RssShmem (status) and Pss (smaps_rollup) of PID, KiB."""
    m = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("RssAnon", "RssFile", "RssShmem"):
                m[k] = int(v.split()[0])
    with open("/proc/%d/smaps_rollup" % pid) as f:
        for line in f:
            if line.startswith("Pss:"):
                m["Pss"] = int(line.split()[1])
    return m


def measure_pair(cmds, seconds, sigs=None, warmup=None):
    """Runs the commands at once under GNU time for `seconds`, then SIGINT
    (or each its signal from SIGS); returns [(cpu_s, maxrss_kib)] of each
    command alone.  With WARMUP (seconds), each tuple also has the steady
    state from WARMUP to the end: (cpu_ns, t0_wall_usec, t1_wall_usec,
    memory_split at the end)."""
    outs, procs = [], []
    for cmd in cmds:
        outs.append(tempfile.mktemp())
        procs.append(subprocess.Popen(["/usr/bin/time", "-o", outs[-1], "-f", "%U %S %M"] + cmd,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True))
    steady = []
    if warmup:
        time.sleep(warmup)
        kids = []
        for p in procs:
            with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                kids.append(int(f.read().split()[0]))
        t0 = int(time.time() * 1e6)
        c0 = [cpu_ns(k) for k in kids]
        time.sleep(seconds - warmup)
        c1 = [cpu_ns(k) for k in kids]
        t1 = int(time.time() * 1e6)
        steady = [(b - a, t0, t1, memory_split(k)) for a, b, k in zip(c0, c1, kids)]
    else:
        time.sleep(seconds)
    for i, p in enumerate(procs):
        with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
            os.kill(int(f.read().split()[0]), sigs[i] if sigs else signal.SIGINT)
    res = []
    for p, out in zip(procs, outs):
        p.wait()
        with open(out) as f:
            u, s_, m = f.read().split()[-3:]
        os.unlink(out)
        res.append((float(u) + float(s_), int(m)) + (steady[len(res)] if steady else ()))
    return res


def compare(a, tm, before):
    """Before against after, side by side: one table row per case."""
    print("| procs | interval | rounds | before CPU ms/sample | after CPU ms/sample | after/before |"
          " before steady ms/sample | after steady ms/sample | after/before |"
          " before RSS MiB | after RSS MiB | after anon/file/PSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for nproc in (1, 50):
        tree = spawn_tree(nproc)
        for interval in ("1s", "100ms"):
            iv = 1.0 if interval == "1s" else 0.1
            secs = a.seconds * (3 if iv >= 1 else 1)
            per = {"before": [], "after": []}
            st = {"before": [], "after": []}
            rss = {"before": 0, "after": 0}
            split = {}
            for r in range(a.rounds):
                d = tempfile.mkdtemp()
                order = [("before", before), ("after", tm)]
                if r % 2:
                    order.reverse()
                cmds = [[b, "record", "-o", os.path.join(d, n + ".db"), "-i", interval,
                         "-p", str(tree.pid)] for n, b in order]
                warm = min(a.warmup, secs / 2)
                for (n, _), (cpu, m, ns, t0, t1, mem) in zip(order, measure_pair(cmds, secs,
                                                                                warmup=warm)):
                    db = os.path.join(d, n + ".db")
                    k = samples_in(db)[0]
                    per[n].append(1000 * cpu / max(k, 1))
                    st[n].append(ns / 1e6 / max(samples_between(db, t0, t1), 1))
                    rss[n] = max(rss[n], m / 1024)
                    split[n] = mem
                shutil.rmtree(d)
            b = sorted(per["before"])[len(per["before"]) // 2]
            f = sorted(per["after"])[len(per["after"]) // 2]
            sb = sorted(st["before"])[len(st["before"]) // 2]
            sf = sorted(st["after"])[len(st["after"]) // 2]
            m = split["after"]
            print("| %d | %s | %d | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %.1f | %.1f |"
                  " %.1f / %.1f / %.1f |" % (
                      nproc, interval, a.rounds, b, f, f / b, sb, sf, sf / sb, rss["before"],
                      rss["after"], m["RssAnon"] / 1024, m["RssFile"] / 1024, m["Pss"] / 1024))
        os.killpg(tree.pid, signal.SIGTERM)
        tree.wait()


BASH_SAMPLER = r"""
pids="$1"; iv="$2"; out="$3"
while :; do
  line=""
  for p in $pids; do
    read -r statm < /proc/$p/statm || continue
    read -r stat < /proc/$p/stat || continue
    io=""
    while read -r k v; do io="$io $v"; done < /proc/$p/io
    line="$line|$p $statm ${stat##*) } $io"
  done
  echo "$EPOCHREALTIME$line" >> "$out"
  sleep "$iv"
done
"""


def tree_pids(root):
    """The root and its children (the trees here are one level deep)."""
    with open("/proc/%d/task/%d/children" % (root, root)) as f:
        return [root] + [int(x) for x in f.read().split()]


def peers(a, tm):
    """tidemark, pidstat, the bash sampler and atop at once: one row per case."""
    have = {n: shutil.which(n) is not None for n in ("pidstat", "atop")}
    print("| procs | interval | rounds | tidemark CPU ms/sample | tidemark RSS MiB |"
          " pidstat CPU ms/sample (×) | pidstat RSS MiB | bash CPU ms/sample (×) | bash RSS MiB |"
          " atop CPU ms/sample (×) | atop RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for nproc in (1, 50):
        tree = spawn_tree(nproc)
        pids = tree_pids(tree.pid)
        for interval in ("1s", "100ms"):
            iv = 1.0 if interval == "1s" else 0.1
            secs = a.seconds * (3 if iv >= 1 else 1)
            per = {}
            rss = {}
            for r in range(a.rounds):
                d = tempfile.mkdtemp()
                db = os.path.join(d, "r.db")
                cmds = {"tidemark": [tm, "record", "-o", db, "-i", interval, "-p", str(tree.pid)],
                        "bash": ["bash", "-c", BASH_SAMPLER, "bash",
                                 " ".join(map(str, pids)), "%g" % iv, os.path.join(d, "b.txt")]}
                if iv >= 1 and have["pidstat"]:
                    cmds["pidstat"] = ["pidstat", "-h", "-r", "-u", "-d", "-p",
                                       ",".join(map(str, pids)), "1"]
                if iv >= 1 and have["atop"]:
                    cmds["atop"] = ["atop", "-w", os.path.join(d, "atop.raw"), "1"]
                names = list(cmds)
                if r % 2:
                    names.reverse()
                res = measure_pair([cmds[n] for n in names], secs,
                                   [{"atop": signal.SIGUSR2, "bash": signal.SIGTERM}.get(
                                       n, signal.SIGINT) for n in names])
                for n, (cpu, m) in zip(names, res):
                    k = samples_in(db)[0] if n == "tidemark" else secs / iv
                    per.setdefault(n, []).append(1000 * cpu / max(k, 1))
                    rss[n] = max(rss.get(n, 0), m / 1024)
                shutil.rmtree(d)
            med = {n: sorted(v)[len(v) // 2] for n, v in per.items()}
            t = med["tidemark"]
            cells = ["%d" % nproc, interval, "%d" % a.rounds, "%.2f" % t, "%.1f" % rss["tidemark"]]
            for n in ("pidstat", "bash", "atop"):
                if n in med:
                    cells += ["%.2f (%.1f×)" % (med[n], med[n] / t), "%.1f" % rss[n]]
                else:
                    cells += ["–", "–"]
            print("| " + " | ".join(cells) + " |")
        os.killpg(tree.pid, signal.SIGTERM)
        tree.wait()


def samples_between(db, t0_usec, t1_usec):
    """The samples DB took between two wall-clock times."""
    c = sqlite3.connect(db)
    n = c.execute("select count(*) from samples where t_wall_usec >= ? and t_wall_usec < ?",
                  (t0_usec, t1_usec)).fetchone()[0]
    c.close()
    return n


def samples_in(db):
    c = sqlite3.connect(db)
    n = c.execute("select count(*) from samples").fetchone()[0]
    try:
        table = c.execute("select sum(pgsize) from dbstat where name='samples'").fetchone()[0]
    except sqlite3.OperationalError:
        table = None
    c.execute("pragma wal_checkpoint(truncate)")
    c.close()
    return n, table, os.path.getsize(db)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20,
                    help="per 100 ms case; the 1 s cases run 3x as long")
    ap.add_argument("--tidemark", default="build/tidemark")
    ap.add_argument("--before", help="another tidemark: compare the two, side by side")
    ap.add_argument("--rounds", type=int, default=3, help="with --before or --peers (medians)")
    ap.add_argument("--warmup", type=float, default=3,
                    help="with --before: the steady-state figure leaves out the first"
                         " WARMUP seconds (start, libraries, schema)")
    ap.add_argument("--peers", action="store_true",
                    help="tidemark, pidstat, a bash sampler and atop at once")
    a = ap.parse_args()
    tm = os.path.abspath(a.tidemark)
    if a.peers:
        peers(a, tm)
        return
    if a.before:
        compare(a, tm, os.path.abspath(a.before))
        return
    have_atop = shutil.which("atop") is not None
    rows = []
    for nproc in (1, 50):
        tree = spawn_tree(nproc)
        for interval in ("1s", "100ms"):
            iv = 1.0 if interval == "1s" else 0.1
            d = tempfile.mkdtemp()
            db = os.path.join(d, "r.db")
            secs = a.seconds * (3 if iv >= 1 else 1)
            cpu, rss = measure([tm, "record", "-o", db, "-i", interval, "-p", str(tree.pid)], secs)
            n, table, size = samples_in(db)
            row = {"procs": nproc, "interval": interval, "samples": n,
                   "tm_cpu_ms_per_sample": 1000 * cpu / max(n, 1), "tm_rss_mib": rss / 1024,
                   "tm_table_bytes_per_sample": (table / n) if table else None,
                   "tm_file_bytes_per_sample": size / max(n, 1)}
            if have_atop and iv >= 1:
                # atop takes whole seconds; it samples the whole host, not a tree
                af = os.path.join(d, "atop.raw")
                acpu, arss = measure(["atop", "-w", af, str(int(iv))], secs, signal.SIGUSR2)
                an = secs / iv
                row.update({"atop_cpu_ms_per_sample": 1000 * acpu / an, "atop_rss_mib": arss / 1024,
                            "atop_file_bytes_per_sample": os.path.getsize(af) / an})
            rows.append(row)
            shutil.rmtree(d)
        os.killpg(tree.pid, signal.SIGTERM)
        tree.wait()
    hdr = ("procs", "interval", "samples", "tm_cpu_ms_per_sample", "tm_rss_mib",
           "tm_table_bytes_per_sample", "tm_file_bytes_per_sample",
           "atop_cpu_ms_per_sample", "atop_rss_mib", "atop_file_bytes_per_sample")
    print("| " + " | ".join(hdr) + " |")
    print("|" + "---|" * len(hdr))
    for r in rows:
        cells = []
        for h in hdr:
            v = r.get(h)
            cells.append("-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v)))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
