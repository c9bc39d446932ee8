/*
 * The relay: a small process that carries a launched command's captured
 * output to where tidemark's own output went, and hands a copy to the
 * recorder for its progress lines.
 *
 * It exists so that the observed program never depends on the recorder: it
 * runs in a process group of its own, ignores the signals that end
 * tidemark, and when the recorder is gone (killed, crashed, exited) it goes
 * on copying without forwarding, so the command is never blocked and never
 * sees EPIPE.  It exits once the command (and everything that inherited its
 * stdout and stderr) has closed them.  Its own ends are the only copies of
 * the capture pipes' read sides, so nothing else can block the command.
 */
#ifndef TM_RELAY_H
#define TM_RELAY_H

#include <stdbool.h>
#include <sys/types.h>

struct tm_relay {
	pid_t pid;     /* 0: no relay */
	int fwd_fd[2]; /* read ends: copies of stdout and stderr, non-blocking; -1 at EOF */
	int life_fd;   /* write end the relay watches: closed, the relay is on its own */
};

/*
 * Forks the relay.  IN: the read ends of the command's stdout and stderr (a
 * pipe or a pty master; -1: not captured).  OUT: where to copy each (our
 * stdout and stderr; -1: nowhere, as with -q).  MARK_FD: the marks FIFO, which
 * the relay drains once the recorder is gone so that a writer never blocks
 * (its read end and our write end that keeps it from EOF; -1: none).  The relay keeps copies of IN;
 * the caller should close its own.  PROCS: the command's cgroup.procs, or
 * NULL: with a marks FIFO, a relay on its own keeps draining it until that
 * file lists no process (read again each second), so that a command whose
 * recorder died never blocks writing a mark, even with nothing captured
 * (IN both -1) or after its output has closed (a daemon).  0, or -1 after
 * tm_error.
 */
int tm_relay_start(const int in[2], const int out[2], const int mark[2], const char *procs,
                   struct tm_relay *r);

/*
 * Tells the relay that the recorder is done with it (it goes on copying as
 * long as the command writes) and waits at most WAIT_USEC for it to exit.
 * Closes the caller's ends.  Whether it exited in time.
 */
bool tm_relay_release(struct tm_relay *r, long long wait_usec);

/* The relay's loop, in the forked process: never returns.  Exposed for the
 * unit test. */
void tm_relay_run(int in[2], int out[2], int fwd[2], int life_fd, int mark_fd, const char *procs)
    __attribute__((noreturn));

#endif
