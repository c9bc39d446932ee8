#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "kern/kread.h"
#include "sample/proctree.h"
#include "base/banned.h"

#define BUF_SIZE 65536

struct tm_proctree {
	int rootfd; /* the proc root */
	pid_t root; /* 0: explicit set */
	bool children_files;
	long clk_tck;
	struct tm_proc *procs;
	size_t n, cap;
	pid_t *kids; /* scratch for pid lists */
	size_t kids_cap;
	char *buf;
	int64_t walked_forks; /* the fork count read before the last walk; -1: none */
	bool walk_failed;     /* a file or process of this walk could not be read */
	uint64_t walks;
};

static void proc_close(struct tm_proc *p)
{
	int *fds[] = {&p->dirfd,    &p->stat_fd, &p->children_fd, &p->status_fd,
	              &p->statm_fd, &p->io_fd,   &p->smaps_fd,    &p->hsperf_fd};

	for (size_t i = 0; i < TM_ARRAY_SIZE(fds); i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}

/* Reads P's stat into P->stat.  0, or -1 when the process is gone. */
static int proc_read_stat(struct tm_proctree *t, struct tm_proc *p)
{
	ssize_t len;

	if (p->stat_fd < 0)
		p->stat_fd = openat(p->dirfd, "stat", O_RDONLY | O_CLOEXEC);
	if (p->stat_fd < 0)
		return -1;
	len = tm_kread(p->stat_fd, t->buf, BUF_SIZE);
	if (len <= 0 || tm_parse_proc_stat(t->buf, (size_t)len, t->clk_tck, &p->stat))
		return -1;
	if (p->stat.pid != p->pid || (p->starttime >= 0 && p->stat.starttime != p->starttime))
		return -1; /* not the process we started tracking */
	p->starttime = p->stat.starttime;
	p->zombie = p->stat.state == 'Z' || p->stat.state == 'X';
	return 0;
}

static bool tracked(const struct tm_proctree *t, pid_t pid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->procs[i].pid == pid)
			return true;
	return false;
}

/* Starts tracking PID (when PARENT > 0, only if it is PARENT's child). */
static int add(struct tm_proctree *t, pid_t pid, pid_t parent)
{
	char name[16];
	struct tm_proc *p;

	if (tm_grow(&t->procs, &t->cap, t->n, sizeof(*t->procs), 64))
		return -1;
	p = &t->procs[t->n];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->starttime = -1;
	p->stat_fd = p->children_fd = p->status_fd = p->statm_fd = p->io_fd = p->smaps_fd = -1;
	p->hsperf_fd = -1;
	snprintf(name, sizeof(name), "%d", (int)pid);
	p->dirfd = openat(t->rootfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (p->dirfd < 0 || proc_read_stat(t, p) || (parent > 0 && p->stat.ppid != parent)) {
		proc_close(p);
		return -1; /* gone already, or not who we thought */
	}
	t->n++;
	return 0;
}

/* Reads a pid list from FD into t->kids; the count, or -1. */
static ssize_t read_kids(struct tm_proctree *t, int fd)
{
	ssize_t len = tm_kread(fd, t->buf, BUF_SIZE);
	size_t n;

	if (len < 0 || tm_parse_pid_list(t->buf, (size_t)len, t->kids, t->kids_cap, &n)) {
		t->walk_failed = true;
		return -1;
	}
	if (n > t->kids_cap)
		t->walk_failed = true; /* more children than room: the rest next time */
	return (ssize_t)(n < t->kids_cap ? n : t->kids_cap);
}

static void add_kids(struct tm_proctree *t, pid_t parent, ssize_t n)
{
	for (ssize_t k = 0; k < n; k++)
		if (!tracked(t, t->kids[k]) && add(t, t->kids[k], parent))
			t->walk_failed = true; /* gone, or not read: look again next time */
}

/* Children of every thread of process I (index: t->procs may move). */
static void children_of(struct tm_proctree *t, size_t i)
{
	struct tm_proc *p = &t->procs[i];
	pid_t pid = p->pid;
	char path[48];
	ssize_t n;

	if (p->stat.num_threads <= 1) {
		if (p->children_fd < 0) {
			snprintf(path, sizeof(path), "task/%d/children", (int)pid);
			p->children_fd = openat(p->dirfd, path, O_RDONLY | O_CLOEXEC);
		}
		if (p->children_fd < 0)
			t->walk_failed = true;
		else if ((n = read_kids(t, p->children_fd)) > 0)
			add_kids(t, pid, n);
		return;
	}
	int fd = openat(p->dirfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	int taskfd = d ? dirfd(d) : -1;

	if (!d) {
		if (fd >= 0)
			close(fd);
		t->walk_failed = true;
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%.20s/children", e->d_name);
		int cfd = openat(taskfd, path, O_RDONLY | O_CLOEXEC);
		if (cfd < 0) {
			t->walk_failed = true; /* a thread that ended, or no fd left */
			continue;
		}
		n = read_kids(t, cfd);
		close(cfd);
		if (n > 0)
			add_kids(t, pid, n);
	}
	closedir(d);
}

/* The fallback: every process in the proc root whose ppid is tracked. */
static void scan_all(struct tm_proctree *t)
{
	int fd = openat(t->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *e;
	bool added = true;

	if (!d) {
		if (fd >= 0)
			close(fd);
		t->walk_failed = true;
		return;
	}
	/* repeat until no new descendant: a grandchild may be listed first */
	while (added) {
		added = false;
		rewinddir(d);
		while ((e = readdir(d))) {
			char path[48];
			int64_t pid;
			struct tm_proc_stat st;
			ssize_t len;

			if (tm_parse_int64(e->d_name, &pid) || pid <= 0 || tracked(t, (pid_t)pid))
				continue;
			snprintf(path, sizeof(path), "%d/stat", (int)pid);
			len = tm_read_at(t->rootfd, path, t->buf, BUF_SIZE);
			if (len <= 0 || tm_parse_proc_stat(t->buf, (size_t)len, t->clk_tck, &st)) {
				t->walk_failed = true; /* it exited, or was not readable */
				continue;
			}
			if (!tracked(t, st.ppid))
				continue;
			if (!add(t, (pid_t)pid, st.ppid))
				added = true;
			else
				t->walk_failed = true;
		}
	}
	closedir(d);
}

/* Drops the entries marked dead (pid 0). */
static void compact(struct tm_proctree *t)
{
	size_t w = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->procs[i].pid > 0)
			t->procs[w++] = t->procs[i];
	t->n = w;
}

/* Re-reads the stat of every entry; marks the gone ones dead. */
static void refresh(struct tm_proctree *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (proc_read_stat(t, &t->procs[i])) {
			proc_close(&t->procs[i]);
			t->procs[i].pid = 0;
		}
	compact(t);
}

int tm_proctree_scan(struct tm_proctree *t)
{
	return tm_proctree_scan_forks(t, -1);
}

int tm_proctree_scan_forks(struct tm_proctree *t, int64_t forks)
{
	refresh(t);
	if (t->root <= 0)
		return (int)t->n;
	if (forks >= 0 && forks == t->walked_forks)
		return (int)t->n; /* nothing forked anywhere since the last walk */
	t->walk_failed = false;
	t->walks++;
	if (!t->children_files)
		scan_all(t);
	else /* entries appended while walking are walked too: grandchildren in one pass */
		for (size_t i = 0; i < t->n; i++)
			if (!t->procs[i].zombie)
				children_of(t, i);
	/* an incomplete walk is done again next time, forks or not */
	t->walked_forks = t->walk_failed ? -1 : forks;
	return (int)t->n;
}

uint64_t tm_proctree_walks(const struct tm_proctree *t)
{
	return t->walks;
}

int tm_proctree_set(struct tm_proctree *t, const pid_t *pids, size_t n)
{
	for (size_t i = 0; i < t->n; i++) {
		bool keep = false;
		for (size_t k = 0; k < n && !keep; k++)
			keep = pids[k] == t->procs[i].pid;
		if (!keep) {
			proc_close(&t->procs[i]);
			t->procs[i].pid = 0;
		}
	}
	compact(t);
	refresh(t);
	for (size_t k = 0; k < n; k++)
		if (!tracked(t, pids[k]))
			(void)add(t, pids[k], 0);
	return (int)t->n;
}

size_t tm_proctree_count(const struct tm_proctree *t)
{
	return t->n;
}

struct tm_proc *tm_proctree_get(struct tm_proctree *t, size_t i)
{
	return i < t->n ? &t->procs[i] : NULL;
}

bool tm_proctree_uses_children_files(const struct tm_proctree *t)
{
	return t->children_files;
}

int tm_proctree_open(const char *proc_root, pid_t root, int flags, struct tm_proctree **out)
{
	struct tm_proctree *t = calloc(1, sizeof(*t));
	char path[64];

	if (!t)
		return tm_error("out of memory");
	t->rootfd = -1;
	t->root = root;
	t->walked_forks = -1;
	t->clk_tck = sysconf(_SC_CLK_TCK);
	if (t->clk_tck <= 0)
		t->clk_tck = 100;
	t->kids_cap = BUF_SIZE / 2;
	/* room for the longest read and the most pids; a lone process's tree
	 * writes a page of each */
	t->buf = tm_pages_alloc(BUF_SIZE);
	t->kids = tm_pages_alloc(t->kids_cap * sizeof(*t->kids));
	t->rootfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!t->buf || !t->kids || t->rootfd < 0) {
		int e = errno;
		tm_proctree_close(t);
		return tm_error("cannot open '%s': %s", proc_root, strerror(e));
	}
	if (root > 0) {
		if (add(t, root, 0)) {
			tm_proctree_close(t);
			return tm_error("no process %d under '%s'", (int)root, proc_root);
		}
		snprintf(path, sizeof(path), "task/%d/children", (int)root);
		t->children_files = !(flags & TM_PROCTREE_SCAN_ALL) &&
		                    faccessat(t->procs[0].dirfd, path, R_OK, 0) == 0;
	}
	*out = t;
	return 0;
}

void tm_proctree_close(struct tm_proctree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		proc_close(&t->procs[i]);
	if (t->rootfd >= 0)
		close(t->rootfd);
	free(t->procs);
	tm_pages_free(t->kids, t->kids_cap * sizeof(*t->kids));
	tm_pages_free(t->buf, BUF_SIZE);
	free(t);
}
