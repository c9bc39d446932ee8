#!/usr/bin/env python3
"""Bytes a recorder makes the machine write, per sample, side by side.

Every arm records its own `sleep` at the same interval, all at once, each
into a store on a file system of its own (an ext4 image on a loop device),
so both counters are the arm's alone:
  - the recorder's /proc/PID/io write_bytes (what it handed to the kernel
    to write: the store, its WAL),
  - the loop device's sectors written (/sys/block/loopN/stat: what reached
    the device, with the file system's journal and metadata).
Both are taken after a warm-up (the default --commit-every commits every
sample in a run's first minute) and at the end, after `sync`; per sample is
the difference over the samples stored in between.  Needs root (losetup,
mount).

    sudo python3 bench/store/run.py [--seconds 300] [--before OLD/tidemark] [--windows 30s,60s]
                                    [--arm 'NAME=TIDEMARK [ARG...]']... [--marks SECONDS]

With --marks, each arm is also marked (after `sync`) every SECONDS, and a
second table gives each stretch's figures (an hour in stretches of 10
minutes shows what the default window's regimes cost).

The last column counts the device's sectors again after the recorder has
exited (SIGTERM: its last commit and the checkpoint at close) and `sync`,
over every sample stored since the first mark: a window that holds more
than the measured time, or a checkpoint the measured time missed, is in it.
"""
import argparse, os, shlex, sqlite3, subprocess, sys, tempfile, time

SECTOR = 512


def sh(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


class Arm:
    def __init__(self, name, tm, args, root):
        self.name, self.tm, self.args = name, tm, args
        self.img = os.path.join(root, name + ".img")
        self.mnt = os.path.join(root, name)
        os.makedirs(self.mnt)
        with open(self.img, "wb") as f:
            f.truncate(512 << 20)
        self.loop = sh("losetup", "-f", "--show", self.img)
        sh("mkfs.ext4", "-q", "-E", "lazy_itable_init=0,lazy_journal_init=0", self.loop)
        sh("mount", self.loop, self.mnt)
        self.db = os.path.join(self.mnt, "s.db")

    def start(self, interval, seconds):
        self.p = subprocess.Popen(
            [self.tm, "record", "-q", "-o", self.db, "-i", interval] + self.args +
            ["--", "sleep", str(seconds + 30)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sectors(self):
        with open("/sys/block/%s/stat" % os.path.basename(self.loop)) as f:
            return int(f.read().split()[6])

    def write_bytes(self):
        with open("/proc/%d/io" % self.p.pid) as f:
            for line in f:
                if line.startswith("write_bytes:"):
                    return int(line.split()[1])

    def mark(self):
        return (time.time(), self.write_bytes(), self.sectors())

    def samples_between(self, t0, t1):
        c = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        n = c.execute("select count(*) from samples where t_wall_usec between ? and ?",
                      (int(t0 * 1e6), int(t1 * 1e6))).fetchone()[0]
        c.close()
        return n

    def samples_since(self, t0):
        c = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        n = c.execute("select count(*) from samples where t_wall_usec >= ?",
                      (int(t0 * 1e6),)).fetchone()[0]
        c.close()
        return n

    def end(self):
        self.p.terminate()
        self.p.wait()
        os.sync()
        return self.sectors()

    def stop(self):
        if self.p.poll() is None:
            self.p.terminate()
            self.p.wait()
        sh("umount", self.mnt)
        sh("losetup", "-d", self.loop)


def sleep_marking(arms, first, seconds, every):
    """Sleeps `seconds`; with `every`, marks each arm (after sync) that often.
    Returns the marks: one list per arm, the first mark first."""
    marks = [[f] for f in first]
    t_end = time.time() + seconds
    while every > 0 and time.time() + every < t_end - 1:
        time.sleep(every)
        os.sync()
        for m, arm in zip(marks, arms):
            m.append(arm.mark())
    time.sleep(max(0.0, t_end - time.time()))
    return marks


def print_stretches(arms, stretches, warmup):
    """One row per arm and stretch between two interim marks."""
    if len(stretches[0]) < 2:
        return
    print("\n| arm | stretch (s from start) | samples | write_bytes per sample |"
          " device bytes per sample |")
    print("|---|---|---|---|---|")
    for arm, marks in zip(arms, stretches):
        t_start = marks[0][0] - warmup
        for f, l in zip(marks, marks[1:]):
            n = arm.samples_between(f[0], l[0])
            print("| %s | %.0f–%.0f | %d | %.0f B | %.0f B |" % (
                arm.name, f[0] - t_start, l[0] - t_start, n, (l[1] - f[1]) / max(n, 1),
                (l[2] - f[2]) * SECTOR / max(n, 1)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=300, help="measured, after the warm-up")
    ap.add_argument("--warmup", type=float, default=70)
    ap.add_argument("--interval", default="1s")
    ap.add_argument("--tidemark", default="build/tidemark")
    ap.add_argument("--before", help="another tidemark (the one before the change), as an arm")
    ap.add_argument("--windows", default="", help="more arms: --commit-every values, e.g. 30s,60s")
    ap.add_argument("--arm", action="append", default=[],
                    help="more arms: 'NAME=TIDEMARK [ARG...]' (another build, its own arguments)")
    ap.add_argument("--no-default", action="store_true", help="only --before, --windows, --arm")
    ap.add_argument("--marks", type=float, default=0,
                    help="also mark every so many seconds and print each stretch's figures")
    a = ap.parse_args()
    tm = os.path.abspath(a.tidemark)
    root = tempfile.mkdtemp(prefix="tm-store-bench.")
    plan = []
    if a.before:
        plan.append(("before", os.path.abspath(a.before), []))
    if not a.no_default:
        plan += [("every-sample", tm, ["--commit-every", "0"]),
                 ("default", tm, []),
                 ("default+keep", tm, ["--keep", "raw=7d,minute=90d,hour=365d"])]
    plan += [("commit-every-" + w, tm, ["--commit-every", w]) for w in a.windows.split(",") if w]
    for spec in a.arm:
        name, rest = spec.split("=", 1)
        parts = shlex.split(rest)
        plan.append((name, os.path.abspath(parts[0]), parts[1:]))
    arms = [Arm(n, t, args, root) for n, t, args in plan]
    try:
        for arm in arms:
            arm.start(a.interval, a.warmup + a.seconds)
        time.sleep(a.warmup)
        os.sync()
        first = [arm.mark() for arm in arms]
        stretches = sleep_marking(arms, first, a.seconds, a.marks)
        last0 = [arm.write_bytes() for arm in arms]
        os.sync()
        last = [arm.mark() for arm in arms]
        print("# %s interval, %.0f s measured after a %.0f s warm-up, all arms at once"
              % (a.interval, a.seconds, a.warmup))
        ended = [arm.end() for arm in arms]
        print("| arm | samples | write_bytes per sample | device bytes per sample |"
              " device bytes per sample, to the end |")
        print("|---|---|---|---|---|")
        for arm, f, l, w, e in zip(arms, first, last, last0, ended):
            n = arm.samples_between(f[0], l[0])
            n_all = arm.samples_since(f[0])
            print("| %s | %d | %.0f B | %.0f B | %.0f B |" % (
                arm.name, n, (w - f[1]) / max(n, 1),
                (l[2] - f[2]) * SECTOR / max(n, 1), (e - f[2]) * SECTOR / max(n_all, 1)))
        print_stretches(arms, [m + [l] for m, l in zip(stretches, last)], a.warmup)
    finally:
        for arm in arms:
            try:
                arm.stop()
            except Exception as e:
                print("cleanup of %s: %s" % (arm.name, e), file=sys.stderr)
        subprocess.run(["rm", "-rf", root])


if __name__ == "__main__":
    main()
