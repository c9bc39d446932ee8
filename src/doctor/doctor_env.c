/*
 * tidemark doctor, the checks past the kernel's files (who may create
 * cgroups, the allocators bench arms preload, whether the heap shim loads),
 * the names, the JSON document and the other commands' notice.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <jansson.h>

#include "base/error.h"
#include "base/util.h"
#include "bench/bench.h"
#include "doctor/doctor_int.h"
#include "heap/heapshm.h"
#include "kern/procfs.h"
#include "base/banned.h"

static const struct {
	const char *name, *title;
} names[TM_DOC_COUNT] = {
    [TM_DOC_CGROUP_MODE] = {"cgroup_mode", "cgroup mode"},
    [TM_DOC_MEMORY_CONTROLLER] = {"memory_controller", "memory controller"},
    [TM_DOC_PSI] = {"psi", "pressure (PSI)"},
    [TM_DOC_SWAP] = {"swap", "swap"},
    [TM_DOC_SWAP_ACCOUNTING] = {"swap_accounting", "swap accounting"},
    [TM_DOC_KERNEL_FILES] = {"kernel_files", "kernel files"},
    [TM_DOC_CREATE_CGROUPS] = {"create_cgroups", "creating cgroups"},
    [TM_DOC_MEMORY_HIGH] = {"memory_high", "memory.high"},
    [TM_DOC_HEAP_SHIM] = {"heap_shim", "heap shim"},
    [TM_DOC_PTY] = {"pty", "pseudo-terminals"},
};

/* The allocators' checks, from the registry (base/allocators.h): "allocator_NAME",
 * "NAME arm" (glibc's and arena1's are not checks: they have no library). */
#define DOC_ALLOC_NAMES(id, name, ...) [TM_ALLOC_##id] = {"allocator_" name, name " arm"},
static const struct {
	const char *name, *title;
} alloc_names[TM_ALLOC_COUNT] = {TM_ALLOCATOR_LIST(DOC_ALLOC_NAMES)};
#undef DOC_ALLOC_NAMES

/* The allocator of check CHECK, or -1 when it is not an allocator's. */
static int check_alloc_of(enum tm_doc_check check)
{
	if (check < TM_DOC_ALLOC_FIRST || check > TM_DOC_ALLOC_LAST)
		return -1;
	return (int)check - TM_DOC_ALLOC_FIRST + TM_ALLOC_FIRST_LIB;
}

const char *tm_doc_check_name(enum tm_doc_check check)
{
	int a = check_alloc_of(check);
	if (a >= 0)
		return alloc_names[a].name;
	return check < TM_DOC_COUNT ? names[check].name : "?";
}

const char *tm_doc_check_title(enum tm_doc_check check)
{
	int a = check_alloc_of(check);
	if (a >= 0)
		return alloc_names[a].title;
	return check < TM_DOC_COUNT ? names[check].title : "?";
}

const char *tm_doc_status_name(enum tm_doc_status status)
{
	static const char *const s[] = {"ok", "note", "warn", "problem", "skipped"};
	return status <= TM_DOC_SKIPPED ? s[status] : "?";
}

/* ---- creating cgroups ---------------------------------------------------- */

/* Whether host directory DIR belongs to UID and is writable by its owner. */
static bool owned_by(const struct tm_doc_facts *f, const char *dir, uid_t uid)
{
	char full[PATH_MAX];
	struct stat st;
	return tm_doc_path(f, full, sizeof(full), dir) && stat(full, &st) == 0 &&
	       S_ISDIR(st.st_mode) && st.st_uid == uid && (st.st_mode & S_IWUSR);
}

/* The v2 cgroup of the checking process (proc/self/cgroup "0::/path") as
 * a host path into BUF; false when there is none. */
static bool own_v2_cgroup(const struct tm_doc_facts *f, char *buf, size_t size)
{
	char full[PATH_MAX], *text;
	size_t len;
	struct tm_proc_cgroup pc;
	bool ok = false;

	if (!f->cg.mounts.unified.found || !tm_doc_path(f, full, sizeof(full), "/proc/self/cgroup"))
		return false;
	if (!(text = tm_read_file(full, &len)))
		return false;
	if (tm_parse_proc_cgroup(text, len, &pc) == 0 && pc.has_unified)
		ok = tm_doc_put(buf, size, "%s%s", f->cg.mounts.unified.dir,
		                strcmp(pc.unified, "/") ? pc.unified : "");
	free(text);
	return ok;
}

static void check_create(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	const struct tm_cg_mount *m =
	    f->cg.mounts.memory.found ? &f->cg.mounts.memory : &f->cg.mounts.unified;
	char parent[PATH_MAX + 16], own[PATH_MAX];
	uid_t uid = f->host->uid;

	if (!m->found) {
		r->status = TM_DOC_SKIPPED;
		tm_doc_put(r->summary, sizeof(r->summary), "no cgroup hierarchy to create them in");
		return;
	}
	tm_doc_put(parent, sizeof(parent), "%s/%s", m->dir, f->cg.parent);
	if (uid == 0) {
		r->status = TM_DOC_OK;
		tm_doc_put(r->value, sizeof(r->value), "root");
		tm_doc_put(r->summary, sizeof(r->summary),
		           "root: record and bench create their cgroups under %s", parent);
		return;
	}
	if (owned_by(f, parent, uid)) {
		r->status = TM_DOC_OK;
		tm_doc_put(r->value, sizeof(r->value), "delegated");
		tm_doc_put(r->summary, sizeof(r->summary),
		           "user %u owns %s, where tidemark creates them", (unsigned)uid, parent);
		return;
	}
	bool delegated = own_v2_cgroup(f, own, sizeof(own)) && owned_by(f, own, uid);
	r->status = delegated ? TM_DOC_WARN : TM_DOC_PROBLEM;
	tm_doc_put(r->value, sizeof(r->value), delegated ? "delegated-elsewhere" : "no");
	tm_doc_put(r->summary, sizeof(r->summary),
	           "user %u is not root%s%s%s; record and bench create cgroups under %s, which "
	           "needs root",
	           (unsigned)uid,
	           delegated ? " (it may create cgroups in its delegated subtree " : "",
	           delegated ? own : "", delegated ? ")" : "", parent);
	tm_doc_put(r->fix, sizeof(r->fix),
	           "run tidemark as root (`sudo tidemark record ...`); without root, start the "
	           "program in a delegated scope of your own, limits included (`systemd-run --user "
	           "--scope -p Delegate=yes -p MemoryMax=512M PROGRAM`), and record it with "
	           "`tidemark record -p PID` or `--cgroup PATH`, which create no cgroup");
}

/* ---- allocators and the shim --------------------------------------------- */

static void check_alloc(const struct tm_doc_facts *f, enum tm_alloc a, struct tm_doc_result *r)
{
	/* another root (a Pi's SD card on a PC) may hold another machine's libraries */
	static const char *const other[] = {"/usr/lib/aarch64-linux-gnu",
	                                    "/usr/lib/arm-linux-gnueabihf",
	                                    "/usr/lib/x86_64-linux-gnu", NULL};
	const char *const *dirs = tm_bench_lib_dirs();
	char prefixed[16][PATH_MAX];
	const char *list[17];
	int n = 0;

	for (; n < 16 && dirs[n]; n++) {
		tm_doc_put(prefixed[n], sizeof(prefixed[n]), "%s%s", f->root, dirs[n]);
		list[n] = prefixed[n];
	}
	for (int k = 0; !f->host->live && other[k] && n < 16; k++, n++) {
		tm_doc_put(prefixed[n], sizeof(prefixed[n]), "%s%s", f->root, other[k]);
		list[n] = prefixed[n];
	}
	list[n] = NULL;
	char *path = tm_bench_alloc_find(a, list);
	if (path) {
		r->status = TM_DOC_OK;
		tm_doc_put(r->value, sizeof(r->value), "%s", path + strlen(f->root));
		tm_doc_put(r->summary, sizeof(r->summary), "installed: %s (bench --arm %s)",
		           r->value, tm_bench_alloc_name(a));
		free(path);
		return;
	}
	r->status = TM_DOC_NOTE;
	tm_doc_put(r->summary, sizeof(r->summary),
	           "not installed: a bench arm `%s` cannot run (looked in %s and the other library "
	           "directories)",
	           tm_bench_alloc_name(a), dirs[0]);
	tm_doc_put(r->fix, sizeof(r->fix), "apt-get install %s", tm_bench_alloc_package(a));
}

/* Runs this tidemark binary under the shim, asking it for its own heap
 * region (`tidemark heap stats PID`): a program of this machine, so the
 * answer holds for what bench and record start.  0 when the region was
 * there; MSG gets what the dynamic loader or the command said otherwise. */
static int shim_runs(const char *shim, char *msg, size_t size)
{
	char env[PATH_MAX + 16], pid_text[16];
	char *argv[] = {"tidemark", "heap", "stats", pid_text, NULL};
	char *const envp[] = {env, "PATH=/usr/bin:/bin", NULL};
	int pipefd[2], st = 0;
	pid_t pid;

	msg[0] = '\0';
	tm_doc_put(env, sizeof(env), "LD_PRELOAD=%s", shim);
	if (pipe2(pipefd, O_CLOEXEC))
		return tm_doc_put(msg, size, "pipe: %s", strerror(errno)), -1;
	if ((pid = fork()) < 0) {
		close(pipefd[0]), close(pipefd[1]);
		return tm_doc_put(msg, size, "fork: %s", strerror(errno)), -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(pipefd[1], 2);
		tm_doc_put(pid_text, sizeof(pid_text), "%d", (int)getpid());
		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	close(pipefd[1]);
	ssize_t got = read(pipefd[0], msg, size - 1);
	msg[got > 0 ? got : 0] = '\0';
	*strchrnul(msg, '\n') = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void check_shim(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	char shim[PATH_MAX], msg[512];

	if (!f->host->live) {
		r->status = TM_DOC_SKIPPED;
		tm_doc_put(r->summary, sizeof(r->summary),
		           "not checked: %s is not the running system", f->root);
		return;
	}
	if (tm_heap_shim_path(shim, sizeof(shim), 0) < 0) {
		r->status = TM_DOC_PROBLEM;
		tm_doc_put(
		    r->summary, sizeof(r->summary),
		    "libtidemark-heap.so not found next to tidemark: --heap and `tidemark heap "
		    "run` cannot start");
		tm_doc_put(r->fix, sizeof(r->fix),
		           "build it (`make`) and keep it next to the tidemark binary, or set "
		           "TIDEMARK_HEAP_LIB to its path");
		return;
	}
	tm_doc_put(r->value, sizeof(r->value), "%s", shim);
	if (shim_runs(shim, msg, sizeof(msg)) == 0) {
		r->status = TM_DOC_OK;
		tm_doc_put(r->summary, sizeof(r->summary), "loads: %s counted tidemark's own heap",
		           shim);
		return;
	}
	r->status = TM_DOC_PROBLEM;
	tm_doc_put(r->summary, sizeof(r->summary), "%s does not load into a program%s%s", shim,
	           msg[0] ? ": " : "", msg);
	tm_doc_put(r->fix, sizeof(r->fix),
	           "rebuild it for this machine (`make`; for aarch64 on another host `make cross "
	           "ARCH=aarch64`) and keep it next to the tidemark binary");
}

/* Whether a pseudo-terminal opens here: 0, or -1 with ERR. */
static int pty_opens(struct tm_err *err)
{
	char name[128];
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s = -1;

	if (m >= 0 && grantpt(m) == 0 && unlockpt(m) == 0 && ptsname_r(m, name, sizeof(name)) == 0)
		s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		tm_err_set(err, errno, "%s", strerror(errno));
	if (s >= 0)
		close(s);
	if (m >= 0)
		close(m);
	return s >= 0 ? 0 : -1;
}

/* record and bench --progress read the command's stdout through a
 * pseudo-terminal, so that stdio line-buffers it; a minimal container or an
 * initramfs may have none (no /dev/pts). */
static void check_pty(const struct tm_doc_facts *f, struct tm_doc_result *r)
{
	struct tm_err why = {0};
	struct stat st;
	char pts[PATH_MAX];

	if (!f->host->live) {
		r->status = TM_DOC_SKIPPED;
		tm_doc_put(r->summary, sizeof(r->summary),
		           "not checked: %s is not the running system", f->root);
		return;
	}
	if (pty_opens(&why) == 0) {
		r->status = TM_DOC_OK;
		tm_doc_put(r->value, sizeof(r->value), "yes");
		tm_doc_put(r->summary, sizeof(r->summary),
		           "a pseudo-terminal opens: --progress reads the command's stdout line by "
		           "line");
		return;
	}
	/* devpts always holds a ptmx node */
	bool devpts = tm_doc_path(f, pts, sizeof(pts), "/dev/pts/ptmx") && stat(pts, &st) == 0;
	r->status = TM_DOC_WARN;
	tm_doc_put(r->value, sizeof(r->value), "no");
	tm_doc_put(r->summary, sizeof(r->summary),
	           "no pseudo-terminal opens (%s%s): record and bench --progress read the "
	           "command's stdout through a pipe instead, as with --no-pty, where stdio "
	           "block-buffers it and progress may arrive in bunches",
	           why.msg, devpts ? "" : "; no devpts mounted at /dev/pts");
	tm_doc_put(
	    r->fix, sizeof(r->fix),
	    "mount devpts (`mount -t devpts devpts /dev/pts`), or pass --no-pty and make the "
	    "program flush each line (PYTHONUNBUFFERED=1, `stdbuf -oL`)");
}

void tm_doc_check_env(const struct tm_doc_facts *f, enum tm_doc_check check,
                      struct tm_doc_result *r)
{
	int a = check_alloc_of(check);
	if (a >= 0) {
		check_alloc(f, (enum tm_alloc)a, r);
		return;
	}
	switch (check) {
	case TM_DOC_CREATE_CGROUPS:
		check_create(f, r);
		break;
	case TM_DOC_HEAP_SHIM:
		check_shim(f, r);
		break;
	case TM_DOC_PTY:
		check_pty(f, r);
		break;
	default:
		r->status = TM_DOC_SKIPPED;
		tm_doc_put(r->summary, sizeof(r->summary), "unknown check");
		break;
	}
}

/* ---- running them ---------------------------------------------------------- */

static void run_one(const struct tm_doc_facts *f, enum tm_doc_check check, struct tm_doc_result *r)
{
	memset(r, 0, sizeof(*r));
	r->check = check;
	tm_doc_check_files(f, check, r);
}

void tm_doctor_check(const struct tm_doc_host *host, enum tm_doc_check check,
                     struct tm_doc_result *out)
{
	struct tm_doc_facts *f = malloc(sizeof(*f));
	if (!f) {
		memset(out, 0, sizeof(*out));
		out->check = check;
		out->status = TM_DOC_SKIPPED;
		tm_doc_put(out->summary, sizeof(out->summary), "out of memory");
		return;
	}
	tm_doc_facts_read(host, f);
	run_one(f, check, out);
	free(f);
}

int tm_doctor_run(const struct tm_doc_host *host, struct tm_doc_result out[TM_DOC_COUNT])
{
	struct tm_doc_facts *f = malloc(sizeof(*f));
	int problems = 0;

	if (!f) {
		for (int i = 0; i < TM_DOC_COUNT; i++) {
			memset(&out[i], 0, sizeof(out[i]));
			out[i].check = (enum tm_doc_check)i;
			out[i].status = TM_DOC_SKIPPED;
			tm_doc_put(out[i].summary, sizeof(out[i].summary), "out of memory");
		}
		return 0;
	}
	tm_doc_facts_read(host, f);
	tm_doc_probe_own(f);
	for (int i = 0; i < TM_DOC_COUNT; i++) {
		run_one(f, (enum tm_doc_check)i, &out[i]);
		problems += out[i].status == TM_DOC_PROBLEM;
	}
	tm_doc_probe_release(f);
	free(f);
	return problems;
}

int tm_doctor_notice(const char *root, FILE *out)
{
	struct tm_doc_host host = {.root = root, .live = false, .uid = 0};
	struct tm_doc_result mem, psi;
	char what[256] = "";

	tm_doctor_check(&host, TM_DOC_MEMORY_CONTROLLER, &mem);
	tm_doctor_check(&host, TM_DOC_PSI, &psi);
	if (mem.status == TM_DOC_PROBLEM)
		tm_doc_put(what, sizeof(what),
		           "the memory controller is off (no limits, no cgroup memory figures)");
	if (psi.status == TM_DOC_PROBLEM) {
		size_t n = strlen(what);
		tm_doc_put(what + n, sizeof(what) - n,
		           "%sPSI is off (pressure figures will be n/a)", n ? " and " : "");
	}
	if (!what[0])
		return 0;
	fprintf(out, "tidemark: on this host %s; `tidemark doctor` says how to fix it\n", what);
	return (mem.status == TM_DOC_PROBLEM) + (psi.status == TM_DOC_PROBLEM);
}

/* A value as JSON: digits as a number (bytes), "" as null, else a string. */
static json_t *json_value(const char *v)
{
	if (!v[0])
		return json_null();
	if (strspn(v, "0123456789") == strlen(v) && strlen(v) < 19)
		return json_integer(strtoll(v, NULL, 10));
	return json_string(v);
}

char *tm_doctor_json(const char *root, const struct tm_doc_result *res, int n)
{
	json_t *doc = json_object(), *checks = json_array();
	int problems = 0;
	char *text = NULL;

	if (!doc || !checks)
		goto out;
	for (int i = 0; i < n; i++) {
		const struct tm_doc_result *r = &res[i];
		json_t *o = json_pack(
		    "{s:s, s:s, s:s, s:o, s:o}", "name", tm_doc_check_name(r->check), "status",
		    tm_doc_status_name(r->status), "summary", r->summary, "fix",
		    r->fix[0] ? json_string(r->fix) : json_null(), "value", json_value(r->value));
		if (!o || json_array_append_new(checks, o))
			goto out;
		problems += r->status == TM_DOC_PROBLEM;
	}
	if (json_object_set_new(doc, "root", json_string(root)) ||
	    json_object_set_new(doc, "problems", json_integer(problems)) ||
	    json_object_set(doc, "checks", checks))
		goto out;
	text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
out:
	json_decref(checks);
	json_decref(doc);
	return text;
}
