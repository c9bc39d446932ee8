/*
 * store/snapshots.h: what `tidemark guard` did for a run: each snapshot a
 * rule's firing took (its kind, file, size, one-line summary) and each
 * action (a signal, a command, a restart), done or refused by its rate
 * limit.  One table, snapshots (docs/store.md), created on first write; a
 * store without it reads as a run without any.
 */
#ifndef TM_STORE_SNAPSHOTS_H
#define TM_STORE_SNAPSHOTS_H

#include <stdbool.h>
#include <stdint.h>

struct tm_store;

/* One row.  Strings borrowed (copied on add; valid during a callback). */
struct tm_snapshot_row {
	int64_t run_id;
	int64_t wall_usec;  /* the wall time of the sample at which the rule fired */
	int64_t taken_usec; /* when the guard took it or acted (wall) */
	const char *rule;   /* the rule as written ("anon>90%max") */
	const char *kind;   /* a snapshot kind (snap/kinds.h) or an action: signal, exec, restart */
	int64_t pid;        /* the process it is about; 0 when none */
	const char *path;   /* the file written; NULL for actions and failures */
	const char *summary; /* one line: top entries, what was done, or why not */
	int64_t file_bytes;  /* the file's size; -1 when no file (stored as NULL) */
	bool ok;             /* taken or done; false: failed or rate-limited (SUMMARY says) */
};

/* Adds ROW and commits it in a batch of its own.  0, or -1 after tm_error. */
int tm_store_snapshot_add(struct tm_store *st, const struct tm_snapshot_row *row);

typedef int (*tm_snapshot_cb)(void *ctx, const struct tm_snapshot_row *row);
/* RUN_ID's rows in the order of wall_usec then insertion.  As the store's
 * iterators (store.h): CB's non-zero stops and is returned; 0, or -1 after
 * tm_error.  A store without the table is a walk of nothing. */
int tm_store_each_snapshot(struct tm_store *st, int64_t run_id, tm_snapshot_cb cb, void *ctx);

#endif
