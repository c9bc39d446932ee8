/*
 * `tidemark heap attach PID` and `heap detach PID` (attach.h; docs/heap.md
 * "attach").  The steps, each undone when a later one fails, so that a
 * failed attach leaves the process as it was:
 *   1 seize    PTRACE_SEIZE of one thread, the main one first (the others
 *              never stop)
 *   2 stop     PTRACE_INTERRUPT until one stops at a safe place: in its
 *              own code, or waiting in a syscall (attach_arch.h), never
 *              inside libc, the loader or an allocator, which may hold a
 *              lock dlopen needs (up to STOP_TRIES stops, the threads in
 *              turn)
 *   3 save     its registers (the vector ones too) and the stack bytes
 *              below its red zone
 *   4 write    the agent's path and arguments there
 *   5 dlopen   dlopen(agent, RTLD_NOW | RTLD_LOCAL), dlopen found in the
 *              target's own libc (its maps and that file's symbols)
 *   6 find     tmh_attach_start in the agent as mapped
 *   7 start    tmh_attach_start(args): the agent's hook (shim/attach.c)
 * then, always: dlclose of the agent when 6 or 7 failed, the stack bytes
 * and registers put back, PTRACE_DETACH.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "base/error.h"
#include "base/util.h"
#include "heap/attach.h"
#include "heap/attach_ptrace.h"
#include "heap/heapregion.h"
#include "sample/exesyms.h"
#include "tidemark-heap.h"
#include "base/banned.h"

#define STOP_TRIES     500
#define STOP_MSEC      1000
#define CALL_MSEC      5000
#define ZERO_BELOW     64 /* zeroed bytes under the data: the return slot */
#define MAX_PATH_BYTES 1024

static const char *const step_names[TM_ATTACH_STEPS + 1] = {"",      "seize",  "stop", "save",
                                                            "write", "dlopen", "find", "start"};

const char *tm_attach_step_name(int step)
{
	return step >= 1 && step <= TM_ATTACH_STEPS ? step_names[step] : "?";
}

/* What the steps found and did: undone by finish(). */
struct job {
	pid_t pid;
	int fail_at; /* a step to fail on purpose (tm_attach_opts) */
	const struct tm_attach_arch *arch;
	char agent[4096]; /* PATH_MAX, for realpath; used up to MAX_PATH_BYTES */
	uint64_t dlopen_fn, dlclose_fn, start_value, start_vaddr;
	char libc[4096];
	struct tm_tracee t;
	int seized, saved, written;
	int64_t stopped_nsec; /* of the threads let go before the one used */
	struct tm_regs regs;
	struct tm_fpstate fp; /* its floating-point and vector registers */
	uint64_t lo, hi;      /* the stack window written */
	unsigned char old[MAX_PATH_BYTES + 256];
	uint64_t handle;      /* the agent's, from dlopen; 0: not loaded */
	uint64_t loaded_base; /* the agent's load address when an earlier attach loaded it */
	int started;
	enum tm_exe_malloc exe_malloc; /* an allocator linked into the executable? */
	char family[16];               /* its family ("jemalloc"), "" when none is recognised */
};

/* An allocator is linked into the executable (alone or beside glibc's):
 * its code is the program's own, so a stop there may hold its lock. */
static int linked_allocator(const struct job *j)
{
	return j->exe_malloc == TM_EXE_MALLOC_LINKED || j->exe_malloc == TM_EXE_MALLOC_BESIDE;
}

/* Whether step N is to fail on purpose (the test build's hook). */
static int fail_here(const struct job *j, int n)
{
	if (j->fail_at != n)
		return 0;
	return tm_error(
	    "step %d (%s) failed on purpose (the test build's TIDEMARK_ATTACH_FAIL_AT=%d)", n,
	    tm_attach_step_name(n), n);
}

static int is_libc(const char *path, const void *arg)
{
	(void)arg;
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-2.", 7);
}

static int is_libdl(const char *path, const void *arg)
{
	(void)arg;
	const char *b = strrchr(path, '/');
	return !strncmp(b ? b + 1 : path, "libdl", 5);
}

static int is_path(const char *path, const void *arg)
{
	return !strcmp(path, (const char *)arg);
}

/* Objects whose code may hold a lock dlopen or malloc takes. */
static int locked_object(const char *path)
{
	static const char *const names[] = {
	    "libc.so",    "libc-",       "ld-linux",    "ld-2.",       "libdl",
	    "libpthread", "libjemalloc", "libtcmalloc", "libmimalloc", "libtidemark-heap"};
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(b, names[i], strlen(names[i])))
			return 1;
	return 0;
}

/* dlopen and dlclose in PID: libc's (glibc >= 2.34), else libdl's, else
 * glibc's private __libc_dlopen_mode. */
static int find_dl(struct job *j, const char *maps)
{
	char path[4096];
	if (tm_attach_symbol(j->pid, maps, is_libc, NULL, "dlopen", &j->dlopen_fn, j->libc,
	                     sizeof(j->libc)) == 0) {
		tm_attach_symbol(j->pid, maps, is_libc, NULL, "dlclose", &j->dlclose_fn, path,
		                 sizeof(path));
		return 0;
	}
	if (tm_attach_symbol(j->pid, maps, is_libdl, NULL, "dlopen", &j->dlopen_fn, j->libc,
	                     sizeof(j->libc)) == 0) {
		tm_attach_symbol(j->pid, maps, is_libdl, NULL, "dlclose", &j->dlclose_fn, path,
		                 sizeof(path));
		return 0;
	}
	if (tm_attach_symbol(j->pid, maps, is_libc, NULL, "__libc_dlopen_mode", &j->dlopen_fn,
	                     j->libc, sizeof(j->libc)) == 0) {
		tm_attach_symbol(j->pid, maps, is_libc, NULL, "__libc_dlclose", &j->dlclose_fn,
		                 path, sizeof(path));
		return 0;
	}
	return tm_error("cannot attach to %d: no dlopen in its libc or libdl (a static binary, "
	                "or no glibc): the agent cannot be loaded",
	                (int)j->pid);
}

/* The agent: the same file seen from PID's root (a container sees its own). */
static int check_agent(struct job *j, const char *given)
{
	char found[4096];
	if (!given) {
		if (tm_lib_path("libtidemark-heap-attach.so", "TIDEMARK_HEAP_ATTACH_LIB", found,
		                sizeof(found)) < 0)
			return -1;
		given = found;
	}
	if (!realpath(given, j->agent) || strlen(j->agent) >= MAX_PATH_BYTES - 1)
		return tm_error("cannot find the agent '%s'", given);
	struct stat ours, theirs;
	int fd = tm_attach_open_in(j->pid, j->agent);
	int ok = fd >= 0 && fstat(fd, &theirs) == 0 && stat(j->agent, &ours) == 0 &&
	         ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
	if (fd >= 0)
		close(fd);
	if (!ok)
		return tm_error("cannot attach to %d: the agent %s is not in its file system (it "
		                "runs in a container?); mount it there and pass it with "
		                "TIDEMARK_HEAP_ATTACH_LIB",
		                (int)j->pid, j->agent);
	fd = open(j->agent, O_RDONLY | O_CLOEXEC);
	ok = fd >= 0 &&
	     tm_attach_elf_symbol(fd, "tmh_attach_start", &j->start_value, &j->start_vaddr) == 0;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : tm_error("the agent %s has no tmh_attach_start", j->agent);
}

/* Which allocator PID's executable has linked into it (J->exe_malloc,
 * J->family): refused when it defines malloc and names no allocator whose
 * statistics the agent could read (stripped, or unknown to tidemark). */
static int check_exe_malloc(struct job *j)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)j->pid);
	j->exe_malloc = tm_exe_malloc_of(path, j->family, sizeof(j->family));
	if (j->exe_malloc == TM_EXE_MALLOC_LINKED && !j->family[0])
		return tm_error("cannot attach to %d: malloc is defined in its executable (an "
		                "allocator linked in) and its symbols name none whose statistics "
		                "tidemark can read (stripped of its symbol table, or an allocator "
		                "tidemark does not know): its live heap cannot be known",
		                (int)j->pid);
	return 0;
}

/* Everything attach needs to know before it stops anything. */
static int prepare(struct job *j, const struct tm_attach_opts *o)
{
	struct tm_attach_facts f;
	if (tm_attach_facts_read(j->pid, &f) < 0)
		return -1;
	const char *why = tm_attach_refusal(&f);
	if (why)
		return tm_error("cannot attach to %d: %s", (int)j->pid, why);
	if (check_exe_malloc(j) < 0)
		return -1;
	j->arch = tm_attach_arch_native();
	if (!j->arch)
		return tm_error("attach is not built for this machine");
	if (check_agent(j, o->agent_path) < 0)
		return -1;
	size_t len;
	char *maps = tm_attach_maps_read(j->pid, &len);
	if (!maps)
		return -1;
	char path[4096];
	uint64_t base;
	/* loaded by an earlier attach (the agent is never unloaded once it
	 * counted): started again, without a dlopen */
	if (tm_attach_maps_base(maps, is_path, j->agent, &base, path, sizeof(path)) == 0)
		j->loaded_base = base;
	int rc = j->loaded_base ? 0 : find_dl(j, maps);
	free(maps);
	return rc;
}

/* Whether the stopped thread is at a safe place; MAPS (read before the
 * stop, so that the stop is short) is read again for a PC it lacks. */
static int safe_place(struct job *j, char **maps)
{
	char where[4096];
	int64_t nr = j->arch->syscall_nr(&j->regs);
	if (nr >= 0)
		return j->arch->waiting_syscall(nr);
	if (linked_allocator(j))
		return 0; /* its own code holds the allocator's: only a wait is safe */
	uint64_t pc = j->arch->pc(&j->regs);
	size_t len;
	if (!*maps || tm_attach_maps_object(*maps, pc, where, sizeof(where)) < 0) {
		free(*maps);
		*maps = tm_attach_maps_read(j->pid, &len);
		if (!*maps || tm_attach_maps_object(*maps, pc, where, sizeof(where)) < 0)
			return 1; /* anonymous code (a JIT's): the program's own */
	}
	return !locked_object(where);
}

/* Up to N of PID's threads, the main one first: their number. */
static int list_threads(pid_t pid, pid_t *tids, int n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	struct dirent *e;
	int k = 1;
	tids[0] = pid;
	while (d && k < n && (e = readdir(d))) {
		int64_t tid;
		if (tm_parse_int64(e->d_name, &tid) == 0 && tid != pid && tid > 0)
			tids[k++] = (pid_t)tid;
	}
	if (d)
		closedir(d);
	return k;
}

/* Steps 1 and 2: a thread seized and stopped at a safe place, within
 * STOP_TRIES stops, taking PID's threads in turn (a main thread that only
 * waits in pthread_join is in a futex: another thread is taken). */
static int stop_safe(struct job *j, int *tries)
{
	size_t len;
	pid_t tids[64];
	int n = list_threads(j->pid, tids, 64), rc = -1;
	char *maps = tm_attach_maps_read(j->pid, &len);
	for (*tries = 1; *tries <= STOP_TRIES && rc < 0; ++*tries) {
		pid_t tid = tids[(*tries - 1) % n];
		if (tm_tracee_seize(&j->t, tid, j->arch) < 0) {
			if (tid == j->pid)
				break;
			continue; /* a thread that ended meanwhile */
		}
		j->seized = 1;
		if (fail_here(j, 1) || tm_tracee_stop(&j->t, STOP_MSEC) < 0 ||
		    j->arch->get(tid, &j->regs) < 0 || fail_here(j, 2))
			break;
		if (safe_place(j, &maps)) {
			rc = 0;
			break;
		}
		j->seized = 0;
		tm_tracee_release(&j->t);
		j->stopped_nsec += j->t.stopped_nsec;
		usleep(200 + (unsigned)(*tries % 7) * 150);
	}
	free(maps);
	if (rc == 0 || *tries <= STOP_TRIES)
		return rc;
	if (linked_allocator(j))
		return tm_error(
		    "cannot attach to %d: none of its threads was waiting in a syscall "
		    "in %d stops (its allocator, %s, is linked into its executable, so "
		    "a stop in its own code may be inside the allocator, holding a lock "
		    "dlopen needs)",
		    (int)j->pid, STOP_TRIES, j->family);
	return tm_error("cannot attach to %d: its threads stayed inside libc, the loader or "
	                "the allocator (%d stops), where a lock dlopen needs may be held",
	                (int)j->pid, STOP_TRIES);
}

/* Steps 3 and 4: the data window below the red zone, saved and written:
 * [zeros][struct tmh_attach_args][agent path]. */
static int write_data(struct job *j, const struct tm_attach_opts *o, uint64_t *args_at,
                      uint64_t *path_at, uint64_t *stack)
{
	size_t plen = strlen(j->agent) + 1;
	uint64_t hi = j->arch->sp(&j->regs) - j->arch->red_zone_bytes;
	uint64_t data = (hi - sizeof(struct tmh_attach_args) - plen) & ~(uint64_t)15;
	j->lo = data - ZERO_BELOW;
	j->hi = hi;
	if (fail_here(j, 3) || tm_tracee_fp_save(&j->t, &j->fp) < 0 ||
	    tm_tracee_read(&j->t, j->lo, j->old, j->hi - j->lo) < 0)
		return -1;
	j->saved = 1;
	unsigned char buf[sizeof(j->old)] = {0};
	struct tmh_attach_args a = {.size = sizeof(a),
	                            .recorder_pid = o->recorder_pid,
	                            .interval_msec = o->interval_msec,
	                            .sample_kib = o->sample_kib};
	memcpy(buf + ZERO_BELOW, &a, sizeof(a));
	memcpy(buf + ZERO_BELOW + sizeof(a), j->agent, plen);
	if (fail_here(j, 4) || tm_tracee_write(&j->t, j->lo, buf, j->hi - j->lo) < 0)
		return -1;
	j->written = 1;
	*args_at = data;
	*path_at = data + sizeof(a);
	*stack = data - ZERO_BELOW / 2;
	return 0;
}

static const char *start_why(int rc)
{
	switch (rc) {
	case TMH_ATTACH_ALREADY:
		return "the agent is attached already";
	case TMH_ATTACH_NO_MALLOC:
		return "the agent found no malloc in it";
	case TMH_ATTACH_NO_THREAD:
		return "the agent's thread could not start";
	case TMH_ATTACH_NO_HOOK:
		return "no relocation entry of malloc & co. (malloc linked in?)";
	case TMH_ATTACH_NO_BASE:
		return "its allocator does not say how much is in use";
	case TMH_ATTACH_NO_WATCH:
		return "the recorder is not visible from it (a pid namespace)";
	case TMH_ATTACH_NO_STATS:
		return "its allocator is linked into its executable and the agent found none of "
		       "its statistics entry points there (stripped?)";
	default:
		return "the agent refused its arguments";
	}
}

static int start_agent(struct job *j, uint64_t bias, uint64_t args_at, uint64_t stack);

/* Steps 5 to 7, from a stopped thread whose data is written. */
static int load_and_start(struct job *j, uint64_t args_at, uint64_t path_at, uint64_t stack)
{
	uint64_t ret, dl_args[2] = {path_at, 2 /* RTLD_NOW */};
	if (j->loaded_base)
		return start_agent(j, j->loaded_base - j->start_vaddr, args_at, stack);
	if (fail_here(j, 5) ||
	    tm_tracee_call(&j->t, &j->regs, j->dlopen_fn, dl_args, 2, stack, CALL_MSEC, &ret) < 0)
		return -1;
	if (!ret)
		return tm_error("cannot attach to %d: dlopen of %s failed there (no static TLS "
		                "left, or a library it needs is missing)",
		                (int)j->pid, j->agent);
	j->handle = ret;
	/* the handle is the agent's struct link_map, whose first word (l_addr,
	 * <link.h>) is its load bias: no reading of maps while stopped */
	uint64_t bias = 0;
	if (fail_here(j, 6) || tm_tracee_read(&j->t, j->handle, &bias, sizeof(bias)) < 0)
		return -1;
	return start_agent(j, bias, args_at, stack);
}

/* Step 7: tmh_attach_start(ARGS_AT) in the agent loaded at BIAS. */
static int start_agent(struct job *j, uint64_t bias, uint64_t args_at, uint64_t stack)
{
	uint64_t ret, start = bias + j->start_value;
	if (fail_here(j, 7) ||
	    tm_tracee_call(&j->t, &j->regs, start, &args_at, 1, stack, CALL_MSEC, &ret) < 0)
		return -1;
	int rc = (int)(int32_t)ret;
	if (rc != TMH_ATTACH_OK)
		return tm_error("cannot attach to %d: %s", (int)j->pid, start_why(rc));
	j->started = 1;
	return 0;
}

/* Undoes what the steps did, in reverse; the thread runs on as before. */
static void finish(struct job *j)
{
	uint64_t ret;
	if (j->handle && !j->started && j->dlclose_fn)
		tm_tracee_call(&j->t, &j->regs, j->dlclose_fn, &j->handle, 1,
		               (j->lo + ZERO_BELOW / 2) & ~(uint64_t)15, CALL_MSEC, &ret);
	if (j->written)
		tm_tracee_write(&j->t, j->lo, j->old, j->hi - j->lo);
	if (j->saved) {
		j->arch->set(j->t.tid, &j->regs);
		tm_tracee_fp_restore(&j->t, &j->fp);
	}
	if (j->seized)
		tm_tracee_release(&j->t);
}

static void dry_run(const struct job *j, FILE *out)
{
	char what[256];
	if (j->exe_malloc == TM_EXE_MALLOC_LINKED)
		snprintf(what, sizeof(what),
		         "read %s's own statistics (linked into its executable) at each sample; "
		         "no relocation entry rewritten",
		         j->family);
	else
		snprintf(what, sizeof(what),
		         "count malloc & co. from now on through every loaded object's relocation "
		         "entries, from the allocator's own in-use figure%s%s%s",
		         j->exe_malloc == TM_EXE_MALLOC_BESIDE ? ", plus " : "",
		         j->exe_malloc == TM_EXE_MALLOC_BESIDE ? j->family : "",
		         j->exe_malloc == TM_EXE_MALLOC_BESIDE ? "'s own statistics (linked in)"
		                                               : "");
	fprintf(out,
	        "would attach to %d (checks passed: no tracer, no seccomp filter, %s, no fork "
	        "under way):\n"
	        "  stop its main thread (PTRACE_SEIZE + PTRACE_INTERRUPT) where it holds no "
	        "lock of libc's, the loader's or the allocator's%s\n"
	        "  make it call dlopen at %#llx (in %s) with %s (loaded already: %s)\n"
	        "  then tmh_attach_start: %s\n"
	        "  restore its registers and stack, and let it go\n",
	        (int)j->pid, j->arch->name,
	        linked_allocator(j) ? " (a thread waiting in a syscall: its allocator is in its "
	                              "executable)"
	                            : "",
	        (unsigned long long)j->dlopen_fn, j->loaded_base ? "-" : j->libc, j->agent,
	        j->loaded_base ? "yes, no dlopen" : "no", what);
}

/* The agent's mappings in PID, in bytes. */
static uint64_t agent_bytes(pid_t pid, const char *agent);
static int attach_job(struct job *jp, const struct tm_attach_opts *o, struct tm_attach_result *res);

int tm_heap_attach(pid_t pid, const struct tm_attach_opts *o, struct tm_attach_result *res,
                   FILE *out)
{
	struct job *jp = calloc(1, sizeof(*jp));
	memset(res, 0, sizeof(*res));
	if (!jp)
		return tm_error("out of memory");
	jp->pid = pid;
	jp->fail_at = o->fail_at >= 1 && o->fail_at <= TM_ATTACH_STEPS ? o->fail_at : 0;
	int rc = prepare(jp, o);
	if (rc == 0 && o->dry_run)
		dry_run(jp, out);
	if (rc == 0 && !o->dry_run)
		rc = attach_job(jp, o, res);
	free(jp);
	return rc;
}

static int attach_job(struct job *jp, const struct tm_attach_opts *o, struct tm_attach_result *res)
{
	struct job j = *jp;
	pid_t pid = j.pid;
	sigset_t block, old;
	sigemptyset(&block);
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP && s != SIGSEGV && s != SIGBUS && s != SIGCHLD)
			sigaddset(&block, s);
	sigprocmask(SIG_BLOCK, &block, &old); /* no half-done attach on ^C */
	uint64_t args_at = 0, path_at = 0, stack = 0;
	int rc = stop_safe(&j, &res->tries);
	if (rc == 0)
		rc = write_data(&j, o, &args_at, &path_at, &stack);
	if (rc == 0)
		rc = load_and_start(&j, args_at, path_at, stack);
	finish(&j);
	sigprocmask(SIG_SETMASK, &old, NULL);
	res->stopped_usec = (j.stopped_nsec + j.t.stopped_nsec) / 1000;
	if (rc < 0)
		return -1;
	const struct tmh_region *r = tm_heap_region_map(pid);
	if (r) {
		res->hooks = r->attach_hooks;
		res->objects = r->attach_objects;
		res->base_bytes = r->attach_base_bytes;
		res->linked = r->malloc_in_exe == 1;
		res->region_bytes = sizeof(*r);
		tm_heap_region_unmap(r);
	}
	res->agent_bytes = agent_bytes(pid, j.agent);
	snprintf(res->family, sizeof(res->family), "%s", j.family);
	return 0;
}

static uint64_t agent_bytes(pid_t pid, const char *agent)
{
	(void)pid;
	int fd = open(agent, O_RDONLY | O_CLOEXEC);
	uint64_t n = fd >= 0 ? tm_attach_elf_load_bytes(fd) : 0;
	if (fd >= 0)
		close(fd);
	return n;
}

int tm_heap_detach(pid_t pid, uint32_t timeout_msec, int64_t *hooks)
{
	int writable = 0;
	const struct tmh_region *r = tm_heap_region_map_rw(pid, &writable);
	if (!r)
		return tm_error("no heap region of %d: not attached", (int)pid);
	uint32_t n = __atomic_load_n(&r->attach_count, __ATOMIC_ACQUIRE);
	uint32_t state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
	int rc = 0;
	if (!writable || n == 0 || state != TMH_RUNNING) {
		rc = tm_error("%d is not attached (%s)", (int)pid,
		              !writable ? "its region is not ours to write"
		              : n == 0 ? "it runs with the preloaded shim, which cannot be detached"
		                       : "detached already, or exited");
	} else {
		__atomic_store_n((uint32_t *)&r->detach_req, n, __ATOMIC_RELEASE);
		syscall(SYS_futex, (uint32_t *)&r->stats_req, FUTEX_WAKE, 1, NULL, NULL, 0);
		for (uint32_t waited = 0;
		     __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == TMH_RUNNING; waited += 5) {
			if (waited >= timeout_msec) {
				rc = tm_error("%d's agent did not let go within %u ms", (int)pid,
				              timeout_msec);
				break;
			}
			usleep(5000);
		}
		*hooks = r->attach_hooks;
	}
	tm_heap_region_unmap(r);
	return rc;
}
