/* `tidemark guard`: what a firing does, live: snapshots and actions, each
 * rate-limited and stored (guard.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "base/error.h"
#include "base/util.h"
#include "guard/guard.h"
#include "heap/heapregion.h"
#include "sample/jvm.h"
#include "snap/kinds.h"
#include "store/snapshots.h"
#include "store/store.h"
#include "sysd/unit.h"
#include "base/banned.h"

#define MAX_PIDS 256
/* struct tm_guard_acts keeps a time per rule and kind: room for 8 kinds */
_Static_assert(TM_SNAP_KIND_COUNT <= 8, "tm_guard_acts.last_snap has room for 8 kinds");

/* The processes of the run now: its cgroup's, else the main process
 * alone.  How many are in PIDS. */
static size_t run_pids(const struct tm_guard_fire *f, pid_t *pids, size_t max)
{
	char path[4200];
	size_t n = 0, len;
	if (f->cgroup_path &&
	    snprintf(path, sizeof(path), "%s/cgroup.procs", f->cgroup_path) < (int)sizeof(path)) {
		char *text = tm_read_file(path, &len);
		for (char *p = text, *end; p && *p && n < max; p = end) {
			long v = strtol(p, &end, 10);
			if (end == p)
				break;
			if (v > 0)
				pids[n++] = (pid_t)v;
		}
		free(text);
	}
	if (n == 0 && f->main_pid > 0)
		pids[n++] = f->main_pid;
	return n;
}

/* Whether PID is one KIND applies to. */
static bool applies(enum tm_snap_target t, pid_t pid, pid_t main_pid, const char *go_url)
{
	switch (t) {
	case TM_SNAP_SHIMMED: {
		const struct tmh_region *r = tm_heap_region_map(pid);
		tm_heap_region_unmap(r);
		return r != NULL;
	}
	case TM_SNAP_JVM: {
		char path[64], *maps;
		size_t len;
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
		if (!(maps = tm_read_file(path, &len)))
			return false;
		bool jvm = tm_jvm_maps_is_jvm(maps, len);
		free(maps);
		return jvm;
	}
	case TM_SNAP_GO_URL:
		return go_url && pid == main_pid;
	}
	return false;
}

static int store_row(struct tm_store *st, const struct tm_guard_fire *f, const char *kind,
                     pid_t pid, const char *path, const char *summary, int64_t bytes, bool ok)
{
	struct tm_snapshot_row row = {
	    .run_id = f->run_id,
	    .wall_usec = f->wall_usec,
	    .taken_usec = tm_now_wall_usec(),
	    .rule = f->rule->text,
	    .kind = kind,
	    .pid = pid,
	    .path = path,
	    .summary = summary,
	    .file_bytes = bytes,
	    .ok = ok,
	};
	return tm_store_snapshot_add(st, &row);
}

/* The snapshots' directory, mode 0700, its parent too.  0, or -1 with ERR. */
static int make_dir(const char *dir, struct tm_err *err)
{
	char parent[4096];
	snprintf(parent, sizeof(parent), "%s", dir);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = 0;
		if (mkdir(parent, 0700) < 0 && errno != EEXIST)
			return tm_err_set(err, 0, "cannot create '%s': %s", parent,
			                  strerror(errno));
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return tm_err_set(err, 0, "cannot create '%s': %s", dir, strerror(errno));
	return 0;
}

static int take_one(struct tm_store *st, const struct tm_guard_opts *o,
                    const struct tm_guard_fire *f, const struct tm_snap_kind_desc *k, pid_t pid,
                    FILE *out)
{
	struct tm_snap_req req = {.pid = pid,
	                          .dir = f->dir,
	                          .deadline_usec = tm_now_mono_usec() + o->snap_timeout_usec,
	                          .url = k->target == TM_SNAP_GO_URL ? o->go_url : NULL};
	struct tm_snap_out res = {0};
	struct tm_err why = {0};
	int rc = make_dir(f->dir, &why);
	if (rc == 0)
		rc = k->take(&req, &res, &why);
	if (rc == 0) {
		fprintf(out, "  snapshot %s of pid %d: %s (%" PRIu64 " bytes): %s\n", k->name,
		        (int)pid, res.path, res.file_bytes, res.summary);
		return store_row(st, f, k->name, pid, res.path, res.summary,
		                 (int64_t)res.file_bytes, true);
	}
	fprintf(out, "  snapshot %s of pid %d failed: %s\n", k->name, (int)pid, why.msg);
	return store_row(st, f, k->name, pid, NULL, why.msg, -1, false);
}

static int snapshots(struct tm_store *st, const struct tm_guard_opts *o, struct tm_guard_acts *a,
                     const struct tm_guard_fire *f, const pid_t *pids, size_t n, FILE *out)
{
	int64_t now = tm_now_mono_usec();
	for (int k = 0; k < TM_SNAP_KIND_COUNT; k++) {
		if (!(o->snap_kinds & (1u << k)))
			continue;
		const struct tm_snap_kind_desc *d = tm_snap_kind_desc((enum tm_snap_kind)k);
		int64_t *last = &a->last_snap[f->rule_index][k];
		if (*last && now - *last < o->snap_every_usec) {
			fprintf(out, "  snapshot %s: rate-limited (one per rule every %.0f s)\n",
			        d->name, (double)o->snap_every_usec / 1e6);
			if (store_row(st, f, d->name, 0, NULL, "rate-limited", -1, false))
				return -1;
			continue;
		}
		*last = now;
		size_t taken = 0;
		for (size_t i = 0; i < n; i++)
			if (applies(d->target, pids[i], f->main_pid, o->go_url) && ++taken &&
			    take_one(st, o, f, d, pids[i], out))
				return -1;
		if (!taken) {
			fprintf(out, "  snapshot %s: no process of the run it applies to\n",
			        d->name);
			if (store_row(st, f, d->name, 0, NULL, "no process it applies to", -1,
			              false))
				return -1;
		}
	}
	return 0;
}

/* The main process: --pid, else the unit's main process, else the run's. */
static pid_t main_pid(const struct tm_guard_opts *o, const struct tm_guard_fire *f)
{
	if (o->pid)
		return o->pid;
	struct tm_sdunit *u;
	struct tm_sdunit_state us;
	if (o->unit && tm_sdunit_open(o->unit, &u) == 0) {
		pid_t p = tm_sdunit_state(u, &us) == 0 ? (pid_t)us.main_pid : 0;
		tm_sdunit_close(u);
		if (p > 0)
			return p;
	}
	return f->main_pid;
}

/* Whether the action KIND may run now (one per o->act_every_usec); a
 * refused one is stored and said.  1 may, 0 not, -1 store error. */
static int may_act(struct tm_store *st, const struct tm_guard_opts *o, int64_t *last,
                   const struct tm_guard_fire *f, const char *kind, FILE *out)
{
	int64_t now = tm_now_mono_usec();
	if (*last && now - *last < o->act_every_usec) {
		char why[96];
		snprintf(why, sizeof(why), "rate-limited (one every %.0f s)",
		         (double)o->act_every_usec / 1e6);
		fprintf(out, "  %s: %s\n", kind, why);
		return store_row(st, f, kind, 0, NULL, why, -1, false) ? -1 : 0;
	}
	*last = now;
	return 1;
}

static int do_signal(struct tm_store *st, const struct tm_guard_opts *o,
                     const struct tm_guard_fire *f, const pid_t *pids, size_t n, FILE *out)
{
	pid_t pid = main_pid(o, f);
	char what[128];
	bool in_run = false;
	for (size_t i = 0; i < n; i++)
		in_run |= pids[i] == pid;
	if (pid <= 0 || !in_run)
		snprintf(what, sizeof(what), "no main process of the run to signal%s",
		         pid > 0 ? " (it left the run's cgroup)" : "");
	else if (kill(pid, o->signal) < 0)
		snprintf(what, sizeof(what), "SIG%s to pid %d: %s", sigabbrev_np(o->signal),
		         (int)pid, strerror(errno));
	else
		snprintf(what, sizeof(what), "SIG%s sent to pid %d", sigabbrev_np(o->signal),
		         (int)pid);
	bool ok = pid > 0 && in_run && !strstr(what, ": ");
	fprintf(out, "  signal: %s\n", what);
	return store_row(st, f, "signal", pid > 0 ? pid : 0, NULL, what, -1, ok);
}

static int do_exec(struct tm_store *st, const struct tm_guard_opts *o, struct tm_guard_acts *a,
                   const struct tm_guard_fire *f, FILE *out)
{
	char what[160], run[32], pidtext[32];
	tm_guard_reap(a);
	if (a->exec_child > 0) {
		snprintf(what, sizeof(what), "the last command (pid %d) still runs: not started",
		         (int)a->exec_child);
		fprintf(out, "  exec: %s\n", what);
		return store_row(st, f, "exec", 0, NULL, what, -1, false);
	}
	snprintf(run, sizeof(run), "%" PRId64, f->run_id);
	snprintf(pidtext, sizeof(pidtext), "%d", (int)main_pid(o, f));
	fflush(out);
	pid_t child = fork();
	if (child == 0) {
		setenv("TIDEMARK_GUARD_RULE", f->rule->text, 1);
		setenv("TIDEMARK_GUARD_RUN", run, 1);
		setenv("TIDEMARK_GUARD_PID", pidtext, 1);
		execl("/bin/sh", "sh", "-c", o->exec_cmd, (char *)NULL);
		_exit(127);
	}
	if (child < 0)
		snprintf(what, sizeof(what), "cannot fork: %s", strerror(errno));
	else
		snprintf(what, sizeof(what), "started sh -c (pid %d)", (int)child);
	a->exec_child = child > 0 ? child : 0;
	fprintf(out, "  exec: %s\n", what);
	return store_row(st, f, "exec", child > 0 ? child : 0, NULL, what, -1, child > 0);
}

static int do_restart(struct tm_store *st, const struct tm_guard_opts *o,
                      const struct tm_guard_fire *f, FILE *out)
{
	struct tm_sdunit *u;
	char what[160];
	bool ok = tm_sdunit_open(o->unit, &u) == 0;
	if (ok) {
		ok = tm_sdunit_restart(u) == 0;
		tm_sdunit_close(u);
	}
	snprintf(what, sizeof(what),
	         ok ? "restart of %s queued" : "restart of %s failed (see stderr)", o->unit);
	fprintf(out, "  restart: %s\n", what);
	return store_row(st, f, "restart", 0, NULL, what, -1, ok);
}

void tm_guard_reap(struct tm_guard_acts *a)
{
	if (a->exec_child > 0 && waitpid(a->exec_child, NULL, WNOHANG) == a->exec_child)
		a->exec_child = 0;
}

int tm_guard_act(struct tm_store *st, const struct tm_guard_opts *o, struct tm_guard_acts *a,
                 const struct tm_guard_fire *f, FILE *out)
{
	pid_t pids[MAX_PIDS];
	size_t n = run_pids(f, pids, MAX_PIDS);
	int rc;
	/* the firing as an event of the run: a marker in the report and the panel */
	struct tm_event ev = {.t_wall_usec = f->wall_usec,
	                      .t_mono_usec = f->mono_usec,
	                      .kind = "guard_fired",
	                      .detail = f->rule->text};
	if (tm_store_add_event(st, f->run_id, &ev) || tm_store_commit(st))
		return -1;
	if (snapshots(st, o, a, f, pids, n, out))
		return -1;
	if (o->signal && (rc = may_act(st, o, &a->last_signal, f, "signal", out)) != 0 &&
	    (rc < 0 || do_signal(st, o, f, pids, n, out)))
		return -1;
	if (o->exec_cmd && (rc = may_act(st, o, &a->last_exec, f, "exec", out)) != 0 &&
	    (rc < 0 || do_exec(st, o, a, f, out)))
		return -1;
	if (o->restart && (rc = may_act(st, o, &a->last_restart, f, "restart", out)) != 0 &&
	    (rc < 0 || do_restart(st, o, f, out)))
		return -1;
	fflush(out);
	return 0;
}
