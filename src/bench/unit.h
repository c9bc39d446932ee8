/*
 * bench --unit NAME: a bench of a systemd service through drop-ins.  Each
 * arm's environment (LD_PRELOAD, MALLOC_*, its own variables) and limits
 * (MemoryMax, MemoryHigh, MemorySwapMax) go into one drop-in,
 * ROOT/NAME.d/zz-tidemark-bench.conf (ROOT /run/systemd/system: gone at the
 * next boot too), systemd reloads, the unit is stopped, the bench's
 * restore hook runs, the unit starts and its cgroup is recorded until its
 * processes leave (or --timeout), then it is stopped.  Afterwards the
 * drop-in is removed, systemd reloads and a unit that was running before
 * the bench is started again; whatever happens: on an error or a signal by
 * the bench itself, and when the bench is killed (SIGKILL too) by a cleaner
 * process it leaves behind (in its own session, waiting on a pipe).
 *
 * The guard: the bench refuses to start while another drop-in of the unit
 * (in /etc, /run, /usr/local/lib, /usr/lib or /lib's systemd/system/NAME.d)
 * sets an allocation variable (LD_PRELOAD, MALLOC_*, record/launch.h's
 * tm_env_alloc_var) with Environment= or in an EnvironmentFile= it names:
 * every arm would run with it.
 *
 * systemctl is run as a program (TIDEMARK_SYSTEMCTL overrides its path, for
 * tests).  docs/bench.md says what is tested where.
 */
#ifndef TM_BENCH_UNIT_H
#define TM_BENCH_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/outcome.h"
#include "bench/bench.h"
#include "cgroup/cgroup.h"

#define TM_BENCH_UNIT_DROPIN "zz-tidemark-bench.conf"
#define TM_BENCH_UNIT_ROOT   "/run/systemd/system"

/*
 * Checks NAME as a service unit's name (letters, digits and ":-_.\@"; a
 * name without a suffix gets ".service", as systemctl does; only .service
 * units have a [Service] to drop into) and writes it into OUT (SIZE bytes).
 * 0, or -1 after tm_error.
 */
int tm_bench_unit_name(const char *name, char *out, size_t size);

/*
 * The guard.  DIRS (NULL-terminated) are the directories whose UNIT.d/
 * holds drop-ins; every *.conf there but ours is read, with each
 * EnvironmentFile= it names.  0 when none sets an allocation variable, or
 * -1 after tm_error naming each file, line and variable.
 */
int tm_bench_unit_guard(const char *const *dirs, const char *unit);

/* The directories systemd reads a unit's drop-ins from (NULL-terminated). */
const char *const *tm_bench_unit_dirs(void);

/*
 * The drop-in for arm ARM under LIMITS (TM_LIMIT_UNSET: not set), run SEQ
 * of bench BENCH_ID: a comment saying so, then [Service] with an
 * Environment= line per variable (quoted and escaped as systemd reads
 * them) and the limits in bytes.  Malloc'd, or NULL after tm_error.
 */
char *tm_bench_unit_dropin(const struct tm_bench_arm *arm, const struct tm_limits *limits,
                           const char *unit, int64_t bench_id, int64_t seq);

/* A bench's hold on its unit. */
struct tm_bench_unit {
	char name[256];
	char dir[512], path[800]; /* ROOT/NAME.d and the drop-in in it */
	bool made_dir;            /* we created DIR: removed again when empty */
	bool was_active;          /* running before the bench: started again after it */
	bool written;             /* the drop-in is in place */
	char invocation[33];      /* the run's InvocationID (its journal entries) */
	uint32_t main_pid;        /* the run's main process, 0: unknown */
	int cleaner_fd;           /* the write end of the cleaner's pipe, -1 */
	pid_t cleaner_pid;
};

/*
 * Takes hold of unit NAME (normalized) with its drop-in under ROOT: notes
 * whether it runs, removes a drop-in of ours a killed bench left (saying
 * so), and starts the cleaner.  0, or -1 after tm_error (no systemctl, no
 * such unit).
 */
int tm_bench_unit_open(struct tm_bench_unit *u, const char *name, const char *root);

/* Writes TEXT as the drop-in (atomically), reloads systemd and stops the
 * unit.  0, or -1 after tm_error. */
int tm_bench_unit_arm(struct tm_bench_unit *u, const char *text);

/* Starts the unit (its InvocationID and main process into U) and writes the cgroup directory its
 * processes run in (systemd's ControlGroup over D-Bus, sysd/unit.h, under the memory controller's
 * mount here, or under CG_ROOT when not NULL) into OUT.  0; 1 when it ended before it could be
 * recorded (no process left in its cgroup: see tm_bench_unit_store_unrecorded); -1 after tm_error
 * (it failed to start). */
int tm_bench_unit_start(struct tm_bench_unit *u, const char *cg_root, char *out, size_t size);

/* How a run ended, from systemd: Result= (success: completed, oom-kill:
 * oom-killed, signal or core-dump: killed, anything else: failed) once the
 * unit is no longer active, with REASON (SIZE bytes) for any but success;
 * FALLBACK (what the recorder decided) when it still runs.  0, or -1 after
 * tm_error. */
int tm_bench_unit_outcome(struct tm_bench_unit *u, enum tm_outcome fallback, enum tm_outcome *out,
                          char *reason, size_t size);

/* Stores with run RUN_ID what the drop-in gave it: the arm's environment
 * (env_json) and its limits (limits_json, {"memory_max": {"requested": N,
 * "via": "drop-in"}, ...}), as a launched run's are stored.  0 or -1. */
struct tm_store;
int tm_bench_unit_note_run(struct tm_store *st, int64_t run_id, const struct tm_bench_arm *arm,
                           const struct tm_limits *limits);

/* A run the unit ended before it could be recorded (it died at once, or
 * an arm's limit killed it within the first moment). */
struct tm_bench_unrecorded {
	struct tm_store *st;
	int64_t bench_id, seq, interval_usec, started_wall_usec, started_mono_usec;
	const struct tm_bench_arm *arm;
	const struct tm_limits *limits;
};

/* Stores run R with no samples and the outcome systemd gives it (a unit
 * that ended "successfully" that fast is invalid: nothing was measured),
 * the reason saying so, then stops the unit; fills RES (run_id, outcome,
 * reason).  0, or -1 after tm_error. */
struct tm_record_result;
int tm_bench_unit_store_unrecorded(struct tm_bench_unit *u, const struct tm_bench_unrecorded *r,
                                   struct tm_record_result *res);

/* After a run's recording: its outcome as systemd saw the unit end
 * (tm_bench_unit_outcome; an interrupted recording is "interrupted"),
 * stored over the recorder's with the reason, what the drop-in gave it
 * (tm_bench_unit_note_run), RES updated; then the unit is stopped.  0, or
 * -1 after tm_error. */
int tm_bench_unit_finish_run(struct tm_bench_unit *u, struct tm_store *st,
                             const struct tm_bench_arm *arm, const struct tm_limits *limits,
                             struct tm_record_result *res);

/* Stops the unit (its run is over).  0, or -1 after tm_error. */
int tm_bench_unit_stop(struct tm_bench_unit *u);

/* Removes the drop-in, reloads systemd, starts the unit again when it ran
 * before the bench, and lets the cleaner go.  0, or -1 after tm_error
 * (the steps after a failing one are still taken). */
int tm_bench_unit_close(struct tm_bench_unit *u);

#endif
