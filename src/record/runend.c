/*
 * How a run ends: the phases (work -> settle -> terminate -> done), when the
 * target is gone (a daemon's first process may exit long before the last
 * one), the facts for tm_outcome_decide(), and the run's end in the store.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/bunch.h"
#include "base/error.h"
#include "base/util.h"
#include "record/rec.h"
#include "sample/sampler.h"
#include "store/store.h"
#include "base/banned.h"

/* The pids in our cgroup, read now by path (on v1 a kept descriptor
 * re-reads a cached pid list, which would name processes long gone).
 * Malloc'd into *PIDS; 0, or -1 when there is no cgroup or it is unreadable. */
static int cgroup_pids_now(struct rec *r, pid_t **pids, size_t *n)
{
	char path[4096], *text, *p, *end;
	size_t cap = 0;

	*pids = NULL;
	*n = 0;
	if (!r->cg || snprintf(path, sizeof(path), "%s/cgroup.procs", tm_cgroup_path(r->cg)) >=
	                  (int)sizeof(path))
		return -1;
	if (!(text = tm_read_file(path, NULL)))
		return -1;
	for (p = text; *p; p = end) {
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (*n == cap) {
			pid_t *g = realloc(*pids, (cap = cap ? 2 * cap : 16) * sizeof(**pids));
			if (!g)
				break;
			*pids = g;
		}
		(*pids)[(*n)++] = (pid_t)v;
	}
	free(text);
	return 0;
}

/* Signals every process of the target: the cgroup's when it is ours, else
 * the tree the sampler last saw, and the child itself. */
void tm_rec_signal_target(struct rec *r, int sig)
{
	size_t n = 0;
	const pid_t *pids = r->sampler ? tm_sampler_pids(r->sampler, &n) : NULL;
	pid_t *cg_pids = NULL;

	if (r->launched && !r->child_gone)
		kill(r->child.pid, sig);
	if (r->own_cg && cgroup_pids_now(r, &cg_pids, &n) == 0)
		pids = cg_pids;
	for (size_t i = 0; i < n; i++)
		if (pids[i] != getpid() && pids[i] != r->relay.pid)
			kill(pids[i], sig);
	free(cg_pids);
}

/* How many processes the target has now: the cgroup's when there is one,
 * else the tree's at the last sample.  -1: cannot tell. */
static int64_t processes_left(struct rec *r)
{
	pid_t *pids;
	size_t n;

	if (cgroup_pids_now(r, &pids, &n) == 0) {
		free(pids);
		return (int64_t)n;
	}
	if (r->sampler && tm_sample_has(&r->cur, TM_M_PROC_COUNT))
		return r->cur.v[TM_M_PROC_COUNT];
	return -1;
}

static bool target_gone(struct rec *r)
{
	struct tm_err why;
	int64_t left;

	if (r->launched && !r->child_gone)
		return false;
	if (r->launched && r->o->until_first_exit)
		return true;
	if (!r->launched && r->o->pid)
		return kill(r->o->pid, 0) && errno == ESRCH;
	if (!r->launched && r->o->until.ended && r->o->until.ended(r->o->until.ctx, &why)) {
		snprintf(r->reason, sizeof(r->reason), "%.255s", why.msg);
		return true; /* --unit: it stopped or started again */
	}
	/* the launched command's first process is gone, or it is a cgroup we
	 * watch: follow whatever is left until the last process leaves */
	left = processes_left(r);
	if (left < 0)
		return r->launched; /* cannot tell: the first process was all we knew */
	if (left > 0 || (!r->launched && r->o->stay_when_empty))
		return false;
	if (!r->last_left_mono)
		r->last_left_mono = tm_now_mono_usec();
	return true;
}

/* Moves the run through settle -> terminate -> kill as time passes. */
void tm_rec_advance_phase(struct rec *r, int64_t now)
{
	if (r->phase == PH_WORK && r->o->timeout_usec &&
	    now - r->start_mono >= r->o->timeout_usec) {
		r->timed_out = true;
		tm_rec_event(r, "timeout", 0, r->o->timeout_usec, NULL);
		r->phase = PH_TERM;
		r->term_at_mono = now;
	}
	if (r->phase == PH_SETTLE && now >= r->work_end_mono + r->o->settle_usec) {
		r->phase = PH_TERM;
		r->term_at_mono = now;
	}
	if (r->phase == PH_TERM && r->term_at_mono) {
		if (!r->launched) {
			r->phase = PH_DONE; /* never signal what we only watch */
			return;
		}
		tm_rec_signal_target(r, SIGTERM);
		r->term_at_mono = 0;
		r->kill_at_mono = now + r->o->term_grace_usec;
	}
	if (r->phase == PH_TERM && r->kill_at_mono && now >= r->kill_at_mono) {
		tm_rec_signal_target(r, SIGKILL);
		r->kill_at_mono = now + r->o->term_grace_usec;
	}
	if (target_gone(r))
		r->phase = PH_DONE;
}

int64_t tm_rec_read_vmstat_oom(void)
{
	char *buf = tm_read_file("/proc/vmstat", NULL), *p;
	int64_t v = -1;

	if (buf && (p = strstr(buf, "\noom_kill ")))
		v = strtoll(p + 10, NULL, 10);
	free(buf);
	return v;
}

/* A run of an arm that would count as completed while no sample could tell
 * its allocator (it ended before a sample saw one of its processes with its
 * libraries loaded) is not vouched for: true, with the reason said, when the
 * run is to be invalid.  (A run killed or failed is what it was whatever
 * its allocator.) */
static bool unchecked_allocator(struct rec *r)
{
	if (!r->launched || !r->o->expect_allocator || r->allocator[0])
		return false;
	snprintf(r->reason, sizeof(r->reason),
	         "the allocator (the arm expects %s) could not be checked: the run ended after "
	         "%.2f s, before a sample saw one of its processes with its libraries loaded "
	         "(/proc/PID/maps); a shorter --interval samples sooner",
	         r->o->expect_allocator, (double)(tm_now_mono_usec() - r->start_mono) / 1e6);
	return true;
}

void tm_rec_decide(struct rec *r, struct tm_record_result *res)
{
	int st = r->child_status;
	struct tm_outcome_facts f = {
	    .launched = r->launched,
	    .exited = r->launched && r->child_gone && WIFEXITED(st),
	    .exit_code = r->launched && r->child_gone && WIFEXITED(st) ? WEXITSTATUS(st) : -1,
	    .term_signal = r->launched && r->child_gone && WIFSIGNALED(st) ? WTERMSIG(st) : 0,
	    .cgroup_oom = r->oom_kills > 0,
	    .reached_progress = r->reached_progress,
	    .ended_by_mark = r->ended_by_mark,
	    .timed_out = r->timed_out,
	    .interrupted = r->interrupted,
	    .invalid = r->invalid,
	    .store_failed = r->store_failed,
	    .loop_failed = !r->launched && !r->sampler,
	};

	if (!r->cg && f.term_signal == SIGKILL && r->vmstat_oom_start >= 0 &&
	    tm_rec_read_vmstat_oom() > r->vmstat_oom_start) {
		/* no cgroup of our own: the host's counter is the best witness */
		f.host_oom = true;
		snprintf(r->reason, sizeof(r->reason),
		         "SIGKILL while the host's oom_kill counter rose (no cgroup to confirm)");
	}
	res->outcome = tm_outcome_decide(&f);
	if (res->outcome == TM_OUTCOME_COMPLETED && unchecked_allocator(r)) {
		f.invalid = r->invalid = true;
		res->outcome = tm_outcome_decide(&f);
	}
	res->exit_code = f.exit_code;
	res->term_signal = f.term_signal;
	if (r->store_failed)
		snprintf(r->reason, sizeof(r->reason), "%s", r->store_error);
	snprintf(res->reason, sizeof(res->reason), "%s", r->reason);
	res->oom_killed = res->outcome == TM_OUTCOME_OOM_KILLED;
	res->reached_progress = r->reached_progress;
	res->last_progress = r->progress;
	res->store_failed = r->store_failed;
	if (r->first_exit_mono)
		res->first_exit_usec = r->first_exit_mono - r->start_mono;
	if (r->last_left_mono)
		res->last_left_usec = r->last_left_mono - r->start_mono;
}

/*
 * Writes the run's end.  After a store failure what was pending is dropped
 * first, so this small write has its best chance; it is retried at every
 * sample until it lands (the disk may have room again).  0, or -1 after
 * tm_error.
 */
int tm_rec_end_run(struct rec *r, const struct tm_record_result *res)
{
	struct tm_run_end end = {
	    .ended_wall_usec = tm_now_wall_usec(),
	    .outcome = res->outcome,
	    .exit_code = res->exit_code,
	    .term_signal = res->term_signal,
	    .reason = res->reason[0] ? res->reason : NULL,
	};

	if (!r->run_begun)
		return 0;
	if (r->store_failed)
		tm_store_abandon(r->st);
	if (tm_store_run_end(r->st, r->run_id, &end) || tm_store_commit(r->st)) {
		tm_store_abandon(r->st);
		return -1;
	}
	r->run_ended = true;
	return 0;
}

struct times {
	int64_t *t;
	size_t n, cap;
};

static int collect_time(void *ctx, int64_t t_wall_usec, int64_t t_mono_usec, double value)
{
	struct times *ts = ctx;
	(void)t_wall_usec;
	(void)value;
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? 2 * ts->cap : 256;
		int64_t *t = realloc(ts->t, cap * sizeof(*t));
		if (!t)
			return -1;
		ts->t = t;
		ts->cap = cap;
	}
	ts->t[ts->n++] = t_mono_usec;
	return 0;
}

/* Progress that arrived at once: said at the end of `record` (the report
 * decides it again from the same stored times). */
void tm_rec_warn_bunched(struct rec *r)
{
	struct times ts = {0};
	struct tm_arrivals a;

	if (r->progress_points < 2 || r->store_failed || r->o->units_from ||
	    tm_store_each_progress(r->st, r->run_id, collect_time, &ts))
		goto out;
	tm_progress_arrivals(ts.t, ts.n, &a);
	if (ts.n >= 2 && !a.supported)
		tm_warn(
		    "the %zu progress points came at %zu instants, up to %zu arrived at once: "
		    "the command's output is block-buffered%s; no rates or per-unit figures for "
		    "this run",
		    ts.n, a.instants, a.largest,
		    r->o->no_pty || r->pty_fallback || r->o->progress_file
		        ? ""
		        : " (it writes to stdout past the pseudo-terminal, or flushes late)");
out:
	free(ts.t);
}
