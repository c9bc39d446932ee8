/*
 * The SQLite store.  See docs/store.md for the schema and the sample
 * encoding; this file is the only one that knows either.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/error.h"
#include "base/util.h"
#include "store/store.h"
#include "base/banned.h"

#define SCHEMA_VERSION "1"
/* Every KEYFRAME_EVERY-th sample is encoded whole, so a reader can start
 * there and a damaged row costs at most that many samples. */
#define KEYFRAME_EVERY 256
#define WRITER_CACHE   16

enum {
	ENC_KEYFRAME = 1,  /* values are absolute (else deltas against seq - 1) */
	ENC_SAME_MASK = 2, /* present mask as in seq - 1 (not written) */
};

/* The last sample written to a run, the base of the next delta. */
struct writer_state {
	int64_t run_id;
	struct tm_sample last;
	uint64_t lru;
};

enum stmt_id { ST_ADD_SAMPLE, ST_ADD_EVENT, ST_ADD_PROGRESS, ST_ADD_MARK, ST_LAST_SEQ, ST_COUNT };

static const char *const stmt_sql[ST_COUNT] = {
    [ST_ADD_SAMPLE] = "INSERT INTO samples(run_id, seq, t_wall_usec, t_mono_usec, late_usec, "
                      "data) VALUES (?,?,?,?,?,?)",
    [ST_ADD_EVENT] = "INSERT INTO events(run_id, t_wall_usec, t_mono_usec, kind, pid, value, "
                     "detail) VALUES (?,?,?,?,?,?,?)",
    [ST_ADD_PROGRESS] = "INSERT INTO progress(run_id, t_wall_usec, t_mono_usec, value) "
                        "VALUES (?,?,?,?)",
    [ST_ADD_MARK] = "INSERT INTO marks(run_id, t_wall_usec, t_mono_usec, text) VALUES (?,?,?,?)",
    [ST_LAST_SEQ] = "SELECT max(seq) FROM samples WHERE run_id = ?",
};

struct tm_store {
	sqlite3 *db;
	char *path;
	dev_t dev; /* the file opened, to notice it removed or replaced */
	ino_t ino;
	bool in_tx;
	sqlite3_stmt *stmt[ST_COUNT];
	struct writer_state writers[WRITER_CACHE];
	uint64_t lru_clock;
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
    "CREATE INDEX IF NOT EXISTS marks_run ON marks(run_id, t_mono_usec);";

int tm_store_db_error(struct tm_store *st, const char *what)
{
	return tm_error("store '%s': %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

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
		return tm_store_db_error(st, "prepare metrics");
	for (int i = 0; i < TM_METRIC_COUNT && !rc; i++) {
		const struct tm_metric_info *mi = tm_metric_info(i);
		sqlite3_bind_int(ins, 1, i);
		sqlite3_bind_text(ins, 2, mi->name, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 3, tm_unit_name(mi->unit), -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, kind_name(mi->kind), -1, SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = tm_store_db_error(st, "register metrics");
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	return rc;
}

/* Refuses a file whose metric ids mean something else than ours. */
static int check_metrics(struct tm_store *st)
{
	sqlite3_stmt *q;
	int rc = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT id, name FROM metrics", -1, &q, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "read metrics");
	while (sqlite3_step(q) == SQLITE_ROW && !rc) {
		int id = sqlite3_column_int(q, 0);
		const char *name = (const char *)sqlite3_column_text(q, 1);
		const struct tm_metric_info *mi = tm_metric_info(id);
		if (mi && name && strcmp(mi->name, name))
			rc = tm_error("store '%s': metric %d is '%s' in the file but '%s' here "
			              "(written by an incompatible tidemark)",
			              st->path, id, name, mi->name);
	}
	sqlite3_finalize(q);
	return rc;
}

static int try_set_up(struct tm_store *st, char **err)
{
	if (sqlite3_exec(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", NULL, NULL,
	                 err) != SQLITE_OK ||
	    sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, err) != SQLITE_OK)
		return sqlite3_errcode(st->db);
	if (sqlite3_exec(st->db, schema_sql, NULL, NULL, err) != SQLITE_OK ||
	    sqlite3_exec(st->db,
	                 "INSERT OR IGNORE INTO meta(key, value) VALUES "
	                 "('schema_version', '" SCHEMA_VERSION "')",
	                 NULL, NULL, err) != SQLITE_OK ||
	    register_metrics(st) || sqlite3_exec(st->db, "COMMIT", NULL, NULL, err) != SQLITE_OK) {
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
	if (flags & SQLITE_OPEN_READWRITE) {
		if (set_up_schema(st, &err)) {
			tm_error("cannot set up store '%s': %s (is it a tidemark store?)", path,
			         err ? err : sqlite3_errmsg(st->db));
			sqlite3_free(err);
			tm_store_close(st);
			return -1;
		}
	} else if (sqlite3_exec(st->db, "SELECT 1 FROM runs LIMIT 1", NULL, NULL, &err) !=
	           SQLITE_OK) {
		tm_error("'%s' is not a tidemark store: %s", path, err ? err : "unreadable");
		sqlite3_free(err);
		tm_store_close(st);
		return -1;
	}
	if (check_metrics(st)) {
		tm_store_close(st);
		return -1;
	}
	struct stat sb;
	if (stat(path, &sb) == 0) {
		st->dev = sb.st_dev;
		st->ino = sb.st_ino;
	}
	*out = st;
	return 0;
}

int tm_store_check_file(struct tm_store *st)
{
	struct stat sb;

	if (!st->ino)
		return 0;
	if (stat(st->path, &sb) < 0)
		return tm_error("store '%s': %s (removed while recording?)", st->path,
		                strerror(errno));
	if (sb.st_dev != st->dev || sb.st_ino != st->ino)
		return tm_error("store '%s' was replaced by another file while recording",
		                st->path);
	return 0;
}

void tm_store_abandon(struct tm_store *st)
{
	if (!st->in_tx)
		return;
	st->in_tx = false;
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	memset(st->writers, 0, sizeof(st->writers));
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

void tm_store_close(struct tm_store *st)
{
	if (!st)
		return;
	if (st->in_tx)
		tm_store_commit(st);
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

struct sqlite3 *tm_store_sqlite(struct tm_store *st)
{
	return st->db;
}

int tm_store_exec(struct tm_store *st, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		int rc = tm_error("store '%s': %s", st->path, err ? err : "error");
		sqlite3_free(err);
		return rc;
	}
	return 0;
}

static sqlite3_stmt *stmt(struct tm_store *st, enum stmt_id id)
{
	if (!st->stmt[id] &&
	    sqlite3_prepare_v2(st->db, stmt_sql[id], -1, &st->stmt[id], NULL) != SQLITE_OK) {
		tm_store_db_error(st, "prepare");
		return NULL;
	}
	sqlite3_reset(st->stmt[id]);
	sqlite3_clear_bindings(st->stmt[id]);
	return st->stmt[id];
}

/* Writes are batched: the first write opens a transaction, commit closes it. */
static int begin_batch(struct tm_store *st)
{
	if (st->in_tx)
		return 0;
	if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "begin");
	st->in_tx = true;
	return 0;
}

int tm_store_commit(struct tm_store *st)
{
	if (!st->in_tx)
		return 0;
	st->in_tx = false;
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		int rc = tm_store_db_error(st, "commit");
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		/* what the writers remember may not be in the file */
		memset(st->writers, 0, sizeof(st->writers));
		return rc;
	}
	return 0;
}

static int step_done(struct tm_store *st, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : tm_store_db_error(st, what);
}

/* ---- runs ---- */

static void make_uuid(char out[37])
{
	unsigned char b[16];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);
		if (n <= 0) {
			/* no entropy source: time and pid still make it unique enough */
			int64_t t = tm_now_wall_usec() ^ ((int64_t)getpid() << 40);
			for (size_t i = got; i < sizeof(b); i++)
				b[i] = (unsigned char)(t >> (8 * (i % 8)));
			break;
		}
		got += (size_t)n;
	}
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	         b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
	         b[13], b[14], b[15]);
}

void tm_store_bind_text(sqlite3_stmt *s, int i, const char *t)
{
	if (t)
		sqlite3_bind_text(s, i, t, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

int tm_store_run_begin(struct tm_store *st, const struct tm_run_meta *m, int64_t *run_id)
{
	static const char sql[] =
	    "INSERT INTO runs(uuid, machine, kernel, cgroup_mode, target, cgroup_path,"
	    " command_json, env_json, limits_json, allocator, interval_usec,"
	    " started_wall_usec, started_mono_usec, bench_id, arm, bench_seq)"
	    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	char uuid[37];
	sqlite3_stmt *s;
	int rc;

	if (begin_batch(st))
		return -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare run");
	if (!m->uuid)
		make_uuid(uuid);
	sqlite3_bind_text(s, 1, m->uuid ? m->uuid : uuid, -1, SQLITE_TRANSIENT);
	tm_store_bind_text(s, 2, m->machine);
	tm_store_bind_text(s, 3, m->kernel);
	tm_store_bind_text(s, 4, m->cgroup_mode);
	tm_store_bind_text(s, 5, m->target);
	tm_store_bind_text(s, 6, m->cgroup_path);
	tm_store_bind_text(s, 7, m->command_json);
	tm_store_bind_text(s, 8, m->env_json);
	tm_store_bind_text(s, 9, m->limits_json);
	tm_store_bind_text(s, 10, m->allocator);
	sqlite3_bind_int64(s, 11, m->interval_usec);
	sqlite3_bind_int64(s, 12, m->started_wall_usec);
	sqlite3_bind_int64(s, 13, m->started_mono_usec);
	if (m->bench_id > 0) {
		sqlite3_bind_int64(s, 14, m->bench_id);
		tm_store_bind_text(s, 15, m->arm);
		sqlite3_bind_int64(s, 16, m->bench_seq);
	}
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : tm_store_db_error(st, "add run");
	sqlite3_finalize(s);
	if (!rc)
		*run_id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

int tm_store_run_end(struct tm_store *st, int64_t run_id, const struct tm_run_end *e)
{
	static const char sql[] = "UPDATE runs SET ended_wall_usec = ?, outcome = ?, exit_code = ?,"
	                          " term_signal = ?, reason = coalesce(?, reason) WHERE id = ?";
	sqlite3_stmt *s;
	int rc;

	if (begin_batch(st))
		return -1;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare run end");
	sqlite3_bind_int64(s, 1, e->ended_wall_usec);
	tm_store_bind_text(s, 2, tm_outcome_name(e->outcome));
	sqlite3_bind_int(s, 3, e->exit_code);
	sqlite3_bind_int(s, 4, e->term_signal);
	tm_store_bind_text(s, 5, e->reason);
	sqlite3_bind_int64(s, 6, run_id);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : tm_store_db_error(st, "end run");
	sqlite3_finalize(s);
	return rc;
}

int tm_store_run_set_text(struct tm_store *st, int64_t run_id, const char *column,
                          const char *value)
{
	static const char *const allowed[] = {"allocator",   "limits_json", "env_json", "reason",
	                                      "cgroup_path", "cgroup_mode", "outcome"};
	char sql[128];
	sqlite3_stmt *s;
	bool ok = false;
	int rc;

	for (size_t i = 0; i < TM_ARRAY_SIZE(allowed); i++)
		ok |= !strcmp(column, allowed[i]);
	if (!ok)
		TM_BUG("runs.%s is not a settable column", column);
	if (begin_batch(st))
		return -1;
	snprintf(sql, sizeof(sql), "UPDATE runs SET %s = ? WHERE id = ?", column);
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare run update");
	tm_store_bind_text(s, 1, value);
	sqlite3_bind_int64(s, 2, run_id);
	rc = sqlite3_step(s) == SQLITE_DONE ? 0 : tm_store_db_error(st, "update run");
	sqlite3_finalize(s);
	return rc;
}

#define RUN_COLUMNS                                                                                \
	"r.id, uuid, machine, kernel, cgroup_mode, target, cgroup_path, command_json,"             \
	" env_json, limits_json, allocator, interval_usec, started_wall_usec,"                     \
	" started_mono_usec, ended_wall_usec, outcome, reason, arm, exit_code, term_signal,"       \
	" bench_id, bench_seq, (SELECT count(*) FROM samples WHERE run_id = r.id)"

static char *dup_col(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return t ? strdup((const char *)t) : NULL;
}

static void read_run_row(sqlite3_stmt *s, struct tm_run_info *ri)
{
	memset(ri, 0, sizeof(*ri));
	ri->id = sqlite3_column_int64(s, 0);
	ri->uuid = dup_col(s, 1);
	ri->machine = dup_col(s, 2);
	ri->kernel = dup_col(s, 3);
	ri->cgroup_mode = dup_col(s, 4);
	ri->target = dup_col(s, 5);
	ri->cgroup_path = dup_col(s, 6);
	ri->command_json = dup_col(s, 7);
	ri->env_json = dup_col(s, 8);
	ri->limits_json = dup_col(s, 9);
	ri->allocator = dup_col(s, 10);
	ri->interval_usec = sqlite3_column_int64(s, 11);
	ri->started_wall_usec = sqlite3_column_int64(s, 12);
	ri->started_mono_usec = sqlite3_column_int64(s, 13);
	ri->ended_wall_usec = sqlite3_column_int64(s, 14);
	ri->outcome = dup_col(s, 15);
	ri->reason = dup_col(s, 16);
	ri->arm = dup_col(s, 17);
	ri->exit_code = sqlite3_column_type(s, 18) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 18);
	ri->term_signal = sqlite3_column_int(s, 19);
	ri->bench_id = sqlite3_column_int64(s, 20);
	ri->bench_seq = sqlite3_column_int64(s, 21);
	ri->sample_count = sqlite3_column_int64(s, 22);
}

void tm_run_info_release(struct tm_run_info *ri)
{
	char **strs[] = {&ri->uuid,        &ri->machine,     &ri->kernel,       &ri->cgroup_mode,
	                 &ri->target,      &ri->cgroup_path, &ri->command_json, &ri->env_json,
	                 &ri->limits_json, &ri->allocator,   &ri->outcome,      &ri->reason,
	                 &ri->arm};
	for (size_t i = 0; i < TM_ARRAY_SIZE(strs); i++) {
		free(*strs[i]);
		*strs[i] = NULL;
	}
}

int tm_store_run_get(struct tm_store *st, int64_t run_id, struct tm_run_info *out)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT " RUN_COLUMNS " FROM runs r WHERE r.id = ?", -1, &s,
	                       NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare run");
	sqlite3_bind_int64(s, 1, run_id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		read_run_row(s, out);
		rc = 0;
	} else {
		rc = rc == SQLITE_DONE ? 1 : tm_store_db_error(st, "read run");
	}
	sqlite3_finalize(s);
	return rc;
}

/* Runs the one-integer query SQL with an optional text or integer binding. */
static int query_int64(struct tm_store *st, const char *sql, const char *text, int64_t num,
                       int64_t *out)
{
	sqlite3_stmt *s;
	int rc;

	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare");
	if (text)
		sqlite3_bind_text(s, 1, text, -1, SQLITE_TRANSIENT);
	else if (sqlite3_bind_parameter_count(s) > 0)
		sqlite3_bind_int64(s, 1, num);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*out = sqlite3_column_int64(s, 0);
		rc = 0;
	} else {
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? 1 : tm_store_db_error(st, "query");
	}
	sqlite3_finalize(s);
	return rc;
}

int tm_store_run_by_uuid(struct tm_store *st, const char *uuid, int64_t *run_id)
{
	return query_int64(st, "SELECT id FROM runs WHERE uuid = ?", uuid, 0, run_id);
}

int tm_store_latest_run(struct tm_store *st, int64_t *run_id)
{
	return query_int64(st, "SELECT max(id) FROM runs", NULL, 0, run_id);
}

int tm_store_each_run(struct tm_store *st, int64_t bench_id, tm_run_cb cb, void *ctx)
{
	sqlite3_stmt *s;
	int rc = 0, step;

	if (sqlite3_prepare_v2(st->db,
	                       bench_id > 0
	                           ? "SELECT " RUN_COLUMNS
	                             " FROM runs r WHERE bench_id = ? ORDER BY bench_seq, r.id"
	                           : "SELECT " RUN_COLUMNS " FROM runs r ORDER BY r.id",
	                       -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare runs");
	if (bench_id > 0)
		sqlite3_bind_int64(s, 1, bench_id);
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		struct tm_run_info ri;
		read_run_row(s, &ri);
		rc = cb(ctx, &ri);
		tm_run_info_release(&ri);
	}
	if (!rc && step != SQLITE_DONE)
		rc = tm_store_db_error(st, "read runs");
	sqlite3_finalize(s);
	return rc;
}

/* ---- sample encoding ---- */

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static void put_varint(struct buf *b, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		if (b->len < b->cap)
			b->p[b->len] = c;
		b->len++;
	} while (v);
}

static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (*p >= end)
			return -1;
		unsigned char c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (0 - ((uint64_t)v >> 63));
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Encodes S against PREV (NULL: keyframe) into B; returns B's length.  The
 * encoding is documented in docs/store.md. */
static size_t encode_sample(const struct tm_sample *s, const struct tm_sample *prev, struct buf *b)
{
	bool same_mask = prev && !memcmp(s->present, prev->present, sizeof(s->present));
	unsigned char flags = (prev ? 0 : ENC_KEYFRAME) | (same_mask ? ENC_SAME_MASK : 0);

	b->len = 0;
	put_varint(b, flags);
	if (!same_mask) {
		put_varint(b, TM_SAMPLE_WORDS);
		for (int w = 0; w < TM_SAMPLE_WORDS; w++)
			put_varint(b, s->present[w]);
	}
	for (int m = 0; m < TM_METRIC_COUNT; m++) {
		if (!tm_sample_has(s, m))
			continue;
		int64_t base = prev && tm_sample_has(prev, m) ? prev->v[m] : 0;
		/* wrapping difference: exact for any pair of int64 values */
		put_varint(b, zigzag((int64_t)((uint64_t)s->v[m] - (uint64_t)base)));
	}
	return b->len;
}

/* Decodes DATA into S (timestamps set by the caller) against PREV.  A file
 * with more mask words than we know (a newer tidemark) keeps what we know. */
static int decode_sample(const unsigned char *p, size_t len, const struct tm_sample *prev,
                         struct tm_sample *s)
{
	const unsigned char *end = p + len;
	uint64_t flags, words, word;

	if (get_varint(&p, end, &flags))
		return -1;
	if (!(flags & ENC_KEYFRAME) && !prev)
		return -1;
	tm_sample_clear(s);
	if (flags & ENC_SAME_MASK) {
		if (!prev)
			return -1;
		memcpy(s->present, prev->present, sizeof(s->present));
	} else {
		if (get_varint(&p, end, &words) || words > 64)
			return -1;
		for (uint64_t w = 0; w < words; w++) {
			if (get_varint(&p, end, &word))
				return -1;
			if (w < TM_SAMPLE_WORDS)
				s->present[w] = word;
			else if (word)
				return -1; /* values we could not place */
		}
	}
	for (int m = 0; m < TM_SAMPLE_WORDS * 64; m++) {
		uint64_t z;
		if (!((s->present[m / 64] >> (m % 64)) & 1))
			continue;
		if (m >= TM_METRIC_COUNT || get_varint(&p, end, &z))
			return -1;
		int64_t base = !(flags & ENC_KEYFRAME) && tm_sample_has(prev, m) ? prev->v[m] : 0;
		s->v[m] = (int64_t)((uint64_t)base + (uint64_t)unzigzag(z));
	}
	return p == end ? 0 : -1;
}

/* ---- writing samples ---- */

static struct writer_state *writer_for(struct tm_store *st, int64_t run_id, bool create)
{
	struct writer_state *victim = &st->writers[0];

	for (int i = 0; i < WRITER_CACHE; i++) {
		struct writer_state *w = &st->writers[i];
		if (w->run_id == run_id) {
			w->lru = ++st->lru_clock;
			return w;
		}
		if (w->lru < victim->lru)
			victim = w;
	}
	if (!create)
		return NULL;
	memset(victim, 0, sizeof(*victim));
	victim->run_id = run_id;
	victim->last.seq = -1;
	victim->lru = ++st->lru_clock;
	return victim;
}

static int load_last_cb(void *ctx, const struct tm_sample *s)
{
	*(struct tm_sample *)ctx = *s;
	return 0;
}

/* Makes W hold the run's last stored sample (after a restart, or for a
 * run this process did not start, as the server does). */
static int writer_load(struct tm_store *st, struct writer_state *w)
{
	int64_t last;
	int rc = tm_store_last_seq(st, w->run_id, &last);

	w->last.seq = -1;
	if (rc || last < 0)
		return rc;
	rc = tm_store_each_sample(st, w->run_id, last, last, load_last_cb, &w->last);
	if (!rc && w->last.seq != last)
		return tm_error("store '%s': cannot decode the last sample of run %" PRId64,
		                st->path, w->run_id);
	return rc;
}

int tm_store_add_sample(struct tm_store *st, int64_t run_id, const struct tm_sample *s)
{
	unsigned char space[16 + 11 * (TM_METRIC_COUNT + TM_SAMPLE_WORDS)];
	struct buf b = {.p = space, .cap = sizeof(space)};
	struct writer_state *w = writer_for(st, run_id, false);
	const struct tm_sample *prev;
	sqlite3_stmt *ins;

	if (!w) {
		w = writer_for(st, run_id, true);
		if (writer_load(st, w)) {
			w->run_id = 0;
			return -1;
		}
	}
	if (s->seq != w->last.seq + 1)
		return tm_error("store '%s': run %" PRId64 " expects sample %" PRId64
		                ", got %" PRId64,
		                st->path, run_id, w->last.seq + 1, s->seq);
	prev = s->seq % KEYFRAME_EVERY ? &w->last : NULL;
	encode_sample(s, prev, &b);
	if (b.len > b.cap)
		TM_BUG("sample encoding overflow");
	if (begin_batch(st) || !(ins = stmt(st, ST_ADD_SAMPLE)))
		return -1;
	sqlite3_bind_int64(ins, 1, run_id);
	sqlite3_bind_int64(ins, 2, s->seq);
	sqlite3_bind_int64(ins, 3, s->t_wall_usec);
	sqlite3_bind_int64(ins, 4, s->t_mono_usec);
	sqlite3_bind_int64(ins, 5, s->late_usec);
	sqlite3_bind_blob(ins, 6, b.p, (int)b.len, SQLITE_STATIC);
	if (step_done(st, ins, "add sample"))
		return -1;
	w->last = *s;
	return 0;
}

int tm_store_add_event(struct tm_store *st, int64_t run_id, const struct tm_event *ev)
{
	sqlite3_stmt *s;

	if (begin_batch(st) || !(s = stmt(st, ST_ADD_EVENT)))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, ev->t_wall_usec);
	sqlite3_bind_int64(s, 3, ev->t_mono_usec);
	sqlite3_bind_text(s, 4, ev->kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(s, 5, ev->pid);
	sqlite3_bind_int64(s, 6, ev->value);
	tm_store_bind_text(s, 7, ev->detail);
	return step_done(st, s, "add event");
}

int tm_store_add_progress(struct tm_store *st, int64_t run_id, int64_t t_wall_usec,
                          int64_t t_mono_usec, double value)
{
	sqlite3_stmt *s;

	if (begin_batch(st) || !(s = stmt(st, ST_ADD_PROGRESS)))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, t_wall_usec);
	sqlite3_bind_int64(s, 3, t_mono_usec);
	sqlite3_bind_double(s, 4, value);
	return step_done(st, s, "add progress");
}

int tm_store_add_mark(struct tm_store *st, int64_t run_id, int64_t t_wall_usec, int64_t t_mono_usec,
                      const char *text)
{
	sqlite3_stmt *s;

	if (begin_batch(st) || !(s = stmt(st, ST_ADD_MARK)))
		return -1;
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, t_wall_usec);
	sqlite3_bind_int64(s, 3, t_mono_usec);
	sqlite3_bind_text(s, 4, text, -1, SQLITE_TRANSIENT);
	return step_done(st, s, "add mark");
}

/* ---- reading ---- */

int tm_store_last_seq(struct tm_store *st, int64_t run_id, int64_t *seq)
{
	int rc = query_int64(st, stmt_sql[ST_LAST_SEQ], NULL, run_id, seq);
	if (rc == 1)
		*seq = -1;
	return rc < 0 ? -1 : 0;
}

int tm_store_each_sample(struct tm_store *st, int64_t run_id, int64_t from_seq, int64_t to_seq,
                         tm_sample_cb cb, void *ctx)
{
	/* decoding starts at the keyframe at or before FROM_SEQ */
	int64_t start = from_seq < 0 ? 0 : from_seq - from_seq % KEYFRAME_EVERY;
	struct tm_sample *cur = malloc(sizeof(*cur)), *prev = malloc(sizeof(*prev));
	int64_t expect = start;
	sqlite3_stmt *s;
	int rc = 0, step;

	if (!cur || !prev) {
		free(cur);
		free(prev);
		return tm_error("out of memory");
	}
	if (sqlite3_prepare_v2(
	        st->db,
	        "SELECT seq, t_wall_usec, t_mono_usec, late_usec, data FROM samples"
	        " WHERE run_id = ? AND seq >= ? AND (? < 0 OR seq <= ?) ORDER BY seq",
	        -1, &s, NULL) != SQLITE_OK) {
		free(cur);
		free(prev);
		return tm_store_db_error(st, "prepare samples");
	}
	sqlite3_bind_int64(s, 1, run_id);
	sqlite3_bind_int64(s, 2, start);
	sqlite3_bind_int64(s, 3, to_seq);
	sqlite3_bind_int64(s, 4, to_seq);
	while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(s, 0);
		const void *data = sqlite3_column_blob(s, 4);
		int len = sqlite3_column_bytes(s, 4);
		struct tm_sample *tmp;

		if (seq != expect && seq % KEYFRAME_EVERY) {
			rc = tm_error("store '%s': run %" PRId64 " lacks sample %" PRId64, st->path,
			              run_id, expect);
			break;
		}
		if (decode_sample(data, (size_t)len, seq % KEYFRAME_EVERY ? prev : NULL, cur)) {
			rc = tm_error("store '%s': run %" PRId64 " sample %" PRId64
			              " cannot be decoded",
			              st->path, run_id, seq);
			break;
		}
		cur->seq = seq;
		cur->t_wall_usec = sqlite3_column_int64(s, 1);
		cur->t_mono_usec = sqlite3_column_int64(s, 2);
		cur->late_usec = sqlite3_column_int64(s, 3);
		if (seq >= from_seq)
			rc = cb(ctx, cur);
		tmp = prev;
		prev = cur;
		cur = tmp;
		expect = seq + 1;
	}
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		rc = tm_store_db_error(st, "read samples");
	sqlite3_finalize(s);
	free(cur);
	free(prev);
	return rc;
}

int tm_store_each_event(struct tm_store *st, int64_t run_id, tm_event_cb cb, void *ctx)
{
	sqlite3_stmt *s;
	int rc = 0;

	if (sqlite3_prepare_v2(
	        st->db,
	        "SELECT t_wall_usec, t_mono_usec, kind, pid, value, detail FROM events"
	        " WHERE run_id = ? ORDER BY t_mono_usec, id",
	        -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare events");
	sqlite3_bind_int64(s, 1, run_id);
	while (!rc && sqlite3_step(s) == SQLITE_ROW) {
		struct tm_event ev = {
		    .t_wall_usec = sqlite3_column_int64(s, 0),
		    .t_mono_usec = sqlite3_column_int64(s, 1),
		    .kind = (const char *)sqlite3_column_text(s, 2),
		    .pid = sqlite3_column_int64(s, 3),
		    .value = sqlite3_column_int64(s, 4),
		    .detail = (const char *)sqlite3_column_text(s, 5),
		};
		rc = cb(ctx, &ev);
	}
	sqlite3_finalize(s);
	return rc;
}

int tm_store_each_progress(struct tm_store *st, int64_t run_id, tm_progress_cb cb, void *ctx)
{
	sqlite3_stmt *s;
	int rc = 0;

	if (sqlite3_prepare_v2(st->db,
	                       "SELECT t_wall_usec, t_mono_usec, value FROM progress"
	                       " WHERE run_id = ? ORDER BY t_mono_usec, id",
	                       -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare progress");
	sqlite3_bind_int64(s, 1, run_id);
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = cb(ctx, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
		        sqlite3_column_double(s, 2));
	sqlite3_finalize(s);
	return rc;
}

int tm_store_each_mark(struct tm_store *st, int64_t run_id, tm_mark_cb cb, void *ctx)
{
	sqlite3_stmt *s;
	int rc = 0;

	if (sqlite3_prepare_v2(st->db,
	                       "SELECT t_wall_usec, t_mono_usec, text FROM marks"
	                       " WHERE run_id = ? ORDER BY t_mono_usec, id",
	                       -1, &s, NULL) != SQLITE_OK)
		return tm_store_db_error(st, "prepare marks");
	sqlite3_bind_int64(s, 1, run_id);
	while (!rc && sqlite3_step(s) == SQLITE_ROW)
		rc = cb(ctx, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1),
		        (const char *)sqlite3_column_text(s, 2));
	sqlite3_finalize(s);
	return rc;
}
