/*
 * A JVM's heap dump (snap/takers.h): jcmd GC.heap_dump, then, with the JVM
 * running again, the dump's holders computed in a child of ours bounded by
 * the deadline.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "hprof/holders.h"
#include "snap/snapio.h"
#include "snap/takers.h"
#include "base/banned.h"

#define JCMD_OUT_BYTES (1u << 20) /* what jcmd says about a dump */
#define HOLDERS_TOP    20
#define MIB            (1024.0 * 1024.0)

/* Where the JVM writes its dump when it is not ours to write in REQ->dir:
 * a new directory of its user's in /tmp (its /tmp is ours: the same mount
 * namespace).  0 with the directory in DIR, or -1 with ERR. */
static int stage_dir(const struct tm_snap_proc *p, char *dir, size_t size, struct tm_err *err)
{
	char mine[64], theirs[64], ns[64];
	ssize_t a = readlink("/proc/self/ns/mnt", mine, sizeof(mine) - 1);
	snprintf(ns, sizeof(ns), "/proc/%d/ns/mnt", (int)p->pid);
	ssize_t b = readlink(ns, theirs, sizeof(theirs) - 1);
	if (a <= 0 || b != a || memcmp(mine, theirs, (size_t)a)) {
		tm_err_set(err, 0,
		           "pid %d runs in another mount namespace (a container): its dump would "
		           "land in its own /tmp; take its class histogram instead",
		           (int)p->pid);
		return -1;
	}
	snprintf(dir, size, "/tmp/tidemark-snap-XXXXXX");
	if (!mkdtemp(dir) || chown(dir, p->uid, p->gid)) {
		tm_err_set(err, 0, "cannot make a directory for the dump in /tmp: %s",
		           strerror(errno));
		if (*dir)
			rmdir(dir);
		return -1;
	}
	return 0;
}

/* jcmd PID GC.heap_dump [-gz=1] TARGET.  0 when jcmd says the file was
 * created; 1 when this JVM cannot compress (retry without); -1 with ERR. */
static int run_dump(char *jcmd, const struct tm_snap_proc *p, const char *target, int gz,
                    int64_t deadline_usec, struct tm_err *err)
{
	char pid[16], line[200];
	size_t len = 0;
	int fd = memfd_create("tidemark-jcmd", MFD_CLOEXEC);

	if (fd < 0) {
		tm_err_set(err, 0, "cannot make a buffer: %s", strerror(errno));
		return -1;
	}
	snprintf(pid, sizeof(pid), "%d", (int)p->pid);
	char *argv[] = {
	    jcmd, pid, "GC.heap_dump", gz ? "-gz=1" : (char *)target, gz ? (char *)target : NULL,
	    NULL};
	int rc = tm_snap_run(argv, p, fd, JCMD_OUT_BYTES, deadline_usec, err);
	char *text = rc < 0 ? NULL : tm_snap_read_back(fd, JCMD_OUT_BYTES, &len);
	close(fd);
	if (rc < 0 || !text) {
		if (rc >= 0)
			tm_err_set(err, 0, "out of memory");
		free(text);
		return -1;
	}
	int created = strstr(text, "Heap dump file created") != NULL;
	int no_gz = gz && !created && strstr(text, "gz");
	tm_snap_first_line(text, len, line, sizeof(line));
	free(text);
	if (created)
		return 0;
	if (no_gz)
		return 1;
	tm_err_set(err, 0, "jcmd GC.heap_dump (exit %d): %s", rc, line);
	return -1;
}

/* Copies the dump the JVM wrote at SRC (P's regular file, never through a
 * link) into DST_FD.  0, or -1 with ERR. */
static int bring_in(const char *src, const struct tm_snap_proc *p, int dst_fd, struct tm_err *err)
{
	struct stat st;
	int fd = open(src, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != p->uid) {
		tm_err_set(err, 0, "the dump at '%s' is not the JVM's regular file", src);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	off_t left = st.st_size;
	while (left > 0) {
		ssize_t n = copy_file_range(fd, NULL, dst_fd, NULL, (size_t)left, 0);
		if (n <= 0) {
			tm_err_set(err, 0, "cannot copy the dump: %s",
			           n < 0 ? strerror(errno) : "it shrank");
			close(fd);
			return -1;
		}
		left -= n;
	}
	close(fd);
	return 0;
}

/* In a child: the holders of the dump at PATH into PATH.holders.txt, and a
 * summary line into FD.  Never returns. */
static void holders_child(const char *path, int fd)
{
	struct tm_hprof_layout l;
	struct tm_holders h;
	char txt[PATH_MAX + 16], line[512], cls[256];

	tm_hprof_layout_default(&l);
	if (tm_holders_compute(&h, path, &l, HOLDERS_TOP, NULL))
		_exit(1);
	snprintf(txt, sizeof(txt), "%s.holders.txt", path);
	int tfd = open(txt, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	FILE *f = tfd >= 0 ? fdopen(tfd, "w") : NULL;
	if (f) {
		tm_holders_print_text(&h, &l, HOLDERS_TOP, f);
		fclose(f);
	}
	if (h.n_rows) {
		const struct tm_holder *o = &h.rows[0];
		tm_hg_class_name(&h.g, TM_HDOM_U32(h.g.cls)[o->node], cls, sizeof(cls));
		int n =
		    snprintf(line, sizeof(line),
		             "top holder: %s retains %.1f MiB (%llu objects) of %.1f MiB live", cls,
		             (double)o->retained_bytes / MIB,
		             (unsigned long long)o->retained_objects, (double)h.live_bytes / MIB);
		if (n > 0 && write(fd, line, (size_t)n) < 0)
			_exit(1);
	}
	tm_holders_release(&h);
	_exit(0);
}

/* The holders of OUT->path, by REQ's deadline, into OUT->summary. */
static void holders(const struct tm_snap_req *req, struct tm_snap_out *out)
{
	int pfd[2];
	char line[sizeof(out->summary)];
	size_t len = 0;

	if (pipe2(pfd, O_CLOEXEC))
		return;
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		holders_child(out->path, pfd[1]);
	}
	close(pfd[1]);
	while (pid > 0 && len < sizeof(line) - 1) {
		int64_t left_ms = tm_snap_left_usec(req) / 1000;
		struct pollfd pf = {pfd[0], POLLIN, 0};
		if (left_ms <= 0 || poll(&pf, 1, (int)(left_ms > 1000 ? 1000 : left_ms)) < 0)
			break;
		ssize_t n = pf.revents ? read(pfd[0], line + len, sizeof(line) - 1 - len) : 0;
		if (pf.revents && n <= 0)
			break;
		len += n > 0 ? (size_t)n : 0;
	}
	close(pfd[0]);
	if (pid > 0) {
		kill(pid, SIGKILL); /* past the deadline, or done */
		waitpid(pid, NULL, 0);
	}
	line[len] = 0;
	if (len)
		snprintf(out->summary, sizeof(out->summary), "%s", line);
	else
		snprintf(out->summary, sizeof(out->summary),
		         "dump of %.1f MiB; holders not computed "
		         "(past the deadline, or the dump unreadable)",
		         (double)out->file_bytes / MIB);
}

/* Has the JVM of P write its dump, compressed if it can, for REQ: straight
 * into REQ->dir when P is ours, else through STAGE (a directory of its
 * user's, made here, removed by the caller).  0 with OUT->path the dump in
 * REQ->dir, or -1 with ERR. */
static int take_dump(const struct tm_snap_req *req, const struct tm_snap_proc *p, char *jcmd,
                     char *stage, size_t stage_size, struct tm_snap_out *out, struct tm_err *err)
{
	char target[PATH_MAX + 32];
	int rc = 1;

	if (p->uid != geteuid() && stage_dir(p, stage, stage_size, err))
		return -1;
	for (int gz = 1; gz >= 0 && rc == 1; gz--) {
		const char *ext = gz ? "hprof.gz" : "hprof";
		int fd = tm_snap_create(req, "jvm-heapdump", ext, out, err);
		if (fd < 0)
			return -1;
		if (*stage) { /* the JVM writes in STAGE; its file is copied into FD */
			snprintf(target, sizeof(target), "%s/dump.%s", stage, ext);
			rc = run_dump(jcmd, p, target, gz, req->deadline_usec, err);
			if (rc == 0)
				rc = bring_in(target, p, fd, err);
			unlink(target);
		} else { /* the JVM writes the file itself (it must not exist) */
			unlink(out->path);
			rc = run_dump(jcmd, p, out->path, gz, req->deadline_usec, err);
		}
		if (rc == 0) {
			close(fd);
			fd = open(out->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (fd >= 0)
				tm_snap_sized(fd, out);
		}
		if (fd >= 0)
			close(fd);
		if (rc)
			unlink(out->path);
	}
	return rc ? -1 : 0;
}

int tm_snap_jvm_heap_dump(const struct tm_snap_req *req, struct tm_snap_out *out,
                          struct tm_err *err)
{
	struct tm_snap_proc p;
	char jcmd[PATH_MAX], stage[64] = "";

	if (tm_snap_jvm_and_jcmd(req, &p, jcmd, sizeof(jcmd), err))
		return -1;
	int rc = take_dump(req, &p, jcmd, stage, sizeof(stage), out, err);
	if (*stage)
		rmdir(stage);
	if (rc)
		return -1;
	holders(req, out); /* the JVM runs again: off its critical path */
	return 0;
}
