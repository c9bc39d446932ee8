/*
 * --unit NAME: a systemd unit followed across its restarts.  systemd is
 * asked (sysd/unit.h) for the unit's state, cgroup and InvocationID; each
 * invocation seen running is one run of the recorder on its cgroup, ended
 * when the unit stops or a new invocation replaces it.  Between runs we
 * wait, looking every 200 ms.  Nothing here asks systemd to do anything.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "record/recorder.h"
#include "record/netlib.h"
#include "sysd/listen.h"
#include "sysd/unit.h"
#include "base/banned.h"

#define LOOK_USEC 200000 /* how often systemd is asked */

struct follow_unit {
	struct tm_sdunit *u;
	char invocation[33]; /* the run's */
	int64_t next_look;
	bool stopped;    /* the unit stopped (not restarted) */
	bool bus_failed; /* systemd stopped answering */
};

/* The run's end, asked by the recorder as the run goes on. */
static bool unit_ended(void *ctx, struct tm_err *err)
{
	struct follow_unit *f = ctx;
	struct tm_sdunit_state st;
	int64_t now = tm_now_mono_usec();

	if (now < f->next_look)
		return false;
	f->next_look = now + LOOK_USEC;
	if (tm_sdunit_state(f->u, &st)) {
		f->bus_failed = true;
		tm_err_set(err, 0, "systemd stopped answering about %s", tm_sdunit_name(f->u));
		return true;
	}
	enum tm_sdunit_change c = tm_sdunit_change(&st, f->invocation);
	if (c == TM_SDUNIT_SAME || c == TM_SDUNIT_UNSURE)
		return false; /* UNSURE: the next look, LOOK_USEC on, says which */
	f->stopped = c == TM_SDUNIT_STOPPED;
	if (f->stopped)
		tm_err_set(err, 0, "%s stopped (%s)", tm_sdunit_name(f->u), st.active_state);
	else
		tm_err_set(err, 0, "%s started again (invocation %s)", tm_sdunit_name(f->u),
		           st.invocation);
	return true;
}

/* The unit's cgroup (ControlGroup, relative to the hierarchy's root) as a
 * directory here: under the cgroup2 mount, or on v1 and hybrid hosts under
 * the memory controller's mount. */
static int cgroup_dir(const char *rel, char *out, size_t size)
{
	struct tm_cg_host host;
	const struct tm_cg_mount *m;

	if (tm_cg_host_detect(&host))
		return -1;
	m = host.mode == TM_CG_MODE_V2 ? &host.mounts.unified : &host.mounts.memory;
	if (!m->found)
		return tm_error("no cgroup hierarchy with the memory controller is mounted");
	if ((size_t)snprintf(out, size, "%s%s", m->dir, rel) >= size)
		return tm_error("the cgroup path of the unit is too long");
	return 0;
}

/* Waits up to USEC for SIGINT, SIGTERM or SIGHUP (blocked by the caller);
 * true when one came. */
static bool interrupted_within(const sigset_t *set, int64_t usec)
{
	struct timespec ts = {.tv_sec = usec / 1000000, .tv_nsec = (usec % 1000000) * 1000};
	int sig = sigtimedwait(set, NULL, &ts);

	return sig > 0;
}

/* One run of the unit's current invocation ST.  0, or -1 (the run could
 * not begin). */
static int one_run(const struct tm_record_opts *o, struct follow_unit *f,
                   const struct tm_sdunit_state *st, int64_t seq, bool from_start,
                   int64_t left_usec, struct tm_record_result *res)
{
	struct tm_record_opts run = *o;
	char dir[4096];

	if (cgroup_dir(st->cgroup, dir, sizeof(dir)))
		return -1;
	snprintf(f->invocation, sizeof(f->invocation), "%s", st->invocation);
	f->stopped = false;
	f->next_look = tm_now_mono_usec() + LOOK_USEC;
	run.unit[0] = '\0';
	run.until_stop = false; /* (follow() ends at the stop; the run is of a cgroup) */
	run.cgroup_path = dir;
	run.stay_when_empty = true; /* the unit, not its processes, ends the run */
	run.until = (struct tm_record_until){.ctx = f, .ended = unit_ended};
	run.journal_unit = tm_sdunit_name(f->u);
	run.unit_invocation = f->invocation;
	run.journal_from_start = from_start;
	run.unit_seq = seq;
	run.unit_main_pid = st->main_pid;
	run.timeout_usec = left_usec;
	return tm_record_run(&run, res);
}

/* The loop: a run for each invocation, waiting between them. */
static int follow(const struct tm_record_opts *o, struct follow_unit *f, const sigset_t *set,
                  struct tm_record_result *res)
{
	int64_t start = tm_now_mono_usec(), seq = 0;
	bool waited = false;
	char last[33] = "";

	for (;;) {
		struct tm_sdunit_state st;
		int64_t left = 0;
		if (o->timeout_usec && (left = o->timeout_usec - (tm_now_mono_usec() - start)) <= 0)
			return 0;
		if (tm_sdunit_state(f->u, &st))
			return seq ? 0 : -1;
		if (st.running && st.invocation[0] && st.cgroup[0] && strcmp(st.invocation, last)) {
			/* a new start while we watched: its journal from its beginning */
			bool from_start = waited || seq > 0;
			snprintf(last, sizeof(last), "%s", st.invocation);
			if (one_run(o, f, &st, ++seq, from_start, left, res)) {
				if (seq == 1)
					return -1;
				/* (a start that was over before we could look at it) */
				tm_warn("%s: no run of invocation %s", tm_sdunit_name(f->u), last);
				continue;
			}
			if (f->bus_failed || res->store_failed ||
			    res->outcome == TM_OUTCOME_DETACHED ||
			    res->outcome == TM_OUTCOME_TIMEOUT || (o->until_stop && f->stopped))
				return 0; /* interrupted, --timeout, the store, systemd gone */
			continue; /* stopped (then waits), restarted, OOM-killed and restarted... */
		}
		if (o->until_stop && seq)
			return 0;
		if (!waited)
			tm_note("tidemark: %s is %s; waiting for it to start", tm_sdunit_name(f->u),
			        st.active_state);
		waited = true;
		if (interrupted_within(set, LOOK_USEC))
			return 0;
	}
}

int tm_record_take_listen_socket(struct tm_record_opts *o)
{
	return tm_sd_listen_socket(&o->metrics_socket);
}

/* --metrics-listen (or systemd's socket) for the whole loop: one endpoint
 * that answers between the unit's runs too (the last run, "ended"), so
 * that Prometheus's `up` stays 1 while the unit restarts.  0 (*OUT NULL
 * when not asked for), or -1 after tm_error. */
static int start_metrics(const struct tm_record_opts *o, struct tm_net *net,
                         struct tm_prom_server **out)
{
	char host[256] = "unknown";

	*out = NULL;
	if (!o->metrics_listen && !o->metrics_socket)
		return 0;
	if (!o->machine && gethostname(host, sizeof(host) - 1))
		snprintf(host, sizeof(host), "unknown");
	if (tm_net_load(net))
		return -1;
	return net->prom_start(o->metrics_listen, o->metrics_socket ? o->metrics_socket : -1,
	                       o->machine ? o->machine : host, NULL, NULL, out);
}

int tm_record_unit(const struct tm_record_opts *o, struct tm_record_result *res)
{
	struct tm_record_opts run = *o;
	struct follow_unit f = {0};
	struct tm_net net = {0};
	sigset_t set, old;
	int rc;

	memset(res, 0, sizeof(*res));
	if (tm_sdunit_open(o->unit, &f.u))
		return -1;
	if (start_metrics(o, &net, &run.prom_kept)) {
		tm_sdunit_close(f.u);
		tm_net_unload(&net);
		return -1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	rc = follow(&run, &f, &set, res);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (run.prom_kept)
		net.prom_stop(run.prom_kept);
	tm_net_unload(&net);
	tm_sdunit_close(f.u);
	return rc;
}
