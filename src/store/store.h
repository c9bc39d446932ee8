/*
 * The store: one SQLite file holding runs and everything recorded in them.
 * Schema and encoding: docs/store.md.
 *
 * Writers batch: everything added between two tm_store_commit() calls lands
 * in one transaction, so a recorder killed with SIGKILL loses at most the
 * batch in flight and never leaves a half-written one.  Several processes
 * may write one file (WAL mode, busy timeout); each run has one writer.
 * With a commit window (tm_store_set_commit_window) samples, progress and
 * scraped values wait in memory, not in an open transaction, so the file's
 * write lock is held only while a batch is written.
 *
 * Strings passed in are copied; strings in structs handed out belong to the
 * struct and are freed by the matching *_release().
 */
#ifndef TM_STORE_H
#define TM_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/outcome.h"
#include "base/sample.h"
#include "store/rollup.h"

struct tm_store;
struct tm_err;

/* Opens (creating if needed, and setting up the schema of the tables in
 * docs/store.md) the store at PATH for reading and writing.  0 with *OUT
 * set, or -1 after tm_error (not a tidemark store, written by an
 * incompatible tidemark, cannot be created). */
int tm_store_open(const char *path, struct tm_store **out);
/* Opens an existing store for reading only; never creates or changes the
 * file.  0, or -1 after tm_error. */
int tm_store_open_readonly(const char *path, struct tm_store **out);
/* Bounds SQLite's page cache of ST's connection to KIB KiB (SQLite's
 * default is 2000 KiB, which a recording's connection fills over hours of
 * appends while its writes touch only the tables' last pages).  0, or -1
 * after tm_error. */
int tm_store_bound_cache(struct tm_store *st, int64_t kib);
/* Commits what is pending (a failed commit is reported, not returned:
 * callers that care commit first) and frees ST.  NULL is a no-op. */
void tm_store_close(struct tm_store *st);

/* ---- runs ---- */

/* What is known about a run when it starts.  NULL strings are stored as NULL. */
struct tm_run_meta {
	const char *uuid;         /* unique across machines; generated when NULL */
	const char *machine;      /* who recorded it (host name by default) */
	const char *kernel;       /* uname -r */
	const char *cgroup_mode;  /* "v1", "v2", "hybrid", or NULL */
	const char *target;       /* "command", "pid" or "cgroup" */
	const char *cgroup_path;  /* the cgroup sampled, if any */
	const char *command_json; /* JSON array of argv */
	const char *env_json;     /* JSON object: allocation-relevant variables */
	const char *limits_json;  /* JSON object: what each limit became here */
	const char *allocator;    /* detected in the target: glibc, jemalloc, ... */
	int64_t interval_usec;
	int64_t started_wall_usec;
	int64_t started_mono_usec;
	int64_t bench_id;  /* 0 when not part of a bench */
	const char *arm;   /* bench arm name */
	int64_t bench_seq; /* position in the bench's run order */
};

/* Final state of a run. */
struct tm_run_end {
	int64_t ended_wall_usec;
	enum tm_outcome outcome; /* stored as tm_outcome_name() */
	int exit_code;           /* -1 when it did not exit normally */
	int term_signal;         /* 0 when not killed by a signal */
	const char *reason;      /* free text, e.g. why a bench run is invalid */
};

/* A run as stored. */
struct tm_run_info {
	int64_t id;
	char *uuid, *machine, *kernel, *cgroup_mode, *target, *cgroup_path;
	char *command_json, *env_json, *limits_json, *allocator;
	int64_t interval_usec, started_wall_usec, started_mono_usec;
	int64_t ended_wall_usec; /* 0 while running (or if the recorder died) */
	char *outcome, *reason, *arm;
	int exit_code, term_signal;
	int64_t bench_id, bench_seq;
	int64_t sample_count;          /* samples recorded: the last seq + 1 (pruned ones count) */
	int64_t last_sample_wall_usec; /* the newest sample's wall time; 0 when none */
	/* the newest wall time, among the last TM_SEEN_SCAN_SAMPLES samples,
	 * that is not in the future (after now + TM_FUTURE_SLACK_SEC when it
	 * was read): what says the run was seen lately; 0 when none */
	int64_t seen_wall_usec;
};

/* A wall time this far past the reader's clock is dated in the future: it
 * may be stored, never decide what is latest or live (issue 20: one
 * sample dated 2099 once held a run "live" for ever). */
#define TM_FUTURE_SLACK_SEC  300
#define TM_FUTURE_SLACK_USEC (TM_FUTURE_SLACK_SEC * 1000000LL)
/* How many of a run's newest samples tm_run_info's seen_wall_usec looks
 * through (a run that pushed more samples dated in the future than this
 * shows none: bounded cost, whatever a peer sends). */
#define TM_SEEN_SCAN_SAMPLES 1000

/* Adds a run (in the current batch); its id in *RUN_ID.  0 or -1. */
int tm_store_run_begin(struct tm_store *st, const struct tm_run_meta *m, int64_t *run_id);
/* Records how the run ended; a NULL reason keeps the one stored.  0 or -1. */
int tm_store_run_end(struct tm_store *st, int64_t run_id, const struct tm_run_end *e);
/* Sets one text column of runs (allocator, limits_json, env_json, reason,
 * cgroup_path, cgroup_mode, outcome, machine; any other is a programmer
 * error).
 * 0 or -1. */
int tm_store_run_set_text(struct tm_store *st, int64_t run_id, const char *column,
                          const char *value);

/* Fills *OUT (release with tm_run_info_release): 0 found, 1 no such run,
 * -1 error. */
int tm_store_run_get(struct tm_store *st, int64_t run_id, struct tm_run_info *out);
/* The run with that uuid, or the newest run: 0 found, 1 none, -1 error. */
int tm_store_run_by_uuid(struct tm_store *st, const char *uuid, int64_t *run_id);
int tm_store_latest_run(struct tm_store *st, int64_t *run_id);
void tm_run_info_release(struct tm_run_info *ri);

typedef int (*tm_run_cb)(void *ctx, const struct tm_run_info *ri);
/* Every run, oldest first; BENCH_ID > 0 restricts to one bench.  A callback
 * returning non-zero stops the walk and is returned. */
int tm_store_each_run(struct tm_store *st, int64_t bench_id, tm_run_cb cb, void *ctx);

/* A page of runs, newest first: MACHINE (NULL: any) and BENCH_ID (0: any)
 * filter; only runs with an id below BEFORE_ID (0: no bound); at most
 * LIMIT (> 0) of them.  The callback as for tm_store_each_run. */
struct tm_run_page {
	const char *machine;
	int64_t bench_id, before_id, limit;
};
int tm_store_each_run_page(struct tm_store *st, const struct tm_run_page *pg, tm_run_cb cb,
                           void *ctx);

/* ---- what a run records ---- */

/* Adds a sample (in the current batch).  Samples must arrive in seq order
 * 0, 1, 2 ... per run (the encoding is a delta against the previous
 * sample).  0, or -1 after tm_error (a gap, a store error). */
int tm_store_add_sample(struct tm_store *st, int64_t run_id, const struct tm_sample *s);

struct tm_event {
	int64_t t_wall_usec, t_mono_usec;
	const char *kind;   /* exit, signal, oom_kill, oom, high_throttle, max_hit, limit_change,
	                       late, start, progress_stop, timeout, ... */
	int64_t pid;        /* 0 when not about one process */
	int64_t value;      /* kind-specific: exit code, signal, count, new limit */
	const char *detail; /* free text or NULL */
};
/* Add an event, a progress point, a mark (in the current batch; strings
 * copied).  0 or -1 after tm_error. */
int tm_store_add_event(struct tm_store *st, int64_t run_id, const struct tm_event *ev);
int tm_store_add_progress(struct tm_store *st, int64_t run_id, int64_t t_wall_usec,
                          int64_t t_mono_usec, double value);
int tm_store_add_mark(struct tm_store *st, int64_t run_id, int64_t t_wall_usec, int64_t t_mono_usec,
                      const char *text);

/* Makes everything added since the last commit durable, in one
 * transaction, with every run's open rollup buckets.  0, or -1 after
 * tm_error (the batch is then rolled back). */
int tm_store_commit(struct tm_store *st);

/*
 * The commit window: from now on samples, progress points and scraped
 * values added wait in memory until tm_store_commit_due() finds the oldest
 * of them WINDOW_USEC old (0: every row goes into the batch at once, as
 * without a window).  A process killed loses what waits: at most the
 * window.  Rows waiting when the window changes wait for the next commit.
 */
void tm_store_set_commit_window(struct tm_store *st, int64_t window_usec);

/*
 * The recorder's commit after each sample: commits (without the open rollup
 * buckets, which are written when they close, at tm_store_commit() and at
 * close; a writer that finds them missing rebuilds them from the samples)
 * when a batch is open (a write that does not wait: an event, a mark, a
 * closed bucket), when the oldest waiting row is the window old as of
 * NOW_MONO_USEC, or when the rows waiting reach their bound (4096 rows or
 * 32 KiB packed: store/pending.c).  Otherwise writes nothing.  0, or -1
 * after tm_error (rolled back, the waiting rows lost).
 */
int tm_store_commit_due(struct tm_store *st, int64_t now_mono_usec);

/* Drops what was added since the last commit (after a failed write, so that
 * a last write, such as a run's end, starts clean). */
void tm_store_abandon(struct tm_store *st);

/* QUIET: failures are no longer printed, only kept (tm_store_last_error):
 * for a recorder that says the first one itself and retries quietly. */
void tm_store_set_quiet(struct tm_store *st, bool quiet);

/* The last failure of ST, without its path ("commit: database or disk is
 * full"); "" when none.  Valid until the next call on ST. */
const char *tm_store_last_error(const struct tm_store *st);

/* Whether the file opened is still the one at the store's path: -1 after
 * tm_error when it was removed or replaced (writes would then go into a
 * file nobody can open), else 0. */
int tm_store_check_file(struct tm_store *st);

/* ---- reading ---- */

typedef int (*tm_sample_cb)(void *ctx, const struct tm_sample *s);
typedef int (*tm_event_cb)(void *ctx, const struct tm_event *ev);
typedef int (*tm_progress_cb)(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, double value);
typedef int (*tm_mark_cb)(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, const char *text);

/*
 * The iterators below call CB once per row, in order, with pointers that are
 * valid only during the call.  A callback returning non-zero stops the walk
 * and that value is returned; otherwise they return 0, or -1 after tm_error
 * (an unreadable or undecodable row).  A run with no rows (or no such run)
 * is a walk of nothing: 0.
 */

/* Samples with FROM_SEQ <= seq <= TO_SEQ (TO_SEQ < 0: to the end), in seq
 * order, decoded (absent metrics stay absent). */
int tm_store_each_sample(struct tm_store *st, int64_t run_id, int64_t from_seq, int64_t to_seq,
                         tm_sample_cb cb, void *ctx);

/* A run's events, progress points and marks in time order (t_mono_usec,
 * then the order they were stored). */
int tm_store_each_event(struct tm_store *st, int64_t run_id, tm_event_cb cb, void *ctx);
int tm_store_each_progress(struct tm_store *st, int64_t run_id, tm_progress_cb cb, void *ctx);
int tm_store_each_mark(struct tm_store *st, int64_t run_id, tm_mark_cb cb, void *ctx);

/* The same in the order they were stored, skipping the first FROM and
 * passing at most LIMIT (LIMIT <= 0: all the rest).  An item's position in
 * this order (0, 1, 2 ...) is the one the push protocol counts in. */
int tm_store_each_event_from(struct tm_store *st, int64_t run_id, int64_t from, int64_t limit,
                             tm_event_cb cb, void *ctx);
int tm_store_each_progress_from(struct tm_store *st, int64_t run_id, int64_t from, int64_t limit,
                                tm_progress_cb cb, void *ctx);
int tm_store_each_mark_from(struct tm_store *st, int64_t run_id, int64_t from, int64_t limit,
                            tm_mark_cb cb, void *ctx);

/* How many events, progress points and marks a run has stored. */
struct tm_item_counts {
	int64_t events, progress, marks;
};
/* 0 with *OUT filled (zeros for a run without any), or -1 after tm_error. */
int tm_store_count_items(struct tm_store *st, int64_t run_id, struct tm_item_counts *out);

/* The last stored sample seq of a run in *SEQ, or -1 when it has none.
 * 0, or -1 after tm_error. */
int tm_store_last_seq(struct tm_store *st, int64_t run_id, int64_t *seq);

/* The first sample taken at or after T_WALL_USEC (wall clock, usec since the
 * epoch), without decoding any: 0 with *SEQ set, 1 when every sample is
 * older (or there is none), -1 after tm_error. */
int tm_store_seq_at(struct tm_store *st, int64_t run_id, int64_t t_wall_usec, int64_t *seq);

/* The first stored sample seq of a run (samples before it were pruned) in
 * *SEQ, or -1 when it has none.  0, or -1 after tm_error. */
int tm_store_first_seq(struct tm_store *st, int64_t run_id, int64_t *seq);

/* Runs SQLite's PRAGMA quick_check over the file (every page read: a
 * second or so per 100 MB) and warns of each problem it reports.  0 when
 * the file is sound, 1 when it is damaged, -1 after tm_error. */
int tm_store_quick_check(struct tm_store *st);

/* ---- damaged samples ---- */

/*
 * A sample whose stored bytes no longer decode (bit rot) is left out of
 * every walk of tm_store_each_sample(), with the samples after it that are
 * deltas on it (up to the next keyframe: at most 255); the walk goes on
 * and warns once per damaged sample and handle.  What the walks of a run
 * through this handle met so far:
 */
#define TM_DAMAGE_SEQS 8
struct tm_sample_damage {
	int64_t damaged;              /* samples that cannot be decoded */
	int64_t left_out;             /* samples left out: those and their dependents */
	int nseqs;                    /* how many of seqs[] are set */
	int64_t seqs[TM_DAMAGE_SEQS]; /* the damaged samples' seqs, ascending */
	bool more;                    /* there are (or may be) more than seqs[] */
};
/* Fills *OUT (zeros: the walks met no damage). */
void tm_store_sample_damage(struct tm_store *st, int64_t run_id, struct tm_sample_damage *out);

/* Decodes every sample of RUN_ID and fills *OUT with the damaged ones.
 * With MOVE, moves them with their dependents from the samples table to
 * damaged_samples (their bytes kept, with why and NOW_WALL_USEC), one batch
 * committed here, so that readers no longer meet them; a handle opened
 * read-write.  0, or -1 after tm_error. */
int tm_store_check_samples(struct tm_store *st, int64_t run_id, bool move, int64_t now_wall_usec,
                           struct tm_sample_damage *out);

/* How many of RUN_ID's samples were moved to damaged_samples (0 for a
 * file without the table), in *ROWS.  0, or -1 after tm_error. */
int tm_store_quarantined(struct tm_store *st, int64_t run_id, int64_t *rows);

/* ---- rollups (store/rollup.h) ---- */

typedef int (*tm_rollup_cb)(void *ctx, const struct tm_rollup *r);
/* The run's buckets of LEVEL starting in [FROM, TO] (wall usec; TO <= 0: no
 * end), oldest first; R is valid during the call.  Includes the open
 * bucket of a live run (up to its last committed sample).  As the
 * iterators above; a file without rollups is a walk of nothing. */
int tm_store_each_rollup(struct tm_store *st, int64_t run_id, enum tm_rollup_level level,
                         int64_t from_wall_usec, int64_t to_wall_usec, tm_rollup_cb cb, void *ctx);
/* The seqs the run's LEVEL buckets cover: the first bucket's first sample
 * and the last bucket's last (-1 and -1 when none).  0 or -1. */
int tm_store_rollup_span(struct tm_store *st, int64_t run_id, enum tm_rollup_level level,
                         int64_t *first_seq, int64_t *last_seq);
/* The first sample of the run's newest LEVEL bucket that starts at or
 * before sample AT_MOST, into *FIRST_SEQ (-1 when none): the buckets
 * before it are closed.  Bounded by the run's buckets of LEVEL (no sample
 * is read).  0 or -1. */
int tm_store_rollup_start_before(struct tm_store *st, int64_t run_id, enum tm_rollup_level level,
                                 int64_t at_most, int64_t *first_seq);

/* ---- retention ---- */

/* How long each kind of data is kept, in usec; TM_KEEP_FOREVER: always. */
#define TM_KEEP_FOREVER INT64_MAX
struct tm_keep {
	int64_t raw_usec, minute_usec, hour_usec;
};
/* The defaults: raw=7d,minute=90d,hour=forever. */
void tm_keep_default(struct tm_keep *k);
/* How often a recorder prunes its run under K: a hundredth of K's shortest
 * period, between 5 s and 10 minutes (raw=7d: every 10 minutes, so a run
 * holds at most 10 minutes more than kept; raw=30s: every 5 s), so that
 * pruning costs the file a few pages an hour, not a few a second. */
int64_t tm_keep_prune_every_usec(const struct tm_keep *k);
/* Parses "raw=7d,minute=90d,hour=forever" (any subset; the others keep
 * their value in *K; durations as tm_parse_duration, or "forever") into
 * *K.  0, or -1 with ERR saying what is wrong. */
int tm_keep_parse(const char *spec, struct tm_keep *k, struct tm_err *err);

struct tm_prune_stats {
	int64_t samples, minute_rows, hour_rows; /* removed */
	int64_t scraped_values;                  /* scrape_values rows removed */
};
/*
 * Removes what run RUN_ID keeps past K at wall time NOW_WALL_USEC, in one
 * batch (committed here): first brings its rollups up to its last sample
 * (building them for runs stored before rollups), then deletes raw samples
 * older than K->raw_usec (never the last one; the first kept is rewritten
 * as a keyframe) with their scraped values (scrape_values rows of seqs
 * below the first kept sample; the scrape_series rows stay),
 * and buckets that ended before K's periods (never the newest of a level).
 * Adds what went to *OUT.  0, or -1 after tm_error (nothing removed).
 */
int tm_store_prune_run(struct tm_store *st, int64_t run_id, const struct tm_keep *k,
                       int64_t now_wall_usec, struct tm_prune_stats *out);

/*
 * Removes run RUN_ID and everything it recorded (samples, rollups, events,
 * progress, marks, its bench_runs row), leaving a row in removed_runs (its
 * uuid, bench, arm, sample count, when, and HOW: "runs rm") so that a
 * bench table can say the run was removed.  One batch, committed here.
 * 0, 1 when there is no such run, -1 after tm_error (nothing removed).
 */
int tm_store_run_delete(struct tm_store *st, int64_t run_id, const char *how,
                        int64_t now_wall_usec);

/* A removed run, as tm_store_run_delete() left it. */
struct tm_removed_run {
	int64_t run_id, bench_id, bench_seq, samples, removed_wall_usec;
	const char *uuid, *arm, *how; /* valid during the callback */
};
typedef int (*tm_removed_cb)(void *ctx, const struct tm_removed_run *r);
/* The removed runs of bench BENCH_ID (0: all), by run id.  As the
 * iterators above. */
int tm_store_each_removed(struct tm_store *st, int64_t bench_id, tm_removed_cb cb, void *ctx);

/*
 * Other parts keep their own tables in the same file, behind functions of
 * their own in src/store/: bench_tables.h (benches, bench_runs) and
 * server_tables.h (the server's tokens and machines).  docs/store.md lists
 * every table.
 */

#endif
