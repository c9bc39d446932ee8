/*
 * Inside the store: the handle, the batch and the statement helpers shared
 * by the files of src/store/.  Nothing outside src/store/ includes this
 * header (or <sqlite3.h>); they go through store.h and the *_tables.h.
 */
#ifndef TM_STORE_IMPL_H
#define TM_STORE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <sqlite3.h>

#include "base/sample.h"
#include "store/rollup.h"
#include "store/store.h"

/* Every KEYFRAME_EVERY-th sample is encoded whole, so a reader can start
 * there and a damaged row costs at most that many samples. */
#define TM_KEYFRAME_EVERY 256
#define TM_WRITER_CACHE   16

/* The last sample written to a run, the base of the next delta, and the
 * run's open rollup buckets (written to the file at each commit, at a
 * bucket's end and when the state is dropped from the cache). */
struct tm_writer_state {
	int64_t run_id;
	struct tm_sample last;
	uint64_t lru;
	int64_t late_usec; /* the run's interval / 4: a later sample is late */
	struct tm_rollup roll[TM_ROLLUP_LEVELS];
	bool dirty[TM_ROLLUP_LEVELS];
};

/* Statements prepared once per handle: the ones run for every sample. */
enum tm_stmt_id {
	TM_ST_ADD_SAMPLE,
	TM_ST_ADD_EVENT,
	TM_ST_ADD_PROGRESS,
	TM_ST_ADD_MARK,
	TM_ST_PUT_ROLLUP,
	TM_ST_ADD_SCRAPED,
	TM_ST_COUNT
};

struct tm_store {
	sqlite3 *db;
	char *path;
	dev_t dev; /* the file opened, to notice it removed or replaced */
	ino_t ino;
	bool in_tx;
	sqlite3_stmt *stmt[TM_ST_COUNT];
	struct tm_writer_state writers[TM_WRITER_CACHE];
	uint64_t lru_clock;
	bool has_rollups;     /* the file has the rollups table (schema 2; a read-only
	                         handle on an older file may not) */
	bool quiet;           /* tm_store_set_quiet: failures not printed */
	char last_error[256]; /* the last failure tm_st_fail saw, without the path */
};

/* The schema of scraped.c's tables, set up with the others when a store
 * is opened for writing. */
extern const char tm_st_scraped_schema[];

/* Reports a failure of ST: "store 'PATH': MSG" on stderr (unless quiet),
 * MSG kept as the store's last error; returns -1. */
int tm_st_fail(struct tm_store *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reports the database's last error, saying WHAT failed; returns -1. */
int tm_st_error(struct tm_store *st, const char *what);

/* Runs SQL (several statements allowed) outside any prepared statement.
 * 0, or -1 after tm_error. */
int tm_st_exec(struct tm_store *st, const char *sql);

/* Opens the batch (a transaction) if none is open: every write goes into
 * it; tm_store_commit() closes it.  0 or -1. */
int tm_st_begin_batch(struct tm_store *st);

/* The cached statement ID, reset and unbound; NULL after tm_error. */
sqlite3_stmt *tm_st_cached(struct tm_store *st, enum tm_stmt_id id);

/* Prepares SQL into *OUT (finalized by the caller).  0, or -1 after
 * tm_error naming WHAT. */
int tm_st_prepare(struct tm_store *st, const char *sql, sqlite3_stmt **out, const char *what);

/* Steps a write to its end and resets it (a cached statement) or finalizes
 * it (FINALIZE).  0, or -1 after tm_error naming WHAT. */
int tm_st_step_done(struct tm_store *st, sqlite3_stmt *s, bool finalize, const char *what);

/* Steps S once: 0 when it gave a row (read before finalizing), 1 when it
 * gave none, -1 after tm_error naming WHAT. */
int tm_st_step_row(struct tm_store *st, sqlite3_stmt *s, const char *what);

/* Binds TEXT to parameter I (copied), or NULL when TEXT is NULL. */
void tm_st_bind_text(sqlite3_stmt *s, int i, const char *text);

/* Binds V, or NULL when V is below MIN (how a column says "unknown"). */
void tm_st_bind_int64_min(sqlite3_stmt *s, int i, int64_t v, int64_t min);

/* A text column copied (malloc'd), or NULL for NULL (or out of memory). */
char *tm_st_dup_text(sqlite3_stmt *s, int i);

/* Runs a query of one integer with an optional text or integer parameter
 * (TEXT wins when not NULL).  0 with *OUT set, 1 when the row is missing
 * or NULL, -1 after tm_error. */
int tm_st_query_int64(struct tm_store *st, const char *sql, const char *text, int64_t num,
                      int64_t *out);

/* The writer state of RUN_ID in *OUT: the cached one, else one loaded from
 * the file (its last sample, its rollups brought up to it), inside the
 * batch.  0, or -1 after tm_error. */
int tm_st_writer(struct tm_store *st, int64_t run_id, struct tm_writer_state **out);

/* Rewrites sample SEQ of RUN_ID as a keyframe (its values absolute), so
 * that the samples before it can go.  0, or -1 after tm_error. */
int tm_st_make_keyframe(struct tm_store *st, int64_t run_id, int64_t seq);

/* Forgets RUN_ID's writer state without writing it (a removed run). */
void tm_st_writer_drop(struct tm_store *st, int64_t run_id);

/* ---- rollups (rollups.c) ---- */

/* Brings W's rollups up to its last sample (W->last), loading its open
 * buckets from the file and rolling up stored samples not yet in them (a
 * store written before rollups existed).  0, or -1 after tm_error. */
int tm_st_rollup_load(struct tm_store *st, struct tm_writer_state *w);
/* Adds S (just stored) to W's open buckets, writing a bucket S closes.
 * 0, or -1 after tm_error. */
int tm_st_rollup_add(struct tm_store *st, struct tm_writer_state *w, const struct tm_sample *s);
/* Writes W's changed buckets (inside the batch).  0, or -1 after tm_error. */
int tm_st_rollup_flush(struct tm_store *st, struct tm_writer_state *w);
/* The same for every cached writer. */
int tm_st_rollup_flush_all(struct tm_store *st);

/* ---- the sample encoding (encoding.c; docs/store.md) ---- */

/* The most bytes one encoded sample takes. */
#define TM_SAMPLE_ENC_MAX (16 + 11 * (TM_METRIC_COUNT + TM_SAMPLE_WORDS))

/* Encodes S against PREV (NULL: a keyframe) into OUT, which holds at least
 * TM_SAMPLE_ENC_MAX bytes; returns the length. */
size_t tm_sample_encode(const struct tm_sample *s, const struct tm_sample *prev,
                        unsigned char *out);

/* Decodes LEN bytes at P into S (timestamps and seq are the caller's)
 * against PREV (needed unless it is a keyframe).  0, or -1 when the bytes
 * are not a sample this tidemark can place. */
int tm_sample_decode(const unsigned char *p, size_t len, const struct tm_sample *prev,
                     struct tm_sample *s);

#endif
