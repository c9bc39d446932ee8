/*
 * The floor under any recorder that keeps its samples in SQLite: a program
 * that opens a store in WAL mode and inserts one row of four columns every
 * INTERVAL_MS (default 100), and nothing else.  Its RSS is what libc,
 * SQLite (with the libm it needs), ld.so and a minimal heap cost on this
 * machine's kernel; bench/record/floor.sh measures it beside tidemark's
 * recorder (bench/README.md, issue 23).
 *
 *   build/bench/record/floor DB [INTERVAL_MS]
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int fail(sqlite3 *db, const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, db ? sqlite3_errmsg(db) : "no store");
	sqlite3_close(db);
	return 1;
}

int main(int argc, char **argv)
{
	long ms = argc > 2 ? atol(argv[2]) : 100;
	struct timespec pause = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	sqlite3 *db = NULL;
	sqlite3_stmt *ins;

	if (argc < 2 || ms <= 0) {
		fprintf(stderr, "usage: floor DB [INTERVAL_MS]\n");
		return 2;
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK)
		return fail(db, "open");
	if (sqlite3_exec(db,
	                 "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
	                 "CREATE TABLE IF NOT EXISTS s(t INTEGER, seq INTEGER, v INTEGER, b BLOB)",
	                 NULL, NULL, NULL) != SQLITE_OK)
		return fail(db, "schema");
	if (sqlite3_prepare_v2(db, "INSERT INTO s VALUES (?, ?, ?, ?)", -1, &ins, NULL) !=
	    SQLITE_OK)
		return fail(db, "prepare");
	for (long seq = 0;; seq++) {
		sqlite3_bind_int64(ins, 1, (sqlite3_int64)time(NULL));
		sqlite3_bind_int64(ins, 2, seq);
		sqlite3_bind_int64(ins, 3, seq * 7);
		sqlite3_bind_blob(ins, 4, &seq, sizeof(seq), SQLITE_TRANSIENT);
		if (sqlite3_step(ins) != SQLITE_DONE)
			return fail(db, "insert");
		sqlite3_reset(ins);
		nanosleep(&pause, NULL);
	}
}
