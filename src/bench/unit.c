/*
 * bench --unit: the drop-in per arm, the guard over the unit's other
 * drop-ins, and the cleaner that removes the drop-in when the bench is
 * killed (systemctl and the drop-in's file: sysd/systemctl.h).  See
 * bench/unit.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "bench/unit.h"
#include "record/launch.h"
#include "record/recorder.h"
#include "store/store.h"
#include "sysd/systemctl.h"
#include "sysd/unit.h"
#include "base/banned.h"

int tm_bench_unit_name(const char *name, char *out, size_t size)
{
	char norm[TM_SDUNIT_NAME_MAX];
	struct tm_err why = {0};
	const char *dot;

	/* as systemd checks it (sysd/unit.h), ".service" added when bare */
	if (tm_sdunit_name_normalize(name, norm, &why))
		return tm_error("--unit: %s", why.msg);
	dot = strrchr(norm, '.');
	if (!dot || strcmp(dot, ".service"))
		return tm_error("--unit %s: only a .service has a [Service] for the arms' settings",
		                norm);
	if (strlen(norm) >= size)
		return tm_error("--unit %s: the name is too long", norm);
	snprintf(out, size, "%s", norm);
	return 0;
}

const char *const *tm_bench_unit_dirs(void)
{
	return tm_sysd_unit_dirs();
}

/* ---- the guard ---- */

struct found {
	char text[1024];
	size_t n;
};

/* The next word of a systemd assignment list at *P ("A=1" 'B=2' C=3),
 * quotes removed, into W (SIZE bytes); false at the end. */
static bool next_word(const char **p, char *w, size_t size)
{
	size_t n = 0;
	char q = 0;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!**p)
		return false;
	for (; **p && (q || (**p != ' ' && **p != '\t')); (*p)++) {
		if (!q && (**p == '"' || **p == '\''))
			q = **p;
		else if (q && **p == q)
			q = 0;
		else if (n + 1 < size)
			w[n++] = **p;
	}
	w[n] = '\0';
	return true;
}

/* Notes assignment W ("NAME=VALUE") when NAME is an allocation variable. */
static void check_assignment(const char *w, const char *file, int line, struct found *f)
{
	char name[128];
	const char *eq = strchr(w, '=');
	size_t len = eq ? (size_t)(eq - w) : 0;

	if (!eq || len >= sizeof(name))
		return;
	memcpy(name, w, len);
	name[len] = '\0';
	if (tm_env_alloc_var(name) && f->n < sizeof(f->text))
		f->n += (size_t)snprintf(f->text + f->n, sizeof(f->text) - f->n, "\n  %s:%d: %s",
		                         file, line, w);
}

static void scan_file(const char *path, bool env_file, struct found *f);

/* One line of a unit file or drop-in. */
static void scan_line(const char *l, const char *path, int line, struct found *f)
{
	char w[512];

	while (*l == ' ' || *l == '\t')
		l++;
	if (!strncmp(l, "Environment=", 12)) {
		for (l += 12; next_word(&l, w, sizeof(w));)
			check_assignment(w, path, line, f);
	} else if (!strncmp(l, "EnvironmentFile=", 16)) {
		l += 16;
		l += *l == '-';
		if (next_word(&l, w, sizeof(w)))
			scan_file(w, true, f);
	}
}

/* A unit file or drop-in (ENV_FILE: an EnvironmentFile's NAME=VALUE lines). */
static void scan_file(const char *path, bool env_file, struct found *f)
{
	FILE *in = fopen(path, "re");
	char buf[4096];
	int line = 0;

	if (!in)
		return;
	while (fgets(buf, sizeof(buf), in)) {
		buf[strcspn(buf, "\r\n")] = '\0';
		line++;
		if (!env_file) {
			scan_line(buf, path, line, f);
			continue;
		}
		const char *l = buf;
		if (!strncmp(l, "export ", 7))
			l += 7;
		char w[512];
		if (*l != '#' && next_word(&l, w, sizeof(w)))
			check_assignment(w, path, line, f);
	}
	fclose(in);
}

/* Every drop-in (*.conf) in DIR but ours. */
static void scan_dir(const char *dir, struct found *f)
{
	char path[1536];
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *e = names[i]->d_name;
		size_t len = strlen(e);
		if (len > 5 && !strcmp(e + len - 5, ".conf") && strcmp(e, TM_BENCH_UNIT_DROPIN)) {
			snprintf(path, sizeof(path), "%s/%s", dir, e);
			scan_file(path, false, f);
		}
		free(names[i]);
	}
	free(names);
}

static int guard_verdict(const struct found *f, const char *unit)
{
	if (!f->n)
		return 0;
	return tm_error("refusing to start: the unit %s is set up to run with allocation "
	                "variables of its own:%s\nevery arm would run with them (a control arm "
	                "with a leftover LD_PRELOAD measures the wrong allocator); remove them "
	                "from the unit for the bench, or declare them in an arm",
	                unit, f->text);
}

int tm_bench_unit_guard(const char *const *dirs, const char *unit)
{
	struct found f = {.n = 0};
	char dir[1024];

	for (int i = 0; dirs[i]; i++) {
		snprintf(dir, sizeof(dir), "%s/%s.d", dirs[i], unit);
		scan_dir(dir, &f);
	}
	return guard_verdict(&f, unit);
}

/* ---- the drop-in ---- */

char *tm_bench_unit_dropin(const struct tm_bench_arm *arm, const struct tm_limits *limits,
                           const char *unit, int64_t bench_id, int64_t seq)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	bool ok = f != NULL;

	if (!f)
		return tm_error("out of memory"), NULL;
	fprintf(f,
	        "# tidemark bench %lld, run %lld, arm %s of %s: this file is removed when the "
	        "bench ends\n[Service]\n",
	        (long long)bench_id, (long long)seq, arm->name, unit);
	for (int i = 0; i < arm->n_env; i++)
		ok &= tm_sysd_put_env(f, arm->env[i].name, arm->env[i].value);
	if (arm->alloc == TM_ALLOC_ARENA1 && !tm_bench_arm_getenv(arm, "MALLOC_ARENA_MAX"))
		ok &= tm_sysd_put_env(f, "MALLOC_ARENA_MAX", "1");
	if (arm->preload)
		ok &= tm_sysd_put_env(f, "LD_PRELOAD", arm->preload);
	if (limits->memory_max_bytes != TM_LIMIT_UNSET)
		fprintf(f, "MemoryMax=%lld\n", (long long)limits->memory_max_bytes);
	if (limits->memory_high_bytes != TM_LIMIT_UNSET)
		fprintf(f, "MemoryHigh=%lld\n", (long long)limits->memory_high_bytes);
	if (limits->swap_max_bytes != TM_LIMIT_UNSET)
		fprintf(f, "MemorySwapMax=%lld\n", (long long)limits->swap_max_bytes);
	if (fclose(f) || !ok) {
		free(text);
		if (ok)
			tm_error("out of memory");
		else
			tm_error("arm '%s': a value with a newline cannot go in a drop-in",
			         arm->name);
		return NULL;
	}
	return text;
}

/* ---- the hold on the unit ---- */

/* Removes the drop-in (and the folder we made), reloads systemd, stops the
 * unit and starts it again when it ran before.  For the bench's own end
 * and the cleaner's; returns how many steps failed. */
static int undo(const struct tm_bench_unit *u, bool stop)
{
	int failed = 0;
	const char *reset[] = {"reset-failed", u->name, NULL};

	if (unlink(u->path) && errno != ENOENT)
		failed += tm_error("cannot remove '%s': %s", u->path, strerror(errno)) != 0;
	if (u->made_dir)
		rmdir(u->dir); /* only when empty: another drop-in stays */
	failed += tm_systemctl_verb("daemon-reload", NULL) != 0;
	if (stop) {
		failed += tm_systemctl_verb("stop", u->name) != 0;
		tm_systemctl_quiet(reset); /* an arm's OOM kill leaves it "failed" */
	}
	if (u->was_active)
		failed += tm_systemctl_verb("start", u->name) != 0;
	return failed;
}

/* The cleaner: in its own session, deaf to the signals a terminal or a
 * process group gets, it waits on the pipe; a 'd' means the bench cleaned
 * up itself, an end without one that the bench died. */
static void cleaner(int rfd, const struct tm_bench_unit *u)
{
	char c = 0;
	ssize_t n;

	setsid();
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
	}
	do
		n = read(rfd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n == 1 && c == 'd')
		_exit(0);
	int failed = undo(u, true);
	tm_note("tidemark bench: the bench ended without cleaning up (killed?): removed %s, "
	        "reloaded systemd and stopped %s%s%s",
	        u->path, u->name, u->was_active ? ", then started it again as it was" : "",
	        failed ? " (some steps failed, see above)" : "");
	_exit(failed ? 1 : 0);
}

static int start_cleaner(struct tm_bench_unit *u)
{
	int fd[2];

	if (pipe2(fd, O_CLOEXEC))
		return tm_error("cannot make a pipe: %s", strerror(errno));
	fflush(NULL);
	u->cleaner_pid = fork();
	if (u->cleaner_pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return tm_error("cannot fork the cleaner: %s", strerror(errno));
	}
	if (u->cleaner_pid == 0) {
		close(fd[1]);
		cleaner(fd[0], u);
	}
	close(fd[0]);
	u->cleaner_fd = fd[1];
	return 0;
}

static int open_unit(struct tm_bench_unit *u, const char *name, const char *root);

int tm_bench_unit_open(struct tm_bench_unit *u, const char *name, const char *root)
{
	int rc = open_unit(u, name, root);

	if (rc)
		u->name[0] = '\0'; /* nothing to undo */
	return rc;
}

static int open_unit(struct tm_bench_unit *u, const char *name, const char *root)
{
	char state[64], frag[1024];
	struct found f = {.n = 0};

	memset(u, 0, sizeof(*u));
	u->cleaner_fd = -1;
	snprintf(u->name, sizeof(u->name), "%s", name);
	snprintf(u->dir, sizeof(u->dir), "%s/%s.d", root, name);
	snprintf(u->path, sizeof(u->path), "%s/%s", u->dir, TM_BENCH_UNIT_DROPIN);
	if (tm_systemctl_show(name, "LoadState", state, sizeof(state)))
		return -1;
	if (strcmp(state, "loaded"))
		return tm_error("--unit %s: systemd says its LoadState is '%s'", name, state);
	/* the unit file itself (the drop-ins were checked when the bench was planned) */
	if (tm_systemctl_show(name, "FragmentPath", frag, sizeof(frag)))
		return -1;
	if (frag[0])
		scan_file(frag, false, &f);
	if (guard_verdict(&f, name))
		return -1;
	const char *args[] = {"is-active", "--quiet", name, NULL};
	u->was_active = tm_systemctl(NULL, 0, args) == 0;
	if (access(u->path, F_OK) == 0) {
		tm_note("bench: removing %s, left by a bench that did not end", u->path);
		if (unlink(u->path))
			return tm_error("cannot remove '%s': %s", u->path, strerror(errno));
	}
	if (mkdir(root, 0755) && errno != EEXIST)
		return tm_error("cannot make '%s': %s", root, strerror(errno));
	if (mkdir(u->dir, 0755) == 0)
		u->made_dir = true;
	else if (errno != EEXIST)
		return tm_error("cannot make '%s': %s", u->dir, strerror(errno));
	return start_cleaner(u);
}

int tm_bench_unit_arm(struct tm_bench_unit *u, const char *text)
{
	if (tm_sysd_write_atomic(u->path, text))
		return -1;
	u->written = true;
	return tm_systemctl_verb("daemon-reload", NULL) || tm_systemctl_verb("stop", u->name) ? -1
	                                                                                      : 0;
}

/* The unit's cgroup directory here, asked of systemd over D-Bus
 * (sysd/unit.h, as record --unit does): under the cgroup2 mount, or the
 * memory controller's on v1 and hybrid hosts (CG_ROOT, when given, instead).
 * 0; 1 when the unit runs no more; -1 after tm_error. */
static int unit_cgroup(struct tm_bench_unit *u, const char *cg_root, char *out, size_t size)
{
	const char *name = u->name;
	struct tm_sdunit *su;
	struct tm_sdunit_state st;
	struct tm_cg_host host;
	int rc;

	if (tm_sdunit_open(name, &su))
		return -1;
	rc = tm_sdunit_state(su, &st);
	tm_sdunit_close(su);
	if (rc)
		return -1;
	if (!st.running || !st.cgroup[0])
		return 1;
	snprintf(u->invocation, sizeof(u->invocation), "%s", st.invocation);
	u->main_pid = st.main_pid;
	if (!cg_root) {
		if (tm_cg_host_detect(&host))
			return -1;
		const struct tm_cg_mount *m =
		    host.mode == TM_CG_MODE_V2 ? &host.mounts.unified : &host.mounts.memory;
		if (!m->found)
			return tm_error(
			    "no cgroup hierarchy with the memory controller is mounted");
		cg_root = m->dir;
	}
	snprintf(out, size, "%s%s", cg_root, st.cgroup);
	return 0;
}

int tm_bench_unit_start(struct tm_bench_unit *u, const char *cg_root, char *out, size_t size)
{
	char procs[4200], buf[64];
	const char *reset[] = {"reset-failed", u->name, NULL};
	int rc;

	/* a failed run (an OOM kill) must not count against the start limit */
	tm_systemctl_quiet(reset);
	if (tm_systemctl_verb("start", u->name) || (rc = unit_cgroup(u, cg_root, out, size)) < 0)
		return -1;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", out);
	int fd = rc == 0 ? open(procs, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	if (fd >= 0)
		close(fd);
	if (n <= 0) {
		char state[64] = "?";
		tm_systemctl_show(u->name, "ActiveState", state, sizeof(state));
		tm_note("bench: %s ended before its cgroup could be recorded (now %s; a bench on a "
		        "unit records a service while it runs: Type=oneshot units end before "
		        "systemctl start returns)",
		        u->name, state);
		return 1;
	}
	return 0;
}

int tm_bench_unit_stop(struct tm_bench_unit *u)
{
	return tm_systemctl_verb("stop", u->name);
}

int tm_bench_unit_close(struct tm_bench_unit *u)
{
	int failed = 0;

	if (!u->name[0])
		return 0;
	failed = undo(u, u->written);
	if (u->cleaner_fd >= 0) {
		if (write(u->cleaner_fd, "d", 1) != 1)
			failed++;
		close(u->cleaner_fd);
		u->cleaner_fd = -1;
		while (waitpid(u->cleaner_pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	u->name[0] = '\0';
	return failed ? tm_error("--unit: the bench's drop-in was not cleaned up fully") : 0;
}

/* The outcome of a run as systemd saw the unit end (Result=, the main
 * process's exit), or FALLBACK when the unit still runs (the run ended at
 * --timeout or at its progress target; it is stopped next). */
int tm_bench_unit_outcome(struct tm_bench_unit *u, enum tm_outcome fallback, enum tm_outcome *out,
                          char *reason, size_t size)
{
	char state[64] = "", result[64], code[64], status[64];

	*out = fallback;
	/* systemd sees the main process go a moment after its cgroup empties */
	for (int i = 0; i < 100; i++) {
		if (tm_systemctl_show(u->name, "ActiveState", state, sizeof(state)))
			return -1;
		if (strcmp(state, "deactivating") && strcmp(state, "activating"))
			break;
		usleep(50000);
	}
	if (!strcmp(state, "active") || !strcmp(state, "reloading"))
		return 0;
	if (tm_systemctl_show(u->name, "Result", result, sizeof(result)) ||
	    tm_systemctl_show(u->name, "ExecMainCode", code, sizeof(code)) ||
	    tm_systemctl_show(u->name, "ExecMainStatus", status, sizeof(status)))
		return -1;
	if (!strcmp(result, "success"))
		*out = TM_OUTCOME_COMPLETED;
	else if (!strcmp(result, "oom-kill"))
		*out = TM_OUTCOME_OOM_KILLED;
	else if (!strcmp(result, "signal") || !strcmp(result, "core-dump"))
		*out = TM_OUTCOME_KILLED;
	else
		*out = TM_OUTCOME_FAILED;
	if (*out != TM_OUTCOME_COMPLETED)
		snprintf(reason, size, "systemd: %s ended with Result=%s (main process: %s %s)",
		         u->name, result, !strcmp(code, "1") ? "exit status" : "code/signal",
		         status);
	return 0;
}

int tm_bench_unit_note_run(struct tm_store *st, int64_t run_id, const struct tm_bench_arm *arm,
                           const struct tm_limits *limits)
{
	json_t *env = json_object(), *lim = json_object();
	const int64_t v[3] = {limits->memory_max_bytes, limits->memory_high_bytes,
	                      limits->swap_max_bytes};
	const char *keys[3] = {"memory_max", "memory_high", "swap_max"};
	int rc;

	for (int i = 0; i < arm->n_env; i++)
		json_object_set_new(env, arm->env[i].name, json_string(arm->env[i].value));
	if (arm->alloc == TM_ALLOC_ARENA1 && !tm_bench_arm_getenv(arm, "MALLOC_ARENA_MAX"))
		json_object_set_new(env, "MALLOC_ARENA_MAX", json_string("1"));
	if (arm->preload)
		json_object_set_new(env, "LD_PRELOAD", json_string(arm->preload));
	for (int i = 0; i < 3; i++)
		if (v[i] != TM_LIMIT_UNSET)
			json_object_set_new(lim, keys[i],
			                    json_pack("{s:I, s:s}", "requested", (json_int_t)v[i],
			                              "via", "drop-in"));
	char *e = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS),
	     *l = json_dumps(lim, JSON_COMPACT | JSON_SORT_KEYS);
	rc = e && l ? 0 : tm_error("out of memory");
	if (rc == 0)
		rc = tm_store_run_set_text(st, run_id, "env_json", e) ||
		             tm_store_run_set_text(st, run_id, "limits_json", l)
		         ? -1
		         : 0;
	free(e);
	free(l);
	json_decref(env);
	json_decref(lim);
	return rc;
}

int tm_bench_unit_store_unrecorded(struct tm_bench_unit *u, const struct tm_bench_unrecorded *r,
                                   struct tm_record_result *res)
{
	char target[300], reason[256] = "";
	enum tm_outcome o;
	struct tm_run_meta m = {
	    .target = "unit",
	    .interval_usec = r->interval_usec,
	    .started_wall_usec = r->started_wall_usec,
	    .started_mono_usec = r->started_mono_usec,
	    .bench_id = r->bench_id,
	    .arm = r->arm->name,
	    .bench_seq = r->seq,
	    .cgroup_path = target,
	};

	snprintf(target, sizeof(target), "%s", u->name);
	if (tm_bench_unit_outcome(u, TM_OUTCOME_FAILED, &o, reason, sizeof(reason)) ||
	    tm_store_run_begin(r->st, &m, &res->run_id))
		return -1;
	/* %.180s: the whole line fits res->reason (gcc's -Wformat-truncation) */
	snprintf(res->reason, sizeof(res->reason),
	         "%.180s%sthe unit ended before tidemark could record its cgroup: no samples",
	         reason, reason[0] ? "; " : "");
	res->outcome = o == TM_OUTCOME_COMPLETED ? TM_OUTCOME_INVALID : o;
	res->oom_killed = o == TM_OUTCOME_OOM_KILLED;
	struct tm_run_end e = {.ended_wall_usec = tm_now_wall_usec(),
	                       .outcome = res->outcome,
	                       .exit_code = -1,
	                       .reason = res->reason};
	if (tm_store_run_end(r->st, res->run_id, &e) ||
	    tm_bench_unit_note_run(r->st, res->run_id, r->arm, r->limits) || tm_store_commit(r->st))
		return -1;
	return tm_bench_unit_stop(u);
}

int tm_bench_unit_finish_run(struct tm_bench_unit *u, struct tm_store *st,
                             const struct tm_bench_arm *arm, const struct tm_limits *limits,
                             struct tm_record_result *res)
{
	bool interrupted = res->outcome == TM_OUTCOME_DETACHED;
	enum tm_outcome o;
	char reason[256] = "";

	if (tm_bench_unit_outcome(u, res->outcome, &o, reason, sizeof(reason)))
		return -1;
	if (interrupted)
		o = TM_OUTCOME_INTERRUPTED; /* the recorder was stopped: not a data point */
	if (o != res->outcome &&
	    (tm_store_run_set_text(st, res->run_id, "outcome", tm_outcome_name(o)) ||
	     (reason[0] && tm_store_run_set_text(st, res->run_id, "reason", reason))))
		return -1;
	res->outcome = o;
	res->oom_killed = o == TM_OUTCOME_OOM_KILLED;
	if (reason[0])
		snprintf(res->reason, sizeof(res->reason), "%s", reason);
	if (tm_bench_unit_note_run(st, res->run_id, arm, limits) || tm_store_commit(st))
		return -1;
	return tm_bench_unit_stop(u);
}
