/*
 * The recording loop.  One sample per interval on an absolute grid of
 * CLOCK_MONOTONIC deadlines (no drift); between deadlines we wait in poll()
 * on everything that can happen: the child's output (progress lines), the
 * marks FIFO, signals (signalfd), and a followed progress file.
 *
 * A run ends when the launched command exits, when the work is done
 * (progress target or an "end" mark) plus --settle, at --timeout, or when
 * we are interrupted.  Its outcome is decided once, in decide_outcome().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "heap/heapshm.h"
#include "kern/procfs.h"
#include "record/launch.h"
#include "record/marks.h"
#include "record/netlib.h"
#include "record/progress.h"
#include "record/options.h"
#include "record/recorder.h"
#include "record/units.h"
#include "sample/allocators.h"
#include "sample/sampler.h"
#include "store/store.h"
#include "base/banned.h"

enum phase { PH_WORK, PH_SETTLE, PH_TERM, PH_DONE };

/* A followed progress file (tail -F): reopened when replaced or truncated. */
struct follow {
	const char *path;
	int fd;
	ino_t ino;
	off_t pos;
	struct tm_lines lines;
};

struct rec {
	const struct tm_record_opts *o;
	struct tm_store *st;
	int64_t run_id;
	struct tm_cg_host host;
	struct tm_cgroup *cg;
	bool own_cg;
	struct tm_sampler *sampler;
	struct tm_heap_reader *heap;
	struct tm_net net; /* loaded only for --push and --metrics-listen */
	struct tm_pusher *pusher;
	struct tm_prom_server *prom;
	struct tm_launch child;
	bool launched, child_gone;
	int child_status;
	int sigfd;
	sigset_t oldmask;
	struct tm_lines out_lines, err_lines;
	struct tm_progress_re re;
	struct follow follow;
	struct tm_mark_listener marks;
	bool has_progress;
	double progress;
	struct tm_sample cur, prev;
	bool have_prev;
	int64_t seq, start_mono, start_wall, interval;
	enum phase phase;
	int64_t work_end_mono, term_at_mono, kill_at_mono;
	bool reached_progress, ended_by_mark, timed_out, interrupted, invalid;
	int64_t oom_kills, vmstat_oom_start;
	char allocator[256]; /* "glibc (sh), jemalloc (redis-server)" */
	struct tm_allocators *allocs;
	char reason[256];
	char machine[256]; /* our host name: the run's metadata and /metrics' label */
};

/* ---- events ---- */

static int add_event(struct rec *r, const char *kind, int64_t pid, int64_t value,
                     const char *detail)
{
	struct tm_event ev = {
	    .t_wall_usec = tm_now_wall_usec(),
	    .t_mono_usec = tm_now_mono_usec(),
	    .kind = kind,
	    .pid = pid,
	    .value = value,
	    .detail = detail,
	};
	return tm_store_add_event(r->st, r->run_id, &ev);
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
static int sample_events(struct rec *r)
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
		if (d > 0 && add_event(r, counters[i].kind, 0, d, NULL))
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
		if (add_event(r, "limit_change", 0, r->cur.v[m], detail))
			return -1;
	}
	return 0;
}

/* ---- allocator check ---- */

/* Every process of the target: its allocator from its maps (once its
 * dynamic loader is done, or after a few samples: a static binary); the run
 * says which ran where, and an arm is invalid as soon as a process holding a
 * real share of the anon runs another allocator than the arm claims. */
static int check_allocator(struct rec *r, const pid_t *pids, size_t npids)
{
	const struct tm_sample *s = &r->cur;
	int64_t anon = tm_sample_has(s, TM_M_CG_ANON_BYTES)         ? s->v[TM_M_CG_ANON_BYTES]
	               : tm_sample_has(s, TM_M_PROC_RSS_ANON_BYTES) ? s->v[TM_M_PROC_RSS_ANON_BYTES]
	                                                            : -1;

	if (!r->allocs && !(r->allocs = tm_allocators_new()))
		return tm_error("out of memory");
	if (tm_allocators_update(r->allocs, pids, npids, r->o->expect_allocator, anon)) {
		tm_allocators_describe(r->allocs, r->allocator, sizeof(r->allocator));
		if (tm_store_run_set_text(r->st, r->run_id, "allocator", r->allocator))
			return -1;
	}
	if (r->invalid || !r->o->expect_allocator ||
	    !tm_allocators_mismatch(r->allocs, r->o->expect_allocator, r->reason,
	                            sizeof(r->reason)))
		return 0;
	r->invalid = true;
	r->phase = PH_TERM;
	r->term_at_mono = tm_now_mono_usec();
	return add_event(r, "invalid", r->child.pid, 0, r->reason);
}

/* ---- progress and marks ---- */

static void work_done(struct rec *r, int64_t now)
{
	if (r->phase != PH_WORK)
		return;
	r->work_end_mono = now;
	r->phase = PH_SETTLE;
}

static void on_progress(struct rec *r, double v)
{
	int64_t now = tm_now_mono_usec();

	tm_store_add_progress(r->st, r->run_id, tm_now_wall_usec(), now, v);
	r->has_progress = true;
	r->progress = v;
	if (r->o->stop_at_progress && v >= r->o->until_progress && !r->reached_progress) {
		r->reached_progress = true;
		add_event(r, "progress_target", 0, (int64_t)v, NULL);
		work_done(r, now);
	}
}

static void on_line(void *ctx, const char *line)
{
	struct rec *r = ctx;
	double v;

	if (tm_progress_match(&r->re, line, &v))
		on_progress(r, v);
}

static void on_mark_line(void *ctx, const char *line)
{
	struct rec *r = ctx;
	int64_t now = tm_now_mono_usec();

	if (!*line)
		return;
	tm_store_add_mark(r->st, r->run_id, tm_now_wall_usec(), now, line);
	if (!strcmp(line, "end")) {
		r->ended_by_mark = true;
		work_done(r, now);
	}
}

/* Passes the child's output through unchanged and scans it for progress. */
static void drain_output(struct rec *r, int *fd, int to_fd, struct tm_lines *lines)
{
	char buf[8192];
	ssize_t n;

	while ((n = read(*fd, buf, sizeof(buf))) > 0) {
		if (!r->o->quiet_child) {
			ssize_t off = 0;
			while (off < n) {
				ssize_t w = write(to_fd, buf + off, (size_t)(n - off));
				if (w <= 0)
					break;
				off += w;
			}
		}
		if (r->re.compiled)
			tm_lines_feed(lines, buf, (size_t)n, on_line, r);
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		tm_lines_flush(lines, on_line, r);
		close(*fd);
		*fd = -1;
	}
}

static void drain_marks(struct rec *r)
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

static void follow_poll(struct rec *r)
{
	struct follow *f = &r->follow;
	struct stat sb;
	char buf[8192];
	ssize_t n;

	if (!f->path)
		return;
	if (stat(f->path, &sb) == 0 && (f->fd < 0 || sb.st_ino != f->ino || sb.st_size < f->pos)) {
		if (f->fd >= 0)
			close(f->fd);
		f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
		f->ino = sb.st_ino;
		f->pos = 0;
		f->lines.len = 0;
	}
	if (f->fd < 0)
		return;
	while ((n = pread(f->fd, buf, sizeof(buf), f->pos)) > 0) {
		f->pos += n;
		tm_lines_feed(&f->lines, buf, (size_t)n, on_line, r);
	}
}

/* ---- the child ---- */

static const char *signame(int sig)
{
	const char *s = sigabbrev_np(sig);
	return s ? s : "?";
}

static void reap(struct rec *r)
{
	int status;
	pid_t pid;
	char detail[64];

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (WIFSIGNALED(status)) {
			snprintf(detail, sizeof(detail), "SIG%s", signame(WTERMSIG(status)));
			add_event(r, "signal", pid, WTERMSIG(status), detail);
		} else {
			add_event(r, "exit", pid, WEXITSTATUS(status), NULL);
		}
		if (r->launched && pid == r->child.pid) {
			r->child_gone = true;
			r->child_status = status;
		}
	}
}

/* Signals every process of the target: the cgroup's when it is ours, else
 * the tree the sampler last saw, and the child itself. */
static void signal_target(struct rec *r, int sig)
{
	size_t n = 0;
	const pid_t *pids = r->sampler ? tm_sampler_pids(r->sampler, &n) : NULL;

	if (r->launched && !r->child_gone)
		kill(r->child.pid, sig);
	for (size_t i = 0; i < n; i++)
		if (pids[i] != getpid())
			kill(pids[i], sig);
}

static void on_signal(struct rec *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			reap(r);
			continue;
		}
		if (si.ssi_signo == SIGPIPE)
			continue; /* our stdout's reader left; the write said EPIPE */
		/* SIGINT, SIGTERM, SIGHUP: pass it on and end the run */
		if (!r->interrupted)
			add_event(r, "interrupted", 0, si.ssi_signo, NULL);
		r->interrupted = true;
		if (r->launched && !r->child_gone)
			kill(r->child.pid, (int)si.ssi_signo);
		if (!r->launched)
			r->phase = PH_DONE;
		else if (r->phase < PH_TERM) {
			r->phase = PH_TERM;
			r->term_at_mono = 0; /* already sent; escalate after the grace */
			r->kill_at_mono = tm_now_mono_usec() + r->o->term_grace_usec;
		}
	}
}

/* ---- one sample ---- */

static int take_sample(struct rec *r, int64_t deadline)
{
	struct tm_sample *s = &r->cur;
	int64_t now = tm_now_mono_usec();
	size_t npids = 0;
	const pid_t *pids;

	tm_sample_clear(s);
	s->seq = r->seq;
	s->t_mono_usec = now;
	s->t_wall_usec = tm_now_wall_usec();
	s->late_usec = now > deadline ? now - deadline : 0;
	if (tm_sampler_read(r->sampler, now, s))
		return -1;
	pids = tm_sampler_pids(r->sampler, &npids);
	if (r->heap && tm_heap_reader_sample(r->heap, pids, npids, s))
		tm_warn("cannot read the heap shim's counters; continuing without");
	if (tm_store_add_sample(r->st, r->run_id, s) || sample_events(r) ||
	    check_allocator(r, pids, npids))
		return -1;
	if (r->o->watch.on_sample)
		r->o->watch.on_sample(r->o->watch.ctx, s, r->has_progress, r->progress);
	r->prev = *s;
	r->have_prev = true;
	r->seq++;
	if (tm_store_commit(r->st))
		return -1;
	if (r->prom)
		r->net.prom_update(r->prom, s);
	if (r->pusher)
		r->net.pusher_tick(r->pusher);
	return 0;
}

/* ---- ending ---- */

static bool target_gone(struct rec *r)
{
	if (r->launched)
		return r->child_gone;
	if (r->o->pid)
		return kill(r->o->pid, 0) && errno == ESRCH;
	return false; /* a cgroup is watched until we are told to stop */
}

/* Moves the run through settle -> terminate -> kill as time passes. */
static void advance_phase(struct rec *r, int64_t now)
{
	if (r->phase == PH_WORK && r->o->timeout_usec &&
	    now - r->start_mono >= r->o->timeout_usec) {
		r->timed_out = true;
		add_event(r, "timeout", 0, r->o->timeout_usec, NULL);
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
		signal_target(r, SIGTERM);
		r->term_at_mono = 0;
		r->kill_at_mono = now + r->o->term_grace_usec;
	}
	if (r->phase == PH_TERM && r->kill_at_mono && now >= r->kill_at_mono) {
		signal_target(r, SIGKILL);
		r->kill_at_mono = now + r->o->term_grace_usec;
	}
	if (target_gone(r))
		r->phase = PH_DONE;
}

/* Waits for input until DEADLINE, handling whatever arrives. */
static void wait_until(struct rec *r, int64_t deadline)
{
	for (;;) {
		struct pollfd pfd[4];
		int n = 0, timeout_ms;
		int64_t now = tm_now_mono_usec();

		if (now >= deadline || r->phase == PH_DONE)
			return;
		pfd[n++] = (struct pollfd){.fd = r->sigfd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = r->marks.fd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = r->child.out_fd, .events = POLLIN};
		pfd[n++] = (struct pollfd){.fd = r->child.err_fd, .events = POLLIN};
		timeout_ms = (int)((deadline - now + 999) / 1000);
		if (r->follow.path && timeout_ms > 100)
			timeout_ms = 100;
		if (poll(pfd, (nfds_t)n, timeout_ms) < 0 && errno != EINTR)
			return;
		if (pfd[0].revents)
			on_signal(r);
		if (pfd[1].revents)
			drain_marks(r);
		if (r->child.out_fd >= 0 && pfd[2].revents)
			drain_output(r, &r->child.out_fd, 1, &r->out_lines);
		if (r->child.err_fd >= 0 && pfd[3].revents)
			drain_output(r, &r->child.err_fd, 2, &r->err_lines);
		follow_poll(r);
		advance_phase(r, tm_now_mono_usec());
	}
}

static int64_t read_vmstat_oom(void)
{
	char *buf = tm_read_file("/proc/vmstat", NULL), *p;
	int64_t v = -1;

	if (buf && (p = strstr(buf, "\noom_kill ")))
		v = strtoll(p + 10, NULL, 10);
	free(buf);
	return v;
}

static void decide_outcome(struct rec *r, struct tm_record_result *res)
{
	int st = r->child_status;
	const char *outcome = "completed";

	res->exit_code = -1;
	res->term_signal = 0;
	if (r->launched && WIFEXITED(st)) {
		res->exit_code = WEXITSTATUS(st);
		if (res->exit_code != 0 && !r->reached_progress && !r->ended_by_mark)
			outcome = "failed";
	} else if (r->launched && WIFSIGNALED(st)) {
		res->term_signal = WTERMSIG(st);
		if (r->oom_kills > 0)
			outcome = "oom-killed";
		else if (!r->reached_progress && !r->ended_by_mark && !r->timed_out &&
		         !r->interrupted && !r->invalid)
			outcome = "killed";
	}
	if (!r->cg && res->term_signal == SIGKILL && r->vmstat_oom_start >= 0 &&
	    read_vmstat_oom() > r->vmstat_oom_start) {
		/* no cgroup of our own: the host's counter is the best witness */
		outcome = "oom-killed";
		snprintf(r->reason, sizeof(r->reason),
		         "SIGKILL while the host's oom_kill counter rose (no cgroup to confirm)");
	}
	if (r->timed_out && strcmp(outcome, "oom-killed"))
		outcome = "timeout";
	if (r->interrupted && strcmp(outcome, "oom-killed"))
		outcome = "interrupted";
	if (r->invalid)
		outcome = "invalid";
	if (!r->launched)
		outcome = r->interrupted ? "detached" : "completed";
	snprintf(res->outcome, sizeof(res->outcome), "%s", outcome);
	snprintf(res->reason, sizeof(res->reason), "%s", r->reason);
	res->oom_killed = !strcmp(outcome, "oom-killed");
	res->reached_progress = r->reached_progress;
	res->last_progress = r->progress;
}

/* ---- setting up ---- */

void tm_record_opts_init(struct tm_record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_usec = 1000000;
	o->term_grace_usec = 5000000;
	o->limits = (struct tm_limits){TM_LIMIT_UNSET, TM_LIMIT_UNSET, TM_LIMIT_UNSET};
}

static bool wants_limits(const struct tm_limits *l)
{
	return l->memory_max_bytes != TM_LIMIT_UNSET || l->memory_high_bytes != TM_LIMIT_UNSET ||
	       l->swap_max_bytes != TM_LIMIT_UNSET;
}

static char *env_json(char *const *env)
{
	json_t *obj = json_object();
	char *out;

	for (; env && *env; env++) {
		const char *eq = strchr(*env, '=');
		char name[128];
		if (!eq || (size_t)(eq - *env) >= sizeof(name))
			continue;
		memcpy(name, *env, (size_t)(eq - *env));
		name[eq - *env] = '\0';
		/* what chose the allocator, and the heap shim's own settings */
		if (tm_env_alloc_var(name) || !strncmp(name, "TIDEMARK_HEAP_", 14))
			json_object_set_new(obj, name, json_string(eq + 1));
	}
	out = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(obj);
	return out;
}

static char *argv_json(char *const *argv)
{
	json_t *arr = json_array();
	char *out;

	for (; argv && *argv; argv++)
		json_array_append_new(arr, json_string(*argv));
	out = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	return out;
}

/* -p PID: its cgroup's figures are the run's only when the cgroup holds
 * nothing but PID's tree (a service's); otherwise the run has none (they
 * would be other processes' too) and says so. */
static int open_pid_cgroup(struct rec *r)
{
	char why[PATH_MAX + 128];
	int rc = tm_cgroup_of_pid_tree(&r->host, "/proc", r->o->pid, &r->cg, why, sizeof(why));

	if (rc > 0)
		tm_warn("no cgroup figures: %s (record --cgroup PATH for the whole cgroup)", why);
	else if (rc < 0)
		tm_warn("no cgroup figures for process %d", (int)r->o->pid);
	return 0;
}

/* Opens the cgroup the run samples: a fresh one for a launched command (if
 * the host lets us), the one named by --cgroup, or none. */
static int open_cgroup(struct rec *r, const char **limits_json)
{
	const struct tm_record_opts *o = r->o;
	char name[64];

	*limits_json = NULL;
	if (o->cgroup_path)
		return tm_cgroup_open_path(&r->host, o->cgroup_path, &r->cg);
	if (o->pid)
		return open_pid_cgroup(r);
	if (!o->argv || !o->new_cgroup) {
		if (wants_limits(&o->limits))
			return tm_error("memory limits need a fresh cgroup (drop --no-cgroup)");
		return 0;
	}
	if (o->cgroup_name)
		snprintf(name, sizeof(name), "%s", o->cgroup_name);
	else
		snprintf(name, sizeof(name), "tidemark-%d-%" PRId64, (int)getpid(),
		         tm_now_mono_usec() % 1000000000);
	tm_cgroup_reap_stale(&r->host);
	if (tm_cgroup_create(&r->host, name, &o->limits, &r->cg)) {
		if (wants_limits(&o->limits))
			return -1;
		tm_warn("recording without a cgroup of its own: no anon/file split, no OOM "
		        "confirmation");
		return 0;
	}
	r->own_cg = true;
	*limits_json = tm_cgroup_limits_json(r->cg);
	return 0;
}

static int begin_run(struct rec *r, char *const *child_env, const char *limits_json)
{
	const struct tm_record_opts *o = r->o;
	struct utsname un;
	char *cmd = NULL, *env = NULL;
	struct tm_run_meta m = {0};
	int rc;

	if (gethostname(r->machine, sizeof(r->machine) - 1))
		snprintf(r->machine, sizeof(r->machine), "unknown");
	uname(&un);
	cmd = argv_json(o->argv);
	env = env_json(child_env);
	m.machine = r->machine;
	m.kernel = un.release;
	m.cgroup_mode = tm_cg_mode_name(r->host.mode);
	m.target = o->argv ? "command" : o->pid ? "pid" : "cgroup";
	m.cgroup_path = r->cg ? tm_cgroup_path(r->cg) : NULL;
	m.command_json = o->argv ? cmd : NULL;
	m.env_json = env;
	m.limits_json = limits_json;
	m.interval_usec = o->interval_usec;
	m.started_wall_usec = r->start_wall;
	m.started_mono_usec = r->start_mono;
	m.bench_id = o->bench_id;
	m.arm = o->arm;
	m.bench_seq = o->bench_seq;
	rc = tm_store_run_begin(r->st, &m, &r->run_id);
	free(cmd);
	free(env);
	return rc;
}

/* The profiles' directory must be there and writable before the run, not
 * found missing at its end. */
static int heap_profile_dir_check(const char *prefix)
{
	char dir[4096];
	tm_path_parent(prefix, dir, sizeof(dir));
	if (access(dir, W_OK | X_OK) < 0)
		return tm_error("--heap-profile %s: cannot write in %s: %s", prefix, dir,
		                strerror(errno));
	return 0;
}

static int validate(const struct tm_record_opts *o)
{
	if (tm_record_opts_check(o, true))
		return -1;
	if (o->pid && (kill(o->pid, 0) && errno == ESRCH))
		return tm_error("no process with pid %d", (int)o->pid);
	if (o->heap_profile && heap_profile_dir_check(o->heap_profile))
		return -1;
	const char *mean = getenv("TIDEMARK_HEAP_SAMPLE");
	if (o->heap_profile && mean && !strcmp(mean, "0"))
		return tm_error("--heap-profile needs sampling, but TIDEMARK_HEAP_SAMPLE is 0");
	return 0;
}

/* Signals arrive through a signalfd; the child gets our old mask back. */
static int setup_signals(struct rec *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	/* passing the child's output on must not kill us when our reader goes
	 * away (`tidemark record ... | head`): a blocked SIGPIPE makes the write
	 * fail with EPIPE instead, and the run goes on */
	sigaddset(&set, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &set, &r->oldmask))
		return tm_error("sigprocmask: %s", strerror(errno));
	r->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (r->sigfd < 0)
		return tm_error("signalfd: %s", strerror(errno));
	return 0;
}

static int launch(struct rec *r, char **env)
{
	const struct tm_record_opts *o = r->o;
	bool capture = o->progress_regex && !o->progress_file;

	if (tm_launch_start(o->argv, env, capture, &r->oldmask, &r->child))
		return -1;
	r->launched = true;
	if (r->cg && tm_cgroup_attach(r->cg, r->child.pid)) {
		kill(r->child.pid, SIGKILL);
		waitpid(r->child.pid, NULL, 0);
		r->child_gone = true;
		return -1;
	}
	if (tm_launch_go(&r->child, o->argv[0])) {
		r->child_gone = true;
		return -1;
	}
	return 0;
}

static char **child_environment(struct rec *r)
{
	/* KEEP: the shim leaves its region behind at exit, so the last sample
	 * still has the final counters; the reader removes it afterwards */
	char mark_var[300], keep[64];
	char *set[3] = {mark_var, r->o->heap ? keep : NULL, NULL};
	char shim[512];

	snprintf(mark_var, sizeof(mark_var), "TIDEMARK_MARK=%s", r->marks.path);
	/* our tag: the reader finds the regions of processes that lived
	 * between two samples */
	snprintf(keep, sizeof(keep), "TIDEMARK_HEAP_KEEP=%" PRIu64, tm_heap_keep_tag());
	if (r->o->heap && tm_heap_shim_path(shim, sizeof(shim), r->o->heap_sites))
		return NULL;
	return tm_env_build(r->o->envp, set, r->o->heap ? shim : NULL);
}

static int open_inputs(struct rec *r)
{
	const struct tm_record_opts *o = r->o;

	r->child.out_fd = r->child.err_fd = -1;
	r->follow.fd = -1;
	if (o->progress_regex && tm_progress_compile(&r->re, o->progress_regex))
		return -1;
	if (o->progress_file) {
		struct stat sb;
		r->follow.path = o->progress_file;
		/* an existing file is followed from its end: old lines are history */
		if (stat(o->progress_file, &sb) == 0) {
			r->follow.fd = open(o->progress_file, O_RDONLY | O_CLOEXEC);
			r->follow.ino = sb.st_ino;
			r->follow.pos = sb.st_size;
		}
	}
	return tm_mark_listen(&r->marks);
}

static void close_all(struct rec *r)
{
	if (r->child.out_fd >= 0)
		close(r->child.out_fd);
	if (r->child.err_fd >= 0)
		close(r->child.err_fd);
	if (r->follow.fd >= 0)
		close(r->follow.fd);
	tm_mark_unlisten(&r->marks);
	tm_progress_free(&r->re);
	tm_sampler_close(r->sampler);
	tm_heap_reader_free(r->heap);
	tm_allocators_free(r->allocs);
	tm_cgroup_destroy(r->cg); /* removes it only when we made it */
	if (r->sigfd >= 0)
		close(r->sigfd);
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
}

/* Pushing and /metrics, when asked for.  The run must exist in the store. */
static int open_outputs(struct rec *r)
{
	const struct tm_record_opts *o = r->o;
	char run_label[32];

	if (!o->push_url && !o->metrics_listen)
		return 0;
	if (tm_net_load(&r->net))
		return -1;
	if (o->push_url &&
	    r->net.pusher_new(o->push_url, o->token_file, r->st, r->run_id, &r->pusher))
		return -1;
	if (!o->metrics_listen)
		return 0;
	snprintf(run_label, sizeof(run_label), "%" PRId64, r->run_id);
	return r->net.prom_start(o->metrics_listen, r->machine, run_label, &r->prom);
}

static void close_outputs(struct rec *r)
{
	if (r->pusher) {
		/* the local store has everything, whatever the server got */
		if (r->net.pusher_finish(r->pusher, 10000000))
			tm_warn("not everything reached the server; the local store has it all");
		r->net.pusher_free(r->pusher);
		r->pusher = NULL;
	}
	if (r->prom)
		r->net.prom_stop(r->prom);
	r->prom = NULL;
	tm_net_unload(&r->net);
}

/* A heap profile file is written: an event of the run (report lists them);
 * the final ones are also said on stderr. */
static void heap_profile_written(void *ctx, pid_t pid, const char *path, int final)
{
	struct rec *r = ctx;
	add_event(r, "heap_profile", pid, final, path);
	if (final)
		fprintf(stderr, "tidemark: heap profile of pid %d: %s\n", (int)pid, path);
}

static int open_sampler(struct rec *r)
{
	struct tm_sampler_cfg cfg;

	tm_sampler_cfg_init(&cfg);
	cfg.root_pid = r->launched ? r->child.pid : r->o->pid;
	cfg.cgroup = r->cg;
	/* smaps_rollup walks every page table (~60 us a process): every 10 s,
	 * or every sample at longer intervals */
	cfg.smaps_every_usec = r->o->interval_usec > 10000000 ? r->o->interval_usec : 10000000;
	if (r->o->heap && !(r->heap = tm_heap_reader_new()))
		return tm_error("out of memory");
	if (r->heap && r->o->heap_profile) {
		struct tm_heap_profiles p = {.prefix = r->o->heap_profile,
		                             .every_usec = r->o->heap_every_usec,
		                             .on_write = heap_profile_written,
		                             .ctx = r};
		tm_heap_reader_set_profiles(r->heap, &p);
	}
	return tm_sampler_open(&cfg, &r->sampler);
}

/* Samples on the grid until the run is over. */
static int sample_loop(struct rec *r)
{
	int64_t deadline = r->start_mono;

	for (;;) {
		if (take_sample(r, deadline))
			return -1;
		if (r->phase == PH_DONE)
			return 0;
		deadline += r->interval;
		int64_t now = tm_now_mono_usec();
		if (now > deadline) {
			/* we overslept whole intervals: say so, and get back on the grid */
			int64_t missed = (now - deadline) / r->interval + 1;
			char detail[64];
			snprintf(detail, sizeof(detail), "%" PRId64 " deadline(s) missed", missed);
			add_event(r, "late", 0, now - deadline, detail);
			deadline += missed * r->interval;
		}
		wait_until(r, deadline);
		if (r->phase == PH_DONE) {
			/* a last look: an OOM kill's counter, what is held at the end */
			deadline = tm_now_mono_usec();
			reap(r);
			if (take_sample(r, deadline))
				return -1;
			return 0;
		}
	}
}

int tm_record_run(const struct tm_record_opts *o, struct tm_record_result *res)
{
	struct rec *r = calloc(1, sizeof(*r));
	const char *limits_json = NULL;
	char **env = NULL;
	struct tm_run_end end = {0};
	int rc = -1;

	memset(res, 0, sizeof(*res));
	if (!r)
		return tm_error("out of memory");
	r->o = o;
	r->st = o->store;
	r->sigfd = -1;
	r->interval = o->interval_usec;
	r->vmstat_oom_start = read_vmstat_oom();
	sigemptyset(&r->oldmask);
	if (validate(o) || tm_cg_host_detect(&r->host) || open_inputs(r) ||
	    open_cgroup(r, &limits_json) || setup_signals(r))
		goto out;
	if (o->argv && !(env = child_environment(r)))
		goto out;
	if (o->argv)
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	r->start_mono = tm_now_mono_usec();
	r->start_wall = tm_now_wall_usec();
	if (begin_run(r, env, limits_json) || tm_store_commit(r->st))
		goto out;
	res->run_id = r->run_id;
	if (o->argv && launch(r, env)) {
		end = (struct tm_run_end){.ended_wall_usec = tm_now_wall_usec(),
		                          .outcome = "failed",
		                          .exit_code = -1,
		                          .reason = "the command could not be started"};
		tm_store_run_end(r->st, r->run_id, &end);
		tm_store_commit(r->st);
		goto out;
	}
	if (o->argv)
		add_event(r, "start", r->child.pid, 0, NULL);
	if (open_outputs(r) || open_sampler(r) || sample_loop(r))
		goto out;
	tm_heap_reader_free(r->heap); /* the final heap profiles, as events of the run */
	r->heap = NULL;
	decide_outcome(r, res);
	res->wall_usec = (r->work_end_mono ? r->work_end_mono : tm_now_mono_usec()) - r->start_mono;
	res->work_end_mono_usec = r->work_end_mono ? r->work_end_mono : tm_now_mono_usec();
	end = (struct tm_run_end){
	    .ended_wall_usec = tm_now_wall_usec(),
	    .outcome = res->outcome,
	    .exit_code = res->exit_code,
	    .term_signal = res->term_signal,
	    .reason = res->reason[0] ? res->reason : NULL,
	};
	rc = tm_store_run_end(r->st, r->run_id, &end) || tm_store_commit(r->st) ? -1 : 0;
	if (rc == 0 && tm_record_units_after(r->st, r->run_id, o))
		rc = -1;
	if (r->pusher)
		r->net.pusher_tick(r->pusher); /* the run's end, too */
out:
	close_outputs(r);
	if (r->launched && !r->child_gone) {
		signal_target(r, SIGKILL);
		waitpid(r->child.pid, NULL, 0);
	}
	close_all(r);
	tm_env_free(env);
	free(r);
	return rc;
}
