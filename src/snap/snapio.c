/* What the snapshot takers share; see snap/snapio.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "snap/snapio.h"
#include "base/banned.h"

int tm_snap_proc(const struct tm_snap_req *req, struct tm_snap_proc *p, struct tm_err *err)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)req->pid);
	if (req->pid <= 0 || stat(path, &st)) {
		tm_err_set(err, 0, "no process %d", (int)req->pid);
		return -1;
	}
	p->pid = req->pid;
	p->uid = st.st_uid;
	p->gid = st.st_gid;
	return 0;
}

int64_t tm_snap_left_usec(const struct tm_snap_req *req)
{
	return req->deadline_usec - tm_now_mono_usec();
}

int tm_snap_create(const struct tm_snap_req *req, const char *kind, const char *ext,
                   struct tm_snap_out *out, struct tm_err *err)
{
	long long now = (long long)time(NULL);
	int fd = -1;

	/* a second one within the same second: -2, -3, ... */
	for (int seq = 1; seq <= 100 && fd < 0; seq++) {
		char tail[16] = "";
		if (seq > 1)
			snprintf(tail, sizeof(tail), "-%d", seq);
		int n = snprintf(out->path, sizeof(out->path), "%s/%s-%d-%lld%s.%s", req->dir, kind,
		                 (int)req->pid, now, tail, ext);
		if (n < 0 || (size_t)n >= sizeof(out->path)) {
			tm_err_set(err, 0, "the directory's path is too long");
			return -1;
		}
		fd = open(out->path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		tm_err_set(err, 0, "cannot create '%s': %s", out->path, strerror(errno));
	return fd;
}

void tm_snap_sized(int fd, struct tm_snap_out *out)
{
	struct stat st;
	out->file_bytes = fstat(fd, &st) ? 0 : (uint64_t)st.st_size;
}

/* In the child: becomes P's user when that is not ours, then runs ARGV.
 * Never returns. */
static void child(char *const argv[], const struct tm_snap_proc *p, int out_fd, uint64_t max)
{
	int null = open("/dev/null", O_RDONLY);
	struct rlimit fsz = {(rlim_t)max, (rlim_t)max};

	if (null < 0 || dup2(null, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
		_exit(127);
	setrlimit(RLIMIT_FSIZE, &fsz);
	signal(SIGXFSZ, SIG_DFL);
	if (p->uid != geteuid() && (setgroups(0, NULL) || setresgid(p->gid, p->gid, p->gid) ||
	                            setresuid(p->uid, p->uid, p->uid)))
		_exit(126);
	if (chdir("/"))
		_exit(126);
	execv(argv[0], argv);
	_exit(127);
}

/* Waits for PID until DEADLINE_USEC, then kills it.  Its status, or -1
 * when it was killed at the deadline. */
static int wait_until(pid_t pid, int64_t deadline_usec, int *status)
{
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return 0;
		if (tm_now_mono_usec() >= deadline_usec) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return -1;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
}

int tm_snap_run(char *const argv[], const struct tm_snap_proc *p, int out_fd,
                uint64_t out_max_bytes, int64_t deadline_usec, struct tm_err *err)
{
	int status = 0;

	if (p->uid != geteuid() && geteuid() != 0) {
		tm_err_set(err, 0,
		           "pid %d runs as uid %u: %s must run as that user (or as root), not as "
		           "uid %u",
		           (int)p->pid, (unsigned)p->uid, argv[0], (unsigned)geteuid());
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		tm_err_set(err, 0, "cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		child(argv, p, out_fd, out_max_bytes);
	if (wait_until(pid, deadline_usec, &status)) {
		tm_err_set(err, 0, "%s was killed at the deadline", argv[0]);
		return -1;
	}
	if (WIFSIGNALED(status)) {
		tm_err_set(err, 0, "%s died of signal %d%s", argv[0], WTERMSIG(status),
		           WTERMSIG(status) == SIGXFSZ ? " (its output past the bound)" : "");
		return -1;
	}
	if (WEXITSTATUS(status) >= 126) {
		tm_err_set(err, 0, "cannot run %s as uid %u (exit %d)", argv[0], (unsigned)p->uid,
		           WEXITSTATUS(status));
		return -1;
	}
	return WEXITSTATUS(status);
}
