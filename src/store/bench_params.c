/* The parameter value of each run of a `bench --param`; see store/bench_params.h. */
#include <sqlite3.h>

#include "store/bench_params.h"
#include "store/store_impl.h"
#include "base/banned.h"

static const char params_schema[] =
    "CREATE TABLE IF NOT EXISTS bench_params(run_id INTEGER PRIMARY KEY,"
    " bench_id INTEGER NOT NULL, name TEXT NOT NULL, value REAL NOT NULL, text TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS bench_params_bench ON bench_params(bench_id);";

int tm_bench_params_init(struct tm_store *st)
{
	return tm_st_exec(st, params_schema);
}

int tm_bench_params_store(struct tm_store *st, int64_t bench_id, int64_t run_id, const char *name,
                          double value, const char *text)
{
	sqlite3_stmt *s;

	if (tm_store_commit(st) ||
	    tm_st_prepare(st,
	                  "INSERT OR REPLACE INTO bench_params(run_id, bench_id, name, value, text)"
	                  " VALUES(?,?,?,?,?)",
	                  &s, "prepare bench parameter"))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, bench_id);
	tm_st_bind_text(s, 3, name);
	sqlite3_bind_double(s, 4, value);
	tm_st_bind_text(s, 5, text);
	return tm_st_step_done(st, s, true, "insert bench parameter");
}

int tm_bench_params_each(struct tm_store *st, int64_t bench_id, tm_bench_param_cb fn, void *ctx)
{
	sqlite3_stmt *s;
	int64_t n = 0;
	int rc;

	if (tm_st_query_int64(st,
	                      "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
	                      " AND name = ?",
	                      "bench_params", 0, &n) < 0)
		return -1;
	if (n == 0)
		return 0; /* an older store: no bench of it has a parameter */
	if (tm_st_prepare(st,
	                  "SELECT run_id, name, value, text FROM bench_params WHERE bench_id = ?"
	                  " ORDER BY run_id",
	                  &s, "prepare bench parameters"))
		return -1;
	sqlite3_bind_int64(s, 1, bench_id);
	while ((rc = tm_st_step_row(st, s, "read bench parameters")) == 0) {
		const char *name = (const char *)sqlite3_column_text(s, 1);
		const char *text = (const char *)sqlite3_column_text(s, 3);
		int r = fn(ctx, sqlite3_column_int64(s, 0), name ? name : "",
		           sqlite3_column_double(s, 2), text ? text : "");
		if (r) {
			sqlite3_finalize(s);
			return r;
		}
	}
	sqlite3_finalize(s);
	return rc < 0 ? -1 : 0;
}
