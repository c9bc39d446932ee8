/*
 * guard/guard.h: `tidemark guard` once its options are parsed
 * (docs/guard.md): follows a run's stored samples (live, as a running
 * `record` commits them, or a stored run with dry_run), feeds each to the
 * rules (guard/rule.h), and when one fires prints it and, live, takes the
 * snapshots asked for (snap/kinds.h) and does the actions asked for, each
 * rate-limited and stored in the snapshots table (store/snapshots.h).
 * Nothing is acted on unless asked: no signal, command or restart without
 * its option.
 */
#ifndef TM_GUARD_GUARD_H
#define TM_GUARD_GUARD_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "guard/rule.h"

struct tm_store;

#define TM_GUARD_MAX_RULES 16

struct tm_guard_opts {
	struct tm_guard_rule rules[TM_GUARD_MAX_RULES];
	size_t nrules;
	int64_t run_id;          /* 0: the newest live run (the newest run with DRY_RUN) */
	bool dry_run;            /* print what would fire; no snapshot, no action, no write */
	unsigned snap_kinds;     /* a bit per enum tm_snap_kind to take at a firing (0: none) */
	const char *snap_dir;    /* NULL: STORE.snapshots/run-ID beside the store */
	const char *go_url;      /* the go_url target's URL, or NULL */
	int signal;              /* 0: none; else the signal sent to the main process */
	const char *exec_cmd;    /* NULL: none; else run with sh -c */
	const char *unit;        /* the systemd unit (for --restart, and its main PID) */
	bool restart;            /* systemctl restart UNIT */
	pid_t pid;               /* the main process (0: the run's, from its start event) */
	int64_t snap_every_usec; /* at most one snapshot of a kind per rule this often */
	int64_t act_every_usec;  /* at most one action of a kind this often */
	int64_t snap_timeout_usec;
	volatile sig_atomic_t *stop; /* set by the caller's signal handler: return */
};

/* Defaults: no rule, no snapshot, no action; snapshots at most one a
 * minute per rule and kind, actions one in 10 minutes, 30 s a snapshot. */
void tm_guard_opts_init(struct tm_guard_opts *o);

/*
 * Runs the guard over ST (opened read-write unless O->dry_run), printing
 * one line per firing (and, live, per snapshot and action) to OUT.
 * Returns when the run has ended and every sample was read, or *O->stop is
 * set: the number of firings (>= 0), or -1 after tm_error (no such run, no
 * live run, a store error).
 */
int64_t tm_guard_run(struct tm_store *st, const struct tm_guard_opts *o, FILE *out);

/* ---- inside guard/ (act.c) ---- */

/* What a firing hands to the snapshots and actions. */
struct tm_guard_fire {
	int64_t run_id;
	const struct tm_guard_rule *rule;
	size_t rule_index;
	int64_t wall_usec, mono_usec; /* the sample's */
	pid_t main_pid;               /* 0 when not known */
	const char *cgroup_path;      /* the run's, or NULL */
	const char *dir;              /* the snapshots' directory (created on first use) */
};

/* The guard's memory of what it did: per rule and kind, when (mono usec). */
struct tm_guard_acts {
	int64_t last_snap[TM_GUARD_MAX_RULES][8];
	int64_t last_signal, last_exec, last_restart;
	pid_t exec_child;
};

/* Takes O's snapshots and does O's actions for F, storing a row each in
 * ST and printing a line each to OUT.  0, or -1 after tm_error (a store
 * error; a failed snapshot or action is stored as such, not an error). */
int tm_guard_act(struct tm_store *st, const struct tm_guard_opts *o, struct tm_guard_acts *a,
                 const struct tm_guard_fire *f, FILE *out);

/* Reaps a command started by --exec when it has ended. */
void tm_guard_reap(struct tm_guard_acts *a);

#endif
