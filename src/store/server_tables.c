/* The server's tokens and machines tables; see store/server_tables.h. */
#include "store/server_tables.h"
#include "store/store_impl.h"
#include "base/banned.h"

static const char server_schema[] =
    "CREATE TABLE IF NOT EXISTS tokens ("
    " id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,"
    " hash TEXT NOT NULL, created_wall_usec INTEGER NOT NULL, UNIQUE(name, kind));"
    "CREATE TABLE IF NOT EXISTS machines ("
    " name TEXT PRIMARY KEY, first_push_wall_usec INTEGER NOT NULL,"
    " last_push_wall_usec INTEGER NOT NULL, last_addr TEXT,"
    " batches INTEGER NOT NULL DEFAULT 0, samples INTEGER NOT NULL DEFAULT 0);";

int tm_server_tables_init(struct tm_store *st)
{
	return tm_st_exec(st, server_schema);
}

int tm_store_token_put(struct tm_store *st, const char *name, const char *kind, const char *hash,
                       int64_t created_wall_usec)
{
	sqlite3_stmt *s;

	if (tm_st_begin_batch(st) ||
	    tm_st_prepare(st,
	                  "INSERT OR REPLACE INTO tokens(name, kind, hash, created_wall_usec)"
	                  " VALUES (?, ?, ?, ?)",
	                  &s, "prepare token"))
		return -1;
	tm_st_bind_text(s, 1, name);
	tm_st_bind_text(s, 2, kind);
	tm_st_bind_text(s, 3, hash);
	sqlite3_bind_int64(s, 4, created_wall_usec);
	return tm_st_step_done(st, s, true, "store token");
}

int tm_store_token_delete(struct tm_store *st, const char *name, const char *kind)
{
	sqlite3_stmt *s;

	if (tm_st_begin_batch(st) ||
	    tm_st_prepare(st, "DELETE FROM tokens WHERE name = ? AND kind = ?", &s,
	                  "prepare token removal"))
		return -1;
	tm_st_bind_text(s, 1, name);
	tm_st_bind_text(s, 2, kind);
	if (tm_st_step_done(st, s, true, "remove token"))
		return -1;
	return sqlite3_changes(st->db) > 0 ? 0 : 1;
}

int tm_store_each_token(struct tm_store *st, tm_token_row_cb cb, void *ctx)
{
	sqlite3_stmt *s;
	int rc = 0, step;

	if (tm_st_prepare(st,
	                  "SELECT name, kind, hash, created_wall_usec FROM tokens"
	                  " ORDER BY name, kind",
	                  &s, "read tokens"))
		return -1;
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW)
		rc = cb(ctx, (const char *)sqlite3_column_text(s, 0),
		        (const char *)sqlite3_column_text(s, 1),
		        (const char *)sqlite3_column_text(s, 2), sqlite3_column_int64(s, 3));
	if (!rc && step != SQLITE_DONE)
		rc = tm_st_error(st, "read tokens");
	sqlite3_finalize(s);
	return rc;
}

int tm_store_machine_pushed(struct tm_store *st, const char *name, const char *peer,
                            int64_t samples, int64_t now_wall_usec)
{
	sqlite3_stmt *s;

	if (tm_st_begin_batch(st) ||
	    tm_st_prepare(st,
	                  "INSERT INTO machines(name, first_push_wall_usec, last_push_wall_usec,"
	                  " last_addr, batches, samples) VALUES (?1, ?2, ?2, ?3, 1, ?4)"
	                  " ON CONFLICT(name) DO UPDATE SET last_push_wall_usec = ?2,"
	                  " last_addr = ?3, batches = batches + 1, samples = samples + ?4",
	                  &s, "prepare machine"))
		return -1;
	tm_st_bind_text(s, 1, name);
	sqlite3_bind_int64(s, 2, now_wall_usec);
	tm_st_bind_text(s, 3, peer);
	sqlite3_bind_int64(s, 4, samples);
	return tm_st_step_done(st, s, true, "record push");
}

int tm_store_each_machine(struct tm_store *st, tm_machine_cb cb, void *ctx)
{
	int64_t have = 0;
	sqlite3_stmt *s;
	int rc = 0, step;

	rc = tm_st_query_int64(st,
	                       "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	                       " AND name = 'machines'",
	                       NULL, 0, &have);
	if (rc || !have)
		return rc < 0 ? -1 : 0;
	if (tm_st_prepare(st,
	                  "SELECT name, last_addr, first_push_wall_usec, last_push_wall_usec,"
	                  " batches, samples FROM machines ORDER BY name",
	                  &s, "read machines"))
		return -1;
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		struct tm_machine_row m = {
		    .name = (const char *)sqlite3_column_text(s, 0),
		    .last_addr = (const char *)sqlite3_column_text(s, 1),
		    .first_push_wall_usec = sqlite3_column_int64(s, 2),
		    .last_push_wall_usec = sqlite3_column_int64(s, 3),
		    .batches = sqlite3_column_int64(s, 4),
		    .samples = sqlite3_column_int64(s, 5),
		};
		rc = m.name ? cb(ctx, &m) : 0;
	}
	if (!rc && step != SQLITE_DONE)
		rc = tm_st_error(st, "read machines");
	sqlite3_finalize(s);
	return rc;
}
