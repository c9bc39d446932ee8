/*
 * A JVM's snapshots through jcmd: its class histogram, and a heap dump whose
 * holders are computed once the JVM runs again (snap/takers.h).  jcmd
 * attaches only from the JVM's own user, so it runs as that user; a dump
 * the JVM writes as another user is staged in a directory of that user's
 * in /tmp and copied into ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
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
#include "hprof/hprof.h"
#include "runtime/jvmhisto.h"
#include "snap/snapio.h"
#include "snap/takers.h"
#include "base/banned.h"

#define HISTO_MAX_BYTES (64u << 20) /* jcmd's answer: about 100 bytes a class */
#define JCMD_OUT_BYTES  (1u << 20)  /* what jcmd says about a dump */
#define HOLDERS_TOP     20

/* Whether P maps libjvm.so; ERR says why not. */
static int is_jvm(const struct tm_snap_proc *p, struct tm_err *err)
{
	char path[64];
	size_t len = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	char *maps = tm_read_file(path, &len);
	int yes = maps && memmem(maps, len, "/libjvm.so\n", 11);
	free(maps);
	if (!yes)
		tm_err_set(err, 0, "pid %d is not a JVM (no libjvm.so in its maps)", (int)p->pid);
	return yes ? 0 : -1;
}

/* An executable regular file at PATH. */
static int runnable(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && (st.st_mode & 0111) ? 0 : -1;
}

/* jcmd: $TIDEMARK_JCMD, else the one beside the JVM's java (the same JDK),
 * else the first on $PATH.  0 with its path in BUF, or -1 with ERR. */
static int find_jcmd(const struct tm_snap_proc *p, char *buf, size_t size, struct tm_err *err)
{
	const char *env = getenv("TIDEMARK_JCMD");
	char exe[64], target[PATH_MAX];

	if (env && *env) {
		snprintf(buf, size, "%s", env);
		if (runnable(buf) == 0)
			return 0;
		tm_err_set(err, 0, "jcmd not found: '%s' ($TIDEMARK_JCMD) is not executable", env);
		return -1;
	}
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)p->pid);
	ssize_t n = readlink(exe, target, sizeof(target) - 1);
	char *slash = n > 0 ? memrchr(target, '/', (size_t)n) : NULL;
	if (slash) {
		*slash = 0;
		if ((size_t)snprintf(buf, size, "%s/jcmd", target) < size && runnable(buf) == 0)
			return 0;
	}
	const char *path = getenv("PATH");
	for (const char *d = path ? path : "/usr/bin"; *d;) {
		size_t len = strcspn(d, ":");
		if (len && (size_t)snprintf(buf, size, "%.*s/jcmd", (int)len, d) < size &&
		    runnable(buf) == 0)
			return 0;
		d += len + (d[len] == ':');
	}
	tm_err_set(err, 0,
	           "jcmd not found beside the JVM's java or on $PATH (a JDK has it: "
	           "openjdk-17-jdk-headless)");
	return -1;
}

/* Reads FD from its start, at most MAX bytes, NUL-terminated.  Freed by
 * the caller; NULL when out of memory. */
char *tm_snap_read_back(int fd, size_t max, size_t *len)
{
	char *buf = malloc(max + 1);
	*len = 0;
	while (buf && *len < max) {
		ssize_t r = pread(fd, buf + *len, max - *len, (off_t)*len);
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	if (buf)
		buf[*len] = 0;
	return buf;
}

/* The first line of TEXT (LEN bytes), printable, into OUT. */
void tm_snap_first_line(const char *text, size_t len, char *out, size_t size)
{
	size_t n = 0;
	for (size_t i = 0; i < len && text[i] != '\n' && n + 1 < size; i++)
		out[n++] = text[i] >= ' ' && text[i] < 127 ? text[i] : '?';
	out[n] = 0;
}

/* The summary of a histogram: its first three classes. */
static void histo_summary(const struct tm_jvm_histo *h, char *out, size_t size)
{
	size_t o = (size_t)snprintf(out, size,
	                            "%llu classes, %.1f MiB; top:", (unsigned long long)h->classes,
	                            (double)h->total_bytes / (1024.0 * 1024.0));
	for (size_t i = 0; i < h->n_top && i < 3 && o < size; i++)
		o += (size_t)snprintf(out + o, size - o, "%s %s %.1f MiB (%llu)", i ? "," : "",
		                      h->top[i].name, (double)h->top[i].bytes / (1024.0 * 1024.0),
		                      (unsigned long long)h->top[i].instances);
}

/* The JVM of REQ, and the jcmd to drive it with. */
int tm_snap_jvm_and_jcmd(const struct tm_snap_req *req, struct tm_snap_proc *p, char *jcmd,
                         size_t size, struct tm_err *err)
{
	if (tm_snap_left_usec(req) <= 0) {
		tm_err_set(err, 0, "the deadline has passed");
		return -1;
	}
	if (tm_snap_proc(req, p, err) || is_jvm(p, err))
		return -1;
	return find_jcmd(p, jcmd, size, err);
}

int tm_snap_jvm_histogram(const struct tm_snap_req *req, struct tm_snap_out *out,
                          struct tm_err *err)
{
	struct tm_snap_proc p;
	char jcmd[PATH_MAX], pid[16];
	struct tm_err herr = {0};
	struct tm_jvm_histo h;
	size_t len;

	if (tm_snap_jvm_and_jcmd(req, &p, jcmd, sizeof(jcmd), err))
		return -1;
	int fd = tm_snap_create(req, "jvm-histogram", "txt", out, err);
	if (fd < 0)
		return -1;
	snprintf(pid, sizeof(pid), "%d", (int)p.pid);
	char *argv[] = {jcmd, pid, "GC.class_histogram", NULL};
	int rc = tm_snap_run(argv, &p, fd, HISTO_MAX_BYTES, req->deadline_usec, err);
	char *text = rc < 0 ? NULL : tm_snap_read_back(fd, HISTO_MAX_BYTES, &len);
	bool ok = false;
	if (rc >= 0 && !text)
		tm_err_set(err, 0, "out of memory");
	else if (rc >= 0 && tm_jvm_histo_parse(text, len, &h, &herr))
		tm_err_set(err, 0, "jcmd (exit %d): %s", rc, herr.msg);
	else if (rc >= 0)
		ok = true, histo_summary(&h, out->summary, sizeof(out->summary));
	free(text);
	tm_snap_sized(fd, out);
	close(fd);
	if (!ok)
		unlink(out->path);
	return ok ? 0 : -1;
}
