/* What tidemark guard took and did for a run (store/snapshots.h). */
#include <sqlite3.h>

#include "store/snapshots.h"
#include "store/store_impl.h"
#include "base/banned.h"

static const char snapshots_schema[] =
    "CREATE TABLE IF NOT EXISTS snapshots(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,"
    " wall_usec INTEGER NOT NULL, taken_usec INTEGER NOT NULL, rule TEXT NOT NULL,"
    " kind TEXT NOT NULL, pid INTEGER NOT NULL, path TEXT, summary TEXT,"
    " file_bytes INTEGER, ok INTEGER NOT NULL);"
    "CREATE INDEX IF NOT EXISTS snapshots_run ON snapshots(run_id, wall_usec);";

int tm_store_snapshot_add(struct tm_store *st, const struct tm_snapshot_row *r)
{
	sqlite3_stmt *s;
	if (tm_st_exec(st, snapshots_schema) || tm_st_begin_batch(st) ||
	    tm_st_prepare(
	        st,
	        "INSERT INTO snapshots(run_id, wall_usec, taken_usec, rule, kind, pid, path,"
	        " summary, file_bytes, ok) VALUES (?,?,?,?,?,?,?,?,?,?)",
	        &s, "prepare snapshot"))
		return -1;
	sqlite3_bind_int64(s, 1, r->run_id);
	sqlite3_bind_int64(s, 2, r->wall_usec);
	sqlite3_bind_int64(s, 3, r->taken_usec);
	tm_st_bind_text(s, 4, r->rule);
	tm_st_bind_text(s, 5, r->kind);
	sqlite3_bind_int64(s, 6, r->pid);
	tm_st_bind_text(s, 7, r->path);
	tm_st_bind_text(s, 8, r->summary);
	if (r->file_bytes >= 0)
		sqlite3_bind_int64(s, 9, r->file_bytes);
	sqlite3_bind_int(s, 10, r->ok);
	if (tm_st_step_done(st, s, true, "add snapshot"))
		return -1;
	return tm_store_commit(st);
}

static int have_table(struct tm_store *st)
{
	int64_t n = 0;
	int rc = tm_st_query_int64(st,
	                           "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	                           " AND name = ?",
	                           "snapshots", 0, &n);
	return rc < 0 ? -1 : n > 0;
}

static const char *col_text(sqlite3_stmt *s, int i)
{
	return (const char *)sqlite3_column_text(s, i);
}

int tm_store_each_snapshot(struct tm_store *st, int64_t run_id, tm_snapshot_cb cb, void *ctx)
{
	sqlite3_stmt *s;
	int rc = have_table(st), step;
	if (rc <= 0)
		return rc;
	if (tm_st_prepare(st,
	                  "SELECT run_id, wall_usec, taken_usec, rule, kind, pid, path, summary,"
	                  " file_bytes, ok FROM snapshots WHERE run_id = ? ORDER BY wall_usec, id",
	                  &s, "prepare snapshots"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	rc = 0;
	while (!rc && (step = tm_st_step_row(st, s, "read snapshots")) == 0) {
		struct tm_snapshot_row r = {
		    .run_id = sqlite3_column_int64(s, 0),
		    .wall_usec = sqlite3_column_int64(s, 1),
		    .taken_usec = sqlite3_column_int64(s, 2),
		    .rule = col_text(s, 3),
		    .kind = col_text(s, 4),
		    .pid = sqlite3_column_int64(s, 5),
		    .path = col_text(s, 6),
		    .summary = col_text(s, 7),
		    .file_bytes =
		        sqlite3_column_type(s, 8) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 8),
		    .ok = sqlite3_column_int(s, 9) != 0,
		};
		rc = cb(ctx, &r);
	}
	if (!rc && step < 0)
		rc = -1;
	sqlite3_finalize(s);
	return rc;
}
