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
struct tm_err;

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
	TM_ST_BEGIN,
	TM_ST_COMMIT,
	TM_ST_COUNT
};

/* A damaged sample a walk met: row SEQ of RUN_ID cannot be decoded, and
 * the rows after it before END_SEQ (INT64_MAX: to the run's end) are
 * deltas that cannot be decoded without it; ROWS counts it and them. */
struct tm_damage {
	int64_t run_id, seq, end_seq, rows;
};
/* The most damaged samples one handle remembers (the walks go on past it;
 * `runs check --quarantine` moves them aside in rounds). */
#define TM_DAMAGE_MAX 4096

/* A row waiting for the commit window (pending.c): STMT's integer
 * parameters in V, then its double D (progress, scraped values) or its
 * blob (a sample's or a closed rollup bucket's encoding, owned by the row). */
struct tm_pending_row {
	enum tm_stmt_id stmt;
	int64_t v[11];
	double d;
	unsigned char *blob;
	size_t len;
};

/* The kinds of items.c's rows, and the ways it reads them. */
enum tm_item_kind { TM_ITEM_EVENT, TM_ITEM_PROGRESS, TM_ITEM_MARK, TM_ITEM_KINDS };
enum tm_item_walk {
	TM_WALK_BY_TIME,       /* a run's rows by t_mono_usec (then id) */
	TM_WALK_FROM_POSITION, /* as stored, from a position: ?3 rows skipped */
	TM_WALK_AFTER_ID,      /* as stored, after the id ?3 (where the last batch ended) */
};

/* Where the last as-stored walk of a kind ended: the position after it and
 * the id of its last row, so the next batch starts there by id. */
struct tm_item_cursor {
	int64_t run_id, pos, last_id;
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
	bool has_rollups;         /* the file has the rollups table (schema 2; a read-only
	                             handle on an older file may not) */
	struct tm_damage *damage; /* what walks met, by handle (damage.c) */
	int ndamage, damage_warned;
	bool damage_quiet; /* a check is walking: it reports, not the walk */
	bool registered;   /* this handle has its row in open_handles */
	struct tm_item_cursor item_cursor[TM_ITEM_KINDS];
	int64_t window_usec;    /* tm_store_set_commit_window(); 0: rows go in at once */
	unsigned char *pending; /* the waiting rows, packed (pending.c) */
	size_t npending, pending_len, pending_cap;
	int64_t pending_since_usec; /* when the oldest waiting row came (CLOCK_MONOTONIC) */
	bool quiet;                 /* tm_store_set_quiet: failures not printed */
	char last_error[256];       /* the last failure tm_st_fail saw, without the path */
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

/* Forgets RUN_ID's writer state without writing it, and where its items'
 * walks ended (a removed run). */
void tm_st_writer_drop(struct tm_store *st, int64_t run_id);

/* ---- the file system's part (access.c) ---- */

/* PATH is on a read-only mount and has no write-ahead log to fold in: no
 * writer can exist, and it can be read as an immutable file. */
bool tm_st_on_readonly_fs(const char *path);
/* The URI that opens PATH read-only and immutable (malloc'd), or NULL. */
char *tm_st_immutable_uri(const char *path);
/* Why SQLite cannot read (or with WRITING, write) the store at PATH for a
 * reason of the file system (a read-only mount; no permission on the
 * store, its -shm or -wal file, or on creating them in its directory):
 * 0 with the reason in ERR, -1 when none is found. */
int tm_st_access_why(const char *path, bool writing, struct tm_err *err);

/* ---- the file's health (integrity.c) ---- */

/* The open_handles table, set up with the others. */
extern const char tm_st_handles_schema[];
/* Adds this handle's row to open_handles (inside the set-up transaction),
 * so that an open after a crash knows to check the file.  0 or -1. */
int tm_st_handle_register(struct tm_store *st);
/* Removes it (a clean close). */
void tm_st_handle_unregister(struct tm_store *st);
/* When a handle of the file was never closed, runs PRAGMA quick_check and
 * warns of what it finds; WRITABLE: then forgets those handles. */
void tm_st_check_unclean(struct tm_store *st, bool writable);

/* ---- damaged samples (damage.c) ---- */

/* Notes that a walk met the damaged row SEQ of RUN_ID, with ROWS rows left
 * out because of it so far, up to END_SEQ (exclusive); warns (once per
 * row and handle, a few rows at most) unless a check is walking. */
void tm_st_damage_note(struct tm_store *st, int64_t run_id, int64_t seq, int64_t end_seq,
                       int64_t rows);
/* Frees what the handle remembers of damaged samples. */
void tm_st_damage_free(struct tm_store *st);

/* The statement items.c reads KIND with, walking HOW, into SQL (SIZE
 * bytes): ?1 the run, ?2 the most rows (-1: all), ?3 the rows to skip or
 * the id to start after; each row's id is its last column.  For the unit
 * test of its query plan. */
void tm_st_items_sql(enum tm_item_kind kind, enum tm_item_walk how, char *sql, size_t size);

/* ---- rows waiting for the commit window (pending.c) ---- */

/* Keeps a copy of ROW (and of its blob), packed into the handle's buffer,
 * until the next commit.  0, or -1 after tm_error (out of memory). */
int tm_st_pending_add(struct tm_store *st, const struct tm_pending_row *row);
/* Writes the waiting rows, in the order they came, into the batch (opened
 * if needed) and forgets them, written or not.  0, or -1 after tm_error. */
int tm_st_pending_replay(struct tm_store *st);
/* Forgets the waiting rows (a batch abandoned). */
void tm_st_pending_drop(struct tm_store *st);
/* Forgets them and frees the buffer (the handle closes). */
void tm_st_pending_free(struct tm_store *st);
/* Whether the buffer reached its bound (rows or bytes): commit now. */
bool tm_st_pending_full(const struct tm_store *st);

/* ---- rollups (rollups.c) ---- */

/* Brings W's rollups up to its last sample (W->last), loading its open
 * buckets from the file and rolling up stored samples not yet in them (a
 * store written before rollups existed).  0, or -1 after tm_error. */
int tm_st_rollup_load(struct tm_store *st, struct tm_writer_state *w);
/* Adds S (just stored) to W's open buckets, writing a bucket S closes;
 * with WAIT (S itself waits for the commit window), that bucket waits with
 * it, to be written in the same commit.  0, or -1 after tm_error. */
int tm_st_rollup_add(struct tm_store *st, struct tm_writer_state *w, const struct tm_sample *s,
                     bool wait);
/* Writes W's changed buckets (inside the batch).  0, or -1 after tm_error. */
int tm_st_rollup_flush(struct tm_store *st, struct tm_writer_state *w);
/* The same for every cached writer. */
int tm_st_rollup_flush_all(struct tm_store *st);
/* A seq below which no sample of RUN_ID is at or after T_WALL_USEC, from
 * the stored rollup rows (0 without any before T's bucket): each row holds
 * a contiguous stretch of seqs, rows of a level follow each other in seq
 * as in time, and a sample's row is never before its own time's (a clock
 * that steps back leaves it in a later one).  So a lookup by time seeks
 * there instead of walking the run from its start.  0 with *FLOOR set, -1
 * after tm_error. */
int tm_st_rollup_seq_floor(struct tm_store *st, int64_t run_id, int64_t t_wall_usec,
                           int64_t *floor);

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
