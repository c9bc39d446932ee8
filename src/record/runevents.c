/*
 * What happens during a run: events, store writes and their failure, the
 * allocator check, progress lines, marks, children that exit and signals
 * to us.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "kern/procfs.h"
#include "record/rec.h"
#include "sample/allocators.h"
#include "sample/sampler.h"
#include "store/store.h"
#include "base/banned.h"

/* ---- the store ---- */

/*
 * Every store write of a run goes through here with its result.  The first
 * failure ends the recording (not the command): the error is said once,
 * here (the store itself is quiet while recording, so that the retries of
 * the run's end say nothing more), nothing more is written but the run's
 * end (runend.c), and the caller goes on.  Returns RC.
 */
int tm_rec_store(struct rec *r, int rc, const char *what)
{
	if (!rc || r->store_failed)
		return rc;
	r->store_failed = true;
	/* the store is quiet while recording: this is the one line said */
	const char *why = tm_store_last_error(r->st);
	snprintf(r->store_error, sizeof(r->store_error), "a store write failed (%s)",
	         why[0] ? why : what);
	tm_store_abandon(r->st);
	tm_warn("%s: recording stops here; the command goes on, and the run will end as failed",
	        r->store_error);
	return rc;
}

int tm_rec_event(struct rec *r, const char *kind, int64_t pid, int64_t value, const char *detail)
{
	struct tm_event ev = {
	    .t_wall_usec = tm_now_wall_usec(),
	    .t_mono_usec = tm_now_mono_usec(),
	    .kind = kind,
	    .pid = pid,
	    .value = value,
	    .detail = detail,
	};
	if (r->store_failed || !r->run_begun)
		return 0;
	return tm_rec_store(r, tm_store_add_event(r->st, r->run_id, &ev), "event");
}

static int64_t delta(const struct rec *r, enum tm_metric m)
{
	if (!r->have_prev || !tm_sample_has(&r->cur, m) || !tm_sample_has(&r->prev, m))
		return 0;
	return r->cur.v[m] - r->prev.v[m];
}

static void describe_limit(char *buf, size_t size, const char *name, int64_t before, int64_t after)
{
	char a[32], b[32];
	if (before < 0)
		snprintf(a, sizeof(a), "none");
	else
		tm_fmt_mib(a, sizeof(a), before);
	if (after < 0)
		snprintf(b, sizeof(b), "none");
	else
		tm_fmt_mib(b, sizeof(b), after);
	snprintf(buf, size, "%s %s -> %s", name, a, b);
}

/* What changed between the previous sample and this one that deserves an
 * event of its own: kills, throttling, limit changes. */
int tm_rec_sample_events(struct rec *r)
{
	static const struct {
		enum tm_metric m;
		const char *kind;
	} counters[] = {
	    {TM_M_CG_EVENTS_OOM_KILL, "oom_kill"},
	    {TM_M_CG_EVENTS_OOM, "oom"},
	    {TM_M_CG_EVENTS_HIGH, "high_throttle"},
	    {TM_M_CG_EVENTS_MAX, "max_hit"},
	};
	static const struct {
		enum tm_metric m;
		const char *name;
	} limits[] = {
	    {TM_M_CG_MAX_BYTES, "memory.max"},
	    {TM_M_CG_HIGH_BYTES, "memory.high"},
	    {TM_M_CG_SWAP_MAX_BYTES, "memory.swap.max"},
	};
	char detail[128];

	for (size_t i = 0; i < TM_ARRAY_SIZE(counters); i++) {
		int64_t d = delta(r, counters[i].m);
		if (d > 0 && tm_rec_event(r, counters[i].kind, 0, d, NULL))
			return -1;
		if (d > 0 && counters[i].m == TM_M_CG_EVENTS_OOM_KILL)
			r->oom_kills += d;
	}
	for (size_t i = 0; i < TM_ARRAY_SIZE(limits); i++) {
		enum tm_metric m = limits[i].m;
		if (!r->have_prev || !tm_sample_has(&r->cur, m) || !tm_sample_has(&r->prev, m) ||
		    r->cur.v[m] == r->prev.v[m])
			continue;
		describe_limit(detail, sizeof(detail), limits[i].name, r->prev.v[m], r->cur.v[m]);
		if (tm_rec_event(r, "limit_change", 0, r->cur.v[m], detail))
			return -1;
	}
	return 0;
}

/* ---- allocator check ---- */

/* Every process of the target: its allocator from its maps (once its
 * dynamic loader is done, or after a few samples: a static binary); the run
 * says which ran where, and an arm is invalid as soon as a process holding a
 * real share of the anon runs another allocator than the arm claims. */
int tm_rec_check_allocator(struct rec *r, const pid_t *pids, const struct tm_comm *comms,
                           size_t npids)
{
	const struct tm_sample *s = &r->cur;
	int64_t anon = tm_sample_has(s, TM_M_CG_ANON_BYTES)         ? s->v[TM_M_CG_ANON_BYTES]
	               : tm_sample_has(s, TM_M_PROC_RSS_ANON_BYTES) ? s->v[TM_M_PROC_RSS_ANON_BYTES]
	                                                            : -1;

	if (!r->allocs && !(r->allocs = tm_allocators_new()))
		return tm_error("out of memory");
	if (tm_allocators_update(r->allocs, pids, comms, npids, r->o->expect_allocator, anon)) {
		tm_allocators_describe(r->allocs, r->allocator, sizeof(r->allocator));
		if (tm_rec_store(r,
		                 tm_store_run_set_text(r->st, r->run_id, "allocator", r->allocator),
		                 "allocator"))
			return -1;
	}
	if (r->invalid || !r->o->expect_allocator ||
	    !tm_allocators_mismatch(r->allocs, r->o->expect_allocator, r->reason,
	                            sizeof(r->reason)))
		return 0;
	r->invalid = true;
	r->phase = PH_TERM;
	r->term_at_mono = tm_now_mono_usec();
	return tm_rec_event(r, "invalid", r->child.pid, 0, r->reason);
}

/* ---- progress and marks ---- */

void tm_rec_work_done(struct rec *r, int64_t now)
{
	if (r->phase != PH_WORK)
		return;
	r->work_end_mono = now;
	r->phase = PH_SETTLE;
}

void tm_rec_progress_at(struct rec *r, double v, int64_t wall_usec, int64_t mono_usec)
{
	int64_t now = tm_now_mono_usec();

	if (!r->store_failed)
		tm_rec_store(r, tm_store_add_progress(r->st, r->run_id, wall_usec, mono_usec, v),
		             "progress");
	if (r->prom)
		r->net.prom_progress(r->prom, mono_usec, v);
	r->has_progress = true;
	r->progress = v;
	r->progress_points++;
	if (r->o->stop_at_progress && v >= r->o->until_progress && !r->reached_progress) {
		r->reached_progress = true;
		tm_rec_event(r, "progress_target", 0, (int64_t)v, NULL);
		tm_rec_work_done(r, now);
	}
}

static void on_progress(struct rec *r, double v)
{
	tm_rec_progress_at(r, v, tm_now_wall_usec(), tm_now_mono_usec());
}

static void on_line(void *ctx, const char *line)
{
	struct rec *r = ctx;
	double v;

	if (tm_progress_match(&r->re, line, &v))
		on_progress(r, v);
}

void tm_rec_progress_line(struct rec *r, const char *line)
{
	on_line(r, line);
}

static void on_mark_line(void *ctx, const char *line)
{
	struct rec *r = ctx;
	int64_t now = tm_now_mono_usec();

	if (!*line)
		return;
	if (!r->store_failed)
		tm_rec_store(r, tm_store_add_mark(r->st, r->run_id, tm_now_wall_usec(), now, line),
		             "mark");
	if (!strcmp(line, "end")) {
		r->ended_by_mark = true;
		tm_rec_work_done(r, now);
	}
}

/* Scans the relay's copy of the command's stdout (I = 0) or stderr (1) for
 * progress.  The relay has already passed it on. */
void tm_rec_drain_forwarded(struct rec *r, int i)
{
	int *fd = &r->relay.fwd_fd[i];
	struct tm_lines *lines = i ? &r->err_lines : &r->out_lines;
	size_t nin;
	const struct tm_rec_input *in = tm_rec_inputs(&nin);
	char buf[8192];
	ssize_t n;

	while ((n = read(*fd, buf, sizeof(buf))) > 0) {
		if (r->re.compiled)
			tm_lines_feed(lines, buf, (size_t)n, on_line, r);
		for (size_t k = 0; k < nin; k++) /* the readers of its output */
			if (in[k].on_output)
				in[k].on_output(r, i, buf, (size_t)n);
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		tm_lines_flush(lines, on_line, r);
		for (size_t k = 0; k < nin; k++)
			if (in[k].on_output_end)
				in[k].on_output_end(r, i);
		close(*fd);
		*fd = -1;
	}
}

void tm_rec_drain_marks(struct rec *r)
{
	char buf[1024];
	ssize_t n;

	/* each mark is one line written atomically, so a read holds whole lines */
	while ((n = read(r->marks.fd, buf, sizeof(buf))) > 0) {
		struct tm_lines ml = {.len = 0};
		tm_lines_feed(&ml, buf, (size_t)n, on_mark_line, r);
		tm_lines_flush(&ml, on_mark_line, r);
	}
}

/* ---- children and signals ---- */

static const char *signame(int sig)
{
	const char *s = sigabbrev_np(sig);
	return s ? s : "?";
}

void tm_rec_reap(struct rec *r)
{
	int status;
	pid_t pid;
	char detail[64];

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == r->relay.pid) {
			r->relay.pid = 0; /* the relay is not the target */
			continue;
		}
		if (tm_rec_progsrc_reaped(r, pid, status))
			continue; /* nor is the progress command */
		if (WIFSIGNALED(status)) {
			snprintf(detail, sizeof(detail), "SIG%s", signame(WTERMSIG(status)));
			tm_rec_event(r, "signal", pid, WTERMSIG(status), detail);
		} else {
			tm_rec_event(r, "exit", pid, WEXITSTATUS(status), NULL);
		}
		if (r->launched && pid == r->child.pid) {
			r->child_gone = true;
			r->child_status = status;
			r->first_exit_mono = tm_now_mono_usec();
		}
	}
}

void tm_rec_on_signal(struct rec *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			tm_rec_reap(r);
			continue;
		}
		if (si.ssi_signo == SIGPIPE)
			continue; /* our stdout's reader left; the write said EPIPE */
		/* SIGINT, SIGTERM, SIGHUP: pass it on and end the run */
		if (!r->interrupted)
			tm_rec_event(r, "interrupted", 0, si.ssi_signo, NULL);
		r->interrupted = true;
		if (r->launched && !r->child_gone)
			kill(r->child.pid, (int)si.ssi_signo);
		else if (r->launched)
			tm_rec_signal_target(r,
			                     (int)si.ssi_signo); /* what the command left running */
		if (!r->launched)
			r->phase = PH_DONE;
		else if (r->phase < PH_TERM) {
			r->phase = PH_TERM;
			r->term_at_mono = 0; /* already sent; escalate after the grace */
			r->kill_at_mono = tm_now_mono_usec() + r->o->term_grace_usec;
		}
	}
}
