#!/usr/bin/env python3
"""Bytes `tidemark serve` makes the machine write per ingested sample.

Every arm is a server with its store on a file system of its own (an ext4
image on a loop device, as bench/store/run.py makes them) and one recorder
pushing to it (`record -i 1s --push`, its own store elsewhere), all arms at
once.  After a warm-up, the server's /proc/PID/io write_bytes and the loop
device's sectors written (after `sync`) are marked, and again at the end;
per sample is the difference over the samples the server filed in between
(its samples table's rows at each mark).
The recorder's pusher sends what its store has committed, so the recorder's
--commit-every sets how many samples each of the server's commits holds.
Needs root (losetup, mount).

    sudo python3 bench/serve/ingest_io.py [--seconds 600] [--warmup 70]
        [--tidemark build/tidemark] [--windows 0,10s,300s] [--before OLD/tidemark]
"""
import argparse, os, re, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "store"))
from run import Arm, SECTOR, sh  # noqa: E402  (bench/store/run.py)


class ServeArm(Arm):
    """A server on the arm's loop device, and a recorder that pushes to it."""

    def start(self, interval, seconds, window, root):
        tok = os.path.join(root, self.name + ".tok")
        with open(tok, "w") as f:
            f.write(sh(self.tm, "serve", "token", "add", "pusher", "--db", self.db) + "\n")
        os.chmod(tok, 0o600)
        out = os.path.join(root, self.name + ".srv")
        self.p = subprocess.Popen([self.tm, "serve", "--db", self.db, "--listen", "127.0.0.1:0"],
                                  stdout=open(out, "w"), stderr=subprocess.STDOUT)
        url = None
        for _ in range(100):
            m = re.search(r"^listening on (http://[0-9.:]+)/$", open(out).read(), re.M)
            if m:
                url = m.group(1)
                break
            time.sleep(0.1)
        self.rec = subprocess.Popen(
            [self.tm, "record", "-q", "-o", os.path.join(root, self.name + ".rec.db"),
             "-i", interval, "--commit-every", window, "--push", url, "--token-file", tok,
             "--", "sleep", str(seconds + 30)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def filed(self):
        c = sqlite3.connect("file:%s?mode=ro" % self.db, uri=True)
        n = c.execute("select count(*) from samples").fetchone()[0]
        c.close()
        return n

    def mark(self):
        return super().mark() + (self.filed(),)

    def end(self):
        self.rec.terminate()
        self.rec.wait()
        return super().end()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=600, help="measured, after the warm-up")
    ap.add_argument("--warmup", type=float, default=70)
    ap.add_argument("--interval", default="1s")
    ap.add_argument("--tidemark", default="build/tidemark")
    ap.add_argument("--windows", default="0,10s,300s", help="the recorders' --commit-every")
    ap.add_argument("--before", help="another tidemark (before the change): an arm per window")
    a = ap.parse_args()
    tm = os.path.abspath(a.tidemark)
    root = tempfile.mkdtemp(prefix="tm-ingest-bench.")
    windows = [w for w in a.windows.split(",") if w]
    plan = [("commit-every-" + w, tm, w) for w in windows]
    if a.before:
        plan += [("before, commit-every-" + w, os.path.abspath(a.before), w) for w in windows]
    arms = [ServeArm(n.replace(", ", "-"), t, [], root) for n, t, _ in plan]
    try:
        for arm, (_, _, w) in zip(arms, plan):
            arm.start(a.interval, a.warmup + a.seconds, w, root)
        time.sleep(a.warmup)
        os.sync()
        first = [arm.mark() for arm in arms]
        time.sleep(a.seconds)
        os.sync()
        last = [arm.mark() for arm in arms]
        print("# serve ingest: recorders at %s pushing, %.0f s measured after a %.0f s warm-up"
              % (a.interval, a.seconds, a.warmup))
        print("| recorder's window | samples filed | serve write_bytes per sample |"
              " device bytes per sample |")
        print("|---|---|---|---|")
        for arm, f, l in zip(arms, first, last):
            n = l[3] - f[3]
            print("| %s | %d | %.0f B | %.0f B |" % (
                arm.name, n, (l[1] - f[1]) / max(n, 1), (l[2] - f[2]) * SECTOR / max(n, 1)))
        for arm in arms:
            arm.end()
    finally:
        for arm in arms:
            try:
                if arm.rec.poll() is None:
                    arm.rec.terminate()
                arm.stop()
            except Exception as e:
                print("cleanup of %s: %s" % (arm.name, e), file=sys.stderr)
        subprocess.run(["rm", "-rf", root])


if __name__ == "__main__":
    main()
