/*
 * The relay process (relay.h).  Only async-signal-safe calls after the fork:
 * the recorder may have threads by then in a later version, and the relay
 * must work in a process that was copied mid-flight.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "record/relay.h"
#include "base/banned.h"

/* Closes every descriptor but the KEEP ones (-1 entries are ignored). */
static void close_all_but(const int *keep, int n)
{
	int sorted[12], k = 0;

	for (int i = 0; i < n && k < 12; i++)
		if (keep[i] >= 0)
			sorted[k++] = keep[i];
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
			int t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	unsigned lo = 0;
	for (int i = 0; i < k; i++) {
		if ((unsigned)sorted[i] > lo)
			close_range(lo, (unsigned)sorted[i] - 1, 0);
		lo = (unsigned)sorted[i] + 1;
	}
	close_range(lo, ~0U, 0);
}

/* Writes all of BUF to *FD, waiting when it is full; on an error (the
 * reader left) stops writing there for good. */
static void copy_out(int *fd, const char *buf, size_t n)
{
	while (*fd >= 0 && n > 0) {
		ssize_t w = write(*fd, buf, n);
		if (w > 0) {
			buf += w;
			n -= (size_t)w;
		} else if (w < 0 && errno == EAGAIN) {
			struct pollfd p = {.fd = *fd, .events = POLLOUT};
			poll(&p, 1, 100);
		} else if (!(w < 0 && errno == EINTR)) {
			*fd = -1; /* not closed: it may be the other stream's too */
		}
	}
}

/* A copy for the recorder: never waits.  What does not fit is dropped (the
 * recorder is behind); a recorder that is gone gets nothing more. */
static void forward(int *fd, const char *buf, size_t n)
{
	while (*fd >= 0 && n > 0) {
		ssize_t w = write(*fd, buf, n);
		if (w > 0) {
			buf += w;
			n -= (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else {
			if (!(w < 0 && errno == EAGAIN)) {
				close(*fd);
				*fd = -1;
			}
			return;
		}
	}
}

static void go_alone(int fwd[2], int *life_fd)
{
	for (int i = 0; i < 2; i++)
		if (fwd[i] >= 0) {
			close(fwd[i]);
			fwd[i] = -1;
		}
	close(*life_fd);
	*life_fd = -1;
}

/* True when the cgroup.procs at PROCS lists no process, or cannot be read
 * (the cgroup is gone); true without PROCS.  Opened afresh each time: v1
 * serves a kept descriptor a stale list. */
static bool target_gone(const char *procs)
{
	char b[8];
	if (!procs)
		return true;
	int fd = open(procs, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	ssize_t n = read(fd, b, sizeof(b));
	close(fd);
	return n <= 0;
}

/* Nothing left to copy: done, unless marks may still come from a command
 * that outlives its recorder. */
static bool nothing_left(const int in[2], int life_fd, int mark_fd, const char *procs)
{
	if (in[0] >= 0 || in[1] >= 0)
		return false;
	if (mark_fd < 0 || !procs)
		return true;
	return life_fd < 0 && target_gone(procs);
}

void tm_relay_run(int in[2], int out[2], int fwd[2], int life_fd, int mark_fd, const char *procs)
{
	char buf[16384];

	for (;;) {
		struct pollfd p[4];
		int who[4], n = 0;

		if (nothing_left(in, life_fd, mark_fd, procs))
			_exit(0);
		for (int i = 0; i < 2; i++)
			if (in[i] >= 0) {
				who[n] = i;
				p[n++] = (struct pollfd){.fd = in[i], .events = POLLIN};
			}
		if (life_fd >= 0) {
			who[n] = 2;
			p[n++] = (struct pollfd){.fd = life_fd, .events = POLLIN};
		} else if (mark_fd >= 0) {
			who[n] = 3;
			p[n++] = (struct pollfd){.fd = mark_fd, .events = POLLIN};
		}
		/* alone with only marks to drain: look at the target each second */
		bool marks_only = in[0] < 0 && in[1] < 0 && life_fd < 0;
		if (poll(p, (nfds_t)n, marks_only ? 1000 : -1) < 0)
			continue; /* EINTR */
		for (int k = 0; k < n; k++) {
			if (!p[k].revents)
				continue;
			if (who[k] == 2) {
				go_alone(fwd, &life_fd); /* the recorder is gone or done */
				continue;
			}
			ssize_t got = read(p[k].fd, buf, sizeof(buf));
			if (who[k] == 3)
				continue; /* marks nobody records any more */
			int i = who[k];
			if (got > 0) {
				copy_out(&out[i], buf, (size_t)got);
				forward(&fwd[i], buf, (size_t)got);
			} else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
				/* EOF, or EIO: a pty whose last writer left */
				close(in[i]);
				in[i] = -1;
			}
		}
	}
}

static void relay_child(const int in[2], const int out[2], int fwd[2], int life_rd,
                        const int mark[2], const char *procs)
{
	static const int sigs[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,
	                           SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2};
	int ins[2] = {in[0], in[1]}, outs[2] = {out[0], out[1]};
	/* the marks FIFO's write end too: without a writer it would poll as hung up */
	int keep[9] = {ins[0], ins[1], outs[0], outs[1], fwd[0], fwd[1], life_rd, mark[0], mark[1]};
	sigset_t none;

	setpgid(0, 0); /* not in tidemark's group: a kill of the group misses us */
	for (size_t i = 0; i < TM_ARRAY_SIZE(sigs); i++)
		signal(sigs[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	close_all_but(keep, 9);
	tm_relay_run(ins, outs, fwd, life_rd, mark[0], procs);
}

int tm_relay_start(const int in[2], const int out[2], const int mark[2], const char *procs,
                   struct tm_relay *r)
{
	int f[2][2] = {{-1, -1}, {-1, -1}}, life[2];

	*r = (struct tm_relay){.pid = 0, .fwd_fd = {-1, -1}, .life_fd = -1};
	if (pipe2(life, O_CLOEXEC))
		return tm_error("pipe: %s", strerror(errno));
	for (int i = 0; i < 2; i++) {
		if (in[i] < 0)
			continue;
		if (pipe2(f[i], O_CLOEXEC | O_NONBLOCK))
			return tm_error("pipe: %s", strerror(errno));
		fcntl(f[i][1], F_SETPIPE_SZ, 1 << 20); /* room while the recorder samples */
	}
	r->pid = fork();
	if (r->pid < 0)
		return tm_error("fork: %s", strerror(errno));
	if (r->pid == 0) {
		int fwd[2] = {f[0][1], f[1][1]};
		relay_child(in, out, fwd, life[0], mark, procs);
	}
	close(life[0]);
	for (int i = 0; i < 2; i++)
		if (f[i][1] >= 0)
			close(f[i][1]);
	r->fwd_fd[0] = f[0][0];
	r->fwd_fd[1] = f[1][0];
	r->life_fd = life[1];
	return 0;
}

bool tm_relay_release(struct tm_relay *r, long long wait_usec)
{
	bool gone = r->pid == 0;

	for (int i = 0; i < 2; i++)
		if (r->fwd_fd[i] >= 0) {
			close(r->fwd_fd[i]);
			r->fwd_fd[i] = -1;
		}
	if (r->life_fd >= 0)
		close(r->life_fd);
	r->life_fd = -1;
	for (long long waited = 0; !gone; waited += 10000) {
		pid_t w = waitpid(r->pid, NULL, WNOHANG);
		gone = w == r->pid || (w < 0 && errno == ECHILD);
		if (gone || waited >= wait_usec)
			break;
		usleep(10000);
	}
	r->pid = 0;
	return gone;
}
