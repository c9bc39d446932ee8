/* The scrape_series and scrape_values tables; see store/scraped.h. */
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "store/scraped.h"
#include "store/store_impl.h"
#include "base/banned.h"

const char tm_st_scraped_schema[] =
    "CREATE TABLE IF NOT EXISTS scrape_series(id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, source TEXT NOT NULL,"
    " UNIQUE(run_id, name));"
    "CREATE TABLE IF NOT EXISTS scrape_values(run_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " series_id INTEGER NOT NULL, t_wall_usec INTEGER NOT NULL, value REAL NOT NULL,"
    " PRIMARY KEY(run_id, seq, series_id)) WITHOUT ROWID;";

/* Whether the tables are there: a read-only store older than them has
 * none.  1, 0, or -1. */
static int have_tables(struct tm_store *st)
{
	int64_t n = 0;
	int rc = tm_st_query_int64(st,
	                           "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	                           " AND name = ?",
	                           "scrape_values", 0, &n);
	return rc < 0 ? -1 : n > 0;
}

int tm_store_scraped_series(struct tm_store *st, int64_t run_id, const char *name, const char *kind,
                            const char *source, int64_t *id)
{
	sqlite3_stmt *s;
	int rc;

	if (tm_st_begin_batch(st) ||
	    tm_st_prepare(st,
	                  "INSERT INTO scrape_series(run_id, name, kind, source) VALUES(?,?,?,?)"
	                  " ON CONFLICT(run_id, name) DO UPDATE SET kind = excluded.kind"
	                  " WHERE kind = 'unknown' AND excluded.kind != 'unknown'",
	                  &s, "prepare scrape series"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	tm_st_bind_text(s, 2, name);
	tm_st_bind_text(s, 3, kind);
	tm_st_bind_text(s, 4, source);
	if (tm_st_step_done(st, s, true, "add scrape series") ||
	    tm_st_prepare(st, "SELECT id FROM scrape_series WHERE run_id = ? AND name = ?", &s,
	                  "prepare scrape series id"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	tm_st_bind_text(s, 2, name);
	rc = tm_st_step_row(st, s, "scrape series id");
	if (rc == 0)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc == 0 ? 0 : rc < 0 ? -1 : tm_error("scrape series '%s' vanished", name);
}

int tm_store_add_scraped(struct tm_store *st, int64_t run_id, int64_t series_id, int64_t seq,
                         int64_t t_wall_usec, double value)
{
	sqlite3_stmt *s;

	if (!isfinite(value))
		return tm_error("scraped value of series %lld is not finite", (long long)series_id);
	if (st->window_usec) {
		struct tm_pending_row row = {.stmt = TM_ST_ADD_SCRAPED,
		                             .v = {run_id, seq, series_id, t_wall_usec},
		                             .d = value};
		return tm_st_pending_add(st, &row);
	}
	if (tm_st_begin_batch(st) || !(s = tm_st_cached(st, TM_ST_ADD_SCRAPED)))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, seq);
	sqlite3_bind_int64(s, 3, series_id);
	sqlite3_bind_int64(s, 4, t_wall_usec);
	sqlite3_bind_double(s, 5, value);
	return tm_st_step_done(st, s, false, "add scraped value");
}

int tm_store_each_scraped_series(struct tm_store *st, int64_t run_id, tm_scraped_series_cb cb,
                                 void *ctx)
{
	sqlite3_stmt *s;
	int rc = have_tables(st);

	if (rc <= 0)
		return rc;
	if (tm_st_prepare(st,
	                  "SELECT id, name, kind, source FROM scrape_series WHERE run_id = ?"
	                  " ORDER BY id",
	                  &s, "prepare scrape series"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	while ((rc = tm_st_step_row(st, s, "read scrape series")) == 0) {
		struct tm_scraped_series ser = {
		    .id = sqlite3_column_int64(s, 0),
		    .name = (const char *)sqlite3_column_text(s, 1),
		    .kind = (const char *)sqlite3_column_text(s, 2),
		    .source = (const char *)sqlite3_column_text(s, 3),
		};
		if ((rc = cb(ctx, &ser)))
			break;
	}
	sqlite3_finalize(s);
	return rc == 1 ? 0 : rc;
}

int tm_store_each_scraped_value(struct tm_store *st, int64_t run_id, int64_t series_id,
                                int64_t from_seq, int64_t to_seq, tm_scraped_value_cb cb, void *ctx)
{
	sqlite3_stmt *s;
	int rc = have_tables(st);

	if (rc <= 0)
		return rc;
	if (tm_st_prepare(st,
	                  "SELECT series_id, seq, t_wall_usec, value FROM scrape_values"
	                  " WHERE run_id = ?1 AND seq >= ?2 AND (?3 < 0 OR seq <= ?3)"
	                  " AND (?4 = 0 OR series_id = ?4) ORDER BY seq, series_id",
	                  &s, "prepare scraped values"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, from_seq);
	sqlite3_bind_int64(s, 3, to_seq);
	sqlite3_bind_int64(s, 4, series_id);
	while ((rc = tm_st_step_row(st, s, "read scraped values")) == 0)
		if ((rc = cb(ctx, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
		             sqlite3_column_int64(s, 2), sqlite3_column_double(s, 3))))
			break;
	sqlite3_finalize(s);
	return rc == 1 ? 0 : rc;
}

int tm_store_delete_scraped(struct tm_store *st, int64_t run_id)
{
	sqlite3_stmt *s;
	int rc = have_tables(st);

	if (rc <= 0)
		return rc;
	for (int i = 0; i < 2; i++) {
		if (tm_st_begin_batch(st) ||
		    tm_st_prepare(st,
		                  i ? "DELETE FROM scrape_series WHERE run_id = ?"
		                    : "DELETE FROM scrape_values WHERE run_id = ?",
		                  &s, "prepare scrape delete"))
			return -1;
		sqlite3_bind_int64(s, 1, run_id);
		if (tm_st_step_done(st, s, true, "delete scraped"))
			return -1;
	}
	return 0;
}
