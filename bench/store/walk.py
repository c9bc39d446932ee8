#!/usr/bin/env python3
"""What the pusher's read of a run's progress costs as the run grows.

Each tick the pusher reads the next batch (up to 500 rows) of the run's
progress, events and marks past the position the server acknowledged
(store/items.c).  This builds a store as tidemark's schema has it (the
progress table and its index; a second run's rows interleaved) with one
progress row a second, and times, after an hour, a day and a week of rows,
the batch at the end of the run read both ways, in one run:
  - before: ORDER BY id LIMIT 500 OFFSET pos (plan: a sort of all of the run's rows),
  - after:  +run_id = ? AND id > last id ORDER BY id LIMIT 500 (the table's order).

    python3 bench/store/walk.py [--rounds 20]
"""
import argparse, os, sqlite3, tempfile, time

BEFORE = ("SELECT t_wall_usec, t_mono_usec, value FROM progress WHERE run_id = ?1"
          " ORDER BY id LIMIT ?2 OFFSET ?3")
AFTER = ("SELECT t_wall_usec, t_mono_usec, value, id FROM progress WHERE +run_id = ?1"
         " AND id > ?3 ORDER BY id LIMIT ?2")


def cpu():
    return time.process_time()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    a = ap.parse_args()
    path = tempfile.mktemp(suffix=".db")
    c = sqlite3.connect(path)
    c.executescript(
        "CREATE TABLE progress(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,"
        " t_wall_usec INTEGER NOT NULL, t_mono_usec INTEGER NOT NULL, value REAL NOT NULL);"
        "CREATE INDEX progress_run ON progress(run_id, t_mono_usec);")
    have = 0
    print("| progress rows of the run | before: ms CPU per batch | after: ms CPU per batch | ratio |")
    print("|---|---|---|---|")
    for rows, label in ((3600, "an hour"), (86400, "a day"), (604800, "a week")):
        c.executemany("INSERT INTO progress(run_id, t_wall_usec, t_mono_usec, value)"
                      " VALUES (?,?,?,?)",
                      ((1 + (i % 10 == 9), i * 10**6, i * 10**6, i) for i in range(have, rows)))
        c.commit()
        have = rows
        n = c.execute("select count(*) from progress where run_id = 1").fetchone()[0]
        pos = n - 500
        last_id = c.execute("select id from progress where run_id = 1 order by id"
                            " limit 1 offset ?", (pos - 1,)).fetchone()[0]
        times = {}
        for name, sql, third in (("before", BEFORE, pos), ("after", AFTER, last_id)):
            t0 = cpu()
            for _ in range(a.rounds):
                got = c.execute(sql, (1, 500, third)).fetchall()
            times[name] = (cpu() - t0) / a.rounds * 1000
            assert len(got) == 500, (name, len(got))
        print("| %d (%s) | %.2f | %.3f | %.0f× |" % (n, label, times["before"], times["after"],
                                                      times["before"] / max(times["after"], 1e-6)))
    c.close()
    os.unlink(path)


if __name__ == "__main__":
    main()
