#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "record/marks.h"
#include "base/banned.h"

/* Why DIR may not hold our marks, or NULL when it may: a real directory
 * (not a link) that is ours or root's, that no one else may write to, and
 * that we may write to.  /tmp is shared: anyone can create
 * /tmp/tidemark-UID before us, and read or replace what we put there.
 * BUF (SIZE bytes) holds the reason when it is formatted. */
static const char *dir_unsafe(const char *dir, char *buf, size_t size)
{
	struct stat sb;

	if (lstat(dir, &sb))
		return strerror(errno);
	if (!S_ISDIR(sb.st_mode))
		return "not a directory";
	if (sb.st_uid != geteuid() && sb.st_uid != 0) {
		snprintf(buf, size, "owned by uid %u, not by us", (unsigned)sb.st_uid);
		return buf;
	}
	if (sb.st_mode & 022) {
		snprintf(buf, size, "others may write to it (mode %03o)",
		         (unsigned)(sb.st_mode & 0777));
		return buf;
	}
	return access(dir, W_OK) ? strerror(errno) : NULL;
}

static int runtime_dir(char *buf, size_t size, int create)
{
	const char *env = getenv("TIDEMARK_RUNTIME_DIR");
	const char *candidates[2] = {env && *env ? env : "/run/tidemark", NULL};
	char tmp[64], buf2[2][96];
	const char *why[2];

	snprintf(tmp, sizeof(tmp), "/tmp/tidemark-%u", (unsigned)getuid());
	candidates[1] = tmp;
	for (int i = 0; i < 2; i++) {
		if (create)
			mkdir(candidates[i], 0700);
		why[i] = dir_unsafe(candidates[i], buf2[i], sizeof(buf2[i]));
		if (!why[i]) {
			snprintf(buf, size, "%s", candidates[i]);
			return 0;
		}
	}
	return tm_error("no runtime directory for marks (%s: %s; %s: %s)", candidates[0], why[0],
	                tmp, why[1]);
}

int tm_mark_listen(struct tm_mark_listener *l)
{
	char dir[200];

	l->fd = l->keep_fd = -1;
	if (runtime_dir(dir, sizeof(dir), 1))
		return -1;
	snprintf(l->path, sizeof(l->path), "%s/mark-%d.fifo", dir, (int)getpid());
	unlink(l->path);
	if (mkfifo(l->path, 0620))
		return tm_error("cannot create '%s': %s", l->path, strerror(errno));
	l->fd = open(l->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	l->keep_fd = open(l->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (l->fd < 0 || l->keep_fd < 0) {
		int rc = tm_error("cannot open '%s': %s", l->path, strerror(errno));
		tm_mark_unlisten(l);
		return rc;
	}
	return 0;
}

void tm_mark_unlisten(struct tm_mark_listener *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->keep_fd >= 0)
		close(l->keep_fd);
	l->fd = l->keep_fd = -1;
	if (l->path[0])
		unlink(l->path);
	l->path[0] = '\0';
}

int tm_mark_send(const char *path, const char *text)
{
	char line[TM_MARK_TEXT_MAX + 2];
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	if (!len || len > TM_MARK_TEXT_MAX || strchr(text, '\n'))
		return tm_error("a mark is one line of 1 to %d characters", TM_MARK_TEXT_MAX);
	fd = open(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return tm_error(errno == ENXIO ? "no recorder is reading '%s'"
		                               : "cannot open '%s': %s",
		                path, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) || !S_ISFIFO(sb.st_mode)) {
		close(fd);
		return tm_error("'%s' is not a recorder's FIFO", path);
	}
	snprintf(line, sizeof(line), "%s\n", text);
	n = write(fd, line, len + 1); /* <= PIPE_BUF: one atomic write */
	close(fd);
	if (n != (ssize_t)len + 1)
		return tm_error("cannot write the mark to '%s': %s", path,
		                n < 0 ? strerror(errno) : "short write");
	return 0;
}

/* "mark-1234.fifo" -> 1234, or 0. */
static pid_t fifo_pid(const char *name)
{
	int64_t pid;
	char num[32];
	const char *dot;

	if (strncmp(name, "mark-", 5) || !(dot = strstr(name, ".fifo")) || dot[5])
		return 0;
	if ((size_t)(dot - name - 5) >= sizeof(num))
		return 0;
	memcpy(num, name + 5, (size_t)(dot - name - 5));
	num[dot - name - 5] = '\0';
	if (tm_parse_int64(num, &pid) || pid <= 0 || pid > INT_MAX)
		return 0;
	return (pid_t)pid;
}

int tm_mark_find(pid_t pid, char *path, size_t size)
{
	char dir[200];
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (runtime_dir(dir, sizeof(dir), 0))
		return -1;
	if (!(d = opendir(dir)))
		return tm_error("cannot list '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		pid_t p = fifo_pid(de->d_name);
		if (!p || (pid && p != pid))
			continue;
		if (kill(p, 0) && errno == ESRCH)
			continue; /* a recorder that died without cleaning up */
		if (found++ == 0)
			snprintf(path, size, "%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (found == 1)
		return 0;
	if (!found)
		return pid ? tm_error("no recorder with pid %d is running", (int)pid)
		           : tm_error("no recorder is running (nothing in '%s')", dir);
	return tm_error("%d recorders are running: say which with --to PID", found);
}
