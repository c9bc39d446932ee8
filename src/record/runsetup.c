/*
 * Setting a run up and taking it down: the options' checks, the cgroup, the
 * run's row in the store, signals, launching the command with its output
 * and environment, the marks FIFO, the followed file, the sampler, pushing
 * and /metrics.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "heap/attach.h"
#include "heap/heapcli.h"
#include "heap/heapregion.h"
#include "heap/heapshm.h"
#include "record/options.h"
#include "record/rec.h"
#include "sample/allocators.h"
#include "sample/sampler.h"
#include "store/remote.h"
#include "store/store.h"
#include "base/banned.h"

void tm_record_opts_init(struct tm_record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_usec = 1000000;
	o->term_grace_usec = 5000000;
	o->commit_every_usec = -1; /* the default window (recorder.c); a bench's arms: 0 */
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
		if (tm_env_alloc_var(name) || !strncmp(name, "TIDEMARK_HEAP_", 14) ||
		    tm_runtime_env_var(name))
			json_object_set_new(obj, name, json_string(eq + 1));
	}
	out = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(obj);
	return out;
}

/* The command line of PID as a JSON array (its name in brackets when it has
 * none, as ps shows a kernel thread); NULL when it cannot be read. */
static char *pid_cmdline_json(pid_t pid)
{
	char path[64], *buf, *out = NULL;
	size_t len = 0;
	json_t *arr;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (!(buf = tm_read_file(path, &len)))
		return NULL;
	arr = json_array();
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		json_array_append_new(arr, json_string(buf + i));
	free(buf);
	if (!json_array_size(arr)) {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		if ((buf = tm_read_file(path, &len))) {
			char name[64];
			buf[strcspn(buf, "\n")] = '\0';
			snprintf(name, sizeof(name), "[%s]", buf);
			json_array_append_new(arr, json_string(name));
			free(buf);
		}
	}
	if (json_array_size(arr))
		out = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
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
	struct tm_err why = {0};
	int rc = tm_cgroup_of_pid_tree(&r->host, "/proc", r->o->pid, &r->cg, &why);

	if (rc > 0)
		tm_warn("no cgroup figures: %s (record --cgroup PATH for the whole cgroup)",
		        why.msg);
	else if (rc < 0)
		tm_warn("no cgroup figures for process %d", (int)r->o->pid);
	return 0;
}

/* Opens the cgroup the run samples: a fresh one for a launched command (if
 * the host lets us), the one named by --cgroup, or none. */
int tm_rec_open_cgroup(struct rec *r, const char **limits_json)
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
	snprintf(r->cg_path_copy, sizeof(r->cg_path_copy), "%s", tm_cgroup_path(r->cg));
	*limits_json = tm_cgroup_limits_json(r->cg);
	return 0;
}

int tm_rec_begin_run(struct rec *r, char *const *child_env, const char *limits_json)
{
	const struct tm_record_opts *o = r->o;
	struct utsname un;
	char *cmd = NULL, *env = NULL;
	struct tm_run_meta m = {0};
	int rc;

	if (o->machine)
		snprintf(r->machine, sizeof(r->machine), "%s", o->machine);
	else if (gethostname(r->machine, sizeof(r->machine) - 1))
		snprintf(r->machine, sizeof(r->machine), "unknown");
	uname(&un);
	cmd = o->argv  ? argv_json(r->gc.argv ? r->gc.argv : o->argv)
	      : o->pid ? pid_cmdline_json(o->pid)
	               : NULL;
	env = env_json(child_env);
	m.machine = r->machine;
	m.kernel = un.release;
	m.cgroup_mode = tm_cg_mode_name(r->host.mode);
	m.target = o->argv ? "command" : o->pid ? "pid" : "cgroup";
	m.cgroup_path = r->cg ? tm_cgroup_path(r->cg) : NULL;
	m.command_json = cmd; /* -p: the process's command line, as ps shows it */
	m.env_json = env;
	m.limits_json = limits_json;
	m.interval_usec = o->interval_usec;
	m.started_wall_usec = r->start_wall;
	m.started_mono_usec = r->start_mono;
	m.bench_id = o->bench_id;
	m.arm = o->arm;
	m.bench_seq = o->bench_seq;
	rc = tm_store_run_begin(r->st, &m, &r->run_id);
	r->run_begun = rc == 0;
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

int tm_rec_validate(const struct tm_record_opts *o)
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
int tm_rec_setup_signals(struct rec *r)
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

/* No pseudo-terminal on this host (no /dev/pts): the command's stdout goes
 * through a pipe, as with --no-pty, and the run says so rather than fail. */
static void pty_or_pipe(struct rec *r, enum tm_out_mode mode[2])
{
	struct tm_err why;

	if (mode[0] != TM_OUT_PTY || tm_pty_probe(&why) == 0)
		return;
	mode[0] = TM_OUT_PIPE;
	r->pty_fallback = true;
	tm_warn("%s: the command's stdout goes through a pipe instead (as with --no-pty), where "
	        "stdio may block-buffer it and progress arrive in bunches",
	        why.msg);
}

/* Where the command's stdout and stderr go: ours, unchanged, unless its
 * output is scanned for progress; then through a relay (stdout through a
 * pseudo-terminal, so that stdio line-buffers it, unless --no-pty). */
static int child_io(struct rec *r, struct tm_child_io *io)
{
	const struct tm_record_opts *o = r->o;
	bool capture = (o->progress_regex && !o->progress_file && !o->progress_cmd) ||
	               o->runtime != TM_RUNTIME_NONE || r->jlog.where == TM_JLOG_STDOUT ||
	               r->jlog.where == TM_JLOG_STDERR;
	enum tm_out_mode quiet = o->quiet_child ? TM_OUT_NULL : TM_OUT_INHERIT;
	enum tm_out_mode mode[2] = {quiet, quiet};
	int out[2] = {o->quiet_child ? -1 : 1, o->quiet_child ? -1 : 2};
	int mark[2] = {r->marks.fd, r->marks.keep_fd};

	if (capture) {
		mode[0] = o->no_pty ? TM_OUT_PIPE : TM_OUT_PTY;
		mode[1] = TM_OUT_PIPE;
		pty_or_pipe(r, mode);
	}
	if (tm_child_io_open(mode, io)) {
		tm_child_io_close_child(io);
		tm_child_io_close_ours(io);
		return -1;
	}
	/* with nothing captured, a relay still holds the marks FIFO for the
	 * command in case the recorder dies (relay.h); its procs file tells
	 * it when the command is gone */
	char procs[4096];
	const char *procs_path = NULL;
	if (r->cg) {
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", tm_cgroup_path(r->cg));
		procs_path = procs;
	}
	bool relay = capture || (mark[0] >= 0 && procs_path);
	if (relay && tm_relay_start(io->ours, out, mark, procs_path, &r->relay)) {
		tm_child_io_close_child(io);
		tm_child_io_close_ours(io);
		return -1;
	}
	tm_child_io_close_ours(io); /* the relay's are the only read ends */
	return 0;
}

int tm_rec_launch(struct rec *r, char **env)
{
	const struct tm_record_opts *o = r->o;
	struct tm_child_io io;
	int rc;

	if (child_io(r, &io))
		return -1;
	rc = tm_launch_start(r->gc.argv ? r->gc.argv : o->argv, env, &io, &r->oldmask, &r->child);
	tm_child_io_close_child(&io);
	if (rc)
		return -1;
	r->launched = true;
	if (r->cg && tm_cgroup_attach(r->cg, r->child.pid)) {
		kill(r->child.pid, SIGKILL); /* it has not exec'd yet: it is not the command */
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

/* The runtime's flag on the command line it launches (node --trace-gc),
 * in r->gc.argv; 0, or -1 out of memory. */
static int runtime_argv(struct rec *r)
{
	size_t n = 0;

	while (r->o->argv[n])
		n++;
	char **argv = malloc((n + 2) * sizeof(*argv));
	if (!argv)
		return tm_error("out of memory");
	if (tm_gcwatch_argv(r->gc.rt, r->o->argv, argv, n + 2)) {
		free(argv);
		return 0;
	}
	r->gc.argv = argv;
	return 0;
}

char **tm_rec_child_environment(struct rec *r)
{
	/* KEEP: the shim leaves its region behind at exit, so the last sample
	 * still has the final counters; the reader removes it afterwards */
	char mark_var[300], keep[64], gc_var[512], dir_var[300], dir[256];
	char *set[5] = {mark_var, NULL, NULL, NULL, NULL};
	char shim[512];
	int nset = 1;

	snprintf(mark_var, sizeof(mark_var), "TIDEMARK_MARK=%s", r->marks.path);
	/* our tag: the reader finds the regions of processes that lived
	 * between two samples */
	snprintf(keep, sizeof(keep), "TIDEMARK_HEAP_KEEP=%" PRIu64, tm_heap_keep_tag());
	if (r->o->heap) {
		/* the regions' directory: ours, 0700, where no one else can plant one */
		if (tm_heap_region_dir_prepare(dir, sizeof(dir)) < 0)
			return NULL;
		snprintf(dir_var, sizeof(dir_var), "%s=%s", TMH_DIR_ENV, dir);
		set[nset++] = keep;
		set[nset++] = dir_var;
	}
	tm_jvmlog_setup(&r->jlog, r->o->envp, r->o->argv);
	r->gc.rt = (enum tm_runtime)r->o->runtime;
	int own = r->gc.rt == TM_RUNTIME_GHC
	              ? tm_gcwatch_ghc_target(r->o->envp, r->o->argv, gc_var, sizeof(gc_var))
	              : 1;
	if (own < 0) {
		tm_error("the program's own +RTS -S file name is too long");
		return NULL;
	}
	if (own == 0 && gc_var[0])
		tm_gcwatch_use_file(&r->gc, gc_var); /* its own -S<file>: read there */
	if (runtime_argv(r))
		return NULL;
	int env_rc = own ? tm_gcwatch_env(r->gc.rt, r->o->envp, gc_var, sizeof(gc_var)) : 1;
	if (env_rc < 0) {
		tm_error("the environment's %s is too long to add to",
		         tm_runtime_desc(r->gc.rt)->env_var);
		return NULL;
	}
	if (env_rc == 0)
		set[nset++] = gc_var;
	if (r->o->heap && tm_heap_shim_path(shim, sizeof(shim), r->o->heap_sites))
		return NULL;
	return tm_env_build(r->o->envp, set, r->o->heap ? shim : NULL);
}

int tm_rec_open_inputs(struct rec *r)
{
	const struct tm_record_opts *o = r->o;

	r->relay = (struct tm_relay){.pid = 0, .fwd_fd = {-1, -1}, .life_fd = -1};
	r->psrc.fd = -1;
	if (o->progress_regex && tm_progress_compile(&r->re, o->progress_regex))
		return -1;
	tm_rec_follow_open(r);
	/* no safe place for the FIFO (a squatted /tmp/tidemark-UID) costs
	 * the marks, not the recording */
	if (tm_mark_listen(&r->marks))
		tm_warn("this run takes no marks (see above)");
	return 0;
}

void tm_rec_close_all(struct rec *r)
{
	tm_rec_progsrc_close(r);
	tm_relay_release(&r->relay, 0); /* if not released already: it goes on alone */
	tm_rec_follow_close(r);
	tm_mark_unlisten(&r->marks);
	tm_progress_free(&r->re);
	tm_sampler_close(r->sampler);
	tm_heap_reader_free(r->heap);
	tm_allocators_free(r->allocs);
	/* removes it only when we made it, and never kills what is left in it */
	if (r->cg && r->own_cg && tm_cgroup_release(r->cg) == 1)
		tm_note("tidemark: processes of the command still run; their cgroup stays (%s)",
		        r->cg_path_copy);
	else if (r->cg && !r->own_cg)
		tm_cgroup_release(r->cg);
	r->cg = NULL;
	if (r->sigfd >= 0)
		close(r->sigfd);
	sigprocmask(SIG_SETMASK, &r->oldmask, NULL);
}

/* --push: the machine is the one the server files the run under, the
 * write token's name NAME (NULL: the server did not say), so that /metrics
 * and remote write name it as the server's /metrics does (docs/fleet.md,
 * "One machine, one name").  An explicit --machine that differs is an
 * error: the same run would be two machines in Prometheus. */
static int take_server_name(struct rec *r, const char *name)
{
	if (!name || !strcmp(name, r->machine))
		return 0;
	if (r->o->machine)
		return tm_error(
		    "--machine %s, but the server files this machine's runs as '%s' (its "
		    "token's name): give --machine %s, or leave --machine out",
		    r->o->machine, name, name);
	snprintf(r->machine, sizeof(r->machine), "%s", name);
	return tm_store_run_set_text(r->st, r->run_id, "machine", name);
}

/* --push: a token the server refuses is an error now (a first hello, the
 * one request the recording waits for, before the command starts); the
 * rest goes from a thread of its own, reading the store (record/pushthread.h). */
static int start_push(struct rec *r)
{
	const struct tm_record_opts *o = r->o;
	struct tm_pusher *hello;
	bool reached;
	int rc;

	if (!o->store_path)
		return tm_error("--push needs the store's path");
	if (r->net.pusher_new(o->push_url, o->token_file, r->st, r->run_id, &hello))
		return -1;
	reached = r->net.pusher_reached(hello);
	rc = take_server_name(r, r->net.pusher_machine(hello));
	r->net.pusher_free(hello);
	if (rc || tm_push_thread_start(o->push_url, o->token_file, o->store_path, TM_PUSH_RECORD,
	                               &r->pusher))
		return -1;
	tm_push_thread_reached(r->pusher, reached);
	tm_push_thread_add(r->pusher, r->run_id);
	return 0;
}

/* Pushing and /metrics, when asked for.  The run must exist in the store. */
int tm_rec_open_outputs(struct rec *r)
{
	const struct tm_record_opts *o = r->o;
	struct tm_run_info ri;
	const char *cg;
	int rc;

	if (!o->push_url && !o->metrics_listen && !o->metrics_socket && !o->prom_kept &&
	    !o->nscrape && !o->rw_url)
		return 0;
	if (tm_net_load(&r->net) || tm_rec_scrape_open(r))
		return -1;
	if (o->push_url && start_push(r))
		return -1;
	if (o->rw_url) {
		struct tm_rw_opts rwo = {
		    o->rw_url, o->rw_token_file, o->rw_basic_auth_file, tm_store_file_path(r->st),
		    r->run_id, o->interval_usec};
		/* the run's row must be in the file for the sender's connection */
		if (tm_store_commit(r->st) || r->net.rw_start(&rwo, &r->rw))
			return -1;
	}
	if (!o->metrics_listen && !o->metrics_socket && !o->prom_kept)
		return 0;
	/* the run as the server names it: its uuid, not the local id */
	if (tm_store_run_get(r->st, r->run_id, &ri) != 0)
		return tm_error("cannot read run %" PRId64 " back from the store", r->run_id);
	cg = r->cg ? tm_cgroup_path(r->cg) : NULL;
	if (o->prom_kept) {
		r->prom = o->prom_kept;
		rc = r->net.prom_set_run(r->prom, r->machine, ri.uuid, cg);
	} else {
		rc =
		    r->net.prom_start(o->metrics_listen, o->metrics_socket ? o->metrics_socket : -1,
		                      r->machine, ri.uuid, cg, &r->prom);
	}
	tm_run_info_release(&ri);
	return rc;
}

void tm_rec_close_outputs(struct rec *r)
{
	tm_rec_scrape_free(r);
	/* first: the run is over, its last values are no longer current; a
	 * --unit loop's /metrics stays, saying the run ended */
	if (r->prom && r->o->prom_kept)
		r->net.prom_end_run(r->prom);
	else if (r->prom)
		r->net.prom_stop(r->prom);
	r->prom = NULL;
	if (r->rw) {
		/* what the receiver did not take stays in the store, sent by the
		 * next recording to it */
		(void)r->net.rw_stop(r->rw, 10000000);
		r->rw = NULL;
	}
	/* the local store has everything, whatever the server got */
	tm_push_thread_finish(r->pusher, 10000000);
	r->pusher = NULL;
	tm_net_unload(&r->net);
}

/* A heap profile file is written: an event of the run (report lists them;
 * value: 0 periodic, 1 final, 2 at an OOM kill), with how its stacks were
 * unwound for the last ones; those are also said on stderr. */
static void heap_profile_written(void *ctx, pid_t pid, const char *path, int kind,
                                 const char *unwinder)
{
	struct rec *r = ctx;
	tm_rec_event(r, "heap_profile", pid, kind, path);
	if (!kind)
		return;
	tm_rec_event(r, "heap_unwinder", pid, 0, unwinder); /* report: "unwinder" */
	tm_note("tidemark: heap profile of pid %d%s: %s", (int)pid,
	        kind == 2 ? " at its OOM kill" : "", path);
}

/* A process of the run left without exiting: when the kernel's count of
 * OOM kills rose past those already profiled, it was one of them, and its
 * heap at the kill goes to PREFIX.PID.final.pb.gz with --heap-profile, else
 * to STORE-snaps/run-ID-oom-heap-PID.pb.gz (a directory of ours, 0700).
 * 1 with PATH, or 0. */
static int heap_killed(void *ctx, pid_t pid, char *path, size_t size)
{
	struct rec *r = ctx;
	int64_t now = tm_rec_read_vmstat_oom();
	int n;

	if (r->vmstat_oom_start < 0 || now <= r->vmstat_oom_start + r->oom_profiles ||
	    (!r->o->heap_profile && !r->o->store_path))
		return 0;
	r->oom_profiles++;
	if (r->o->heap_profile) {
		n = snprintf(path, size, "%s.%d.final.pb.gz", r->o->heap_profile, (int)pid);
	} else {
		n = snprintf(path, size, "%s-snaps", r->o->store_path);
		if (n > 0 && (size_t)n < size && mkdir(path, 0700) && errno != EEXIST) {
			tm_warn("no heap profile at the OOM kill of pid %d: cannot make '%s': %s",
			        (int)pid, path, strerror(errno));
			return 0;
		}
		n = snprintf(path, size, "%s-snaps/run-%lld-oom-heap-%d.pb.gz", r->o->store_path,
		             (long long)r->run_id, (int)pid);
	}
	return n > 0 && (size_t)n < size;
}

int tm_rec_heap_attach(struct rec *r)
{
	pid_t pid = r->o->pid ? r->o->pid : (pid_t)r->o->unit_main_pid;
	if (!r->o->heap || r->o->argv || pid <= 0)
		return 0;
	int64_t msec = r->o->interval_usec / 1000;
	struct tm_attach_opts a = {.recorder_pid = getpid(),
	                           .interval_msec = (uint32_t)(msec < 10       ? 10
	                                                       : msec > 600000 ? 600000
	                                                                       : msec)};
	struct tm_attach_result res;
	/* sites as a launched command's: TIDEMARK_HEAP_SAMPLE (512K), from now on */
	if (tm_heap_sample_kib(getenv("TIDEMARK_HEAP_SAMPLE"), &a.sample_kib) < 0 ||
	    tm_heap_attach(pid, &a, &res, stderr) < 0)
		return -1;
	r->heap_attached = pid;
	if (res.linked) {
		tm_note("tidemark: attached the heap agent to %d: its thread stopped %.1f ms; its "
		        "allocator (%s) is linked into its executable: its own statistics are read "
		        "at each sample",
		        (int)pid, (double)res.stopped_usec / 1000.0, res.family);
		return 0;
	}
	tm_note("tidemark: attached the heap agent to %d: its thread stopped %.1f ms; live heap "
	        "at attach %.1f MiB (the allocator's own figure); exact from now on%s",
	        (int)pid, (double)res.stopped_usec / 1000.0, (double)res.base_bytes / 1048576.0,
	        a.sample_kib ? ", sites too" : ", no sites (TIDEMARK_HEAP_SAMPLE=0)");
	return 0;
}

void tm_rec_heap_detach(struct rec *r)
{
	int64_t hooks = 0;
	if (r->heap_attached && tm_heap_detach(r->heap_attached, 5000, &hooks) == 0)
		tm_note("tidemark: detached the heap agent from %d (%lld entries put back)",
		        (int)r->heap_attached, (long long)hooks);
	r->heap_attached = 0;
}

int tm_rec_open_sampler(struct rec *r)
{
	struct tm_sampler_cfg cfg;

	tm_sampler_cfg_init(&cfg);
	cfg.root_pid = r->launched ? r->child.pid : r->o->pid;
	cfg.cgroup = r->cg;
	/* a daemon that forks and leaves: its processes in our cgroup are the
	 * target once the launched one has exited */
	cfg.cgroup_after_root = r->launched && r->own_cg;
	/* smaps_rollup walks every page table (~60 us a process): every 10 s,
	 * or every sample at longer intervals */
	cfg.smaps_every_usec = r->o->interval_usec > 10000000 ? r->o->interval_usec : 10000000;
	if (r->o->heap && !(r->heap = tm_heap_reader_new()))
		return tm_error("out of memory");
	if (r->heap) { /* with --heap, a profile at each OOM kill, without any rule */
		struct tm_heap_profiles p = {.prefix = r->o->heap_profile,
		                             .every_usec = r->o->heap_every_usec,
		                             .on_killed = heap_killed,
		                             .on_write = heap_profile_written,
		                             .ctx = r};
		tm_heap_reader_set_profiles(r->heap, &p);
	}
	return tm_sampler_open(&cfg, &r->sampler);
}
