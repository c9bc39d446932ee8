/*
 * A child process for unit tests, with two pipes: "go" (the test writes,
 * the child reads) and "ready" (the child writes, the test reads).  One
 * helper instead of a copy per test file.
 *
 *   struct child c;
 *   child_spawn(&c, body, arg);   // fork; the child runs body(arg, go, ready)
 *   child_go(&c);                 // one byte down "go"
 *   child_ready(&c, buf, n);      // read n bytes from "ready" (false: it died)
 *   child_reap(&c, &status);      // close both pipes and wait
 *   child_kill(&c, &status);      // SIGKILL, then child_reap
 *
 * A body never returns into the test: child_spawn calls _exit(0) when it
 * does.  Include after <cmocka.h>.
 *
 * A failed assertion leaves the test (cmocka jumps out of it) before its
 * child_reap or child_kill: the child, paused, would hold the test's output
 * pipe for ever.  So each child leads a process group of its own (its own
 * children too, unless they leave it), dies with the test process
 * (PR_SET_PDEATHSIG, also when the test is killed), and at the test
 * program's exit every child not yet reaped has its group killed and is
 * reaped (atexit).
 */
#ifndef TM_TEST_CHILD_H
#define TM_TEST_CHILD_H

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct child {
	pid_t pid;
	int go;    /* test -> child */
	int ready; /* child -> test */
};

/* The children spawned and not yet reaped (0: a free slot). */
#define CHILD_MAX_LIVE 64
static pid_t child_live[CHILD_MAX_LIVE];

/* At exit: each child not reaped, and its process group, killed and reaped. */
static inline void child_kill_leftovers(void)
{
	for (int i = 0; i < CHILD_MAX_LIVE; i++)
		if (child_live[i] > 0) {
			kill(-child_live[i], SIGKILL);
			kill(child_live[i], SIGKILL);
			waitpid(child_live[i], NULL, 0);
			child_live[i] = 0;
		}
}

static inline void child_track(pid_t pid, pid_t was)
{
	static bool registered;

	if (!registered && atexit(child_kill_leftovers) == 0)
		registered = true;
	for (int i = 0; i < CHILD_MAX_LIVE; i++)
		if (child_live[i] == was) {
			child_live[i] = pid;
			return;
		}
}

typedef void child_body(void *arg, int go_fd, int ready_fd);

/* In the child: waits for the test's byte on GO_FD; false if the test went away. */
static inline bool child_await_go(int go_fd)
{
	char b;
	return read(go_fd, &b, 1) == 1;
}

/* Forks; the child runs BODY(ARG, its go fd, its ready fd). */
static inline void child_spawn(struct child *c, child_body *body, void *arg)
{
	int go[2], ready[2];

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	pid_t parent = getpid();
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		/* dies with the test, and leads a group the test can kill */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(126);
		setpgid(0, 0);
		close(go[1]);
		close(ready[0]);
		body(arg, go[0], ready[1]);
		_exit(0);
	}
	setpgid(c->pid, c->pid); /* as the child does: whichever runs first */
	child_track(c->pid, 0);
	close(go[0]);
	close(ready[1]);
	c->go = go[1];
	c->ready = ready[0];
}

static inline void child_go(struct child *c)
{
	char b = 'g';
	assert_int_equal(write(c->go, &b, 1), 1);
}

/* Reads exactly N bytes from the child's ready pipe; false when it ended first. */
static inline bool child_ready(struct child *c, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(c->ready, (char *)buf + got, n - got);
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

static inline void child_reap(struct child *c, int *status)
{
	int st;
	close(c->go);
	close(c->ready);
	pid_t got = waitpid(c->pid, status ? status : &st, 0);
	if (got == c->pid)
		child_track(0, c->pid);
	assert_int_equal(got, c->pid);
}

/* SIGKILL to the child (not its group: a test may follow its orphans),
 * then child_reap. */
static inline void child_kill(struct child *c, int *status)
{
	kill(c->pid, SIGKILL);
	child_reap(c, status);
}

#endif
