/*
 * The recorder: launch or attach to a target, sample it at a fixed interval,
 * watch its progress and marks, and write everything to the store.
 * `tidemark record` is a thin front end to tm_record_run(); `tidemark bench`
 * calls it once per run.
 */
#ifndef TM_RECORDER_H
#define TM_RECORDER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/outcome.h"
#include "base/sample.h"
#include "cgroup/cgroup.h"     /* struct tm_limits */
#include "runtime/scrapesel.h" /* TM_SCRAPE_* sizes */
#include "store/store.h"       /* struct tm_keep */

struct tm_store;
struct tm_prom_server;
struct tm_err;

/* A watched target that ends by itself (--unit: the unit stopped or was
 * restarted): ENDED is asked as the run goes on (it may rate-limit itself);
 * true ends the run, with ERR->msg as its reason. */
struct tm_record_until {
	void *ctx;
	bool (*ended)(void *ctx, struct tm_err *err);
};

/* Called after every sample (for live displays); may be NULL. */
struct tm_record_watch {
	void *ctx;
	void (*on_sample)(void *ctx, const struct tm_sample *s, bool has_progress, double progress);
};

struct tm_record_opts {
	struct tm_store *store; /* open store to write to */
	const char *store_path; /* its file, for --push's thread (its own connection) */

	/* The target: exactly one of argv, pid, cgroup_path, unit. */
	char *const *argv;       /* launch this command */
	char *const *envp;       /* its environment (NULL: ours) */
	pid_t pid;               /* attach to this process and its descendants */
	const char *cgroup_path; /* attach to this cgroup directory */
	char unit[256];          /* --unit: this systemd unit, each start a run (tm_record_unit) */
	bool until_stop;         /* --unit: end when the unit stops (not wait for its next start) */

	/* Launching: a fresh cgroup with these limits (new_cgroup), or none. */
	bool new_cgroup;
	struct tm_limits limits;
	const char *cgroup_name; /* name for the fresh cgroup (NULL: generated) */

	int64_t interval_usec;      /* >= 50 ms */
	const char *progress_regex; /* one numeric capture group */
	const char *progress_file;  /* match there instead of the child's output */
	const char
	    *progress_cmd;     /* or on the stdout of this shell command (ours, not the target) */
	bool stop_at_progress; /* stop the command once progress >= until_progress */
	double until_progress;
	/* The work done, for a command with no progress line (record/units.h):
	 * UNITS when has_units, or the last value UNITS_FROM matched in its
	 * output (the command sets progress_regex to it). */
	bool has_units;
	double units;
	const char *units_from;
	int64_t timeout_usec;     /* 0: none */
	int64_t settle_usec;      /* keep sampling this long after the work ends */
	int64_t term_grace_usec;  /* SIGTERM, then SIGKILL after this */
	int runtime;              /* enum tm_runtime (record/gcwatch.h): read GC lines */
	bool heap;                /* preload libtidemark-heap.so into the command */
	bool heap_sites;          /* ... libtidemark-heap-sites.so instead (sites, no counters) */
	const char *heap_profile; /* PREFIX: PREFIX.PID.final.pb.gz as each process leaves */
	int64_t heap_every_usec;  /* also PREFIX.PID.N.pb.gz this often (0: no) */
	bool quiet_child;         /* don't pass the child's output on (-q) */
	bool no_pty;              /* capture stdout through a pipe, not a pseudo-terminal */
	bool until_first_exit;    /* end when the first process exits (the rest goes on) */
	bool stay_when_empty;     /* --cgroup: go on recording when it has no process */

	/* Set by tm_record_unit for each run of a unit: the run's "unit" and
	 * "unit_invocation" events, progress from the unit's journal (that
	 * invocation's entries, from its start or from now), and its end. */
	const char *journal_unit;
	const char *unit_invocation;
	bool journal_from_start;
	int64_t unit_seq; /* 1 for the first start seen, 2 for the next... */
	int64_t unit_main_pid;
	struct tm_record_until until;

	/* Bench bookkeeping, stored with the run. */
	int64_t bench_id;
	const char *arm;
	int64_t bench_seq;
	const char *expect_allocator; /* bench: the run is invalid unless this is mapped */

	/* Optional outputs. */
	const char *push_url; /* push to a tidemark server */
	const char *token_file;
	const char *rw_url;               /* --remote-write: a Prometheus remote write receiver */
	const char *rw_token_file;        /* its bearer token */
	const char *rw_basic_auth_file;   /* or its "user:password" */
	const char *machine;              /* the run's machine name (default: the host name) */
	const char *metrics_listen;       /* serve /metrics on this address */
	int metrics_socket;               /* or on this listening socket from systemd (0: none) */
	struct tm_prom_server *prom_kept; /* --unit: the loop's /metrics, kept across its runs */
	bool has_keep;                    /* --keep: prune the run as it records */
	int64_t commit_every_usec;        /* --commit-every: samples wait this long (0: none;
	                                     -1: the default, tm_rec_default_window_usec) */
	struct tm_keep keep;
	/* --scrape URL[,metric...] (runtime/scrapesel.h), as given */
	int nscrape;
	char scrape[TM_SCRAPE_MAX_TARGETS][TM_SCRAPE_SPEC_MAX];
	struct tm_record_watch watch;
};

void tm_record_opts_init(struct tm_record_opts *o);

struct tm_record_result {
	int64_t run_id;
	enum tm_outcome outcome;
	char reason[256];
	bool store_failed;       /* the store stopped taking writes during the run */
	int64_t first_exit_usec; /* since the start: the launched process exited (0: no) */
	int64_t last_left_usec;  /* since the start: the target's last process left (0: no) */
	int exit_code;           /* -1 if not exited normally */
	int term_signal;
	bool oom_killed;            /* confirmed by the cgroup's oom_kill counter */
	int64_t wall_usec;          /* start to end of the work (not the settle) */
	int64_t work_end_mono_usec; /* when the work ended (exit, progress target, mark) */
	bool reached_progress;
	double last_progress;
};

/*
 * Records one run to the end.  Returns 0 when the run was recorded (whatever
 * its outcome, "failed" included: a store that stopped taking writes sets
 * STORE_FAILED), -1 when it could not begin (bad target, the store) after
 * tm_error.  SIGINT/SIGTERM to us are forwarded to a launched command and end
 * the run as "interrupted".
 *
 * The command is never harmed by the recorder: its output goes straight to
 * our stdout/stderr, or through a relay process (relay.h) when it is
 * captured; a failure of ours (the store, the sampler) ends the recording,
 * not the command, which we then wait for.  Only what the options ask for
 * (--timeout, --until-progress, an interrupt) stops it.  A command whose
 * first process exits is followed until the last process of its cgroup (or
 * tree) has left, unless UNTIL_FIRST_EXIT.
 */
int tm_record_run(const struct tm_record_opts *o, struct tm_record_result *res);

/*
 * --unit: follows the systemd unit O->unit (record/unitrec.c).  Each start
 * of the unit (a new InvocationID) is one run of its cgroup in O->store,
 * with the events "unit" (detail: the unit's name; value: its place in the
 * series) and "unit_invocation" (detail: the id) that link the runs; with
 * O->progress_regex and no other progress source, progress comes from the
 * unit's journal.  Between runs it waits for the unit's next start (it
 * says so on stderr), unless O->until_stop; --timeout bounds the whole.
 * Never starts, stops or changes the unit.  RES is the last run's; 0 when
 * at least one run was recorded or it was interrupted while waiting
 * (RES->run_id 0), -1 after tm_error (systemd cannot be reached, no such
 * unit, the first run could not begin).
 */
int tm_record_unit(const struct tm_record_opts *o, struct tm_record_result *res);
/* Takes the listening socket systemd passed (tidemark-record@.socket;
 * sd_listen_fds(3)) as O's /metrics endpoint: o->metrics_socket, 0 when
 * none was passed.  0, or -1 after tm_error. */
int tm_record_take_listen_socket(struct tm_record_opts *o);

/* The default commit window (--commit-every not given) for a run that has
 * run RAN_USEC (monotonic microseconds since its start), in microseconds:
 * 0 (every sample commits at once) in its first minute, 60 s until its
 * tenth minute, 300 s past it.  A kill -9 loses at most this much of the
 * samples and progress that wait in memory.  Pure; any RAN_USEC. */
int64_t tm_rec_default_window_usec(int64_t ran_usec);

#endif
