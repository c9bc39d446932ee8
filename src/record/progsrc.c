/*
 * Progress from outside the command's output: the stdout of a command of
 * ours (--progress-cmd, e.g. `journalctl -fu x` or `tail -F log`), or the
 * journal of the unit a run follows (--unit).  Either is only read, never
 * waited for: a source that is slow, hangs or dies costs the run its
 * progress lines, never a sample, and never touches the observed program.
 * The command runs in its own process group, outside the target's cgroup,
 * is told to stop at the run's end (SIGTERM, SIGKILL 0.5 s later) and dies
 * with us (PR_SET_PDEATHSIG) if we are killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/util.h"
#include "record/rec.h"
#include "sysd/journal.h"
#include "base/banned.h"

/* In the child: stdin from /dev/null, stdout to the pipe, our stderr. */
static void exec_progress_cmd(const char *cmd, int out_fd, const sigset_t *mask)
{
	int null = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (null >= 0)
		dup2(null, 0);
	dup2(out_fd, 1);
	sigprocmask(SIG_SETMASK, mask, NULL);
	signal(SIGPIPE, SIG_DFL);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

static int start_cmd(struct rec *r)
{
	struct progsrc *c = &r->psrc;
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return tm_error("--progress-cmd: pipe: %s", strerror(errno));
	c->pid = fork();
	if (c->pid < 0) {
		c->pid = 0;
		close(p[0]);
		close(p[1]);
		return tm_error("--progress-cmd: fork: %s", strerror(errno));
	}
	if (c->pid == 0)
		exec_progress_cmd(r->o->progress_cmd, p[1], &r->oldmask);
	setpgid(c->pid, c->pid); /* (both sides: whichever runs first) */
	close(p[1]);
	c->fd = p[0];
	fcntl(c->fd, F_SETFL, O_NONBLOCK);
	return 0;
}

int tm_rec_progsrc_open(struct rec *r)
{
	const struct tm_record_opts *o = r->o;

	r->psrc.fd = -1;
	if (o->progress_cmd && o->progress_regex)
		return start_cmd(r);
	if (o->journal_unit && o->progress_regex &&
	    tm_journal_open(o->journal_unit, o->unit_invocation, o->journal_from_start,
	                    &r->psrc.journal)) {
		/* the run goes on without progress: the journal is not the target */
		tm_warn("no progress from the journal of %s", o->journal_unit);
		r->psrc.journal = NULL;
	}
	return 0;
}

int tm_rec_progsrc_fd(const struct rec *r)
{
	return r->psrc.fd;
}

static void on_cmd_line(void *ctx, const char *line)
{
	tm_rec_progress_line(ctx, line);
}

static void on_entry(void *ctx, const char *msg, int64_t wall_usec, int64_t mono_usec)
{
	struct rec *r = ctx;
	double v;

	if (!tm_progress_match(&r->re, msg, &v))
		return;
	if (mono_usec < 0) /* logged in another boot: we cannot place it on our clock */
		tm_rec_progress_at(r, v, tm_now_wall_usec(), tm_now_mono_usec());
	else
		tm_rec_progress_at(r, v, wall_usec, mono_usec);
}

int tm_rec_journal_fd(const struct rec *r)
{
	return r->psrc.journal ? tm_journal_fd(r->psrc.journal) : -1;
}

int64_t tm_rec_journal_wait_usec(const struct rec *r)
{
	return r->psrc.journal ? tm_journal_wait_usec(r->psrc.journal) : 0;
}

void tm_rec_journal_read(struct rec *r)
{
	if (r->psrc.journal && tm_journal_read(r->psrc.journal, 10000, on_entry, r) < 0) {
		tm_warn("the journal cannot be read any more; no more progress from it");
		tm_journal_close(r->psrc.journal);
		r->psrc.journal = NULL;
	}
}

void tm_rec_progcmd_read(struct rec *r)
{
	struct progsrc *c = &r->psrc;
	char buf[8192];
	ssize_t n;

	if (c->fd < 0)
		return;
	while ((n = read(c->fd, buf, sizeof(buf))) > 0)
		tm_lines_feed(&c->lines, buf, (size_t)n, on_cmd_line, r);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		tm_lines_flush(&c->lines, on_cmd_line, r);
		close(c->fd);
		c->fd = -1;
		if (!c->said_gone)
			tm_warn("the progress command closed its output; the run goes on without "
			        "progress");
		c->said_gone = true;
	}
}

void tm_rec_progsrc_poll(struct rec *r)
{
	tm_rec_journal_read(r);
	tm_rec_progcmd_read(r);
}

bool tm_rec_progsrc_reaped(struct rec *r, pid_t pid, int status)
{
	struct progsrc *c = &r->psrc;

	if (!c->pid || pid != c->pid)
		return false;
	c->pid = 0;
	if (r->phase == PH_DONE)
		return true; /* we stopped it */
	if (WIFEXITED(status))
		tm_warn("the progress command exited with status %d; the run goes on",
		        WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		tm_warn("the progress command was killed by signal %d; the run goes on",
		        WTERMSIG(status));
	c->said_gone = true;
	return true;
}

/* Waits up to USEC for the command to be gone; true when it is. */
static bool reap_within(struct progsrc *c, int64_t usec)
{
	int64_t until = tm_now_mono_usec() + usec;

	for (;;) {
		pid_t got = waitpid(c->pid, NULL, WNOHANG);
		if (got == c->pid || (got < 0 && errno == ECHILD)) {
			c->pid = 0;
			return true;
		}
		if (tm_now_mono_usec() >= until)
			return false;
		nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
	}
}

void tm_rec_progsrc_close(struct rec *r)
{
	struct progsrc *c = &r->psrc;

	if (c->pid > 0) {
		kill(-c->pid, SIGTERM); /* its group: `sh -c` and what it started */
		if (!reap_within(c, 500000)) {
			kill(-c->pid, SIGKILL);
			reap_within(c, 1000000);
		}
	}
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	tm_journal_close(r->psrc.journal);
	r->psrc.journal = NULL;
}
