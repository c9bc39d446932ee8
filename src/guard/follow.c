/* `tidemark guard`: a run's samples, followed and fed to the rules (guard.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/util.h"
#include "guard/guard.h"
#include "report/run/runjson.h"
#include "store/remote.h"
#include "store/store.h"
#include "base/banned.h"

void tm_guard_opts_init(struct tm_guard_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->snap_every_usec = 60 * 1000000LL;
	o->act_every_usec = 600 * 1000000LL;
	o->snap_timeout_usec = 30 * 1000000LL;
}

struct pick {
	int64_t now, id;
	bool any;
};

static int pick_one(void *ctx, const struct tm_run_info *ri)
{
	struct pick *p = ctx;
	if (p->any || tm_run_state(ri, p->now) == TM_RUN_LIVE)
		p->id = ri->id;
	return 0;
}

/* The run to follow: O's, else the newest live one (the newest with
 * DRY_RUN).  0, or -1 after tm_error. */
static int pick_run(struct tm_store *st, const struct tm_guard_opts *o, int64_t *id)
{
	struct pick p = {.now = tm_now_wall_usec(), .any = o->dry_run};
	if (o->run_id) {
		struct tm_run_info ri;
		int rc = tm_store_run_get(st, o->run_id, &ri);
		if (rc)
			return rc > 0 ? tm_error("no run %" PRId64 " in the store", o->run_id) : -1;
		tm_run_info_release(&ri);
		*id = o->run_id;
		return 0;
	}
	if (tm_store_each_run(st, 0, pick_one, &p))
		return -1;
	if (!p.id)
		return tm_error(o->dry_run
		                    ? "no run in the store"
		                    : "no live run in the store (a running `tidemark record` "
		                      "writing to it; or --run ID)");
	*id = p.id;
	return 0;
}

static int first_start(void *ctx, const struct tm_event *ev)
{
	if (strcmp(ev->kind, "start") || ev->pid <= 0)
		return 0;
	*(pid_t *)ctx = (pid_t)ev->pid;
	return 1;
}

struct follow {
	struct tm_store *st;
	const struct tm_guard_opts *o;
	FILE *out;
	struct tm_guard_state state[TM_GUARD_MAX_RULES];
	struct tm_guard_acts acts;
	struct tm_guard_fire fire;
	int64_t next_seq, fresh_from_seq, fires;
	/* firings to act on once the walk is over (a write inside a read
	 * transaction would fail when the recorder committed meanwhile) */
	struct pending {
		size_t rule;
		int64_t wall_usec, mono_usec;
	} pending[TM_GUARD_MAX_RULES * 4];
	size_t npending;
};

static void fmt_wall(char *buf, size_t size, int64_t wall_usec)
{
	time_t t = (time_t)(wall_usec / 1000000);
	struct tm tm;
	gmtime_r(&t, &tm);
	size_t n = strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf + n, size - n, ".%03d UTC", (int)(wall_usec % 1000000 / 1000));
}

static int on_sample(void *ctx, const struct tm_sample *s)
{
	struct follow *f = ctx;
	char when[64], what[160];
	f->next_seq = s->seq + 1;
	for (size_t i = 0; i < f->o->nrules; i++) {
		const struct tm_guard_rule *r = &f->o->rules[i];
		if (!tm_guard_rule_step(r, &f->state[i], s))
			continue;
		f->fires++;
		fmt_wall(when, sizeof(when), s->t_wall_usec);
		bool act = !f->o->dry_run && s->seq >= f->fresh_from_seq;
		fprintf(f->out, "%s %s at %s (run %" PRId64 ", sample %" PRId64 "): %s%s\n",
		        f->o->dry_run ? "would fire" : "fired", r->text, when, f->fire.run_id,
		        s->seq, tm_guard_rule_describe(r, what, sizeof(what)),
		        f->o->dry_run || act ? "" : " [before the guard started: not acted on]");
		fflush(f->out);
		if (act)
			f->pending[f->npending++] =
			    (struct pending){i, s->t_wall_usec, s->t_mono_usec};
	}
	/* room for one more sample's firings, else stop here and act */
	return f->npending + TM_GUARD_MAX_RULES > sizeof(f->pending) / sizeof(f->pending[0]);
}

/* Acts on the firings the last walk found.  0, or -1. */
static int act_pending(struct follow *f)
{
	for (size_t i = 0; i < f->npending; i++) {
		f->fire.rule = &f->o->rules[f->pending[i].rule];
		f->fire.rule_index = f->pending[i].rule;
		f->fire.wall_usec = f->pending[i].wall_usec;
		f->fire.mono_usec = f->pending[i].mono_usec;
		if (tm_guard_act(f->st, f->o, &f->acts, &f->fire, f->out) < 0)
			return -1;
	}
	f->npending = 0;
	return 0;
}

/* Sleeps USEC unless *STOP is set (a signal ends the sleep early). */
static void nap(int64_t usec, volatile sig_atomic_t *stop)
{
	struct timespec ts = {.tv_sec = usec / 1000000, .tv_nsec = usec % 1000000 * 1000};
	if (!stop || !*stop)
		nanosleep(&ts, NULL);
}

/* Reads RUN's samples from f->next_seq on, until the run has ended and
 * every sample was read (or once with dry-run).  0, or -1. */
static int follow_run(struct follow *f, int64_t poll_usec)
{
	for (;;) {
		struct tm_run_info ri;
		if (tm_store_run_get(f->st, f->fire.run_id, &ri))
			return -1;
		bool ended = ri.ended_wall_usec != 0;
		tm_run_info_release(&ri);
		int rc = tm_store_each_sample(f->st, f->fire.run_id, f->next_seq, -1, on_sample, f);
		if (rc < 0 || act_pending(f) < 0)
			return -1;
		if (rc > 0)
			continue; /* stopped early to act: read on at once */
		if (f->o->dry_run || ended || (f->o->stop && *f->o->stop))
			return 0;
		tm_guard_reap(&f->acts);
		nap(poll_usec, f->o->stop);
	}
}

static int setup(struct follow *f, struct tm_store *st, char *dir, size_t dir_size,
                 int64_t *poll_usec)
{
	const struct tm_guard_opts *o = f->o;
	struct tm_run_info ri;
	int64_t last;
	if (pick_run(st, o, &f->fire.run_id) || tm_store_run_get(st, f->fire.run_id, &ri))
		return -1;
	*poll_usec =
	    ri.interval_usec > 0 && ri.interval_usec < 1000000 ? ri.interval_usec : 1000000;
	if (*poll_usec < 50000)
		*poll_usec = 50000;
	f->fire.cgroup_path = ri.cgroup_path ? strdup(ri.cgroup_path) : NULL;
	tm_run_info_release(&ri);
	if (tm_store_each_event(st, f->fire.run_id, first_start, &f->fire.main_pid) < 0 ||
	    tm_store_last_seq(st, f->fire.run_id, &last))
		return -1;
	f->fresh_from_seq = last + 1;
	if (o->snap_dir)
		snprintf(dir, dir_size, "%s", o->snap_dir);
	else
		snprintf(dir, dir_size, "%s.snapshots/run-%" PRId64, tm_store_file_path(st),
		         f->fire.run_id);
	f->fire.dir = dir;
	return 0;
}

int64_t tm_guard_run(struct tm_store *st, const struct tm_guard_opts *o, FILE *out)
{
	struct follow *f = calloc(1, sizeof(*f));
	char dir[4096];
	int64_t poll_usec;
	if (!f)
		return tm_error("out of memory");
	f->st = st;
	f->o = o;
	f->out = out;
	int rc = setup(f, st, dir, sizeof(dir), &poll_usec);
	if (rc == 0 && !o->dry_run)
		fprintf(out, "guarding run %" PRId64 " from sample %" PRId64 " with %zu rule%s\n",
		        f->fire.run_id, f->fresh_from_seq, o->nrules, o->nrules == 1 ? "" : "s");
	fflush(out);
	if (rc == 0)
		rc = follow_run(f, poll_usec);
	int64_t fires = f->fires;
	free((char *)f->fire.cgroup_path);
	free(f);
	return rc < 0 ? -1 : fires;
}
