/* A cgroup's life: create (with limits), open (a path, a process's), attach,
 * destroy; the helpers v1.c and v2.c share.  What differs between the
 * versions is behind cg->ops (internal.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "cgroup/cgroup.h"
#include "cgroup/internal.h"
#include "base/banned.h"

/* --- small helpers ------------------------------------------------------ */

int tm_cg_join(char *out, size_t size, const char *a, const char *b)
{
	int n = snprintf(out, size, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= size)
		return tm_error("path too long: '%s/%s'", a, b);
	return 0;
}

bool tm_cg_exists_in(const char *dir, const char *file)
{
	char path[PATH_MAX];
	return !tm_cg_join(path, sizeof(path), dir, file) && access(path, F_OK) == 0;
}

bool tm_cg_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)ms * 1000000};
	nanosleep(&ts, NULL);
}

void tm_cg_json_add(struct tm_cgroup *cg, const char *fmt, ...)
{
	va_list ap;
	size_t room = sizeof(cg->limits) - cg->limits_len;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cg->limits + cg->limits_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		cg->limits_len += (size_t)n < room ? (size_t)n : room - 1;
}

struct tm_cgroup *tm_cg_new(const struct cg_ops *ops)
{
	struct tm_cgroup *cg = calloc(1, sizeof(*cg));

	if (!cg) {
		tm_error("out of memory");
		return NULL;
	}
	cg->ops = ops;
	cg->procs_fd = -1;
	for (int i = 0; i < F_COUNT; i++)
		cg->fd[i] = -1;
	cg->clk_tck = sysconf(_SC_CLK_TCK);
	if (cg->clk_tck <= 0)
		cg->clk_tck = 100;
	return cg;
}

/* --- opening existing cgroups ------------------------------------------ */

int tm_cg_map_path(const struct tm_cg_mount *m, const char *rel, char *out, size_t size)
{
	size_t rl = strlen(m->root);
	int n;

	if (!m->found)
		return -1;
	if (strcmp(m->root, "/")) {
		if (strncmp(rel, m->root, rl) || (rel[rl] && rel[rl] != '/'))
			return -1;
		rel += rl;
	}
	n = snprintf(out, size, "%s%s", m->dir, rel);
	if (n < 0 || (size_t)n >= size)
		return -1;
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	return 0;
}

static int finish_open(struct tm_cgroup *cg, struct tm_cgroup **out)
{
	tm_cg_open_files(cg);
	tm_cg_json_add(cg, "{}");
	*out = cg;
	return 0;
}

int tm_cgroup_open_path(const struct tm_cg_host *host, const char *path, struct tm_cgroup **out)
{
	char real[PATH_MAX];
	const struct cg_ops *ops;
	struct tm_cgroup *cg;

	if (!realpath(path, real) || !tm_cg_is_dir(real))
		return tm_error("cannot open cgroup '%s': %s", path,
		                errno ? strerror(errno) : "not a directory");
	if (tm_cg_exists_in(real, "memory.limit_in_bytes"))
		ops = &tm_cg_v1_ops;
	else if (tm_cg_exists_in(real, "memory.max") || tm_cg_exists_in(real, "cgroup.controllers"))
		ops = &tm_cg_v2_ops;
	else
		return tm_error("'%s' is not a memory cgroup (no memory.limit_in_bytes, "
		                "memory.max or cgroup.controllers)",
		                path);
	cg = tm_cg_new(ops);
	if (!cg)
		return -1;
	snprintf(cg->dir[DIR_MEM], sizeof(cg->dir[DIR_MEM]), "%s", real);
	ops->open_dirs(cg, host);
	return finish_open(cg, out);
}

int tm_cgroup_of_pid(const struct tm_cg_host *host, const char *proc_root, pid_t pid,
                     struct tm_cgroup **out)
{
	char path[PATH_MAX];
	struct tm_proc_cgroup *pc = malloc(sizeof(*pc));
	struct tm_cgroup *cg = NULL;
	size_t len;
	char *text;
	int rc = -1;

	snprintf(path, sizeof(path), "%s/%d/cgroup", proc_root, (int)pid);
	text = tm_read_file(path, &len);
	if (!pc || !text) {
		tm_error("cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (tm_parse_proc_cgroup(text, len, pc)) {
		tm_error("cannot parse '%s'", path);
		goto out;
	}
	cg = tm_cg_new(tm_cg_ops_of(host->mode));
	if (!cg || cg->ops->pid_dirs(cg, host, pc, pid))
		goto out;
	if (!tm_cg_is_dir(cg->dir[DIR_MEM])) {
		tm_error("cgroup '%s' of process %d is not there", cg->dir[DIR_MEM], (int)pid);
		goto out;
	}
	rc = finish_open(cg, out);
	cg = NULL;
out:
	free(cg);
	free(text);
	free(pc);
	return rc;
}

/* True when process P is ROOT or descends from it (PROC_ROOT/N/stat's ppid
 * chain; a process that has gone counts as not). */
static bool descends(const char *proc_root, pid_t p, pid_t root)
{
	char path[PATH_MAX], buf[1024];
	struct tm_proc_stat st;

	for (int depth = 0; depth < 256 && p > 1; depth++) {
		ssize_t n;
		if (p == root)
			return true;
		snprintf(path, sizeof(path), "%s/%d/stat", proc_root, (int)p);
		n = tm_read_at(AT_FDCWD, path, buf, sizeof(buf));
		if (n <= 0 || tm_parse_proc_stat(buf, (size_t)n, 100, &st))
			return false;
		p = st.ppid;
	}
	return p == root;
}

int tm_cgroup_of_pid_tree(const struct tm_cg_host *host, const char *proc_root, pid_t pid,
                          struct tm_cgroup **out, struct tm_err *why)
{
	struct tm_cgroup *cg;
	pid_t *pids = NULL;
	size_t n = 0, i;

	*out = NULL;
	if (tm_cgroup_of_pid(host, proc_root, pid, &cg))
		return -1;
	if (tm_cgroup_pids(cg, &pids, &n)) {
		tm_cgroup_destroy(cg);
		return -1;
	}
	for (i = 0; i < n && descends(proc_root, pids[i], pid); i++)
		;
	if (i < n) {
		tm_err_set(why, 0,
		           "process %d is in cgroup '%s' with process %d, not one of "
		           "its descendants",
		           (int)pid, tm_cgroup_path(cg), (int)pids[i]);
		free(pids);
		tm_cgroup_destroy(cg);
		return 1;
	}
	free(pids);
	*out = cg;
	return 0;
}

/* --- creating ------------------------------------------------------------ */

static bool valid_name(const char *name)
{
	if (!name[0] || strlen(name) > 200 || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return false;
	return true;
}

int tm_cg_make_dir(struct tm_cgroup *cg, int d, const struct tm_cg_host *host,
                   const struct tm_cg_mount *m, const char *name)
{
	char parent[PATH_MAX];

	if (tm_cg_join(parent, sizeof(parent), m->dir, host->parent) ||
	    tm_cg_join(cg->dir[d], sizeof(cg->dir[d]), parent, name))
		return -1;
	if (mkdir(parent, 0755) && errno != EEXIST)
		return tm_error("cannot create cgroup '%s': %s", parent, strerror(errno));
	if (mkdir(cg->dir[d], 0755))
		return tm_error("cannot create cgroup '%s': %s", cg->dir[d], strerror(errno));
	cg->made[d] = true;
	return 0;
}

/* Reads back a single-value control file of the memory cgroup as the
 * kernel keeps it. */
static int read_value(struct tm_cgroup *cg, const char *file, int64_t *out)
{
	char path[PATH_MAX];
	ssize_t n;

	if (tm_cg_join(path, sizeof(path), cg->dir[DIR_MEM], file))
		return -1;
	n = tm_read_at(AT_FDCWD, path, cg->buf, sizeof(cg->buf));
	if (n < 0)
		return tm_error("cannot read '%s': %s", path, strerror(errno));
	if (cg->ops->parse_value(cg->buf, (size_t)n, out))
		return tm_error("cannot parse '%s'", path);
	return 0;
}

int tm_cg_set_limit(struct tm_cgroup *cg, const char *key, const char *file, int64_t req,
                    int64_t *got)
{
	char path[PATH_MAX], text[32];

	if (tm_cg_join(path, sizeof(path), cg->dir[DIR_MEM], file))
		return -1;
	if (req == INT64_MAX)
		snprintf(text, sizeof(text), "%s", cg->ops->unlimited);
	else
		snprintf(text, sizeof(text), "%lld", (long long)req);
	if (tm_write_file(path, text))
		return tm_error("cannot set %s: writing '%s' to '%s': %s", key, text, path,
		                strerror(errno));
	return read_value(cg, file, got);
}

long long tm_cg_json_limit(int64_t v)
{
	return v == INT64_MAX ? -1LL : (long long)v;
}

int tm_cg_write_limit(struct tm_cgroup *cg, const char *key, const char *file, int64_t req,
                      int64_t *got)
{
	if (tm_cg_set_limit(cg, key, file, req, got))
		return -1;
	tm_cg_json_add(cg, "%s\"%s\":{\"requested\":%lld,\"file\":\"%s\",\"value\":%lld",
	               cg->limits_len > 1 ? "," : "", key, tm_cg_json_limit(req), file,
	               (long long)*got);
	return 0;
}

void tm_cg_unsupported(struct tm_cgroup *cg, const char *key, int64_t req, const char *why)
{
	tm_cg_json_add(cg, "%s\"%s\":{\"requested\":%lld,\"supported\":false,\"why\":\"%s\"}",
	               cg->limits_len > 1 ? "," : "", key, tm_cg_json_limit(req), why);
}

int tm_cgroup_create(const struct tm_cg_host *host, const char *name, const struct tm_limits *lim,
                     struct tm_cgroup **out)
{
	struct tm_cgroup *cg;
	int rc;

	if (!valid_name(name))
		return tm_error("bad cgroup name '%s' (use letters, digits, '-', '_', '.')", name);
	if (host->mode == TM_CG_MODE_NONE)
		return tm_error("this host has no cgroup memory controller mounted");
	cg = tm_cg_new(tm_cg_ops_of(host->mode));
	if (!cg)
		return -1;
	cg->created = true;
	tm_cg_json_add(cg, "{");
	rc = cg->ops->make_dirs(cg, host, name);
	if (!rc)
		rc = cg->ops->set_limits(cg, lim);
	if (rc) {
		tm_cgroup_destroy(cg);
		return -1;
	}
	tm_cg_json_add(cg, "}");
	if (cg->limits[cg->limits_len - 1] != '}') { /* cut short: keep it valid */
		cg->limits_len = 0;
		tm_cg_json_add(cg, "{\"error\":\"limits report too long\"}");
	}
	tm_cg_open_files(cg);
	*out = cg;
	return 0;
}

/* --- using --------------------------------------------------------------- */

int tm_cgroup_attach(struct tm_cgroup *cg, pid_t pid)
{
	char path[PATH_MAX], text[16];

	snprintf(text, sizeof(text), "%d", (int)pid);
	for (int d = 0; d < DIR_COUNT; d++) {
		if (!cg->dir[d][0] || (d != DIR_MEM && !strcmp(cg->dir[d], cg->dir[DIR_MEM])))
			continue;
		if (tm_cg_join(path, sizeof(path), cg->dir[d], "cgroup.procs"))
			return -1;
		if (tm_write_file(path, text))
			return tm_error("cannot move process %d into '%s': %s", (int)pid, path,
			                strerror(errno));
	}
	return 0;
}

const char *tm_cgroup_path(const struct tm_cgroup *cg)
{
	return cg->dir[DIR_MEM];
}

const char *tm_cgroup_version(const struct tm_cgroup *cg)
{
	return cg->ops->name;
}

const char *tm_cgroup_limits_json(const struct tm_cgroup *cg)
{
	return cg->limits;
}

/* --- destroying ---------------------------------------------------------- */

static void kill_members(const char *dir)
{
	char path[PATH_MAX];
	pid_t *pids;
	size_t n;

	if (tm_cg_join(path, sizeof(path), dir, "cgroup.procs") ||
	    tm_cg_read_pids(-1, path, &pids, &n))
		return;
	for (size_t i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	free(pids);
}

/* Whether DIR's cgroup.procs lists a process (false when unreadable). */
static bool has_members(const char *dir)
{
	char path[PATH_MAX];
	pid_t *pids;
	size_t n;

	if (tm_cg_join(path, sizeof(path), dir, "cgroup.procs") ||
	    tm_cg_read_pids(-1, path, &pids, &n))
		return false;
	free(pids);
	return n > 0;
}

/* Removes DIR; KILL: SIGKILL what is still in it; else a cgroup with
 * processes is left alone (1). */
static int remove_dir(const char *dir, bool kill)
{
	for (int tries = 0; tries < 100; tries++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		if (!kill && has_members(dir))
			return 1;
		if (kill)
			kill_members(dir);
		sleep_ms(20);
	}
	return tm_error("cannot remove cgroup '%s': %s", dir, strerror(errno));
}

static int take_down(struct tm_cgroup *cg, bool kill)
{
	int rc = 0;

	if (!cg)
		return 0;
	tm_cg_close_files(cg);
	if (cg->created)
		for (int d = DIR_COUNT - 1; d >= 0; d--) {
			int r = cg->made[d] ? remove_dir(cg->dir[d], kill) : 0;
			if (r < 0 || (r > 0 && !rc))
				rc = r;
		}
	free(cg);
	return rc;
}

int tm_cgroup_destroy(struct tm_cgroup *cg)
{
	return take_down(cg, true) < 0 ? -1 : 0;
}

int tm_cgroup_release(struct tm_cgroup *cg)
{
	return take_down(cg, false);
}
