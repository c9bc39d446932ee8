/* How far each run has reached each remote-write receiver; see
 * store/remote.h. */
#include "store/remote.h"
#include "store/store_impl.h"
#include "base/banned.h"

static const char rw_schema[] = "CREATE TABLE IF NOT EXISTS remote_write_sent(url TEXT NOT NULL,"
                                " run_id INTEGER NOT NULL, sent_seq INTEGER NOT NULL,"
                                " PRIMARY KEY(url, run_id)) WITHOUT ROWID;";

const char *tm_store_file_path(const struct tm_store *st)
{
	return st->path;
}

int tm_store_rw_init(struct tm_store *st)
{
	return tm_st_exec(st, rw_schema);
}

/* Runs SQL with URL, RUN_ID and SEQ bound, in a batch of its own,
 * committed.  0, or -1 after tm_error naming WHAT. */
static int rw_write(struct tm_store *st, const char *sql, const char *url, int64_t run_id,
                    int64_t seq, const char *what)
{
	sqlite3_stmt *s;

	if (tm_st_begin_batch(st) || tm_st_prepare(st, sql, &s, what))
		return -1;
	tm_st_bind_text(s, 1, url);
	sqlite3_bind_int64(s, 2, run_id);
	sqlite3_bind_int64(s, 3, seq);
	if (tm_st_step_done(st, s, true, what))
		return -1;
	return tm_store_commit(st);
}

int tm_store_rw_add(struct tm_store *st, const char *url, int64_t run_id)
{
	return rw_write(st,
	                "INSERT OR IGNORE INTO remote_write_sent(url, run_id, sent_seq)"
	                " VALUES (?, ?, ?)",
	                url, run_id, -1, "note a run for remote write");
}

int tm_store_rw_set_sent(struct tm_store *st, const char *url, int64_t run_id, int64_t seq)
{
	return rw_write(st,
	                "UPDATE remote_write_sent SET sent_seq = max(sent_seq, ?3)"
	                " WHERE url = ?1 AND run_id = ?2",
	                url, run_id, seq, "note what remote write sent");
}

int tm_store_rw_each_pending(struct tm_store *st, const char *url, tm_rw_pending_cb cb, void *ctx)
{
	sqlite3_stmt *s;
	int rc = 0, step;

	/* the last sample of each run through the samples' primary key */
	if (tm_st_prepare(st,
	                  "SELECT r.run_id, r.sent_seq FROM remote_write_sent r"
	                  " WHERE r.url = ? AND r.sent_seq < (SELECT max(seq) FROM samples"
	                  " WHERE run_id = r.run_id) ORDER BY r.run_id",
	                  &s, "prepare remote write's runs"))
		return -1;
	tm_st_bind_text(s, 1, url);
	while (!rc && (step = tm_st_step_row(st, s, "read remote write's runs")) == 0)
		rc = cb(ctx, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1));
	if (!rc && step < 0)
		rc = -1;
	sqlite3_finalize(s);
	return rc;
}
