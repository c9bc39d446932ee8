/*
 * The store's file: the schema, opening and closing, batches, and the
 * statement helpers the other files of src/store/ share (store_impl.h).
 * docs/store.md describes the schema.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/metrics.h"
#include "store/store_impl.h"
#include "base/banned.h"

/* 2: rollups and removed_runs (a version 1 file gets them when opened for
 * writing; its runs' rollups are built at their next write or prune) */
#define SCHEMA_VERSION "2"

/* The statements every sample runs, prepared once per handle. */
static const char *const cached_sql[TM_ST_COUNT] = {
    [TM_ST_ADD_SAMPLE] = "INSERT INTO samples(run_id, seq, t_wall_usec, t_mono_usec, late_usec, "
                         "data) VALUES (?,?,?,?,?,?)",
    [TM_ST_ADD_EVENT] = "INSERT INTO events(run_id, t_wall_usec, t_mono_usec, kind, pid, value, "
                        "detail) VALUES (?,?,?,?,?,?,?)",
    [TM_ST_ADD_PROGRESS] = "INSERT INTO progress(run_id, t_wall_usec, t_mono_usec, value) "
                           "VALUES (?,?,?,?)",
    [TM_ST_ADD_MARK] = "INSERT INTO marks(run_id, t_wall_usec, t_mono_usec, text) VALUES (?,?,?,?)",
    [TM_ST_PUT_ROLLUP] = "INSERT OR REPLACE INTO rollups(run_id, level_sec, bucket_wall_usec, "
                         "first_seq, last_seq, samples, late_samples, t_first_wall_usec, "
                         "t_last_wall_usec, t_first_mono_usec, t_last_mono_usec, data) "
                         "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
    [TM_ST_ADD_SCRAPED] =
        "INSERT OR REPLACE INTO scrape_values(run_id, seq, series_id, t_wall_usec,"
        " value) VALUES (?,?,?,?,?)",
    /* a batch's ends, at every commit: prepared once, not parsed each time */
    [TM_ST_BEGIN] = "BEGIN IMMEDIATE",
    [TM_ST_COMMIT] = "COMMIT",
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE IF NOT EXISTS metrics(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,"
    " unit TEXT NOT NULL, kind TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS runs(id INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE,"
    " machine TEXT, kernel TEXT, cgroup_mode TEXT, target TEXT, cgroup_path TEXT,"
    " command_json TEXT, env_json TEXT, limits_json TEXT, allocator TEXT,"
    " interval_usec INTEGER, started_wall_usec INTEGER, started_mono_usec INTEGER,"
    " ended_wall_usec INTEGER, outcome TEXT, reason TEXT, exit_code INTEGER,"
    " term_signal INTEGER, bench_id INTEGER, arm TEXT, bench_seq INTEGER);"
    "CREATE INDEX IF NOT EXISTS runs_bench ON runs(bench_id, bench_seq);"
    "CREATE TABLE IF NOT EXISTS samples(run_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " t_wall_usec INTEGER NOT NULL, t_mono_usec INTEGER NOT NULL, late_usec INTEGER NOT NULL,"
    " data BLOB NOT NULL, PRIMARY KEY(run_id, seq)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,"
    " t_wall_usec INTEGER NOT NULL, t_mono_usec INTEGER NOT NULL, kind TEXT NOT NULL,"
    " pid INTEGER, value INTEGER, detail TEXT);"
    "CREATE INDEX IF NOT EXISTS events_run ON events(run_id, t_mono_usec);"
    "CREATE TABLE IF NOT EXISTS progress(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,"
    " t_wall_usec INTEGER NOT NULL, t_mono_usec INTEGER NOT NULL, value REAL NOT NULL);"
    "CREATE INDEX IF NOT EXISTS progress_run ON progress(run_id, t_mono_usec);"
    "CREATE TABLE IF NOT EXISTS marks(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL,"
    " t_wall_usec INTEGER NOT NULL, t_mono_usec INTEGER NOT NULL, text TEXT NOT NULL);"
    "CREATE INDEX IF NOT EXISTS marks_run ON marks(run_id, t_mono_usec);"
    "CREATE TABLE IF NOT EXISTS rollups(run_id INTEGER NOT NULL, level_sec INTEGER NOT NULL,"
    " bucket_wall_usec INTEGER NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,"
    " samples INTEGER NOT NULL, late_samples INTEGER NOT NULL,"
    " t_first_wall_usec INTEGER NOT NULL, t_last_wall_usec INTEGER NOT NULL,"
    " t_first_mono_usec INTEGER NOT NULL, t_last_mono_usec INTEGER NOT NULL,"
    " data BLOB NOT NULL, PRIMARY KEY(run_id, level_sec, bucket_wall_usec)) WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS removed_runs(run_id INTEGER PRIMARY KEY, uuid TEXT,"
    " bench_id INTEGER, arm TEXT, bench_seq INTEGER, samples INTEGER,"
    " removed_wall_usec INTEGER NOT NULL, how TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS damaged_samples(run_id INTEGER NOT NULL, seq INTEGER NOT NULL,"
    " t_wall_usec INTEGER NOT NULL, t_mono_usec INTEGER NOT NULL, late_usec INTEGER NOT NULL,"
    " data BLOB NOT NULL, why TEXT NOT NULL, quarantined_wall_usec INTEGER NOT NULL,"
    " PRIMARY KEY(run_id, seq)) WITHOUT ROWID;";

static const char *kind_name(enum tm_kind k)
{
	return k == TM_COUNTER ? "counter" : "gauge";
}

/* Records the metric registry in the file, so its ids can be read by name. */
static int register_metrics(struct tm_store *st)
{
	sqlite3_stmt *ins;
	int rc = 0;

	if (sqlite3_prepare_v2(
	        st->db, "INSERT OR IGNORE INTO metrics(id, name, unit, kind) VALUES (?,?,?,?)", -1,
	        &ins, NULL) != SQLITE_OK)
		return tm_st_error(st, "prepare metrics");
	for (int i = 0; i < TM_METRIC_COUNT && !rc; i++) {
		const struct tm_metric_info *mi = tm_metric_info(i);
		sqlite3_bind_int(ins, 1, i);
		sqlite3_bind_text(ins, 2, mi->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, tm_unit_name(mi->unit), -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, kind_name(mi->kind), -1, SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tm_st_error(st, "register metrics");
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	return rc;
}

/* Refuses a file whose metric ids mean something else than ours. */
static int check_metrics(struct tm_store *st)
{
	sqlite3_stmt *q;
	int rc = 0, step;

	if (sqlite3_prepare_v2(st->db, "SELECT id, name FROM metrics", -1, &q, NULL) != SQLITE_OK)
		return tm_st_error(st, "read metrics");
	while (!rc && (step = sqlite3_step(q)) == SQLITE_ROW) {
		int id = sqlite3_column_int(q, 0);
		const char *name = (const char *)sqlite3_column_text(q, 1);
		const struct tm_metric_info *mi = tm_metric_info(id);
		if (mi && name && strcmp(mi->name, name))
			rc = tm_error("store '%s': metric %d is '%s' in the file but '%s' here "
			              "(written by an incompatible tidemark)",
			              st->path, id, name, mi->name);
	}
	if (!rc && step != SQLITE_DONE)
		rc = tm_st_error(st, "read metrics");
	sqlite3_finalize(q);
	return rc;
}

/* A new file's vacuum mode (an existing file keeps its own: SQLite ignores
 * it once a table exists): incremental, so that a prune can give the pages
 * it freed back to the file system (docs/store.md).  The page size stays
 * SQLite's 4 KiB: 8 KiB pages kept a rollup row (about 1 KB) out of an
 * overflow page, but doubled the page each commit rewrites, and measured
 * worse (bench/README.md). */
#ifndef TM_STORE_AUTO_VACUUM
#define TM_STORE_AUTO_VACUUM "INCREMENTAL"
#endif
static const char new_file_sql[] = "PRAGMA auto_vacuum=" TM_STORE_AUTO_VACUUM ";";

static int try_set_up(struct tm_store *st, char **err)
{
	if (sqlite3_exec(st->db, new_file_sql, NULL, NULL, err) != SQLITE_OK ||
	    sqlite3_exec(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", NULL, NULL,
	                 err) != SQLITE_OK ||
	    sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, err) != SQLITE_OK)
		return sqlite3_errcode(st->db);
	if (sqlite3_exec(st->db, schema_sql, NULL, NULL, err) != SQLITE_OK ||
	    sqlite3_exec(st->db, tm_st_scraped_schema, NULL, NULL, err) != SQLITE_OK ||
	    sqlite3_exec(st->db, tm_st_handles_schema, NULL, NULL, err) != SQLITE_OK ||
	    sqlite3_exec(st->db,
	                 "INSERT OR REPLACE INTO meta(key, value) VALUES "
	                 "('schema_version', '" SCHEMA_VERSION "')",
	                 NULL, NULL, err) != SQLITE_OK ||
	    register_metrics(st) || tm_st_handle_register(st) ||
	    sqlite3_exec(st->db, "COMMIT", NULL, NULL, err) != SQLITE_OK) {
		int rc = sqlite3_errcode(st->db);
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return rc == SQLITE_OK ? SQLITE_ERROR : rc;
	}
	return SQLITE_OK;
}

/*
 * Creates the schema.  Two processes creating one new file race for the
 * switch to WAL, where SQLite's busy handler does not wait for us: retry.
 */
static int set_up_schema(struct tm_store *st, char **err)
{
	for (int attempt = 0; attempt < 200; attempt++) {
		int rc = try_set_up(st, err);
		if (rc == SQLITE_OK)
			return 0;
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			return -1;
		sqlite3_free(*err);
		*err = NULL;
		usleep(50000);
	}
	return -1;
}

static bool set_up_failed(struct tm_store *st, char **err)
{
	return set_up_schema(st, err) != 0;
}

static bool probe(struct tm_store *st, char **err)
{
	return sqlite3_exec(st->db, "SELECT 1 FROM runs LIMIT 1", NULL, NULL, err) != SQLITE_OK;
}

/* Whether a read-only handle cannot read the runs; on a read-only mount,
 * where SQLite cannot create the -shm file it wants, after reopening the
 * file as immutable (no writer can change it there). */
static bool probe_failed(struct tm_store *st, char **err)
{
	char *uri;

	if (!probe(st, err))
		return false;
	if (!tm_st_on_readonly_fs(st->path) || !(uri = tm_st_immutable_uri(st->path)))
		return true;
	sqlite3_close(st->db);
	st->db = NULL;
	int rc = sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return true;
	sqlite3_free(*err);
	*err = NULL;
	return probe(st, err);
}

static int open_common(const char *path, int flags, struct tm_store **out)
{
	struct tm_store *st = calloc(1, sizeof(*st));
	char *err = NULL;

	if (!st || !(st->path = strdup(path))) {
		free(st);
		return tm_error("out of memory");
	}
	if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
		tm_error("cannot open store '%s': %s", path,
		         st->db ? sqlite3_errmsg(st->db) : "out of memory");
		tm_store_close(st);
		return -1;
	}
	sqlite3_busy_timeout(st->db, 10000);
	if ((flags & SQLITE_OPEN_READWRITE) ? set_up_failed(st, &err) : probe_failed(st, &err)) {
		struct tm_err why = {0};
		if (!tm_st_access_why(path, flags & SQLITE_OPEN_READWRITE, &why))
			tm_error("cannot %s store '%s': %s",
			         flags & SQLITE_OPEN_READWRITE ? "write" : "read", path, why.msg);
		else if (flags & SQLITE_OPEN_READWRITE)
			tm_error("cannot set up store '%s': %s (is it a tidemark store?)", path,
			         err ? err : sqlite3_errmsg(st->db));
		else
			tm_error("'%s' is not a tidemark store: %s", path,
			         err ? err : "unreadable");
		sqlite3_free(err);
		tm_store_close(st);
		return -1;
	}
	if (check_metrics(st)) {
		tm_store_close(st);
		return -1;
	}
	tm_st_check_unclean(st, flags & SQLITE_OPEN_READWRITE);
	st->has_rollups =
	    sqlite3_exec(st->db, "SELECT 1 FROM rollups LIMIT 1", NULL, NULL, NULL) == SQLITE_OK;
	struct stat sb;
	if (stat(path, &sb) == 0) {
		st->dev = sb.st_dev;
		st->ino = sb.st_ino;
	}
	*out = st;
	return 0;
}

int tm_store_open(const char *path, struct tm_store **out)
{
	return open_common(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, out);
}

int tm_store_open_readonly(const char *path, struct tm_store **out)
{
	if (access(path, R_OK))
		return tm_error("cannot open store '%s': %s", path, strerror(errno));
	return open_common(path, SQLITE_OPEN_READONLY, out);
}

int tm_store_bound_cache(struct tm_store *st, int64_t kib)
{
	char sql[64];

	if (kib <= 0)
		return tm_error("store cache bound %lld KiB: not positive", (long long)kib);
	/* negative: a size in KiB, whatever the page size */
	snprintf(sql, sizeof(sql), "PRAGMA cache_size=-%lld", (long long)kib);
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return tm_error("cannot bound the store's cache: %s", sqlite3_errmsg(st->db));
	return 0;
}

void tm_store_close(struct tm_store *st)
{
	if (!st)
		return;
	tm_store_commit(st); /* what waits, and the open rollup buckets */
	tm_st_pending_free(st);
	tm_st_handle_unregister(st);
	for (int i = 0; i < TM_ST_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	sqlite3_close(st->db);
	tm_st_damage_free(st);
	free(st->path);
	free(st);
}

/* ---- helpers for the other files of src/store/ ---- */

int tm_st_fail(struct tm_store *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->last_error, sizeof(st->last_error), fmt, ap);
	va_end(ap);
	return st->quiet ? -1 : tm_error("store '%s': %s", st->path, st->last_error);
}

void tm_store_set_quiet(struct tm_store *st, bool quiet)
{
	st->quiet = quiet;
}

const char *tm_store_last_error(const struct tm_store *st)
{
	return st->last_error;
}

int tm_st_error(struct tm_store *st, const char *what)
{
	int code = sqlite3_errcode(st->db);

	if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
		return tm_st_fail(st,
		                  "%s: %s: the file is damaged, and figures read from it would be "
		                  "incomplete ('tidemark runs check' says where)",
		                  what, sqlite3_errmsg(st->db));
	return tm_st_fail(st, "%s: %s", what, sqlite3_errmsg(st->db));
}

int tm_st_exec(struct tm_store *st, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		int rc = tm_st_fail(st, "%s", err ? err : "error");
		sqlite3_free(err);
		return rc;
	}
	return 0;
}

int tm_st_prepare(struct tm_store *st, const char *sql, sqlite3_stmt **out, const char *what)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, out, NULL) != SQLITE_OK) {
		*out = NULL;
		return tm_st_error(st, what);
	}
	return 0;
}

sqlite3_stmt *tm_st_cached(struct tm_store *st, enum tm_stmt_id id)
{
	if (!st->stmt[id] && tm_st_prepare(st, cached_sql[id], &st->stmt[id], "prepare"))
		return NULL;
	sqlite3_reset(st->stmt[id]);
	sqlite3_clear_bindings(st->stmt[id]);
	return st->stmt[id];
}

int tm_st_step_done(struct tm_store *st, sqlite3_stmt *s, bool finalize, const char *what)
{
	int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : tm_st_error(st, what);

	if (finalize)
		sqlite3_finalize(s);
	else
		sqlite3_reset(s);
	return rc;
}

void tm_st_bind_text(sqlite3_stmt *s, int i, const char *text)
{
	if (text)
		sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

void tm_st_bind_int64_min(sqlite3_stmt *s, int i, int64_t v, int64_t min)
{
	if (v >= min)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

char *tm_st_dup_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? strdup((const char *)t) : NULL;
}

int tm_st_query_int64(struct tm_store *st, const char *sql, const char *text, int64_t num,
                      int64_t *out)
{
	sqlite3_stmt *s;
	int rc;

	if (tm_st_prepare(st, sql, &s, "prepare"))
		return -1;
	if (text)
		sqlite3_bind_text(s, 1, text, -1, SQLITE_TRANSIENT);
	else if (sqlite3_bind_parameter_count(s) > 0)
		sqlite3_bind_int64(s, 1, num);
	rc = tm_st_step_row(st, s, "query");
	if (rc == 0 && sqlite3_column_type(s, 0) == SQLITE_NULL)
		rc = 1;
	else if (rc == 0)
		*out = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return rc;
}

int tm_st_step_row(struct tm_store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : tm_st_error(st, what);
}

/* ---- batches ---- */

int tm_st_begin_batch(struct tm_store *st)
{
	sqlite3_stmt *s;

	if (st->in_tx)
		return 0;
	if (!(s = tm_st_cached(st, TM_ST_BEGIN)) || tm_st_step_done(st, s, false, "begin"))
		return -1;
	st->in_tx = true;
	return 0;
}

/* Commits the batch (with the waiting rows, and the open rollup buckets
 * when ROLLUPS); on failure rolls it back and forgets what the writers
 * remember, which may not be in the file. */
static int commit(struct tm_store *st, bool rollups)
{
	int rc = tm_st_pending_replay(st);
	sqlite3_stmt *s;

	if (!rc && rollups)
		rc = tm_st_rollup_flush_all(st); /* opens the batch when one is dirty */
	if (!st->in_tx) {
		if (rc) /* what the writers remember may not be in the file */
			memset(st->writers, 0, sizeof(st->writers));
		return rc;
	}
	st->in_tx = false;
	if (rc || !(s = tm_st_cached(st, TM_ST_COMMIT)) ||
	    tm_st_step_done(st, s, false, "commit")) {
		rc = -1;
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		memset(st->writers, 0, sizeof(st->writers));
		return rc;
	}
	return 0;
}

int tm_store_commit(struct tm_store *st)
{
	return commit(st, true);
}

void tm_store_set_commit_window(struct tm_store *st, int64_t window_usec)
{
	st->window_usec = window_usec > 0 ? window_usec : 0;
}

int tm_store_commit_due(struct tm_store *st, int64_t now_mono_usec)
{
	bool due = st->in_tx || tm_st_pending_full(st) ||
	           (st->npending && now_mono_usec - st->pending_since_usec >= st->window_usec);

	return due ? commit(st, false) : 0;
}

void tm_store_abandon(struct tm_store *st)
{
	bool lost = st->in_tx || st->npending;

	tm_st_pending_drop(st);
	if (st->in_tx)
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	st->in_tx = false;
	if (lost) /* what the writers remember is not in the file */
		memset(st->writers, 0, sizeof(st->writers));
}

int tm_store_check_file(struct tm_store *st)
{
	struct stat sb;

	if (!st->ino)
		return 0;
	if (stat(st->path, &sb) < 0)
		return tm_st_fail(st, "%s (removed while recording?)", strerror(errno));
	if (sb.st_dev != st->dev || sb.st_ino != st->ino)
		return tm_st_fail(st, "replaced by another file while recording");
	return 0;
}
