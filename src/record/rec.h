/*
 * The recorder's inside, shared by the files that include it (not a
 * public header: only src/record/ includes it):
 *   recorder.c  the loop: samples on a grid, waiting in poll() between them
 *   inputs.c    the recorder's inputs, one descriptor each (struct tm_rec_input)
 *   runsetup.c  checking the options, opening and closing what a run uses
 *   runevents.c what happens during a run: events, progress, marks, signals
 *   runend.c    how a run ends: phases, the facts for tm_outcome_decide()
 *   follow.c    --progress-file, followed with inotify
 *   progsrc.c   progress from a command's stdout or a unit's journal
 *   scrapes.c   --scrape's targets, taken at each sample
 * (relay.c, the process that carries the command's captured output,
 * gcwatch.c (--runtime's GC lines) and jvmlog.c (the JVM's -Xlog:gc file)
 * have their own headers: struct rec holds their state, which only they
 * write.  unitrec.c and units.c, --unit's side, do not include this one.)
 */
#ifndef TM_REC_H
#define TM_REC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/outcome.h"
#include "record/gcwatch.h"
#include "record/jvmlog.h"
#include "base/sample.h"
#include "cgroup/cgroup.h"
#include "record/launch.h"
#include "record/marks.h"
#include "record/netlib.h"
#include "record/progress.h"
#include "record/pushthread.h"
#include "record/recorder.h"
#include "record/relay.h"

enum phase { PH_WORK, PH_SETTLE, PH_TERM, PH_DONE };

/* follow.c: a followed progress file (tail -F), reopened when replaced or
 * truncated; inotify says when to look (ino_fd -1: looked at on a period). */
struct follow {
	const char *path;
	const char *base; /* path's last component: the directory's events for it */
	int fd;
	ino_t ino;
	off_t pos;
	struct tm_lines lines;
	int ino_fd, file_wd, dir_wd;
};

struct tm_journal;

/* progsrc.c: progress from outside the command's output.  --progress-cmd:
 * the command, its stdout's read end, what it said; --unit with
 * --progress: the unit's journal entries (NULL: none). */
struct progsrc {
	pid_t pid; /* the command, 0: not running (or reaped) */
	int fd;
	struct tm_lines lines;
	bool said_gone;
	struct tm_journal *journal;
};

struct rec_scrape; /* scrapes.c */

/* The recorder's state, grouped by what it is about; each group's comment
 * names the files that write it (a group written by an input's own file is
 * that input's).  The groups are anonymous structs: members are reached as
 * r->NAME. */
struct rec {
	/* the run and its store: recorder.c (options, store), runsetup.c (the
	 * run's row, the machine's name), runevents.c (a failed write),
	 * runend.c (the run's end) */
	struct {
		const struct tm_record_opts *o;
		int64_t last_prune_wall_usec; /* --keep: when the run was last pruned */
		struct tm_store *st;
		int64_t run_id;
		bool run_begun, run_ended;
		/* a store write failed: nothing more is written but the run's end
		 * (retried until it lands); the command is left alone */
		bool store_failed;
		char store_error[256];
		char machine[256]; /* our host name: the run's metadata and /metrics' label */
	};
	/* the target: its cgroup and the launched command.  runsetup.c (opens,
	 * launches), runevents.c (reaps: child_gone, child_status,
	 * first_exit_mono), runend.c (last_left_mono) */
	struct {
		struct tm_cg_host host;
		struct tm_cgroup *cg;
		bool own_cg;
		char cg_path_copy[256]; /* to name it after it is released */
		struct tm_launch child;
		bool launched, child_gone;
		int child_status;
		int64_t first_exit_mono; /* when the launched process exited (0: not yet) */
		int64_t last_left_mono;  /* when the last process of the target left (0: not yet) */
	};
	/* what is read at each sample: recorder.c and runsetup.c (the sampler,
	 * the heap reader and agent, the OOM count at the start), runevents.c
	 * (the allocators seen, OOM kills), runend.c (the allocator's text) */
	struct {
		struct tm_sampler *sampler;
		struct tm_heap_reader *heap;
		pid_t
		    heap_attached; /* -p/--unit with --heap: the pid the agent counts in, 0: none */
		int64_t oom_kills, vmstat_oom_start;
		int64_t oom_profiles; /* OOM kills whose heap was profiled (runsetup.c) */
		char allocator[256];  /* "glibc (sh), jemalloc (redis-server)" */
		struct tm_allocators *allocs;
	};
	/* the outputs beside the store: runsetup.c (--push, --metrics-listen,
	 * --remote-write) */
	struct {
		struct tm_net net;             /* loaded only for --push and --metrics-listen */
		struct tm_push_thread *pusher; /* --push: sends the run from a thread of its own */
		struct tm_prom_server *prom;
		struct tm_rw *rw; /* --remote-write's sender */
	};
	/* signals: runsetup.c (blocks them, opens the signalfd), recorder.c
	 * (clears the saved mask); the launched command and progsrc.c's
	 * command get the saved mask back */
	struct {
		int sigfd;
		sigset_t oldmask;
	};
	/* input: the command's output (stdout and stderr through the relay).
	 * runsetup.c (starts the relay; pty_fallback), runevents.c (its lines,
	 * tm_rec_drain_forwarded), recorder.c (drains it at the end) */
	struct {
		bool pty_fallback; /* no pseudo-terminal could be opened: stdout through a pipe */
		struct tm_relay relay;
		struct tm_lines out_lines, err_lines;
	};
	/* input: GC lines (--runtime) on stderr or stdout: gcwatch.c's state,
	 * opened by runsetup.c, fed by runevents.c, put in samples by inputs.c */
	struct tm_gcwatch gc;
	/* input: the launched JVM's -Xlog:gc file: jvmlog.c's state, opened by
	 * runsetup.c, read by inputs.c and runevents.c */
	struct tm_jvmlog jlog;
	/* input: --progress's pattern, compiled by runsetup.c, matched by
	 * runevents.c and progsrc.c against each input's lines */
	struct tm_progress_re re;
	/* input: --progress-file: follow.c */
	struct follow follow;
	/* inputs: --progress-cmd and a unit's journal: progsrc.c (runsetup.c
	 * zeroes it) */
	struct progsrc psrc;
	/* input: marks sent to the run (tidemark mark): opened by runsetup.c,
	 * drained by runevents.c */
	struct tm_mark_listener marks;
	/* input: --scrape's targets: scrapes.c */
	struct {
		int nscrapes; /* --scrape targets started */
		struct rec_scrape *scrapes[TM_SCRAPE_MAX_TARGETS];
	};
	/* progress, from whichever input gave it: runevents.c */
	struct {
		bool has_progress;
		double progress;
		int64_t progress_points;
		bool reached_progress;
	};
	/* the sampling grid: recorder.c (runend.c and runevents.c read cur and
	 * prev, and fill cur's events) */
	struct {
		struct tm_sample cur, prev;
		bool have_prev;
		int64_t seq, start_mono, start_wall, interval;
	};
	/* the run's phase and how it ends: runevents.c (work done, a mark, a
	 * signal, an allocator not expected: reason), runend.c (the phases'
	 * deadlines, a timeout, an invalid run) */
	struct {
		enum phase phase;
		int64_t work_end_mono, term_at_mono, kill_at_mono;
		bool ended_by_mark, timed_out, interrupted, invalid;
		char reason[256];
	};
};

/* inputs.c: an input of the recorder.  The wait between samples polls
 * each input's descriptor (fd: -1 for none now) and wakes at least every
 * period (0: no period now); when the descriptor is ready, on_ready; after
 * any wake, on_wake; in each sample, on_sample (DEADLINE: the sample's due
 * time); when the run is over, on_end; each block of the command's
 * stdout (I = 0) or stderr (1) the relay passed on, on_output (a reader of
 * the command's output: a runtime's GC lines), and on_output_end when that
 * stream ends.  Any of them may be NULL. */
struct tm_rec_input {
	const char *name;
	int (*fd)(const struct rec *r);
	int64_t (*period_usec)(const struct rec *r);
	void (*on_ready)(struct rec *r);
	void (*on_wake)(struct rec *r);
	void (*on_sample)(struct rec *r, int64_t deadline, struct tm_sample *s);
	void (*on_end)(struct rec *r);
	void (*on_output)(struct rec *r, int i, const char *data, size_t n);
	void (*on_output_end)(struct rec *r, int i);
};
#define TM_REC_INPUTS_MAX 16
/* The inputs, in the order of their work; their count in *N. */
const struct tm_rec_input *tm_rec_inputs(size_t *n);

/* runevents.c */
/* -p PID --heap (or a unit's main pid): attaches the heap agent, watching
 * us (docs/heap.md "attach"); 0 when there is nothing to attach, or -1
 * after tm_error (refused: the run does not begin).  The detach at the
 * run's end says what it restored. */
int tm_rec_heap_attach(struct rec *r);
void tm_rec_heap_detach(struct rec *r);
int tm_rec_event(struct rec *r, const char *kind, int64_t pid, int64_t value, const char *detail);
int tm_rec_store(struct rec *r, int rc, const char *what);
int tm_rec_sample_events(struct rec *r);
struct tm_comm;
int tm_rec_check_allocator(struct rec *r, const pid_t *pids, const struct tm_comm *comms,
                           size_t npids);
void tm_rec_work_done(struct rec *r, int64_t now);
void tm_rec_drain_forwarded(struct rec *r, int i);
void tm_rec_drain_marks(struct rec *r);
void tm_rec_reap(struct rec *r);
void tm_rec_on_signal(struct rec *r);

/* follow.c: --progress-file.  Open never fails the run (a file not there
 * yet is followed once it appears); fd is the inotify descriptor (-1: none,
 * look on a period); ready reads its events and looks when one is about
 * the file; poll looks (reopens, reads the new lines); close releases. */
void tm_rec_follow_open(struct rec *r);
int tm_rec_follow_fd(const struct rec *r);
void tm_rec_follow_ready(struct rec *r);
void tm_rec_follow_poll(struct rec *r);
void tm_rec_follow_close(struct rec *r);

/* progsrc.c: progress from a command's stdout or a unit's journal */
int tm_rec_progsrc_open(struct rec *r);
int tm_rec_progsrc_fd(const struct rec *r);
/* the journal's descriptor (-1: none) and how long it may stay quiet
 * (usec; 0: as long as it likes); the reads of each source, and of both */
int tm_rec_journal_fd(const struct rec *r);
int64_t tm_rec_journal_wait_usec(const struct rec *r);
void tm_rec_journal_read(struct rec *r);
void tm_rec_progcmd_read(struct rec *r);
void tm_rec_progsrc_poll(struct rec *r);
bool tm_rec_progsrc_reaped(struct rec *r, pid_t pid, int status);
void tm_rec_progsrc_close(struct rec *r);

/* runevents.c: a progress line (matched against --progress), and a value
 * with the time it was logged (wall and CLOCK_MONOTONIC usec) */
void tm_rec_progress_line(struct rec *r, const char *line);
void tm_rec_progress_at(struct rec *r, double v, int64_t wall_usec, int64_t mono_usec);

/* runend.c */
void tm_rec_signal_target(struct rec *r, int sig);
void tm_rec_advance_phase(struct rec *r, int64_t now);
int64_t tm_rec_read_vmstat_oom(void);
void tm_rec_decide(struct rec *r, struct tm_record_result *res);
int tm_rec_end_run(struct rec *r, const struct tm_record_result *res);
void tm_rec_warn_bunched(struct rec *r);

/* scrapes.c: --scrape.  Open starts a thread per target (the network half
 * must be loaded); take, at each sample, puts what is ready for the sample
 * due at DEADLINE into S (Go's series) and keeps the rest for store, which
 * writes it beside the sample (0, or -1 after a store failure), export
 * gives it to --metrics-listen; end stops
 * the threads and stores the listed metrics never served as series of
 * kind "unknown", without values; free releases what is left. */
int tm_rec_scrape_open(struct rec *r);
void tm_rec_scrape_take(struct rec *r, int64_t deadline, struct tm_sample *s);
int tm_rec_scrape_store(struct rec *r, const struct tm_sample *s);
void tm_rec_scrape_end(struct rec *r);
/* What take kept, to record --metrics-listen's /metrics (tidemark_scraped). */
void tm_rec_scrape_export(struct rec *r);
void tm_rec_scrape_free(struct rec *r);

/* runsetup.c */
int tm_rec_validate(const struct tm_record_opts *o);
int tm_rec_open_cgroup(struct rec *r, const char **limits_json);
int tm_rec_begin_run(struct rec *r, char *const *child_env, const char *limits_json);
int tm_rec_setup_signals(struct rec *r);
int tm_rec_launch(struct rec *r, char **env);
char **tm_rec_child_environment(struct rec *r);
int tm_rec_open_inputs(struct rec *r);
int tm_rec_open_outputs(struct rec *r);
void tm_rec_close_outputs(struct rec *r);
int tm_rec_open_sampler(struct rec *r);
void tm_rec_close_all(struct rec *r);

#endif
