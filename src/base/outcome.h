/*
 * How a run ended: one list, used by the recorder (which decides it), the
 * store (which keeps its name as text), the reports and the bench table.
 * Compare outcomes as enum values; the text names exist only at the edges
 * (the store's column, JSON, the ingest API).
 */
#ifndef TM_OUTCOME_H
#define TM_OUTCOME_H

#include <stdbool.h>

/* X(enum suffix, stored name, words for a report) */
#define TM_OUTCOME_LIST(X)                                                                         \
	X(LIVE, "live", "running (or the recorder died)")                                          \
	X(COMPLETED, "completed", "completed")                                                     \
	X(FAILED, "failed", "failed")                                                              \
	X(OOM_KILLED, "oom-killed", "killed by the OOM killer")                                    \
	X(KILLED, "killed", "killed by a signal")                                                  \
	X(TIMEOUT, "timeout", "stopped at --timeout")                                              \
	X(INTERRUPTED, "interrupted", "interrupted")                                               \
	X(DETACHED, "detached", "detached (tidemark stopped watching)")                            \
	X(INVALID, "invalid", "invalid")

enum tm_outcome {
#define TM_OUTCOME_ENUM(e, name, text) TM_OUTCOME_##e,
	TM_OUTCOME_LIST(TM_OUTCOME_ENUM)
#undef TM_OUTCOME_ENUM
	    TM_OUTCOME_COUNT
};

/* The stored name ("oom-killed"); "?" for a value outside the list. */
const char *tm_outcome_name(enum tm_outcome o);

/* A few words for people ("killed by the OOM killer"). */
const char *tm_outcome_text(enum tm_outcome o);

/*
 * The outcome stored as NAME.  NULL or "" is LIVE (a run whose end was never
 * written).  Returns 0, or -1 for a name not in the list (*OUT untouched).
 */
int tm_outcome_parse(const char *name, enum tm_outcome *out);

/* tm_outcome_parse, with an unknown name read as FAILED (it was not a
 * success we can vouch for). */
enum tm_outcome tm_outcome_of(const char *name);

/* Whether a run that ended so counts towards an arm's figures: every ended
 * run but an invalid or interrupted one. */
bool tm_outcome_counts(enum tm_outcome o);

/* What the recorder knows when a run ends. */
struct tm_outcome_facts {
	bool launched; /* we started the command (false: -p or --cgroup) */
	bool exited;   /* the command exited by itself, with EXIT_CODE */
	int exit_code;
	int term_signal; /* it was ended by this signal (0: it was not) */
	bool cgroup_oom; /* its cgroup's oom_kill counter rose */
	bool host_oom;   /* SIGKILL, no cgroup of its own, the host's oom_kill rose */
	bool reached_progress, ended_by_mark; /* the work was done (--until-progress, "end") */
	bool timed_out, interrupted, invalid;
	bool store_failed; /* a store write failed: the run is incomplete */
	bool loop_failed;  /* the sampler or the loop failed */
};

/*
 * The one place a run's outcome is decided.  An incomplete recording is
 * "failed" whatever the command did; an OOM kill wins over a timeout or an
 * interrupt (it is what ended the command); a command we only watched is
 * "completed", or "detached" when we were told to stop watching.
 */
enum tm_outcome tm_outcome_decide(const struct tm_outcome_facts *f);

#endif
