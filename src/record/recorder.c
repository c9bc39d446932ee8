/*
 * The recording loop.  One sample per interval on an absolute grid of
 * CLOCK_MONOTONIC deadlines (no drift); between deadlines we wait in poll()
 * on everything that can happen, the recorder's inputs (inputs.c: signals,
 * the marks FIFO, the relay's copy of the child's output, a progress
 * command, a followed progress file's inotify events, a unit's journal), so
 * that an idle recording wakes only for its samples; each sample takes what
 * the inputs read (a runtime's GC lines, the scrapes).
 *
 * A run ends when the launched command's last process has left (or its
 * first, with --until-first-exit), when the work is done (progress target or
 * an "end" mark) plus --settle, at --timeout, or when we are interrupted.
 * Its outcome is decided once, by tm_outcome_decide() (base/outcome.h).
 * The other files of the recorder are listed in rec.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "heap/heapshm.h"
#include "record/rec.h"
#include "record/units.h"
#include "sample/sampler.h"
#include "store/store.h"
#include "base/banned.h"

/* ---- one sample ---- */

/* --commit-every's default, a ladder by the run's age (docs/recording.md,
 * "What a kill -9 loses"): every sample in the run's first minute (a short
 * run, a bench, or a test reading a run while it starts, loses nothing),
 * then every minute until its tenth minute, then every 5 minutes (a
 * recording of months).  What a commit writes is mostly whole pages, so
 * the window divides the bytes written to the device: a minute, not 10 s,
 * from the first minute on is what keeps a whole first hour, counting its
 * start, under 1 KB a sample at the device (bench/README.md, "An hour"). */
#define DEFAULT_WINDOW_AFTER_USEC 60000000LL
#define DEFAULT_WINDOW_USEC       60000000LL
#define LONG_WINDOW_AFTER_USEC    600000000LL
#define LONG_WINDOW_USEC          300000000LL

int64_t tm_rec_default_window_usec(int64_t ran_usec)
{
	if (ran_usec >= LONG_WINDOW_AFTER_USEC)
		return LONG_WINDOW_USEC;
	return ran_usec >= DEFAULT_WINDOW_AFTER_USEC ? DEFAULT_WINDOW_USEC : 0;
}

static int commit_due(struct rec *r)
{
	int64_t now = tm_now_mono_usec(), window = r->o->commit_every_usec;

	if (window < 0)
		window = tm_rec_default_window_usec(now - r->start_mono);
	tm_store_set_commit_window(r->st, window);
	return tm_store_commit_due(r->st, now);
}

/* The store's part of a sample: the sample, its events, the allocator, one
 * commit.  Any failure ends the recording (tm_rec_store), not the run. */
static void store_sample(struct rec *r, const struct tm_sample *s, const pid_t *pids,
                         const struct tm_comm *comms, size_t npids)
{
	if (r->store_failed)
		return;
	if (tm_store_check_file(r->st)) {
		tm_rec_store(r, -1, "the store's file is gone");
		return;
	}
	if (tm_rec_store(r, tm_store_add_sample(r->st, r->run_id, s), "sample") ||
	    tm_rec_scrape_store(r, s) || tm_rec_sample_events(r) ||
	    tm_rec_check_allocator(r, pids, comms, npids))
		return;
	if (tm_rec_store(r, commit_due(r), "commit") || !r->o->has_keep)
		return;
	/* --keep: prune the run's old data as it goes */
	int64_t now = tm_now_wall_usec();
	if (now - r->last_prune_wall_usec >= tm_keep_prune_every_usec(&r->o->keep)) {
		struct tm_prune_stats ps = {0};
		r->last_prune_wall_usec = now;
		if (tm_store_prune_run(r->st, r->run_id, &r->o->keep, now, &ps))
			tm_warn("pruning run %" PRId64 " failed (%s); recording goes on, and the "
			        "next prune catches up",
			        r->run_id, tm_store_last_error(r->st));
	}
}

/* After a store failure, the run's end as "failed" until it lands. */
static void end_failed_run(struct rec *r)
{
	struct tm_record_result res = {.outcome = TM_OUTCOME_FAILED, .exit_code = -1};

	if (!r->store_failed || r->run_ended)
		return;
	snprintf(res.reason, sizeof(res.reason), "%s", r->store_error);
	if (tm_rec_end_run(r, &res) == 0)
		tm_warn("run %" PRId64 " is marked failed in the store (its end could be written)",
		        r->run_id);
}

/* After the first sample: what start-up allocated and freed (the store's
 * schema and statements, the options, the command's environment as JSON)
 * lies free in the heap below what stays allocated, where free() does not
 * give it back; malloc_trim returns its pages to the kernel, about 100 KiB of
 * a plain recorder's RSS (issue 23, bench/README.md).  Once: from then on the
 * recorder's allocations are the same each sample. */
static void trim_start_up(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}

static void take_sample(struct rec *r, int64_t deadline)
{
	struct tm_sample *s = &r->cur;
	int64_t now = tm_now_mono_usec();
	size_t npids = 0;
	const pid_t *pids;
	size_t ninputs;
	const struct tm_rec_input *inputs = tm_rec_inputs(&ninputs);

	if (!r->sampler)
		return;
	tm_sample_clear(s);
	s->seq = r->seq;
	s->t_mono_usec = now;
	s->t_wall_usec = tm_now_wall_usec();
	s->late_usec = now > deadline ? now - deadline : 0;
	/* a file that did not parse leaves its metrics absent; the rest is there */
	if (r->heap)
		tm_heap_reader_mark(r->heap);
	tm_sampler_read(r->sampler, now, s);
	pids = tm_sampler_pids(r->sampler, &npids);
	if (r->heap && tm_heap_reader_sample(r->heap, pids, npids, s))
		tm_warn("cannot read the heap shim's counters; continuing without");
	for (size_t i = 0; i < ninputs; i++)
		if (inputs[i].on_sample)
			inputs[i].on_sample(r, deadline, s);
	store_sample(r, s, pids, tm_sampler_comms(r->sampler), npids);
	end_failed_run(r);
	if (r->o->watch.on_sample)
		r->o->watch.on_sample(r->o->watch.ctx, s, r->has_progress, r->progress);
	r->prev = *s;
	r->have_prev = true;
	if (r->seq++ == 0)
		trim_start_up();
	if (r->prom) {
		r->net.prom_update(r->prom, s);
		tm_rec_scrape_export(r);
	}
}

/* ---- waiting ---- */

/* Waits for input until DEADLINE, handling whatever arrives: each input's
 * descriptor polled, woken at least every period an input asks for. */
static void wait_until(struct rec *r, int64_t deadline)
{
	size_t n;
	const struct tm_rec_input *in = tm_rec_inputs(&n);

	for (;;) {
		struct pollfd pfd[TM_REC_INPUTS_MAX];
		int64_t now = tm_now_mono_usec(), wait = deadline - now;

		if (now >= deadline || r->phase == PH_DONE)
			return;
		for (size_t i = 0; i < n; i++) {
			int64_t period = in[i].period_usec ? in[i].period_usec(r) : 0;
			pfd[i] =
			    (struct pollfd){.fd = in[i].fd ? in[i].fd(r) : -1, .events = POLLIN};
			if (period > 0 && wait > period)
				wait = period;
		}
		if (poll(pfd, n, (int)((wait + 999) / 1000)) < 0 && errno != EINTR)
			return;
		for (size_t i = 0; i < n; i++)
			if (pfd[i].revents && in[i].on_ready)
				in[i].on_ready(r);
		for (size_t i = 0; i < n; i++)
			if (in[i].on_wake)
				in[i].on_wake(r);
		tm_rec_advance_phase(r, tm_now_mono_usec());
	}
}

/* The command's last lines: what the relay still holds once the target is
 * gone (a second at most: a process we do not follow may keep the pipe), so
 * that the last sample comes after the last progress point. */
static void drain_relay(struct rec *r)
{
	int64_t until = tm_now_mono_usec() + 1000000;

	while (r->relay.fwd_fd[0] >= 0 || r->relay.fwd_fd[1] >= 0) {
		struct pollfd pfd[2] = {{.fd = r->relay.fwd_fd[0], .events = POLLIN},
		                        {.fd = r->relay.fwd_fd[1], .events = POLLIN}};
		int64_t left = until - tm_now_mono_usec();
		if (left <= 0 || poll(pfd, 2, (int)(left / 1000) + 1) <= 0)
			break;
		for (int i = 0; i < 2; i++)
			if (r->relay.fwd_fd[i] >= 0 && pfd[i].revents)
				tm_rec_drain_forwarded(r, i);
	}
}

/* Samples on the grid until the run is over. */
static void sample_loop(struct rec *r)
{
	int64_t deadline = r->start_mono;

	for (;;) {
		take_sample(r, deadline);
		tm_rec_advance_phase(r, tm_now_mono_usec());
		if (r->phase == PH_DONE)
			break;
		deadline += r->interval;
		int64_t now = tm_now_mono_usec();
		if (now > deadline) {
			/* we overslept whole intervals: say so, and get back on the grid */
			int64_t missed = (now - deadline) / r->interval + 1;
			char detail[64];
			snprintf(detail, sizeof(detail), "%" PRId64 " deadline(s) missed", missed);
			tm_rec_event(r, "late", 0, now - deadline, detail);
			deadline += missed * r->interval;
		}
		wait_until(r, deadline);
		if (r->phase == PH_DONE)
			break;
	}
	/* a last look: the last lines, an OOM kill's counter, what is held */
	tm_rec_reap(r);
	drain_relay(r);
	tm_rec_progsrc_poll(r);
	take_sample(r, tm_now_mono_usec());
}

/* ---- a run ---- */

/* Begins the run, its outputs and the command.  0, or -1 after tm_error
 * (the run, when it was begun, is ended as failed; no command is left
 * running). */
static int start(struct rec *r, char **env, const char *limits_json, struct tm_record_result *res)
{
	const struct tm_record_opts *o = r->o;

	r->start_mono = tm_now_mono_usec();
	r->start_wall = tm_now_wall_usec();
	if (tm_rec_begin_run(r, env, limits_json) || tm_store_commit(r->st))
		return -1;
	res->run_id = r->run_id;
	if (tm_rec_open_outputs(r) || (o->argv && tm_rec_launch(r, env))) {
		*res = (struct tm_record_result){
		    .run_id = r->run_id, .outcome = TM_OUTCOME_FAILED, .exit_code = -1};
		snprintf(res->reason, sizeof(res->reason), "%s",
		         o->argv ? "the command could not be started"
		                 : "the outputs could not start");
		tm_rec_end_run(r, res);
		return -1;
	}
	if (o->argv)
		tm_rec_event(r, "start", r->child.pid, 0, NULL);
	if (o->journal_unit || o->unit_invocation) {
		/* the runs of one unit, linked by its name */
		tm_rec_event(r, "unit", o->unit_main_pid, o->unit_seq, o->journal_unit);
		tm_rec_event(r, "unit_invocation", 0, 0, o->unit_invocation);
	}
	if (tm_rec_progsrc_open(r))
		snprintf(r->reason, sizeof(r->reason), "the progress command could not start");
	if (tm_rec_open_sampler(r)) {
		/* nothing to record, but a launched command is waited for */
		tm_sampler_close(r->sampler);
		r->sampler = NULL;
		snprintf(r->reason, sizeof(r->reason), "the sampler could not start");
	}
	return 0;
}

static void finish(struct rec *r, struct tm_record_result *res)
{
	int64_t now = tm_now_mono_usec();
	size_t n;
	const struct tm_rec_input *in = tm_rec_inputs(&n);

	for (size_t i = 0; i < n; i++) /* the run is over: the progress command with it */
		if (in[i].on_end)
			in[i].on_end(r);
	tm_relay_release(&r->relay, 200000);
	tm_heap_reader_free(r->heap); /* the final heap profiles, as events of the run */
	r->heap = NULL;
	if (r->launched && r->last_left_mono)
		tm_rec_event(r, "last_left", 0, 0, NULL);
	tm_rec_scrape_end(r);
	tm_rec_decide(r, res);
	res->wall_usec = (r->work_end_mono ? r->work_end_mono : now) - r->start_mono;
	res->work_end_mono_usec = r->work_end_mono ? r->work_end_mono : now;
	if (tm_rec_end_run(r, res)) {
		tm_rec_store(r, -1, "the run's end");
		res->store_failed = true;
	} else if (tm_record_units_after(r->st, r->run_id, r->o)) {
		tm_rec_store(r, -1, "the run's units");
		res->store_failed = true;
	}
	tm_rec_warn_bunched(r);
}

int tm_record_run(const struct tm_record_opts *o, struct tm_record_result *res)
{
	/* its line buffers of inputs most recordings never have (a GC log, a
	 * followed file, a journal, the command's output) are over 60 KiB */
	struct rec *r = tm_pages_alloc(sizeof(*r));
	const char *limits_json = NULL;
	char **env = NULL;
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (!r)
		return tm_error("out of memory");
	r->o = o;
	r->st = o->store;
	r->sigfd = -1;
	r->interval = o->interval_usec;
	r->vmstat_oom_start = tm_rec_read_vmstat_oom();
	sigemptyset(&r->oldmask);
	if (tm_rec_validate(o) || tm_cg_host_detect(&r->host) || tm_rec_open_inputs(r) ||
	    tm_rec_open_cgroup(r, &limits_json) || tm_rec_setup_signals(r) || tm_rec_heap_attach(r))
		goto out;
	if (o->argv && !(env = tm_rec_child_environment(r)))
		goto out;
	if (o->argv)
		prctl(PR_SET_CHILD_SUBREAPER, 1); /* a daemon's processes stay ours to follow */
	if (start(r, env, limits_json, res))
		goto out;
	tm_store_set_quiet(r->st, true); /* failures are said by tm_rec_store, once */
	sample_loop(r);
	finish(r, res);
	rc = 0;
out:
	tm_rec_heap_detach(r);
	if (r->st)
		tm_store_set_quiet(r->st, false);
	tm_rec_close_outputs(r);
	tm_rec_close_all(r);
	tm_env_free(env);
	tm_pages_free(r, sizeof(*r));
	return rc;
}
