/* bench's tables in the store; see store/bench_tables.h. */
#include <stddef.h>

#include <sqlite3.h>

#include "store/bench_tables.h"
#include "store/store.h"
#include "base/banned.h"

static const char bench_schema[] =
    "CREATE TABLE IF NOT EXISTS benches(id INTEGER PRIMARY KEY,"
    " started_wall_usec INTEGER NOT NULL, ended_wall_usec INTEGER, name TEXT,"
    " spec_json TEXT NOT NULL, seed INTEGER, run_order TEXT, host TEXT);"
    "CREATE TABLE IF NOT EXISTS bench_runs(run_id INTEGER PRIMARY KEY,"
    " bench_id INTEGER NOT NULL, seq INTEGER NOT NULL, arm_index INTEGER NOT NULL,"
    " warmup INTEGER NOT NULL, wall_usec INTEGER, rig_cpu_usec INTEGER);"
    "CREATE INDEX IF NOT EXISTS bench_runs_bench ON bench_runs(bench_id, seq);";

int tm_bench_store_init(struct tm_store *st)
{
	return tm_store_exec(st, bench_schema);
}

/* Runs one prepared write.  0 or -1. */
static int step_done(struct tm_store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return tm_store_db_error(st, what);
	return 0;
}

int tm_bench_store_begin(struct tm_store *st, const struct tm_bench_row *b, int64_t *bench_id)
{
	sqlite3 *db = tm_store_sqlite(st);
	sqlite3_stmt *s;

	if (tm_bench_store_init(st) || tm_store_commit(st))
		return -1;
	if (sqlite3_prepare_v2(db,
	                       "INSERT INTO benches(started_wall_usec, name, spec_json, seed,"
	                       " run_order, host) VALUES(?,?,?,?,?,?)",
	                       -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare");
	sqlite3_bind_int64(s, 1, b->started_wall_usec);
	tm_store_bind_text(s, 2, b->name);
	tm_store_bind_text(s, 3, b->spec_json);
	sqlite3_bind_int64(s, 4, b->seed);
	tm_store_bind_text(s, 5, b->order);
	tm_store_bind_text(s, 6, b->host);
	if (step_done(st, s, "insert bench"))
		return -1;
	*bench_id = sqlite3_last_insert_rowid(db);
	return 0;
}

int tm_bench_store_end(struct tm_store *st, int64_t bench_id, int64_t ended_wall_usec)
{
	sqlite3_stmt *s;

	if (tm_store_commit(st))
		return -1;
	if (sqlite3_prepare_v2(tm_store_sqlite(st),
	                       "UPDATE benches SET ended_wall_usec = ? WHERE id = ?", -1, &s,
	                       NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare");
	sqlite3_bind_int64(s, 1, ended_wall_usec);
	sqlite3_bind_int64(s, 2, bench_id);
	return step_done(st, s, "end bench");
}

int tm_bench_store_run(struct tm_store *st, const struct tm_bench_run_note *n)
{
	sqlite3_stmt *s;

	if (tm_store_commit(st))
		return -1;
	if (sqlite3_prepare_v2(tm_store_sqlite(st),
	                       "INSERT OR REPLACE INTO bench_runs(run_id, bench_id, seq, arm_index,"
	                       " warmup, wall_usec, rig_cpu_usec) VALUES(?,?,?,?,?,?,?)",
	                       -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare");
	sqlite3_bind_int64(s, 1, n->run_id);
	sqlite3_bind_int64(s, 2, n->bench_id);
	sqlite3_bind_int64(s, 3, n->seq);
	sqlite3_bind_int(s, 4, n->arm_index);
	sqlite3_bind_int(s, 5, n->warmup);
	if (n->wall_usec > 0)
		sqlite3_bind_int64(s, 6, n->wall_usec);
	else
		sqlite3_bind_null(s, 6);
	if (n->rig_cpu_usec >= 0)
		sqlite3_bind_int64(s, 7, n->rig_cpu_usec);
	else
		sqlite3_bind_null(s, 7);
	return step_done(st, s, "insert bench run");
}

int tm_bench_store_latest(struct tm_store *st, int64_t *bench_id)
{
	sqlite3_stmt *s;
	int rc;

	if (tm_bench_store_init(st))
		return -1;
	if (sqlite3_prepare_v2(tm_store_sqlite(st), "SELECT max(id) FROM benches", -1, &s, NULL) !=
	    SQLITE_OK)
		return tm_store_db_error(st, "prepare");
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*bench_id = sqlite3_column_int64(s, 0);
		rc = 0;
	} else {
		rc = rc == SQLITE_ROW ? 1 : tm_store_db_error(st, "latest bench");
	}
	sqlite3_finalize(s);
	return rc;
}
