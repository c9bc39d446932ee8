/* bench's tables in the store; see store/bench_tables.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/bench_tables.h"
#include "store/store_impl.h"
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
	return tm_st_exec(st, bench_schema);
}

/* Whether benches has the uuid and machine columns (added after the table
 * first shipped).  1, 0, or -1. */
static int has_uuid(struct tm_store *st)
{
	int64_t n = 0;
	int rc = tm_st_query_int64(st,
	                           "SELECT count(*) FROM pragma_table_info('benches')"
	                           " WHERE name = ?",
	                           "uuid", 0, &n);
	return rc < 0 ? -1 : n > 0;
}

/* Adds the uuid and machine columns to a store's benches that lacks them;
 * a bench stored before gets the uuid tm_bench_store_get() gives it. */
static int add_uuid(struct tm_store *st)
{
	int rc = has_uuid(st);
	if (rc)
		return rc < 0 ? -1 : 0;
	return tm_st_exec(st, "ALTER TABLE benches ADD COLUMN uuid TEXT;"
	                      "ALTER TABLE benches ADD COLUMN machine TEXT;"
	                      "UPDATE benches SET uuid = 'bench-' || id || '-' || started_wall_usec"
	                      " WHERE uuid IS NULL;"
	                      "CREATE UNIQUE INDEX IF NOT EXISTS benches_uuid ON benches(uuid);");
}

/* Whether TABLE exists (a store no bench wrote has no bench tables, and a
 * read-only one cannot create them).  1, 0, or -1. */
static int has_table(struct tm_store *st, const char *table)
{
	int64_t n = 0;
	int rc = tm_st_query_int64(st,
	                           "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	                           " AND name = ?",
	                           table, 0, &n);
	return rc < 0 ? -1 : n > 0;
}

int tm_bench_store_begin(struct tm_store *st, const struct tm_bench_row *b, int64_t *bench_id)
{
	sqlite3_stmt *s;

	if (tm_bench_store_init(st) || add_uuid(st) || tm_store_commit(st) ||
	    tm_st_prepare(st,
	                  "INSERT INTO benches(started_wall_usec, name, spec_json, seed,"
	                  " run_order, host, uuid, machine)"
	                  " VALUES(?,?,?,?,?,?,coalesce(?, lower(hex(randomblob(16)))),?)",
	                  &s, "prepare bench"))
		return -1;
	sqlite3_bind_int64(s, 1, b->started_wall_usec);
	tm_st_bind_text(s, 2, b->name);
	tm_st_bind_text(s, 3, b->spec_json);
	sqlite3_bind_int64(s, 4, b->seed);
	tm_st_bind_text(s, 5, b->order);
	tm_st_bind_text(s, 6, b->host);
	tm_st_bind_text(s, 7, b->uuid);
	tm_st_bind_text(s, 8, b->machine);
	if (tm_st_step_done(st, s, true, "insert bench"))
		return -1;
	*bench_id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int tm_bench_store_end(struct tm_store *st, int64_t bench_id, int64_t ended_wall_usec)
{
	sqlite3_stmt *s;

	if (tm_store_commit(st) ||
	    tm_st_prepare(st, "UPDATE benches SET ended_wall_usec = ? WHERE id = ?", &s,
	                  "prepare bench end"))
		return -1;
	sqlite3_bind_int64(s, 1, ended_wall_usec);
	sqlite3_bind_int64(s, 2, bench_id);
	return tm_st_step_done(st, s, true, "end bench");
}

int tm_bench_store_run(struct tm_store *st, const struct tm_bench_run_note *n)
{
	sqlite3_stmt *s;

	if (tm_store_commit(st) ||
	    tm_st_prepare(st,
	                  "INSERT OR REPLACE INTO bench_runs(run_id, bench_id, seq, arm_index,"
	                  " warmup, wall_usec, rig_cpu_usec) VALUES(?,?,?,?,?,?,?)",
	                  &s, "prepare bench run"))
		return -1;
	sqlite3_bind_int64(s, 1, n->run_id);
	sqlite3_bind_int64(s, 2, n->bench_id);
	sqlite3_bind_int64(s, 3, n->seq);
	sqlite3_bind_int(s, 4, n->arm_index);
	sqlite3_bind_int(s, 5, n->warmup);
	tm_st_bind_int64_min(s, 6, n->wall_usec, 1);
	tm_st_bind_int64_min(s, 7, n->rig_cpu_usec, 0);
	return tm_st_step_done(st, s, true, "insert bench run");
}

int tm_bench_store_latest(struct tm_store *st, int64_t *bench_id)
{
	if (tm_bench_store_init(st))
		return -1;
	return tm_st_query_int64(st, "SELECT max(id) FROM benches", NULL, 0, bench_id);
}

int tm_bench_store_get(struct tm_store *st, int64_t bench_id, struct tm_bench_info *out)
{
	sqlite3_stmt *s;
	int rc = has_table(st, "benches"), uuid = rc > 0 ? has_uuid(st) : 0;

	memset(out, 0, sizeof(*out));
	if (rc <= 0 || uuid < 0)
		return rc < 0 || uuid < 0 ? -1 : 1;
	if (tm_st_prepare(st,
	                  uuid ? "SELECT name, spec_json, seed, run_order, host, started_wall_usec,"
	                         " ended_wall_usec, uuid, machine FROM benches WHERE id = ?"
	                       : "SELECT name, spec_json, seed, run_order, host, started_wall_usec,"
	                         " ended_wall_usec, NULL, NULL FROM benches WHERE id = ?",
	                  &s, "prepare bench"))
		return -1;
	sqlite3_bind_int64(s, 1, bench_id);
	rc = tm_st_step_row(st, s, "read bench");
	if (rc == 0) {
		out->id = bench_id;
		out->name = tm_st_dup_text(s, 0);
		out->spec_json = tm_st_dup_text(s, 1);
		out->seed = sqlite3_column_int64(s, 2);
		out->order = tm_st_dup_text(s, 3);
		out->host = tm_st_dup_text(s, 4);
		out->started_wall_usec = sqlite3_column_int64(s, 5);
		out->ended_wall_usec = sqlite3_column_int64(s, 6);
		out->uuid = tm_st_dup_text(s, 7);
		out->machine = tm_st_dup_text(s, 8);
		if (!out->uuid && asprintf(&out->uuid, "bench-%lld-%lld", (long long)bench_id,
		                           (long long)out->started_wall_usec) < 0)
			out->uuid = NULL; /* as add_uuid() names a bench stored before uuids */
	}
	sqlite3_finalize(s);
	return rc;
}

int tm_bench_store_by_uuid(struct tm_store *st, const char *uuid, int64_t *bench_id)
{
	int rc = has_table(st, "benches"), u = rc > 0 ? has_uuid(st) : 0;

	if (rc <= 0 || u <= 0)
		return rc < 0 || u < 0 ? -1 : 1;
	return tm_st_query_int64(st, "SELECT id FROM benches WHERE uuid = ?", uuid, 0, bench_id);
}

void tm_bench_info_release(struct tm_bench_info *b)
{
	free(b->name);
	free(b->spec_json);
	free(b->order);
	free(b->host);
	free(b->uuid);
	free(b->machine);
	memset(b, 0, sizeof(*b));
}

int tm_bench_store_note(struct tm_store *st, int64_t run_id, struct tm_bench_run_note *out)
{
	sqlite3_stmt *s;
	int rc = has_table(st, "bench_runs");

	memset(out, 0, sizeof(*out));
	out->run_id = run_id;
	out->rig_cpu_usec = -1;
	if (rc <= 0)
		return rc < 0 ? -1 : 1;
	if (tm_st_prepare(st,
	                  "SELECT bench_id, seq, arm_index, warmup, wall_usec, rig_cpu_usec"
	                  " FROM bench_runs WHERE run_id = ?",
	                  &s, "prepare bench run"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	rc = tm_st_step_row(st, s, "read bench run");
	if (rc == 0) {
		out->bench_id = sqlite3_column_int64(s, 0);
		out->seq = sqlite3_column_int64(s, 1);
		out->arm_index = sqlite3_column_int(s, 2);
		out->warmup = sqlite3_column_int(s, 3) != 0;
		out->wall_usec = sqlite3_column_int64(s, 4);
		if (sqlite3_column_type(s, 5) != SQLITE_NULL)
			out->rig_cpu_usec = sqlite3_column_int64(s, 5);
	}
	sqlite3_finalize(s);
	return rc;
}
