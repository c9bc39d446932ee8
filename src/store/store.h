/*
 * The store: one SQLite file holding runs and everything recorded in them.
 * Schema and encoding: docs/store.md.
 *
 * Writers batch: everything added between two tm_store_commit() calls lands
 * in one transaction, so a recorder killed with SIGKILL loses at most the
 * batch in flight and never leaves a half-written one.  Several processes
 * may write one file (WAL mode, busy timeout); each run has one writer.
 *
 * Strings passed in are copied; strings in structs handed out belong to the
 * struct and are freed by the matching *_release().
 */
#ifndef TM_STORE_H
#define TM_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/sample.h"

struct tm_store;

/* Opens (creating if needed) the store at PATH.  0, or -1 after tm_error. */
int tm_store_open(const char *path, struct tm_store **out);
int tm_store_open_readonly(const char *path, struct tm_store **out);
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
	const char *outcome; /* completed, failed, oom-killed, killed, timeout,
	                        interrupted, detached, invalid */
	int exit_code;       /* -1 when it did not exit normally */
	int term_signal;     /* 0 when not killed by a signal */
	const char *reason;  /* free text, e.g. why a bench run is invalid */
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
	int64_t sample_count;
};

int tm_store_run_begin(struct tm_store *st, const struct tm_run_meta *m, int64_t *run_id);
int tm_store_run_end(struct tm_store *st, int64_t run_id, const struct tm_run_end *e);
/* Sets one text column of runs (allocator, limits_json, env_json, reason). */
int tm_store_run_set_text(struct tm_store *st, int64_t run_id, const char *column,
                          const char *value);

/* 0 found, 1 no such run, -1 error. */
int tm_store_run_get(struct tm_store *st, int64_t run_id, struct tm_run_info *out);
int tm_store_run_by_uuid(struct tm_store *st, const char *uuid, int64_t *run_id);
int tm_store_latest_run(struct tm_store *st, int64_t *run_id);
void tm_run_info_release(struct tm_run_info *ri);

typedef int (*tm_run_cb)(void *ctx, const struct tm_run_info *ri);
/* Every run, oldest first; BENCH_ID > 0 restricts to one bench.  A callback
 * returning non-zero stops the walk and is returned. */
int tm_store_each_run(struct tm_store *st, int64_t bench_id, tm_run_cb cb, void *ctx);

/* ---- what a run records ---- */

/* Samples must arrive in seq order 0, 1, 2 ... per run (the encoding is a
 * delta against the previous sample).  Returns -1 on a gap. */
int tm_store_add_sample(struct tm_store *st, int64_t run_id, const struct tm_sample *s);

struct tm_event {
	int64_t t_wall_usec, t_mono_usec;
	const char *kind;   /* exit, signal, oom_kill, oom, high_throttle, max_hit, limit_change,
	                       late, start, progress_stop, timeout, ... */
	int64_t pid;        /* 0 when not about one process */
	int64_t value;      /* kind-specific: exit code, signal, count, new limit */
	const char *detail; /* free text or NULL */
};
int tm_store_add_event(struct tm_store *st, int64_t run_id, const struct tm_event *ev);
int tm_store_add_progress(struct tm_store *st, int64_t run_id, int64_t t_wall_usec,
                          int64_t t_mono_usec, double value);
int tm_store_add_mark(struct tm_store *st, int64_t run_id, int64_t t_wall_usec, int64_t t_mono_usec,
                      const char *text);

/* Makes everything added since the last commit durable, in one transaction. */
int tm_store_commit(struct tm_store *st);

/* ---- reading ---- */

typedef int (*tm_sample_cb)(void *ctx, const struct tm_sample *s);
typedef int (*tm_event_cb)(void *ctx, const struct tm_event *ev);
typedef int (*tm_progress_cb)(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, double value);
typedef int (*tm_mark_cb)(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, const char *text);

/* Samples with FROM_SEQ <= seq <= TO_SEQ (TO_SEQ < 0: to the end), in order. */
int tm_store_each_sample(struct tm_store *st, int64_t run_id, int64_t from_seq, int64_t to_seq,
                         tm_sample_cb cb, void *ctx);
int tm_store_each_event(struct tm_store *st, int64_t run_id, tm_event_cb cb, void *ctx);
int tm_store_each_progress(struct tm_store *st, int64_t run_id, tm_progress_cb cb, void *ctx);
int tm_store_each_mark(struct tm_store *st, int64_t run_id, tm_mark_cb cb, void *ctx);

/* The last stored sample seq of a run, or -1 when it has none. */
int tm_store_last_seq(struct tm_store *st, int64_t run_id, int64_t *seq);

/* ---- extensions ----
 * Other parts keep their own tables in the same file (benches, machines and
 * tokens for the server).  They create them with tm_store_exec() at open time
 * and query through tm_store_sqlite(); docs/store.md lists every table.
 */
struct sqlite3;
struct sqlite3_stmt;
struct sqlite3 *tm_store_sqlite(struct tm_store *st);
int tm_store_exec(struct tm_store *st, const char *sql);
/* Reports the database's last error, saying WHAT failed; returns -1. */
int tm_store_db_error(struct tm_store *st, const char *what);
/* Binds TEXT to parameter I, or NULL when TEXT is NULL (copied). */
void tm_store_bind_text(struct sqlite3_stmt *s, int i, const char *text);

#endif
